// Figures for edge users: our client and the official TypeScript client
// (@modelcontextprotocol/client, bench/clients/ts.js) side by side in the same runtime, with a
// raw fetch loop (bench/clients/raw.js) as the floor and the same loop reading each body as a
// stream with an AbortController (bench/edge/raw-stream.js, as our client reads), against bench/server.mjs (/json):
//
//   workerd  each client bundled into a module worker as Wrangler does
//            (tests/runtimes/workerd/bundle.mjs; ours through `mcp-wasm-client/load` and a
//            CompiledWasm module), one workerd process per client and measure:
//            cold   spawn -> listening (the script compiled and its top level run), then the
//                   first request (client loaded and opened, one tools/call) -> its answer
//            CPU    on-CPU time of the whole workerd process (its threads' schedstat) per
//                   tools/call, over N calls in one request after a warm-up
//            memory the process's RSS after the first request, and over the raw worker's
//   deno     bench/edge/deno.mjs, one process per measure (ours: pkg/index.js by path; ts:
//            bundled with esbuild): cold = the process's wall time to exit after one call,
//            and inside it, from the module's start to the first result; CPU per call from
//            process.cpuUsage; memory = Deno.memoryUsage() after one call and a GC
//
//   node bench/edge.mjs [--rounds R (default 5)] [--n N calls for CPU (default 1000)]
//                       [--warm W warm-up calls before the CPU measure (default 200)] [--only workerd|deno]
//
// Prints markdown tables (medians of R rounds, range in parentheses). Not a test: nothing
// here fails on a figure; it fails only when a runtime or client does not work.
import { spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT, bin, denoCommand, runCommand, startWorkerd } from '../tests/runtimes/lib.mjs';
import { bundleWorker } from '../tests/runtimes/workerd/bundle.mjs';
import { median } from './lib/workload.js';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const ROUNDS = Number(arg('rounds', 5));
const N = Number(arg('n', 1000));
const WARM = Number(arg('warm', 200));
const ONLY = arg('only', 'workerd,deno').split(',');
const OUT = join(ROOT, 'bench/out/edge');
const CLIENTS = ['ours', 'ts', 'raw', 'raw-stream'];

// ------------------------------------------------------------------ helpers

const fmt = (x, d = 0) => x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
const fig = (xs, d = 0) => (xs.length > 1
  ? `${fmt(median(xs), d)} (${fmt(Math.min(...xs), d)}–${fmt(Math.max(...xs), d)})`
  : fmt(xs[0], d));
const mb = (b) => b / 1048576;
const LABEL = { ours: '**ours**', ts: 'TS client', raw: 'raw fetch (res.text())', 'raw-stream': 'raw fetch, body read as a stream' };

async function benchServer() {
  const child = spawn(process.execPath, [join(ROOT, 'bench/server.mjs'), '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  process.on('exit', () => child.kill('SIGKILL'));
  const url = await new Promise((ok, fail) => {
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      const m = /^READY (\S+)$/m.exec(buf);
      if (m) ok(m[1]);
    });
    child.on('exit', (c) => fail(new Error(`bench/server.mjs exited (${c})`)));
  });
  return `${url}/json`;
}

/** On-CPU nanoseconds of every thread of `pid` (first field of /proc/<pid>/task/<tid>/schedstat). */
async function cpuNs(pid) {
  let ns = 0;
  for (const tid of await readdir(`/proc/${pid}/task`)) {
    try {
      ns += Number((await readFile(`/proc/${pid}/task/${tid}/schedstat`, 'utf8')).split(' ')[0]);
    } catch { /* a thread that ended */ }
  }
  return ns;
}
const rssBytes = async (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;

async function get(url) {
  const res = await fetch(url);
  const body = await res.text();
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}: ${body.slice(0, 600)}`);
  return res;
}

// ------------------------------------------------------------------ workerd

async function workerdConfig(client) {
  const dir = join(OUT, `workerd-${client}`);
  const module = { ours: join(ROOT, 'bench/edge/ours-workerd.js'), ts: join(ROOT, 'bench/clients/ts.js'), raw: join(ROOT, 'bench/clients/raw.js'), 'raw-stream': join(ROOT, 'bench/edge/raw-stream.js') }[client];
  const wasm = await bundleWorker(join(ROOT, 'bench/edge/worker.js'), dir, { alias: { 'bench-client': module }, logLevel: 'error' });
  const config = join(dir, 'config.capnp');
  await writeFile(config, `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker), (name = "loopback", network = (allow = ["local"])) ],
  sockets = [ (name = "http", address = "127.0.0.1:8787", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
${wasm.map((w) => `    (name = "${w}", wasm = embed "${w}"),`).join('\n')}
  ],
  compatibilityDate = "2026-11-17",
  globalOutbound = "loopback",
);
`);
  return config;
}

async function workerd(mcp) {
  const q = `mcp=${encodeURIComponent(mcp)}`;
  const r = Object.fromEntries(CLIENTS.map((c) => [c, { listen: [], first: [], total: [], rss: [], wasm: [], cpu: [], wall: [] }]));
  const configs = {};
  for (const c of CLIENTS) configs[c] = await workerdConfig(c);
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of CLIENTS) {
      const t0 = performance.now();
      const w = await startWorkerd(configs[c]);
      try {
        const t1 = performance.now();
        const res = await get(`${w.url}/call?${q}&n=1`);
        const t2 = performance.now();
        r[c].listen.push(t1 - t0);
        r[c].first.push(t2 - t1);
        r[c].total.push(t2 - t0);
        r[c].rss.push(await rssBytes(w.pid));
        r[c].wasm.push(Number(res.headers.get('x-wasm-memory') || 0));
        if (round < 3) {
          await get(`${w.url}/call?${q}&n=${WARM}`);
          const cpu0 = await cpuNs(w.pid);
          const wall0 = performance.now();
          await get(`${w.url}/call?${q}&n=${N}`);
          r[c].wall.push(((performance.now() - wall0) * 1000) / N);
          r[c].cpu.push((await cpuNs(w.pid) - cpu0) / 1000 / N);
        }
      } finally {
        await w.stop();
      }
    }
  }
  const v = (await runCommand({ cmd: bin('workerd'), args: ['--version'] })).trim();
  console.log(`\n### workerd (${v}; one process per client; compatibility date 2026-11-17)\n`);
  console.log('| client | spawn → listening ms | first request ms (load + open + 1 call) | **cold total ms** | CPU µs/call | over raw µs | wall µs/call | RSS after 1 call MB | over raw MB | wasm memory MB |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const raw = r.raw;
  for (const c of CLIENTS) {
    const x = r[c];
    const over = x.cpu.map((v, i) => v - raw.cpu[i]);
    const overRss = x.rss.map((v, i) => mb(v - raw.rss[i]));
    console.log(`| ${LABEL[c]} | ${fig(x.listen)} | ${fig(x.first)} | **${fig(x.total)}** | ${fig(x.cpu)} | ${c === 'raw' ? '–' : fig(over)} | ${fig(x.wall)} | ${fig(x.rss.map(mb), 1)} | ${c === 'raw' ? '–' : fig(overRss, 1)} | ${x.wasm[0] ? fig(x.wasm.map(mb), 2) : '–'} |`);
  }
}

