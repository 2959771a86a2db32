// A real OAuth world for the sign-in tests (issue 17): an authorization server
// (oidc-provider, OpenID-certified) with a test user and its own login and consent pages,
// and in front of the example MCP server (www/server/example_server.py) a resource
// server that publishes Protected Resource Metadata and lets through only requests that
// carry an access token issued for its URL. Everything runs in the calling process, on
// loopback and free ports, so a test can read what each server saw.
//
//   const w = await startWorld({ consoleOrigin, upstream });   // upstream: the MCP server's URL
//   w.mcpUrl       the protected MCP endpoint (401 without a token)
//   w.mismatchUrl  an MCP endpoint whose metadata names another resource
//   w.issuer       the authorization server
//   w.seen         what the resource server received: { path, query, authorization, token, valid }
//   w.tokenRequests  the token endpoint's requests: { grant_type, refresh_token?, ok, refresh_token_issued? }
//   w.close()
//
// Options: `accessTokenTTL` (seconds, default 3600), `tokenCors` (false: the token
// endpoint sends no CORS headers, as many authorization servers do), `user`/`password`.
import { createServer, request as httpRequest } from 'node:http';
import { randomBytes } from 'node:crypto';

// oidc-provider prints a warning on Node 20 (it wants 22 LTS); it works on 20.
const { default: Provider, errors } = await import('oidc-provider');

export const USER = { login: 'ada', password: 'analytical-engine', name: 'Ada Lovelace' };
export const SCOPE = 'mcp:tools';

const listen = (server) => new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(`http://127.0.0.1:${server.address().port}`)));

function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title, body) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>body{font:15px system-ui;margin:2rem;max-width:26rem}label{display:block;margin:.6rem 0}input{display:block;width:100%;padding:.3rem}
button{margin:.8rem .5rem 0 0;padding:.35rem .9rem}.err{color:#b3261e}</style></head><body>${body}</body></html>`;
}

async function readForm(req) {
  let text = '';
  for await (const c of req) text += c;
  return Object.fromEntries(new URLSearchParams(text));
}

