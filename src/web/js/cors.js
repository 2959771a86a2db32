// CORS diagnosis for the wasm shell (src/web/fetch.rs): what a server must allow so that a
// page on another origin can talk to it. Plain JS because it is mostly awaiting fetches
// (several times smaller than the same in wasm).
//
// A browser hides why a cross-origin exchange failed: fetch rejects with a bare TypeError
// whether the network is down or the server's CORS policy refused the request, and a
// response header the server did not expose (WWW-Authenticate on a 401) reads as absent.
// Transport facts only (Fetch standard, "CORS protocol"); no MCP decision is made here.

/** The names of the request headers that need `Access-Control-Allow-Headers` (those not
 *  CORS-safelisted: Accept, Accept-Language, Content-Language, and Content-Type with a
 *  form or text/plain value are), each once, in order. */
export function needingPermission(headers) {
  const out = [];
  for (const [n, v] of headers) {
    const l = n.toLowerCase();
    const safe =
      /^(accept|accept-language|content-language)$/.test(l) ||
      (l === 'content-type' && /^(application\/x-www-form-urlencoded|multipart\/form-data|text\/plain)\s*(;|$)/i.test(v));
    if (!safe && !out.some((o) => o.toLowerCase() === l)) out.push(n);
  }
  return out;
}

/** The page's origin when `url` is cross-origin in a browser context (pages and workers
 *  have `location`; Node and edge runtimes have neither it nor CORS). */
export function crossOrigin(url) {
  const page = globalThis.location?.origin;
  if (typeof page !== 'string') return undefined;
  let server;
  try {
    server = new URL(url).origin;
  } catch {
    return undefined;
  }
  // "null" (an opaque origin: file:, a sandboxed frame) is cross-origin to everything.
  return page !== server ? page : undefined;
}

/** One HEAD probe (bounded to 3 s, the body never read): true when fetch resolved. */
async function probe(fetchFn, thisArg, url, mode, headers) {
  const c = new AbortController();
  const t = setTimeout(() => c.abort(), 3000);
  try {
    await fetchFn.call(thisArg, url, { method: 'HEAD', mode, cache: 'no-store', signal: c.signal, headers });
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(t);
    c.abort();
  }
}

/**
 * After a rejected cross-origin fetch: the CORS finding, or null when it is not CORS.
 * 1. a HEAD with the request's own headers (the same preflight): it passes → CORS is not
 *    the problem (a network blip, a server restarting) → null;
 * 2. a no-cors HEAD (needs no permission; an opaque answer): it fails → unreachable → null;
 * 3. a plain HEAD (no preflight): it passes → the origin is allowed but the preflight refused
 *    the request's headers ('preflight-refused'); it fails → 'origin-not-allowed'.
 */
export async function diagnose(fetchFn, thisArg, url, headers) {
  if (await probe(fetchFn, thisArg, url, 'cors', headers)) return null;
  if (!(await probe(fetchFn, thisArg, url, 'no-cors', []))) return null;
  return (await probe(fetchFn, thisArg, url, 'cors', [])) ? 'preflight-refused' : 'origin-not-allowed';
}

/**
 * The CorsError's `{ message, data }` for a finding: `data.required` lists the response
 * headers the server must send (one `Name: value` line each), with `origin` (the page),
 * `serverOrigin`, `allowHeaders`, `allowMethods`, `exposeHeaders` and `reason`.
 */
export function corsFacts(reason, page, url, method, headers, status) {
  let server = url;
  try {
    server = new URL(url).origin;
  } catch {}
  const allowHeaders = needingPermission(headers);
  const allowMethods = ['GET', 'HEAD', 'POST'].includes(method) ? [] : [method];
  const exposeHeaders = [];
  const required = [];
  let what;
  if (reason === 'www-authenticate-not-exposed') {
    exposeHeaders.push('WWW-Authenticate');
    required.push('Access-Control-Expose-Headers: WWW-Authenticate');
    what = `a 401 from ${server} hides WWW-Authenticate from ${page}`;
  } else if (reason === 'dpop-nonce-not-exposed') {
    // RFC 9449 §9: a use_dpop_nonce refusal whose DPoP-Nonce the page cannot read.
    exposeHeaders.push('WWW-Authenticate', 'DPoP-Nonce');
    required.push('Access-Control-Expose-Headers: WWW-Authenticate, DPoP-Nonce');
    what = `a 401 from ${server} asks for a DPoP nonce but hides DPoP-Nonce from ${page}`;
  } else {
    required.push(`Access-Control-Allow-Origin: ${page}`);
    if (allowHeaders.length) required.push(`Access-Control-Allow-Headers: ${allowHeaders.join(', ')}`);
    if (allowMethods.length) required.push(`Access-Control-Allow-Methods: ${allowMethods.join(', ')}`);
    what = `${server} ${reason === 'preflight-refused' ? 'allows' : 'does not allow'} ${page}${reason === 'preflight-refused' ? ' but its preflight refused the request headers' : ''} (${method} ${url})`;
  }
  const data = { reason, origin: page, serverOrigin: server, url, allowHeaders, allowMethods, exposeHeaders, required };
  if (status) data.status = status;
  return { message: `blocked by CORS: ${what}; the server must send ${required.join('; ')}`, data };
}
