// A probe of a lean call path (BENCHMARKS.md, the twenty-sixth session), not a client: the
// bench package's `__bench_lean_*` hooks (src/web/bench.rs) do the least a client must do in
// the wasm for a tools/call answered with JSON (check the arguments, write the request,
// check the answer's UTF-8 and JSON-RPC envelope, its id and `resultType`), and `fetch` is
// called around them exactly as our runner calls it (bench/lib/workload.js `fetchAsOurs`:
// header pairs, the body as bytes, a fresh AbortController's signal, five response headers
// read, `arrayBuffer()`); the result text is handed to `JSON.parse`. What it adds over raw
// fetch on loopback bounds what a rewrite of our call path could take off ours.
// Needs bench/build-bench-pkg.sh. `open(url, { wasm, glue })`: the module's bytes (Node;
// by default the glue fetches it next to itself, as on a page of the bench server), and
// another build's glue module (bench/tools/wasm-calls.mjs: an instrumented one).
import * as benchPkg from '../out/pkg-bench/mcp_wasm_client.js';
import { ECHO_HEADERS, postAsOurs, readHeadersAsOurs } from '../lib/workload.js';

export const name = 'lean';

/** The request's header pairs as our client sends them for a tools/call, but `mcp-name`. */
const HEADERS = ECHO_HEADERS.filter(([n]) => n !== 'mcp-name');

/** The bench package's glue (or `opts.glue`), initialised with `opts.wasm` if given. */
export async function load(opts, pkg) {
  const g = opts.glue ?? pkg;
  await g.default(opts.wasm ? { module_or_path: opts.wasm } : undefined);
  return g;
}

export async function open(url, opts = {}) {
  const g = await load(opts, benchPkg);
  const { __bench_lean_id, __bench_lean_request, __bench_lean_response } = g;
  const te = new TextEncoder();
  return {
    call: async (tool, args) => {
      const id = __bench_lean_id();
      const body = __bench_lean_request(tool, te.encode(JSON.stringify(args)));
      const headers = HEADERS.map((p) => [...p]);
      headers.push(['mcp-name', tool]);
      const res = await fetch(url, postAsOurs(headers, body));
      readHeadersAsOurs(res);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return JSON.parse(__bench_lean_response(new Uint8Array(await res.arrayBuffer()), id));
    },
    listTools: async () => ({ tools: [] }),
  };
}
