// The JS-level test suite: the same cases run in Node (tests/js/run-node.mjs) and in
// headless Chromium (tests/js/run-browser.mjs), against the REAL Python test server
// (tests/servers/modern_server.py). It uses only the public package API, imported exactly as
// a user imports the built package (pkg/, made by scripts/build.sh).
//
// A case is `test(name, fn)` or `xfail(name, todo, fn)` (an expected failure: it must still
// fail; a pass is reported as XPASS and fails the run, so the marker gets removed), or
// `legacyTest(name, fn)`: a case that needs the 2025-11-25 or 2024-11-05 era, counted as
// "not applicable: legacy era" (never silently dropped) when the suite runs on the
// `mcp-wasm-client/modern` entry.
//
// The entry under test: the default one (pkg/index.js), or with `--modern` in the runners
// (they set globalThis.__MCP_WASM_CLIENT_ENTRY = 'modern' before importing this module)
// mcp-wasm-client/modern (pkg/modern/index.js: 2026-07-28 only, the same API).
import { AssertionError, show, ok, same, eq, withTimeout, sleep } from './assert.mjs';

const MODERN = globalThis.__MCP_WASM_CLIENT_ENTRY === 'modern';
const {
  McpClient,
  Task,
  McpClientError,
  McpError,
  AbortError,
  TimeoutError,
  NetworkError,
  ConfigError,
  TaskCancelledError,
  TaskExpiredError,
  OutputValidationError,
  MissingRequiredClientCapabilityError,
  AuthorizationError,
  HttpError,
  UnsupportedProtocolVersionError,
  InputValidationError,
} = await import(MODERN ? '../../pkg/modern/index.js' : '../../pkg/index.js');

const TASKS = 'io.modelcontextprotocol/tasks';
const CASE_TIMEOUT_MS = 30_000;

// ------------------------------------------------------------------ a tiny runner

const cases = [];
function test(name, fn) {
  cases.push({ name, fn });
}
function xfail(name, todo, fn) {
  cases.push({ name, fn, todo });
}
/** A case of the 2025-11-25 / 2024-11-05 eras: not applicable to mcp-wasm-client/modern. */
function legacyTest(name, fn) {
  cases.push({ name, fn, legacy: true });
}

/** Awaits a promise that must reject with an error of class `Cls` (and `code` when given). */
async function rejects(promise, Cls, { code, message } = {}) {
  let error;
  try {
    const v = await promise;
    throw new AssertionError(`expected ${Cls.name}, but it resolved with ${show(v)?.slice(0, 300)}`);
  } catch (e) {
    if (e instanceof AssertionError) throw e;
    error = e;
  }
  ok(error instanceof Error, `rejected with a non-Error: ${show(error)}`);
  ok(
    error instanceof Cls,
    `expected ${Cls.name}, got ${error?.name} (${error?.constructor?.name}): ${error?.message}`,
  );
  eq(error.name, Cls.name, 'error.name');
  ok(error instanceof McpClientError, `${error.name} is not an McpClientError`);
  if (code !== undefined) eq(error.code, code, `${Cls.name}.code (message: ${error.message})`);
  if (message !== undefined) ok(message.test(error.message), `message ${show(error.message)} does not match ${message}`);
  return error;
}

const text = (result) => result?.content?.[0]?.text;

/**
 * Runs every case; `report(line)` receives one line per case. `deadUrl`: a URL nothing
 * listens on. `unhandled()`: the unhandled promise rejections the host saw so far (the
 * runner hooks them). Resolves with
 * `{ passed, failed, xfailed, xpassed, notApplicable, total, failures: [{ name, error }] }`
 * (`notApplicable`: legacy-era cases on the modern entry).
 */
export async function runSuite({ serverUrl, deadUrl, report = console.log, only, unhandled = () => [] } = {}) {
  ok(serverUrl, 'runSuite: serverUrl is required');
  ok(deadUrl, 'runSuite: deadUrl (a URL nothing listens on) is required');
  const base = serverUrl.replace(/\/mcp\/?$/, '');
  const unique = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const out = { passed: 0, failed: 0, xfailed: 0, xpassed: 0, notApplicable: 0, total: 0, failures: [] };
  for (const c of cases) {
    if (only && !only.test(c.name)) continue;
    out.total += 1;
    if (MODERN && c.legacy) {
      out.notApplicable += 1;
      report(`  N/A   ${c.name} — not applicable: legacy era (mcp-wasm-client/modern)`);
      continue;
    }
    const clients = [];
    const env = {
      url: serverUrl,
      deadUrl,
      base,
      /** GET <base>/debug/<what> as JSON. */
      debug: async (what) => (await fetch(`${base}/debug/${what}`)).json(),
      /** A client with the tasks extension and the given options (closed after the case). */
      client: (options = {}) => {
        const client = new McpClient(serverUrl, { extensions: [TASKS], ...options });
        clients.push(client);
        return client;
      },
      /** Descriptions of the unhandled promise rejections the host saw so far. */
      unhandled,
      /** Unique per suite run (the server outlives one run). */
      unique,
    };
    const t0 = Date.now();
    let error;
    try {
      await withTimeout(Promise.resolve().then(() => c.fn(env)), CASE_TIMEOUT_MS, c.name);
    } catch (e) {
      error = e;
    }
    for (const client of clients) {
      try {
        client.close();
      } catch (e) {
        error ??= new AssertionError(`close() threw ${e?.name}: ${e?.message}`);
      }
    }
    const ms = Date.now() - t0;
    const why = error ? `${error?.name}: ${error?.message ?? show(error)}` : '';
    if (c.todo) {
      if (error) {
        out.xfailed += 1;
        report(`  XFAIL ${c.name} (${ms} ms) — TODO: ${c.todo} [${why.length > 160 ? `${why.slice(0, 160)}…` : why}]`);
      } else {
        out.xpassed += 1;
        out.failures.push({ name: c.name, error: `XPASS: expected to fail (${c.todo}); it passes now: remove the xfail marker in tests/js/suite.mjs` });
        report(`  XPASS ${c.name} (${ms} ms) — it passes now: turn xfail(...) into test(...) in tests/js/suite.mjs`);
      }
    } else if (error) {
      out.failed += 1;
      out.failures.push({ name: c.name, error: error?.stack && String(error.stack).includes(String(error.message)) ? error.stack : why });
      report(`  FAIL  ${c.name} (${ms} ms) — ${why}`);
    } else {
      out.passed += 1;
      report(`  ok    ${c.name} (${ms} ms)`);
    }
  }
  return out;
}

/** The client still works after an error: a plain call succeeds. */
async function stillWorks(c) {
  eq(text(await c.callTool('echo', { text: 'still here' })), 'still here', 'echo after an error');
}

/** An onElicitation handler answering forms by field name (name, age, color, topic, confirm). */
function formAnswers(seen = []) {
  const values = { name: 'Ada', age: 36, color: 'green', topic: 'the sea', confirm: true };
  return async (req, ctx) => {
    seen.push({ req, ctx });
    if (req.mode === 'url') return { action: 'accept' };
    const content = {};
    for (const k of Object.keys(req.requestedSchema?.properties ?? {})) content[k] = values[k];
    return { action: 'accept', content };
  };
}

// ------------------------------------------------------------------ core requests

test('discover: serverInfo, capabilities, tasks extension advertised', async ({ client }) => {
  const c = client();
  const d = await c.discover();
  eq(d.serverInfo?.name, 'mcp-wasm-client-test-server', 'serverInfo.name');
  ok(d.supportedVersions?.includes('2026-07-28'), `supportedVersions ${show(d.supportedVersions)}`);
  ok(d.capabilities?.extensions?.[TASKS], `tasks extension not advertised: ${show(d.capabilities)}`);
  eq(c.era, 'modern', 'era');
  eq(c.protocolVersion, '2026-07-28', 'protocolVersion');
  ok(c.tasksEnabled, 'tasksEnabled');
  ok(c.serverCapabilities?.tools, 'serverCapabilities.tools after discover');
});

test('listTools (one page) and listAllTools', async ({ client }) => {
  const c = client();
  const page = await c.listTools();
  const names = page.tools.map((t) => t.name);
  for (const want of ['echo', 'add', 'region_query', 'ask_name', 'task_quick', 'bad_output']) {
    ok(names.includes(want), `${want} missing from tools/list: ${names}`);
  }
  const all = await c.listAllTools();
  ok(Array.isArray(all) && all.length >= page.tools.length, 'listAllTools returns every tool');
  const add = all.find((t) => t.name === 'add');
  ok(add?.outputSchema?.properties?.sum, `add.outputSchema: ${show(add)}`);
});

test('callTool echo', async ({ client }) => {
  const r = await client().callTool('echo', { text: 'hi from JS' });
  eq(r.content, [{ type: 'text', text: 'hi from JS' }], 'content');
  eq(r.isError, false, 'isError');
});

/** A request body as the text it carries: a string as it is, bytes decoded as UTF-8. */
const bodyText = (b) => (typeof b === 'string' ? b : new TextDecoder('utf-8', { fatal: true }).decode(b));
/** The UTF-8 size of a request body. */
const bodySize = (b) => (typeof b === 'string' ? new TextEncoder().encode(b).length : b.byteLength);

test('the platform fetch gets a request body of up to 2 KiB as a string and a larger one as UTF-8 bytes, a host fetch always a string; large arguments arrive verbatim', async ({ url }) => {
  const content = 'é "quoted" \\ \n🎉 '.repeat(20_000);
  const platform = globalThis.fetch;
  const seen = [];
  globalThis.fetch = (input, init) => {
    seen.push(init?.body);
    return platform(input, init);
  };
  const c = new McpClient(url, { clientInfo: { name: 'bodies', version: '1' } });
  const echo = async (t) => {
    eq(text(await c.callTool('echo', { text: t })), t, `the echo of ${t.length} characters`);
    const b = seen.at(-1);
    eq(JSON.parse(bodyText(b)).params.arguments, { text: t }, `arguments of ${t.length} characters`);
    return b;
  };
  try {
    // A body of `size` bytes: the text grows the body one byte a character (ASCII); the
    // request's id may take a digit more meanwhile, so the size is read back and the text
    // set again until it is met.
    let n = 2 * 1024 - bodySize(await echo('x')) + 1;
    const sized = async (size) => {
      for (let k = 0; k < 4; k++) {
        const b = await echo('x'.repeat(n));
        if (bodySize(b) === size) return b;
        n += size - bodySize(b);
      }
      throw new AssertionError(`no body of ${size} bytes made`);
    };
    const edge = await sized(2 * 1024);
    eq(typeof edge, 'string', 'a body of exactly 2 KiB goes as a string');
    const over = await sized(2 * 1024 + 1);
    ok(over instanceof Uint8Array, `a body of 2 KiB + 1 goes as bytes: ${Object.prototype.toString.call(over)}`);
    ok(await echo(content) instanceof Uint8Array, 'the body of 200,000 characters goes as bytes');
  } finally {
    globalThis.fetch = platform;
  }
  const bodies = seen.filter((b) => b !== undefined);
  ok(bodies.some((b) => typeof b === 'string') && bodies.some((b) => b instanceof Uint8Array), 'both kinds seen');
  for (const b of bodies) {
    if (typeof b === 'string') ok(bodySize(b) <= 2 * 1024, `a string body of ${bodySize(b)} bytes`);
    else ok(b instanceof Uint8Array && b.byteLength > 2 * 1024, `a bytes body: ${Object.prototype.toString.call(b)}, ${b.byteLength} bytes`);
  }
  const hostSeen = [];
  const host = new McpClient(url, {
    clientInfo: { name: 'bodies', version: '1' },
    fetch: (input, init) => {
      hostSeen.push(init.body);
      return platform(input, init);
    },
  });
  eq(text(await host.callTool('echo', { text: 'é 🎉' })), 'é 🎉', 'echo through the host fetch');
  eq(text(await host.callTool('echo', { text: content })), content, 'a large echo through the host fetch');
  ok(hostSeen.length >= 2 && hostSeen.every((b) => b === undefined || typeof b === 'string'), 'the host fetch got strings');
  eq(JSON.parse(hostSeen.at(-1)).params.arguments, { text: content }, 'arguments (host fetch)');
});