// ------------------------------------------------------------------ deno

async function deno(mcp) {
  const { build } = await import('esbuild');
  const tsBundle = join(OUT, 'deno-ts.js');
  await build({
    entryPoints: [join(ROOT, 'bench/clients/ts.js')], outfile: tsBundle, bundle: true, format: 'esm',
    platform: 'neutral', conditions: ['deno', 'worker', 'browser'], mainFields: ['module', 'main'], logLevel: 'warning',
  });
  const paths = { ours: join(ROOT, 'bench/clients/ours.js'), ts: tsBundle, raw: join(ROOT, 'bench/clients/raw.js'), 'raw-stream': join(ROOT, 'bench/edge/raw-stream.js') };
  const reads = [join(ROOT, 'pkg'), join(ROOT, 'bench'), OUT];
  const cmd = async (c, ...rest) => {
    const d = await denoCommand(join(ROOT, 'bench/edge/deno.mjs'), [paths[c], mcp, ...rest], mcp, reads);
    d.args.splice(1, 0, '--v8-flags=--expose-gc');
    return d;
  };
  const r = Object.fromEntries(CLIENTS.map((c) => [c, { proc: [], first: [], rss: [], heap: [], external: [], wasm: [], cpu: [], wall: [] }]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of CLIENTS) {
      const d = await cmd(c, 'cold');
      const t0 = performance.now();
      const out = JSON.parse((await runCommand(d)).trim().split('\n').pop());
      r[c].proc.push(performance.now() - t0);
      r[c].first.push(out.firstMs);
      r[c].rss.push(out.rss);
      r[c].heap.push(out.heapUsed);
      r[c].external.push(out.external);
      r[c].wasm.push(out.wasm);
      if (round < 3) {
        const p = JSON.parse((await runCommand(await cmd(c, 'cpu', String(N), String(WARM)), 120_000)).trim().split('\n').pop());
        r[c].cpu.push(p.cpuUs / p.n);
        r[c].wall.push((p.wallMs * 1000) / p.n);
      }
    }
  }
  const v = (await runCommand({ cmd: bin('deno'), args: ['--version'] })).split('\n')[0];
  console.log(`\n### Deno (${v}; one process per measure)\n`);
  console.log('| client | **process: spawn → exit after 1 call ms** | module start → first result ms | CPU µs/call | over raw µs | wall µs/call | RSS MB | over raw MB | JS heap used MB | external MB | wasm memory MB |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const raw = r.raw;
  for (const c of CLIENTS) {
    const x = r[c];
    console.log(`| ${LABEL[c]} | **${fig(x.proc)}** | ${fig(x.first)} | ${fig(x.cpu)} | ${c === 'raw' ? '–' : fig(x.cpu.map((v, i) => v - raw.cpu[i]))} | ${fig(x.wall)} | ${fig(x.rss.map(mb), 1)} | ${c === 'raw' ? '–' : fig(x.rss.map((v, i) => mb(v - raw.rss[i])), 1)} | ${fig(x.heap.map(mb), 2)} | ${fig(x.external.map(mb), 2)} | ${x.wasm[0] ? fig(x.wasm.map(mb), 2) : '–'} |`);
  }
}

// ------------------------------------------------------------------ main

const mcp = await benchServer();
console.log(`edge benchmark: ${ROUNDS} rounds, ${N} calls per CPU measure (warm-up ${WARM}), server ${mcp} (bench/server.mjs, JSON answers)`);
if (ONLY.includes('workerd')) await workerd(mcp);
if (ONLY.includes('deno')) await deno(mcp);
process.exit(0);
