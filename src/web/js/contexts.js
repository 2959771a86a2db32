// The browser-context primitives of issue 13 (tasks across reloads, tabs, hidden pages and
// offline), in ONE snippet module: wasm-bindgen emits one file per snippet module, each a
// separate request when the package loads (and wasm-bindgen-test-runner's server stalled
// on seven of them). Sections: visibility and network (src/web/visibility.rs), the task
// store (src/web/store.rs), coordination across contexts (src/web/peers.rs), OAuth across
// contexts (src/web/auth_lock.rs), and WebCrypto for the OAuth flow (src/web/auth.rs: DPoP
// keys, JWS signatures; issue 16). Feature-detected, never `window`.

// ======================================================================= visibility

// The context's visibility and network for the task scheduler (issue 13, "Visibility and
// network"). Feature-detected, never `window`: a document (pages) reports
// `visibilitychange`; a global with `navigator.onLine` (pages, workers) reports
// `online`/`offline`. Without a document the context counts as visible (workers, Node,
// edge runtimes); without `navigator.onLine`, as online: nothing changes there.

const g = globalThis;
const doc = () => (g.document && typeof g.document.addEventListener === 'function' ? g.document : null);
const net = () => !!g.navigator && typeof g.navigator.onLine === 'boolean' && typeof g.addEventListener === 'function';

/** The state now: 1 = hidden, 2 = offline, 4 = no document (a worker: no dialog is preferred there). */
export function presence() {
  const d = doc();
  return (d ? (d.visibilityState === 'hidden' ? 1 : 0) : 4) | (net() && g.navigator.onLine === false ? 2 : 0);
}

/** Calls `onChange()` on every change; returns the function that removes the listeners. */
export function watchPresence(onChange) {
  const d = doc();
  const n = net();
  const report = () => onChange();
  if (d) d.addEventListener('visibilitychange', report);
  if (n) {
    g.addEventListener('online', report);
    g.addEventListener('offline', report);
  }
  return () => {
    if (d) d.removeEventListener('visibilitychange', report);
    if (n) {
      g.removeEventListener('online', report);
      g.removeEventListener('offline', report);
    }
  };
}

// ======================================================================= task_store

// Durable tasks (issue 13): the task store behind the `taskStore` option. The engine
// decides what is written and when (src/engine/task/store.rs); this file only keeps the
// records: IndexedDB (database `mcp-wasm-client`, object store `tasks`), a Map
// ('memory'), or the host's own object { get, put, delete, list } (sync or async).
//
// Nothing here throws at the client: what a store that is unavailable or fails (private
// browsing, QuotaExceededError, a blocked upgrade, a host object that throws) does not
// keep is kept in a Map, with one warning; the store is tried again for every change, so
// a delete still reaches the records it holds. Writes of one key are serialised, so an
// older put never lands after a newer one.

const DB_NAME = 'mcp-wasm-client';
const STORE_NAME = 'tasks';

function describe(e) {
  try { return e && e.name ? `${e.name}: ${e.message}` : String(e); } catch (_) { return 'unknown error'; }
}

class MemoryBackend {
  constructor() { this.map = new Map(); }
  get(key) { return this.map.get(key); }
  put(key, value) { this.map.set(key, value); }
  delete(key) { this.map.delete(key); }
  list(prefix) {
    const out = [];
    for (const [k, v] of this.map) if (k.startsWith(prefix)) out.push([k, v]);
    return out;
  }
}

// One object store of one database (the task store's by default; the DPoP key pairs' too).
class IdbBackend {
  constructor(idb, name = DB_NAME, store = STORE_NAME) {
    this.idb = idb;
    this.name = name;
    this.store = store;
    this.db = null;
  }

  open() {
    if (!this.db) {
      this.db = new Promise((resolve, reject) => {
        const req = this.idb.open(this.name, 1);
        req.onupgradeneeded = () => { req.result.createObjectStore(this.store); };
        req.onsuccess = () => {
          const db = req.result;
          // Another tab upgrades the database: let it (the next write reopens).
          db.onversionchange = () => { db.close(); this.db = null; };
          resolve(db);
        };
        req.onerror = () => reject(req.error);
        req.onblocked = () => reject(new DOMException(
          `opening the database ${this.name} is blocked by another tab`, 'InvalidStateError'));
      });
      this.db.catch(() => { this.db = null; });
    }
    return this.db;
  }

  // One transaction; `fn(store)` starts its requests and returns what computes the
  // result once the transaction completed (nothing else is awaited inside it).
  tx(mode, fn) {
    return this.open().then((db) => new Promise((resolve, reject) => {
      const t = db.transaction(this.store, mode);
      const result = fn(t.objectStore(this.store));
      t.oncomplete = () => resolve(result ? result() : undefined);
      t.onerror = () => reject(t.error);
      t.onabort = () => reject(t.error || new DOMException('transaction aborted', 'AbortError'));
    }));
  }

