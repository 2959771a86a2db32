// The lean shell of bench/clients/lean.js over the real engine (src/web/bench.rs
// `__bench_core_*`): the request and the answer go through `Core`, the engine our client
// runs, driven as `per_call_probe` drives it; only the web shell (driver, futures,
// promises, option readers, the glue's crossings) is left out. A probe, not a client
// (BENCHMARKS.md, the twenty-sixth session). Needs bench/build-bench-pkg.sh; `open`'s
// options as bench/clients/lean.js's.
import * as benchPkg from '../out/pkg-bench/mcp_wasm_client.js';

export const name = 'lean-core';

const HEADERS = [
  ['content-type', 'application/json'],
  ['accept', 'application/json, text/event-stream'],
  ['mcp-protocol-version', '2026-07-28'],
];

export async function open(url, opts = {}) {
  const g = opts.glue ?? benchPkg;
  await g.default(opts.wasm ? { module_or_path: opts.wasm } : undefined);
  const { __bench_core_next, __bench_core_open, __bench_core_respond, __bench_core_result, __bench_core_start, __bench_core_wire } = g;
  __bench_core_open(url);
  const te = new TextEncoder();
  return {
    call: async (tool, args) => {
      __bench_core_start(tool, te.encode(JSON.stringify(args)));
      // The engine's requests, one after another, until the call ends (the first call
      // lists the tools before calling: the engine learns their x-mcp-header parameters).
      for (let body = __bench_core_next(); body; body = __bench_core_next()) {
        const wire = __bench_core_wire();
        const headers = HEADERS.map((p) => [...p]);
        const method = /"method":"([^"]+)"/.exec(new TextDecoder().decode(body.subarray(0, 64)))?.[1];
        headers.push(['mcp-method', method]);
        if (method === 'tools/call') headers.push(['mcp-name', tool]);
        const ac = new AbortController();
        const res = await fetch(url, { method: 'POST', headers, body, signal: ac.signal });
        const h = res.headers;
        const ct = h.get('content-type');
        h.get('mcp-session-id');
        h.get('retry-after');
        h.get('content-length');
        h.get('content-encoding');
        __bench_core_respond(wire, res.status, ct, new Uint8Array(await res.arrayBuffer()));
      }
      return JSON.parse(__bench_core_result());
    },
    listTools: async () => ({ tools: [] }),
  };
}
