// `mcp-wasm-client/ai` with the installed AI SDK (`ai`, see package.json) and its mock
// language model (`ai/test`), against the real test server (tests/servers/modern_server.py;
// MCP_TEST_URL=... to use a running one). No network beyond loopback, no API key.
// The mock model asks for tool calls; the adapter runs them through the client:
//   schema      each MCP tool becomes an AI SDK tool: description, inputSchema as its JSON schema; include; unknown names
//   agent loop  generateText: plain text, structuredContent, an isError result (a tool error for the
//               model, nothing thrown), an MRTR input round answered by the client's handler and a task
//               that asks two inputs, each shown to the model in the SDK's tool-output shape
//   progress    the call's progress reaches onProgress, task statuses reach onTaskStatus
//   abort       generateText's abortSignal aborts the running call (the server sees it cancelled)
// One PASS/FAIL line per case; exit status 1 when one failed. ai@7 declares Node >= 22 but runs
// this under Node 20 too (NODE=... picks the binary in tests/e2e/run.sh).
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { mcpServer } from '../e2e/lib.mjs';
import { aiTools } from '../../pkg/ai.js';
import { ConfigError, McpClient } from '../../pkg/index.js';

const url = await mcpServer('MCP_TEST_URL', 'tests/servers/modern_server.py');
const base = new URL(url).origin;
let failed = 0;