test('callTool arguments: any object as JSON.stringify writes it; none for null or undefined; other kinds and lone surrogates → ConfigError', async ({ url }) => {
  const platform = globalThis.fetch;
  const sent = [];
  globalThis.fetch = (input, init) => {
    if (init?.body) sent.push(JSON.parse(bodyText(init.body)));
    return platform(input, init);
  };
  try {
    const c = new McpClient(url, { clientInfo: { name: 'arguments', version: '1' } });
    const lastArgs = () => sent.filter((m) => m.method === 'tools/call').at(-1)?.params;
    // Text that looks like a lone surrogate's escape but is not one (an escaped backslash
    // before `ud800`), and a surrogate pair: sent as they are.
    for (const t of ['C:\\ud800\\x', 'C:\\udp\\ud9', 'pair 🎉 \ud83c\udf89', 'é "q" \t\n\u001f', 'ascii only, '.repeat(20_000), '']) {
      eq(text(await c.callTool('echo', { text: t })), t, `echo of ${show(t.slice(0, 40))}`);
      eq(lastArgs().arguments, { text: t }, `arguments of ${show(t.slice(0, 40))}`);
    }
    // toJSON is honoured, as JSON.stringify honours it.
    eq(text(await c.callTool('echo', { toJSON: () => ({ text: 'from toJSON' }) })), 'from toJSON', 'toJSON');
    // null and undefined: a call with no `arguments` member (the server then refuses the
    // call for its missing `text`, which is its business).
    for (const none of [null, undefined]) {
      await c.callTool('echo', none).catch(() => {});
      ok(!('arguments' in lastArgs()), `no arguments for ${none}: ${show(lastArgs())}`);
    }
    const before = sent.length;
    for (const bad of [[1, 2], 'text', 42, true, new Date(0)]) {
      await rejects(c.callTool('echo', bad), ConfigError, { message: /must be an object/ });
    }
    // (The second: a lone surrogate after text that looks like one's escape but is not.)
    for (const lone of ['a\ud800b', 'C:\\udp \ud800', 'end \udfff', '\udc00']) {
      await rejects(c.callTool('echo', { text: lone }), ConfigError, { message: /not JSON/ });
    }
    await rejects(c.callTool('echo', { n: 1n }), ConfigError, { message: /not JSON-serializable/ });
    eq(sent.length, before, 'nothing refused was sent');
    eq(text(await c.callTool('echo', { text: 'still here' })), 'still here', 'the client still works');
  } finally {
    globalThis.fetch = platform;
  }
});

test('callTool arguments of every length around the runner\'s own ASCII copy (256 UTF-16 units of JSON), with other characters anywhere, arrive whole, also after the memory grew and from a toJSON that calls a tool', async ({ client }) => {
  const c = client();
  // JSON.stringify({ text: t }) is t and 11 more units here (no character of t is escaped).
  const texts = [];
  for (const units of [12, 13, 200, 254, 255, 256, 257, 258, 300]) {
    const n = units - 11;
    const ascii = 'a'.repeat(n);
    texts.push(ascii);
    texts.push(`é${ascii.slice(1)}`); // the first unit of the text not ASCII
    texts.push(`${ascii.slice(1)}é`); // the last
    if (n >= 2) {
      texts.push(`${ascii.slice(2)}🎉`); // a surrogate pair at the end
      texts.push(`${ascii.slice(0, n >> 1)}中${ascii.slice((n >> 1) + 1)}`); // three bytes, then ASCII again
      texts.push(`${ascii.slice(0, (n >> 1) - 1)}🎉x${ascii.slice((n >> 1) + 2)}`);
    }
  }
  for (const t of texts) {
    eq(JSON.stringify({ text: t }).length, t.length + 11, `no escapes in ${show(t.slice(0, 20))}`);
    eq(text(await c.callTool('echo', { text: t })), t, `echo of ${t.length} units: ${show(t.slice(0, 12))}…${show(t.slice(-12))}`);
  }
  // A call large enough to grow the wasm's memory, and short ones after it: the copy's view
  // of the memory is of the grown memory.
  const large = 'ü'.repeat(300_000);
  eq(text(await c.callTool('echo', { text: large })), large, 'the large echo');
  const edge = texts.find((t) => t.length === 256 - 11 && t.includes('🎉x'));
  for (const t of ['after', 'é after 🎉', edge]) eq(text(await c.callTool('echo', { text: t })), t, `echo after the large one: ${show(t.slice(0, 20))}`);
  // JSON.stringify runs toJSON while the outer call's text is being made: the inner call
  // (short arguments too) must not take the outer one's text, nor the outer one lose its own.
  let inner;
  const outer = await c.callTool('echo', {
    toJSON: () => {
      inner = c.callTool('echo', { text: 'inner é' });
      return { text: 'outer ü' };
    },
  });
  eq(text(outer), 'outer ü', 'the outer call of a toJSON that calls a tool');
  eq(text(await inner), 'inner é', 'the call made from toJSON');
});

test('callTool add: structuredContent', async ({ client }) => {
  const r = await client().callTool('add', { a: 2, b: 40 });
  eq(r.structuredContent, { sum: 42 }, 'structuredContent');
});

test('JSON-RPC error (unknown prompt) → McpError with code, client still works', async ({ client }) => {
  const c = client();
  const e = await rejects(c.getPrompt('no_such_prompt', {}), McpError, { code: -32603 });
  ok(e.message.length > 0, 'message');
  await stillWorks(c);
});

test('JSON-RPC error with data (unknown resource) → McpError -32602 data.uri', async ({ client }) => {
  const c = client();
  const e = await rejects(c.readResource('test://nope'), McpError, { code: -32602 });
  eq(e.data?.uri, 'test://nope', 'data.uri');
  await stillWorks(c);
});

test('tool-raised protocol error → McpError with the code and data', async ({ client }) => {
  const c = client();
  const e = await rejects(c.callTool('error_tool', { mode: 'protocol', code: -32001 }), McpError, { code: -32001 });
  eq(e.data, { mode: 'protocol' }, 'data');
  await stillWorks(c);
});

test('calls of listed tools, with no options (the direct path): results, errors, input requests and calls at once settle as on the general path', async ({ client }) => {
  // With its tools listed, a call without options is plain and takes the shell's direct
  // path (src/web/client.rs `run_boxed`, BENCHMARKS.md, the thirty-third session): its
  // answer comes back straight to the runner, and anything but a complete result is handed
  // back to the engine. Each outcome here is the one the general path gives (the cases above).
  const seen = [];
  const c = client({ onElicitation: formAnswers(seen) });
  await c.listAllTools();
  eq(text(await c.callTool('echo', { text: 'direct' })), 'direct', 'a complete result');
  const e = await rejects(c.callTool('error_tool', { mode: 'protocol', code: -32001 }), McpError, { code: -32001 });
  eq(e.data, { mode: 'protocol' }, 'a JSON-RPC error: its data');
  const r = await c.callTool('error_tool', { mode: 'tool' });
  eq(r.isError, true, 'a tool error is a result');
  eq(text(await c.callTool('ask_name', {})), 'Hello, Ada!', 'input requests answered, then the result');
  eq(seen.length, 1, 'the handler asked once');
  const texts = Array.from({ length: 20 }, (_, i) => `at once ${i}`);
  const got = await Promise.all(texts.map((t) => c.callTool('echo', { text: t })));
  eq(got.map(text), texts, 'calls at once, each with its own result');
  await stillWorks(c);
});

test('readResource test://hello', async ({ client }) => {
  const r = await client().readResource('test://hello');
  eq(r.contents?.[0]?.uri, 'test://hello', 'uri');
  eq(r.contents?.[0]?.text, 'Hello, world!', 'text');
});

test('getPrompt greet', async ({ client }) => {
  const r = await client().getPrompt('greet', { name: 'Ada' });
  eq(r.messages?.[0]?.role, 'user', 'role');
  eq(r.messages?.[0]?.content?.text, 'Please greet Ada warmly.', 'text');
});

test('complete: prompt argument and resource template argument', async ({ client }) => {
  const c = client();
  const r = await c.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'name', value: 'Al' });
  eq(r.completion?.values, ['Alice', 'Alan'], 'values');
  const r2 = await c.complete({ type: 'ref/resource', uri: 'test://items/{id}' }, { name: 'id', value: '1' });
  eq(r2.completion?.values?.length, 10, 'values (at most 10)');
  eq(r2.completion?.hasMore, true, 'hasMore');
});

// ------------------------------------------------------------------ input requests (MRTR)

test('form elicitation (ask_name) answered by the handler', async ({ client, url }) => {
  const seen = [];
  const c = client({ onElicitation: formAnswers(seen) });
  eq(text(await c.callTool('ask_name', {})), 'Hello, Ada!', 'result');
  eq(seen.length, 1, 'handler calls');
  const { req, ctx } = seen[0];
  eq(req.message, 'What is your name?', 'message');
  ok(req.requestedSchema?.properties?.name, `requestedSchema ${show(req.requestedSchema)}`);
  eq([ctx.scope, ctx.method, ctx.key, ctx.serverUrl], ['request', 'tools/call', '__main__:ask_name_resolver', url], 'ctx');
  ok(ctx.signal instanceof AbortSignal && !ctx.signal.aborted, 'ctx.signal');
});

