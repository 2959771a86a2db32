// Transport faults: cut streams, HTTP errors, stalls, endless and malformed bodies, MRTR drops.
import { HttpError, TimeoutError, NetworkError, ProtocolError, InvalidResultError } from '../../../pkg/index.js';
import { test, ok, eq, show, rejects, sleep, text, until, stillWorks, counting, exactlyOnce, TASKS, CONTROL } from '../harness.mjs';
import { random, mutant, base64, threeWays, comparable } from '../mutants.mjs';

// ------------------------------------------------------------------ the correct server

test('ok: discover, tools, a call and a task against the correct fault server', { scenarios: ['ok'] }, async ({ client }) => {
  const c = client('ok');
  const d = await c.discover();
  eq(d.serverInfo?.name, 'mcp-wasm-client-fault-server', 'serverInfo.name');
  ok(d.capabilities?.extensions?.[TASKS], 'tasks extension advertised');
  const names = (await c.listAllTools()).map((t) => t.name);
  for (const n of ['echo', 'hit', 'sized', 'ask', 'task_ask', 'task_slow']) ok(names.includes(n), `${n} listed: ${names}`);
  eq(text(await c.callTool('hit', {})), 'hit ok', 'hit');
  eq(text(await c.callTool('task_slow', { ms: 100 })), 'slow done', 'task_slow');
});

// ------------------------------------------------------------------ the response stream is cut

test('cut before the response, once → the call is re-issued and succeeds', { scenarios: ['cut-before-response-once'] }, async ({ client, debug }) => {
  const c = client('cut-before-response-once');
  eq(text(await c.callTool('hit', {})), 'hit ok', 'result after one re-issue');
  eq((await debug('state')).calls['tools/call hit'], 2, 'tools/call hit requests (the first cut, one re-issue)');
  await stillWorks(c);
});

test('cut before the response, every time → NetworkError (reason stream-closed) after one re-issue', { scenarios: ['cut-before-response'] }, async ({ client, debug }) => {
  const c = client('cut-before-response');
  const e = await rejects(c.callTool('hit', {}), NetworkError, { message: /closed before its response/ });
  eq(e.data?.reason, 'stream-closed', 'data.reason');
  eq((await debug('state')).calls['tools/call hit'], 2, 'tools/call hit requests (re-issued exactly once)');
  await stillWorks(c);
});

test('cut after the response → the result stands, nothing is re-sent', { scenarios: ['cut-after-response'] }, async ({ client, debug }) => {
  const c = client('cut-after-response');
  eq(text(await c.callTool('hit', {})), 'hit ok', 'result');
  await sleep(100);
  eq((await debug('state')).calls['tools/call hit'], 1, 'tools/call hit requests');
  await stillWorks(c);
});

test('a JSON body cut in the middle → NetworkError', { scenarios: ['cut-json-body'] }, async ({ client }) => {
  const c = client('cut-json-body');
  await rejects(c.callTool('hit', {}), NetworkError);
  await stillWorks(c);
});

test('a large JSON body (256 KiB, Content-Length) cut in the middle → NetworkError', { scenarios: ['cut-large-json-body'] }, async ({ client }) => {
  const c = client('cut-large-json-body');
  await rejects(c.callTool('hit', {}), NetworkError);
  await stillWorks(c);
});

// ------------------------------------------------------------------ HTTP errors

test('500 text/plain → HttpError status 500', { scenarios: ['http-500'] }, async ({ client }) => {
  const c = client('http-500');
  await rejects(c.callTool('hit', {}), HttpError, { status: 500, message: /HTTP 500/ });
  await stillWorks(c);
});

test('502 HTML page → HttpError status 502', { scenarios: ['http-502-html'] }, async ({ client }) => {
  const c = client('http-502-html');
  await rejects(c.callTool('hit', {}), HttpError, { status: 502, message: /HTTP 502 \(text\/html\)/ });
  await stillWorks(c);
});

test('503 + Retry-After: 3 → HttpError status 503, data.retryAfterMs 3000', { scenarios: ['http-503-retry-after'] }, async ({ client }) => {
  const c = client('http-503-retry-after');
  const e = await rejects(c.callTool('hit', {}), HttpError, { status: 503 });
  eq(e.data?.retryAfterMs, 3000, 'data.retryAfterMs');
  await stillWorks(c);
});