async function test(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    console.log(`PASS ai: ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    failed += 1;
    console.log(`FAIL ai: ${name}: ${e?.stack || e}`);
  }
}
function assert(ok, what) {
  if (!ok) throw new Error(`assertion failed: ${what}`);
}
const json = (v) => JSON.stringify(v);
function eq(got, want, what) {
  assert(json(got) === json(want), `${what}: got ${json(got)}, expected ${json(want)}`);
}

const asked = [];
const client = new McpClient(url, {
  clientInfo: { name: 'ai-adapter-test', version: '1.0.0' },
  extensions: ['io.modelcontextprotocol/tasks'],
  onElicitation: async (request, ctx) => {
    asked.push(`${ctx.scope}:${ctx.key}`);
    const fields = Object.keys(request.requestedSchema?.properties ?? {});
    if (fields.includes('age')) return { action: 'accept', content: { age: 36 } };
    return { action: 'accept', content: { name: 'Ada' } };
  },
});

/** The usage every mock step reports. */
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
const call = (id, toolName, input) => ({ type: 'tool-call', toolCallId: id, toolName, input: JSON.stringify(input) });

/** A mock model that asks for `calls` first, then answers `finalText`. */
function scriptedModel(calls, finalText = 'done') {
  let step = 0;
  return new MockLanguageModelV4({
    doGenerate: async () => {
      step += 1;
      if (step === 1) return { content: calls, finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] };
      return { content: [{ type: 'text', text: finalText }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
    },
  });
}

/** The tool outputs the model was shown in its second step, by tool call id. */
function shownToModel(model) {
  const second = model.doGenerateCalls[1];
  assert(second, 'the model was called a second time');
  const out = {};
  for (const message of second.prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.type === 'tool-result') out[part.toolCallId] = part.output;
  }
  return out;
}

await test('schema: every tool with its description and inputSchema; include; unknown names', async () => {
  const listed = await client.listAllTools();
  const all = await aiTools(client);
  eq(Object.keys(all).sort(), listed.map((t) => t.name).sort(), 'tool names');
  const echo = listed.find((t) => t.name === 'echo');
  assert(all.echo.description === echo.description && echo.description.length > 0, 'echo description');
  assert(all.echo.type === 'dynamic', 'a dynamic tool');
  assert(typeof all.echo.execute === 'function', 'an execute function');
  const schema = await all.add.inputSchema.jsonSchema;
  eq(schema.properties, listed.find((t) => t.name === 'add').inputSchema.properties, 'add inputSchema properties');
  eq(schema.required, ['a', 'b'], 'add required');
  const some = await aiTools(client, { include: ['echo', 'add'] });
  eq(Object.keys(some).sort(), ['add', 'echo'], 'include');
  let err = null;
  try {
    await aiTools(client, { include: ['echo', 'no_such_tool'] });
  } catch (e) {
    err = e;
  }
  assert(err instanceof ConfigError && /no_such_tool/.test(err.message), `unknown name: ${err}`);
});

await test('agent loop: text, structuredContent, isError, an MRTR input and a task with two inputs', async () => {
  asked.length = 0;
  const tools = await aiTools(client, { include: ['echo', 'add', 'error_tool', 'ask_name', 'task_two_inputs', 'task_structured'] });
  const model = scriptedModel([
    call('c1', 'echo', { text: 'hello from the model' }),
    call('c2', 'add', { a: 2, b: 3 }),
    call('c3', 'error_tool', { mode: 'tool' }),
    call('c4', 'ask_name', {}),
    call('c5', 'task_two_inputs', {}),
    call('c6', 'task_structured', { label: 'pressure' }),
  ], 'all six done');
  const result = await generateText({ model, tools, prompt: 'use the tools', stopWhen: stepCountIs(3) });
  eq(result.text, 'all six done', 'final text');
  eq(result.steps.length, 2, 'steps');
  const shown = shownToModel(model);
  eq(shown.c1, { type: 'text', value: 'hello from the model' }, 'echo shown');
  eq(shown.c2, { type: 'json', value: { sum: 5 } }, 'add shown');
  assert(shown.c3?.type === 'error-text' && /deliberate tool error/.test(shown.c3.value), `error_tool shown: ${json(shown.c3)}`);
  eq(shown.c4, { type: 'text', value: 'Hello, Ada!' }, 'ask_name shown');
  eq(shown.c5, { type: 'text', value: 'Ada is 36 years old' }, 'task_two_inputs shown');
  eq(shown.c6, { type: 'json', value: { label: 'pressure', value: 21.5, unit: 'C' } }, 'task_structured shown');
  // The app sees the CallToolResults; the isError one is a result, not a thrown error.
  const outputs = Object.fromEntries(result.steps[0].toolResults.map((r) => [r.toolCallId, r.output]));
  eq(outputs.c2.structuredContent, { sum: 5 }, 'add output');
  eq(outputs.c3.isError, true, 'error_tool output isError');
  eq(result.steps[0].content.filter((p) => p.type === 'tool-error').length, 0, 'no thrown tool errors');
  eq(asked.map((a) => a.replace(/^request:.*/, 'request')).sort(), ['request', 'task:age', 'task:name'], 'input requests answered by the handler');
});

await test('progress and task status reach the callbacks', async () => {
  const progress = [];
  const statuses = [];
  const tools = await aiTools(client, {
    include: ['progress', 'task_quick'],
    onProgress: (p, info) => progress.push(`${info.toolName}/${info.toolCallId} ${p.progress}/${p.total}`),
    onTaskStatus: (task, info) => statuses.push(`${info.toolName} ${task.status}`),
  });
  const model = scriptedModel([call('p1', 'progress', { steps: 3, delay_ms: 20 }), call('t1', 'task_quick', {})]);
  const result = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(2) });
  eq(shownToModel(model).p1, { type: 'text', value: 'done 3 steps' }, 'progress shown');
  eq(shownToModel(model).t1, { type: 'text', value: 'quick task done' }, 'task_quick shown');
  eq(progress, ['progress/p1 1/3', 'progress/p1 2/3', 'progress/p1 3/3'], 'progress');
  assert(statuses.includes('task_quick completed'), `task statuses: ${json(statuses)}`);
  eq(result.text, 'done', 'final text');
});

await test('abort: generateText\'s abortSignal cancels the running tool call on the server', async () => {
  // The server is shared with other suites: only the events after this point count.
  const events = async () => (await (await fetch(`${base}/debug/events`)).json()).map((e) => e.event);
  const before = (await events()).length;
  const tools = await aiTools(client, { include: ['slow'] });
  const model = scriptedModel([call('s1', 'slow', { ms: 8000 })]);
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 500);
  const t0 = Date.now();
  let outcome;
  try {
    const result = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(2), abortSignal: controller.signal });
    outcome = result.steps[0].content.find((p) => p.type === 'tool-error')?.error;
  } catch (e) {
    outcome = e;
  }
  assert(Date.now() - t0 < 4000, `aborted quickly (${Date.now() - t0} ms)`);
  assert(outcome && /abort/i.test(`${outcome.name} ${outcome.message}`), `an abort: ${outcome}`);
  const end = Date.now() + 5000;
  let seen = (await events()).slice(before);
  while (!seen.includes('slow_cancelled') && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
    seen = (await events()).slice(before);
  }
  assert(seen.includes('slow_started') && seen.includes('slow_cancelled') && !seen.includes('slow_finished'), `server events: ${json(seen)}`);
});

await test('names: a tool named __proto__ is an own tool of the set (the set keeps its prototype), and it runs', async () => {
  await client.callTool('add_tool', { name: '__proto__' });
  const fresh = new McpClient(url, { clientInfo: { name: 'ai-adapter-test', version: '1.0.0' } });
  try {
    const tools = await aiTools(fresh);
    assert(Object.keys(tools).includes('__proto__'), `keys ${json(Object.keys(tools))}`);
    assert(Object.hasOwn(tools, '__proto__') && tools.__proto__.type === 'dynamic', 'an own dynamic tool');
    assert(Object.getPrototypeOf(tools) === Object.prototype, 'the set\'s prototype changed');
    assert(tools.execute === undefined && !('inputSchema' in tools), 'a tool\'s members are inherited by the set');
    const model = scriptedModel([call('x1', '__proto__', { text: 'hi' })]);
    await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(2) });
    assert(model.doGenerateCalls[0].tools.some((t) => t.name === '__proto__'), 'not offered to the model');
    eq(shownToModel(model).x1, { type: 'text', value: 'dynamic tool __proto__: hi' }, '__proto__ shown');
  } finally {
    fresh.close();
    await client.callTool('remove_tool', { name: '__proto__' }); // the server is shared with other suites
  }
});

await test('names: a name listed twice: the first tool wins (with include too)', async () => {
  const schema = { type: 'object', properties: { q: { type: 'string' } } };
  const called = [];
  const stub = {
    listAllTools: async () => [
      { name: 'same', description: 'first', inputSchema: schema },
      { name: 'other', description: 'other', inputSchema: schema },
      { name: 'same', description: 'second', inputSchema: { type: 'object', properties: { n: { type: 'number' } } } },
    ],
    callTool: async (name, args) => { called.push(name); return { content: [{ type: 'text', text: `${name} ${json(args)}` }] }; },
  };
  const tools = await aiTools(stub);
  eq(Object.keys(tools), ['same', 'other'], 'names');
  eq(tools.same.description, 'first', 'the first one');
  eq(Object.keys((await tools.same.inputSchema.jsonSchema).properties), ['q'], 'the first one\'s schema');
  eq((await aiTools(stub, { include: ['same'] })).same.description, 'first', 'include: the first one');
});

client.close();
process.exit(failed === 0 ? 0 : 1);