test('form elicitation: numbers answered reach the server as the same numbers (ask_numbers)', async ({ client }) => {
  // The wasm writes floats with the JS engine's digits (src/json/write.rs): 1e+21, and
  // 100000000000000000000.0 for 1e20 (".0" keeps it a float). Whatever the spelling, Python
  // must read the numbers the person gave. The numbers are floats that are integers by
  // value: the 2026-07-28 schema.json allows only integers in ElicitResult's content (where
  // schema.mdx's type says number, and elicitation.mdx's Number Schema may be "number"),
  // and every request recorded here is checked against it (tests/js/validate-log.mjs). Fractions (0.1, 5e-324, 1/3)
  // are checked in tests/wasm (json::text, read back bit for bit). The third row are 17-digit
  // numbers that the wasm's reader of the host's answer (src/json/number.rs) read an ulp off
  // before it asked the JS engine for what its fast path cannot read exactly.
  for (const [a, b, c] of [[1e20, 1e21, -1.7976931348623157e308], [3e20, 5e300, -2e22], [1.6207796688802742e+41, 7.3119703869928325e+53, -3.297038492896529e+38]]) {
    const seen = [];
    const cl = client({ onElicitation: async (req) => { seen.push(req); return { action: 'accept', content: { a, b, c } }; } });
    const got = JSON.parse(text(await cl.callTool('ask_numbers', {})));
    eq(seen.map((r) => Object.keys(r.requestedSchema?.properties ?? {}).map((k) => r.requestedSchema.properties[k].type)), [['number', 'number', 'number']], 'one form of three numbers');
    ok(got.length === 3 && got.every((x, i) => Object.is(x, [a, b, c][i])), `the server read ${show(got)} for ${show([a, b, c])}`);
  }
});

test('form elicitation declined', async ({ client }) => {
  const c = client({ onElicitation: () => ({ action: 'decline' }) });
  eq(text(await c.callTool('ask_name', {})), 'You declined to give your name.', 'result');
});

test('form elicitation cancelled', async ({ client }) => {
  const c = client({ onElicitation: () => ({ action: 'cancel' }) });
  eq(text(await c.callTool('ask_name', {})), 'You cancelled the name request.', 'result');
});

test('two MRTR rounds (ask_twice)', async ({ client }) => {
  const seen = [];
  const c = client({ onElicitation: formAnswers(seen) });
  eq(text(await c.callTool('ask_twice', {})), 'Ada likes green', 'result');
  eq(seen.map((s) => s.ctx.key), ['__main__:ask_name_resolver', '__main__:ask_color_resolver'], 'keys asked, in order');
  ok(seen[1].req.message.includes('Ada'), `second question mentions the first answer: ${seen[1].req.message}`);
});

test('prompts/get that asks input (ask_topic)', async ({ client }) => {
  const seen = [];
  const c = client({ onElicitation: formAnswers(seen) });
  const r = await c.getPrompt('ask_topic', {});
  eq(r.messages?.[0]?.content?.text, 'Write a short poem about the sea.', 'text');
  eq([seen.length, seen[0]?.ctx.method, seen[0]?.ctx.key], [1, 'prompts/get', 'topic'], 'asked once, by prompts/get');
});

test('resources/read that asks input (test://secret/bob)', async ({ client }) => {
  const seen = [];
  const c = client({ onElicitation: formAnswers(seen) });
  const r = await c.readResource('test://secret/bob');
  eq(r.contents?.[0]?.text, 'The secret of bob is 42.', 'text');
  eq([seen.length, seen[0]?.ctx.method, seen[0]?.ctx.key], [1, 'resources/read', 'confirm'], 'asked once, by resources/read');
});

test('URL-mode elicitation (ask_url): the handler gets the URL request; accept', async ({ client, base }) => {
  const seen = [];
  const c = client({ onElicitation: formAnswers(seen), elicitation: { form: true, url: true } });
  eq(text(await c.callTool('ask_url', {})), 'URL flow completed.', 'result');
  eq(seen.length, 1, 'handler calls');
  const { req, ctx } = seen[0];
  eq(req.mode, 'url', 'mode');
  eq(req.url, `${base}/debug/consent?flow=ask_url`, 'url');
  eq([ctx.scope, ctx.method, ctx.key, ctx.url], ['request', 'tools/call', 'authorize', req.url], 'ctx');
});

test('URL-mode elicitation (ask_url): ctx.origin, ctx.host, ctx.isPunycode', async ({ client, base }) => {
  const seen = [];
  const c = client({ onElicitation: formAnswers(seen), elicitation: { form: true, url: true } });
  await c.callTool('ask_url', {});
  const { ctx } = seen[0];
  eq(ctx.origin, base, 'ctx.origin');
  eq(ctx.host, new URL(base).host, 'ctx.host');
  eq(ctx.isPunycode, false, 'ctx.isPunycode');
});

test('URL-mode elicitation without the url capability → MissingRequiredClientCapabilityError', async ({ client }) => {
  const c = client({ onElicitation: formAnswers() }); // form only (the default)
  await rejects(c.callTool('ask_url', {}), MissingRequiredClientCapabilityError, { code: -32021 });
  await stillWorks(c);
});

test('sampling (ask_sampling) answered by onSampling', async ({ client }) => {
  const seen = [];
  const c = client({
    onSampling: async (req, ctx) => {
      seen.push({ req, ctx });
      return { role: 'assistant', content: { type: 'text', text: 'hello there' }, model: 'test-model', stopReason: 'endTurn' };
    },
  });
  eq(text(await c.callTool('ask_sampling', { prompt: 'Say hi' })), 'model test-model said: hello there', 'result');
  eq(seen.length, 1, 'handler calls');
  const { req, ctx } = seen[0];
  eq(req.maxTokens, 100, 'maxTokens');
  eq(req.messages?.[0]?.content?.text ?? req.messages?.[0]?.content?.[0]?.text, 'Say hi', 'message text');
  ok(typeof req.systemPrompt === 'string' && req.systemPrompt.length > 0, 'systemPrompt');
  eq(ctx.key, '__main__:sampling_resolver', 'ctx.key');
});

test('roots (ask_roots) from the roots option', async ({ client }) => {
  const c = client({ roots: [{ uri: 'file:///tmp/a', name: 'a' }, { uri: 'file:///tmp/b' }] });
  eq(text(await c.callTool('ask_roots', {})), 'file:///tmp/a\nfile:///tmp/b', 'result');
});

test('the context objects of the input handlers and onAuthorize: every field, in order, and its value', async ({ client, url, base }) => {
  const seen = [];
  const rootsCtx = [];
  const c = client({
    onElicitation: formAnswers(seen),
    elicitation: { form: true, url: true },
    roots: (ctx) => { rootsCtx.push(ctx); return [{ uri: 'file:///tmp/a' }]; },
  });
  await c.readResource('test://secret/bob');
  await c.callTool('ask_url', {});
  await c.callTool('task_two_inputs', {});
  await c.callTool('ask_roots', {});
  const [form, link, inTask] = seen.map((s) => s.ctx);
  const plain = ['signal', 'scope', 'taskId', 'key', 'method', 'serverUrl'];
  eq(Object.keys(form), plain, 'form mode: the fields');
  ok(form.signal instanceof AbortSignal && !form.signal.aborted, 'form mode: an AbortSignal, not aborted');
  eq([form.scope, form.taskId, form.key, form.method, form.serverUrl], ['request', undefined, 'confirm', 'resources/read', url], 'form mode: the values');
  eq(Object.keys(link), [...plain, 'url', 'origin', 'host', 'hostname', 'isPunycode'], 'URL mode: the fields');
  const u = new URL(base);
  eq([link.scope, link.taskId, link.key, link.method, link.serverUrl, link.url, link.origin, link.host, link.hostname, link.isPunycode],
    ['request', undefined, 'authorize', 'tools/call', url, `${base}/debug/consent?flow=ask_url`, u.origin, u.host, u.hostname, false], 'URL mode: the values');
  eq(Object.keys(inTask), plain, 'in a task: the fields');
  ok(typeof inTask.taskId === 'string' && inTask.taskId.length > 0 && inTask.scope === 'task', `in a task: scope ${show(inTask.scope)}, taskId ${show(inTask.taskId)}`);
  eq(rootsCtx.length, 1, 'the roots function: called once');
  eq(Object.keys(rootsCtx[0]), plain, 'roots: the fields');
  eq([rootsCtx[0].scope, rootsCtx[0].method, rootsCtx[0].serverUrl], ['request', 'tools/call', url], 'roots: the values');
  // onAuthorize's context (oauthWorld, below): with and without a scope.
  for (const scope of [null, 'tools']) {
    const w = oauthWorld({ scope });
    let got;
    const onAuthorize = (authorizationUrl, ctx) => { got = ctx; return w.onAuthorize(authorizationUrl, ctx); };
    const a = new McpClient(w.url, { protocolVersion: '2026-07-28', fetch: w.fetch, auth: { redirectUri: 'http://localhost:8765/callback', onAuthorize } });
    await a.listTools();
    a.close();
    eq(Object.keys(got), ['signal', 'serverUrl', 'issuer', 'resource', 'redirectUri', ...(scope ? ['scope'] : [])], `onAuthorize (scope ${show(scope)}): the fields`);
    ok(got.signal instanceof AbortSignal, 'onAuthorize: an AbortSignal');
    eq([got.serverUrl, got.issuer, got.redirectUri, got.scope], [w.url, w.as, 'http://localhost:8765/callback', scope ?? undefined], `onAuthorize (scope ${show(scope)}): the values`);
    eq(typeof got.resource === 'string' && got.resource.length > 0, true, 'onAuthorize: a resource');
  }
});

test('an input handler that answers nothing → InputValidationError; the client still works', async ({ client }) => {
  const c = client({ onElicitation: () => undefined });
  await rejects(c.callTool('ask_name', {}), InputValidationError, { message: /the input handler returned nothing/ });
  await stillWorks(c);
});

test('a handler that throws: the call rejects with THAT error object', async ({ client }) => {
  const boom = new Error('boom from the handler');
  const c = client({ onElicitation: () => { throw boom; } });
  let caught;
  try {
    await c.callTool('ask_name', {});
  } catch (e) {
    caught = e;
  }
  ok(caught === boom, `rejected with ${caught?.name}: ${caught?.message} (not the thrown object)`);
  await stillWorks(c);
});

test('an async handler that rejects: the call rejects with THAT value', async ({ client }) => {
  class Refused extends Error {}
  const refused = new Refused('user closed the dialog');
  const c = client({ onElicitation: async () => { await sleep(5); throw refused; } });
  let caught;
  try {
    await c.callTool('ask_name', {});
  } catch (e) {
    caught = e;
  }
  ok(caught === refused, `rejected with ${caught?.name}: ${caught?.message} (not the thrown object)`);
  await stillWorks(c);
});

// ------------------------------------------------------------------ progress, abort, timeout

test('progress: onProgress receives every step', async ({ client }) => {
  const seen = [];
  const r = await client().callTool('progress', { steps: 3, delay_ms: 20 }, { onProgress: (p) => seen.push(p) });
  eq(text(r), 'done 3 steps', 'result');
  eq(seen, [1, 2, 3].map((i) => ({ progress: i, total: 3, message: `step ${i}/3` })), 'progress events');
});

test('SSE responses leave no unhandled promise rejections (30 progress calls)', async ({ client, unhandled }) => {
  // The host runner counts unhandled rejections (Node: process 'unhandledRejection', which
  // by default ends the process; browsers: window 'unhandledrejection').
  const before = unhandled().length;
  const c = client();
  for (let i = 0; i < 30; i++) {
    eq(text(await c.callTool('progress', { steps: 3, delay_ms: 0 }, { onProgress: () => {} })), 'done 3 steps', 'result');
  }
  await sleep(200);
  const fresh = unhandled().slice(before);
  ok(fresh.length === 0, `${fresh.length} unhandled rejection(s) during 30 calls, e.g. ${fresh[0]}`);
});

