// What one steady call costs the client process in Node, counted instead of timed
// (BENCHMARKS.md, the twenty-eighth session): instructions executed and the misses of a
// simulated cache hierarchy, per call, under valgrind's cachegrind. Each client runs in a
// fresh process against the bench server's /json (the echo tool), twice: WARMUP calls
// then none, and WARMUP calls then N more; the difference divided by N is one steady
// call's share. Counts hardly depend on timing, so they resolve differences of a few µs
// that the timed probes (node-loopback-parts.mjs) lose in this machine's noise, and they
// say what kind of cost a difference is: work (instructions) or footprint (misses: the
// code and data a call touches, brought back into the caches after the network's steps).
// A probe, not a benchmark: valgrind runs the process some 50 times slower, so nothing
// here is a time.
//   node bench/tools/node-cachegrind.mjs      CLIENTS=raw,fetch,lean,lean-core,ours,ts
//   CLIENTS=ours,ours-b PKG_B=/tmp/pkg-old REPEAT=2 node bench/tools/node-cachegrind.mjs
// Settings: WARMUP (default 400), N (800), MODE=seq|conc (one at a time, or batches of
// 50), ENDPOINT=json|sse (the bench server's answers: JSON, the default, or an SSE
// stream), REPEAT (runs per client, default 1), FLAGS (Node's flags for the client; by
// default those that make runs repeat, see DETERMINISTIC), JOBS (valgrind processes at
// once, default 2),
// LL (the simulated last level, default 2 MiB, 16 ways: this machine's L2 per core; the
// first level is the host's, as cachegrind reads it), KEEP (a directory: each run's
// cachegrind.out.<client>.<run>.<calls> is kept there, for bench/tools/cachegrind-diff.mjs).
// Clients: raw, fetch, lean, lean-core, ours, ours-b (ours-c, …), ts (bench/lib/node-clients.mjs).
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { echoCall } from '../lib/node-clients.mjs';
import { median } from '../lib/workload.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The child: `total` calls in the pattern MODE, then exit. */
async function child(client, url, total) {
  const call = await echoCall(client, url);
  if (!call) throw new Error(`unknown client ${client}`);
  const warmup = Number(process.env.WARMUP || 400);
  for (let i = 0; i < warmup; i++) await call();
  if (process.env.MODE === 'conc') {
    for (let i = 0; i < total; i += 50) await Promise.all(Array.from({ length: Math.min(50, total - i) }, call));
  } else {
    for (let i = 0; i < total; i++) await call();
  }
  process.exit(0);
}

const COUNTS = [
  ['I   refs', 'instructions'],
  ['I1  misses', 'I1 misses'],
  ['LLi misses', 'LL misses (code)'],
  ['D   refs', 'data refs'],
  ['D1  misses', 'D1 misses'],
  ['LLd misses', 'LL misses (data)'],
];

/** V8's flags for runs that repeat (BENCHMARKS.md, the twenty-ninth session): no helper
 *  threads (compilation and garbage collection on the main thread, in the order the
 *  program asks for them, not as valgrind happens to schedule threads), the collector's
 *  schedule fixed, and fixed seeds. One build's I1 misses a call then repeat within
 *  ±0.2 % (38,478 and 38,514 in two runs), against ±0.7 % to ±1.5 % without (39,292 to
 *  39,845 in three runs; 36,067 to 37,196 with N=1600), and instructions within ±0.3 %
 *  against ±3 %. The work is the same, done in another order, but the fixed collector's
 *  schedule raises what an allocating client costs (the TS client: +1.67 M instructions
 *  a call over raw fetch, against +1.11 M without): these flags are for A/B runs of one
 *  client; for ratios against the TS client, `FLAGS=''` runs Node as it is. */
const DETERMINISTIC = '--single-threaded --predictable-gc-schedule --random-seed=1 --hash-seed=1';