export async function startWorld({ consoleOrigin, upstream, accessTokenTTL = 3600, tokenCors = true, user = USER } = {}) {
  // Two listeners: the authorization server and the resource server (two origins).
  const asServer = createServer();
  const rsServer = createServer();
  const issuer = await listen(asServer);
  const rsBase = await listen(rsServer);
  const mcpUrl = `${rsBase}/mcp`;
  const mismatchUrl = `${rsBase}/elsewhere/mcp`;
  const seen = [];
  const tokenRequests = [];
  const interactions = [];

  const provider = new Provider(issuer, {
    clients: [],
    cookies: { keys: [randomBytes(16).toString('hex')] },
    scopes: ['openid', 'offline_access'],
    claims: { openid: ['sub'], profile: ['name'] },
    findAccount: (ctx, id) => (id === user.login ? { accountId: id, claims: () => ({ sub: id, name: user.name }) } : undefined),
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (ctx, client, oneOf) => oneOf,
        useGrantedResource: () => true,
        // Only the protected MCP endpoint is a resource this server issues tokens for.
        getResourceServerInfo: (ctx, resource) => {
          if (resource !== mcpUrl) throw new errors.InvalidTarget(`unknown resource ${resource}`);
          return { scope: SCOPE, audience: mcpUrl, accessTokenTTL, accessTokenFormat: 'opaque' };
        },
      },
    },
    pkce: { required: () => true },
    // Refresh tokens for the public browser client, rotated on every use (the default for
    // public clients); a reused one is refused and revokes the grant.
    issueRefreshToken: (ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: () => false,
    rotateRefreshToken: () => true,
    ttl: { AccessToken: accessTokenTTL, RefreshToken: 24 * 3600, Grant: 24 * 3600, Session: 24 * 3600, Interaction: 600 },
    clientBasedCORS: (ctx, origin) => origin === consoleOrigin && (tokenCors || ctx.oidc.route !== 'token'),
    interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = page('Error', `<h1>Error</h1><p class="err">${esc(out.error)}: ${esc(out.error_description || '')}</p>`);
    },
  });
  provider.on('server_error', (ctx, err) => console.error('oidc-provider server_error:', err));

  // oidc-provider answers no CORS on its registration endpoint: a browser client that
  // registers itself needs it (README "Sign in from a browser app").
  provider.use(async (ctx, next) => {
    if (ctx.path === '/reg' && ctx.get('origin') === consoleOrigin) {
      ctx.set('Access-Control-Allow-Origin', consoleOrigin);
      ctx.set('Vary', 'Origin');
      if (ctx.method === 'OPTIONS') {
        ctx.set('Access-Control-Allow-Methods', 'POST');
        ctx.set('Access-Control-Allow-Headers', 'Content-Type, Accept');
        ctx.status = 204;
        return;
      }
    }
    if (ctx.path === '/token' && ctx.method === 'POST') {
      await next();
      const b = ctx.oidc?.params || {};
      const body = typeof ctx.body === 'object' && ctx.body ? ctx.body : {};
      tokenRequests.push({
        grant_type: b.grant_type,
        refresh_token: b.refresh_token,
        ok: ctx.status === 200,
        error: body.error,
        refresh_token_issued: body.refresh_token,
        access_token_issued: body.access_token,
        at: Date.now(),
      });
      return;
    }
    await next();
  });

  // The login and consent pages (the person's step): plain HTML forms.
  provider.use(async (ctx, next) => {
    const m = /^\/interaction\/([^/]+)(?:\/(login|consent|deny))?$/.exec(ctx.path);
    if (!m) return next();
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const { prompt, params, uid } = details;
    const client = await provider.Client.find(params.client_id);
    const clientName = client?.clientName || params.client_id;
    if (ctx.method === 'GET') {
      ctx.type = 'html';
      if (prompt.name === 'login') {
        ctx.body = page('Sign in', `<h1>Sign in</h1><p>to continue to <b>${esc(clientName)}</b></p>
<form method="post" action="/interaction/${esc(uid)}/login">
<label>Username <input name="login" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button></form>`);
      } else {
        const res = Object.entries(prompt.details.missingResourceScopes || {}).map(([r, s]) => `<li>${esc(s.join(' '))} on ${esc(r)}</li>`).join('');
        ctx.body = page('Allow access', `<h1>Allow access</h1><p><b>${esc(clientName)}</b> asks for:</p><ul>${res}
${(prompt.details.missingOIDCScope || []).map((s) => `<li>${esc(s)}</li>`).join('')}</ul>
<form method="post" action="/interaction/${esc(uid)}/consent"><button type="submit">Allow</button></form>
<form method="post" action="/interaction/${esc(uid)}/deny"><button type="submit">Deny</button></form>`);
      }
      interactions.push({ prompt: prompt.name, uid });
      return;
    }
    let result;
    if (m[2] === 'login') {
      const form = await readForm(ctx.req);
      if (form.login !== user.login || form.password !== user.password) {
        ctx.type = 'html';
        ctx.status = 401;
        ctx.body = page('Sign in', `<h1>Sign in</h1><p class="err">Wrong username or password.</p>
<form method="post" action="/interaction/${esc(uid)}/login">
<label>Username <input name="login" required></label><label>Password <input name="password" type="password" required></label>
<button type="submit">Sign in</button></form>`);
        return;
      }
      result = { login: { accountId: user.login } };
    } else if (m[2] === 'consent') {
      const grant = details.grantId
        ? await provider.Grant.find(details.grantId)
        : new provider.Grant({ accountId: details.session.accountId, clientId: params.client_id });
      if (prompt.details.missingOIDCScope) grant.addOIDCScope(prompt.details.missingOIDCScope.join(' '));
      for (const [r, s] of Object.entries(prompt.details.missingResourceScopes || {})) grant.addResourceScope(r, s.join(' '));
      result = { consent: { grantId: await grant.save() } };
    } else {
      result = { error: 'access_denied', error_description: 'The person denied access.' };
    }
    const to = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: false });
    ctx.status = 303;
    ctx.redirect(to);
  });

  asServer.on('request', provider.callback());

  // ---------------------------------------------------------------- the resource server
  const up = new URL(upstream);
  const cors = (req) => ({
    'Access-Control-Allow-Origin': req.headers.origin === consoleOrigin ? consoleOrigin : 'null',
    'Access-Control-Expose-Headers': 'WWW-Authenticate, Mcp-Session-Id',
    Vary: 'Origin',
  });
  const prm = (resource) => JSON.stringify({
    resource,
    authorization_servers: [issuer],
    scopes_supported: [SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'MCP example server (OAuth)',
  });
  rsServer.on('request', async (req, res) => {
    const url = new URL(req.url, rsBase);
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        ...cors(req),
        'Access-Control-Allow-Methods': 'GET, POST, DELETE',
        'Access-Control-Allow-Headers': req.headers['access-control-request-headers'] || '',
        'Access-Control-Max-Age': '600',
      });
      res.end();
      return;
    }
    if (url.pathname === '/.well-known/oauth-protected-resource/mcp' || url.pathname === '/.well-known/oauth-protected-resource/elsewhere/mcp') {
      // The second one names a resource that is not the URL it protects.
      const resource = url.pathname.endsWith('/elsewhere/mcp') ? `${rsBase}/another/mcp` : mcpUrl;
      res.writeHead(200, { ...cors(req), 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
      res.end(prm(resource));
      return;
    }
    if (url.pathname !== '/mcp' && url.pathname !== '/elsewhere/mcp') {
      res.writeHead(404, cors(req));
      res.end();
      return;
    }
    const authorization = req.headers.authorization || null;
    const token = authorization && /^Bearer (\S+)$/.exec(authorization)?.[1];
    const at = token ? await provider.AccessToken.find(token) : undefined;
    // Only a live token (its own expiry, to the second: oidc-provider's lookup allows some
    // clock skew) issued for this URL (its audience), with the scope.
    const valid = Boolean(at && at.exp * 1000 > Date.now() && url.pathname === '/mcp' && at.aud === mcpUrl
      && String(at.scope || '').split(' ').includes(SCOPE));
    seen.push({ path: url.pathname, query: url.search, method: req.method, authorization, token: token || null, valid, at: Date.now() });
    if (!valid) {
      const meta = `${rsBase}/.well-known/oauth-protected-resource${url.pathname}`;
      const error = token ? ', error="invalid_token"' : '';
      res.writeHead(401, {
        ...cors(req),
        'WWW-Authenticate': `Bearer resource_metadata="${meta}", scope="${SCOPE}"${error}`,
        'Content-Type': 'application/json',
      });
      res.end(JSON.stringify({ error: token ? 'invalid_token' : 'unauthorized' }));
      return;
    }
    const headers = { ...req.headers, host: up.host };
    delete headers.authorization; // the token is for this server, not passed upstream
    delete headers.origin;
    const out = httpRequest({ hostname: up.hostname, port: up.port, path: up.pathname + url.search, method: req.method, headers }, (r) => {
      const h = { ...r.headers };
      for (const k of Object.keys(h)) if (k.startsWith('access-control-')) delete h[k];
      res.writeHead(r.statusCode, { ...h, ...cors(req) });
      r.pipe(res);
    });
    out.on('error', (e) => {
      if (!res.headersSent) res.writeHead(502, cors(req));
      res.end(String(e.message));
    });
    req.pipe(out);
  });

  const close = () => Promise.all([asServer, rsServer].map((s) => new Promise((ok) => {
    s.closeAllConnections();
    s.close(() => ok());
  })));
  return { issuer, mcpUrl, mismatchUrl, rsBase, provider, seen, tokenRequests, interactions, close };
}
