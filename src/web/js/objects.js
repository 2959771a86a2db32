// The objects of the JS API that the wasm module makes for the host: the error classes
// (every error the client throws), the facts a CorsError carries (the CORS diagnosis), and
// the Subscription that McpClient#listen returns.
// Plain JS: a class hierarchy with readable names, and an async iterator, are most natural
// here.

// Error classes of mcp-wasm-client. Every error the client throws is an instance of
// McpClientError with a `name` saying its kind, plus `code` and `data` where they apply
// (`status` on HttpError). Errors answered by the server (JSON-RPC errors) extend McpError.

export class McpClientError extends Error {
  constructor(message, options) {
    super(message, options && options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'McpClientError';
    if (options && options.code !== undefined && options.code !== null) this.code = options.code;
    if (options && options.data !== undefined && options.data !== null) this.data = options.data;
    if (options && options.status !== undefined && options.status !== null) this.status = options.status;
  }
}

export class McpError extends McpClientError {
  constructor(message, options) { super(message, options); this.name = 'McpError'; }
}

const classes = { McpClientError, McpError };

// Kinds that come from a JSON-RPC error of the server extend McpError.
const FROM_SERVER = new Set([
  'MissingRequiredClientCapabilityError',
  'UnsupportedProtocolVersionError',
  'TaskNotFoundError',
]);

const NAMES = [
  'HttpError', 'TimeoutError', 'AbortError', 'NetworkError', 'CorsError', 'InvalidResultError',
  'ProtocolError', 'MissingRequiredClientCapabilityError', 'UnsupportedProtocolVersionError',
  'OutputValidationError', 'InputRequiredError', 'InputValidationError', 'HandlerError',
  'CapabilityError', 'TaskNotFoundError', 'TaskExpiredError', 'TaskCancelledError',
  'TaskTimeoutError', 'TaskError', 'ConfigError', 'AuthorizationError',
];

for (const name of NAMES) {
  const Base = FROM_SERVER.has(name) ? McpError : McpClientError;
  // A named class expression per kind, so stack traces and `constructor.name` read well.
  const C = ({ [name]: class extends Base {
    constructor(message, options) { super(message, options); this.name = name; }
  } })[name];
  classes[name] = C;
}

/** Used by the wasm module: builds the error of a kind. */
export function makeError(name, message, code, data, status, cause) {
  const C = classes[name] || McpClientError;
  return new C(message, { code, data, status, cause });
}

/** The error classes, for the package entry to export. */
export function errorClasses() {
  return classes;
}

// The CORS diagnosis: what a server must allow so that a page on another origin can talk
// to it, the facts of a CorsError. A browser hides why a cross-origin exchange failed:
// fetch rejects with a bare TypeError whether the network is down or the server's CORS
// policy refused the request, and a response header the server did not expose
// (WWW-Authenticate on a 401) reads as absent. Transport facts only (Fetch standard, "CORS
// protocol"); no MCP decision is made here. fetch.js's runner calls it.

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

/** One HEAD probe (bounded to 3 s, the body never read): true when fetch resolved. None is
 *  sent while the context says it is offline (`navigator.onLine` false): it would fail, and
 *  an offline client sends no request (issue 13), so the rejection is a network failure. */
async function probe(fetchFn, thisArg, url, mode, headers) {
  if (globalThis.navigator?.onLine === false) return false;
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
 * 3. a plain HEAD (no preflight): it fails → 'origin-not-allowed'; it passes → the origin is
 *    allowed, and the preflight refused the request's headers, unless the server was only
 *    just back: a server restarting fails probe 1 and answers 2 and 3. So probe 1 once
 *    more: it passes → null (a network failure, retried as such); it fails with the server
 *    up → 'preflight-refused'. A CORS finding is final for the call, so it must not be
 *    made of a restart (tests/faults: `restart-keep` met it).
 */
export async function diagnose(fetchFn, thisArg, url, headers) {
  if (await probe(fetchFn, thisArg, url, 'cors', headers)) return null;
  if (!(await probe(fetchFn, thisArg, url, 'no-cors', []))) return null;
  if (!(await probe(fetchFn, thisArg, url, 'cors', []))) return 'origin-not-allowed';
  return (await probe(fetchFn, thisArg, url, 'cors', headers)) ? null : 'preflight-refused';
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

/** The argument of a call's `onProgress`: `{ progress, total?, message? }`. */
export function progressInfo(progress, total, message) {
  const o = { progress };
  if (total !== undefined) o.total = total;
  if (message !== undefined) o.message = message;
  return o;
}

// The Subscription object returned by McpClient#listen: the granted filter, a callback
// and an async iterator over notifications, `closed`, and `close()`. Plain JS because an
// async iterator is most natural here; the wasm module drives it through the _methods.

export class Subscription {
  constructor(close, onNotification, onReconnect) {
    this._close = close;
    this._onNotification = onNotification;
    this._onReconnect = onReconnect;
    this._queue = [];
    this._waiters = [];
    this._ended = false;
    this._error = undefined;
    this.acknowledged = undefined;
    this.subscriptionId = undefined;
    this.reconnects = 0;
    this.closed = new Promise((resolve, reject) => { this._resolveClosed = resolve; this._rejectClosed = reject; });
    // `closed` rejections are also delivered through the iterator; avoid unhandled-rejection noise.
    this.closed.catch(() => {});
  }

  /** Closes the stream (the subscription ends; `closed` resolves). */
  close() {
    if (this._ended) return;
    this._close();
  }

  [Symbol.asyncIterator]() { return this; }

  /** The next notification as `{ method, params }`. */
  next() {
    if (this._queue.length > 0) return Promise.resolve({ value: this._queue.shift(), done: false });
    if (this._ended) {
      return this._error ? Promise.reject(this._error) : Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve, reject) => this._waiters.push({ resolve, reject }));
  }

  return() {
    this.close();
    return Promise.resolve({ value: undefined, done: true });
  }

  _ack(granted, subscriptionId) {
    this.acknowledged = granted;
    this.subscriptionId = subscriptionId;
  }

  _push(method, params) {
    const n = { method, params };
    if (this._onNotification) {
      try { this._onNotification(method, params); } catch (e) { queueMicrotask(() => { throw e; }); }
    }
    const w = this._waiters.shift();
    if (w) w.resolve({ value: n, done: false }); else this._queue.push(n);
  }

  _reconnecting(attempt, delayMs, reason) {
    const info = { attempt, delayMs, reason };
    this.reconnects += 1;
    if (this._onReconnect) {
      try { this._onReconnect(info); } catch (e) { queueMicrotask(() => { throw e; }); }
    }
  }

  _end(error) {
    if (this._ended) return;
    this._ended = true;
    this._error = error;
    for (const w of this._waiters.splice(0)) {
      if (error) w.reject(error); else w.resolve({ value: undefined, done: true });
    }
    if (error) this._rejectClosed(error); else this._resolveClosed();
  }
}
