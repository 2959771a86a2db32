// The fault-injection scenario server: a minimal but correct MCP 2026-07-28 server over
// Streamable HTTP (server/discover with the tasks extension, tools/list, tools/call with
// MRTR, tasks/get|update|cancel, subscriptions/listen) that misbehaves on purpose, per
// request, as the scenario in the URL says (tests/faults/scenarios.mjs).
//
//   node tests/faults/server.mjs [--port N] [--host 127.0.0.1]
//   → prints `READY http://127.0.0.1:<port>` once it accepts connections.
//
// URLs (<token> is the test case's own state; see scenarios.mjs):
//   POST <base>/s/<scenario>/<token>/mcp[?params]   MCP, with the scenario's faults
//   POST <base>/cors/<policy>/<token>/mcp           MCP with a deliberately wrong CORS policy
//   GET  <base>/consent/<token>                     a URL-mode elicitation target (hits are counted)
//   GET  <base>/debug/counts[?token=]               per task and input key: {presented, answered}
//   POST <base>/debug/reset[?token=]                forgets the counts (and recorded requests)
//   GET  <base>/debug/state?token=                  calls per method, consent hits, requests the client abandoned, …
//   GET  <base>/debug/requests?token=               the raw headers of every MCP request received
//   POST <base>/debug/notify?token=&method=         a notification on the token's open listen streams
//   POST <base>/debug/restart?downMs=&keep=0|1      stop listening, cut every connection, come back later
//
// Counts: a key is `presented` each time it is in an input_required answer (a tasks/get
// result or an MRTR result) that the client received in full, and `answered` each time it
// is in an `inputResponses` the server processed (duplicates included). A tasks/update the
// server already processed (the same JSON-RPC id again: a browser re-sends a POST whose
// reused connection was reset before any response byte) counts as `retransmitted`.
//
// CORS: permissive for loopback origins (http://127.0.0.1:*, http://localhost:*,
// http://[::1]:*): preflights allow the requested headers (Mcp-Method, Mcp-Name,
// Mcp-Param-*, Authorization, …); responses expose WWW-Authenticate, Retry-After,
// Mcp-Session-Id and MCP-Protocol-Version. /cors/<policy>/ paths break it on purpose.
//
// No dependencies beyond Node's standard library.
import http from 'node:http';
import { SCENARIOS, CORS_POLICIES } from './scenarios.mjs';
import { handleMcp, taskView, closeListens } from './mcp.mjs';
import { STATES, state } from './state.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const HOST = opt('host', '127.0.0.1');
let PORT = Number(opt('port', '0'));

// ------------------------------------------------------------------ CORS

const LOOPBACK = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/;

function corsHeaders(req, policy) {
  const origin = req.headers.origin;
  if (!origin || !LOOPBACK.test(origin) || policy === 'none') return {};
  const h = { 'access-control-allow-origin': origin, vary: 'Origin' };
  if (policy !== 'no-expose') {
    h['access-control-expose-headers'] = 'WWW-Authenticate, Retry-After, Mcp-Session-Id, MCP-Protocol-Version';
  }
  return h;
}

function preflight(req, res, policy) {
  const origin = req.headers.origin;
  if (policy === 'none' || !origin || !LOOPBACK.test(origin)) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('no CORS here\n');
    return;
  }
  const h = { ...corsHeaders(req, policy), 'access-control-max-age': '0' };
  if (policy === 'no-headers') {
    h['access-control-allow-methods'] = 'POST, GET';
    h['access-control-allow-headers'] = 'Content-Type';
  } else {
    h['access-control-allow-methods'] = 'POST, GET, DELETE, OPTIONS';
    const asked = req.headers['access-control-request-headers'];
    h['access-control-allow-headers'] =
      'Content-Type, Accept, Authorization, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID' +
      (asked ? `, ${asked}` : '');
  }
  res.writeHead(204, h).end();
}

// ------------------------------------------------------------------ HTTP

const sockets = new Set();
const server = http.createServer(onRequest);
server.keepAliveTimeout = 2000;
server.on('connection', (s) => {
  sockets.add(s);
  s.on('close', () => sockets.delete(s));
});

const json = (res, status, body, extra = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...extra }).end(JSON.stringify(body));

