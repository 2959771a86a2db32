// React hooks over the package's client: `useMcpClient` (one client per url and options
// object, its server info and live tool list) and `useTask` (a task's status, result and
// cancel). React >= 18 is an optional peer dependency of the package: only this entry
// imports it.
//
// Strict mode: React mounts, unmounts and mounts again in development. The hooks never
// create or start anything in render; what an effect starts is released with a delay of
// one macrotask, and an immediate re-mount takes it back. So the double mount makes no
// second client and no request that is then aborted.
import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';
import { McpClient } from './index.js';

// ------------------------------------------------------------------ shared clients

/** Clients by options object (identity), then by URL. `undefined` options share one map. */
const byOptions = new WeakMap();
const noOptions = new Map();

function entriesFor(options) {
  if (options === undefined || options === null) return noOptions;
  let map = byOptions.get(options);
  if (!map) {
    map = new Map();
    byOptions.set(options, map);
  }
  return map;
}

const CLOSED = Object.freeze({ client: null, status: 'closed', error: undefined, serverInfo: undefined, tools: Object.freeze([]) });
const CONNECTING = Object.freeze({ ...CLOSED, status: 'connecting' });

/** One client, its state (an immutable snapshot) and the components using it. */
class Entry {
  constructor(url, options, map) {
    this.url = url;
    this.options = options ?? undefined;
    this.map = map;
    this.users = 0;
    this.listeners = new Set();
    this.releaseTimer = null;
    this.controller = new AbortController();
    this.subscription = null;
    this.listSeq = 0;
    try {
      this.client = new McpClient(url, this.options);
    } catch (e) {
      // Invalid url or options (ConfigError): an error state, not a crash of the tree.
      this.client = null;
      this.snapshot = Object.freeze({ ...CONNECTING, status: 'error', error: e });
      return;
    }
    this.snapshot = Object.freeze({ ...CONNECTING, client: this.client });
    this.connect();
  }

  set(patch) {
    if (this.snapshot.status === 'closed') return;
    this.snapshot = Object.freeze({ ...this.snapshot, ...patch });
    for (const listener of this.listeners) listener();
  }

  /** discover, listen to tool list changes (when the server offers them), list the tools. */
  async connect() {
    const signal = this.controller.signal;
    this.set({ status: 'connecting', error: undefined });
    try {
      const info = await this.client.discover({ signal });
      if (info.capabilities?.tools?.listChanged && !this.subscription) await this.listen(signal);
      const seq = ++this.listSeq;
      const tools = await this.client.listAllTools({ signal, cache: 'no-cache' });
      // A listing started by a notification meanwhile is newer: its tools stay.
      this.set({ status: 'ready', serverInfo: info.serverInfo, ...(seq === this.listSeq ? { tools: Object.freeze(tools) } : {}) });
    } catch (e) {
      if (!signal.aborted) this.set({ status: 'error', error: e });
    }
  }

  /** Listening before the listing: a change in between is not missed. A server that cannot
   *  listen (an older era, a refusal) still gets a client: its tools are just not live. */
  async listen(signal) {
    try {
      this.subscription = await this.client.listen(
        { toolsListChanged: true },
        (method) => {
          if (method === 'notifications/tools/list_changed') this.listTools().catch(() => {});
        },
        { signal },
      );
    } catch (e) {
      if (signal.aborted) throw e;
      return;
    }
    this.subscription.closed.catch((e) => {
      this.subscription = null;
      if (!signal.aborted) this.set({ status: 'error', error: e });
    });
  }

  async listTools() {
    const seq = ++this.listSeq;
    const tools = await this.client.listAllTools({ signal: this.controller.signal, cache: 'no-cache' });
    if (seq !== this.listSeq) return;
    // A listing that worked clears the error of a failed refresh (not one that put the client in 'error').
    this.set(this.snapshot.status === 'error' ? { tools: Object.freeze(tools) } : { tools: Object.freeze(tools), error: undefined });
  }

  /** `refresh()`: the tool list again, or the whole connection after an error. */
  refresh() {
    if (this.snapshot.status === 'closed' || !this.client) return Promise.resolve();
    if (this.snapshot.status === 'error') return this.connect();
    return this.listTools().catch((e) => {
      if (!this.controller.signal.aborted) this.set({ error: e });
    });
  }

  acquire() {
    this.users += 1;
    if (this.releaseTimer !== null) {
      clearTimeout(this.releaseTimer);
      this.releaseTimer = null;
    }
  }

  release() {
    this.users -= 1;
    if (this.users > 0 || this.releaseTimer !== null) return;
    // Later, so that strict mode's immediate re-mount keeps this client.
    this.releaseTimer = setTimeout(() => {
      this.releaseTimer = null;
      if (this.users === 0) this.close();
    }, 0);
  }

  close() {
    if (this.map.get(this.url) === this) this.map.delete(this.url);
    this.controller.abort();
    this.subscription?.close();
    this.client?.close();
    this.set({ status: 'closed' });
  }
}

