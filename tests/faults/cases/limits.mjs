// The client's limits (README "Limits"): each one exactly at its bound (passes) and one over
// (fails with the documented error), against the fault server.
import { McpClient, ProtocolError, InputRequiredError, InvalidResultError, ConfigError, TimeoutError, NetworkError } from '../../../pkg/index.js';
import { test, ok, eq, rejects, sleep, text, stillWorks, counting, withTimeout, TASKS } from '../harness.mjs';

const range = (n, p = 'k') => Array.from({ length: n }, (_, i) => `${p}${i + 1}`);

test('limits.maxEventBytes: an event of exactly the limit passes, one byte more → ProtocolError', { scenarios: ['oversized-event'] }, async ({ client }) => {
  const c = client('oversized-event', { limits: { maxEventBytes: 4096 } });
  const r = await c.callTool('sized', { bytes: 4096, as: 'sse' });
  ok(text(r)?.length > 3900, 'the 4096-byte event arrived');
  await rejects(c.callTool('sized', { bytes: 4097, as: 'sse' }), ProtocolError, { message: /SSE event data longer than 4096 bytes/ });
  await stillWorks(c);
});

test('limits.maxBodyBytes: a body of exactly the limit passes, one byte more → ProtocolError', { scenarios: ['oversized-body'] }, async ({ client }) => {
  const c = client('oversized-body', { limits: { maxBodyBytes: 8192 } });
  const r = await c.callTool('sized', { bytes: 8192, as: 'json' });
  ok(text(r)?.length > 8000, 'the 8192-byte body arrived');
  await rejects(c.callTool('sized', { bytes: 8193, as: 'json' }), ProtocolError, { message: /exceeds the limit of 8192 bytes/ });
  await stillWorks(c);
});

test('limits: byte limits beyond 32 bits are honoured, not truncated (2^32 and 2^32 + 5)', { scenarios: ['ok'] }, async ({ client }) => {
  // On wasm32 a usize is 32 bits: 2^32 must not become 0 (nothing accepted) nor 2^32 + 5 become 5.
  for (const n of [2 ** 32, 2 ** 32 + 5, Number.MAX_SAFE_INTEGER]) {
    const c = client('ok', { limits: { maxBodyBytes: n, maxEventBytes: n } });
    eq(text(await c.callTool('sized', { bytes: 300, as: 'json' }))?.length > 0, true, `body under maxBodyBytes ${n}`);
    eq(text(await c.callTool('sized', { bytes: 300, as: 'sse' }))?.length > 0, true, `event under maxEventBytes ${n}`);
  }
});

test('maxInputRounds (MRTR): exactly the limit of rounds passes, one more → InputRequiredError', { scenarios: ['ok'] }, async ({ client }) => {
  const a = counting();
  const c = client('ok', { maxInputRounds: 3, onElicitation: a.handler });
  eq(text(await c.callTool('ask', { rounds: [['a'], ['b'], ['c']] })), 'a=a-1;b=b-1;c=c-1', '3 rounds');
  const b = counting();
  const d = client('ok', { maxInputRounds: 3, onElicitation: b.handler });
  const e = await rejects(d.callTool('ask', { rounds: [['a'], ['b'], ['c'], ['d']] }), InputRequiredError, { message: /after 3 rounds/ });
  eq(e.data?.rounds, 3, 'data.rounds');
  eq(b.calls, { a: 1, b: 1, c: 1 }, 'the fourth round is not presented');
  await stillWorks(d);
});

test('maxInputRounds (tasks): exactly the limit of input rounds passes, one more → InputRequiredError', { scenarios: ['ok'] }, async ({ client }) => {
  const a = counting();
  const c = client('ok', { maxInputRounds: 2, onElicitation: a.handler });
  eq(text(await c.callTool('task_ask', { phases: [['a'], ['b']] })), 'a=a-1;b=b-1', '2 rounds');
  const b = counting();
  const d = client('ok', { maxInputRounds: 2, onElicitation: b.handler });
  const e = await rejects(d.callTool('task_ask', { phases: [['a'], ['b'], ['c']] }), InputRequiredError, { message: /after 2 rounds/ });
  eq(e.data?.rounds, 2, 'data.rounds');
  ok(typeof e.data?.taskId === 'string', 'data.taskId');
  eq(b.calls, { a: 1, b: 1 }, 'the third round is not presented');
  await stillWorks(d);
});

