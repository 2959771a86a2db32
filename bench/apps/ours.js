// The minimal app with our client: discover, list tools, call a tool (tasks included:
// the tasks extension is part of the one package).
import { McpClient } from 'mcp-wasm-client';

export async function run(url) {
  const client = new McpClient(url, {
    clientInfo: { name: 'bench-app', version: '1.0.0' },
    extensions: ['io.modelcontextprotocol/tasks'],
  });
  await client.discover();
  const { tools } = await client.listTools();
  return client.callTool(tools[0].name, { text: 'hi' });
}
