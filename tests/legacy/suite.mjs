// Legacy eras through the same public API: a 2025-11-25 server (the official
// @modelcontextprotocol/server-everything), the Python SDK in its handshake era (pinned) and
// in 2026-07-28 (auto detection), and a 2024-11-05 HTTP+SSE server. The same cases run in
// Node and in headless Chromium (tests/legacy/run.mjs).
import { McpClient, McpError } from '../../pkg/index.js';
import { AssertionError, show, ok } from '../js/assert.mjs';

const TASKS = 'io.modelcontextprotocol/tasks';
const cases = [];
const test = (name, fn) => cases.push({ name, fn });

const eq = (a, b, what = 'value') => ok(show(a) === show(b), `${what}: expected ${show(b)}, got ${show(a)}`);
const text = (r) => r?.content?.map((c) => c.text ?? '').join('\n') ?? '';

/** An answer to a form elicitation built from its schema (defaults, else a plausible value). */
function fill(schema) {
  const content = {};
  for (const [k, s] of Object.entries(schema?.properties ?? {})) {
    if (s.default !== undefined) content[k] = s.default;
    else if (s.enum) content[k] = s.enum[0];
    else if (s.oneOf) content[k] = s.oneOf[0].const;
    else if (s.type === 'boolean') content[k] = true;
    else if (s.type === 'number' || s.type === 'integer') content[k] = Math.max(1, s.minimum ?? 1);
    else if (s.type === 'array') content[k] = [s.items?.enum?.[0] ?? s.items?.anyOf?.[0]?.const].filter(Boolean);
    else if (s.format === 'email') content[k] = 'ada@example.com';
    else if (s.format === 'uri') content[k] = 'https://example.com/';
    else if (s.format === 'date') content[k] = '2026-01-02';
    else if (s.format === 'date-time') content[k] = '2026-01-02T03:04:05Z';
    else content[k] = 'Ada'.padEnd(s.minLength ?? 0, 'a');
  }
  return content;
}

/** A fetch that records every request (method, headers) and can cut the first stream matching `cut`. */
function recordingFetch(log, cut) {
  let cutDone = false;
  return async (url, init = {}) => {
    const headers = new Headers(init.headers);
    log.push({ url: String(url), method: init.method ?? 'GET', headers: Object.fromEntries(headers), body: init.body });
    const res = await fetch(url, init);
    if (!cut || cutDone || !cut(init, res)) return res;
    cutDone = true;
    // Forwards the body until the first event with an id, then breaks the stream (a drop).
    const reader = res.body.getReader();
    let seen = '';
    const body = new ReadableStream({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        controller.enqueue(value);
        seen += new TextDecoder().decode(value);
        if (/notifications\/progress/.test(seen)) {
          reader.cancel().catch(() => {});
          controller.error(new TypeError('network error (cut by the test)'));
        }
      },
    });
    return new Response(body, { status: res.status, headers: res.headers });
  };
}

// ------------------------------------------------------------------ server-everything (2025-11-25)

test('everything: detection picks the 2025-11-25 era; discover() answers from initialize', async ({ everything, client }) => {
  const c = client(everything);
  const d = await c.discover();
  eq([c.era, c.protocolVersion, c.transport, c.eraKnown], ['legacy', '2025-11-25', 'streamable-http', true], 'era');
  eq(d.supportedVersions, ['2025-11-25'], 'supportedVersions');
  ok(d.serverInfo?.name, 'serverInfo');
  ok(d.capabilities?.tools, 'capabilities');
});

test('everything: tools and echo', async ({ everything, client }) => {
  const c = client(everything);
  const tools = await c.listAllTools();
  ok(tools.some((t) => t.name === 'echo'), 'echo listed');
  eq(text(await c.callTool('echo', { message: 'hi' })), 'Echo: hi', 'echo');
});

test('everything: trigger-elicitation-request answered by the JS handler', async ({ everything, client }) => {
  const seen = [];
  const c = client(everything, {
    onElicitation: (req, ctx) => {
      seen.push({ req, ctx });
      return { action: 'accept', content: fill(req.requestedSchema) };
    },
  });
  const r = await c.callTool('trigger-elicitation-request', {});
  eq(seen.length, 1, 'handler calls');
  eq(seen[0].ctx.scope, 'request', 'ctx.scope');
  ok(!r.isError, `result: ${text(r)}`);
  ok(/accept/i.test(text(r)), `the server saw the acceptance: ${text(r)}`);
});