test('429 + Retry-After: 2 → HttpError status 429, data.retryAfterMs 2000', { scenarios: ['http-429-retry-after'] }, async ({ client }) => {
  const c = client('http-429-retry-after');
  const e = await rejects(c.callTool('hit', {}), HttpError, { status: 429 });
  eq(e.data?.retryAfterMs, 2000, 'data.retryAfterMs');
  await stillWorks(c);
});

// ------------------------------------------------------------------ stalls and endless bodies

test('no response head, ever → TimeoutError at timeoutMs; the request is abandoned', { scenarios: ['stall'] }, async ({ client, debug }) => {
  const c = client('stall');
  const t0 = Date.now();
  await rejects(c.callTool('hit', {}, { timeoutMs: 300 }), TimeoutError, { message: /timed out after 300 ms/ });
  ok(Date.now() - t0 < 2500, `took ${Date.now() - t0} ms`);
  await until(async () => (await debug('state')).abandoned >= 1, 3000, 'the server sees the request abandoned');
  await stillWorks(c);
});

test('SSE opened, then silence → TimeoutError; the stream is closed', { scenarios: ['stall-sse'] }, async ({ client, debug }) => {
  const c = client('stall-sse');
  await rejects(c.callTool('hit', {}, { timeoutMs: 300 }), TimeoutError);
  await until(async () => (await debug('state')).abandoned >= 1, 3000, 'the server sees the stream closed');
  await stillWorks(c);
});

test('a body that never ends → TimeoutError; the client stops reading', { scenarios: ['endless-body'] }, async ({ client, debug }) => {
  const c = client('endless-body');
  await rejects(c.callTool('hit', {}, { timeoutMs: 400 }), TimeoutError);
  await until(async () => (await debug('state')).abandoned >= 1, 3000, 'the server sees the connection closed');
  await stillWorks(c);
});

test('a body that floods on (64 MiB, 64 times the limit, then no end) → ProtocolError at maxBodyBytes; the client stops reading', { scenarios: ['flood-body'] }, async ({ client, debug }) => {
  const c = client('flood-body', { limits: { maxBodyBytes: 1 << 20 } });
  await rejects(c.callTool('hit', {}), ProtocolError, { message: /exceeds the limit of 1048576 bytes/ });
  await until(async () => (await debug('state')).abandoned >= 1, 3000, 'the server sees the connection closed');
  await stillWorks(c);
});

// ------------------------------------------------------------------ malformed answers

test('200 application/json that is not JSON → ProtocolError', { scenarios: ['malformed-json'] }, async ({ client }) => {
  const c = client('malformed-json');
  await rejects(c.callTool('hit', {}), ProtocolError);
  await stillWorks(c);
});

test('200 text/html → ProtocolError naming the content type', { scenarios: ['html-200'] }, async ({ client }) => {
  const c = client('html-200');
  await rejects(c.callTool('hit', {}), ProtocolError, { message: /text\/html/ });
  await stillWorks(c);
});

test('200 text/plain with a valid JSON-RPC body → ProtocolError', { scenarios: ['wrong-content-type'] }, async ({ client }) => {
  const c = client('wrong-content-type');
  await rejects(c.callTool('hit', {}), ProtocolError, { message: /text\/plain/ });
  await stillWorks(c);
});

test('a response naming another request id → InvalidResultError', { scenarios: ['other-id'] }, async ({ client }) => {
  const c = client('other-id');
  await rejects(c.callTool('hit', {}), InvalidResultError, { message: /names request/ });
  await stillWorks(c);
});

// The forms of tests/faults/mcp.mjs `ENVELOPES`, and each one's result text, or null when
// the call must reject. A call without options takes the direct path, whose runner reads the
// forms it can check by comparing text (src/web/js/bodies.js `readAnswer`) and hands the rest
// to the engine; a call with a signal takes the shell's general path to the engine's short
// path for a plain call; one with a progress callback takes the engine's general path. All
// three must make the same of every form.
const ENVELOPES = {
  'jsonrpc-first': 'a',
  'result-first': 'b',
  'no-result-type': 'c',
  'id-first': 'd',
  spaced: 'e',
  'padded-result': undefined,
  'nested-result-type': undefined,
  'unicode-escape': 'caf\u00e9',
  'html-escapes': '<b> &',
  'escaped-letter': 'r',
  'lone-surrogate': '\ud800',
  deep: undefined,
  'duplicate-result': null,
  'duplicate-result-first': null,
  'duplicate-id': null,
  'duplicate-jsonrpc': null,
  'result-and-error': null,
  'duplicate-result-type': null,
  'escaped-result-type': null,
  'null-result-type': null,
  'other-result-type': null,
  'array-result': null,
  'string-result': null,
  'null-result': null,
  'trailing-brace': null,
  'two-values': null,
  'leading-zero-id': null,
  'fraction-id': null,
  'string-id': null,
  'other-id': null,
  'long-id': null,
  'jsonrpc-1': null,
  bom: null,
  'not-utf8': null,
};

