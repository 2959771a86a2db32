// The fault suite's runner and helpers (tests/faults/suite.mjs gathers the cases of
// cases/*.mjs). A case is `test(name, { scenarios, where }, fn)`; `fn(env)` gets a client
// factory bound to the case's own server state (its token), the debug endpoints, and the
// warnings the clients reported.
import { McpClient, McpClientError } from '../../pkg/index.js';
import { AssertionError, show, ok, eq, withTimeout, sleep } from '../js/assert.mjs';

export { AssertionError, show, ok, same, eq, withTimeout, sleep } from '../js/assert.mjs';

export const TASKS = 'io.modelcontextprotocol/tasks';
const CASE_TIMEOUT_MS = 30_000;
export const IN_BROWSER = typeof window !== 'undefined' && typeof document !== 'undefined';
/** Control characters (C0, DEL, C1) and bidi/line-separator characters. */
export const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

// ------------------------------------------------------------------ a tiny runner

export const cases = [];
/**
 * A case. `scenarios`: the scenarios it exercises (every scenario needs one case);
 * `where`: 'both' (default), 'browser' or 'node'.
 */
export function test(name, { scenarios = [], where = 'both' } = {}, fn) {
  cases.push({ name, scenarios, where, fn });
}

/** Awaits a promise that must reject with an error of class `Cls`; checks name, code, status. */
export async function rejects(promise, Cls, { code, status, message } = {}) {
  let error;
  try {
    const v = await promise;
    throw new AssertionError(`expected ${Cls.name}, but it resolved with ${show(v)?.slice(0, 300)}`);
  } catch (e) {
    if (e instanceof AssertionError) throw e;
    error = e;
  }
  ok(error instanceof Cls, `expected ${Cls.name}, got ${error?.name} (${error?.constructor?.name}): ${error?.message}`);
  eq(error.name, Cls.name, 'error.name');
  ok(error instanceof McpClientError, `${error.name} is not an McpClientError`);
  ok(!CONTROL.test(error.message), `the message carries control characters: ${show(error.message)}`);
  if (code !== undefined) eq(error.code, code, `${Cls.name}.code (message: ${error.message})`);
  if (status !== undefined) eq(error.status, status, `${Cls.name}.status (message: ${error.message})`);
  if (message !== undefined) ok(message.test(error.message), `message ${show(error.message)} does not match ${message}`);
  return error;
}

export const text = (result) => result?.content?.[0]?.text;

/** Polls `probe` until it returns a truthy value (or the time is up). */
export async function until(probe, ms = 3000, what = 'condition') {
  const t0 = Date.now();
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() - t0 > ms) throw new AssertionError(`${what}: not reached within ${ms} ms`);
    await sleep(25);
  }
}

/**
 * Runs every case. `serverUrl`: the fault server's base URL (its READY line). Resolves with
 * `{ passed, failed, skipped, xfailed, xpassed, total, failures }`.
 */
export async function runSuite({ serverUrl, deadUrl, report = console.log, only, unhandled = () => [] } = {}) {
  ok(serverUrl, 'runSuite: serverUrl (the fault server base URL) is required');
  const base = serverUrl.replace(/\/+$/, '').replace(/\/mcp$/, '');
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const out = { passed: 0, failed: 0, skipped: 0, xfailed: 0, xpassed: 0, total: 0, failures: [] };
  let n = 0;
  for (const c of cases) {
    if (only && !only.test(c.name)) continue;
    if ((c.where === 'browser' && !IN_BROWSER) || (c.where === 'node' && IN_BROWSER)) {
      out.skipped += 1;
      report(`  skip  ${c.name} (${c.where} only)`);
      continue;
    }
    out.total += 1;
    n += 1;
    const token = `${run}-${n}`;
    const clients = [];
    const warnings = [];
    const q = (params) => (params && Object.keys(params).length ? `?${new URLSearchParams(params)}` : '');
    const env = {
      base,
      token,
      deadUrl,
      browser: IN_BROWSER,
      warnings,
      unhandled,
      /** The MCP URL of a scenario for this case. */
      url: (scenario, params) => `${base}/s/${scenario}/${token}/mcp${q(params)}`,
      corsUrl: (policy) => `${base}/cors/${policy}/${token}/mcp`,
      /** A client of a scenario (tasks declared, warnings collected; closed after the case). */
      /** `sub`: a second server state within the case (its own token). */
      client: (scenario = 'ok', options = {}, params, sub = '') => {
        const client = new McpClient(`${base}/s/${scenario}/${token}${sub}/mcp${q(params)}`, {
          extensions: [TASKS],
          requestTimeoutMs: 8000,
          onWarning: (m) => warnings.push(m),
          ...options,
        });
        clients.push(client);
        return client;
      },
      track: (client) => (clients.push(client), client),
      debug: async (what, params = {}) => (await fetch(`${base}/debug/${what}${q({ token, ...params })}`)).json(),
      post: async (what, params = {}) => (await fetch(`${base}/debug/${what}${q({ token, ...params })}`, { method: 'POST' })).json(),
    };
    const t0 = Date.now();
    let error;
    try {
      await withTimeout(Promise.resolve().then(() => c.fn(env)), CASE_TIMEOUT_MS, c.name);
    } catch (e) {
      error = e;
    }
    for (const client of clients) {
      try {
        client.close();
      } catch (e) {
        error ??= new AssertionError(`close() threw ${e?.name}: ${e?.message}`);
      }
    }
    const ms = Date.now() - t0;
    if (error) {
      const why = `${error?.name}: ${error?.message ?? show(error)}`;
      out.failed += 1;
      out.failures.push({ name: c.name, error: error?.stack && String(error.stack).includes(String(error.message)) ? error.stack : why });
      report(`  FAIL  ${c.name} (${ms} ms) — ${why}`);
    } else {
      out.passed += 1;
      report(`  ok    ${c.name} (${ms} ms)`);
    }
  }
  return out;
}

/** The client still works after a fault: a plain call on the same client succeeds. */
export async function stillWorks(c) {
  eq(text(await c.callTool('echo', { text: 'still here' })), 'still here', 'echo after the fault');
}

/**
 * An onElicitation handler answering `{value: <key>-<n>}` and counting its calls per key
 * (`calls[key]`), i.e. how often each key was presented to the host.
 */
export function counting(calls = {}, { delayMs = 0, before } = {}) {
  const handler = async (req, ctx) => {
    calls[ctx.key] = (calls[ctx.key] ?? 0) + 1;
    if (before) await before(ctx, calls);
    if (delayMs) await sleep(delayMs);
    return { action: 'accept', content: { value: `${ctx.key}-${calls[ctx.key]}` } };
  };
  return { calls, handler };
}

/** Every key of `keys` presented once to the handler and answered once at the server. */
export async function exactlyOnce({ debug }, calls, scope, keys) {
  eq(calls, Object.fromEntries(keys.map((k) => [k, 1])), 'handler invocations per key');
  const counts = (await debug('counts'))[scope] ?? {};
  for (const k of keys) {
    eq(counts[k]?.answered, 1, `server: times ${k} was answered (all counts: ${show(counts)})`);
    ok(counts[k]?.presented >= 1, `server: ${k} was never presented (${show(counts)})`);
  }
  eq(Object.keys(counts).sort(), [...keys].sort(), 'keys the server saw');
}

/** A task's id from the first onTaskStatus of a callTool. */
export function statusTracker() {
  const seen = [];
  return { seen, onTaskStatus: (t) => seen.push({ taskId: t.taskId, status: t.status }), id: () => seen[0]?.taskId };
}

