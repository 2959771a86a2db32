// The benchmark run (bench/run.sh calls this after building pkg/ and the bench package).
// Prints every figure, writes bench/out/results.json and the generated part of
// BENCHMARKS.md. Settings (environment):
//   ROUNDS=3         timing runs of everything (figures are min / median / max over them)
//   N=1000 BATCH=50 WARMUPS=5000,200    per-call workload: calls per pattern, batch size,
//                                       and the warm-up regimes (warm-up calls before the
//                                       measured ones: steady state first; issue 14 target 1
//                                       is judged at both)
//   IBLOCKS=40 IN=200 Chromium's per-call cost again with the three clients in one page:
//                    blocks of IN calls per client and pattern, after each warm-up regime
//   CROSS=1          the same blocks once more with the server on another origin than the
//                    page's (`localhost` for `127.0.0.1`), as most pages' calls to an MCP
//                    server are; CROSS=0 leaves them out (about 5 minutes)
//   STARTUP_RUNS=5   fresh processes / cold browser contexts per round (median taken)
//   LARGE_REPS=5     large-result calls per round (median taken)
//   TASK_MS=75000 TASK_COUNTS=100,1000  many-tasks run (one run per count and round); the
//                    push client's tasks last long enough for one backstop round in the
//                    steady window (over 300 tasks the backstop period grows: pushTaskMs)
//   TASK_CLIENTS=ours,ours-poll,raw     the many-tasks run's clients
//   TASK_ROUNDS=1    rounds of the many-tasks run (each takes TASK_MS per count)
//   SSE_MB=50 SSE_CHUNK=65536           SSE parsing
//   ONLY=size,node,browser,tasks,sse    parts to run (default: all); `startup` alone: only
//                                       the start-up runs of node and browser
//   QUICK=1          a short smoke run: ROUNDS=1 N=200 IBLOCKS=4 IN=50 STARTUP_RUNS=2 LARGE_REPS=2
//                    TASK_MS=5000 SSE_MB=10 (figures not for BENCHMARKS.md: it is not written)
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as B from './browser.mjs';
import { writeReport } from './report.mjs';
import { bundle } from './size.mjs';
import { median } from './lib/workload.js';
import { describeRatio, ratioSummary } from './lib/blocks.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const env = process.env;
const QUICK = env.QUICK === '1';
const num = (k, d, q) => Number(env[k] ?? (QUICK ? q ?? d : d));
const cfg = {
  rounds: num('ROUNDS', 3, 1),
  n: num('N', 1000, 200),
  batch: num('BATCH', 50),
  // The interleaved blocks (target 1 in Chromium, the three clients in one page).
  iblocks: num('IBLOCKS', 40, 4),
  iN: num('IN', 200, 50),
  cross: env.CROSS !== '0',
  warmups: (env.WARMUPS ?? env.WARMUP ?? (QUICK ? '50' : '5000,200')).split(',').map(Number),
  startupRuns: num('STARTUP_RUNS', 5, 2),
  largeReps: num('LARGE_REPS', 5, 2),
  // 75 s: the steady window (5 s to the end) holds one backstop round of push-driven tasks.
  taskMs: num('TASK_MS', 75000, 10000),
  taskCounts: (env.TASK_COUNTS || '100,1000').split(',').map(Number),
  taskClients: (env.TASK_CLIENTS || 'ours,ours-poll,raw').split(','),
  taskRounds: num('TASK_ROUNDS', 1),
  sseMb: num('SSE_MB', 50, 10),
  sseChunk: num('SSE_CHUNK', 65536),
  only: new Set((env.ONLY || 'size,node,browser,tasks,sse').split(',')),
  quick: QUICK,
};
const OUT = join(ROOT, 'bench/out');

/** How long the push client's tasks work: TASK_MS, or longer where the steady window (from
 *  5 s after the waits started) would not hold one backstop round: the engine's backstop
 *  period is max(60 s, 200 ms per covered task) (`engine::task::push::backstop_period`),
 *  and 10 s more let the round finish. */
