// What our client adds to a `fetch` that is used the way ours uses it, with warm and with
// cold CPU caches (BENCHMARKS.md "per call, warm and cold caches, and the optimisation level"). Two clients, each in a
// fresh process per measurement, rounds interleaved with the order rotating:
// - `fetch`: a plain loop that calls fetch exactly as our fetch runner does (src/web/js/
//   fetch.js: the header pairs, the body as bytes, a fresh AbortController's signal, the
//   five response headers read, `arrayBuffer()`, TextDecoder, JSON.parse) for the same
//   tools/call;
// - `ours`: `McpClient.callTool` from the package.
// Three settings:
// - `warm`: a stand-in global fetch that answers at once with a real `Response` (no network,
//   nothing else runs between calls: the CPU caches stay warm with the client's code/data);
// - `cold`: the same, but before answering, each request waits for a macrotask and walks a
//   buffer of POLLUTE MiB (default 8), which evicts the caches as a real exchange does (the
//   runtime's HTTP stack, the kernel, the server);
// - `server`: the bench server on loopback (what bench/run.sh measures).
// CPU µs per call (process.cpuUsage), sequential and concurrent (batches of 50) after WARMUP
// calls; the walk's own cost is the same for both clients and cancels in the difference.
// A probe, not a test:
//   node bench/tools/shell-cost.mjs     ROUNDS=3 N=10000 WARMUP=5000 POLLUTE=8
//   SETTINGS=warm,cold PKG=/path/to/pkg node bench/tools/shell-cost.mjs   (another build)
//   SCHEMA=40 SETTINGS=warm node bench/tools/shell-cost.mjs   (a tool with an outputSchema;
//     the stand-in settings only)
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { ARGS, cpuPerCall, fetchAsOurs, median } from '../lib/workload.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** One measurement, in this process: `client` under `setting`; prints one JSON line. */
async function child(client, setting, url) {
  const n = Number(process.env.N || 10000);
  const warmup = Number(process.env.WARMUP || 5000);
  if (setting !== 'server') {
    const mib = setting === 'cold' ? Number(process.env.POLLUTE || 8) : 0;
    const walk = new Uint32Array((mib * 1048576) / 4);
    let sink = 0;
    const enc = new TextEncoder();
    const dec = new TextDecoder();
    // SCHEMA=n: the tool declares an outputSchema of n described string properties, and each
    // result carries a structuredContent that it validates.
    const fields = Number(process.env.SCHEMA || 0);
    const props = Object.fromEntries(Array.from({ length: fields }, (_, i) => [`f${i}`, { type: 'string', description: `field ${i} of the echo, as the server describes it` }]));
    const outputSchema = fields ? `,"outputSchema":${JSON.stringify({ type: 'object', properties: props })}` : '';
    const structured = fields ? ',"structuredContent":{"f0":"hello"}' : '';
    globalThis.fetch = async (_url, init) => {
      if (walk.length) {
        await new Promise((r) => setImmediate(r));
        // One word per 64-byte line, written: every line of the buffer comes in.
        for (let i = 0; i < walk.length; i += 16) sink += walk[i]++;
      }
      // Our client hands the platform's fetch its body as bytes (a string before 2026-12-03).
      const body = typeof init?.body === 'string' ? init.body : init?.body ? dec.decode(init.body) : '';
      const id = /"id":(\d+)/.exec(body)?.[1] ?? '0';
      let text;
      if (body.includes('"tools/list"')) {
        text = `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}${outputSchema}}]}}`;
      } else {
        const echoed = JSON.stringify(JSON.stringify(ARGS));
        text = `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","content":[{"type":"text","text":${echoed}}]${structured}}}`;
      }
      const bytes = enc.encode(text);
      return new Response(bytes, { status: 200, headers: { 'content-type': 'application/json', 'content-length': String(bytes.byteLength), 'x-sink': String(sink & 1) } });
    };
  }
  let call;
  if (client === 'ours') {
    const pkg = process.env.PKG ? path.resolve(process.env.PKG) : path.join(ROOT, 'pkg');
    const { McpClient } = await import(pathToFileURL(path.join(pkg, 'index.js')).href);
    const c = new McpClient(url, { clientInfo: { name: 'bench', version: '1.0.0' } });
    call = () => c.callTool('echo', ARGS);
  } else {
    const loop = fetchAsOurs(url);
    call = loop.call;
  }
  const first = await call();
  if (first?.content?.[0]?.text !== JSON.stringify(ARGS)) throw new Error(`${client}: wrong echo result ${JSON.stringify(first)}`);
  for (let i = 0; i < warmup; i++) await call();
  console.log(JSON.stringify({ client, setting, ...(await cpuPerCall(call, n)) }));
  process.exit(0);
}


async function main() {
  const { startServer } = await import('../browser.mjs');
  const rounds = Number(process.env.ROUNDS || 3);
  const settings = (process.env.SETTINGS || 'warm,cold,server').split(',');
  const clients = ['fetch', 'ours'];
  const server = settings.includes('server') ? await startServer() : null;
  const r = {}; // setting -> client -> mode -> [µs]
  try {
    for (let k = 0; k < rounds; k++) {
      for (const setting of settings) {
        const order = k % 2 ? [...clients].reverse() : clients;
        for (const client of order) {
          const url = setting === 'server' ? `${server.url}/json` : 'http://127.0.0.1:9/mcp';
          const p = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', client, setting, url], { cwd: ROOT, env: process.env, encoding: 'utf8' });
          const line = p.stdout.trim().split('\n').pop();
          if (p.status !== 0 || !line?.startsWith('{')) throw new Error(`${client} ${setting}: ${p.stderr || p.stdout}`);
          const o = JSON.parse(line);
          for (const mode of ['seq', 'conc']) ((((r[setting] ??= {})[client] ??= {})[mode] ??= [])).push(o[mode]);
        }
        const d = (m) => (r[setting].ours[m].at(-1) - r[setting].fetch[m].at(-1)).toFixed(1);
        console.error(`round ${k + 1} ${setting}: ours − fetch ${d('seq')} µs sequential, ${d('conc')} µs concurrent`);
      }
    }
  } finally {
    server?.child.kill();
  }
  console.log(`Node ${process.version}, ${rounds} rounds of ${process.env.N || 10000} calls per pattern after ${process.env.WARMUP || 5000}; CPU µs per call, medians (fetch / ours / ours − fetch, the difference's range)`);
  console.log('| setting | sequential | concurrent |');
  console.log('|---|---|---|');
  for (const setting of settings) {
    const cell = (m) => {
      const f = r[setting].fetch[m];
      const o = r[setting].ours[m];
      const diff = o.map((x, i) => x - f[i]);
      return `${median(f).toFixed(1)} / ${median(o).toFixed(1)} / **${median(diff).toFixed(1)}** (${Math.min(...diff).toFixed(1)}–${Math.max(...diff).toFixed(1)})`;
    };
    console.log(`| ${setting === 'cold' ? `cold (${process.env.POLLUTE || 8} MiB walked)` : setting} | ${cell('seq')} | ${cell('conc')} |`);
  }
}

if (process.argv[2] === '--child') await child(process.argv[3], process.argv[4], process.argv[5]);
else await main();
