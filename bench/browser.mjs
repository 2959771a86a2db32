// The Chromium half of the benchmarks: headless Chromium driven over a bare DevTools pipe
// (`lib/cdp-pipe.mjs`; playwright-core with PLAYWRIGHT=1), pages served by the bench server
// (same origin as the MCP endpoint). CPU time of a page is the DevTools protocol's
// Performance.getMetrics `ScriptDuration` (and `TaskDuration`: all main-thread work), JS
// heap its `JSHeapUsedSize` after HeapProfiler.collectGarbage.
// Also what every bench script shares: the bench server (`startServer`) and the request
// our client sends (`captureTemplate`), which the raw loop replays.
import { build } from 'esbuild';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { launchPipe } from './lib/cdp-pipe.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BUNDLES = join(ROOT, 'bench/out/bundles');
export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-renderer-backgrounding',
  '--disable-background-timer-throttling', '--disable-backgrounding-occluded-windows',
];

/** Whether the bundles are minified: `MINIFY=0` leaves them readable, one statement a line,
 *  for a probe that needs line numbers (a CPU profile's position ticks). */
const MINIFY = process.env.MINIFY !== '0';

/** Browser bundles of the three clients and of eventsource-parser (esbuild, minified). */
export async function buildBrowserBundles() {
  const outdir = join(BUNDLES, 'clients');
  mkdirSync(outdir, { recursive: true });
  await build({
    entryPoints: ['ours', 'ts', 'raw', 'raw-strict', 'raw-pipe', 'raw-chunks', 'raw-tee', 'raw-blob', 'raw-transfer', 'raw-clone', 'raw-slices'].map((n) => join(ROOT, 'bench/clients', `${n}.js`)),
    bundle: true, format: 'esm', platform: 'browser', target: 'es2022', minify: MINIFY,
    outdir, logLevel: 'error', absWorkingDir: ROOT, splitting: false,
  });
  copyFileSync(join(ROOT, 'pkg/mcp_wasm_client_bg.wasm'), join(outdir, 'mcp_wasm_client_bg.wasm'));
  await build({
    entryPoints: [join(ROOT, 'bench/lib/esp.js')],
    bundle: true, format: 'esm', platform: 'browser', target: 'es2022', minify: MINIFY,
    outfile: join(BUNDLES, 'esp.js'), logLevel: 'error', absWorkingDir: ROOT,
  });
}

/**
 * Our client built from another package directory (`pkgDir`: a copy of `pkg/` from another
 * build) as the client `ours-b`, in a directory of its own (its bundle loads the wasm beside
 * it): an A/B of two builds in one page (`PKG_B=` in bench/tools/chromium-interleaved.mjs).
 */
