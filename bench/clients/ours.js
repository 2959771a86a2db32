// Our client behind the benchmarks' common interface:
//   open(url, { fetch, tasks }) -> { call(name, args), listTools(), raw }
// `fetch` (optional) is the fetch function the client uses (the large-result benchmark
// wraps it to see when the response head arrives).
import { McpClient } from '../../pkg/index.js';
import init from '../../pkg/mcp_wasm_client.js';

export const name = 'ours';

export async function open(url, opts = {}) {
  const client = new McpClient(url, {
    clientInfo: { name: 'bench', version: '1.0.0' },
    ...(opts.tasks ? { extensions: ['io.modelcontextprotocol/tasks'] } : {}),
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
    ...(opts.pushTasks !== undefined ? { pushTasks: opts.pushTasks } : {}),
  });
  return {
    client,
    call: (tool, args) => client.callTool(tool, args),
    listTools: () => client.listTools(),
  };
}

/** Bytes of the wasm module's linear memory (it only grows: this is its peak). */
export async function wasmMemoryBytes() {
  // The module is already instantiated by index.js: init() returns its exports.
  return (await init()).memory.buffer.byteLength;
}