  // (The task store never reads one key: list gives [key, value] pairs.)
  get(key) {
    return this.tx('readonly', (s) => {
      const r = s.get(key);
      return () => r.result;
    });
  }
  put(key, value) { return this.tx('readwrite', (s) => { s.put(value, key); }); }
  delete(key) { return this.tx('readwrite', (s) => { s.delete(key); }); }
  list(prefix) {
    // Keys are percent-encoded ASCII: '\uffff' bounds every key with this prefix.
    const range = IDBKeyRange.bound(prefix, prefix + '\uffff');
    return this.tx('readonly', (s) => {
      const keys = s.getAllKeys(range);
      const values = s.getAll(range);
      return () => keys.result.map((k, i) => [k, values.result[i]]);
    });
  }
}

export class TaskStore {
  constructor(backend, warn) {
    this.backend = backend;
    // What the backend failed to keep. The backend is tried again for every operation and
    // memory takes only what it refused: one failed write (a full quota) must not leave
    // the records it holds behind, or the deletes of tasks that end later never reach it
    // and the next page resumes finished tasks (README: a record is removed once a waiter
    // received the outcome).
    this.memory = new MemoryBackend();
    this.warn = warn;
    this.warned = false;
    this.chains = new Map();
  }

  // Runs `f` on the backend: [true, result], or [false] when it throws or rejects (the
  // first failure warns).
  attempt(what, f) {
    let p;
    try { p = Promise.resolve(f(this.backend)); } catch (e) { p = Promise.reject(e); }
    return p.then((r) => [true, r], (e) => {
      if (!this.warned) {
        this.warned = true;
        this.warn(`the task store failed (${what}: ${describe(e)}); what it cannot keep is kept in memory, and it is tried again for each change`);
      }
      return [false];
    });
  }

  serial(key, f) {
    const prev = this.chains.get(key) || Promise.resolve();
    const next = prev.then(f).catch(() => {});
    this.chains.set(key, next);
    next.then(() => { if (this.chains.get(key) === next) this.chains.delete(key); });
  }

  put(key, value) {
    this.serial(key, async () => {
      const [ok] = await this.attempt('put', (b) => b.put(key, value));
      if (ok) this.memory.delete(key);
      else this.memory.put(key, value);
    });
  }

  remove(key) {
    this.serial(key, () => {
      this.memory.delete(key);
      return this.attempt('delete', (b) => b.delete(key));
    });
  }

  // Resolves to [key, value] pairs of the keys under `prefix` (never rejects): the
  // backend's, and memory's in place of the backend's for the keys it holds (the later
  // write: the backend refused it). The host's list may give pairs or keys (then each is
  // read with get); a string value is JSON.
  async list(prefix) {
    await Promise.all([...this.chains.values()]);
    let [, entries] = await this.attempt('list', (b) => b.list(prefix));
    if (entries === undefined) entries = [];
    if (!Array.isArray(entries)) {
      this.warn('taskStore.list(prefix) did not give an array; nothing resumed');
      return [];
    }
    const kept = this.memory.list(prefix);
    const inMemory = new Set(kept.map(([k]) => k));
    const out = [];
    for (const e of entries) {
      let key, value;
      if (typeof e === 'string') {
        key = e;
        if (inMemory.has(key)) continue;
        [, value] = await this.attempt('get', (b) => b.get(key));
      } else if (Array.isArray(e) && typeof e[0] === 'string') {
        [key, value] = e;
      } else {
        this.warn('taskStore.list(prefix) gave an entry that is neither a key nor a [key, value] pair; skipped');
        continue;
      }
      if (!key.startsWith(prefix) || inMemory.has(key)) continue;
      if (typeof value === 'string') {
        try { value = JSON.parse(value); } catch (err) { /* left as is: read as corrupt */ }
      }
      out.push([key, value]);
    }
    return out.concat(kept);
  }
}

// `option`: 'indexeddb', 'memory', or a host object (checked by the caller); undefined:
// IndexedDB where it exists, else memory. `onWarning`: the client's (or undefined).
export function openTaskStore(option, onWarning) {
  const warn = (m) => {
    try {
      if (typeof onWarning === 'function') onWarning(m);
      else console.warn(`mcp-wasm-client: ${m}`);
    } catch (e) {
      console.warn(`mcp-wasm-client: a callback threw: ${describe(e)}`);
    }
  };
  let idb;
  try { idb = globalThis.indexedDB; } catch (e) { idb = undefined; }
  if (option === undefined || option === null) option = idb ? 'indexeddb' : 'memory';
  if (option === 'memory') return new TaskStore(new MemoryBackend(), warn);
  if (option === 'indexeddb') {
    if (!idb) {
      warn('taskStore: IndexedDB is not available here; tasks are kept in memory');
      return new TaskStore(new MemoryBackend(), warn);
    }
    return new TaskStore(new IdbBackend(idb), warn);
  }
  // The host's object has the backends' four methods: called as they are.
  return new TaskStore(option, warn);
}

// ======================================================================= peers

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

