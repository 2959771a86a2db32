// OAuth across contexts (issue 13): the Web Locks and the BroadcastChannel the engine's
// OAuth flow asks for (src/web/auth_lock.rs performs AuthAction::Lock, Unlock, Announce).
// No decision is made here: locks are taken and released when the engine says, notices
// are passed on. Feature-detected: without navigator.locks, nothing of this is used.

const CHANNEL = 'mcp-wasm-client:oauth';

/** True where Web Locks exist (pages and workers; not Node, not edge runtimes). */
export function locksAvailable() {
  try {
    const l = globalThis.navigator && globalThis.navigator.locks;
    return !!l && typeof l.request === 'function';
  } catch {
    return false;
  }
}

export class OAuthPeers {
  /**
   * @param {(id: number, error: string|undefined) => boolean} onGranted a lock is held
   *   (or could not be had: the error; the flow goes on as without locks); false when
   *   the client is gone
   * @param {(key: string) => void} onNotice another context's tokens changed
   */
  constructor(onGranted, onNotice) {
    this.onGranted = onGranted;
    this.locks = new Map();
    // Saves asked before an Unlock or Announce: waited for first.
    this.saving = Promise.resolve();
    this.channel = null;
    if (typeof BroadcastChannel === 'function') {
      try {
        this.channel = new BroadcastChannel(CHANNEL);
        this.channel.onmessage = (e) => {
          // Peer input: anything but a well-formed notice is ignored.
          const d = e && e.data;
          if (d && typeof d === 'object' && d.type === 'tokens' && typeof d.key === 'string'
            && d.key.length <= 4096) {
            try { onNotice(d.key); } catch { /* the client may be gone */ }
          }
        };
      } catch {
        this.channel = null;
      }
    }
  }

  /** Takes the lock `name` for step `id`; onGranted(id) once held. */
  lock(id, name) {
    const ac = typeof AbortController === 'function' ? new AbortController() : null;
    const entry = { ac, release: null, done: false };
    this.locks.set(id, entry);
    const opts = ac ? { signal: ac.signal } : {};
    let p;
    try {
      p = globalThis.navigator.locks.request(name, opts, () => {
        if (entry.done) return undefined;
        return new Promise((resolve) => {
          entry.release = resolve;
          // false: the client is gone; the lock is not kept.
          if (this.onGranted(id, undefined) === false && !entry.done) {
            entry.done = true;
            this.locks.delete(id);
            resolve();
          }
        });
      });
    } catch (e) {
      p = Promise.reject(e);
    }
    Promise.resolve(p).catch((e) => {
      if (entry.done || entry.release) return;
      entry.done = true;
      this.locks.delete(id);
      this.onGranted(id, String((e && e.message) || e));
    });
  }

  /** Releases the lock of step `id` once the saves asked before are done; a lock still
   * awaited is abandoned (its request aborted). */
  unlock(id) {
    const entry = this.locks.get(id);
    if (!entry) return;
    this.locks.delete(id);
    entry.done = true;
    if (entry.release) {
      const release = entry.release;
      this.saving.then(release, release);
    } else if (entry.ac) {
      entry.ac.abort();
    }
  }

  /** A save in progress (a promise): later unlocks and announcements wait for it. */
  saved(p) {
    const prev = this.saving;
    this.saving = Promise.resolve(p).then(() => prev, () => prev).then(() => {}, () => {});
  }

  /** Tells the other contexts that the tokens stored under `key` changed. */
  announce(key) {
    const ch = this.channel;
    if (!ch) return;
    this.saving.then(() => {
      try { ch.postMessage({ type: 'tokens', key }); } catch { /* closed */ }
    });
  }

  /** The client closed: every lock is released or abandoned, the channel closed. */
  close() {
    for (const id of [...this.locks.keys()]) this.unlock(id);
    if (this.channel) {
      try { this.channel.close(); } catch { /* already */ }
      this.channel = null;
    }
  }
}
