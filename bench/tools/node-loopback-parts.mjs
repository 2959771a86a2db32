// What each part of a call costs on loopback in Node, and what other work between fetches
// does to the fetch's own cost (BENCHMARKS.md, the twenty-fourth session). Clients, each in
// a fresh process per measurement, rounds interleaved with the order reversed every other
// round, against the bench server's /json (the echo tool):
// - `raw`: bench/clients/raw.js (a header object, the body as a string, `text()`);
// - `fetch`: the echo call made exactly as our fetch runner makes it (bench/lib/workload.js
//   `fetchAsOurs`: header pairs, the body as bytes, a fresh AbortSignal, `arrayBuffer()`);
// - `ours`, `ts`: the two clients; `ours-b`: ours from another build (`PKG_B=<pkg dir>`),
//   to compare two builds of ours side by side;
// - `lean`: bench/clients/lean.js, the least a call must do in the wasm, with `fetch` called
//   as the `fetch` client calls it (a probe of a leaner call path; the bench package is
//   built first);
// - `lean-core`: bench/clients/lean-core.js, the same shell over the real engine (`Core`);
// - `ours-standin`: ours with a `fetch` option that answers at once (no network): what our
//   client's own work costs alone, with its caches warm;
// - `fetch+ours-standin`: each call is one `fetch` call on loopback, then one `ours-standin`
//   call. If the two costs simply added up, this would be `fetch` + `ours-standin`; what it
//   costs beyond that sum is what the two do to each other;
// - `fetch+spinN`: the `fetch` call, then N µs of a tight loop (work without a footprint);
// - `fetch+walkK`: the `fetch` call, then one pass over K KiB of memory (a data footprint).
// CPU µs per call (process.cpuUsage), sequential and concurrent (batches of 50), after
// WARMUP calls. A probe, not a test:
//   node bench/tools/node-loopback-parts.mjs    ROUNDS=5 N=10000 WARMUP=5000
//   CLIENTS=raw,ours,ours-b,ts PKG_B=/tmp/pkg-old node bench/tools/node-loopback-parts.mjs
//   CLIENTS=fetch,ours-standin,fetch+ours-standin,fetch+spin60,fetch+walk512 node bench/tools/node-loopback-parts.mjs
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { ARGS, cpuPerCall, echoAnswer, fetchAsOurs, jsonResponse, median } from '../lib/workload.js';
import { echoCall } from '../lib/node-clients.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PKG = process.env.PKG ? path.resolve(process.env.PKG) : path.join(ROOT, 'pkg');

/** Ours with a `fetch` option that answers the echo call at once. */
async function oursOnStandIn() {
  const { McpClient } = await import(pathToFileURL(path.join(PKG, 'index.js')).href);
  // A host's fetch gets the body as text (src/web/js/fetch.js).
  const standIn = async (_url, init) => jsonResponse(echoAnswer(init.body));
  const c = new McpClient('http://127.0.0.1:9/mcp', { clientInfo: { name: 'bench', version: '1.0.0' }, fetch: standIn });
  return () => c.callTool('echo', ARGS);
}

/** The call function of `client` (see the top of the file). */
async function clientCall(client, url) {
  const call = await echoCall(client, url);
  if (call) return call;
  if (client === 'ours-standin') return oursOnStandIn();
  const m = /^fetch\+(ours-standin|spin(\d+)|walk(\d+))$/.exec(client);
  if (!m) throw new Error(`unknown client ${client}`);
  const loop = fetchAsOurs(url).call;
  let after;
  if (m[1] === 'ours-standin') {
    after = await oursOnStandIn();
  } else if (m[2]) {
    const us = Number(m[2]);
    let sink = 0;
    after = () => {
      const until = performance.now() + us / 1000;
      while (performance.now() < until) sink++;
      return sink;
    };
  } else {
    // One word per 64-byte line, written: every line of the buffer comes into the caches.
    const walk = new Uint32Array((Number(m[3]) * 1024) / 4);
    let sink = 0;
    after = () => {
      for (let i = 0; i < walk.length; i += 16) sink += walk[i]++;
      return sink;
    };
  }
  return async () => {
    const r = await loop();
    await after();
    return r;
  };
}

