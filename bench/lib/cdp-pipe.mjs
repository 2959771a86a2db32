// Headless Chromium driven over a bare DevTools pipe (`--remote-debugging-pipe`), with the
// subset of Playwright's API the benchmarks use (browser.newContext / newBrowserCDPSession /
// version / close, context.newPage / newCDPSession / close, page.goto / evaluate / close).
//
// Why not Playwright for the measures: Playwright enables the DevTools Network domain on
// every page (it reports requests to its own API), and with it the renderer records every
// request for DevTools (initiator, stack, headers, timing). That is main-thread work a user's
// page never does, and it is paid per `fetch`: measured side by side on one machine
// (bench/tools/chromium-drivers.mjs), raw `fetch` cost 776–803 µs of main-thread time per
// sequential call and 2.0 ms of wall time under Playwright, against 666–720 µs and 1.5–1.6
// ms over this pipe, and every client 60–175 µs more (BENCHMARKS.md, the twenty-first
// session). Here no domain is enabled but those a measure
// asks for (Performance, Profiler, HeapProfiler, Page for navigation).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Launches Chromium at `executablePath` with `args` (plus headless and the pipe). */
export async function launchPipe({ executablePath, args = [] }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-chromium-'));
  const proc = spawn(executablePath, [...args, '--headless', '--remote-debugging-pipe', `--user-data-dir=${dataDir}`, 'about:blank'], {
    stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'],
  });
  const out = proc.stdio[3];
  const inp = proc.stdio[4];
  let nextId = 0;
  let pending = '';
  let closed = null;
  const waits = new Map();
  const listeners = new Set();
  const fail = (e) => {
    closed = e;
    for (const [, w] of waits) w.fail(e);
    waits.clear();
  };
  proc.on('exit', (code) => fail(new Error(`chromium exited (${code})`)));
  proc.on('error', fail);
  inp.on('data', (d) => {
    pending += d.toString();
    let i;
    while ((i = pending.indexOf('\0')) >= 0) {
      const msg = JSON.parse(pending.slice(0, i));
      pending = pending.slice(i + 1);
      const w = msg.id !== undefined ? waits.get(msg.id) : undefined;
      if (w) {
        waits.delete(msg.id);
        if (msg.error) w.fail(new Error(`${w.method}: ${msg.error.message}`));
        else w.ok(msg.result);
      } else if (msg.method) {
        for (const l of listeners) l(msg);
      }
    }
  });
  const send = (method, params = {}, sessionId) =>
    new Promise((ok, fail) => {
      if (closed) return fail(closed);
      const m = { id: ++nextId, method, params };
      if (sessionId) m.sessionId = sessionId;
      waits.set(m.id, { ok, fail, method });
      out.write(`${JSON.stringify(m)}\0`);
    });
  const event = (method, sessionId) =>
    new Promise((ok) => {
      const l = (msg) => {
        if (msg.method === method && msg.sessionId === sessionId) {
          listeners.delete(l);
          ok(msg.params);
        }
      };
      listeners.add(l);
    });
  const session = (sessionId) => ({
    send: (method, params) => send(method, params, sessionId),
    detach: async () => {},
  });
  const { product } = await send('Browser.getVersion');

  const newPage = async (browserContextId) => {
    const { targetId } = await send('Target.createTarget', { url: 'about:blank', browserContextId });
    const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
    await send('Page.enable', {}, sessionId);
    return {
      sessionId,
      async goto(url) {
        const loaded = event('Page.loadEventFired', sessionId);
        const r = await send('Page.navigate', { url }, sessionId);
        if (r.errorText) throw new Error(`navigation to ${url}: ${r.errorText}`);
        await loaded;
      },
      /** `fn` (a function, called with `arg`, or an expression): its awaited value, by value. */
      async evaluate(fn, arg) {
        const expression = typeof fn === 'function' ? `(${fn})(${arg === undefined ? '' : JSON.stringify(arg)})` : String(fn);
        const r = await send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, sessionId);
        if (r.exceptionDetails) {
          const d = r.exceptionDetails;
          throw new Error(`page.evaluate: ${d.exception?.description || d.text}`);
        }
        return r.result.value;
      },
      close: () => send('Target.closeTarget', { targetId }),
    };
  };

  return {
    version: () => product.replace(/^[^/]*\//, ''),
    async newContext() {
      const { browserContextId } = await send('Target.createBrowserContext', { disposeOnDetach: true });
      return {
        newPage: () => newPage(browserContextId),
        newCDPSession: async (page) => session(page.sessionId),
        close: () => send('Target.disposeBrowserContext', { browserContextId }),
      };
    },
    newBrowserCDPSession: async () => session(undefined),
    async close() {
      await send('Browser.close').catch(() => {});
      await new Promise((ok) => (proc.exitCode !== null ? ok() : proc.once('exit', ok)));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