/** One valgrind run of `client` making `n` calls after the warm-up (run `k` of it): its totals. */
function measure(client, url, n, k) {
  const ll = process.env.LL || '2097152,16,64';
  return new Promise((ok, fail) => {
    const flags = (process.env.FLAGS ?? DETERMINISTIC).split(' ').filter(Boolean);
    const keep = process.env.KEEP ? path.resolve(process.env.KEEP, `cachegrind.out.${client}.${k}.${n}`) : '/dev/null';
    const args = ['--tool=cachegrind', '--cache-sim=yes', `--LL=${ll}`, `--cachegrind-out-file=${keep}`, process.execPath, ...flags, fileURLToPath(import.meta.url), '--child', client, url, String(n)];
    const p = spawn('valgrind', args, { cwd: ROOT, env: process.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    p.on('error', fail);
    p.on('exit', (code) => {
      if (code !== 0) return fail(new Error(`${client}: valgrind exited ${code}\n${err.slice(-2000)}`));
      const out = {};
      for (const [label, key] of COUNTS) {
        const m = new RegExp(`== ${label}:\\s+([\\d,]+)`).exec(err);
        if (!m) return fail(new Error(`${client}: no "${label}" in valgrind's report\n${err.slice(-2000)}`));
        out[key] = Number(m[1].replace(/,/g, ''));
      }
      ok(out);
    });
  });
}

async function main() {
  if (spawnSync('valgrind', ['--version']).status !== 0) throw new Error('valgrind is needed (Debian: apt-get install valgrind)');
  const { startServer, buildBenchPkg } = await import('../browser.mjs');
  const clients = (process.env.CLIENTS || 'raw,fetch,lean,lean-core,ours,ts').split(',');
  const n = Number(process.env.N || 800);
  const repeat = Number(process.env.REPEAT || 1);
  const jobs = Number(process.env.JOBS || 2);
  if (clients.some((c) => c.startsWith('lean'))) buildBenchPkg();
  if (process.env.KEEP) (await import('node:fs')).mkdirSync(process.env.KEEP, { recursive: true });
  const server = await startServer();
  const url = `${server.url}/${process.env.ENDPOINT || 'json'}`;
  // Every run to make: (client, repeat, n), two per measurement.
  const work = [];
  for (let k = 0; k < repeat; k++) for (const c of clients) for (const calls of [0, n]) work.push({ c, k, calls });
  const got = new Map();
  try {
    let next = 0;
    const worker = async () => {
      while (next < work.length) {
        const w = work[next++];
        got.set(`${w.c}/${w.k}/${w.calls}`, await measure(w.c, url, w.calls, w.k));
        process.stderr.write('.');
      }
    };
    await Promise.all(Array.from({ length: jobs }, worker));
  } finally {
    server.child.kill();
  }
  process.stderr.write('\n');
  const per = (c, k, key) => (got.get(`${c}/${k}/${n}`)[key] - got.get(`${c}/${k}/0`)[key]) / n;
  console.log(`Node ${process.version}, cachegrind (LL ${process.env.LL || '2097152,16,64'}), ${process.env.MODE === 'conc' ? 'batches of 50' : 'one call at a time'}, /${process.env.ENDPOINT || 'json'}, ${n} calls after ${process.env.WARMUP || 400}; per call, median of ${repeat} run(s)`);
  console.log(`| client | ${COUNTS.map(([, k]) => k).join(' | ')} |`);
  console.log(`|---|${COUNTS.map(() => '---:').join('|')}|`);
  const row = (c) => COUNTS.map(([, key]) => median(Array.from({ length: repeat }, (_, k) => per(c, k, key))));
  const rows = new Map(clients.map((c) => [c, row(c)]));
  // Each run's own figures, to show how far runs of one client spread.
  if (repeat > 1) {
    for (const c of clients) {
      for (let k = 0; k < repeat; k++) console.error(`${c} run ${k + 1}: ${COUNTS.map(([, key]) => Math.round(per(c, k, key)).toLocaleString('en')).join(' | ')}`);
    }
  }
  for (const [c, r] of rows) console.log(`| ${c} | ${r.map((x) => Math.round(x).toLocaleString('en')).join(' | ')} |`);
  // Over raw fetch, and target 1's ratio in each count, (x − raw) ÷ (TS − raw).
  const raw = rows.get('raw');
  const ts = rows.get('ts');
  if (raw) {
    console.log('\nOver raw fetch' + (ts ? ', and (x − raw) ÷ (TS − raw)' : ''));
    for (const [c, r] of rows) {
      if (c === 'raw') continue;
      const cells = r.map((x, i) => `${COUNTS[i][1]} ${x - raw[i] >= 0 ? '+' : ''}${Math.round(x - raw[i]).toLocaleString('en')}${ts ? ` (${((x - raw[i]) / (ts[i] - raw[i])).toFixed(2)})` : ''}`);
      console.log(`${c}: ${cells.join(', ')}`);
    }
  }
}

if (process.argv[2] === '--child') await child(process.argv[3], process.argv[4], Number(process.argv[5]));
else await main();