test('a response in any form: the direct path, the shell\'s general path and the engine\'s make the same of it', { scenarios: ['envelopes'] }, async ({ client }) => {
  const c = client('envelopes');
  await c.listAllTools(); // a listed tool's call without options takes the direct path
  for (const [form, want] of Object.entries(ENVELOPES)) {
    const { direct, shell, general } = await threeWays(c, { form });
    eq(shell, direct, `${form}: the shell's general path against the direct path`);
    eq(general, direct, `${form}: the engine's general path against the direct path`);
    if (want === null) {
      ok(direct.error, `${form}: rejected (got ${show(direct.value)?.slice(0, 200)})`);
      ok(!CONTROL.test(direct.error[2] ?? ''), `${form}: the message carries control characters`);
    } else {
      ok(direct.value && typeof direct.value === 'object', `${form}: resolved (got ${show(direct.error)})`);
      if (want !== undefined) eq(text(direct.value), want, `${form}: the result's text`);
    }
  }
  await stillWorks(c);
});

test('a response in any form, padded past 64 KiB: each path makes the same of it as of the small one', { scenarios: ['envelopes'] }, async ({ client }) => {
  // A large plain answer for the host is parsed by the runner and the engine fed a stand-in
  // (src/web/js/fetch.js `standIn`): it must pass only what the engine would pass, whatever
  // the size (JSON.parse alone keeps the last of two members, and takes an id of `7.0`).
  const c = client('envelopes');
  await c.listAllTools();
  const PAD = 70 * 1024;
  for (const form of Object.keys(ENVELOPES)) {
    const small = await threeWays(c, { form });
    const large = await threeWays(c, { form, pad: PAD });
    for (const way of ['direct', 'shell', 'general']) {
      const s = small[way];
      const l = large[way];
      if (s.error) {
        ok(l.error, `${form} (${way}): rejected small, so large too (got ${show(l.value)?.slice(0, 200)})`);
        eq(l.error[0], s.error[0], `${form} (${way}): the error's class, large against small`);
      } else {
        ok(l.value && typeof l.value === 'object', `${form} (${way}): resolved small, so large too (got ${show(l.error)})`);
        eq(text(l.value), text(s.value), `${form} (${way}): the result's text, large against small`);
        if (Array.isArray(s.value.content)) eq(l.value.pad?.length, PAD, `${form} (${way}): the padding reached the host`);
      }
    }
  }
  await stillWorks(c);
});

test('random mutants of well-formed responses (300, seeded): the direct path, the shell\'s general path and the engine\'s make the same of each', { scenarios: ['envelopes'] }, async ({ client }) => {
  // The longer run of the same: fuzz/js/envelopes.mjs (RELIABILITY.md).
  const c = client('envelopes');
  await c.listAllTools();
  const r = random(34);
  for (let i = 0; i < 300; i++) {
    const bytes = mutant(r);
    const { direct, shell, general } = await threeWays(c, { raw: base64(bytes) });
    const what = `mutant ${i} ${show(new TextDecoder().decode(bytes)).slice(0, 300)}`;
    eq(comparable(shell), comparable(direct), `${what}: the shell's general path against the direct path`);
    eq(comparable(general), comparable(direct), `${what}: the engine's general path against the direct path`);
    ok(!direct.error || !CONTROL.test(direct.error[2]), `${what}: the message carries control characters`);
  }
  await stillWorks(c);
});

test('a duplicate response → the first one stands', { scenarios: ['duplicate-response'] }, async ({ client }) => {
  const c = client('duplicate-response');
  eq(text(await c.callTool('hit', {})), 'hit ok', 'result');
  await stillWorks(c);
});

test('an SSE event that is not JSON → ProtocolError', { scenarios: ['sse-malformed'] }, async ({ client }) => {
  const c = client('sse-malformed');
  await rejects(c.callTool('hit', {}), ProtocolError);
  await stillWorks(c);
});

