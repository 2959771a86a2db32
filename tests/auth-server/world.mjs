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
// endpoint sends no CORS headers, as many authorization servers do), `user`/`password`,
// `dpop` (issue 16; default false: oidc-provider then lists no DPoP algorithm): the
// authorization server issues DPoP-bound tokens (RFC 9449) when asked, with its nonce
// (`use_dpop_nonce`, §8) when `dpopNonce`; the resource server then verifies the proof of
// every request (signature, the token's key thumbprint, htm, htu, ath, iat, a jti never
// seen before, and its own nonce when `rsNonce`, §9), refuses a DPoP-bound token sent as
// Bearer (§7.2), and records each proof in `w.proofs`. `rsNonceRotate` (with `rsNonce`):
// each nonce is taken once; every answer to a valid proof carries the next one
// (`DPoP-Nonce` on the success, RFC 9449 §9, as §8.2 allows the authorization server).
import { createServer, request as httpRequest } from 'node:http';
import { randomBytes, createHash, createPublicKey, verify as verifySignature } from 'node:crypto';

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

const b64u = (b) => Buffer.from(b).toString('base64url');
const sha256 = (s) => createHash('sha256').update(s).digest();

/** RFC 7638 thumbprint of an EC public JWK. */
export function thumbprint(jwk) {
  return b64u(sha256(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y })));
}

/** The claims of a compact JWT (not verified: the authorization server does that), or null. */
function jwtClaims(jwt) {
  try {
    return JSON.parse(Buffer.from(String(jwt).split('.')[1], 'base64url'));
  } catch {
    return null;
  }
}

/** Checks a DPoP proof (RFC 9449 §4.3) for `method url` with `token`; the claims, and why
 * it is refused (`error`, null when valid). `jtis`: the ids seen (a replay is refused). */
