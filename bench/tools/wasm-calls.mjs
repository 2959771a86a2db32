// The wasm functions one steady `callTool` runs: how many distinct functions, how many
// calls between them, how many bytes of code those functions hold, and which (BENCHMARKS.md,
// the twenty-fourth session: what a call brings into the CPU caches). A probe, not a
// benchmark: the counts are deterministic for a given build, and nothing is timed.
//
// Uses the named build `bench/profile-size.sh` leaves in bench/out/size-profile/ (its glue
// m.js and named.wasm: the shipped flags, function names kept); run that first. Each
// function of named.wasm gets a call to an imported counter on entry (Binaryen), the
// package's entry files are copied beside it, and the client runs in this Node process
// against a stand-in global `fetch` that answers the echo call at once (no network: the
// census is the client's own). The deepest stack the calls reach is found by filling the
// stack's region with a pattern between calls. Byte sizes are the code section's bodies of the module
// before the counters were added.
//   node bench/tools/wasm-calls.mjs            WARMUP=2000 N=100 TOP=30 (defaults)
//   BY=calls node bench/tools/wasm-calls.mjs   (the list by calls per call, not by size)
//   CONCURRENT=50 node bench/tools/wasm-calls.mjs  (the calls made in batches of 50)
//   SRC=bench/out/size-profile-bench CLIENT=lean-core node bench/tools/wasm-calls.mjs
//     (the named bench package, see bench/profile-size.sh's WASM= and OUT=; CLIENT=ours, lean
//     or lean-core: our client or a probe of a leaner call path, bench/clients/lean*.js;
//     ONLY_IN=<file>: list only the functions that a census written with SAVE=<file> did not run)
import binaryen from 'binaryen';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { functions } from '../lib/wasm-functions.mjs';
import { ARGS, echoAnswer, jsonResponse } from '../lib/workload.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = path.resolve(ROOT, process.env.SRC ?? 'bench/out/size-profile');
const CLIENT = process.env.CLIENT ?? 'ours';
const OUT = `${ROOT}/bench/out/wasm-calls`;

const named = fs.readFileSync(`${SRC}/named.wasm`);
// Code body sizes by function name (before the counters are added).
const sizes = new Map();
{
  const f = functions(`${SRC}/named.wasm`);
  f.sizes.forEach((s, i) => s !== undefined && sizes.set(f.names.get(i) ?? `#${i}`, s));
}

// The counters: `probe.hit(i)` first in every defined function.
const m = binaryen.readBinary(named);
const F = binaryen.Features;
m.setFeatures(F.MVP | F.BulkMemory | (F.BulkMemoryOpt ?? 0) | (F.CallIndirectOverlong ?? 0) | F.NontrappingFPToInt | F.SignExt | F.MutableGlobals | F.ReferenceTypes | F.Multivalue);
m.addFunctionImport('__probe_hit', 'probe', 'hit', binaryen.createType([binaryen.i32]), binaryen.none);
const fnNames = [];
for (let i = 0; i < m.getNumFunctions(); i++) {
  const f = m.getFunctionByIndex(i);
  const info = binaryen.getFunctionInfo(f);
  if (info.module) continue;
  const call = m.call('__probe_hit', [m.i32.const(fnNames.length)], binaryen.none);
  fnNames.push(info.name);
  binaryen.Function.setBody(f, m.block(null, [call, binaryen.Function.getBody(f)], info.results));
}
if (!m.validate()) throw new Error('the instrumented module does not validate');
// The stack pointer's first value: the top of the stack, which wasm-ld puts first in memory
// (it grows down from there towards 0), so that [0, top) holds only stack frames.
const sp = binaryen.getGlobalInfo(m.getGlobalByIndex(0));
const stackTop = sp.mutable ? binaryen.getExpressionInfo(sp.init).value : 0;
fs.rmSync(OUT, { recursive: true, force: true });
fs.mkdirSync(OUT, { recursive: true });
fs.writeFileSync(`${OUT}/mcp_wasm_client_bg.wasm`, m.emitBinary());
fs.copyFileSync(`${SRC}/m.js`, `${OUT}/mcp_wasm_client.js`);
fs.cpSync(`${SRC}/snippets`, `${OUT}/snippets`, { recursive: true });
for (const f of ['index.js', 'load.js']) fs.copyFileSync(`${ROOT}/src/web/package/${f}`, `${OUT}/${f}`);

