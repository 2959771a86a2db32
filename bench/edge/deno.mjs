// One Deno process of the edge benchmark (bench/edge.mjs starts it):
//   deno run ... bench/edge/deno.mjs <client module path> <url> cold         import + open + 1 call, then exits
//   deno run ... bench/edge/deno.mjs <client module path> <url> cpu <n> <w>  w warm-up calls, then n timed
// Prints one JSON line. `cold` reports the time from this module's start to the first
// result (the import of the client included) and the memory after one call (after a GC).
import process from 'node:process';

const t0 = performance.now();
const [path, url, mode, n = '1000', w = '200'] = Deno.args;
const ARGS = { text: 'hello from the benchmark' };
const m = await import(path);
const c = await m.open(url);
const first = await c.call('echo', ARGS);
if (first?.content?.[0]?.text !== JSON.stringify(ARGS)) throw new Error(`wrong echo result ${JSON.stringify(first)}`);
const firstMs = performance.now() - t0;
if (mode === 'cold') {
  globalThis.gc?.();
  const mem = Deno.memoryUsage();
  const wasm = m.wasmMemoryBytes ? await m.wasmMemoryBytes() : 0;
  console.log(JSON.stringify({ firstMs, ...mem, wasm }));
} else {
  for (let i = 0; i < Number(w); i++) await c.call('echo', ARGS);
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for (let i = 0; i < Number(n); i++) await c.call('echo', ARGS);
  const cpu = process.cpuUsage(cpu0);
  console.log(JSON.stringify({ n: Number(n), cpuUs: cpu.user + cpu.system, wallMs: performance.now() - wall0 }));
}
