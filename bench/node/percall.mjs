// One Node process, one client, one server mode: warm-up, then 1,000 sequential and
// 1,000 concurrent (batches of 50) tools/call. Prints one JSON line.
//   node --expose-gc bench/node/percall.mjs <ours|ts|raw> <url> '<json options>'
// options: { n, batch, warmup, template, stats }  (stats: the bench server's /__stats URL)
import { ARGS, concurrent, sequential, summarize, warmup } from '../lib/workload.js';

const [client, url, optsJson] = process.argv.slice(2);
const opts = JSON.parse(optsJson || '{}');
const n = opts.n ?? 1000;
const batch = opts.batch ?? 50;
const m = await import(`../clients/${client}.js`);
const c = await m.open(url, { template: opts.template });

// One checked call: every client must get the echo back.
const first = await c.call('echo', ARGS);
if (first?.content?.[0]?.text !== JSON.stringify(ARGS)) throw new Error(`${client}: wrong echo result ${JSON.stringify(first)}`);
await warmup(c, opts.warmup ?? 200);

const stats = async (reset) => (opts.stats ? (await fetch(`${opts.stats}${reset ? '?reset=1' : ''}`)).json() : null);
const out = { client, url, node: process.version };
for (const [pattern, run] of [
  ['seq', () => sequential(c, n)],
  ['conc', () => concurrent(c, n, batch)],
]) {
  await stats(true);
  globalThis.gc?.();
  const cpu0 = process.cpuUsage();
  const r = await run();
  const cpu = process.cpuUsage(cpu0);
  const s = await stats(true);
  out[pattern] = { ...summarize(r), cpuUsPerCall: (cpu.user + cpu.system) / n, requestsPerCall: s ? Object.values(s).reduce((a, b) => a + b, 0) / n : null };
}
console.log(JSON.stringify(out));
process.exit(0);
