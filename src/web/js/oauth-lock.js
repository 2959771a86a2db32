// OAuth across contexts (issue 13): the Web Locks and the BroadcastChannel the engine's
// OAuth flow asks for (src/web/auth_lock.rs performs AuthAction::Lock, Unlock, Announce).
// No decision is made here: locks are taken and released when the engine says, notices
// are passed on. Feature-detected: without navigator.locks, nothing of this is used.
// Written as a closure over local state (not a class) so that the minifier shortens it.

/** True where Web Locks exist (pages and workers; not Node, not edge runtimes). */
export function locksAvailable() {
  try {
    return typeof globalThis.navigator.locks.request === 'function';
  } catch {
    return false;
  }
}

/**
 * The Web Locks and the channel of one client.
 * @param {(id: number, text: string|undefined) => boolean} onEvent `(id, undefined)`: the
 *   lock of step `id` is held; `(id, error)`: it could not be had (the flow goes on as
 *   without locks); `(-1, key)`: another context's tokens changed. False: the client is
 *   gone (a lock just granted is then given back).
 */
export function oauthPeers(onEvent) {
  // step id -> { ac: AbortController, release: (() => void) | null, done: boolean }
  const locks = new Map();
  // The saves asked so far (never rejects): unlocks and announcements wait for them.
  let saving = Promise.resolve();
  let channel = null;
  try {
    channel = new BroadcastChannel('mcp-wasm-client:oauth');
    // Node (newer versions have Web Locks, process-wide): an open channel must not keep the
    // process alive.
    if (typeof channel.unref === 'function') channel.unref();
    channel.onmessage = (e) => {
      // Peer input: anything but a well-formed notice is ignored.
      const d = e.data;
      if (d && d.type === 'tokens' && typeof d.key === 'string' && d.key.length <= 4096) {
        onEvent(-1, d.key);
      }
    };
  } catch {
    channel = null; // no BroadcastChannel: no announcements (a 401 still reads the storage)
  }
  const unlock = (id) => {
    const entry = locks.get(id);
    if (!entry) return;
    locks.delete(id);
    entry.done = true;
    if (entry.release) saving.then(entry.release);
    else entry.ac.abort(); // still awaited: abandoned
  };
  return {
    /** Takes the lock `name` for step `id`; onEvent(id) once held. */
    lock(id, name) {
      const entry = { ac: new AbortController(), release: null, done: false };
      locks.set(id, entry);
      new Promise((ok) => ok(globalThis.navigator.locks.request(name, { signal: entry.ac.signal }, () => {
        if (entry.done) return undefined;
        return new Promise((resolve) => {
          entry.release = resolve;
          if (onEvent(id) === false && !entry.done) unlock(id);
        });
      }))).catch((e) => {
        if (entry.done || entry.release) return;
        locks.delete(id);
        entry.done = true;
        onEvent(id, String((e && e.message) || e));
      });
    },
    /** Releases the lock of step `id` once the saves asked before are done. */
    unlock,
    /** A save in progress (a promise): later unlocks and announcements wait for it. */
    saved(p) {
      const prev = saving;
      saving = Promise.resolve(p).then(() => prev, () => prev);
    },
    /** Tells the other contexts that the tokens stored under `key` changed. */
    announce(key) {
      saving.then(() => {
        try { channel.postMessage({ type: 'tokens', key }); } catch { /* none, or closed */ }
      });
    },
    /** The client closed: every lock released or abandoned, the channel closed. */
    close() {
      for (const id of [...locks.keys()]) unlock(id);
      try { channel.close(); } catch { /* none */ }
    },
  };
}
