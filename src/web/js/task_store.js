// Durable tasks (issue 13): the task store behind the `taskStore` option. The engine
// decides what is written and when (src/engine/task/store.rs); this file only keeps the
// records: IndexedDB (database `mcp-wasm-client`, object store `tasks`), a Map
// ('memory'), or the host's own object { get, put, delete, list } (sync or async).
//
// Nothing here throws at the client: a store that is unavailable or fails (private
// browsing, QuotaExceededError, a blocked upgrade, a host object that throws) is replaced
// by a Map for the rest of the client's life, with one warning. Writes of one key are
// serialised, so an older put never lands after a newer one.

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

class IdbBackend {
  constructor(idb) { this.idb = idb; this.db = null; }

  open() {
    if (!this.db) {
      this.db = new Promise((resolve, reject) => {
        const req = this.idb.open(DB_NAME, 1);
        req.onupgradeneeded = () => { req.result.createObjectStore(STORE_NAME); };
        req.onsuccess = () => {
          const db = req.result;
          // Another tab upgrades the database: let it (the next write reopens).
          db.onversionchange = () => { db.close(); this.db = null; };
          resolve(db);
        };
        req.onerror = () => reject(req.error);
        req.onblocked = () => reject(new DOMException(
          'opening the task database is blocked by another tab', 'InvalidStateError'));
      });
      this.db.catch(() => { this.db = null; });
    }
    return this.db;
  }

  // One transaction; `fn(store)` starts its requests and returns what computes the
  // result once the transaction completed (nothing else is awaited inside it).
  tx(mode, fn) {
    return this.open().then((db) => new Promise((resolve, reject) => {
      const t = db.transaction(STORE_NAME, mode);
      const result = fn(t.objectStore(STORE_NAME));
      t.oncomplete = () => resolve(result ? result() : undefined);
      t.onerror = () => reject(t.error);
      t.onabort = () => reject(t.error || new DOMException('transaction aborted', 'AbortError'));
    }));
  }

  // No get: list gives [key, value] pairs, so the store never reads one key.
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
    this.warn = warn;
    this.chains = new Map();
  }

  // Runs `f` on the backend; when it throws or rejects, warns once, falls back to memory
  // and runs `f` there (memory never fails).
  run(what, f) {
    const b = this.backend;
    let p;
    try { p = Promise.resolve(f(b)); } catch (e) { p = Promise.reject(e); }
    return p.catch((e) => {
      if (this.backend === b && !(b instanceof MemoryBackend)) {
        this.warn(`the task store failed (${what}: ${describe(e)}); tasks are kept in memory from now on`);
        this.backend = new MemoryBackend();
      }
      return f(this.backend);
    });
  }

  serial(key, f) {
    const prev = this.chains.get(key) || Promise.resolve();
    const next = prev.then(f).catch(() => {});
    this.chains.set(key, next);
    next.then(() => { if (this.chains.get(key) === next) this.chains.delete(key); });
  }

  put(key, value) { this.serial(key, () => this.run('put', (b) => b.put(key, value))); }
  remove(key) { this.serial(key, () => this.run('delete', (b) => b.delete(key))); }

  // Resolves to [key, value] pairs of the keys under `prefix` (never rejects). The host's
  // list may give pairs or keys (then each is read with get); a string value is JSON.
  async list(prefix) {
    await Promise.all([...this.chains.values()]);
    let entries;
    try { entries = await this.run('list', (b) => b.list(prefix)); } catch (e) { entries = []; }
    if (!Array.isArray(entries)) {
      this.warn('taskStore.list(prefix) did not give an array; nothing resumed');
      return [];
    }
    const out = [];
    for (const e of entries) {
      let key, value;
      if (typeof e === 'string') {
        key = e;
        try { value = await this.run('get', (b) => b.get(key)); } catch (err) { value = undefined; }
      } else if (Array.isArray(e) && typeof e[0] === 'string') {
        [key, value] = e;
      } else {
        this.warn('taskStore.list(prefix) gave an entry that is neither a key nor a [key, value] pair; skipped');
        continue;
      }
      if (!key.startsWith(prefix)) continue;
      if (typeof value === 'string') {
        try { value = JSON.parse(value); } catch (err) { /* left as is: read as corrupt */ }
      }
      out.push([key, value]);
    }
    return out;
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
