// Our client in a Worker: `mcp-wasm-client/load` given the .wasm as a compiled module (what
// Wrangler's CompiledWasm import gives), behind the benchmarks' common interface.
import { load } from 'mcp-wasm-client/load';
import wasm from 'mcp-wasm-client/mcp_wasm_client_bg.wasm';
import init from 'mcp-wasm-client/raw';

export const name = 'ours';

export async function open(url) {
  const { McpClient } = await load(wasm);
  const client = new McpClient(url, { clientInfo: { name: 'bench', version: '1.0.0' } });
  return { client, call: (tool, args) => client.callTool(tool, args) };
}

/** Bytes of the wasm linear memory (init() returns the instantiated exports once loaded). */
export async function wasmMemoryBytes() {
  return (await init()).memory.buffer.byteLength;
}
