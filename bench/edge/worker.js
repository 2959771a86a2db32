// The edge benchmark's Worker (bench/edge.mjs bundles it once per client, the client module
// aliased as `bench-client`): one client per isolate, opened by the first request.
//   GET /call?mcp=<url>&n=N   N sequential echo tools/calls; answers the last result, and
//                             the wasm linear memory in x-wasm-memory when the client has one
// Timers are frozen while a Worker computes, so nothing is timed in here: bench/edge.mjs
// measures wall time from outside and CPU from the workerd process's scheduler counters.
import * as c from 'bench-client';

let opened = null;
const ARGS = { text: 'hello from the benchmark' };

export default {
  async fetch(request) {
    const url = new URL(request.url);
    try {
      opened = opened || c.open(url.searchParams.get('mcp'));
      const client = await opened;
      let last = null;
      for (let i = 0, n = Number(url.searchParams.get('n') || 1); i < n; i++) last = await client.call('echo', ARGS);
      if (last?.content?.[0]?.text !== JSON.stringify(ARGS)) throw new Error(`wrong echo result ${JSON.stringify(last)}`);
      const headers = c.wasmMemoryBytes ? { 'x-wasm-memory': String(await c.wasmMemoryBytes()) } : {};
      return Response.json(last, { headers });
    } catch (e) {
      opened = null;
      return new Response(`ERROR ${e && e.name}: ${e && e.message}\n${e && e.stack}`, { status: 500 });
    }
  },
};
