// A large structuredContent result (the bench server's `large` tool, ~5 MB) in a fresh
// Node process. Prints one JSON line:
//  - peak memory of the first large call: growth of the process's max RSS (and, for our
//    client, of the wasm linear memory) over the state after a small call;
//  - for each of `reps` further calls: total time, and time from the response head
//    (fetch resolved) to the result object in the caller's hands.
//   node --expose-gc bench/node/large.mjs <ours|ts|raw> <url> [reps]
const [client, url, repsArg] = process.argv.slice(2);
const reps = Number(repsArg || 5);
const m = await import(`../clients/${client}.js`);
let tHead = 0;
const fetchSpy = (u, init) =>
  globalThis.fetch(u, init).then((r) => {
    tHead = performance.now();
    return r;
  });
const c = await m.open(url, { fetch: fetchSpy });
await c.call('echo', { text: 'warm' });
globalThis.gc?.();
const wasm0 = m.wasmMemoryBytes ? await m.wasmMemoryBytes() : 0;
const rss0 = process.resourceUsage().maxRSS * 1024;
const heap0 = process.memoryUsage();
let r = await c.call('large', {});
const rss1 = process.resourceUsage().maxRSS * 1024;
const wasm1 = m.wasmMemoryBytes ? await m.wasmMemoryBytes() : 0;
const n = r?.structuredContent?.items?.length;
if (!n) throw new Error(`${client}: no items in the large result`);
r = null;
const times = [];
for (let i = 0; i < reps; i++) {
  globalThis.gc?.();
  const t0 = performance.now();
  const res = await c.call('large', {});
  const t1 = performance.now();
  if (res.structuredContent.items.length !== n) throw new Error('wrong result');
  times.push({ totalMs: t1 - t0, fromHeadMs: t1 - tHead });
}
console.log(JSON.stringify({ client, items: n, peakRssGrowth: rss1 - rss0, rssBefore: rss0, heapBefore: heap0.heapUsed, wasmMemoryGrowth: wasm1 - wasm0, wasmMemory: wasm1, times }));
process.exit(0);
