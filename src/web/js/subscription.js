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
