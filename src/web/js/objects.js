// The objects of the JS API that the wasm module makes for the host: the error classes
// (every error the client throws) and the Subscription that McpClient#listen returns.
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

  _reconnecting(info) {
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
