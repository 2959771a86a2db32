// Which code V8 generated at run time a steady call's counts fall in, function by
// function (BENCHMARKS.md, the thirty-second session). node-cachegrind.mjs counts a call;
// cachegrind-diff.mjs names Node's own code but leaves what V8 compiled (JS at each tier,
// and the wasm) as one anonymous entry, which holds most of what our client adds. Here the
// client runs under valgrind's callgrind with per-instruction counts (`--dump-instr=yes`)
// and the same cache simulation, and Node writes where it put each piece of code it
// generated (`--perf-basic-prof`: /tmp/perf-<pid>.map); each anonymous instruction's
// counts go to the piece of code holding it (the latest one written for that address).
// Runs of WARMUP calls then 0 and N more, as node-cachegrind.mjs; per call is their
// difference ÷ N. Node's fetch parses HTTP in wasm too (undici's llhttp): its functions are
// the unnamed `wasm-function[N]` ones (in a named build of ours, only a few of ours are
// unnamed). A probe, not a benchmark.
//   CLIENT=ours node bench/tools/node-jit-misses.mjs        (PKG=<dir> as there)
//   CLIENT=ours MODE=conc EVENT=I1mr TOP=40 node bench/tools/node-jit-misses.mjs
//   bash bench/profile-size.sh && NAMED=bench/out/size-profile node bench/tools/node-jit-misses.mjs
//     (our wasm functions by name: the named build of what scripts/build.sh last built)
// Settings: CLIENT, MODE, ENDPOINT, WARMUP, N, PKG (as node-cachegrind.mjs), EVENT
// (default I1mr), TOP (default 40), KEEP (a directory to keep the outputs in), REUSE=1
// (analyse the outputs kept in KEEP again, running nothing).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLIENT = process.env.CLIENT || 'ours';
const N = Number(process.env.N || 800);
const EVENT = process.env.EVENT || 'I1mr';
const TOP = Number(process.env.TOP || 40);
const KEEP = process.env.KEEP || fs.mkdtempSync('/tmp/jit-misses-');
fs.mkdirSync(KEEP, { recursive: true });
const DETERMINISTIC = '--single-threaded --predictable-gc-schedule --random-seed=1 --hash-seed=1';

/** One callgrind run of the client making `n` calls: its output file and perf map. */
function run(url, n) {
  const out = path.join(KEEP, `callgrind.out.${CLIENT}.${n}`);
  const args = ['--tool=callgrind', '--cache-sim=yes', '--dump-instr=yes', `--LL=${process.env.LL || '2097152,16,64'}`, `--callgrind-out-file=${out}`, process.execPath, ...DETERMINISTIC.split(' '), '--perf-basic-prof', `--logfile=${path.join(KEEP, 'v8.log')}`, '--no-logfile-per-isolate', path.join(ROOT, 'bench/tools/node-cachegrind.mjs'), '--child', CLIENT, url, String(n)];
  return new Promise((ok, fail) => {
    const p = spawn('valgrind', args, { cwd: ROOT, env: process.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    p.on('exit', (code) => {
      if (code !== 0) return fail(new Error(`valgrind exited ${code}\n${err.slice(-2000)}`));
      const map = `/tmp/perf-${p.pid}.map`;
      const kept = path.join(KEEP, `perf.${CLIENT}.${n}.map`);
      fs.renameSync(map, kept);
      ok({ out, map: kept });
    });
  });
}

/** The perf map's pieces of code, in the order written: [start, end, name]. */
function readMap(file) {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [a, s, ...name] = l.split(' ');
      const start = parseInt(a, 16);
      return [start, start + parseInt(s, 16), name.join(' ')];
    });
}

/** The name of the code at each address: the latest piece written that holds it. */
function namer(pieces) {
  // Sorted by start; for overlapping pieces (code freed and its space reused), the later
  // one wins, kept by its index.
  const sorted = pieces.map((p, i) => [...p, i]).sort((a, b) => a[0] - b[0]);
  return (addr) => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid][0] <= addr) lo = mid + 1;
      else hi = mid;
    }
    let best = null;
    for (let i = lo - 1; i >= 0 && i >= lo - 64; i--) {
      const p = sorted[i];
      if (addr < p[1] && (!best || p[3] > best[3])) best = p;
    }
    return best ? best[2] : null;
  };
}

/** Callgrind's counts of EVENT for anonymous code (a function callgrind names by its
 *  address: no symbol holds it), by instruction address; named code is summed as a whole.
 *  Relative positions and name compression are undone (functions share one table, and a
 *  called function, `cfn=`, may be the first to name one); the cost line after `calls=`
 *  is a call's inclusive cost, not the caller's own, and is skipped. */