const pushTaskMs = (count) => Math.max(cfg.taskMs, 5000 + Math.max(60000, 200 * count) + 10000);
mkdirSync(OUT, { recursive: true });
const log = (...a) => console.log(...a);

function runNode(args, extraEnv = {}) {
  const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', env: { ...env, ...extraEnv }, maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed:\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}


function machine() {
  const v = (cmd, args) => {
    const r = spawnSync(cmd, args, { encoding: 'utf8' });
    return (r.stdout || r.stderr || '').trim().split('\n')[0];
  };
  const pkgv = (p) => JSON.parse(readFileSync(join(ROOT, 'node_modules', p, 'package.json'), 'utf8')).version;
  return {
    date: new Date().toISOString(),
    cpu: `${cpus()[0]?.model} × ${cpus().length}`,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: v('uname', ['-sr']),
    node: process.version,
    chromium: v(env.CHROMIUM || '/usr/bin/chromium', ['--version']),
    rustc: v('rustc', ['--version']),
    wasmBindgen: v('wasm-bindgen', ['--version']),
    wasmOpt: v(join(ROOT, 'node_modules/.bin/wasm-opt'), ['--version']),
    esbuild: pkgv('esbuild'),
    tsClient: pkgv('@modelcontextprotocol/client'),
    extTasks: pkgv('@modelcontextprotocol/ext-tasks'),
    eventsourceParser: pkgv('eventsource-parser'),
    playwright: pkgv('playwright-core'),
    driver: env.PLAYWRIGHT === '1' ? `playwright-core ${pkgv('playwright-core')}` : 'a bare DevTools pipe, bench/lib/cdp-pipe.mjs',
    commit: v('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD']),
    dirty: spawnSync('git', ['-C', ROOT, 'status', '--porcelain', '--', 'src', 'Cargo.toml', 'Cargo.lock'], { encoding: 'utf8' }).stdout.trim() !== '',
  };
}

const results = { config: cfg, machine: machine() };
const CLIENTS = ['raw', 'ours', 'ts'];
const MODES = ['json', 'sse'];

if (cfg.only.has('size')) {
  log('\n== 1. Size ==');
  results.size = {};
  for (const name of ['ours', 'ts', 'ts-tasks', 'raw']) results.size[name] = await bundle(name);
  // Issue 14 target 4: the modern entry (mcp-wasm-client/modern, 2026-07-28 only) too.
  results.size['ours-modern'] = { ...(await bundle('ours', { pkg: join(ROOT, 'pkg/modern'), outName: 'ours-modern' })), name: 'ours-modern' };
  for (const f of Object.values(results.size)) {
    log(`  ${f.name.padEnd(9)} JS ${f.jsBytes} B${f.wasmBytes ? ` + wasm ${f.wasmBytes} B` : ''} → gzip -9 ${f.totalGzip} B (brotli ${f.totalBrotli} B)`);
  }
  const o = results.size.ours.totalGzip;
  log(`  ours / TS minimal = ${(o / results.size.ts.totalGzip).toFixed(2)}×, ours / TS + ext-tasks = ${(o / results.size['ts-tasks'].totalGzip).toFixed(2)}×`);
}

const needServer = ['node', 'browser', 'startup', 'tasks', 'sse'].some((p) => cfg.only.has(p));
// Per call and large results with `node` / `browser`; the start-up runs also with `startup`.
const full = (where) => cfg.only.has(where);
const startupToo = (where) => cfg.only.has(where) || cfg.only.has('startup');

/** Start-up runs of `CLIENTS`, interleaved: run k goes through the clients in an order that
 *  rotates with k, so that a drift of the machine's speed falls on every client alike
 *  (blocks of runs per client were not: BENCHMARKS.md, the sixteenth session). */