export function checkProof(proof, { method, url, token, jkt, jtis, nonce }) {
  const parts = String(proof || '').split('.');
  if (parts.length !== 3) return { error: 'no proof, or not a compact JWS' };
  let header, claims;
  try {
    header = JSON.parse(Buffer.from(parts[0], 'base64url'));
    claims = JSON.parse(Buffer.from(parts[1], 'base64url'));
  } catch {
    return { error: 'not JSON' };
  }
  const out = { header, claims, thumbprint: null, error: null };
  const fail = (error) => ({ ...out, error });
  if (header.typ !== 'dpop+jwt' || header.alg !== 'ES256' || !header.jwk || header.jwk.d) return fail('bad header');
  let ok = false;
  try {
    const key = createPublicKey({ key: header.jwk, format: 'jwk' });
    ok = verifySignature('sha256', Buffer.from(`${parts[0]}.${parts[1]}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(parts[2], 'base64url'));
  } catch {}
  if (!ok) return fail('bad signature');
  out.thumbprint = thumbprint(header.jwk);
  if (out.thumbprint !== jkt) return fail('the proof key is not the token\'s (cnf.jkt)');
  if (claims.htm !== method) return fail(`htm ${claims.htm} is not ${method}`);
  if (claims.htu !== url) return fail(`htu ${claims.htu} is not ${url}`);
  if (claims.ath !== b64u(sha256(token))) return fail('ath is not the token\'s hash');
  if (typeof claims.iat !== 'number' || Math.abs(claims.iat - Date.now() / 1000) > 60) return fail('iat out of window');
  if (typeof claims.jti !== 'string' || jtis.has(claims.jti)) return fail('jti missing or replayed');
  jtis.add(claims.jti);
  if (nonce && claims.nonce !== nonce) return fail('use_dpop_nonce');
  return out;
}

export async function startWorld({
  consoleOrigin, upstream, accessTokenTTL = 3600, tokenCors = true, user = USER,
  dpop = false, dpopNonce = false, rsNonce = false, rsNonceRotate = false, assertionClient = null,
} = {}) {
  // Two listeners: the authorization server and the resource server (two origins).
  const asServer = createServer();
  const rsServer = createServer();
  const issuer = await listen(asServer);
  const rsBase = await listen(rsServer);
  const mcpUrl = `${rsBase}/mcp`;
  const mismatchUrl = `${rsBase}/elsewhere/mcp`;
  const seen = [];
  const proofs = [];
  const jtis = new Set();
  let RS_NONCE = `rs-${randomBytes(8).toString('hex')}`;
  const tokenRequests = [];
  const interactions = [];

  const provider = new Provider(issuer, {
    // `assertionClient` ({ clientId, jwk }: a public JWK): a pre-registered client of the
    // client credentials grant that authenticates with private_key_jwt (RFC 7523).
    clients: assertionClient
      ? [{
        client_id: assertionClient.clientId,
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_signing_alg: 'ES256',
        jwks: { keys: [assertionClient.jwk] },
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
      }]
      : [],
    cookies: { keys: [randomBytes(16).toString('hex')] },
    scopes: ['openid', 'offline_access'],
    claims: { openid: ['sub'], profile: ['name'] },
    findAccount: (ctx, id) => (id === user.login ? { accountId: id, claims: () => ({ sub: id, name: user.name }) } : undefined),
    features: {
      dPoP: dpop
        ? { enabled: true, nonceSecret: randomBytes(32), requireNonce: () => dpopNonce }
        : { enabled: false },
      devInteractions: { enabled: false },
      clientCredentials: { enabled: Boolean(assertionClient) },
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
        error_description: body.error_description,
        refresh_token_issued: body.refresh_token,
        access_token_issued: body.access_token,
        token_type: body.token_type,
        dpop: ctx.get('dpop') || null,
        // The client assertion's claims (private_key_jwt), as sent.
        assertion: b.client_assertion ? jwtClaims(b.client_assertion) : null,
        status: ctx.status,
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
    'Access-Control-Expose-Headers': 'WWW-Authenticate, Mcp-Session-Id, DPoP-Nonce',
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
    const [, scheme, token] = (authorization && /^(Bearer|DPoP) (\S+)$/.exec(authorization)) || [];
    // A person's token, or a client's own (the client credentials grant).
    const at = token ? (await provider.AccessToken.find(token)) ?? (await provider.ClientCredentials.find(token)) : undefined;
    // A DPoP-bound token only with the DPoP scheme and a valid proof of its key (RFC 9449
    // §7.1, §7.2); a Bearer one only as Bearer.
    let proof = null;
    if (at?.jkt && scheme === 'DPoP') {
      proof = checkProof(req.headers.dpop, {
        method: req.method, url: `${rsBase}${url.pathname}`, token, jkt: at.jkt, jtis, nonce: rsNonce ? RS_NONCE : null,
      });
      proofs.push({ ...proof, token, at: Date.now() });
    }
    const bound = at?.jkt ? scheme === 'DPoP' && proof && !proof.error : scheme === 'Bearer';
    // Only a live token (its own expiry, to the second: oidc-provider's lookup allows some
    // clock skew) issued for this URL (its audience), with the scope.
    const valid = Boolean(at && bound && at.exp * 1000 > Date.now() && url.pathname === '/mcp' && at.aud === mcpUrl
      && String(at.scope || '').split(' ').includes(SCOPE));
    seen.push({ path: url.pathname, query: url.search, method: req.method, authorization, token: token || null, valid, at: Date.now() });
    if (!valid) {
      const meta = `${rsBase}/.well-known/oauth-protected-resource${url.pathname}`;
      const nonceAsked = proof?.error === 'use_dpop_nonce';
      const error = nonceAsked ? ', error="use_dpop_nonce"' : token ? ', error="invalid_token"' : '';
      // RFC 9449 §7.1: a DPoP server's challenge is DPoP (the client reads its parameters).
      const params = `resource_metadata="${meta}", scope="${SCOPE}"${error}`;
      res.writeHead(401, {
        ...cors(req),
        'WWW-Authenticate': dpop ? `DPoP algs="ES256", ${params}` : `Bearer ${params}`,
        ...(nonceAsked ? { 'DPoP-Nonce': RS_NONCE } : {}),
        'Content-Type': 'application/json',
      });
      res.end(JSON.stringify({ error: nonceAsked ? 'use_dpop_nonce' : token ? 'invalid_token' : 'unauthorized' }));
      return;
    }
    // The nonce taken: the next one comes with this answer.
    const next = proof && rsNonce && rsNonceRotate ? (RS_NONCE = `rs-${randomBytes(8).toString('hex')}`) : null;
    const headers = { ...req.headers, host: up.host };
    delete headers.authorization; // the token is for this server, not passed upstream
    delete headers.dpop;
    delete headers.origin;
    const out = httpRequest({ hostname: up.hostname, port: up.port, path: up.pathname + url.search, method: req.method, headers }, (r) => {
      const h = { ...r.headers };
      for (const k of Object.keys(h)) if (k.startsWith('access-control-')) delete h[k];
      res.writeHead(r.statusCode, { ...h, ...cors(req), ...(next ? { 'DPoP-Nonce': next } : {}) });
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
  return { issuer, mcpUrl, mismatchUrl, rsBase, provider, seen, proofs, tokenRequests, interactions, close };
}