test('everything: trigger-sampling-request answered by onSampling', async ({ everything, client }) => {
  let calls = 0;
  const c = client(everything, {
    onSampling: () => {
      calls += 1;
      return { role: 'assistant', content: { type: 'text', text: 'sampled by the test' }, model: 'test-model', stopReason: 'endTurn' };
    },
  });
  const r = await c.callTool('trigger-sampling-request', { prompt: 'hello', maxTokens: 10 });
  eq(calls, 1, 'onSampling calls');
  ok(text(r).includes('sampled by the test'), `result: ${text(r)}`);
});

test('everything: trigger-long-running-operation reports progress', async ({ everything, client }) => {
  const progress = [];
  const c = client(everything);
  await c.callTool('trigger-long-running-operation', { duration: 1, steps: 4 }, { onProgress: (p) => progress.push(p) });
  ok(progress.length >= 3, `progress events: ${show(progress)}`);
  ok(progress.every((p, i) => i === 0 || p.progress >= progress[i - 1].progress), 'progress increases');
});

test('everything: a dropped stream is resumed with GET + Last-Event-ID', async ({ everything, client }) => {
  // The stream is cut after its first progress event; the client resumes with GET and
  // Last-Event-ID after its back-off (no `retry` from this server). server-everything's
  // in-memory event store answers replayEventsAfter() with an event id instead of the
  // stream id, so it can replay stored events but not forward live ones to the resumed
  // stream: the operation is kept short enough to be over (all events stored) by then.
  const log = [];
  const cut = (init, res) =>
    (res.headers.get('content-type') || '').includes('text/event-stream') &&
    typeof init.body === 'string' &&
    init.body.includes('trigger-long-running-operation');
  const c = client(everything, { fetch: recordingFetch(log, cut) });
  const progress = [];
  const r = await c.callTool('trigger-long-running-operation', { duration: 0.2, steps: 3 }, { onProgress: (p) => progress.push(p.progress) });
  ok(/completed/i.test(text(r)), `result: ${text(r)}`);
  const resume = log.find((e) => e.method === 'GET' && e.headers['last-event-id']);
  ok(resume, `a GET with Last-Event-ID was sent: ${show(log.map((e) => [e.method, e.headers['last-event-id']]))}`);
  eq(log.filter((e) => e.method === 'POST' && String(e.body).includes('trigger-long-running-operation')).length, 1, 'the call was not re-sent');
  eq(progress, [1, 2, 3], 'every progress event arrived once, across the drop');
});

test('everything: simulate-research-query runs as a 2025 task to its result, with its input', async ({ everything, client }) => {
  const asked = [];
  const statuses = [];
  const notifications = [];
  const c = client(everything, {
    onElicitation: (req, ctx) => {
      asked.push(ctx);
      return { action: 'accept', content: fill(req.requestedSchema) };
    },
    onNotification: (m) => notifications.push(m),
  });
  const r = await c.callTool('simulate-research-query', { topic: 'wasm', ambiguous: true }, { onTaskStatus: (t) => statuses.push(t.status) });
  ok(/Research Report/.test(text(r)), `result: ${text(r).slice(0, 200)}`);
  eq(asked.length, 1, 'the clarification was asked once');
  eq(asked[0].scope, 'task', 'ctx.scope');
  ok(asked[0].taskId, 'ctx.taskId');
  ok(statuses.includes('completed'), `statuses: ${show(statuses)}`);
  ok(notifications.includes('notifications/tasks/status'), 'notifications/tasks/status reached onNotification');
});

test('everything: callToolAsTask + waitForTask + listTasks (2025 tasks through the same API)', async ({ everything, client }) => {
  const c = client(everything, { onElicitation: (req) => ({ action: 'accept', content: fill(req.requestedSchema) }) });
  const t = await c.callToolAsTask('simulate-research-query', { topic: 'rust' });
  ok(!t.isLocal && t.taskId, 'a server task');
  const listed = await c.listTasks();
  ok(listed.tasks.some((x) => x.taskId === t.taskId), 'tasks/list shows it');
  const done = await c.waitForTask(t);
  eq(done.status, 'completed', 'status');
  ok(/Research Report/.test(text(done.result)), 'result');
});

test('everything: close() ends the session with DELETE', async ({ everything, client }) => {
  const log = [];
  const c = client(everything, { fetch: recordingFetch(log) });
  await c.callTool('echo', { message: 'x' });
  const sid = log.find((e) => e.headers['mcp-session-id'])?.headers['mcp-session-id'];
  ok(sid, 'a session id was echoed');
  c.close();
  await new Promise((r) => setTimeout(r, 200));
  const del = log.find((e) => e.method === 'DELETE');
  ok(del, 'DELETE sent');
  eq(del.headers['mcp-session-id'], sid, 'DELETE carries the session id');
});

