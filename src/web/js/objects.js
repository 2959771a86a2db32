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

/** Notifications a subscription with a callback keeps for its iterator, unread (`_push`). */
const UNREAD_MAX = 1000;

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
    if (w) w.resolve({ value: n, done: false });
    else {
      this._queue.push(n);
      // With a callback, which has seen each, the iterator keeps only the latest UNREAD_MAX:
      // a subscription used through its callback alone must not hold every notification
      // of a long-lived page. Without one, the iterator is the only reader: all are kept.
      if (this._onNotification && this._queue.length > UNREAD_MAX) this._queue.shift();
    }
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

// The host's option objects: `new McpClient(url, options)`'s and a call's. Each option is
// checked as it is read, in a fixed order, and what was read goes to the wasm in an array
// of fixed slots (`web::options` reads them by index). Read here rather than in the wasm
// (issue 14, target 4): a type check and its message are a few bytes of JS, where the
// wasm needed a crossing, a conversion and a formatted error for each name (BENCHMARKS.md,
// the fifty-first session). What the engine decides (clientInfo, extensions, the
// elicitation and sampling declarations, the whole configuration's consistency) stays in
// the wasm's core.

const LIMIT_NAMES = ['maxEventBytes', 'maxBodyBytes', 'maxConcurrentInputs', 'maxInputRequests',
  'listenMaxRetries', 'listenBackoffMs', 'listenMaxBackoffMs', 'listenAckTimeoutMs'];
const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
/** The slot that holds the slot of the first misfit option (the next one holds its ConfigError). */
const MISFIT = 30;

const given = (v) => v !== undefined && v !== null;
const field = (o, k) => (o !== null && typeof o === 'object' ? o[k] : undefined);
const misfit = (message) => { throw makeError('ConfigError', message); };

/** A thrown value's description (what the shell's `describe` gives); fetch.js's too. */
export function describe(e) {
  if (typeof e === 'string') return e;
  const m = e?.message;
  return typeof m === 'string' ? m : '(non-error value)';
}

/** Option `k` of `o` when given; a ConfigError `${k} must be ${what}` when not `ok`. */
function checked(o, k, ok, what) {
  const v = field(o, k);
  if (given(v) && !ok(v)) misfit(`${k} must be ${what}`);
  return given(v) ? v : undefined;
}
const str = (o, k) => checked(o, k, (v) => typeof v === 'string', 'a string');
const bool = (o, k) => checked(o, k, (v) => typeof v === 'boolean', 'a boolean');
const fn = (o, k) => checked(o, k, (v) => typeof v === 'function', 'a function');
// A count or a duration: Infinity is allowed (the largest; `hiddenPollIntervalMs` reads it
// as "pause").
const num = (o, k) => checked(o, k, (v) => typeof v === 'number' && v >= 0, 'a non-negative number');
/** `values` as a message lists them: `'a', 'b' or c` (strings quoted). */
const choices = (values) => values.map((v) => (typeof v === 'string' ? `'${v}'` : v)).join(', ').replace(/, (?=[^,]*$)/, ' or ');
/** String option `k`, one of `values` (`undefined` when not given); `prefix` names its group. */
function oneOf(o, k, values, prefix = '') {
  const v = str(o, k);
  if (v !== undefined && !values.includes(v)) misfit(`${prefix}${k} must be ${choices(values)}`);
  return v;
}
/** Option `k`: one of `values`, among them 'auto' (its value when not given). */
function autoOr(o, k, values, prefix = '') {
  const v = field(o, k);
  if (given(v) && !values.includes(v)) misfit(`${prefix}${k} must be ${choices(values)}`);
  return given(v) ? v : 'auto';
}

/** `headers`: a plain object, a `Headers` (or any object with `entries()`), or an array of
 *  `[name, value]` pairs; as one flat array of names and values. */
function headerList(v) {
  if (!given(v)) return undefined;
  let pairs;
  if (Array.isArray(v)) pairs = v;
  else if (Object(v) === v && typeof v.entries === 'function') {
    try { pairs = Array.from(v.entries()); } catch { misfit('headers.entries() failed'); }
  } else if (typeof v === 'object') pairs = Object.entries(v);
  else misfit('headers must be an object, a Headers or an array of pairs');
  const out = [];
  for (const p of pairs) {
    if (!Array.isArray(p)) misfit('headers entries must be [name, value] pairs');
    if (typeof p[0] !== 'string') misfit('header names must be strings');
    if (typeof p[1] !== 'string') misfit(`header ${p[0]} must have a string value`);
    out.push(p[0], p[1]);
  }
  return out;
}

