// Coordination across contexts (issue 13): the two primitives the engine's protocol
// (src/engine/task/peers.rs) needs, and nothing else. Exclusive Web Locks held until
// released, and a BroadcastChannel carrying JSON texts. This context's visibility comes
// from the one `visibilitychange` listener of visibility.js (src/web/visibility.rs).
// Feature-detected: `openPeers` returns null where Web Locks or BroadcastChannel are missing
// (Node, edge runtimes), and the client then coordinates nothing.

export function peersAvailable() {
  const g = globalThis;
  // A window or a worker: Node and edge runtimes have BroadcastChannel but no contexts to share with.
  const browser = typeof g.document !== 'undefined' || typeof g.WorkerGlobalScope !== 'undefined';
  return browser && typeof g.BroadcastChannel === 'function'
    && typeof g.navigator?.locks?.request === 'function';
}

function newId() {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === 'function') return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}-${Math.random().toString(36).slice(2)}`;
}

function isVisible() {
  const d = globalThis.document;
  // Workers have no document: they count as hidden (a visible page is preferred).
  return !!d && d.visibilityState !== 'hidden';
}

/** `onEvent(0, text)`: a message; `onEvent(1, name)`: a lock granted. Null when unavailable. */
export function openPeers(channelName, onEvent) {
  if (!peersAvailable()) return null;
  return new Peers(channelName, onEvent);
}

class Peers {
  constructor(channelName, onEvent) {
    this.id = newId();
    this._onLock = (name) => onEvent(1, name);
    this._held = new Map(); // name -> { abort: AbortController, release?: () => void }
    this._closed = false;
    this._channel = new BroadcastChannel(channelName);
    this._channel.onmessage = (e) => {
      // Only texts: anything else another script posts on this channel is ignored.
      if (!this._closed && typeof e.data === 'string') onEvent(0, e.data);
    };
  }

  visible() { return isVisible(); }

  /** Requests lock `name`; `onLock(name)` once granted; held until `unlock(name)`. */
  lock(name) {
    if (this._closed || this._held.has(name)) return;
    const entry = { abort: new AbortController(), release: undefined };
    this._held.set(name, entry);
    globalThis.navigator.locks.request(name, { signal: entry.abort.signal }, () => {
      if (this._held.get(name) !== entry) return undefined; // withdrawn meanwhile
      return new Promise((resolve) => {
        entry.release = resolve;
        // Asynchronously: the engine may ask for other locks while handling the grant.
        queueMicrotask(() => { if (this._held.get(name) === entry) this._onLock(name); });
      });
    }).catch(() => {}); // an aborted request rejects with AbortError
  }

  /** Releases lock `name`, or withdraws its pending request. */
  unlock(name) {
    const entry = this._held.get(name);
    if (!entry) return;
    this._held.delete(name);
    if (entry.release) entry.release();
    else entry.abort.abort();
  }

  post(text) {
    if (this._closed) return;
    try { this._channel.postMessage(text); } catch { /* a closed channel */ }
  }

  /** Releases every lock and closes the channel (`client.close()`). */
  close() {
    if (this._closed) return;
    for (const name of [...this._held.keys()]) this.unlock(name);
    this._closed = true;
    try { this._channel.close(); } catch { /* already closed */ }
  }
}
