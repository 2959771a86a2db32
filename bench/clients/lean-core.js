// The lean shell of bench/clients/lean.js over the real engine (src/web/bench.rs
// `__bench_core_*`): the request and the answer go through `Core`, the engine our client
// runs, driven as `per_call_probe` drives it; only the web shell (driver, futures,
// promises, option readers, the glue's crossings) is left out. A probe, not a client
// (BENCHMARKS.md, the twenty-sixth session). Needs bench/build-bench-pkg.sh; `open`'s
// options as bench/clients/lean.js's.
import * as benchPkg from '../out/pkg-bench/mcp_wasm_client.js';
import { ECHO_HEADERS, postAsOurs, readHeadersAsOurs } from '../lib/workload.js';
import { load } from './lean.js';

export const name = 'lean-core';

/** Our client's request header pairs, but the method's and the tool's. */
const HEADERS = ECHO_HEADERS.filter(([n]) => n !== 'mcp-name' && n !== 'mcp-method');

export async function open(url, opts = {}) {
  const g = await load(opts, benchPkg);
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
        const res = await fetch(url, postAsOurs(headers, body));
        const ct = readHeadersAsOurs(res);
        __bench_core_respond(wire, res.status, ct, new Uint8Array(await res.arrayBuffer()));
      }
      return JSON.parse(__bench_core_result());
    },
    listTools: async () => ({ tools: [] }),
  };
}