// ------------------------------------------------------------------ what a call needs first

test('era detection fails once (503) → HttpError for that call; the next call detects again and works', { scenarios: ['discover-503-once'] }, async ({ client, debug }) => {
  const c = client('discover-503-once', { protocolVersion: 'auto' });
  const e = await rejects(c.callTool('echo', { text: 'x' }), HttpError, { status: 503 });
  eq(e.data?.retryAfterMs, 1000, 'data.retryAfterMs');
  eq(c.eraKnown, false, 'era not known yet');
  await stillWorks(c);
  eq([c.era, c.eraKnown], ['modern', true], 'era after the second try');
  eq((await debug('state')).calls['server/discover'], 2, 'server/discover requests');
});

test('the tools/list a call makes first fails → the call goes out, -32020, re-list, retried with Mcp-Param-*', { scenarios: ['tools-list-500-once'] }, async ({ client, debug }) => {
  const c = client('tools-list-500-once');
  const got = JSON.parse(text(await c.callTool('region_echo', { region: 'eu-west-1' })));
  eq([got.raw, got.matched], ['eu-west-1', true], 'Mcp-Param-Region on the retry');
  const calls = (await debug('state')).calls;
  eq([calls['tools/list'], calls['tools/call region_echo']], [2, 2], 'tools/list and tools/call requests');
  await stillWorks(c);
});

// ------------------------------------------------------------------ MRTR

test('MRTR: the retry carrying the answers is cut → re-issued with the same answers; the handler is asked once', { scenarios: ['mrtr-drop-retry'] }, async ({ client, debug }) => {
  const { calls, handler } = counting();
  const c = client('mrtr-drop-retry', { onElicitation: handler });
  eq(text(await c.callTool('ask', { rounds: [['city']] })), 'city=city-1', 'result');
  eq(calls, { city: 1 }, 'handler invocations');
  const counts = (await debug('counts')).mrtr;
  // A 2026-07-28 request is stateless: the re-issued retry carries the same answers again.
  eq(counts?.city, { presented: 1, answered: 2, retransmitted: 0 }, 'server counts (the lost retry, then its re-issue)');
  await stillWorks(c);
});

test('MRTR: the retry carrying the answers gets no response (connection reset) → sent once more with the same answers; the handler is asked once', { scenarios: ['mrtr-reset-retry'] }, async ({ client, debug }) => {
  const { calls, handler } = counting();
  const c = client('mrtr-reset-retry', { onElicitation: handler });
  eq(text(await c.callTool('ask', { rounds: [['city']] })), 'city=city-1', 'result');
  eq(calls, { city: 1 }, 'handler invocations');
  const counts = (await debug('counts')).mrtr;
  // The server read the first retry's answers, then reset the connection; fetch rejected.
  eq(counts?.city, { presented: 1, answered: 2, retransmitted: 0 }, 'server counts (the reset retry, then the one sent again)');
  eq((await debug('state')).calls['mrtr retries'], 2, 'retries the server saw');
  await stillWorks(c);
});

test('MRTR: the retry carrying the answers is answered 503 with Retry-After: 1 → sent again after it with the same answers; the handler is asked once', { scenarios: ['mrtr-busy-retry'] }, async ({ client, debug }) => {
  const { calls, handler } = counting();
  const c = client('mrtr-busy-retry', { onElicitation: handler });
  eq(text(await c.callTool('ask', { rounds: [['city']] })), 'city=city-1', 'result');
  eq(calls, { city: 1 }, 'handler invocations');
  const state = (await debug('state')).calls;
  eq(state['mrtr retries'], 2, 'retries the server saw (the refused one, then the one sent again)');
  ok(state['mrtr retry after ms'] >= 950, `sent again after the Retry-After (${state['mrtr retry after ms']} ms)`);
  await stillWorks(c);
});

test('MRTR: two rounds, every key presented and answered exactly once', { scenarios: ['ok'] }, async ({ client, debug }) => {
  const { calls, handler } = counting();
  const c = client('ok', { onElicitation: handler });
  eq(text(await c.callTool('ask', { rounds: [['a', 'b'], ['c']] })), 'a=a-1;b=b-1;c=c-1', 'result');
  await exactlyOnce({ debug }, calls, 'mrtr', ['a', 'b', 'c']);
});