/** One measurement, in this process; prints one JSON line. */
async function child(client, url) {
  const n = Number(process.env.N || 10000);
  const warmup = Number(process.env.WARMUP || 5000);
  const call = await clientCall(client, url);
  for (let i = 0; i < warmup; i++) await call();
  console.log(JSON.stringify({ client, ...(await cpuPerCall(call, n)) }));
  process.exit(0);
}

async function main() {
  const { startServer, buildBenchPkg } = await import('../browser.mjs');
  const rounds = Number(process.env.ROUNDS || 5);
  const clients = (process.env.CLIENTS || 'raw,fetch,ours,ts,ours-standin,fetch+ours-standin').split(',');
  if (clients.some((c) => c.startsWith('lean'))) buildBenchPkg();
  const server = await startServer();
  const r = {}; // client -> mode -> [µs]
  try {
    for (let k = 0; k < rounds; k++) {
      for (const client of k % 2 ? [...clients].reverse() : clients) {
        const p = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', client, `${server.url}/json`], { cwd: ROOT, env: process.env, encoding: 'utf8' });
        const line = p.stdout.trim().split('\n').pop();
        if (p.status !== 0 || !line?.startsWith('{')) throw new Error(`${client}: ${p.stderr || p.stdout}`);
        const o = JSON.parse(line);
        for (const mode of ['seq', 'conc']) ((r[client] ??= {})[mode] ??= []).push(o[mode]);
      }
      console.error(`round ${k + 1}: ${clients.map((c) => `${c} ${r[c].seq.at(-1).toFixed(0)} / ${r[c].conc.at(-1).toFixed(0)}`).join(', ')}`);
    }
  } finally {
    server.child.kill();
  }
  console.log(`Node ${process.version}, ${rounds} rounds of ${process.env.N || 10000} calls per pattern after ${process.env.WARMUP || 5000}; CPU µs per call, median (range)`);
  console.log('| client | sequential | concurrent (batches of 50) |');
  console.log('|---|---:|---:|');
  const cell = (xs) => `${median(xs).toFixed(1)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
  for (const c of clients) console.log(`| ${c} | ${cell(r[c].seq)} | ${cell(r[c].conc)} |`);
  // Target 1's ratio, (x − raw) ÷ (TS − raw), round by round, for ours and the lean probe.
  if (r.raw && r.ts) {
    for (const c of ['ours', 'ours-b', 'lean', 'lean-core'].filter((x) => r[x])) {
      const ratio = (mode) => {
        const q = r[c][mode].map((x, i) => (x - r.raw[mode][i]) / (r.ts[mode][i] - r.raw[mode][i]));
        return `${median(q).toFixed(2)} (${Math.min(...q).toFixed(2)}–${Math.max(...q).toFixed(2)})`;
      };
      console.log(`${c}: (${c} − raw) ÷ (TS − raw) per round, median (range): sequential ${ratio('seq')}, concurrent ${ratio('conc')}`);
    }
  }
  // A combined client against the sum of its parts, round by round.
  for (const c of clients) {
    const m = /^fetch\+(.+)$/.exec(c);
    if (!m || !r.fetch) continue;
    const part = m[1] === 'ours-standin' ? r['ours-standin'] : null;
    const extra = (mode) => {
      const d = r[c][mode].map((x, i) => x - r.fetch[mode][i] - (part ? part[mode][i] : 0));
      return `${median(d).toFixed(1)} (${Math.min(...d).toFixed(0)}–${Math.max(...d).toFixed(0)})`;
    };
    console.log(`${c} − fetch${part ? ' − ours-standin' : ''}, per round: ${extra('seq')} µs sequential, ${extra('conc')} µs concurrent`);
  }
}

if (process.argv[2] === '--child') await child(process.argv[3], process.argv[4]);
else await main();
