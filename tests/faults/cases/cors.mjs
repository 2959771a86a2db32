// CORS diagnostics (Chromium: the suite's page and the fault server are on different
// origins). A server whose CORS policy blocks the client must yield a CorsError naming
// what the server must allow; a server that is down stays a NetworkError; a readable 401
// stays an HttpError. In Node (no CORS) the same servers answer normally.
import { CorsError, HttpError, NetworkError, McpClient } from '../../../pkg/index.js';
import { test, ok, eq, rejects, text, TASKS } from '../harness.mjs';

const MCP_HEADERS = ['Content-Type', 'MCP-Protocol-Version', 'Mcp-Method', 'Mcp-Name'];

/** A client for a CORS policy path (pinned version: the first request is tools/list, then tools/call). */
function corsClient(env, policy, options = {}) {
  return env.track(new McpClient(env.corsUrl(policy), { extensions: [TASKS], protocolVersion: '2026-07-28', requestTimeoutMs: 8000, ...options }));
}

test('CORS: no CORS headers at all → CorsError (origin-not-allowed) naming the origin and the headers to allow', { scenarios: ['cors-none'], where: 'browser' }, async (env) => {
  const c = corsClient(env, 'none', { headers: { Authorization: 'Bearer t', 'X-Tenant': 'acme' } });
  const e = await rejects(c.callTool('echo', { text: 'x' }), CorsError);
  const d = e.data;
  eq(d?.reason, 'origin-not-allowed', 'data.reason');
  eq(d?.origin, location.origin, 'data.origin (the page)');
  eq(d?.serverOrigin, new URL(env.base).origin, 'data.serverOrigin');
  eq(d?.allowHeaders, [...MCP_HEADERS, 'Authorization', 'X-Tenant'], 'data.allowHeaders (tools/call)');
  eq(d?.required, [`Access-Control-Allow-Origin: ${location.origin}`, `Access-Control-Allow-Headers: ${[...MCP_HEADERS, 'Authorization', 'X-Tenant'].join(', ')}`], 'data.required');
  ok(e.message.includes(`Access-Control-Allow-Origin: ${location.origin}`), `message: ${e.message}`);
  // The same again (nothing is stuck), and a client of a well-configured server works.
  await rejects(c.discover({ cache: 'no-cache' }), CorsError);
  eq(text(await env.client('ok').callTool('echo', { text: 'fine' })), 'fine', 'a permissive server still works');
});

test('CORS: preflight refuses the Mcp-* headers → CorsError (preflight-refused) listing them', { scenarios: ['cors-no-headers'], where: 'browser' }, async (env) => {
  const c = corsClient(env, 'no-headers');
  const e = await rejects(c.callTool('echo', { text: 'x' }), CorsError, { message: /preflight/ });
  eq(e.data?.reason, 'preflight-refused', 'data.reason');
  eq(e.data?.allowHeaders, MCP_HEADERS, 'data.allowHeaders');
  ok(e.data?.required?.includes(`Access-Control-Allow-Headers: ${MCP_HEADERS.join(', ')}`), `data.required: ${JSON.stringify(e.data?.required)}`);
});

test('CORS: a 401 whose WWW-Authenticate is not exposed → CorsError status 401 naming Access-Control-Expose-Headers', { scenarios: ['cors-no-expose'], where: 'browser' }, async (env) => {
  const c = corsClient(env, 'no-expose');
  const e = await rejects(c.callTool('echo', { text: 'x' }), CorsError, { status: 401, message: /Access-Control-Expose-Headers: WWW-Authenticate/ });
  eq(e.data?.reason, 'www-authenticate-not-exposed', 'data.reason');
  eq(e.data?.required, ['Access-Control-Expose-Headers: WWW-Authenticate'], 'data.required');
  eq(e.data?.exposeHeaders, ['WWW-Authenticate'], 'data.exposeHeaders');
});

test('CORS: a 401 with WWW-Authenticate exposed → HttpError 401 (not a CORS problem)', { scenarios: ['cors-expose'] }, async (env) => {
  const c = corsClient(env, 'expose');
  await rejects(c.callTool('echo', { text: 'x' }), HttpError, { status: 401 });
});

test('CORS: a server that is down → NetworkError, not CorsError (the probes tell them apart)', { scenarios: [] }, async (env) => {
  const c = env.track(new McpClient(env.deadUrl, { protocolVersion: '2026-07-28' }));
  await rejects(c.callTool('echo', { text: 'x' }), NetworkError);
});

test('CORS policies do not matter outside a browser: the same servers answer (Node)', { scenarios: ['cors-none', 'cors-no-headers', 'cors-no-expose'], where: 'node' }, async (env) => {
  eq(text(await corsClient(env, 'none').callTool('echo', { text: 'node' })), 'node', 'no CORS headers');
  eq(text(await corsClient(env, 'no-headers').callTool('echo', { text: 'node' })), 'node', 'preflight (never sent)');
  await rejects(corsClient(env, 'no-expose').callTool('echo', { text: 'x' }), HttpError, { status: 401 });
});