test('limits.maxInputRequests (MRTR): exactly the limit at once passes, one more → InvalidResultError, no handler runs', { scenarios: ['ok'] }, async ({ client }) => {
  const a = counting();
  const c = client('ok', { limits: { maxInputRequests: 4 }, onElicitation: a.handler });
  eq(text(await c.callTool('ask', { rounds: [range(4)] })), range(4).map((k) => `${k}=${k}-1`).join(';'), '4 at once');
  const b = counting();
  const d = client('ok', { limits: { maxInputRequests: 4 }, onElicitation: b.handler });
  await rejects(d.callTool('ask', { rounds: [range(5)] }), InvalidResultError, { message: /asked for 5 inputs at once \(limit 4\)/ });
  eq(b.calls, {}, 'no handler ran');
  await stillWorks(d);
});

test('limits.maxInputRequests (tasks): exactly the limit at once passes, one more → InvalidResultError', { scenarios: ['ok'] }, async ({ client }) => {
  const a = counting();
  const c = client('ok', { limits: { maxInputRequests: 3 }, onElicitation: a.handler });
  eq(text(await c.callTool('task_ask', { phases: [range(3)] })), range(3).map((k) => `${k}=${k}-1`).join(';'), '3 at once');
  const b = counting();
  const d = client('ok', { limits: { maxInputRequests: 3 }, onElicitation: b.handler });
  await rejects(d.callTool('task_ask', { phases: [range(4)] }), InvalidResultError, { message: /asked for 4 inputs at once \(limit 3\)/ });
  eq(b.calls, {}, 'no handler ran');
  await stillWorks(d);
});

/** A handler that records how many of its calls run at the same time. */
function concurrency(delayMs = 40) {
  const s = { now: 0, max: 0, calls: 0 };
  s.handler = async (req, ctx) => {
    s.calls += 1;
    s.now += 1;
    s.max = Math.max(s.max, s.now);
    await sleep(delayMs);
    s.now -= 1;
    return { action: 'accept', content: { value: ctx.key } };
  };
  return s;
}

test('limits.maxConcurrentInputs: never more handlers at once than the limit (MRTR and tasks); 0 → ConfigError', { scenarios: ['ok'] }, async ({ client }) => {
  for (const limit of [1, 2, 5]) {
    const s = concurrency();
    const c = client('ok', { limits: { maxConcurrentInputs: limit }, onElicitation: s.handler });
    await c.callTool('ask', { rounds: [range(5)] });
    eq([s.calls, s.max], [5, limit], `MRTR, limit ${limit}: calls and most at once`);
    const t = concurrency();
    const d = client('ok', { limits: { maxConcurrentInputs: limit }, onElicitation: t.handler });
    await d.callTool('task_ask', { phases: [range(5)] });
    eq([t.calls, t.max], [5, limit], `task, limit ${limit}: calls and most at once`);
  }
  let caught;
  try {
    new McpClient('http://127.0.0.1:1/mcp', { limits: { maxConcurrentInputs: 0 } });
  } catch (e) {
    caught = e;
  }
  ok(caught instanceof ConfigError, `maxConcurrentInputs: 0 → ${caught?.name}: ${caught?.message}`);
});