/** `elicitation` / `sampling`: `undefined` when not given, else its two booleans, read only
 *  when there is a handler to use them. */
function named(o, k, keys, handler) {
  const v = field(o, k);
  if (!given(v)) return undefined;
  return handler ? keys.map((n) => bool(v, n)) : [];
}

/** `taskStore`: 'indexeddb' (where IndexedDB exists, else 'memory'), 'memory', 'none'
 *  (`null`), or a store object; `undefined` when not given. */
function taskStore(v) {
  if (!given(v)) return undefined;
  if (typeof v === 'string') {
    if (v === 'none') return null;
    if (v === 'indexeddb' || v === 'memory') return v;
    misfit("taskStore must be 'indexeddb', 'memory', 'none' or a store object");
  }
  if (typeof v !== 'object' || !['get', 'put', 'delete', 'list'].every((m) => typeof v[m] === 'function')) {
    misfit('a taskStore object must have get, put, delete and list functions');
  }
  return v;
}

/** `limits`: its eight numbers in `LIMIT_NAMES`' order. */
function limits(v) {
  if (!given(v)) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) misfit('limits must be an object');
  // A misspelt limit would otherwise be ignored silently. (Names whose value JSON cannot
  // hold, such as a function, are not options: the wasm read the object as JSON.)
  if (Object.keys(v).some((k) => !LIMIT_NAMES.includes(k) && v[k] !== undefined && typeof v[k] !== 'function')) {
    misfit(`limits has a name that is not a limit (the limits are ${LIMIT_NAMES.join(', ')})`);
  }
  return LIMIT_NAMES.map((k) => num(v, k));
}

/** `auth: { grant?, onAuthorize, redirectUri, storage?, dpop?, privateKey?, algorithm?, keyId?,
 *  clientName?, applicationType?, clientId?, clientSecret?, issuer?, clientMetadataUrl?,
 *  scope? }`, in that order (checked further by the engine). With `grant:
 *  'client_credentials'` there is no person: no `redirectUri`, no `onAuthorize`. */
function auth(a) {
  if (!given(a)) return undefined;
  if (typeof a !== 'object') misfit('auth must be an object');
  // Any other `grant` is refused by the engine: it lacks what the authorization code needs.
  const credentials = str(a, 'grant') === 'client_credentials';
  const onAuthorize = fn(a, 'onAuthorize');
  const redirectUri = str(a, 'redirectUri');
  if (!credentials && !(onAuthorize && redirectUri !== undefined)) {
    misfit("auth needs redirectUri and onAuthorize (the person's step), or grant: 'client_credentials'");
  }
  const storage = field(a, 'storage');
  if (given(storage)) for (const m of ['get', 'set']) fn(storage, m) || misfit(`auth.storage.${m} must be a function`);
  // DPoP (RFC 9449): 'auto' (the default), true or false.
  const dpop = autoOr(a, 'dpop', [true, false, 'auto'], 'auth.');
  // private_key_jwt (RFC 7523): a CryptoKey or a private JWK, its `keyId` and `algorithm`.
  const key = field(a, 'privateKey');
  let algorithm, keyId;
  if (given(key)) {
    if (typeof key !== 'object') misfit('auth.privateKey must be a CryptoKey or a private JWK object');
    algorithm = oneOf(a, 'algorithm', ['ES256', 'RS256'], 'auth.');
    keyId = str(a, 'keyId');
  }
  const clientName = str(a, 'clientName');
  // OpenID Connect DCR 1.0 §2; unset, the engine chooses from the redirect URI.
  const applicationType = oneOf(a, 'applicationType', ['web', 'native'], 'auth.');
  return [credentials, onAuthorize, redirectUri, given(storage) ? storage : undefined, dpop,
    given(key) ? key : undefined, algorithm, keyId, clientName, applicationType,
    str(a, 'clientId'), str(a, 'clientSecret'), str(a, 'issuer'), str(a, 'clientMetadataUrl'), str(a, 'scope')];
}

