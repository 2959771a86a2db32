// The official TypeScript client (@modelcontextprotocol/client 2.4.0) pinned to 2026-07-28,
// behind the benchmarks' common interface (see ours.js). connect() sends server/discover.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export const name = 'ts';

export async function open(url, opts = {}) {
  const client = new Client(
    { name: 'bench', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), opts.fetch ? { fetch: opts.fetch } : undefined);
  await client.connect(transport);
  return {
    client,
    call: (tool, args) => client.callTool({ name: tool, arguments: args }),
    listTools: () => client.listTools(),
  };
}
