// Before/after: the client in pkg/ against the same client built at another revision
// (bench/clients/baseline.js: BASELINE_PKG, default bench/out/pkg-baseline) and raw fetch,
// side by side in one run, Node, sequential and concurrent tools/call on the bench server.
// Processes are interleaved (raw, ours, baseline, raw, ...) so a busy machine slows all
// three alike; the figure that matters is each client's CPU per call over raw fetch's.
//   cp -r pkg bench/out/pkg-baseline      # before the change
//   scripts/build.sh && node bench/compare.mjs   # after it
// Settings: ROUNDS=5, N=1000, BATCH=50, WARMUPS=200,5000 (one set of rounds per warm-up),
// CLIENTS=raw,ours,baseline (add `ts` for the TS client: each client's figure over raw is
// then also given as a ratio to the TS client's), MODE=json (or sse).
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as B from './browser.mjs';
import { median } from './lib/workload.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const env = process.env;
const rounds = Number(env.ROUNDS ?? 5);
const n = Number(env.N ?? 1000);
const batch = Number(env.BATCH ?? 50);
const warmups = (env.WARMUPS ?? '200,5000').split(',').map(Number);
const CLIENTS = (env.CLIENTS ?? 'raw,ours,baseline').split(',');
const mode = env.MODE ?? 'json';

const { child: server, url: base } = await B.startServer();
try {
  const template = await B.captureTemplate(base);

  for (const warmup of warmups) {
    const cpu = { seq: {}, conc: {} };
    for (const k of CLIENTS) cpu.seq[k] = [];
    for (const k of CLIENTS) cpu.conc[k] = [];
    for (let r = 0; r < rounds; r++) {
      for (const client of CLIENTS) {
        const opts = { n, batch, warmup, template };
        const p = spawnSync(process.execPath, ['--expose-gc', 'bench/node/percall.mjs', client, `${base}/${mode}`, JSON.stringify(opts)], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 26 });
        if (p.status !== 0) throw new Error(`${client} failed:\n${p.stderr}`);
        const x = JSON.parse(p.stdout.trim().split('\n').pop());
        cpu.seq[client].push(x.seq.cpuUsPerCall);
        cpu.conc[client].push(x.conc.cpuUsPerCall);
      }
    }
    console.log(`\nNode ${process.version}, ${mode}, warm-up ${warmup} calls, ${rounds} rounds × ${n} calls: CPU µs per call (median [min–max])`);
    for (const pattern of ['seq', 'conc']) {
      const m = Object.fromEntries(CLIENTS.map((k) => [k, median(cpu[pattern][k])]));
      for (const k of CLIENTS) {
        const a = cpu[pattern][k];
        console.log(`  ${pattern.padEnd(4)} ${k.padEnd(8)} ${m[k].toFixed(0).padStart(5)} [${Math.min(...a).toFixed(0)}–${Math.max(...a).toFixed(0)}]`);
      }
      const over = (k) => m[k] - m.raw;
      const us = (v) => `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(0)} µs`;
      const others = CLIENTS.filter((k) => k !== 'raw');
      const ratio = (k, ref) => (CLIENTS.includes(ref) && CLIENTS.includes(k) && k !== ref ? `, ${k}/${ref} ${(over(k) / over(ref)).toFixed(2)}×` : '');
      console.log(`  ${pattern.padEnd(4)} over raw: ${others.map((k) => `${k} ${us(over(k))}`).join(', ')}${ratio('ours', 'baseline')}${ratio('ours', 'ts')}${ratio('baseline', 'ts')}`);
    }
  }
} finally {
  server.kill();
}
process.exit(0);