test('limits.listenMaxRetries: exactly the limit of failed re-listens passes, one more → the subscription is lost (NetworkError)', { scenarios: ['listen-flap'] }, async ({ client }) => {
  const limits = { listenMaxRetries: 3, listenBackoffMs: 10 };
  // The first stream is cut; the next `fails` listens answer 503; the one after works.
  const c = client('listen-flap', { limits }, { fails: 2 }); // 3 attempts: 503, 503, ok
  const reconnects = [];
  const sub = await c.listen({ toolsListChanged: true }, undefined, { onReconnect: (i) => reconnects.push(i.attempt) });
  const it = sub[Symbol.asyncIterator]();
  eq((await withTimeout(it.next(), 5000, 'a notification after the re-listens')).value?.method, 'notifications/tools/list_changed', 'notification');
  eq(reconnects, [1, 2, 3], 'attempts');
  sub.close();
  const d = client('listen-flap', { limits }, { fails: 3 }, '-b'); // would need a 4th attempt
  const lost = await d.listen({ toolsListChanged: true });
  const e = await rejects(withTimeout(lost.closed, 5000, 'closed'), NetworkError, { message: /lost after 3 reconnection attempts/ });
  ok(e, 'closed rejects');
  await stillWorks(d);
});

test('limits.listenBackoffMs / listenMaxBackoffMs: delays double from the first and stop at the maximum', { scenarios: ['listen-flap'] }, async ({ client }) => {
  const c = client('listen-flap', { limits: { listenBackoffMs: 20, listenMaxBackoffMs: 50, listenMaxRetries: 8 } }, { fails: 3 });
  const delays = [];
  const sub = await c.listen({ toolsListChanged: true }, undefined, { onReconnect: (i) => delays.push(i.delayMs) });
  await withTimeout(sub[Symbol.asyncIterator]().next(), 5000, 'a notification after the re-listens');
  eq(delays, [20, 40, 50, 50], 'reconnection delays');
  sub.close();
});

test('limits.listenAckTimeoutMs: an acknowledgement within the limit passes, none → TimeoutError', { scenarios: ['listen-slow-ack'] }, async ({ client }) => {
  const c = client('listen-slow-ack', { limits: { listenAckTimeoutMs: 600 } }, { delay: 100 });
  const sub = await c.listen({ toolsListChanged: true });
  eq(sub.acknowledged, { toolsListChanged: true }, 'acknowledged after 100 ms');
  sub.close();
  const d = client('listen-slow-ack', { limits: { listenAckTimeoutMs: 300 } });
  const t0 = Date.now();
  await rejects(d.listen({ toolsListChanged: true }), TimeoutError, { message: /did not acknowledge/ });
  ok(Date.now() - t0 >= 280 && Date.now() - t0 < 2500, `gave up after ${Date.now() - t0} ms`);
  await stillWorks(d);
});

test('requestTimeoutMs and maxTotalTimeoutMs: the budget runs out on a stalled server → TimeoutError', { scenarios: ['stall'] }, async ({ client }) => {
  const c = client('stall', { requestTimeoutMs: 300 });
  await rejects(c.callTool('hit', {}), TimeoutError, { message: /timed out after 300 ms/ });
  eq(text(await c.callTool('echo', { text: 'in time' })), 'in time', 'a call within the budget passes');
  const d = client('stall', { requestTimeoutMs: 20_000, maxTotalTimeoutMs: 300 });
  await rejects(d.callTool('hit', {}), TimeoutError, { message: /maximum total time/ });
});

test('limits: invalid values and unknown names → ConfigError', { scenarios: [] }, async () => {
  const bad = [
    [{ limits: { maxEventBytes: -1 } }, /maxEventBytes/],
    [{ limits: { maxBodyBytes: 'big' } }, /maxBodyBytes/],
    [{ limits: { maxInputRequests: NaN } }, /maxInputRequests/],
    [{ limits: { listenBackoffMs: -5 } }, /listenBackoffMs/],
    [{ maxInputRounds: -1 }, /maxInputRounds/],
    [{ limits: { maxEventByte: 10 } }, /not a limit \(the limits are maxEventBytes, maxBodyBytes/],
    [{ limits: 5 }, /limits must be an object/],
  ];
  for (const [options, name] of bad) {
    let caught;
    try {
      new McpClient('http://127.0.0.1:1/mcp', { extensions: [TASKS], ...options });
    } catch (e) {
      caught = e;
    }
    ok(caught instanceof ConfigError, `${JSON.stringify(options)} → ${caught?.name}: ${caught?.message}`);
    ok(name.test(caught.message), `the message ${JSON.stringify(caught.message)} does not match ${name}`);
  }
});
