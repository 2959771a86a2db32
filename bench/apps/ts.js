// The minimal app with the official TypeScript client pinned to 2026-07-28: connect (which
// sends server/discover), list tools, call a tool.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export async function run(url) {
  const client = new Client(
    { name: 'bench-app', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const { tools } = await client.listTools();
  return client.callTool({ name: tools[0].name, arguments: { text: 'hi' } });
}
