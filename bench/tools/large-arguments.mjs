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

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A stand-in global fetch that answers at once (see the top of this file). */
function installStandIn() {
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  globalThis.fetch = async (url, init) => {
    // What the platform's fetch does with the body (undici: a string is encoded, bytes are
    // copied), then the request's start, where its id and method are. Our client hands the
    // platform's fetch its body as bytes (a string before 2026-12-03).
    new Request(url, { method: init.method, headers: init.headers, body: init.body });
    const b = init?.body;
    // The id is near the start in our requests and at the end in the TS client's (a string
    // in its first probe).
    const ends = (x) => (typeof x === 'string' ? [x.slice(0, 200), x.slice(-100)] : [dec.decode(x.subarray(0, 200)), dec.decode(x.subarray(-100))]);
    const [body, tail] = b ? ends(b) : ['', ''];
    const idOf = (t) => /"id":("[^"\\]*"|\d+)/.exec(t)?.[1];
    const id = idOf(body) ?? idOf(tail) ?? '0';
    const text = body.includes('"tools/list"')
      ? `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","tools":[{"name":"write","inputSchema":{"type":"object"}}]}}`
      : body.includes('"server/discover"')
        ? `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"stand-in","version":"1.0.0"}}}}`
        : `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","content":[{"type":"text","text":"written"}]}}`;
    const bytes = enc.encode(text);
    return new Response(bytes, { status: 200, headers: { 'content-type': 'application/json', 'content-length': String(bytes.byteLength) } });
  };
}

/** A client of the build in `dir` (a package directory, or 'ts'), with `callTool`. */
async function open(dir) {
  if (dir === 'ts') {
    const ts = await import(pathToFileURL(path.join(ROOT, 'bench/clients/ts.js')).href);
    const o = await ts.open('http://127.0.0.1:9/mcp');
    return { callTool: (name, a) => o.call(name, a) };
  }
  // A query makes each package directory its own module instance.
  const { McpClient } = await import(`${pathToFileURL(path.join(dir, 'index.js')).href}?${encodeURIComponent(dir)}`);
  return new McpClient('http://127.0.0.1:9/mcp', { clientInfo: { name: 'bench', version: '1.0.0' } });
}

/** Tool arguments of `size` characters: source text with what a JSON encoder must escape
 *  (quotes, backslashes, tabs, newlines) and text outside ASCII (unless CONTENT=ascii). */
function argsOf(size) {
  // CONTENT=ascii: the same without the text outside ASCII (most source code).
  const line =
    process.env.CONTENT === 'ascii'
      ? 'const s = "a \\"quoted\\" word" + 42; // no emoji\tand a tab\n'
      : 'const s = "a \\"quoted\\" word" + 42; // émoji 🎉\tand a tab\n';
  return { path: '/work/src/file.js', content: line.repeat(Math.ceil(size / line.length)).slice(0, size) };
}

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
