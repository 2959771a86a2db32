// eventsource-parser (the SSE parser the TypeScript client uses), for the browser bundle.
export { createParser } from 'eventsource-parser';