/** Used by the wasm module: `new McpClient(url, options)`'s options in their slots (read in
 *  this order). Reading stops at the first misfit option: slot MISFIT then holds the slot it
 *  was in and the next one its ConfigError, which the wasm reports unless its own check of
 *  an earlier slot (0 clientInfo, 3 extensions, 17 elicitation, 18 sampling) fails first. */
export function clientOptions(o) {
  const out = [];
  const put = (v) => out.push(v);
  try {
    put(field(o, 'clientInfo')); // 0: the engine's
    put(str(o, 'protocolVersion'));
    put(headerList(field(o, 'headers')));
    put(field(o, 'extensions')); // 3: the engine's
    put(num(o, 'requestTimeoutMs'));
    put(num(o, 'maxTotalTimeoutMs'));
    put(num(o, 'hiddenPollIntervalMs'));
    put(str(o, 'logLevel'));
    put(oneOf(o, 'validateOutput', ['strict', 'warn', 'off']));
    put(fn(o, 'fetch'));
    put(fn(o, 'onLog'));
    put(fn(o, 'onNotification'));
    put(fn(o, 'onWarning'));
    put(taskStore(field(o, 'taskStore')));
    put(bool(o, 'storeAnswers'));
    const onElicitation = fn(o, 'onElicitation');
    put(onElicitation);
    const onSampling = fn(o, 'onSampling');
    put(onSampling);
    put(named(o, 'elicitation', ['form', 'url'], onElicitation)); // 17
    put(named(o, 'sampling', ['tools', 'context'], onSampling)); // 18
    const roots = field(o, 'roots');
    if (given(roots) && !Array.isArray(roots) && typeof roots !== 'function') misfit('roots must be an array or a function');
    put(given(roots) ? roots : undefined);
    put(num(o, 'maxInputRounds'));
    put(limits(field(o, 'limits')));
    put(auth(field(o, 'auth')));
    put(oneOf(o, 'coordination', ['auto', 'none']));
    put(autoOr(o, 'pushTasks', ['auto', false]));
    put(str(o, 'taskScope')); // 25
  } catch (e) {
    out[MISFIT] = out.length;
    out[MISFIT + 1] = e;
  }
  return out;
}

/** Used by the wasm module: a call's options `{ timeoutMs, resetTimeoutOnProgress,
 *  maxTotalTimeoutMs, taskTimeoutMs, logLevel, cache, _meta, signal, onProgress,
 *  onTaskStatus | onStatus }` in their slots (`_meta` as JSON text, `cache` as whether it is
 *  'no-cache'); throws the ConfigError of the first misfit one. */
export function callOptions(o) {
  const out = [num(o, 'timeoutMs'), bool(o, 'resetTimeoutOnProgress'), num(o, 'maxTotalTimeoutMs'),
    num(o, 'taskTimeoutMs')];
  const level = str(o, 'logLevel');
  out.push(level);
  if (level !== undefined && !LOG_LEVELS.includes(level)) misfit('logLevel is not a logging level');
  out.push(oneOf(o, 'cache', ['default', 'no-cache']) === 'no-cache');
  const meta = field(o, '_meta');
  let text;
  if (meta !== undefined) {
    try { text = JSON.stringify(meta); } catch (e) {
      misfit(`value is not JSON-serializable: ${describe(e)}`);
    }
    if (text === 'null') text = undefined;
    else if (text !== undefined && text[0] !== '{') misfit('_meta must be an object');
  }
  out.push(text);
  const signal = field(o, 'signal');
  if (given(signal) && !(typeof AbortSignal === 'function' && signal instanceof AbortSignal)) misfit('signal must be an AbortSignal');
  out.push(given(signal) ? signal : undefined, fn(o, 'onProgress'), fn(o, 'onTaskStatus') ?? fn(o, 'onStatus'));
  return out;
}

// Waiting on a promise, for the wasm: `f(true, value)` once `v` (a value or a promise) is
// fulfilled, `f(false, reason)` once it is rejected, always in a later microtask; the promise
// of what `f` returns. The shell's few waits (the host's handlers and storage, WebCrypto, the
// task store) take one closure each this way instead of wasm-bindgen-futures' executor and a
// future's state machine per wait in the wasm (BENCHMARKS.md, the fifty-first session).

/** Used by the wasm module (`web::js::when`). */
export function settled(v, f) {
  return Promise.resolve(v).then((x) => f(true, x), (e) => f(false, e));
}
