// What a tools/call with large arguments costs our client (a file's content, as agents'
// write and edit tools send), before and after a change: pkg/ against a baseline build
// (BASELINE_PKG, default bench/out/pkg-baseline), each in a fresh process per measurement,
// rounds interleaved with the order rotating. A stand-in global fetch answers at once with
// a small result, so the figure is the client's own work on the arguments and the request
// (JSON.stringify, the crossing into the wasm, the request's text, the crossing out, and
// the platform's handling of the body: a `Request` is made of it), not the network's. CPU µs per call (process.cpuUsage), sequential, after WARMUP calls.
// ONE_PROCESS=1 runs every build in one process per size instead, in interleaved blocks
// (BLOCKS, BLOCK): steadier where the machine's speed drifts between processes.
// BUILDS=ours,baseline,ts adds the official TypeScript client (bench/clients/ts.js, after
// `bench/run.sh` or `npm install` in bench/) against the same stand-in.
// A probe, not a test:
//   BASELINE_PKG=/tmp/pkg-before node bench/tools/large-arguments.mjs
//   SIZES=5000,100000 ROUNDS=3 N=2000 WARMUP=300 BUILDS=ours,baseline
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { median } from '../lib/workload.js';
import { MCP_URL, argsOf as argsOfText, standInFetch } from '../lib/stand-in.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The stand-in as the global fetch (bench/lib/stand-in.js). */
function installStandIn() {
  globalThis.fetch = standInFetch(globalThis.fetch);
}

/** A client of the build in `dir` (a package directory, or 'ts'), with `callTool`. */
async function open(dir) {
  if (dir === 'ts') {
    const ts = await import(pathToFileURL(path.join(ROOT, 'bench/clients/ts.js')).href);
    const o = await ts.open(MCP_URL);
    return { callTool: (name, a) => o.call(name, a) };
  }
  // A query makes each package directory its own module instance.
  const { McpClient } = await import(`${pathToFileURL(path.join(dir, 'index.js')).href}?${encodeURIComponent(dir)}`);
  return new McpClient(MCP_URL, { clientInfo: { name: 'bench', version: '1.0.0' } });
}

const argsOf = (size) => argsOfText(size, process.env.CONTENT === 'ascii');

async function checked(c, args) {
  const first = await c.callTool('write', args);
  if (first?.content?.[0]?.text !== 'written') throw new Error(`wrong result ${JSON.stringify(first)}`);
}

/** One measurement in this process: the package in `dir`, arguments of `size` characters. */
async function child(dir, size) {
  const n = Number(process.env.N || 2000);
  const warmup = Number(process.env.WARMUP || 300);
  installStandIn();
  const c = await open(dir);
  const args = argsOf(size);
  await checked(c, args);
  for (let i = 0; i < warmup; i++) await c.callTool('write', args);
  globalThis.gc?.();
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await c.callTool('write', args);
  const u = process.cpuUsage(c0);
  console.log(JSON.stringify({ us: (u.user + u.system) / n }));
  process.exit(0);
}

/** ONE_PROCESS=1: every build in this one process, blocks of calls interleaved (the order
 *  rotating), so that a machine whose speed drifts over minutes weighs on all alike.
 *  Prints `{ build: [µs per call of each block] }`. */
async function together(size, dirs) {
  const block = Number(process.env.BLOCK || 300);
  const blocks = Number(process.env.BLOCKS || 15);
  const warmup = Number(process.env.WARMUP || 300);
  installStandIn();
  const args = argsOf(size);
  const clients = [];
  for (const d of dirs) clients.push(await open(d));
  for (const c of clients) {
    await checked(c, args);
    for (let i = 0; i < warmup; i++) await c.callTool('write', args);
  }
  const out = dirs.map(() => []);
  for (let k = 0; k < blocks; k++) {
    for (let j = 0; j < dirs.length; j++) {
      const i = (j + k) % dirs.length;
      globalThis.gc?.();
      const c0 = process.cpuUsage();
      for (let n = 0; n < block; n++) await clients[i].callTool('write', args);
      const u = process.cpuUsage(c0);
      out[i].push((u.user + u.system) / block);
    }
  }
  console.log(JSON.stringify(out));
  process.exit(0);
}