/** Waits until the server logged `slow_cancelled` for the `slow` call started with `ms`. */
async function serverCancelled(debug, ms) {
  for (let i = 0; i < 30; i++) {
    const events = await debug('events');
    const started = events.filter((e) => e.event === 'slow_started' && e.ms === ms).map((e) => show(e.requestId));
    if (started.length && events.some((e) => e.event === 'slow_cancelled' && started.includes(show(e.requestId)))) return true;
    await sleep(100);
  }
  return false;
}

test('AbortSignal aborts a slow call (AbortError), the server sees it cancelled', async ({ client, debug }) => {
  const c = client();
  const ms = 4000 + Math.floor(Math.random() * 999); // identifies this call in /debug/events
  const ac = new AbortController();
  const p = c.callTool('slow', { ms }, { signal: ac.signal });
  p.catch(() => {}); // handled below; keeps an early rejection from counting as unhandled
  await sleep(300);
  ac.abort();
  await rejects(p, AbortError);
  ok(await serverCancelled(debug, ms), 'the server never saw the slow call cancelled');
  await stillWorks(c);
});

test('an already-aborted signal rejects at once with AbortError', async ({ client }) => {
  const c = client();
  const t0 = Date.now();
  await rejects(c.callTool('slow', { ms: 3000 }, { signal: AbortSignal.abort() }), AbortError);
  ok(Date.now() - t0 < 1500, 'took too long');
  await stillWorks(c);
});

test('close() ends the calls in flight with AbortError; a call after it is refused the same way', async ({ client }) => {
  const c = client();
  const p = c.callTool('slow', { ms: 4000 });
  const q = c.callTool('slow', { ms: 4000 }, { timeoutMs: 20_000 });
  p.catch(() => {}); // handled below; keeps an early rejection from counting as unhandled
  q.catch(() => {});
  await sleep(300);
  const t0 = Date.now();
  c.close();
  await rejects(p, AbortError);
  await rejects(q, AbortError);
  ok(Date.now() - t0 < 1500, 'the calls were not ended at once');
  await rejects(c.callTool('echo', { text: 'x' }), AbortError, { message: /closed/ });
});

test('timeout of a slow call (TimeoutError)', async ({ client }) => {
  const c = client();
  const t0 = Date.now();
  await rejects(c.callTool('slow', { ms: 5000 }, { timeoutMs: 300 }), TimeoutError);
  ok(Date.now() - t0 < 3000, `timed out after ${Date.now() - t0} ms`);
  await stillWorks(c);
});

// ------------------------------------------------------------------ x-mcp-header

test('x-mcp-header: region_query mirrors region as Mcp-Param-Region', async ({ client }) => {
  const c = client();
  const a = JSON.parse(text(await c.callTool('region_query', { region: 'eu-west-1', query: 'weather' })));
  eq([a.header, a.decoded, a.region, a.matched, a.query], ['eu-west-1', 'eu-west-1', 'eu-west-1', true, 'weather'], 'answer');
  const b = JSON.parse(text(await c.callTool('region_query', { region: 'Zürich Nord', query: 'q' })));
  ok(/^=\?base64\?.*\?=$/.test(b.header), `non-ASCII value sent base64-sentinel encoded: ${b.header}`);
  eq([b.decoded, b.matched], ['Zürich Nord', true], 'decoded');
});

// ------------------------------------------------------------------ listen

test('listen: list_changed after add_tool (acknowledged, callback, async iterator, close)', async ({ client, unique }) => {
  const c = client();
  const name = `dyn_${unique}`;
  const before = await c.listAllTools(); // cached (ttlMs 10000) until list_changed drops it
  ok(!before.some((t) => t.name === name), 'tool exists before add_tool');
  const heard = [];
  const sub = await c.listen({ toolsListChanged: true }, (method) => heard.push(method));
  try {
    eq(sub.acknowledged?.toolsListChanged, true, 'acknowledged.toolsListChanged');
    ok(sub.subscriptionId !== undefined && sub.subscriptionId !== null, 'subscriptionId');
    eq(text(await c.callTool('add_tool', { name })), `added ${name}`, 'add_tool');
    const it = sub[Symbol.asyncIterator]();
    const n = await withTimeout(it.next(), 5000, 'notifications/tools/list_changed');
    eq([n.done, n.value?.method], [false, 'notifications/tools/list_changed'], 'first notification');
    ok(heard.includes('notifications/tools/list_changed'), `callback heard ${show(heard)}`);
    // The notification dropped the cached tool list: the new tool is listed and callable.
    const after = await c.listAllTools();
    ok(after.some((t) => t.name === name), `${name} missing from listAllTools after list_changed`);
    eq(text(await c.callTool(name, { text: 'x' })), `dynamic tool ${name}: x`, 'dynamic tool');
    sub.close();
    await withTimeout(sub.closed, 5000, 'sub.closed');
    eq((await withTimeout(it.next(), 5000, 'iterator end')).done, true, 'iterator done after close()');
  } finally {
    sub.close();
    await c.callTool('remove_tool', { name }).catch(() => {});
  }
  await stillWorks(c);
});

// ------------------------------------------------------------------ tasks

test('task driven by callTool (task_quick)', async ({ client, debug }) => {
  const statuses = [];
  const r = await client().callTool('task_quick', {}, { onTaskStatus: (t) => statuses.push(t.status) });
  eq(text(r), 'quick task done', 'result');
  eq(statuses.at(-1), 'completed', `last status (all: ${statuses})`);
  const tasks = await debug('tasks');
  ok(Object.values(tasks).some((t) => t.tool === 'task_quick' && t.status === 'completed'), 'server ran task_quick as a task');
});

test('task with two input phases (task_two_inputs) answered by the handler', async ({ client, debug }) => {
  const seen = [];
  const c = client({ onElicitation: formAnswers(seen) });
  eq(text(await c.callTool('task_two_inputs', {})), 'Ada is 36 years old', 'result');
  eq(seen.map((s) => [s.ctx.scope, s.ctx.key]), [['task', 'name'], ['task', 'age']], 'asks');
  const id = seen[0].ctx.taskId;
  ok(typeof id === 'string' && id === seen[1].ctx.taskId, `ctx.taskId ${show(id)}`);
  const t = (await debug('tasks'))[id];
  eq([t?.status, t?.answers], ['completed', { name: 1, age: 1 }], 'server: each key answered once');
});

test('task failure (task_fail) → McpError -32603', async ({ client }) => {
  const c = client();
  await rejects(c.callTool('task_fail', {}), McpError, { code: -32603, message: /deliberate failure/ });
  await stillWorks(c);
});

test('callToolAsTask(task_slow) + cancelTask → waitForTask rejects TaskCancelledError', async ({ client, debug }) => {
  const c = client();
  const t = await c.callToolAsTask('task_slow', { ms: 10000 });
  ok(t instanceof Task, 'a Task');
  eq([t.status, t.isLocal, t.isTerminal], ['working', false, false], 'task');
  await c.cancelTask(t);
  const e = await rejects(c.waitForTask(t), TaskCancelledError);
  ok(e.message.includes(t.taskId), `message names the task: ${e.message}`);
  eq((await debug('tasks'))[t.taskId]?.status, 'cancelled', 'server-side status');
  await stillWorks(c);
});

test('task whose pollIntervalMs changes (task_poll_change): polls follow the latest interval', async ({ client, debug }) => {
  // Polling itself (rule 5): without the task stream, which would make polls a backstop.
  const c = client({ pushTasks: false });
  const t = await c.callToolAsTask('task_poll_change', {});
  eq(t.pollIntervalMs, 200, 'seed interval');
  const done = await c.waitForTask(t);
  eq(done.result?.content?.[0]?.text, 'poll interval changed from 200 to 100', 'result');
  // The server recorded every tasks/get with its time: gaps shrink from ~200 to ~100 ms.
  const log = (await debug('log')).filter((e) => e.method === 'tasks/get' && e.body?.params?.taskId === t.taskId);
  const gaps = log.slice(1).map((e, i) => (e.time - log[i].time) * 1000);
  ok(gaps.length >= 4, `polls: ${gaps.length + 1}`);
  const early = gaps.slice(1, 2);
  const late = gaps.slice(-2);
  ok(early.every((g) => g >= 150), `early gaps ≈200 ms: ${show(gaps.map(Math.round))}`);
  ok(late.every((g) => g < 160 && g >= 60), `late gaps ≈100 ms: ${show(gaps.map(Math.round))}`);
});

test('TTL expiry (task_short_ttl) → TaskExpiredError; the client still works', async ({ client }) => {
  const c = client();
  const e = await rejects(c.callTool('task_short_ttl', {}), TaskExpiredError);
  ok(e.data?.taskId || e.data?.status || /TTL|expired/.test(e.message), `data: ${show(e.data)} ${e.message}`);
  await stillWorks(c);
});

test('a lost tasks/update ack (task_lost_ack): answered once, never asked twice', async ({ client, debug }) => {
  let asked = 0;
  const c = client({
    onElicitation: () => {
      asked += 1;
      return { action: 'accept', content: { ok: true } };
    },
  });
  const r = await c.callTool('task_lost_ack', {});
  eq(text(r), 'confirmed: True', 'result');
  eq(asked, 1, 'the person was asked once');
  const tasks = await debug('tasks');
  const stats = Object.values(tasks).filter((x) => x.tool === 'task_lost_ack').at(-1);
  ok(stats, 'the server ran the task');
  eq(stats.dropped_update_responses ?? stats.droppedUpdateResponses, 1, 'the first ack was dropped');
  ok((stats.answers?.confirm ?? 0) >= 1, `the answer reached the server: ${show(stats.answers)}`);
});

test('listen({ taskIds }): notifications/tasks reach the subscription and onNotification', async ({ client }) => {
  const seen = [];
  const c = client({ onNotification: (m, p) => seen.push([m, p?.taskId, p?.status]) });
  const t = await c.callToolAsTask('task_slow', { ms: 600 });
  const sub = await c.listen({ taskIds: [t.taskId] });
  eq(sub.acknowledged?.taskIds, [t.taskId], 'acknowledged taskIds');
  const done = await c.waitForTask(t);
  eq(done.status, 'completed', 'status');
  for await (const n of sub) {
    if (n.method === 'notifications/tasks' && n.params.status === 'completed') break;
  }
  sub.close();
  ok(seen.some(([m, id, st]) => m === 'notifications/tasks' && id === t.taskId && st === 'completed'), `onNotification: ${show(seen)}`);
});