/** `onEvent(0, text)`: a message; `onEvent(1, name)`: a lock granted; `onEvent(2, why)`: a
 * lock request refused (not withdrawn). Null when unavailable. */
export function openPeers(channelName, onEvent) {
  if (!peersAvailable()) return null;
  return new Peers(channelName, onEvent);
}

class Peers {
  constructor(channelName, onEvent) {
    this.id = newId();
    this._onLock = (name) => onEvent(1, name);
    this._onRefused = (why) => onEvent(2, why);
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
    }).catch((e) => {
      // AbortError: a request withdrawn (`unlock`). Anything else (SecurityError in a
      // sandboxed iframe or an opaque origin) is Web Locks refusing this context: the
      // engine stops coordinating and polls here (as oauthPeers goes on without locks).
      if (this._closed || e?.name === 'AbortError') return;
      this._held.delete(name);
      this._onRefused(String(e?.message || e));
    });
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

// ======================================================================= oauth-lock

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

// ======================================================================= WebCrypto for OAuth

// WebCrypto for the OAuth flow (src/web/auth.rs; issue 16): the DPoP key pair (RFC 9449)
// and JWS signatures (DPoP proofs, private_key_jwt client assertions, RFC 7523). Plain JS
// because it is only awaiting crypto.subtle. The engine writes every signing input; nothing
// is decided here.
//
// The DPoP private key is made non-extractable: page script can use it through this client
// but never read it. With auth.storage it is kept as the CryptoKeyPair itself (IndexedDB
// keeps a CryptoKey by structured clone; it is never exported or written as JWK). A storage
// that cannot keep objects (localStorage keeps strings) would give a new key, hence a new
// sign-in, at every load: the pair then goes to an IndexedDB database of this client's own,
// where the context has IndexedDB (pages, workers); elsewhere it lasts as long as the client.

const ES256 = { name: 'ECDSA', namedCurve: 'P-256' };

function subtle() {
  const s = globalThis.crypto?.subtle;
  if (!s) throw new Error('crypto.subtle is not available (a secure context is needed)');
  return s;
}

const isKey = (k, type) =>
  k !== null && typeof k === 'object' && k.type === type && typeof k.algorithm === 'object';

/** The pair in `v`, else null. */
const asPair = (v) => (v && isKey(v.privateKey, 'private') && isKey(v.publicKey, 'public')
  && v.privateKey.algorithm.name === 'ECDSA' ? v : null);

// The key pairs kept for storages of strings (undefined without IndexedDB), made once.
let keptPairs = null;
function keptKeys() {
  if (keptPairs === null) {
    let idb;
    try { idb = globalThis.indexedDB; } catch { idb = undefined; }
    keptPairs = idb ? new IdbBackend(idb, 'mcp-wasm-client-dpop', 'keys') : undefined;
  }
  return keptPairs;
}

/** The DPoP key pair named `name`: this client's (`memo`, a Map), else the stored one (in
 *  `storage`, else in the database for string-only storages), else a new one (stored).
 *  Resolves with [public JWK as JSON text, private CryptoKey]. */
export async function dpopKey(storage, name, memo) {
  const s = subtle();
  let pair = memo.get(name);
  if (!pair && storage) {
    try { pair = asPair(await storage.get(name)); } catch { /* unreadable */ }
    if (!pair) try { pair = asPair(await keptKeys()?.get(name)); } catch { /* none */ }
  }
  if (!pair) {
    pair = await s.generateKey(ES256, false, ['sign', 'verify']);
    if (storage) {
      let kept = null;
      try {
        await storage.set(name, pair);
        kept = asPair(await storage.get(name));
      } catch { /* not kept there */ }
      if (!kept) try { await keptKeys()?.put(name, pair); } catch { /* for this client only */ }
    }
  }
  memo.set(name, pair);
  // A public key is always exportable (WebCrypto ignores `extractable` for it).
  const jwk = await s.exportKey('jwk', pair.publicKey);
  return [JSON.stringify({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }), pair.privateKey];
}

/** `n` bytes from the platform's CSPRNG; none where it is missing or refuses (the engine
 *  then refuses to go on: PKCE and DPoP need them). */
export function randomBytes(n) {
  const a = new Uint8Array(n);
  try { globalThis.crypto.getRandomValues(a); return a; } catch { return new Uint8Array(0); }
}

/** The JWS signature (RFC 7518 §3.3, §3.4: WebCrypto's forms are the JWS ones) of `input`
 *  with `key`: a CryptoKey, or a private JWK (imported, non-extractable). */
export async function sign(key, alg, input) {
  const s = subtle();
  const rsa = alg === 'RS256';
  if (!isKey(key, 'private')) {
    key = await s.importKey('jwk', key, rsa ? { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } : ES256, false, ['sign']);
  }
  const params = rsa ? { name: 'RSASSA-PKCS1-v1_5' } : { name: 'ECDSA', hash: 'SHA-256' };
  return new Uint8Array(await s.sign(params, key, new TextEncoder().encode(input)));
}