// ------------------------------------------------------------------ Python SDK in both eras

test('python: pinned 2025-11-25 uses the initialize handshake', async ({ python, client }) => {
  const seen = [];
  const c = client(python, {
    protocolVersion: '2025-11-25',
    onElicitation: (req, ctx) => {
      seen.push(ctx.scope);
      return { action: 'accept', content: { name: 'Ada' } };
    },
  });
  eq(text(await c.callTool('echo', { text: 'hi' })), 'hi', 'echo');
  eq([c.era, c.protocolVersion], ['legacy', '2025-11-25'], 'era');
  eq(text(await c.callTool('ask_name', {})), 'Hello, Ada!', 'ask_name through a server request');
  eq(seen, ['request'], 'handler calls');
  const progress = [];
  await c.callTool('progress', { steps: 2 }, { onProgress: (p) => progress.push(p.progress) });
  eq(progress, [1, 2], 'progress');
});

test('python: auto detection chooses 2026-07-28', async ({ python, client }) => {
  const c = client(python);
  eq(text(await c.callTool('echo', { text: 'hi' })), 'hi', 'echo');
  eq([c.era, c.protocolVersion], ['modern', '2026-07-28'], 'era');
});

// ------------------------------------------------------------------ HTTP+SSE (2024-11-05)

test('http+sse: detection falls back to HTTP+SSE; tools, a server request, progress', async ({ sse, client, env }) => {
  const c = client(sse, { onElicitation: () => ({ action: 'accept', content: { name: 'Ada' } }) });
  eq(text(await c.callTool('echo', { text: 'hi' })), 'hi', 'echo');
  eq([c.era, c.protocolVersion], ['http+sse', '2024-11-05'], 'era');
  eq(c.transport, env === 'browser' ? 'http+sse (EventSource)' : 'http+sse (fetch)', 'transport');
  eq(text(await c.callTool('ask_name', {})), 'Hello, Ada!', 'ask_name');
  const progress = [];
  await c.callTool('progress', { steps: 3 }, { onProgress: (p) => progress.push(p.progress) });
  eq(progress, [1, 2, 3], 'progress');
});

test('http+sse: with custom headers the stream is read with fetch (EventSource cannot send them)', async ({ sse, client }) => {
  const c = client(sse, { headers: { 'X-Test': '1' } });
  eq(text(await c.callTool('add', { a: 2, b: 3 })), '5', 'add');
  eq(c.transport, 'http+sse (fetch)', 'transport');
});

test('a JSON-RPC error from a legacy server is an McpError', async ({ everything, client }) => {
  const c = client(everything);
  let e;
  try {
    await c.getPrompt('no-such-prompt', {});
  } catch (x) {
    e = x;
  }
  ok(e instanceof McpError, `got ${e?.name}: ${e?.message}`);
  eq(text(await c.callTool('echo', { message: 'still' })), 'Echo: still', 'the client still works');
});

/** Runs every case; `urls` = { everything, python, sse }; `env` = 'node' | 'browser'. */
export async function runLegacySuite({ urls, env, report = console.log, only }) {
  const out = { passed: 0, failed: 0, total: 0, failures: [] };
  for (const c of cases) {
    if (only && !only.test(c.name)) continue;
    out.total += 1;
    const clients = [];
    const warnings = [];
    const client = (url, options = {}) => {
      const cl = new McpClient(url, { extensions: [TASKS], onWarning: (w) => warnings.push(w), ...options });
      clients.push(cl);
      return cl;
    };
    const t0 = Date.now();
    let error;
    try {
      let timer;
      await Promise.race([
        c.fn({ ...urls, env, client }),
        new Promise((_, rej) => {
          timer = setTimeout(() => rej(new AssertionError('no outcome within 60 s')), 60_000);
        }),
      ]).finally(() => clearTimeout(timer));
    } catch (e) {
      error = e;
    }
    for (const cl of clients) cl.close();
    const ms = Date.now() - t0;
    if (error) {
      out.failed += 1;
      out.failures.push({ name: c.name, error: String(error?.stack ?? error) });
      report(`  FAIL  ${c.name} (${ms} ms) — ${error?.name}: ${error?.message}${warnings.length ? ` [warnings: ${warnings.join(' | ')}]` : ''}`);
    } else {
      out.passed += 1;
      report(`  ok    ${c.name} (${ms} ms)`);
    }
  }
  return out;
}