function currentEntry(url, options) {
  if (!url) return undefined;
  return entriesFor(options).get(url);
}

function acquireEntry(url, options) {
  const map = entriesFor(options);
  let entry = map.get(url);
  if (!entry) {
    entry = new Entry(url, options, map);
    map.set(url, entry);
  }
  entry.acquire();
  return entry;
}

/**
 * `useMcpClient(url, options)`: the client for `url`, shared by every component that passes
 * the same `url` and the same `options` object (keep it stable: a module constant or
 * `useMemo`), closed when the last of them unmounts. A falsy `url` holds no client
 * (`status: 'closed'`).
 */
export function useMcpClient(url, options) {
  const subscribe = useCallback((onChange) => {
    if (!url) return () => {};
    const entry = acquireEntry(url, options);
    entry.listeners.add(onChange);
    // The entry may have been made just now: let React read its first snapshot.
    queueMicrotask(onChange);
    return () => {
      entry.listeners.delete(onChange);
      entry.release();
    };
  }, [url, options]);
  const getSnapshot = () => {
    if (!url) return CLOSED;
    return currentEntry(url, options)?.snapshot ?? CONNECTING;
  };
  const state = useSyncExternalStore(subscribe, getSnapshot, getSnapshot);
  const refresh = useCallback(() => currentEntry(url, options)?.refresh() ?? Promise.resolve(), [url, options]);
  return { ...state, refresh };
}

// ------------------------------------------------------------------ tasks

const IDLE = Object.freeze({
  task: undefined, status: undefined, statusMessage: undefined, result: undefined, error: undefined,
});

function idOf(taskOrTaskId) {
  if (!taskOrTaskId) return undefined;
  return typeof taskOrTaskId === 'string' ? taskOrTaskId : taskOrTaskId.taskId;
}

function fromTask(task) {
  return { task, status: task.status, statusMessage: task.statusMessage, result: task.result };
}

/**
 * `useTask(client, taskOrTaskId)`: follows the task with `client.waitForTask` (its input
 * requests go to the client's handlers) until it ends or the component unmounts (the wait
 * stops; the task keeps running on the server). `cancel()` asks the server to cancel it.
 */
export function useTask(client, taskOrTaskId) {
  const id = idOf(taskOrTaskId);
  const [state, setState] = useState(() => ({ key: undefined, ...IDLE }));
  const key = client && id ? id : undefined;
  const holder = typeof taskOrTaskId === 'object' && taskOrTaskId ? taskOrTaskId : undefined;

  useEffect(() => {
    if (!client || !id) return undefined;
    const controller = new AbortController();
    const set = (patch) => {
      if (!controller.signal.aborted) setState((s) => ({ ...(s.key === id ? s : IDLE), key: id, ...patch }));
    };
    // Started a macrotask later: strict mode's unmount in between cancels it before any request.
    let seen; // the last status the wait reported
    const timer = setTimeout(() => {
      client.waitForTask(taskOrTaskId, {
        signal: controller.signal,
        onStatus: (task) => {
          seen = task.status;
          set(fromTask(task));
        },
      })
        .then((task) => set({ ...fromTask(task), error: undefined }))
        .catch(async (error) => {
          if (controller.signal.aborted) return;
          // `status` is what the server said. Only its word makes a task failed or cancelled;
          // any other end of the wait (a handler's error, an answer the client refused, the
          // network, a timeout) leaves the last known status, with `error` set.
          const last = error?.data && typeof error.data === 'object' && typeof error.data.status === 'string' ? error.data : undefined;
          if (error?.name === 'TaskCancelledError' || last?.status === 'cancelled') {
            set({ status: 'cancelled', statusMessage: last?.statusMessage, error });
          } else if (last?.status === 'failed') {
            set({ status: 'failed', statusMessage: last.statusMessage, error });
          } else if (error?.name === 'McpError' && seen !== 'failed') {
            // A JSON-RPC error: the task's own (a 2025 server's tasks/result says it failed
            // without a status) or one of tasks/get. The server's status decides.
            const now = await client.getTask(id, { signal: controller.signal }).catch(() => undefined);
            set(now && typeof now.status === 'string' ? { ...fromTask(now), error } : { error });
          } else {
            set({ error });
          }
        });
    }, 0);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
    // The task is followed by id: a new handle object for the same task does not restart the wait.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, id]);

  const cancel = useCallback(() => {
    if (!client || !id) return Promise.resolve();
    return client.cancelTask(id);
  }, [client, id]);

  const current = state.key !== undefined && state.key === key
    ? state
    : holder && key !== undefined ? { ...IDLE, ...fromTask(holder) } : IDLE;
  return {
    task: current.task,
    status: current.status,
    statusMessage: current.statusMessage,
    result: current.result,
    error: current.error,
    cancel,
  };
}
