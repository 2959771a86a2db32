// The same app with the official tasks layer (@modelcontextprotocol/ext-tasks): the tool
// call goes through a task session, which drives a task to its outcome.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';

export async function run(url) {
  const client = new Client(
    { name: 'bench-app', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const { tools } = await client.listTools();
  const session = createTaskSessionFromClient(client, { endpointId: 'bench' });
  try {
    const execution = await session.callTool(tools[0].name, { text: 'hi' });
    const { outcome } = await execution.settle();
    return resultFromTaskOutcome(outcome);
  } finally {
    await session.close();
  }
}
