// What reading the host's options costs, this build against another (PKG_B), in one Node
// process, rounds interleaved (BENCHMARKS.md, the fifty-first session: the options read in
// JS). Two measures, CPU µs each (process.cpuUsage), median of the rounds:
// - `new`: `new McpClient(url, options)` and `close()`, with the options a typical agent page
//   gives (clientInfo, the tasks extension, an elicitation handler and its modes, headers, a
//   timeout, a limit, a fetch; `coordination: 'none'`, so that no channel is opened);
// - `call`: a `callTool` with per-call options `{ timeoutMs, signal, onProgress }`, answered at
//   once by a stand-in fetch with a real `Response`, minus the same call without options.
// A probe, not a test:
//   PKG_B=/path/to/other/pkg node bench/tools/options-cost.mjs    ROUNDS=9 N=2000 WARMUP=2000
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ROUNDS = Number(process.env.ROUNDS ?? 9);
const N = Number(process.env.N ?? 2000);
const WARMUP = Number(process.env.WARMUP ?? 2000);
if (!process.env.PKG_B) throw new Error('PKG_B: the other build\'s pkg/ directory');
const builds = {
  this: await import(pathToFileURL(path.join(ROOT, 'pkg/index.js')).href),
  b: await import(pathToFileURL(path.join(path.resolve(process.env.PKG_B), 'index.js')).href),
};

const URL_ = 'http://127.0.0.1:9/mcp';
const TOOLS = '{"resultType":"complete","tools":[{"name":"echo","inputSchema":{"type":"object"}}]}';
const RESULT = '{"resultType":"complete","content":[{"type":"text","text":"x"}]}';
/** A stand-in fetch: answers each request at once (tools/list with one tool). */
const fetch = async (_input, init) => {
  const body = typeof init.body === 'string' ? init.body : new TextDecoder().decode(init.body);
  const id = /"id":(\d+)/.exec(body)[1];
  const result = body.includes('"tools/list"') ? TOOLS : RESULT;
  return new Response(`{"jsonrpc":"2.0","id":${id},"result":${result}}`, {
    headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28' },
  });
};
const options = {
  clientInfo: { name: 'agent-page', version: '1.0.0' },
  extensions: ['io.modelcontextprotocol/tasks'],
  onElicitation: async () => ({ action: 'decline' }),
  elicitation: { form: true, url: true },
  headers: { 'x-app': 'bench' },
  requestTimeoutMs: 30_000,
  limits: { maxBodyBytes: 10_000_000 },
  coordination: 'none',
  protocolVersion: '2026-07-28',
  fetch,
};

async function cpuAsync(f, n) {
  const t = process.cpuUsage();
  await f(n);
  const d = process.cpuUsage(t);
  return (d.user + d.system) / n;
}
// In chunks, the event loop turning between them: a closed client's memory is given back by
// FinalizationRegistry callbacks, which run only then (their CPU is counted: it is part of a
// client's cost); without the turns they pile up and each construction slows down.
const construct = (m) => async (n) => {
  for (let i = 0; i < n; i++) {
    new m.McpClient(URL_, options).close();
    if (i % 100 === 99) await new Promise((r) => setImmediate(r));
  }
};
const clients = Object.fromEntries(Object.entries(builds).map(([k, m]) => [k, new m.McpClient(URL_, { fetch, protocolVersion: '2026-07-28' })]));
const calls = (k, withOptions) => async (n) => {
  const c = clients[k];
  for (let i = 0; i < n; i++) {
    await c.callTool('echo', { text: 'x' }, withOptions ? { timeoutMs: 30_000, signal: new AbortController().signal, onProgress: () => {} } : undefined);
  }
};

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const res = { this: { new: [], call: [] }, b: { new: [], call: [] } };
for (const k of Object.keys(builds)) {
  await construct(builds[k])(WARMUP);
  await calls(k, true)(WARMUP);
  await calls(k, false)(WARMUP);
}
for (let r = 0; r < ROUNDS; r++) {
  for (const k of r % 2 ? ['b', 'this'] : ['this', 'b']) {
    res[k].new.push(await cpuAsync(construct(builds[k]), N));
    const w = await cpuAsync(calls(k, true), N);
    const wo = await cpuAsync(calls(k, false), N);
    res[k].call.push(w - wo);
  }
}
for (const c of Object.values(clients)) c.close();
const f = (x) => x.toFixed(1).padStart(7);
console.log(`CPU µs, median of ${ROUNDS} rounds of ${N} (range)`);
console.log('build |  new McpClient + close  | call options (with − without)');
for (const k of Object.keys(res)) {
  const { new: a, call: b } = res[k];
  console.log(`${k.padEnd(5)} | ${f(median(a))} (${f(Math.min(...a))}–${f(Math.max(...a))}) | ${f(median(b))} (${f(Math.min(...b))}–${f(Math.max(...b))})`);
}
