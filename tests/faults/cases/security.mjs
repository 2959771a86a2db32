// Security: no header injection (values with CR/LF/non-ASCII go out base64-sentinel encoded;
// checked on what the server received), URL-mode elicitation never fetched and only https:
// or localhost accepted, peer strings sanitized in errors, and no eval/Function in the package.
import { McpError, HttpError, InvalidResultError, ConfigError, McpClient } from '../../../pkg/index.js';
import { test, ok, eq, rejects, sleep, text, stillWorks } from '../harness.mjs';

const decodeSentinel = (v) => {
  const m = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(v ?? '');
  if (!m) return undefined;
  return new TextDecoder().decode(Uint8Array.from(atob(m[1]), (ch) => ch.charCodeAt(0)));
};
/** rawHeaders ([name, value, name, value, …]) as pairs. */
const pairs = (raw) => Array.from({ length: raw.length / 2 }, (_, i) => [raw[2 * i], raw[2 * i + 1]]);

test('header injection: tool names with CR/LF, non-ASCII or a sentinel look-alike go out base64-encoded in Mcp-Name', { scenarios: ['header-echo'] }, async ({ client, debug }) => {
  const c = client('header-echo');
  for (const name of ['evil\r\nX-Injected: yes', 'Zürich ☂ tool', ' padded ', '=?base64?aGk=?=', 'tab\there']) {
    const got = JSON.parse(text(await c.callTool(name, {})));
    eq(got.name, name, 'the name in the body');
    ok(decodeSentinel(got.mcpName) === name, `Mcp-Name ${JSON.stringify(got.mcpName)} is the sentinel encoding of ${JSON.stringify(name)}`);
  }
  eq(JSON.parse(text(await c.callTool('plain_name', {}))).mcpName, 'plain_name', 'a plain name is sent verbatim');
  for (const r of await debug('requests')) {
    for (const [n, v] of pairs(r.rawHeaders)) {
      ok(n.toLowerCase() !== 'x-injected', `an injected header reached the server (${r.method})`);
      ok(!/[\r\n\0]/.test(v), `a header value with CR/LF/NUL reached the server: ${n}`);
    }
  }
  await stillWorks(c);
});

test('header injection: x-mcp-header values with CR/LF and non-ASCII go out base64-encoded in Mcp-Param-*', { scenarios: ['header-echo'] }, async ({ client, debug }) => {
  const c = client('header-echo');
  for (const region of ['eu-west-1', 'eu\r\nX-Injected: 1', 'Zürich Nord', '\u001b[31mred']) {
    const got = JSON.parse(text(await c.callTool('region_echo', { region })));
    eq([got.decoded, got.matched], [region, true], `Mcp-Param-Region for ${JSON.stringify(region)}`);
    if (region === 'eu-west-1') eq(got.raw, region, 'a plain value is sent verbatim');
    else eq(decodeSentinel(got.raw), region, `sentinel-encoded: ${got.raw}`);
  }
  const seen = (await debug('requests')).flatMap((r) => pairs(r.rawHeaders));
  ok(!seen.some(([n]) => n.toLowerCase() === 'x-injected'), 'no injected header');
  // Host headers are the host's: a CR/LF there is refused when the client is made.
  let caught;
  try {
    new McpClient('http://127.0.0.1:1/mcp', { headers: { 'X-Custom': 'a\r\nX-Injected: 1' } });
  } catch (e) {
    caught = e;
  }
  ok(caught instanceof ConfigError, `a host header with CR/LF → ${caught?.name}`);
});

test('URL-mode elicitation: a localhost URL goes to the handler and is never fetched by the client', { scenarios: ['url-elicitation'] }, async ({ client, base, token, debug }) => {
  const url = `${base}/consent/${token}`;
  const seen = [];
  const c = client('url-elicitation', {
    elicitation: { form: true, url: true },
    onElicitation: async (req, ctx) => {
      seen.push({ url: req.url, ctxUrl: ctx.url, origin: ctx.origin });
      return { action: 'accept' };
    },
  });
  eq(text(await c.callTool('url_ask', { url })), 'url flow: accept', 'result');
  eq(seen, [{ url, ctxUrl: url, origin: base }], 'the handler saw the URL');
  await sleep(300);
  eq((await debug('state')).consent, 0, 'requests the server got for the consent URL');
  await stillWorks(c);
});

