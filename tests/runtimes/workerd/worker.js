// A Cloudflare Workers module worker, written as a user of the package writes one and
// bundled as Wrangler bundles it (tests/runtimes/workerd/bundle.mjs): the `.wasm` import
// stays a separate module of type CompiledWasm, so `wasm` is a WebAssembly.Module, and
// `load(wasm)` instantiates it (Workers cannot compile wasm from bytes at run time).
//
//   GET /scenario?mcp=<server url>   the shared scenario (tests/runtimes/scenario.js), JSON
//   GET /call?mcp=<server url>&n=N   N echo tools/calls on the isolate's client for that server,
//                                    created by the first request and kept for later ones
import { load } from 'mcp-wasm-client/load';
import wasm from 'mcp-wasm-client/mcp_wasm_client_bg.wasm';
import { scenario } from '../scenario.js';

const clients = new Map();

export default {
  async fetch(request) {
    const url = new URL(request.url);
    const mcp = url.searchParams.get('mcp');
    if (!mcp) return new Response('missing ?mcp=<server url>', { status: 400 });
    try {
      const api = await load(wasm);
      if (url.pathname === '/scenario') {
        return Response.json({ wasmIsModule: wasm instanceof WebAssembly.Module, ...(await scenario(api, mcp, 'workerd')) });
      }
      if (url.pathname === '/call') {
        // One client at module scope, kept across requests (as a Worker keeps one per isolate).
        if (!clients.has(mcp)) clients.set(mcp, new api.McpClient(mcp));
        const client = clients.get(mcp);
        let last = null;
        for (let i = 0, n = Number(url.searchParams.get('n') || 1); i < n; i++) {
          last = await client.callTool('echo', { text: `call ${i}` });
        }
        return Response.json(last);
      }
      return new Response('not found', { status: 404 });
    } catch (e) {
      return new Response(`ERROR ${e && e.name}: ${e && e.message}\n${e && e.stack}`, { status: 500 });
    }
  },
};