test('pushTasks (default): a task finishes by notifications/tasks on the shared stream; polls are a backstop, at once after a drop', async ({ client, debug, base }) => {
  // Two clients wait on the same kind of task side by side: one pushed (the default), one
  // polling (pushTasks: false). task_paced: pollIntervalMs 500, done after `ms`.
  const ms = 6000;
  const pushed = client();
  const polled = client({ pushTasks: false });
  const [tp, tq] = await Promise.all([pushed.callToolAsTask('task_paced', { ms }), polled.callToolAsTask('task_paced', { ms })]);
  const t0 = Date.now();
  const donePushed = pushed.waitForTask(tp);
  const donePolled = polled.waitForTask(tq);
  const gets = async (id) => (await debug('tasks'))[id]?.gets ?? 0;
  await sleep(2500);
  // The first poll (rule 4) and one after the acknowledgement (rule 26); then nothing.
  const before = await gets(tp.taskId);
  ok(before <= 2, `pushed task polled ${before} times in 2.5 s`);
  const listens = (await debug('log')).filter((e) => e.method === 'subscriptions/listen' && e.body?.params?.notifications?.taskIds?.includes(tp.taskId));
  eq(listens.length, 1, 'one listen for the pushed task');
  // The stream drops: the task is polled at once, and the client listens again.
  await fetch(`${base}/debug/close-listeners`, { method: 'POST' });
  await sleep(300);
  const after = await gets(tp.taskId);
  ok(after === before + 1, `one poll at once after the drop: ${before} → ${after}`);
  await sleep(1500);
  const again = (await debug('log')).filter((e) => e.method === 'subscriptions/listen' && e.body?.params?.notifications?.taskIds?.includes(tp.taskId));
  eq(again.length, 2, 'listened again after the drop');
  const [a, b] = await Promise.all([donePushed, donePolled]);
  eq([a.status, text(a.result)], ['completed', `paced task done after ${ms} ms`], 'pushed result');
  eq(b.status, 'completed', 'polled result');
  ok(Date.now() - t0 < ms + 1500, `finished by the notification, not a backstop poll (${Date.now() - t0} ms)`);
  const [gp, gq] = [await gets(tp.taskId), await gets(tq.taskId)];
  ok(gp <= after + 2, `pushed: ${gp} polls in all`);
  ok(gq >= 8, `polled: ${gq} polls (today's polling)`);
});

test('Task.toJSON → new McpClient → Task.fromJSON → waitForTask finishes the task', async ({ client, debug }) => {
  const askedA = [];
  // task_two_inputs needs the elicitation capability declared at tools/call time; this client
  // only starts the task and must never be asked.
  const a = client({ onElicitation: formAnswers(askedA) });
  const t = await a.callToolAsTask('task_two_inputs', {});
  eq(askedA.length, 0, 'callToolAsTask asked nothing');
  const stored = JSON.stringify(t.toJSON()); // e.g. IndexedDB / localStorage
  a.close();
  const json = JSON.parse(stored);
  eq([json.taskId, json.status], [t.taskId, 'working'], 'stored form');
  const seen = [];
  const b = client({ onElicitation: formAnswers(seen) }); // a new client (e.g. after a page reload)
  const resumed = Task.fromJSON(json);
  eq(resumed.taskId, t.taskId, 'resumed taskId');
  const done = await b.waitForTask(resumed);
  ok(done instanceof Task, 'resolves with a Task');
  eq([done.status, done.isCompleted, text(done.result)], ['completed', true, 'Ada is 36 years old'], 'completed task');
  eq(seen.map((s) => s.ctx.key), ['name', 'age'], 'the new client answered the inputs');
  eq((await debug('tasks'))[t.taskId]?.status, 'completed', 'server-side status');
});

// ------------------------------------------------------------------ output validation

test(
  'bad_output → OutputValidationError',
  async ({ client }) => {
    const c = client();
    const e = await rejects(c.callTool('bad_output', {}), OutputValidationError);
    ok(e.data?.path !== undefined, `data.path: ${show(e.data)}`);
    await stillWorks(c);
  },
);

// ------------------------------------------------------------------ configuration and transport errors

test("constructor with 'ftp://x' → ConfigError (thrown synchronously)", async () => {
  let caught;
  try {
    new McpClient('ftp://x');
  } catch (e) {
    caught = e;
  }
  ok(caught instanceof ConfigError && caught instanceof McpClientError, `got ${caught?.name}: ${caught?.message}`);
  eq(caught.name, 'ConfigError', 'name');
});

test('option errors: each misfit option is a ConfigError naming it, and of several the first read is reported', async () => {
  // src/web/options.rs reads on after a misfit option and reports the first one in reading
  // order: what a host sees must be what it would see if reading stopped there.
  const url = 'https://never.mcp.test/mcp';
  const fetch = async () => { throw new Error('no request may be made'); };
  const person = { redirectUri: 'https://app.example/cb', onAuthorize: () => 'x' };
  const thrown = (options) => {
    try {
      new McpClient(url, { fetch, ...options }).close();
    } catch (e) {
      ok(e instanceof ConfigError, `${JSON.stringify(Object.keys(options))}: ${e?.name}: ${e?.message}`);
      return e.message;
    }
    return null;
  };
  const cases = [
    [{ auth: { ...person, onAuthorize: 5 } }, /^onAuthorize must be a function/],
    [{ auth: { onAuthorize: () => 'x' } }, /auth needs redirectUri and onAuthorize/],
    [{ auth: { ...person, storage: { get() {} } } }, /auth\.storage\.set must be a function/],
    [{ auth: { ...person, dpop: 'yes' } }, /auth\.dpop must be true, false or 'auto'/],
    [{ auth: { ...person, privateKey: 'pem' } }, /auth\.privateKey must be a CryptoKey or a private JWK/],
    [{ auth: { ...person, privateKey: { kty: 'EC' }, algorithm: 'HS256' } }, /auth\.algorithm must be 'ES256' or 'RS256'/],
    [{ auth: { ...person, applicationType: 'tv' } }, /auth\.applicationType must be 'web' or 'native'/],
    [{ auth: { ...person, clientId: 5 } }, /^clientId must be a string/],
    [{ auth: { ...person, scope: ['a'] } }, /^scope must be a string/],
    // Several misfits: the first read (grant, onAuthorize, redirectUri, storage, dpop,
    // privateKey, algorithm, keyId, clientName, applicationType, clientId, …) is reported.
    [{ auth: { ...person, onAuthorize: 5, dpop: 'yes', clientId: 5 } }, /^onAuthorize must be a function/],
    [{ auth: { ...person, dpop: 'yes', applicationType: 'tv', clientSecret: 1 } }, /auth\.dpop must be/],
    [{ auth: { ...person, applicationType: 'tv', clientSecret: 1 } }, /auth\.applicationType must be/],
    [{ limits: { maxBodyBytes: -1 } }, /^maxBodyBytes must be a non-negative number/],
    [{ limits: { maxEventBytes: 'big', listenBackoffMs: -1 } }, /^maxEventBytes must be a non-negative number/],
    [{ limits: { listenMaxRetries: 1, listenAckTimeoutMs: null, listenMaxBackoffMs: -2 } }, /^listenMaxBackoffMs must be/],
  ];
  for (const [options, want] of cases) {
    const m = thrown(options);
    ok(m !== null && want.test(m), `${JSON.stringify(options, (k, v) => (typeof v === 'function' ? 'fn' : v))}: got ${m}`);
  }
  // Well-formed options of the same groups are accepted.
  eq(thrown({ auth: { ...person, dpop: false, applicationType: 'web', clientId: 'c', scope: 's' }, limits: { maxBodyBytes: 1e6, listenAckTimeoutMs: null } }), null, 'accepted');
  // Per-call options, on a client that makes no request before they are read.
  const c = new McpClient(url, { fetch, protocolVersion: '2026-07-28' });
  const call = [
    [{ timeoutMs: -5 }, /^timeoutMs must be a non-negative number/],
    [{ resetTimeoutOnProgress: 'yes' }, /^resetTimeoutOnProgress must be a boolean/],
    [{ logLevel: 'loud' }, /^logLevel is not a logging level/],
    [{ cache: 'reload' }, /^cache must be 'default' or 'no-cache'/],
    [{ _meta: 5 }, /^_meta must be an object/],
    [{ signal: {} }, /^signal must be an AbortSignal/],
    [{ onProgress: 1 }, /^onProgress must be a function/],
    [{ onTaskStatus: 1, onStatus: () => {} }, /^onTaskStatus must be a function/],
    [{ timeoutMs: -5, cache: 'reload', signal: {} }, /^timeoutMs must be/],
    [{ cache: 'reload', _meta: 5, onProgress: 1 }, /^cache must be/],
  ];
  for (const [options, want] of call) {
    const e = await rejects(c.callTool('echo', {}, options), ConfigError);
    ok(want.test(e.message), `${JSON.stringify(options)}: got ${e.message}`);
  }
  c.close();
});

