// What every environment test does with the package, given its module namespace: discover,
// list tools, call a tool, run a task to its end (timers and polling), and check that a
// server error arrives as an instance of the exported McpError class.
export async function probe(mcp, url, env) {
  const { McpClient, McpError } = mcp;
  const client = new McpClient(url, {
    clientInfo: { name: `env-test-${env}`, version: '1.0.0' },
    extensions: ['io.modelcontextprotocol/tasks'],
  });
  try {
    await client.discover();
    const tools = await client.listAllTools();
    if (!tools.some((t) => t.name === 'echo')) throw new Error('the echo tool is not listed');
    const echo = await client.callTool('echo', { text: `hello from ${env}` });
    const task = await client.callTool('task_quick', {});
    let error = 'no error';
    try {
      await client.callTool('error_tool', { mode: 'protocol' });
    } catch (e) {
      error = e instanceof McpError ? `${e.name} ${e.code}` : `not an McpError: ${e && e.name}`;
    }
    return `${client.era} | ${echo.content[0].text} | ${task.content[0].text} | ${error}`;
  } finally {
    client.close();
  }
}

export const expected = (env) => `modern | hello from ${env} | quick task done | McpError -32603`;