export async function buildBundleB(pkgDir) {
  const outdir = join(BUNDLES, 'clients-b');
  mkdirSync(outdir, { recursive: true });
  const pkg = resolve(pkgDir);
  await build({
    entryPoints: { 'ours-b': join(ROOT, 'bench/clients/ours.js') },
    bundle: true, format: 'esm', platform: 'browser', target: 'es2022', minify: MINIFY,
    outdir, logLevel: 'error', absWorkingDir: ROOT, splitting: false,
    plugins: [{
      name: 'pkg-b',
      setup(b) {
        b.onResolve({ filter: /^\.\.\/\.\.\/pkg\// }, (a) => ({ path: join(pkg, a.path.slice('../../pkg/'.length)) }));
      },
    }],
  });
  copyFileSync(join(pkg, 'mcp_wasm_client_bg.wasm'), join(outdir, 'mcp_wasm_client_bg.wasm'));
}

/** The bench server (`bench/server.mjs`) on a free port: its child process and base URL. */
export async function startServer(env = process.env) {
  const child = spawn(process.execPath, ['bench/server.mjs', '0'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((ok, fail) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /READY (\S+)/.exec(out);
      if (m) ok(m[1]);
    });
    child.on('exit', (c) => fail(new Error(`bench server exited (${c})`)));
  });
  return { child, url };
}

/** The bench package (cargo feature `bench`: src/web/bench.rs's hooks) into
 *  bench/out/pkg-bench/, for the probes that use its hooks (bench/build-bench-pkg.sh). */
export function buildBenchPkg() {
  const p = spawnSync(join(ROOT, 'bench/build-bench-pkg.sh'), { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (p.status !== 0) throw new Error('bench/build-bench-pkg.sh failed');
}

/** The exact request our client sends for the echo call (the raw loop replays it). */
export async function captureTemplate(base) {
  const { McpClient } = await import('../pkg/index.js');
  const c = new McpClient(`${base}/json`, { clientInfo: { name: 'bench', version: '1.0.0' } });
  await c.callTool('echo', { text: 'hello from the benchmark' });
  const template = await (await fetch(`${base}/__last`)).json();
  c.close();
  return template;
}

/** A page on the bench server's blank page, in a context of its own, and `task()`: the
 *  page's main-thread task time so far in seconds (DevTools Performance.getMetrics
 *  `TaskDuration`, thread ticks). */
export async function measuredPage(browser, base) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
  await page.goto(`${base}/static/bench/pages/blank.html`);
  const task = async () => (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration').value;
  return { context, page, task };
}

/** For `interleavedBlocks`: `run(name)` makes `n` calls of the page's client `name`
 *  (`window.__c[name]`, with bench/lib/workload.js as `window.__w`), sequential
 *  (`pattern` 'seq') or concurrent in batches of `batch`. */
export function pageCalls(page, pattern, n, batch) {
  return (name) =>
    page.evaluate(
      async ({ name, pattern, n, batch }) => {
        const w = window.__w;
        if (pattern === 'seq') await w.sequential(window.__c[name], n);
        else await w.concurrent(window.__c[name], n, batch);
      },
      { name, pattern, n, batch },
    );
}

// (The per-block figures' quantile, where the probes have always found it.)
export { interpolatedQuantile } from './lib/blocks.mjs';

/** `blocks` rounds of `run(name)` for every client, in an order that rotates round by
 *  round, each run timed by `task()` (see `measuredPage`): each round's µs per call by
 *  client, `n` calls a run. */
export async function interleavedBlocks(clients, blocks, n, task, run) {
  const rounds = [];
  for (let b = 0; b < blocks; b++) {
    const block = {};
    for (let i = 0; i < clients.length; i++) {
      const name = clients[(i + b) % clients.length];
      const t0 = await task();
      await run(name);
      block[name] = ((await task()) - t0) * 1e6 / n;
    }
    rounds.push(block);
  }
  return rounds;
}

/**
 * Per-call cost of several clients in ONE page, interleaved (issue 14 target 1): the
 * clients (`clients`, raw fetch, ours and the TS client at least) are opened in a fresh
 * measured page against the server's `mode` endpoint ('json' or 'sse'), each checked by
 * one echo call, warmed up by `warmup` calls each in turns of 100, then timed in `blocks`
 * blocks of `n` calls per client and pattern (sequential, then concurrent in batches of
 * `batch`), the clients' order rotating block by block (`interleavedBlocks`). Returns
 * `{ seq, conc }`: each block's main-thread task µs per call by client.
 * `cross`: the server's URL on another origin than the page's. Clients named `lean…` are
 * the probes in bench/clients/ (unbundled: the bench package must be built), `fetch` is
 * bench/lib/workload.js `fetchAsOurs`, `ours-b` another build (`buildBundleB`).
 */
export async function interleavedPerCall(browser, base, { clients, mode, warmup, blocks, n, batch, template, cross = false }) {
  const { context, page, task } = await measuredPage(browser, base);
  try {
    await page.evaluate(
      async ({ clients, urls, url, template, warmup }) => {
        const w = await import('/static/bench/lib/workload.js');
        window.__w = w;
        window.__c = {};
        for (const name of clients) {
          const c = name === 'fetch' ? w.fetchAsOurs(url) : await (await import(urls[name])).open(url, { template });
          const first = await c.call('echo', w.ARGS);
          if (first?.content?.[0]?.text !== JSON.stringify(w.ARGS)) throw new Error(`${name}: wrong echo result ${JSON.stringify(first)}`);
          window.__c[name] = c;
        }
        // Warm-up interleaved too, in turns of 100, so no client is warmed long before the others.
        for (let i = 0; i < warmup; i += 100) for (const name of clients) await w.warmup(window.__c[name], Math.min(100, warmup - i));
      },
      {
        clients,
        urls: Object.fromEntries(clients.map((name) => [name, clientModuleUrl(base, name)])),
        url: `${cross ? base.replace('//127.0.0.1', '//localhost') : base}/${mode}`,
        template,
        warmup,
      },
    );
    const out = {};
    for (const pattern of ['seq', 'conc']) out[pattern] = await interleavedBlocks(clients, blocks, n, task, pageCalls(page, pattern, n, batch));
    return out;
  } finally {
    await context.close();
  }
}

/** Headless Chromium for the measures: over a bare DevTools pipe (`lib/cdp-pipe.mjs` says
 *  why: Playwright's request tracking costs the page main-thread time on every `fetch`).
 *  `PLAYWRIGHT=1`, or `{ playwright: true }` (what needs its tracing API): Playwright's. */
export async function launch({ playwright = process.env.PLAYWRIGHT === '1' } = {}) {
  const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
  // JS_FLAGS: V8 flags for a probe (e.g. `--no-wasm-dynamic-tiering`), never for figures.
  const args = process.env.JS_FLAGS ? [...CHROMIUM_ARGS, `--js-flags=${process.env.JS_FLAGS}`] : CHROMIUM_ARGS;
  if (!playwright) return launchPipe({ executablePath, args });
  return chromium.launch({ executablePath, args, headless: true });
}

const clientUrl = (base, name) => `${base}/static/bench/out/bundles/clients/${name}.js`;

/** The module of client `name` for a page of the bench server: the probes `lean…` are
 *  bench/clients/ as they are (the bench package must be built), `ours-b` another build's
 *  bundle (`buildBundleB`), any other the bundle `buildBrowserBundles` made. */
export function clientModuleUrl(base, name) {
  if (name.startsWith('lean')) return `${base}/static/bench/clients/${name}.js`;
  if (name === 'ours-b') return `${base}/static/bench/out/bundles/clients-b/${name}.js`;
  return clientUrl(base, name);
}

async function newPage(context, base) {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
  await page.goto(`${base}/static/bench/pages/blank.html`);
  const metrics = async () => {
    const { metrics } = await cdp.send('Performance.getMetrics');
    return Object.fromEntries(metrics.map((m) => [m.name, m.value]));
  };
  const gcHeap = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    return (await metrics()).JSHeapUsedSize;
  };
  return { page, cdp, metrics, gcHeap };
}

/** Per-call: one fresh page per client and mode; sequential then concurrent. */
export async function perCall(browser, base, { client, mode, n, batch, warmup, template }) {
  const context = await browser.newContext();
  const { page, metrics } = await newPage(context, base);
  const url = `${base}/${mode}`;
  await page.evaluate(
    async ({ mod, url, template, warmup }) => {
      const m = await import(mod);
      const w = await import('/static/bench/lib/workload.js');
      window.__c = await m.open(url, { template });
      window.__w = w;
      const first = await window.__c.call('echo', w.ARGS);
      if (first?.content?.[0]?.text !== JSON.stringify(w.ARGS)) throw new Error(`wrong echo result ${JSON.stringify(first)}`);
      await w.warmup(window.__c, warmup);
    },
    { mod: clientUrl(base, client), url, template, warmup },
  );
  const out = { client, mode };
  for (const pattern of ['seq', 'conc']) {
    await fetch(`${base}/__stats?reset=1`);
    const m0 = await metrics();
    const r = await page.evaluate(
      async ({ pattern, n, batch }) => {
        const w = window.__w;
        const r = pattern === 'seq' ? await w.sequential(window.__c, n) : await w.concurrent(window.__c, n, batch);
        return w.summarize(r);
      },
      { pattern, n, batch },
    );
    const m1 = await metrics();
    const stats = await (await fetch(`${base}/__stats?reset=1`)).json();
    out[pattern] = {
      ...r,
      scriptUsPerCall: ((m1.ScriptDuration - m0.ScriptDuration) * 1e6) / n,
      taskUsPerCall: ((m1.TaskDuration - m0.TaskDuration) * 1e6) / n,
      requestsPerCall: Object.values(stats).reduce((a, b) => a + b, 0) / n,
    };
  }
  await context.close();
  return out;
}

/** Start-up: a fresh context (cold HTTP, code and wasm caches) per run, then the same page
 * reloaded in that context (warm). From the dynamic import of the client's bundle to the
 * first listTools result. */
export async function startup(browser, base, { client }) {
  const context = await browser.newContext();
  const run = async () => {
    const { page, metrics } = await newPage(context, base);
    const m0 = await metrics();
    const r = await page.evaluate(
      async ({ mod, url }) => {
        const t0 = performance.now();
        const m = await import(mod);
        const t1 = performance.now();
        const c = await m.open(url);
        const { tools } = await c.listTools();
        if (!tools.length) throw new Error('no tools');
        return { importMs: t1 - t0, totalMs: performance.now() - t0 };
      },
      { mod: clientUrl(base, client), url: `${base}/json` },
    );
    const m1 = await metrics();
    await page.close();
    return { ...r, scriptMs: (m1.ScriptDuration - m0.ScriptDuration) * 1000 };
  };
  const cold = await run();
  // Let the first load's background work (wasm tier-up, GC) finish before the warm run.
  await new Promise((r) => setTimeout(r, 1500));
  const warm = await run();
  await context.close();
  return { client, cold, warm };
}

/** A field of /proc/<pid>/status in bytes (`VmRSS`, `VmHWM`), 0 when absent. */
function procStatus(pid, field) {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/**
 * The peak resident memory that `run()` adds to the browser's renderer processes: Linux's
 * own high-water mark (`VmHWM` in /proc/<pid>/status, reset to the current size by writing 5
 * to /proc/<pid>/clear_refs right before `run()`) minus each renderer's size before it,
 * summed (only the measured page's renderer is busy; `all`: every process's). `bcdp`: a
 * browser CDP session (`browser.newBrowserCDPSession()`). Null where /proc cannot be read or reset (not Linux,
 * another user's processes): the figure is then left out, not guessed.
 */
export async function rendererPeakGrowth(bcdp, run, { all = false } = {}) {
  // `all`: every process of the browser (browser, GPU, network and storage services too),
  // for a reader that may move bytes out of the renderer (a Blob's are kept by the browser).
  const pids = (await bcdp.send('SystemInfo.getProcessInfo')).processInfo.filter((p) => all || p.type === 'renderer').map((p) => p.id);
  let before = null;
  try {
    if (pids.every((pid) => existsSync(`/proc/${pid}/clear_refs`))) {
      before = new Map(pids.map((pid) => [pid, procStatus(pid, 'VmRSS')]));
      for (const pid of pids) writeFileSync(`/proc/${pid}/clear_refs`, '5');
    }
  } catch {
    before = null;
  }
  const result = await run();
  let peak = null;
  if (before) {
    peak = 0;
    for (const pid of pids) peak += Math.max(0, procStatus(pid, 'VmHWM') - before.get(pid));
  }
  return { result, peak };
}

/** One measured large call in a page opened for it (`window.__c`, and `window.__tHead` set
 *  by its fetch spy), its result kept alive in `window.__keep`: `{ totalMs, fromHeadMs }`. */
export function largeCall(page) {
  return page.evaluate(async () => {
    const t0 = performance.now();
    window.__keep = await window.__c.call('large', {});
    const t1 = performance.now();
    if (!window.__keep.structuredContent.items.length) throw new Error('no items');
    return { totalMs: t1 - t0, fromHeadMs: t1 - window.__tHead };
  });
}

/** Large result: time from the response head to the result object, and in all; and the
 *  renderer's peak resident memory growth during each call (`rendererPeakGrowth`; null
 *  where it cannot be read). */
export async function large(browser, base, { client, reps }) {
  const context = await browser.newContext();
  const bcdp = await browser.newBrowserCDPSession();
  const { page, gcHeap } = await newPage(context, base);
  await page.evaluate(
    async ({ mod, url }) => {
      const m = await import(mod);
      window.__tHead = 0;
      const spy = (u, i) => fetch(u, i).then((r) => ((window.__tHead = performance.now()), r));
      window.__m = m;
      window.__c = await m.open(url, { fetch: spy });
      await window.__c.call('echo', { text: 'warm' });
      await window.__c.call('large', {}); // warm-up
    },
    { mod: clientUrl(base, client), url: `${base}/json` },
  );
  const times = [];
  let heapAfter = 0;
  for (let i = 0; i < reps; i++) {
    // The previous result is dropped first, so each call starts from the same heap.
    await page.evaluate(() => {
      window.__keep = null;
    });
    await gcHeap();
    await new Promise((ok) => setTimeout(ok, 300));
    const { result, peak } = await rendererPeakGrowth(bcdp, () => largeCall(page));
    times.push({ ...result, peakRssGrowth: peak });
    heapAfter = await gcHeap();
  }
  const wasmMemory = await page.evaluate(async () => (window.__m.wasmMemoryBytes ? window.__m.wasmMemoryBytes() : 0));
  await bcdp.detach();
  await context.close();
  return { client, times, heapWithResult: heapAfter, wasmMemory };
}

/** Many tasks: `count` concurrent waitForTask on tasks the server keeps working for
 * TASK_MS, polled at 1 s. CPU of the page over the wait, JS heap growth while they live.
 * `client: 'ours'` waits through `notifications/tasks` on the shared listen stream (issue
 * 14, `pushTasks: 'auto'`, the default); `'ours-poll'` is today's polling (`pushTasks:
 * false`); `'raw'` is the floor: the same tasks created and polled with bare fetch.
 * Besides the whole wait, a steady window from `settleMs` after the waits started to the
 * end (all requests counted, by method): with TASK_MS >= settleMs + 65 s it holds one
 * backstop round of the pushed client (one poll per task per minute). */
export async function manyTasks(browser, base, { count, taskMs, client = 'ours', settleMs = 5000 }) {
  const context = await browser.newContext();
  const { page, metrics, gcHeap } = await newPage(context, base);
  const url = `${base}/json`;
  await page.evaluate(
    async ({ mod, url, client }) => {
      if (client === 'raw') {
        window.__raw = await import('/static/bench/lib/raw-tasks.js');
        window.__m = { wasmMemoryBytes: async () => 0 };
        await fetch(url, { method: 'OPTIONS' }).catch(() => {});
        return;
      }
      const m = await import(mod);
      window.__m = m;
      window.__c = await m.open(url, { tasks: true, pushTasks: client === 'ours-poll' ? false : 'auto' });
      await window.__c.call('echo', { text: 'warm' });
    },
    { mod: clientUrl(base, 'ours'), url, client },
  );
  const heap0 = await gcHeap();
  const wasm0 = await page.evaluate(() => window.__m.wasmMemoryBytes());
  await fetch(`${base}/__stats?reset=1`);
  const created = await page.evaluate(
    async ({ count, url, taskMs }) => {
      const t0 = performance.now();
      let done;
      if (window.__raw) {
        const tasks = await window.__raw.createTasks(url, count);
        done = window.__raw.waitAll(url, tasks);
      } else {
        const c = window.__c.client;
        const tasks = [];
        for (let i = 0; i < count; i += 50) {
          tasks.push(...(await Promise.all(Array.from({ length: Math.min(50, count - i) }, () => c.callToolAsTask('task', { ms: taskMs })))));
        }
        done = Promise.all(tasks.map((t) => c.waitForTask(t)));
      }
      window.__done = done.then((rs) => {
        window.__results = rs.length;
      });
      return { createMs: performance.now() - t0 };
    },
    { count, url, taskMs },
  );
  const m0 = await metrics();
  const t0 = Date.now();
  // The steady window starts once the waits settled (first polls, the listen).
  const sum = (st) => Object.values(st).reduce((a, b) => a + b, 0);
  await new Promise((r) => setTimeout(r, settleMs));
  const settleStats = await (await fetch(`${base}/__stats?reset=1`)).json();
  const ms0 = await metrics();
  const ts0 = Date.now();
  // While they live: the heap at about half the task time (after a full GC).
  await new Promise((r) => setTimeout(r, Math.max(1000, taskMs / 2 - created.createMs - settleMs)));
  const gcStart = Date.now();
  const heapLive = await gcHeap();
  const gcMs = Date.now() - gcStart;
  const wasmLive = await page.evaluate(() => window.__m.wasmMemoryBytes());
  await page.evaluate(() => window.__done);
  const m1 = await metrics();
  const elapsed = (Date.now() - t0) / 1000;
  const steadyS = (Date.now() - ts0) / 1000;
  const steadyStats = await (await fetch(`${base}/__stats?reset=1`)).json();
  const stats = { ...settleStats };
  for (const [k, v] of Object.entries(steadyStats)) stats[k] = (stats[k] || 0) + v;
  const results = await page.evaluate(() => window.__results);
  await context.close();
  if (results !== count) throw new Error(`only ${results} of ${count} tasks finished`);
  const taskS = m1.TaskDuration - m0.TaskDuration;
  const scriptS = m1.ScriptDuration - m0.ScriptDuration;
  return {
    client,
    count,
    taskMs,
    createMs: created.createMs,
    waitS: elapsed,
    cpuPercentOfCore: (100 * taskS) / elapsed,
    scriptPercentOfCore: (100 * scriptS) / elapsed,
    gcMsIncluded: gcMs,
    heapGrowth: heapLive - heap0,
    wasmGrowth: wasmLive - wasm0,
    polls: stats['tasks/get'] || 0,
    pollsPerS: (stats['tasks/get'] || 0) / elapsed,
    requests: sum(stats),
    requestsPerS: sum(stats) / elapsed,
    listens: stats['subscriptions/listen'] || 0,
    // The steady window (settleMs to the end; the GC above is inside it, as in the whole).
    steadyS,
    steadyCpuPercentOfCore: (100 * (m1.TaskDuration - ms0.TaskDuration)) / steadyS,
    steadyRequests: sum(steadyStats),
    steadyRequestsPerS: sum(steadyStats) / steadyS,
    steadyPolls: steadyStats['tasks/get'] || 0,
  };
}

/** SSE parsing throughput in a page: our parser (bench package) vs eventsource-parser. */
export async function sseParse(browser, base, opts) {
  const context = await browser.newContext();
  const { page } = await newPage(context, base);
  const r = await page.evaluate(async (opts) => {
    const b = await import('/static/bench/out/pkg-bench/mcp_wasm_client.js');
    await b.default({ module_or_path: '/static/bench/out/pkg-bench/mcp_wasm_client_bg.wasm' });
    const { createParser } = await import('/static/bench/out/bundles/esp.js');
    const { sseBench } = await import('/static/bench/lib/sse-bench.js');
    return sseBench({ feed: b.__bench_sse, reset: b.__bench_sse_reset, createParser, ...opts });
  }, opts);
  await context.close();
  return r;
}