test('CORS diagnosis (src/web/js/objects.js diagnose): a server back between the probes is not a CORS refusal', { scenarios: [] }, async () => {
  const { diagnose } = await import('../../../src/web/js/objects.js');
  // A scripted fetch: `up(n, init)` says whether probe n (0-based) reaches the server and
  // passes CORS. It records each probe's mode and whether it carried the request's headers.
  const scripted = (up) => {
    const seen = [];
    const f = async (url, init) => {
      const n = seen.length;
      seen.push(`${init.mode}${init.headers.length ? '+headers' : ''}`);
      if (!up(n, init)) throw new TypeError('Failed to fetch');
      return new Response(null, { status: 200 });
    };
    return { f, seen };
  };
  const headers = [['Mcp-Method', 'tools/call']];
  // Down for the first probe, back for the others (a restart): no finding.
  let s = scripted((n) => n > 0);
  eq(await diagnose(s.f, undefined, 'http://api.test/mcp', headers), null, 'a restart is not CORS');
  eq(s.seen, ['cors+headers', 'no-cors', 'cors', 'cors+headers'], 'probe 1 repeated once the server answers');
  // A preflight that refuses the headers, the server up throughout.
  s = scripted((n, init) => init.mode === 'no-cors' || init.headers.length === 0);
  eq(await diagnose(s.f, undefined, 'http://api.test/mcp', headers), 'preflight-refused', 'headers refused');
  eq(s.seen.length, 4, 'four probes');
  // The origin not allowed: only the opaque probe passes.
  s = scripted((n, init) => init.mode === 'no-cors');
  eq(await diagnose(s.f, undefined, 'http://api.test/mcp', headers), 'origin-not-allowed', 'origin refused');
  eq(s.seen.length, 3, 'three probes');
  // Unreachable: no probe passes.
  s = scripted(() => false);
  eq(await diagnose(s.f, undefined, 'http://api.test/mcp', headers), null, 'network down');
  eq(s.seen.length, 2, 'two probes');
  // Offline (`navigator.onLine` false): a network failure, and no probe is sent (an offline
  // client sends no request, issue 13), though this server would answer every probe.
  // (Node 20 has no navigator: one is lent for the check.)
  const lent = globalThis.navigator === undefined;
  if (lent) globalThis.navigator = {};
  Object.defineProperty(globalThis.navigator, 'onLine', { configurable: true, get: () => false });
  try {
    s = scripted(() => true);
    eq(await diagnose(s.f, undefined, 'http://api.test/mcp', headers), null, 'offline: not CORS');
    eq(s.seen, [], 'offline: no probe');
  } finally {
    delete globalThis.navigator.onLine;
    if (lent) delete globalThis.navigator;
  }
  s = scripted(() => true);
  eq(await diagnose(s.f, undefined, 'http://api.test/mcp', headers), null, 'online again: not CORS');
  eq(s.seen.length, 1, 'online again: one probe');
});

test('CORS diagnosis wording (src/web/js/objects.js): safelisted headers, required lines', { scenarios: [] }, async () => {
  const { needingPermission, corsFacts, crossOrigin } = await import('../../../src/web/js/objects.js');
  const req = [
    ['Content-Type', 'application/json'],
    ['Accept', 'application/json, text/event-stream'],
    ['MCP-Protocol-Version', '2026-07-28'],
    ['Mcp-Method', 'tools/call'],
    ['Mcp-Name', 'x'],
    ['Mcp-Param-Region', 'eu'],
    ['Authorization', 'Bearer t'],
    ['content-type', 'application/json'],
  ];
  eq(needingPermission(req), ['Content-Type', 'MCP-Protocol-Version', 'Mcp-Method', 'Mcp-Name', 'Mcp-Param-Region', 'Authorization'], 'headers needing permission');
  eq(needingPermission([['Content-Type', 'text/plain; charset=utf-8'], ['Accept-Language', 'en']]), [], 'safelisted headers');
  const f = corsFacts('origin-not-allowed', 'http://page.test:5000', 'http://api.test/mcp', 'DELETE', [['Mcp-Method', 'x']], 0);
  eq(f.data.required, ['Access-Control-Allow-Origin: http://page.test:5000', 'Access-Control-Allow-Headers: Mcp-Method', 'Access-Control-Allow-Methods: DELETE'], 'required');
  eq([f.data.serverOrigin, f.data.url, f.data.status], ['http://api.test', 'http://api.test/mcp', undefined], 'serverOrigin, url, status');
  ok(f.message.includes('Access-Control-Allow-Origin: http://page.test:5000'), f.message);
  const g = corsFacts('www-authenticate-not-exposed', 'http://p', 'http://s/mcp', 'POST', [], 401);
  eq([g.data.required, g.data.exposeHeaders, g.data.status], [['Access-Control-Expose-Headers: WWW-Authenticate'], ['WWW-Authenticate'], 401], '401 facts');
  // DPoP (issue 16): the proof header needs permission; a hidden DPoP-Nonce is named.
  eq(needingPermission([['DPoP', 'a.b.c'], ['Content-Type', 'application/x-www-form-urlencoded']]), ['DPoP'], 'the DPoP header');
  const n = corsFacts('dpop-nonce-not-exposed', 'http://p', 'http://s/mcp', 'POST', [['DPoP', 'a.b.c']], 401);
  eq([n.data.reason, n.data.exposeHeaders, n.data.required], ['dpop-nonce-not-exposed', ['WWW-Authenticate', 'DPoP-Nonce'], ['Access-Control-Expose-Headers: WWW-Authenticate, DPoP-Nonce']], 'nonce facts');
  ok(n.message.includes('DPoP-Nonce'), n.message);
  if (typeof location === 'undefined') eq(crossOrigin('http://example.com/mcp'), undefined, 'no location, no CORS');
  else eq([crossOrigin(`${location.origin}/mcp`), crossOrigin('http://example.com/mcp')], [undefined, location.origin], 'same and cross origin');
});
