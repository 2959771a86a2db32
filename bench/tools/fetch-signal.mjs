// What an AbortSignal costs a plain `fetch` in Node (BENCHMARKS.md "per call across Node
// release lines"): the same POST to the bench server with no signal, with a fresh
// AbortController's signal per request (what our client passes: each exchange can be
// cancelled on its own, and MCP cancels a request by closing its stream), and with one signal
// shared by every request (what the TS client passes). Rounds interleaved, the order rotating;
// CPU µs per call (process.cpuUsage) and each variant's difference to "none" per round. A
// probe, not a test. Run it under the Node to measure:
//   node bench/tools/fetch-signal.mjs            ROUNDS=12 N=1500 (defaults)
import { startServer } from '../browser.mjs';
import { ECHO_HEADERS } from '../lib/workload.js';

const rounds = Number(process.env.ROUNDS || 12);
const n = Number(process.env.N || 1500);

const { child: server, url: base } = await startServer();
const url = `${base}/json`;

const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } });
const headers = ECHO_HEADERS;
const shared = new AbortController();
const variants = {
  none: () => fetch(url, { method: 'POST', headers, body }),
  fresh: () => fetch(url, { method: 'POST', headers, body, signal: new AbortController().signal }),
  shared: () => fetch(url, { method: 'POST', headers, body, signal: shared.signal }),
};
const names = Object.keys(variants);

async function round(v, count) {
  const c0 = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const res = await variants[v]();
    await res.arrayBuffer();
  }
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / count;
}

const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
try {
  for (const v of names) await round(v, 3000); // warm-up
  const got = Object.fromEntries(names.map((v) => [v, []]));
  for (let k = 0; k < rounds; k++) {
    for (let i = 0; i < names.length; i++) {
      const v = names[(i + k) % names.length];
      got[v].push(await round(v, n));
    }
  }
  console.log(`Node ${process.version}, ${rounds} rounds of ${n} calls; CPU µs per call`);
  for (const v of names) console.log(`${v.padEnd(7)} median ${median(got[v]).toFixed(0)}: ${got[v].map((x) => x.toFixed(0)).join(' ')}`);
  for (const v of names.slice(1)) {
    const d = got[v].map((x, i) => x - got.none[i]);
    console.log(`${v} - none, per round: ${d.map((x) => x.toFixed(0)).join(' ')}; median ${median(d).toFixed(0)}`);
  }
} finally {
  server.kill();
}
