// Deno and Bun: the package's main entry imported by path (pkg/index.js, whose top-level
// await instantiates the wasm from the file beside it), then the shared scenario against
// the server whose URL is the first argument. Prints the scenario's result as one JSON line.
//
//   deno run --allow-net=127.0.0.1 --allow-read=pkg,tests/runtimes --no-remote tests/runtimes/main-entry.mjs <mcp url>
//   bun tests/runtimes/main-entry.mjs <mcp url>
import * as mcp from '../../pkg/index.js';
import { scenario } from './scenario.js';

const url = (globalThis.Deno ? Deno.args : process.argv.slice(2))[0];
const env = globalThis.Deno ? 'deno' : globalThis.Bun ? 'bun' : 'unknown';
console.log(JSON.stringify(await scenario(mcp, url, env)));