test("every client option's misfit is a ConfigError with its message; a misfit found by the engine's own checks is reported in reading order with the others", async () => {
  // The options are read in one order (js/objects.js `clientOptions`), some of them checked
  // further by the engine (clientInfo, extensions, the elicitation and sampling declarations,
  // then the whole configuration): of several misfits the host sees the first in that order.
  const url = 'https://never.mcp.test/mcp';
  const fetch = async () => { throw new Error('no request may be made'); };
  const fn = () => {};
  const person = { redirectUri: 'https://app.example/cb', onAuthorize: () => 'x' };
  const key = { kty: 'EC' };
  const thrown = (options) => {
    try {
      new McpClient(url, { fetch, ...options }).close();
    } catch (e) {
      ok(e instanceof ConfigError, `${Object.keys(options)}: ${e?.name}: ${e?.message}`);
      return e.message;
    }
    return null;
  };
  const store = { get: fn, put: fn, delete: fn, list: async () => [] };
  const cases = [
    [{ protocolVersion: 5 }, /^protocolVersion must be a string$/],
    [{ headers: 5 }, /^headers must be an object, a Headers or an array of pairs$/],
    [{ headers: [5] }, /^headers entries must be \[name, value\] pairs$/],
    [{ headers: [[1, 'v']] }, /^header names must be strings$/],
    [{ headers: [['x-a']] }, /^header x-a must have a string value$/],
    [{ headers: { 'x-a': 1 } }, /^header x-a must have a string value$/],
    [{ headers: { entries() { throw new Error('no'); } } }, /^headers\.entries\(\) failed$/],
    [{ extensions: [1] }, /^extensions must be strings$/],
    [{ requestTimeoutMs: NaN }, /^requestTimeoutMs must be a non-negative number$/],
    [{ hiddenPollIntervalMs: '1' }, /^hiddenPollIntervalMs must be a non-negative number$/],
    [{ validateOutput: 'loud' }, /^validateOutput must be 'strict', 'warn' or 'off'$/],
    [{ validateOutput: 1 }, /^validateOutput must be a string$/],
    [{ onWarning: 'x' }, /^onWarning must be a function$/],
    [{ taskStore: 'disk' }, /^taskStore must be 'indexeddb', 'memory', 'none' or a store object$/],
    [{ taskStore: { get: fn } }, /^a taskStore object must have get, put, delete and list functions$/],
    [{ storeAnswers: 'yes' }, /^storeAnswers must be a boolean$/],
    [{ onElicitation: fn, elicitation: { form: 'yes' } }, /^form must be a boolean$/],
    [{ elicitation: { form: true } }, /no onElicitation handler/],
    [{ onElicitation: fn, elicitation: { form: false, url: false } }, /elicitation must enable at least one of form and url/],
    [{ onSampling: fn, sampling: { tools: 1 } }, /^tools must be a boolean$/],
    [{ roots: 'file:///' }, /^roots must be an array or a function$/],
    [{ maxInputRounds: -1 }, /^maxInputRounds must be a non-negative number$/],
    [{ limits: [] }, /^limits must be an object$/],
    [{ limits: { maxBytes: 1 } }, /^limits has a name that is not a limit \(the limits are maxEventBytes, maxBodyBytes, maxConcurrentInputs, maxInputRequests, listenMaxRetries, listenBackoffMs, listenMaxBackoffMs, listenAckTimeoutMs\)$/],
    [{ auth: 'x' }, /^auth must be an object$/],
    [{ auth: { ...person, grant: 5 } }, /^grant must be a string$/],
    [{ auth: { ...person, storage: { get: 1, set: fn } } }, /^get must be a function$/],
    [{ auth: { ...person, privateKey: key, algorithm: 256 } }, /^algorithm must be a string$/],
    [{ auth: { ...person, privateKey: key, keyId: 5 } }, /^keyId must be a string$/],
    [{ auth: { ...person, clientName: 5 } }, /^clientName must be a string$/],
    [{ auth: { ...person, issuer: 5 } }, /^issuer must be a string$/],
    [{ coordination: 'x' }, /^coordination must be 'auto' or 'none'$/],
    [{ pushTasks: true }, /^pushTasks must be 'auto' or false$/],
    // Misfits found on either side, in reading order.
    [{ clientInfo: { name: 5 }, headers: 5 }, /^clientInfo needs string name and version$/],
    [{ headers: 5, extensions: [1] }, /^headers must be/],
    [{ extensions: [1], requestTimeoutMs: -1 }, /^extensions must be strings$/],
    [{ onLog: 5, elicitation: { form: true } }, /^onLog must be a function$/],
    [{ elicitation: { form: true }, roots: 'x' }, /no onElicitation handler/],
    [{ sampling: { tools: true }, limits: [] }, /no onSampling handler/],
    [{ roots: 'x', auth: 'x' }, /^roots must be/],
    [{ logLevel: 'loud', pushTasks: true }, /^pushTasks must be/],
    [{ logLevel: 'loud' }, /^logLevel must be one of debug, info/],
  ];
  for (const [options, want] of cases) {
    const m = thrown(options);
    ok(m !== null && want.test(m), `${JSON.stringify(options, (k, v) => (typeof v === 'function' ? 'fn' : v))}: got ${m}`);
  }
  // Well-formed options of every kind are accepted.
  const accepted = [
    { protocolVersion: 'auto' },
    { headers: new Headers({ 'x-a': 'b' }) },
    { headers: new Map([['x-a', 'b']]) },
    { headers: [['x-a', 'b']] },
    { requestTimeoutMs: Infinity, maxTotalTimeoutMs: 0, hiddenPollIntervalMs: Infinity },
    { validateOutput: 'warn', onLog: fn, onNotification: fn, onWarning: fn },
    { extensions: [TASKS], taskStore: 'memory', storeAnswers: false, coordination: 'none', pushTasks: false },
    { extensions: [TASKS], taskStore: store },
    { taskStore: 'none' },
    { onElicitation: fn, elicitation: { form: true, url: false }, onSampling: fn, sampling: { tools: true } },
    { elicitation: null, roots: [], maxInputRounds: 3, limits: { maxEventBytes: 2 ** 40, listenMaxRetries: 1 } },
    { roots: () => [] },
    { auth: { ...person, clientId: 'c', privateKey: key, algorithm: 'RS256', keyId: 'k', dpop: true, applicationType: 'native', storage: { get: fn, set: fn } } },
    { auth: { grant: 'client_credentials', clientId: 'c', clientSecret: 's', dpop: 'auto' } },
  ];
  for (const options of accepted) eq(thrown(options), null, `accepted: ${Object.keys(options)}`);
});

test("a call's options reach its request: _meta and logLevel in params._meta, cache: 'no-cache' past a fresh entry", async ({ url }) => {
  const platform = globalThis.fetch;
  const bodies = [];
  const fetch = (input, init) => {
    if (typeof init?.body === 'string') bodies.push(JSON.parse(init.body));
    return platform(input, init);
  };
  const c = new McpClient(url, { fetch });
  try {
    const meta = { 'app.example/trace': 'abc', nested: { n: [1, 2.5] } };
    eq(text(await c.callTool('echo', { text: 'm' }, { _meta: meta, logLevel: 'debug', timeoutMs: 5000, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 60_000 })), 'm', 'echo');
    const sent = bodies.findLast((b) => b.method === 'tools/call').params._meta;
    eq(sent['app.example/trace'], 'abc', '_meta entry');
    eq(sent.nested, meta.nested, 'nested _meta entry');
    eq(sent['io.modelcontextprotocol/logLevel'], 'debug', 'logLevel');
    eq(text(await c.callTool('echo', { text: 'n' }, { _meta: null, cache: 'default' })), 'n', 'echo with _meta null');
    ok(!('app.example/trace' in (bodies.findLast((b) => b.method === 'tools/call').params._meta ?? {})), 'no _meta entry');
    await c.discover();
    const before = bodies.filter((b) => b.method === 'server/discover').length;
    await c.discover();
    eq(bodies.filter((b) => b.method === 'server/discover').length, before, 'a fresh discover result is served from the cache');
    await c.discover({ cache: 'no-cache' });
    eq(bodies.filter((b) => b.method === 'server/discover').length, before + 1, "cache: 'no-cache' sends the request");
  } finally {
    c.close();
  }
});

test("a call's misfit options: every message", async () => {
  const c = new McpClient('https://never.mcp.test/mcp', { fetch: async () => { throw new Error('no request may be made'); }, protocolVersion: '2026-07-28' });
  try {
    for (const [options, want] of [
      [{ maxTotalTimeoutMs: 'x' }, /^maxTotalTimeoutMs must be a non-negative number$/],
      [{ taskTimeoutMs: -1 }, /^taskTimeoutMs must be a non-negative number$/],
      [{ logLevel: 5 }, /^logLevel must be a string$/],
      [{ cache: 5 }, /^cache must be a string$/],
      [{ _meta: [] }, /^_meta must be an object$/],
      [{ _meta: { n: 1n } }, /^value is not JSON-serializable: /],
      [{ onStatus: 1 }, /^onStatus must be a function$/],
      [{ logLevel: 'loud', timeoutMs: -1 }, /^timeoutMs must be/],
    ]) {
      const e = await rejects(c.callTool('echo', {}, options), ConfigError);
      ok(want.test(e.message), `${Object.keys(options)}: got ${e.message}`);
      const l = await rejects(c.listTools(undefined, options), ConfigError);
      eq(l.message, e.message, 'the same from listTools');
    }
  } finally {
    c.close();
  }
});

test('invalid call options → ConfigError, client still works', async ({ client }) => {
  const c = client();
  await rejects(c.callTool('echo', { text: 'x' }, { timeoutMs: -5 }), ConfigError);
  await stillWorks(c);
});