let hits = new Uint32Array(fnNames.length);
const probe = { hit: (i) => void hits[i]++ };
let memory;
for (const k of ['instantiate', 'instantiateStreaming']) {
  const orig = WebAssembly[k];
  WebAssembly[k] = async (src, imports) => {
    const r = await orig.call(WebAssembly, src, { ...imports, probe });
    const mine = Object.keys(imports ?? {}).some((m) => m.includes('mcp_wasm_client') || m.includes('mcp-wasm-client'));
    if (mine) memory = (r.instance ?? r).exports.memory; // ours, not another module
    return r;
  };
}
// The platform's fetch path (the body as bytes), answered at once.
const dec = new TextDecoder();
globalThis.fetch = async (_url, init) => jsonResponse(echoAnswer(typeof init?.body === 'string' ? init.body : dec.decode(init?.body)));
let c;
if (CLIENT === 'ours') {
  const { McpClient } = await import(pathToFileURL(`${OUT}/index.js`).href);
  c = new McpClient('http://127.0.0.1:9/mcp', { clientInfo: { name: 'bench', version: '1.0.0' } });
} else {
  const glue = await import(pathToFileURL(`${OUT}/mcp_wasm_client.js`).href);
  const probe = await (await import(`../clients/${CLIENT}.js`)).open('http://127.0.0.1:9/mcp', { glue, wasm: fs.readFileSync(`${OUT}/mcp_wasm_client_bg.wasm`) });
  c = { callTool: probe.call };
}
const warmup = Number(process.env.WARMUP || 2000);
const n = Number(process.env.N || 100);
const batch = Number(process.env.CONCURRENT || 1);
const run = async (k) => {
  for (let i = 0; i < k; i += batch) await Promise.all(Array.from({ length: Math.min(batch, k - i) }, () => c.callTool('echo', ARGS)));
};
await run(warmup);
hits = new Uint32Array(fnNames.length);
// Between calls no wasm frame is live: the stack below its top is filled with a pattern,
// and what the calls overwrite of it is their deepest stack.
if (stackTop) new Uint8Array(memory.buffer).fill(0xa5, 0, stackTop - 64);
await run(n);
let stackBytes = 0;
if (stackTop) {
  const mem = new Uint8Array(memory.buffer);
  let low = 0;
  while (low < stackTop && mem[low] === 0xa5) low++;
  stackBytes = stackTop - low;
}

let fns = 0;
let calls = 0;
let bytes = 0;
const rows = [];
for (let i = 0; i < fnNames.length; i++) {
  if (!hits[i]) continue;
  const size = sizes.get(fnNames[i]) ?? 0;
  fns++;
  calls += hits[i];
  bytes += size;
  rows.push({ size, perCall: hits[i] / n, name: fnNames[i].replace(/\[[0-9a-f]+\]/g, '') });
}
let all = 0;
for (const s of sizes.values()) all += s;
console.log(`${n} calls${batch > 1 ? ` in batches of ${batch}` : ', one at a time'}, after ${warmup}; per call: ${fns} distinct wasm functions run (of ${fnNames.length}), ${(calls / n).toFixed(0)} calls between them; those functions hold ${bytes.toLocaleString('en-US')} B of the module's ${all.toLocaleString('en-US')} B of code (whole bodies: an upper bound on the code a call touches); deepest stack ${stackBytes.toLocaleString('en-US')} B; wasm memory ${memory.buffer.byteLength.toLocaleString('en-US')} B`);
if (process.env.SAVE) fs.writeFileSync(process.env.SAVE, JSON.stringify(rows.map((r) => r.name)));
let shown = rows;
if (process.env.ONLY_IN) {
  const seen = new Set(JSON.parse(fs.readFileSync(process.env.ONLY_IN, 'utf8')));
  shown = rows.filter((r) => !seen.has(r.name));
  const b = shown.reduce((a, r) => a + r.size, 0);
  console.log(`of them not run by ${process.env.ONLY_IN}: ${shown.length} functions, ${b.toLocaleString('en-US')} B`);
}
shown.sort(process.env.BY === 'calls' ? (a, b) => b.perCall - a.perCall : (a, b) => b.size - a.size);
for (const r of shown.slice(0, Number(process.env.TOP ?? 30))) console.log(`${String(r.size).padStart(7)} B ${r.perCall.toFixed(2).padStart(8)}×  ${r.name.slice(0, 160)}`);
process.exit(0);