function readCallgrind(file) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  let col = -1;
  let posCount = 1;
  const fns = new Map();
  let anon = false;
  let last = 0;
  let skip = false;
  const byAddr = new Map();
  let named = 0;
  for (const line of lines) {
    if (line.startsWith('positions:')) posCount = line.slice(10).trim().split(/\s+/).length;
    else if (line.startsWith('events:')) col = line.slice(7).trim().split(/\s+/).indexOf(EVENT);
    else if (line.startsWith('fn=') || line.startsWith('cfn=')) {
      const eq = line.indexOf('=');
      const v = line.slice(eq + 1);
      const m = /^\((\d+)\)(?: (.*))?$/.exec(v);
      let name = v;
      if (m) {
        if (m[2] !== undefined) fns.set(m[1], m[2]);
        name = fns.get(m[1]) ?? v;
      }
      if (eq === 2) anon = /^0x[0-9a-f]+$/.test(name);
    } else if (line.startsWith('calls=')) skip = true;
    else if (/^[0-9+*-]/.test(line)) {
      const parts = line.split(' ');
      const a = parts[0];
      const addr = a === '*' ? last : a.startsWith('+') ? last + parseInt(a.slice(1), 10) : a.startsWith('-') ? last - parseInt(a.slice(1), 10) : parseInt(a, 16);
      last = addr;
      if (skip) {
        skip = false;
        continue;
      }
      const x = Number(parts[posCount + col] ?? 0);
      if (!x) continue;
      if (anon) byAddr.set(addr, (byAddr.get(addr) ?? 0) + x);
      else named += x;
    }
  }
  if (col < 0) throw new Error(`${file}: no event ${EVENT}`);
  return { byAddr, named };
}

/** Counts by piece of generated code (and the total of named code). */
function attribute(r) {
  const { byAddr, named } = readCallgrind(r.out);
  const name = namer(readMap(r.map));
  const by = new Map();
  for (const [addr, x] of byAddr) {
    const n = name(addr) ?? '(generated code not in the perf map: stubs, trampolines)';
    by.set(n, (by.get(n) ?? 0) + x);
  }
  return { by, named };
}

/** What kind of generated code a perf map name is. */
function kind(n) {
  if (/wasm-function\[|^JS:[a-z_0-9]+::|^JS:<|^JS:wasm|turbofan$|liftoff$/.test(n) && !/\.m?js:\d/.test(n)) return 'wasm';
  if (/^JS:|^LazyCompile:|^Function:|^Script:|^Eval:/.test(n)) {
    if (n.includes('/src/web/js/') || /pkg[^ ]*\/(cors|errors|contexts|subscription)|snippets/.test(n)) return 'our JS (the runner, the snippets)';
    if (/mcp_wasm_client\.js|\/pkg[^ ]*\.js/.test(n)) return "the package's JS (glue, entry)";
    if (/node:|undici/.test(n)) return "Node's JS (undici, streams)";
    if (/bench\//.test(n)) return 'the benchmark loop';
    return 'other JS';
  }
  return n.startsWith('(') ? n : 'stubs and handlers';
}

/** With NAMED=<dir> (what bench/profile-size.sh wrote: named.wasm, m.js, snippets), a
 *  package of ours assembled from it, as wasm-calls.mjs assembles one, so that V8 names
 *  our wasm functions; its directory. */
function namedPackage(src) {
  const dir = path.join(KEEP, 'pkg-named');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(path.join(src, 'named.wasm'), path.join(dir, 'mcp_wasm_client_bg.wasm'));
  fs.copyFileSync(path.join(src, 'm.js'), path.join(dir, 'mcp_wasm_client.js'));
  fs.cpSync(path.join(src, 'snippets'), path.join(dir, 'snippets'), { recursive: true });
  for (const f of ['index.js', 'load.js']) fs.copyFileSync(path.join(ROOT, 'src/web/package', f), path.join(dir, f));
  return dir;
}

async function main() {
  if (process.env.NAMED && !process.env.REUSE) process.env.PKG = namedPackage(path.resolve(ROOT, process.env.NAMED));
  if (process.env.REUSE) {
    // The outputs of an earlier run, kept in KEEP: analysed again, nothing run.
    const kept = (n) => ({ out: path.join(KEEP, `callgrind.out.${CLIENT}.${n}`), map: path.join(KEEP, `perf.${CLIENT}.${n}.map`) });
    return report([kept(0), kept(N)]);
  }
  const { startServer } = await import('../browser.mjs');
  const server = await startServer();
  const url = `${server.url}/${process.env.ENDPOINT || 'json'}`;
  let runs;
  try {
    runs = await Promise.all([run(url, 0), run(url, N)]);
  } finally {
    server.child.kill();
  }
  report(runs);
}

function report(runs) {
  const [a, b] = runs.map(attribute);
  const per = new Map();
  for (const k of new Set([...a.by.keys(), ...b.by.keys()])) per.set(k, ((b.by.get(k) ?? 0) - (a.by.get(k) ?? 0)) / N);
  const total = [...per.values()].reduce((s, v) => s + v, 0);
  console.log(`${CLIENT}, ${EVENT} per steady call in generated code (${N} calls after ${process.env.WARMUP || 400}, ${process.env.MODE === 'conc' ? 'batches of 50' : 'one at a time'}): ${total.toFixed(1)}; in named code: ${((b.named - a.named) / N).toFixed(1)} (outputs in ${KEEP})`);
  const kinds = new Map();
  for (const [k, v] of per) kinds.set(kind(k), (kinds.get(kind(k)) ?? 0) + v);
  console.log('\nby kind:');
  for (const [k, v] of [...kinds].sort((x, y) => y[1] - x[1])) console.log(`${v.toFixed(1).padStart(10)}  ${k}`);
  console.log(`\nthe ${TOP} pieces with the most:`);
  for (const [k, v] of [...per].sort((x, y) => y[1] - x[1]).slice(0, TOP)) console.log(`${v.toFixed(1).padStart(10)}  ${k.slice(0, 150)}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
