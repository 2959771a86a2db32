// The fault-injection scenarios of tests/faults/server.mjs: one catalogue shared by the
// server (which refuses a scenario it does not know), the suite (which checks that every
// scenario has a test) and RELIABILITY.md (one row per scenario).
//
// A client selects a scenario by its URL: `<base>/s/<scenario>/<token>/mcp[?params]`. The
// token names the test case's own server state (tasks, counters, recorded requests), so
// cases never see each other's state, in Node and Chromium alike. `target` says which
// requests the fault hits; every other request of the scenario is answered correctly, so
// `echo` on the same client always works afterwards ("the client stays usable").

export const SCENARIOS = {
  ok: { target: '-', fault: 'none: a correct 2026-07-28 server (discover, tools, tasks, listen)' },

  // ---- transport: the response of tools/call `hit`
  'cut-before-response-once': { target: 'tools/call hit #1', fault: 'SSE opened, a log notification, then the connection is cut before the response (first call only)' },
  'cut-before-response': { target: 'tools/call hit', fault: 'SSE opened, then the connection is cut before the response (every time)' },
  'cut-after-response': { target: 'tools/call hit', fault: 'SSE response sent, then the connection is cut without ending the stream' },
  'cut-json-body': { target: 'tools/call hit', fault: 'application/json with Content-Length, half of the body, then the connection is cut' },
  'cut-large-json-body': { target: 'tools/call hit', fault: 'application/json with Content-Length, 256 KiB (read into one buffer of its size), half of it, then the connection is cut' },
  'http-500': { target: 'tools/call hit', fault: '500 text/plain' },
  'http-502-html': { target: 'tools/call hit', fault: '502 with an HTML error page' },
  'http-503-retry-after': { target: 'tools/call hit', fault: '503 with Retry-After: 3' },
  'http-429-retry-after': { target: 'tools/call hit', fault: '429 with Retry-After: 2' },
  stall: { target: 'tools/call hit', fault: 'no response head, ever' },
  'stall-sse': { target: 'tools/call hit', fault: 'SSE opened, one notification, then silence' },
  'malformed-json': { target: 'tools/call hit', fault: '200 application/json that is not JSON' },
  'html-200': { target: 'tools/call hit', fault: '200 text/html (a login page)' },
  'wrong-content-type': { target: 'tools/call hit', fault: '200 text/plain carrying a valid JSON-RPC response' },
  'other-id': { target: 'tools/call hit', fault: 'a JSON response naming another request id' },
  envelopes: { target: 'tools/call hit {form} or {raw}, and {pad}', fault: 'the response written in one of many forms, well-formed or not: members in other orders, spaced, duplicated, escaped, a BOM, bytes that are not UTF-8, other ids and result types; or as the bytes given (random mutants of well-formed responses); padded past 64 KiB on asking' },
  'duplicate-response': { target: 'tools/call hit', fault: 'SSE: the response, then a second, different response with the same id' },
  'sse-malformed': { target: 'tools/call hit', fault: 'SSE event whose data is not JSON' },
  'oversized-event': { target: 'tools/call sized', fault: 'one SSE event whose data is exactly `bytes` (an argument) long' },
  'oversized-body': { target: 'tools/call sized', fault: 'an application/json body exactly `bytes` (an argument) long' },
  'endless-body': { target: 'tools/call hit', fault: '200 application/json whose body never ends (a space every 50 ms)' },
  'flood-body': { target: 'tools/call hit', fault: '200 application/json whose body grows as fast as the client reads (64 KiB chunks) to 64 MiB, 64 times the limit the case sets, and then never ends' },
  'error-ansi': { target: 'tools/call hit', fault: 'JSON-RPC error whose message carries ANSI escapes, CR/LF, BEL and bidi controls' },
  'http-500-ansi': { target: 'tools/call hit', fault: '500 text/plain whose body carries ANSI escapes and CR/LF' },
  'header-echo': { target: 'tools/call (any name)', fault: 'none: records the raw request headers (header-injection checks)' },
  'url-elicitation': { target: 'tools/call url_ask', fault: 'MRTR URL-mode elicitation for the `url` argument (the client must never fetch it)' },

  // ---- what a call needs first
  'discover-503-once': { target: 'server/discover #1', fault: '503 + Retry-After on the era detection of a client in protocolVersion auto' },
  'tools-list-500-once': { target: 'tools/list #1', fault: '500 on the tools/list a call makes first (to learn x-mcp-header); region_echo answers -32020 without its header' },

  // ---- MRTR (input_required on tools/call)
  'mrtr-drop-retry': { target: 'tools/call ask, retry #1', fault: 'the retry carrying inputResponses is cut before its response (once)' },
  'mrtr-busy-retry': { target: 'tools/call ask, retry #1', fault: 'the retry carrying inputResponses is answered 503 with Retry-After: 1 (once)' },
  'mrtr-reset-retry': { target: 'tools/call ask, retry #1', fault: 'the retry carrying inputResponses has its connection reset before any response head (once)' },

  // ---- tasks
  'task-regress': { target: 'tasks/get, notifications/tasks', fault: 'a completed task reported `working` again afterwards' },
  'task-id-reused': { target: 'tools/call task_ask', fault: 'every new task gets the same taskId (a finished task\'s id reused for a new task)' },
  'task-ttl-expiry': { target: 'task_slow', fault: 'the task never finishes and its TTL passes (then tasks/get answers -32602)' },
  'task-lost-ack': { target: 'tasks/update #1 (every delivery of it)', fault: 'the update is applied, then the connection is cut before any response' },
  'task-lost-ack-sse': { target: 'tasks/update #1 (every delivery of it)', fault: 'an SSE response is opened, the update applied, then the connection is cut' },
  'task-update-lost': { target: 'tasks/update #1 (every delivery of it)', fault: 'the connection is cut before the update is applied' },
  'task-stale-poll': { target: 'tasks/update #1, tasks/get meanwhile', fault: 'a lost ack, and a poll answered before the update was applied but delivered after it was lost' },
  'task-get-transient': { target: 'tasks/get #1-#4', fault: '503, JSON-RPC -32603, a cut connection, a 502 HTML page; then correct answers' },
  'restart-keep': { target: 'whole server', fault: 'POST /debug/restart: every connection cut, down for ?downMs, back with the task state kept' },
  'restart-lose': { target: 'whole server', fault: 'the same restart, but the tasks are forgotten' },

  // ---- subscriptions/listen
  'listen-drop': { target: 'subscriptions/listen #1', fault: 'acknowledged, one notification, then the stream is cut' },
  'listen-flap': { target: 'subscriptions/listen', fault: 'acknowledged then cut; the next ?fails= listens answer 503; the one after stays' },
  'listen-odd-ack': { target: 'subscriptions/listen', fault: 'instead of an acknowledgement of the filter, ?form=: result (the final response), input-required (an input_required result), missing / array / string / boolean / ids (an acknowledgement without notifications, or with a malformed one)' },
  'listen-flood': { target: 'subscriptions/listen', fault: 'none: acknowledged, then ?count= (3000) notifications/tools/list_changed at once, numbered by params.seq' },
  'listen-slow-ack': { target: 'subscriptions/listen', fault: 'the acknowledgement comes after ?delay= ms (never when absent)' },

  // ---- CORS (a page on another origin; paths /cors/<policy>/<token>/mcp)
  'cors-none': { target: 'every request', fault: 'no CORS headers at all (preflight answered 404 without them)' },
  'cors-no-headers': { target: 'every request', fault: 'preflight allows the origin but only Content-Type as a request header' },
  'cors-no-expose': { target: 'every POST', fault: '401 with WWW-Authenticate not listed in Access-Control-Expose-Headers' },
  'cors-expose': { target: 'every POST', fault: '401 with WWW-Authenticate exposed (the control case)' },
};

/** The CORS policy of a `/cors/<policy>/...` path, by scenario name. */
export const CORS_POLICIES = ['none', 'no-headers', 'no-expose', 'expose'];