async function main() {
  const rounds = Number(process.env.ROUNDS || 3);
  const sizes = (process.env.SIZES || '5000,100000').split(',').map(Number);
  const all = {
    ours: path.join(ROOT, 'pkg'),
    baseline: path.resolve(process.env.BASELINE_PKG || path.join(ROOT, 'bench/out/pkg-baseline')),
    ts: 'ts',
  };
  const names = (process.env.BUILDS || 'ours,baseline').split(',');
  const builds = Object.fromEntries(names.map((b) => [b, all[b]]));
  const r = {}; // size -> build -> [µs]
  if (process.env.ONE_PROCESS === '1') {
    const med = (xs) => median(xs).toFixed(1);
    console.log(`Node ${process.version}, one process per size, ${process.env.BLOCKS || 15} blocks of ${process.env.BLOCK || 300} sequential calls per build after ${process.env.WARMUP || 300}, interleaved; CPU µs per call, medians of the blocks (range); the ratio: median of the blocks' ratios within a rotation; ${names.map((b) => `${b} = ${builds[b]}`).join(', ')}`);
    const others = names.filter((b) => b !== 'ours');
    console.log(`| arguments | ${names.join(' | ')} | ${others.map((b) => `ours ÷ ${b}`).join(' | ')} |`);
    console.log(`|---:|${names.map(() => '---:|').join('')}${others.map(() => '---:|').join('')}`);
    for (const size of sizes) {
      const p = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--together', String(size), ...names.map((b) => builds[b])], { cwd: ROOT, env: process.env, encoding: 'utf8' });
      const line = p.stdout.trim().split('\n').pop();
      if (p.status !== 0 || !line?.startsWith('[')) throw new Error(`${size}: ${p.stderr || p.stdout}`);
      const per = JSON.parse(line);
      const m = Object.fromEntries(names.map((b, i) => [b, per[i]]));
      const cell = (xs) => `${med(xs)} (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`;
      const ratios = others.map((b) => median(m.ours.map((x, k) => x / m[b][k])).toFixed(2));
      console.log(`| ${size.toLocaleString('en')} characters | ${names.map((b) => cell(m[b])).join(' | ')} | ${ratios.join(' | ')} |`);
    }
    return;
  }
  for (let k = 0; k < rounds; k++) {
    for (const size of sizes) {
      // The order rotates each round.
      const order = names.map((_, i) => names[(i + k) % names.length]);
      for (const b of order) {
        const p = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', builds[b], String(size)], { cwd: ROOT, env: process.env, encoding: 'utf8' });
        const line = p.stdout.trim().split('\n').pop();
        if (p.status !== 0 || !line?.startsWith('{')) throw new Error(`${b} ${size}: ${p.stderr || p.stdout}`);
        ((r[size] ??= {})[b] ??= []).push(JSON.parse(line).us);
      }
    }
  }
  console.log(`Node ${process.version}, ${rounds} rounds of ${process.env.N || 2000} sequential calls after ${process.env.WARMUP || 300}; CPU µs per call, medians (range); ${names.map((b) => `${b} = ${builds[b]}`).join(', ')}`);
  const others = names.filter((b) => b !== 'ours');
  console.log(`| arguments | ${names.join(' | ')} | ${others.map((b) => `ours ÷ ${b}`).join(' | ')} |`);
  console.log(`|---:|${names.map(() => '---:|').join('')}${others.map(() => '---:|').join('')}`);
  for (const size of sizes) {
    const cell = (xs) => `${median(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`;
    const m = r[size];
    const ratios = others.map((b) => (median(m.ours) / median(m[b])).toFixed(2));
    console.log(`| ${size.toLocaleString('en')} characters | ${names.map((b) => cell(m[b])).join(' | ')} | ${ratios.join(' | ')} |`);
  }
}

if (process.argv[2] === '--child') await child(process.argv[3], Number(process.argv[4]));
else if (process.argv[2] === '--together') await together(Number(process.argv[3]), process.argv.slice(4));
else await main();
