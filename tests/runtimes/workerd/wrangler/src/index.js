// The README's worker, with its answer turned into facts the test checks: the .wasm import
// is a compiled WebAssembly.Module, `load(wasm)` instantiates it, the wrangler `vars` reach
// `env`, and a tools/call goes out through fetch. A workerd serving a wrangler config allows
// public addresses only, as deployed Workers do, so the call to the loopback test server is
// refused by the runtime (a NetworkError; workerd logs "... is not allowed").
import { load } from 'mcp-wasm-client/load';
import wasm from 'mcp-wasm-client/mcp_wasm_client_bg.wasm';

let client;

export default {
  async fetch(request, env) {
    const { McpClient, version } = await load(wasm);
    client ??= new McpClient(env.MCP_SERVER_URL, { onElicitation: async () => ({ action: 'decline' }) });
    let call;
    try {
      const r = await client.callTool('echo', { text: 'from wrangler.jsonc' });
      call = `result ${r.content[0].text}`;
    } catch (e) {
      call = e.name;
    }
    return Response.json({
      wasmIsModule: wasm instanceof WebAssembly.Module,
      version: typeof version(),
      url: env.MCP_SERVER_URL,
      call,
    });
  },
};