async function startupRuns(one) {
  const runs = Object.fromEntries(CLIENTS.map((c) => [c, []]));
  for (let k = 0; k < cfg.startupRuns; k++) {
    for (let i = 0; i < CLIENTS.length; i++) {
      const client = CLIENTS[(i + k) % CLIENTS.length];
      runs[client].push(await one(client));
    }
  }
  return runs;
}
const server = needServer ? await B.startServer({ ...env, TASK_MS: String(cfg.taskMs) }) : null;
const base = server?.url;
try {
  const template = needServer ? await B.captureTemplate(base) : null;

  if (startupToo('node')) {
    log(`\n== 2-4. Node ${process.version}: ${full('node') ? 'per call, start-up, large result' : 'start-up'} (${cfg.rounds} rounds) ==`);
    // percall: warm-up regime → rounds.
    results.node = { percall: Object.fromEntries(cfg.warmups.map((w) => [w, []])), startup: [], large: [] };
    for (let r = 0; r < cfg.rounds; r++) {
      for (const warmup of full('node') ? cfg.warmups : []) {
        const round = {};
        for (const mode of MODES) {
          for (const client of CLIENTS) {
            const opts = { n: cfg.n, batch: cfg.batch, warmup, template, stats: `${base}/__stats` };
            const x = runNode(['--expose-gc', 'bench/node/percall.mjs', client, `${base}/${mode}`, JSON.stringify(opts)]);
            round[`${client}/${mode}`] = x;
            log(`  round ${r + 1} warm-up ${warmup} ${mode} ${client.padEnd(4)} seq ${x.seq.callsPerSec.toFixed(0)}/s p50 ${x.seq.p50.toFixed(3)} ms cpu ${x.seq.cpuUsPerCall.toFixed(0)} µs | conc ${x.conc.callsPerSec.toFixed(0)}/s cpu ${x.conc.cpuUsPerCall.toFixed(0)} µs`);
          }
        }
        results.node.percall[warmup].push(round);
      }
      const st = {};
      const byClient = await startupRuns(async (client) => runNode(['bench/node/startup.mjs', client, `${base}/json`]));
      for (const client of CLIENTS) {
        const runs = byClient[client];
        st[client] = { importMs: median(runs.map((x) => x.importMs)), totalMs: median(runs.map((x) => x.totalMs)), runs };
        log(`  round ${r + 1} start-up ${client.padEnd(4)} import ${st[client].importMs.toFixed(1)} ms, to first listTools ${st[client].totalMs.toFixed(1)} ms`);
      }
      results.node.startup.push(st);
      const lg = {};
      for (const client of full('node') ? CLIENTS : []) {
        const x = runNode(['--expose-gc', 'bench/node/large.mjs', client, `${base}/json`, String(cfg.largeReps)]);
        lg[client] = { ...x, totalMs: median(x.times.map((t) => t.totalMs)), fromHeadMs: median(x.times.map((t) => t.fromHeadMs)) };
        log(`  round ${r + 1} large ${client.padEnd(4)} ${lg[client].totalMs.toFixed(1)} ms (from head ${lg[client].fromHeadMs.toFixed(1)} ms), peak RSS +${(x.peakRssGrowth / 2 ** 20).toFixed(1)} MiB`);
      }
      if (full('node')) results.node.large.push(lg);
    }
  }

  if (['browser', 'startup', 'tasks', 'sse'].some((p) => cfg.only.has(p))) {
    await B.buildBrowserBundles();
    const browser = await B.launch();
    try {
      if (startupToo('browser')) {
        log(`\n== 2-4. Chromium: ${full('browser') ? 'per call, start-up, large result' : 'start-up'} (${cfg.rounds} rounds) ==`);
        results.browser = { percall: Object.fromEntries(cfg.warmups.map((w) => [w, []])), startup: [], large: [] };
        for (let r = 0; r < cfg.rounds; r++) {
          for (const warmup of full('browser') ? cfg.warmups : []) {
            const round = {};
            for (const mode of MODES) {
              for (const client of CLIENTS) {
                const x = await B.perCall(browser, base, { client, mode, n: cfg.n, batch: cfg.batch, warmup, template });
                round[`${client}/${mode}`] = x;
                log(`  round ${r + 1} warm-up ${warmup} ${mode} ${client.padEnd(4)} seq ${x.seq.callsPerSec.toFixed(0)}/s p50 ${x.seq.p50.toFixed(2)} ms task ${x.seq.taskUsPerCall.toFixed(0)} µs | conc ${x.conc.callsPerSec.toFixed(0)}/s task ${x.conc.taskUsPerCall.toFixed(0)} µs`);
              }
            }
            results.browser.percall[warmup].push(round);
          }
          const st = {};
          const byClient = await startupRuns((client) => B.startup(browser, base, { client }));
          for (const client of CLIENTS) {
            const runs = byClient[client];
            const pick = (w, f) => median(runs.map((x) => x[w][f]));
            st[client] = {
              cold: { importMs: pick('cold', 'importMs'), totalMs: pick('cold', 'totalMs'), scriptMs: pick('cold', 'scriptMs') },
              warm: { importMs: pick('warm', 'importMs'), totalMs: pick('warm', 'totalMs'), scriptMs: pick('warm', 'scriptMs') },
              runs,
            };
            log(`  round ${r + 1} start-up ${client.padEnd(4)} cold ${st[client].cold.totalMs.toFixed(1)} ms, warm ${st[client].warm.totalMs.toFixed(1)} ms`);
          }
          results.browser.startup.push(st);
          const lg = {};
          for (const client of full('browser') ? CLIENTS : []) {
            const x = await B.large(browser, base, { client, reps: cfg.largeReps });
            const peaks = x.times.map((t) => t.peakRssGrowth).filter((p) => p !== null);
            lg[client] = { ...x, totalMs: median(x.times.map((t) => t.totalMs)), fromHeadMs: median(x.times.map((t) => t.fromHeadMs)), peakRssGrowth: peaks.length ? median(peaks) : null };
            log(`  round ${r + 1} large ${client.padEnd(4)} ${lg[client].totalMs.toFixed(1)} ms (from head ${lg[client].fromHeadMs.toFixed(1)} ms)${peaks.length ? `, renderer peak RSS +${(lg[client].peakRssGrowth / 2 ** 20).toFixed(1)} MiB` : ''}`);
          }
          if (full('browser')) results.browser.large.push(lg);
        }
        // Target 1 again, the three clients in one page (`B.interleavedPerCall`): each block
        // runs them back to back, so a block's ratio does not mix moments of the machine
        // minutes apart, as the rounds above do (each client in a page of its own).
        if (full('browser')) {
          log(`\n== 2. Chromium: per call, the three clients in one page (${cfg.iblocks} blocks of ${cfg.iN} calls per client and pattern) ==`);
          results.browser.interleaved = {};
          for (const warmup of cfg.warmups) {
            results.browser.interleaved[warmup] = {};
            for (const mode of MODES) {
              const x = await B.interleavedPerCall(browser, base, { clients: CLIENTS, mode, warmup, blocks: cfg.iblocks, n: cfg.iN, batch: cfg.batch, template });
              results.browser.interleaved[warmup][mode] = x;
              for (const pattern of ['seq', 'conc']) {
                const s = ratioSummary(x[pattern], 'ours');
                log(`  warm-up ${warmup} ${mode} ${pattern}: raw ${s.us.raw.toFixed(0)}, ours ${s.us.ours.toFixed(0)}, TS ${s.us.ts.toFixed(0)} µs; (ours − raw) ÷ (TS − raw) ${describeRatio(s)}`);
              }
            }
          }
        }
        // The same with the server on another origin: what most pages do. A cross-origin
        // response is read differently (CORS hides Content-Encoding, so our runner reads its
        // body chunk by chunk: src/web/js/fetch.js `run`), and the browser's CORS work adds to
        // every client's call. Reported beside target 1, which names the server's origin.
        if (full('browser') && cfg.cross) {
          log(`\n== 2. Chromium: per call, the three clients in one page, the server on another origin (${cfg.iblocks} blocks of ${cfg.iN} calls per client and pattern) ==`);
          results.browser.interleavedCross = {};
          for (const warmup of cfg.warmups) {
            results.browser.interleavedCross[warmup] = {};
            for (const mode of MODES) {
              const x = await B.interleavedPerCall(browser, base, { clients: CLIENTS, mode, warmup, blocks: cfg.iblocks, n: cfg.iN, batch: cfg.batch, template, cross: true });
              results.browser.interleavedCross[warmup][mode] = x;
              for (const pattern of ['seq', 'conc']) {
                const s = ratioSummary(x[pattern], 'ours');
                log(`  another origin, warm-up ${warmup} ${mode} ${pattern}: raw ${s.us.raw.toFixed(0)}, ours ${s.us.ours.toFixed(0)}, TS ${s.us.ts.toFixed(0)} µs; (ours − raw) ÷ (TS − raw) ${describeRatio(s)}`);
              }
            }
          }
        }
      }
      if (cfg.only.has('tasks')) {
        log(`\n== 5. Many tasks in Chromium (task time ${cfg.taskMs} ms, pollIntervalMs 1 s; ours = pushTasks 'auto', ours-poll = pushTasks false) ==`);
        results.tasks = [];
        for (let r = 0; r < cfg.taskRounds; r++) {
          const round = {};
          for (const count of cfg.taskCounts) {
            for (const client of cfg.taskClients) {
              const taskMs = client === 'ours' ? pushTaskMs(count) : cfg.taskMs;
              const x = await B.manyTasks(browser, base, { count, taskMs, client });
              round[`${client}/${count}`] = x;
              log(`  round ${r + 1} ${client.padEnd(9)} ${count} tasks: CPU ${x.cpuPercentOfCore.toFixed(2)} % of a core (script ${x.scriptPercentOfCore.toFixed(2)} %), JS heap +${(x.heapGrowth / 2 ** 20).toFixed(2)} MiB, wasm memory +${(x.wasmGrowth / 2 ** 20).toFixed(2)} MiB, ${x.pollsPerS.toFixed(0)} polls/s, ${x.requestsPerS.toFixed(1)} requests/s (${x.listens} listens); steady ${x.steadyS.toFixed(0)} s: CPU ${x.steadyCpuPercentOfCore.toFixed(2)} %, ${x.steadyRequestsPerS.toFixed(2)} requests/s (${x.steadyPolls} polls)`);
            }
          }
          results.tasks.push(round);
        }
      }
      if (cfg.only.has('sse')) {
        log(`\n== 6. SSE parsing (${cfg.sseMb} MB, ${cfg.sseChunk}-byte chunks) ==`);
        results.sse = { chromium: [], node: [] };
        for (const small of [false, true]) {
          const opts = { bytes: cfg.sseMb * 1e6, chunk: cfg.sseChunk, reps: cfg.rounds, small };
          const c = await B.sseParse(browser, base, opts);
          const n = runNode(['bench/node/sse.mjs', String(cfg.sseMb), String(cfg.sseChunk), String(cfg.rounds), small ? 'small' : 'mixed']);
          results.sse.chromium.push(c);
          results.sse.node.push(n);
          for (const [where, x] of [['Chromium', c], ['Node', n]]) {
            const f = (k) => median(x.mbps[k]).toFixed(0);
            log(`  ${where} ${small ? 'small events' : 'mixed events'}: ours ${f('ours')} MB/s, eventsource-parser ${f('espDecode')} MB/s with TextDecoder (${f('espParseOnly')} parse only); events ${JSON.stringify(x.events)}`);
          }
        }
      }
    } finally {
      await browser.close();
    }
  }
} finally {
  server?.child.kill('SIGTERM');
}

writeFileSync(join(OUT, 'results.json'), JSON.stringify(results, null, 2));
log(`\nresults: bench/out/results.json`);
const table = writeReport(results, { write: !cfg.quick && ['size', 'node', 'browser', 'tasks', 'sse'].every((p) => cfg.only.has(p)) });
log(`\n${table}`);
process.exit(0);
