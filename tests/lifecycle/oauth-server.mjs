// An OAuth-protected MCP server for the lifecycle tests (issue 13, test 7), in one Node
// process on 127.0.0.1 (a loopback authorization server is allowed over http):
// - the Protected Resource Metadata (RFC 9728) of `${url}/mcp` and the Authorization
//   Server Metadata (RFC 8414) of the issuer `${url}`;
// - a token endpoint that counts grants and rotates refresh tokens: each refresh token
//   works once; a reused one is `invalid_grant` and revokes its whole family (every
//   access and refresh token of it), as rotating servers do (OAuth 2.1 §4.3.1), so a
//   double use fails a test visibly;
// - `/mcp` proxied to the Python MCP server only with a valid Bearer token, else
//   401 + `WWW-Authenticate`; CORS for any page origin.
// `GET /debug/oauth`: the grants and the /mcp requests (with the token each carried).
import { createServer, request as httpRequest } from 'node:http';

/**
 * Starts the server in front of the MCP server at `upstream` (its /mcp URL).
 * @param {{ tokenDelayMs?: number, accessTtlS?: number }} opts the token endpoint answers
 *   after `tokenDelayMs` (so that concurrent refreshes would overlap).
 */
export function oauthServer(upstream, { tokenDelayMs = 300, accessTtlS = 3600 } = {}) {
  const up = new URL(upstream);
  const state = {
    grants: [], // { grant_type, refresh_token, ok, error, time }
    mcp: [], // { token, status, time }
    families: new Map(), // family -> { current: refresh token, revoked, used: Set }
    access: new Map(), // access token -> { family, expiresAt }
    refreshToFamily: new Map(),
    n: 0,
  };

  /** A new family with its first tokens (what a sign-in would have given). */
  function seed({ expiredAccess = true } = {}) {
    const family = `f${++state.n}`;
    state.families.set(family, { current: null, revoked: false, used: new Set() });
    return issue(family, expiredAccess ? -60 : accessTtlS);
  }

  function issue(family, ttlS) {
    const f = state.families.get(family);
    const n = ++state.n;
    const access = `at-${family}-${n}`;
    const refresh = `rt-${family}-${n}`;
    f.current = refresh;
    state.refreshToFamily.set(refresh, family);
    state.access.set(access, { family, expiresAt: Date.now() + ttlS * 1000 });
    return { access, refresh, expiresIn: ttlS };
  }

  function validAccess(token) {
    const a = token && state.access.get(token);
    if (!a) return false;
    const f = state.families.get(a.family);
    return !f.revoked && a.expiresAt > Date.now();
  }

  let base = '';
  const cors = (req) => ({
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
    'access-control-allow-headers': req.headers['access-control-request-headers'] || '*',
    'access-control-expose-headers': '*',
    'access-control-max-age': '600',
  });
  const json = (req, res, status, body, extra = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...cors(req), ...extra });
    res.end(JSON.stringify(body));
  };
  const readBody = (req) => new Promise((ok) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => ok(Buffer.concat(chunks)));
  });

  async function token(req, res) {
    const form = new URLSearchParams((await readBody(req)).toString('utf8'));
    const grantType = form.get('grant_type');
    const entry = { grant_type: grantType, refresh_token: form.get('refresh_token'), time: Date.now() };
    state.grants.push(entry);
    await new Promise((r) => setTimeout(r, tokenDelayMs));
    const deny = (error) => {
      entry.ok = false;
      entry.error = error;
      json(req, res, 400, { error });
    };
    if (grantType !== 'refresh_token') return deny('unsupported_grant_type');
    const rt = form.get('refresh_token');
    const family = state.refreshToFamily.get(rt);
    const f = family && state.families.get(family);
    if (!f) return deny('invalid_grant');
    if (f.revoked) return deny('invalid_grant');
    if (rt !== f.current || f.used.has(rt)) {
      // Reuse: the whole family is revoked (every tab is signed out).
      f.revoked = true;
      return deny('invalid_grant');
    }
    f.used.add(rt);
    const t = issue(family, accessTtlS);
    entry.ok = true;
    json(req, res, 200, {
      access_token: t.access, token_type: 'Bearer', expires_in: t.expiresIn, refresh_token: t.refresh,
    });
  }

  function proxy(req, res, bearer) {
    const headers = { ...req.headers };
    delete headers.host;
    delete headers.authorization;
    delete headers.origin;
    const upReq = httpRequest({
      host: up.hostname, port: up.port, path: up.pathname + (new URL(req.url, 'http://x').search),
      method: req.method, headers,
    }, (upRes) => {
      state.mcp.push({ token: bearer, status: upRes.statusCode, time: Date.now() });
      res.writeHead(upRes.statusCode, { ...upRes.headers, ...cors(req) });
      upRes.pipe(res);
    });
    upReq.on('error', () => {
      if (!res.headersSent) json(req, res, 502, { error: 'upstream' });
      else res.destroy();
    });
    res.on('close', () => upReq.destroy());
    req.pipe(upReq);
  }

  const server = createServer(async (req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors(req));
      return res.end();
    }
    if (path === '/.well-known/oauth-protected-resource/mcp' || path === '/.well-known/oauth-protected-resource') {
      return json(req, res, 200, { resource: `${base}/mcp`, authorization_servers: [base] });
    }
    if (path === '/.well-known/oauth-authorization-server') {
      return json(req, res, 200, {
        issuer: base, authorization_endpoint: `${base}/authorize`, token_endpoint: `${base}/token`,
        code_challenge_methods_supported: ['S256'], token_endpoint_auth_methods_supported: ['none'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
      });
    }
    if (path === '/token' && req.method === 'POST') return token(req, res);
    if (path === '/debug/oauth') {
      return json(req, res, 200, {
        grants: state.grants, mcp: state.mcp,
        revoked: [...state.families].filter(([, f]) => f.revoked).map(([k]) => k),
      });
    }
    if (path === '/mcp') {
      const m = /^Bearer (\S+)$/.exec(req.headers.authorization || '');
      const bearer = m ? m[1] : null;
      if (!validAccess(bearer)) {
        state.mcp.push({ token: bearer, status: 401, time: Date.now() });
        req.resume();
        return json(req, res, 401, { error: 'invalid_token' }, {
          'www-authenticate': `Bearer error="invalid_token", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
        });
      }
      return proxy(req, res, bearer);
    }
    json(req, res, 404, { error: 'not_found' });
  });

  return new Promise((ok) => server.listen(0, '127.0.0.1', () => {
    base = `http://127.0.0.1:${server.address().port}`;
    ok({
      url: base,
      mcpUrl: `${base}/mcp`,
      issuer: base,
      seed,
      revoke(access) {
        state.access.delete(access);
      },
      debug: () => ({ grants: state.grants, mcp: state.mcp }),
      close: () => new Promise((done) => { server.closeAllConnections(); server.close(() => done()); }),
    });
  }));
}