test('a large JSON result of known size is read whole; a body longer or shorter than its Content-Length → NetworkError, client still works', async () => {
  // Past 64 KiB a result for the host is read into one buffer of its Content-Length in Node
  // (src/web/js/fetch.js `Fetcher.sized`), by `arrayBuffer()` and checked against it elsewhere
  // (`sizedAs`); a host's fetch can announce a wrong size.
  const big = 'x'.repeat(200_000);
  let skew = 0;
  const fetch = async (input, init = {}) => {
    const m = JSON.parse(init.body);
    const result = m.method === 'tools/call'
      ? { resultType: 'complete', content: [{ type: 'text', text: big }] }
      : { resultType: 'complete', tools: [{ name: 'big', inputSchema: { type: 'object' } }], ttlMs: 0, cacheScope: 'private' };
    const bytes = new TextEncoder().encode(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
    const size = m.method === 'tools/call' ? bytes.byteLength + skew : bytes.byteLength;
    return new Response(bytes, { status: 200, headers: { 'content-type': 'application/json', 'content-length': String(size) } });
  };
  const c = new McpClient('https://big.mcp.test/mcp', { protocolVersion: '2026-07-28', fetch });
  eq(text(await c.callTool('big', {}))?.length, big.length, 'the whole result');
  skew = -10;
  await rejects(c.callTool('big', {}), NetworkError, { message: /longer than its Content-Length/ });
  skew = 10;
  await rejects(c.callTool('big', {}), NetworkError, { message: /shorter than its Content-Length/ });
  skew = 0;
  eq(text(await c.callTool('big', {}))?.length, big.length, 'the whole result again');
  c.close();
});

/** The answer, as UTF-8 bytes, of a server with one tool `t` (no arguments but `n`; its
 *  text `hi <n>`) to request `m`: `tools/call` or `tools/list`. */
function answerOfT(m) {
  const result = m.method === 'tools/call'
    ? { resultType: 'complete', content: [{ type: 'text', text: `hi ${m.params.arguments.n}` }] }
    : { resultType: 'complete', tools: [{ name: 't', inputSchema: { type: 'object' } }], ttlMs: 0, cacheScope: 'private' };
  return new TextEncoder().encode(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
}

test('calls settle by their own answers: three at once, a JSON body that breaks → NetworkError, one that never ends → TimeoutError while it is read, client still works', async () => {
  // A call's promise is made by the fetch runner (src/web/js/fetch.js `Fetcher.wait`) and
  // settled by the engine's outcome for that call (`settle`), whatever the exchange is doing
  // then: a timeout ends the call while its body is still being read.
  let mode = 'ok';
  const fetch = async (input, init = {}) => {
    const m = JSON.parse(init.body);
    const bytes = answerOfT(m);
    const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(bytes.byteLength) };
    if (m.method !== 'tools/call' || mode === 'ok') return new Response(bytes, { status: 200, headers });
    const body = new ReadableStream({
      start(c) {
        c.enqueue(bytes.subarray(0, 10));
        if (mode === 'break') c.error(new Error('connection reset'));
        // 'hang': the rest never comes
      },
    });
    return new Response(body, { status: 200, headers });
  };
  const c = new McpClient('https://plain.mcp.test/mcp', { protocolVersion: '2026-07-28', fetch });
  eq(text(await c.callTool('t', { n: 1 })), 'hi 1', 'the first call');
  const three = (await Promise.all([2, 3, 4].map((n) => c.callTool('t', { n })))).map(text);
  ok(same(three, ['hi 2', 'hi 3', 'hi 4']), `three at once, each its own answer: ${show(three)}`);
  mode = 'break';
  await rejects(c.callTool('t', { n: 5 }), NetworkError, { message: /the response stream broke/ });
  mode = 'hang';
  await rejects(c.callTool('t', { n: 6 }, { timeoutMs: 300 }), TimeoutError);
  mode = 'ok';
  eq(text(await c.callTool('t', { n: 7 })), 'hi 7', 'the client still works');
  c.close();
});

test("another origin's usual answer of stated size is taken once that many bytes are read, not at the stream's end; bytes up to a size they exceed (a compressed body's) are read on", async () => {
  // A cross-origin response (type 'cors') is read chunk by chunk: CORS hides its
  // Content-Encoding, so its Content-Length may count compressed bytes (src/web/js/fetch.js,
  // the plain answer of the direct path). The stream of the second call never ends: it
  // settles only if the bytes are taken at their stated size.
  let mode = 'closed';
  const fetch = async (input, init = {}) => {
    const m = JSON.parse(init.body);
    const bytes = answerOfT(m);
    const headers = { 'content-type': 'application/json', 'content-length': String(bytes.byteLength) };
    // 'encoded': fewer bytes stated than sent, as for a compressed body; the bytes up to
    // the stated size are no whole answer.
    if (m.method === 'tools/call' && mode === 'encoded') headers['content-length'] = '10';
    const body = new ReadableStream({
      start(c) {
        c.enqueue(bytes.subarray(0, 10));
        c.enqueue(bytes.subarray(10));
        if (m.method !== 'tools/call' || mode !== 'open') c.close();
      },
    });
    const res = new Response(body, { status: 200, headers });
    Object.defineProperty(res, 'type', { value: 'cors' });
    return res;
  };
  const c = new McpClient('https://cors.mcp.test/mcp', { protocolVersion: '2026-07-28', fetch });
  eq(text(await c.callTool('t', { n: 1 })), 'hi 1', 'the first call, its stream closed');
  mode = 'open';
  const second = await Promise.race([c.callTool('t', { n: 2 }).then(text), sleep(3000).then(() => 'not settled in 3 s')]);
  eq(second, 'hi 2', 'the second call, its stream left open');
  mode = 'encoded';
  eq(text(await c.callTool('t', { n: 3 })), 'hi 3', 'the third call, its stated size smaller than its body');
  mode = 'closed';
  eq(text(await c.callTool('t', { n: 4 })), 'hi 4', 'the client still works');
  c.close();
});

// ------------------------------------------------------------------ a server of an older era
// A 2025-11-25 server in memory behind the `fetch` option: a request with another
// `MCP-Protocol-Version` is a bare 400 (not a modern JSON-RPC error; 2025-11-25
// `basic/transports`: "MUST respond with 400 Bad Request"), so are `server/discover` and a
// request before `initialize`; `initialize` opens session S1, the GET stream is 405.

function server2025() {
  const w = { url: 'https://old.mcp.test/mcp', methods: [] };
  const json = (status, v, headers = {}) =>
    new Response(JSON.stringify(v), { status, headers: { 'content-type': 'application/json', ...headers } });
  w.fetch = async (input, init = {}) => {
    if ((init.method ?? 'GET') !== 'POST') return new Response(null, { status: 405 });
    const m = JSON.parse(init.body);
    w.methods.push(m.method);
    const version = new Headers(init.headers).get('mcp-protocol-version');
    if (m.method !== 'initialize' && version !== '2025-11-25') {
      return json(400, { jsonrpc: '2.0', id: null, error: { code: -32000, message: `Bad Request: Unsupported protocol version ${version}` } });
    }
    switch (m.method) {
      case 'server/discover':
        return json(400, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Server not initialized' } });
      case 'initialize':
        return json(200, {
          jsonrpc: '2.0', id: m.id,
          result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'old', version: '1' } },
        }, { 'mcp-session-id': 'S1' });
      case 'tools/list':
        return json(200, { jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'old_tool', inputSchema: { type: 'object' } }] } });
      default:
        return new Response(null, { status: 202 }); // notifications
    }
  };
  return w;
}

legacyTest('legacy era: a 2025-11-25-only server is spoken to after the modern probe', async () => {
  const w = server2025();
  const c = new McpClient(w.url, { fetch: w.fetch });
  const { tools } = await c.listTools();
  eq(tools.map((t) => t.name), ['old_tool'], 'tools');
  eq([c.era, c.protocolVersion], ['legacy', '2025-11-25'], 'era');
  // The first request is the modern probe itself (no server/discover before it); refused,
  // it is sent again in the session.
  eq(w.methods, ['tools/list', 'initialize', 'notifications/initialized', 'tools/list'], 'requests');
  c.close();
});

test('a 2025-11-25-only server: the default entry speaks its era; mcp-wasm-client/modern refuses it with UnsupportedProtocolVersionError', async () => {
  const w = server2025();
  const c = new McpClient(w.url, { fetch: w.fetch });
  if (!MODERN) {
    eq((await c.listTools()).tools.length, 1, 'the default entry speaks 2025-11-25');
    c.close();
    return;
  }
  const e = await rejects(c.listTools(), UnsupportedProtocolVersionError, { message: /mcp-wasm-client\/modern/ });
  eq(e.status, 400, 'status');
  eq(e.code, -32022, 'code (UnsupportedProtocolVersionError is an McpError: its code is the spec\'s for the condition)');
  eq(e.data, { era: '2025-11-25 or 2024-11-05', supported: ['2026-07-28'], entry: 'mcp-wasm-client' }, 'data');
  eq(w.methods, ['tools/list'], 'only the probe was sent: no initialize');
  // A pinned older version is refused at construction.
  let thrown;
  try {
    new McpClient(w.url, { protocolVersion: '2025-11-25', fetch: w.fetch });
  } catch (err) {
    thrown = err;
  }
  ok(thrown instanceof UnsupportedProtocolVersionError, `pinned 2025-11-25: ${thrown?.name}: ${thrown?.message}`);
  eq(thrown.data?.era, '2025-11-25', 'pinned era');
  eq(thrown.code, -32022, 'pinned: code');
  c.close();
});

test('server down (connection refused) → NetworkError', async ({ deadUrl, client }) => {
  const dead = new McpClient(deadUrl);
  await rejects(dead.callTool('echo', { text: 'x' }), NetworkError);
  await rejects(dead.discover(), NetworkError);
  await stillWorks(client());
});

// ------------------------------------------------------------------ OAuth (the auth option)
// A protected MCP server and its authorization server, in memory behind the `fetch` option:
// the same cases run in Node and Chromium without another server.