test('URL-mode elicitation: http: on a non-local host, javascript:, userinfo → InvalidResultError; no handler, no fetch', { scenarios: ['url-elicitation'] }, async ({ client, base, token, debug }) => {
  let asked = 0;
  const c = client('url-elicitation', { elicitation: { form: true, url: true }, onElicitation: () => (asked++, { action: 'accept' }) });
  const local = new URL(base);
  for (const url of [
    `http://evil.example/consent/${token}`,
    `http://localhost.evil.test:${local.port}/consent/${token}`,
    'javascript:alert(1)',
    `https://user@evil.example/consent`,
    `http://127.0.0.2:${local.port}/consent/${token}`,
  ]) {
    await rejects(c.callTool('url_ask', { url }), InvalidResultError, { message: /refused/ });
  }
  eq(asked, 0, 'handler calls');
  await sleep(200);
  eq((await debug('state')).consent, 0, 'requests for the consent URL');
  await stillWorks(c);
});

test('peer strings are sanitized: a JSON-RPC error message with ANSI, CR/LF, BEL, NUL and bidi controls', { scenarios: ['error-ansi'] }, async ({ client }) => {
  const c = client('error-ansi');
  const e = await rejects(c.callTool('hit', {}), McpError, { code: -32000 });
  ok(e.message.includes('denied') && e.message.includes('end'), `the text is kept: ${e.message}`);
  eq(e.data, { detail: 'ansi' }, 'data');
  await stillWorks(c);
});

test('peer strings are sanitized: an HTTP error body with ANSI escapes and CR/LF', { scenarios: ['http-500-ansi'] }, async ({ client }) => {
  const c = client('http-500-ansi');
  const e = await rejects(c.callTool('hit', {}), HttpError, { status: 500 });
  ok(e.message.includes('boom'), `the text is kept: ${e.message}`);
  await stillWorks(c);
});

test('no eval or Function constructor anywhere in the built package (pkg/**/*.js)', { where: 'node' }, async () => {
  const fs = await import('node:fs');
  const path = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const root = fileURLToPath(new URL('../../../pkg/', import.meta.url));
  const files = [];
  const walk = (dir) => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, d.name);
      if (d.isDirectory()) walk(p);
      else if (/\.(m?js)$/.test(d.name)) files.push(p);
    }
  };
  walk(root);
  ok(files.some((f) => f.includes(`${path.sep}snippets${path.sep}`)), 'the snippets are checked');
  ok(files.some((f) => f.includes(`${path.sep}dialog${path.sep}`)), 'the dialog is checked');
  ok(files.length >= 5, `files checked: ${files.length}`);
  const FORBIDDEN = [/(?<![\w$])eval\s*\(/, /\bnew\s+Function\b/, /(?<![\w$])Function\s*\(/];
  // The check catches each form (so a passing run means something).
  for (const sample of ['eval("1")', 'x = new Function("a", "b")', 'globalThis.Function("return 1")', 'window.eval(s)']) {
    ok(FORBIDDEN.some((re) => re.test(sample)), `the check misses ${sample}`);
  }
  for (const sample of ['evaluate(x)', 'isFunction(x)', "typeof f === 'function'"]) {
    ok(!FORBIDDEN.some((re) => re.test(sample)), `false positive on ${sample}`);
  }
  const found = [];
  for (const f of files) {
    const src = fs.readFileSync(f, 'utf8');
    src.split('\n').forEach((line, i) => {
      for (const re of FORBIDDEN) if (re.test(line)) found.push(`${path.relative(root, f)}:${i + 1}: ${line.trim().slice(0, 120)}`);
    });
  }
  eq(found, [], 'eval / Function in pkg/');
});

