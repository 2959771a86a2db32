// The scenario every real runtime runs (workerd, Deno, Bun, a Service Worker in Chromium),
// given the package's API (the main entry's namespace, or what `load()` resolves with) and
// the URL of tests/servers/modern_server.py. The same assertions everywhere: the runner
// compares `JSON.stringify(await scenario(...))` with `JSON.stringify(expected(env))`.
//
//   discover + tools/list   the era, and the tools this scenario needs are listed
//   tools/call              echo, a text result
//   an MRTR round           ask_name: the server answers input_required, the client's
//                           onElicitation handler answers in code, the call is retried
//   a task with input       task_two_inputs: a task that asks two questions (input_required
//                           task status), answered by the same handler, then completes
//   an error                error_tool (protocol): an McpError instance with its code
// No DOM, no top-level await, no globals beyond fetch and timers: a module Service Worker
// and a Workers isolate can import it.

const ANSWERS = { name: 'Ada', age: 36 };

export async function scenario(mcp, url, env) {
  const { McpClient, McpError } = mcp;
  const asks = [];
  const client = new McpClient(url, {
    clientInfo: { name: `runtime-test-${env}`, version: '1.0.0' },
    extensions: ['io.modelcontextprotocol/tasks'],
    // Elicitation answered in code: every field the form asks for, from ANSWERS.
    onElicitation: async (req, ctx) => {
      asks.push({ scope: ctx.scope, method: ctx.method, key: ctx.key, taskId: ctx.taskId, message: req.message });
      const content = {};
      for (const k of Object.keys(req.requestedSchema?.properties ?? {})) content[k] = ANSWERS[k];
      return { action: 'accept', content };
    },
  });
  const text = (r) => r.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
  try {
    await client.discover();
    const listed = (await client.listAllTools()).map((t) => t.name);
    const tools = ['echo', 'ask_name', 'task_two_inputs', 'error_tool'].filter((n) => listed.includes(n));

    const echo = text(await client.callTool('echo', { text: `hello from ${env}` }));

    const before = asks.length;
    const mrtr = text(await client.callTool('ask_name', {}));
    const mrtrAsks = asks.slice(before).map((a) => `${a.scope} ${a.method} ${a.key}: ${a.message}`);

    const mid = asks.length;
    const task = text(await client.callTool('task_two_inputs', {}));
    const taskAsks = asks.slice(mid);
    const taskIds = new Set(taskAsks.map((a) => a.taskId));
    const oneTask = taskIds.size === 1 && typeof taskAsks[0]?.taskId === 'string' && taskAsks[0].taskId !== '';

    let error = 'no error';
    try {
      await client.callTool('error_tool', { mode: 'protocol' });
    } catch (e) {
      error = e instanceof McpError ? `${e.name} ${e.code}` : `not an McpError: ${e && e.name}: ${e && e.message}`;
    }
    return {
      env,
      era: client.era,
      tools,
      echo,
      mrtr: { result: mrtr, asks: mrtrAsks },
      task: { result: task, asks: taskAsks.map((a) => `${a.scope} ${a.key}`), oneTaskId: oneTask },
      error,
    };
  } finally {
    client.close();
  }
}

export function expected(env) {
  return {
    env,
    era: 'modern',
    tools: ['echo', 'ask_name', 'task_two_inputs', 'error_tool'],
    echo: `hello from ${env}`,
    mrtr: { result: 'Hello, Ada!', asks: ['request tools/call __main__:ask_name_resolver: What is your name?'] },
    task: { result: 'Ada is 36 years old', asks: ['task name', 'task age'], oneTaskId: true },
    error: 'McpError -32603',
  };
}