/** The fake: `fetch` for the client, and what the servers saw. */
function oauthWorld({ resource, scope = 'tools', tokenRedirect = false, hangPrmOnce = false } = {}) {
  const base = 'https://mcp.oauth.test';
  const as = 'https://as.oauth.test';
  const w = { base, as, url: `${base}/mcp`, valid: new Set(), seen: [], tokenGrants: [], registrations: 0, n: 0 };
  const json = (status, v, headers = {}) =>
    new Response(JSON.stringify(v), { status, headers: { 'content-type': 'application/json', ...headers } });
  w.fetch = async (input, init = {}) => {
    const u = new URL(String(input));
    const headers = new Headers(init.headers);
    const body = typeof init.body === 'string' ? init.body : '';
    w.seen.push({ url: u.href, auth: headers.get('authorization'), redirect: init.redirect });
    if (u.href === `${base}/.well-known/oauth-protected-resource/mcp`) {
      if (hangPrmOnce && !w.hung) {
        // No answer, ever: only the request's own signal ends it.
        w.hung = true;
        return new Promise((_, reject) => init.signal?.addEventListener('abort', () => { w.abandoned = true; reject(init.signal.reason); }));
      }
      return json(200, { resource: resource ?? `${base}/mcp`, authorization_servers: [as], scopes_supported: scope ? [scope] : undefined });
    }
    if (u.href === `${as}/.well-known/oauth-authorization-server`) {
      return json(200, {
        issuer: as, authorization_endpoint: `${as}/authorize`, token_endpoint: `${as}/token`,
        registration_endpoint: `${as}/register`, code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
      });
    }
    if (u.href === `${as}/register`) {
      w.registrations += 1;
      return json(201, { client_id: 'js-client' });
    }
    if (u.href === `${as}/token`) {
      if (tokenRedirect) {
        // 307 to another origin, as a platform fetch sees it: followed, the form (code,
        // verifier, secret) would go there; with `redirect: 'error'` the fetch rejects.
        // (A browser's CORS diagnosis of the failure probes the URL with HEAD requests.)
        if (init.method !== 'POST') return new Response(null, { status: 405 });
        if (init.redirect === 'error') throw new TypeError('fetch failed: unexpected redirect');
        w.stolen = body;
        return json(200, { access_token: 'stolen', token_type: 'Bearer' });
      }
      const form = Object.fromEntries(new URLSearchParams(body));
      w.tokenGrants.push(form.grant_type);
      const token = `tok-${++w.n}`;
      w.valid.add(token);
      return json(200, { access_token: token, token_type: 'Bearer', refresh_token: 'refresh-1' });
    }
    if (u.href === w.url) {
      const a = headers.get('authorization') ?? '';
      if (!w.valid.has(a.replace(/^Bearer /, ''))) {
        return json(401, { error: 'invalid_token' }, {
          'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"${scope ? `, scope="${scope}"` : ''}`,
        });
      }
      const m = JSON.parse(body);
      return json(200, { jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', tools: [{ name: 'x', inputSchema: { type: 'object' } }], ttlMs: 0, cacheScope: 'private' } });
    }
    return json(404, { error: 'not_found' });
  };
  /** The person: approves at once, as the authorization server would redirect. */
  w.people = 0;
  w.onAuthorize = async (authorizationUrl, ctx) => {
    w.people += 1;
    const q = new URL(authorizationUrl).searchParams;
    eq(q.get('code_challenge_method'), 'S256', 'PKCE');
    eq(q.get('resource'), ctx.resource, 'resource');
    eq(ctx.issuer, as, 'ctx.issuer');
    ok(ctx.signal instanceof AbortSignal, 'ctx.signal');
    const cb = new URL(ctx.redirectUri);
    cb.searchParams.set('code', 'c0de');
    cb.searchParams.set('state', q.get('state'));
    cb.searchParams.set('iss', as);
    return cb.href;
  };
  return w;
}

test('OAuth: a 401 runs one flow for concurrent calls, then every call carries the token', async () => {
  const w = oauthWorld();
  const c = new McpClient(w.url, {
    protocolVersion: '2026-07-28', fetch: w.fetch,
    auth: { redirectUri: 'http://localhost:8765/callback', onAuthorize: w.onAuthorize },
  });
  const [a, b] = await Promise.all([c.listTools(), c.listTools({ cursor: undefined }, { cache: 'no-cache' })]);
  eq([a.tools.length, b.tools.length], [1, 1], 'both calls answered');
  eq([w.people, w.registrations], [1, 1], 'one person step, one registration');
  await c.listTools({}, { cache: 'no-cache' });
  const mcp = w.seen.filter((r) => r.url === w.url);
  eq(mcp.at(-1).auth, 'Bearer tok-1', 'later calls carry the token');
  ok(w.seen.filter((r) => r.url !== w.url).every((r) => r.auth === null), 'no token to the metadata or authorization server');
  c.close();
});

test('OAuth: storage keeps the token across clients; a refused token is refreshed without the person', async () => {
  const w = oauthWorld();
  const store = new Map();
  const storage = { get: (k) => store.get(k), set: async (k, v) => { store.set(k, v); } };
  const opts = { protocolVersion: '2026-07-28', fetch: w.fetch };
  const c1 = new McpClient(w.url, { ...opts, auth: { redirectUri: 'http://localhost:8765/callback', onAuthorize: w.onAuthorize, storage } });
  await c1.authorize();
  c1.close();
  eq(w.people, 1, 'signed in once');
  const noPerson = () => { throw new Error('the person was asked'); };
  const c2 = new McpClient(w.url, { ...opts, auth: { redirectUri: 'http://localhost:8765/callback', onAuthorize: noPerson, storage } });
  eq((await c2.listTools()).tools.length, 1, 'the stored token works');
  w.valid.clear();
  eq((await c2.listTools({}, { cache: 'no-cache' })).tools.length, 1, 'after the refresh');
  eq(w.tokenGrants, ['authorization_code', 'refresh_token'], 'grants');
  eq(w.people, 1, 'never asked again');
  c2.close();
});

test('OAuth: the client credentials grant gets a token with no person; bad grant options are ConfigError', async () => {
  const w = oauthWorld();
  const seenForms = [];
  const fetch = async (input, init = {}) => {
    if (String(input) === `${w.as}/token`) {
      seenForms.push({ form: Object.fromEntries(new URLSearchParams(init.body)), auth: new Headers(init.headers).get('authorization') });
    }
    return w.fetch(input, init);
  };
  const c = new McpClient(w.url, {
    protocolVersion: '2026-07-28', fetch,
    auth: { grant: 'client_credentials', clientId: 'svc', clientSecret: 's3cret' },
  });
  eq((await c.listTools()).tools.length, 1, 'answered with the token');
  eq([w.people, w.registrations], [0, 0], 'no person, no registration');
  eq(w.tokenGrants, ['client_credentials'], 'grant');
  eq(seenForms[0].form.scope, 'tools', 'scope from the challenge');
  eq(seenForms[0].form.resource, w.url, 'resource');
  const basic = seenForms[0].auth ?? '';
  const post = seenForms[0].form.client_secret;
  ok(basic === `Basic ${btoa('svc:s3cret')}` || post === 's3cret', `client authenticated (got ${basic} / ${post})`);
  w.valid.clear();
  eq((await c.listTools({}, { cache: 'no-cache' })).tools.length, 1, 'a refused token is replaced');
  eq(w.tokenGrants, ['client_credentials', 'client_credentials'], 'the same grant again, no refresh');
  c.close();
  const bad = (auth) => {
    try {
      new McpClient(w.url, { auth });
    } catch (e) {
      return e;
    }
    return null;
  };
  const noSecret = bad({ grant: 'client_credentials', clientId: 'svc' });
  ok(noSecret instanceof ConfigError && /clientSecret/.test(noSecret.message), `no secret: ${noSecret?.name}: ${noSecret?.message}`);
  const wrongGrant = bad({ grant: 'password', clientId: 'svc', clientSecret: 's' });
  ok(wrongGrant instanceof ConfigError && /client_credentials/.test(wrongGrant.message), `wrong grant: ${wrongGrant?.name}: ${wrongGrant?.message}`);
});

test('OAuth: a flow request that never gets an answer gives up at requestTimeoutMs; the next call starts a new flow', async () => {
  const w = oauthWorld({ hangPrmOnce: true });
  const c = new McpClient(w.url, { protocolVersion: '2026-07-28', requestTimeoutMs: 300, fetch: w.fetch, auth: { redirectUri: 'http://localhost:8765/callback', onAuthorize: w.onAuthorize } });
  // The held call's own budget outlasts the flow's: it sees the flow end (after the hung
  // request, discovery's other places answer 404 here).
  let first;
  try { await c.listTools(undefined, { timeoutMs: 5000 }); } catch (e) { first = e; }
  ok(first instanceof AuthorizationError, `the held call ends with the flow's error: ${first?.name}: ${first?.message}`);
  eq(w.abandoned, true, 'the flow request was abandoned (its signal fired)');
  const r = await c.listTools();
  eq(r.tools.map((t) => t.name), ['x'], 'a new flow authorized the next call');
  eq(w.people, 1, 'the person was asked once');
  c.close();
});

test("OAuth: the flow's own requests follow no redirect; a token endpoint that redirects gets the form nowhere", async () => {
  // authorization.mdx "Communication Security" / "Token Handling": the code, its verifier
  // and a secret go only to the token endpoint the validated metadata names.
  const w = oauthWorld();
  const c = new McpClient(w.url, { protocolVersion: '2026-07-28', fetch: w.fetch, auth: { redirectUri: 'http://localhost:8765/callback', onAuthorize: w.onAuthorize } });
  await c.listTools();
  c.close();
  const flow = w.seen.filter((s) => s.url !== w.url);
  eq(flow.map((s) => new URL(s.url).pathname), ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server', '/register', '/token'], 'the flow');
  eq([...new Set(flow.map((s) => s.redirect))], ['error'], "the flow's requests: redirect 'error'");
  eq([...new Set(w.seen.filter((s) => s.url === w.url).map((s) => s.redirect))], [undefined], "the MCP requests: the platform's default");
  const r = oauthWorld({ tokenRedirect: true });
  const d = new McpClient(r.url, { protocolVersion: '2026-07-28', fetch: r.fetch, auth: { redirectUri: 'http://localhost:8765/callback', onAuthorize: r.onAuthorize } });
  let caught;
  try { await d.listTools(); } catch (e) { caught = e; }
  ok(caught instanceof McpClientError, `a typed error, got ${caught?.name}: ${caught?.message}`);
  ok(/redirect/.test(caught?.message ?? ''), `the message names the redirect: ${caught?.message}`);
  eq(r.stolen, undefined, 'the form went nowhere else');
  eq(r.seen.filter((s) => s.auth === 'Bearer stolen').length, 0, 'no foreign token reached the MCP server');
  d.close();
});

test('OAuth: what onAuthorize throws rejects the call unchanged; a foreign resource is AuthorizationError', async () => {
  const w = oauthWorld();
  const mine = new Error('popup closed');
  const c = new McpClient(w.url, {
    protocolVersion: '2026-07-28', fetch: w.fetch,
    auth: { redirectUri: 'http://localhost:8765/callback', onAuthorize: () => Promise.reject(mine) },
  });
  let caught;
  try { await c.listTools(); } catch (e) { caught = e; }
  ok(caught === mine, `rethrown unchanged, got ${caught?.name}: ${caught?.message}`);
  c.close();
  const evil = oauthWorld({ resource: 'https://evil.example/mcp' });
  const d = new McpClient(evil.url, {
    protocolVersion: '2026-07-28', fetch: evil.fetch,
    auth: { redirectUri: 'http://localhost:8765/callback', onAuthorize: evil.onAuthorize },
  });
  const e = await rejects(d.listTools(), AuthorizationError);
  eq(e.data?.reason, 'resource-mismatch', 'reason');
  eq(evil.people, 0, 'the person was not asked');
  d.close();
});

test("OAuth: the host's storage failing (get or set, thrown or rejected) is a warning each, and the flow goes on without it", async () => {
  for (const [how, get, set, want] of [
    ['thrown', () => { throw new Error('get boom'); }, () => { throw new Error('set boom'); }, [/^auth\.storage\.get threw: get boom$/, /^auth\.storage\.set threw: set boom$/]],
    ['rejected', async () => { throw new Error('get later'); }, async () => { throw new Error('set later'); }, [/^auth\.storage\.get failed: get later$/, /^auth\.storage\.set failed: set later$/]],
  ]) {
    const w = oauthWorld();
    const warnings = [];
    const c = new McpClient(w.url, {
      protocolVersion: '2026-07-28', fetch: w.fetch, onWarning: (m) => warnings.push(m),
      auth: { redirectUri: 'http://localhost:8765/callback', onAuthorize: w.onAuthorize, storage: { get, set } },
    });
    try {
      eq((await c.listTools()).tools.length, 1, `${how}: answered with the token`);
      eq(w.people, 1, `${how}: the person signed in`);
      await sleep(20); // a rejected set is heard after the call's answer
      for (const re of want) ok(warnings.some((m) => re.test(m)), `${how}: a warning ${re} among ${JSON.stringify(warnings)}`);
    } finally {
      c.close();
    }
  }
});

test('OAuth: onAuthorize may resolve with a URL object; with anything else the call rejects with ConfigError', async () => {
  const w = oauthWorld();
  const c = new McpClient(w.url, {
    protocolVersion: '2026-07-28', fetch: w.fetch,
    auth: { redirectUri: 'http://localhost:8765/callback', onAuthorize: async (u, ctx) => new URL(await w.onAuthorize(u, ctx)) },
  });
  eq((await c.listTools()).tools.length, 1, 'a URL object is the callback URL');
  c.close();
  const v = oauthWorld();
  const d = new McpClient(v.url, {
    protocolVersion: '2026-07-28', fetch: v.fetch,
    auth: { redirectUri: 'http://localhost:8765/callback', onAuthorize: async () => 42 },
  });
  await rejects(d.listTools(), ConfigError, { message: /^auth\.onAuthorize must resolve with the callback URL \(a string or a URL\)$/ });
  d.close();
});

test('OAuth: without crypto.getRandomValues the flow stops with AuthorizationError (random) before the person', async () => {
  // PKCE needs random bytes (src/web/js/contexts.js `randomBytes`): a platform without
  // them must fail the flow, not sign in with a predictable verifier.
  const w = oauthWorld();
  const own = Object.getOwnPropertyDescriptor(globalThis, 'crypto');
  Object.defineProperty(globalThis, 'crypto', { value: undefined, configurable: true, writable: true });
  let e;
  try {
    const c = new McpClient(w.url, {
      protocolVersion: '2026-07-28', fetch: w.fetch,
      auth: { redirectUri: 'http://localhost:8765/callback', onAuthorize: w.onAuthorize },
    });
    e = await rejects(c.listTools(), AuthorizationError, { message: /getRandomValues/ });
    c.close();
  } finally {
    if (own) Object.defineProperty(globalThis, 'crypto', own);
    else delete globalThis.crypto;
  }
  eq(e.data?.reason, 'random', 'data.reason');
  eq(w.people, 0, 'the person was not asked');
  ok(typeof globalThis.crypto?.getRandomValues === 'function', 'crypto is back');
});

test('no auth option: a 401 is an HttpError with the parsed challenge', async () => {
  const w = oauthWorld();
  const c = new McpClient(w.url, { protocolVersion: '2026-07-28', fetch: w.fetch });
  const e = await rejects(c.listTools(), HttpError);
  eq(e.status, 401, 'status');
  eq(e.data?.wwwAuthenticate?.params?.scope, 'tools', 'challenge scope');
  c.close();
});

export { cases };