function readBody(req, limit = 4 * 1024 * 1024) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let n = 0;
    req.on('data', (c) => {
      n += c.length;
      if (n > limit) {
        reject(new Error('request body too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function onRequest(req, res) {
  const url = new URL(req.url, 'http://x');
  const path = url.pathname;
  const mcp = path.match(/^\/(s|cors)\/([^/]+)\/([^/]+)\/mcp$/);
  const policy = mcp?.[1] === 'cors' ? mcp[2] : 'permissive';
  if (mcp?.[1] === 'cors' && !CORS_POLICIES.includes(policy)) {
    return json(res, 404, { error: `unknown CORS policy ${policy}` });
  }
  for (const [k, v] of Object.entries(corsHeaders(req, policy))) res.setHeader(k, v);
  if (req.method === 'OPTIONS') return preflight(req, res, policy);
  try {
    if (mcp) {
      const scenario = mcp[1] === 'cors' ? `cors-${policy}` : mcp[2];
      if (!SCENARIOS[scenario]) return json(res, 404, { error: `unknown scenario ${scenario}` });
      const st = state(mcp[3]);
      if (req.method !== 'POST') {
        // HEAD/GET (a probe, or a 2025 client's GET stream): no stream here.
        res.writeHead(405, { allow: 'POST', 'content-type': 'text/plain' }).end();
        return;
      }
      const body = await readBody(req);
      if (policy === 'no-expose' || policy === 'expose') {
        const base = `http://${req.headers.host}`;
        res.writeHead(401, {
          'content-type': 'application/json',
          'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource"`,
        });
        res.end(JSON.stringify({ error: 'invalid_token' }));
        return;
      }
      return await handleMcp({ req, res, st, scenario, params: url.searchParams, body });
    }
    const consent = path.match(/^\/consent\/([^/]+)$/);
    if (consent) {
      state(consent[1]).consent += 1;
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>consent page</p>');
      return;
    }
    if (path.startsWith('/debug/')) return await debug(req, res, path.slice(7), url.searchParams);
    json(res, 404, { error: 'not found' });
  } catch (e) {
    if (!res.headersSent) json(res, 500, { error: String(e?.stack ?? e) });
    else res.destroy();
  }
}

// ------------------------------------------------------------------ debug endpoints

async function debug(req, res, what, q) {
  const token = q.get('token');
  const st = token ? state(token) : undefined;
  switch (`${req.method} ${what}`) {
    case 'GET counts':
      return json(res, 200, st ? st.counts : Object.fromEntries([...STATES].map(([k, v]) => [k, v.counts])));
    case 'POST reset':
      if (st) {
        st.counts = {};
        st.requests = [];
      } else STATES.clear();
      return json(res, 200, { ok: true });
    case 'GET state':
      if (!st) return json(res, 400, { error: 'token required' });
      return json(res, 200, {
        calls: st.calls,
        consent: st.consent,
        abandoned: st.abandoned,
        listens: st.listens.size,
        tasks: Object.fromEntries([...st.tasks].map(([id, t]) => [id, taskView(t, false)])),
      });
    case 'GET requests':
      if (!st) return json(res, 400, { error: 'token required' });
      return json(res, 200, st.requests);
    case 'GET scenarios':
      return json(res, 200, SCENARIOS);
    case 'POST notify': {
      if (!st) return json(res, 400, { error: 'token required' });
      const method = q.get('method') || 'notifications/tools/list_changed';
      for (const l of st.listens) l.notify(method, {});
      return json(res, 200, { sent: st.listens.size });
    }
    case 'POST restart': {
      const downMs = Number(q.get('downMs') ?? 300);
      const keep = q.get('keep') !== '0';
      json(res, 200, { downMs, keep });
      res.on('finish', () => setImmediate(() => restart(downMs, keep)));
      return;
    }
    default:
      return json(res, 404, { error: `no debug endpoint ${req.method} ${what}` });
  }
}

/** A server restart: stop listening, cut every connection, forget the tasks unless `keep`. */
function restart(downMs, keep) {
  server.close();
  for (const s of sockets) s.destroy();
  for (const st of STATES.values()) {
    closeListens(st);
    if (!keep) st.tasks.clear();
  }
  setTimeout(() => server.listen(PORT, HOST), downMs);
}

// ------------------------------------------------------------------ start

server.listen(PORT, HOST, () => {
  PORT = server.address().port;
  const host = HOST.includes(':') ? `[${HOST}]` : HOST;
  process.stdout.write(`READY http://${host}:${PORT}\n`);
});
const stop = () => {
  server.close();
  for (const s of sockets) s.destroy();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
