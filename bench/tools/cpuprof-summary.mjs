// Summarises a V8 .cpuprofile (node --cpu-prof, or Chromium's from chromium-cpuprofile.mjs):
// self time by area and the top functions.
//   node bench/tools/cpuprof-summary.mjs <file.cpuprofile> [top]
import { readFileSync } from 'node:fs';

const [file, topArg] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = p.timeDeltas;
for (let i = 0; i < p.samples.length; i++) self.set(p.samples[i], (self.get(p.samples[i]) || 0) + (dt[i] || 0));
// Our module is the wasm module whose functions carry our crate's names; any other wasm
// module is undici's llhttp (Node's fetch parses HTTP in wasm).
const ourWasm = new Set(p.nodes.filter((n) => /mcp_wasm_client/.test(n.callFrame.functionName)).map((n) => n.callFrame.url));
const area = (cf) => {
  const u = cf.url || '';
  if (cf.functionName === '(idle)') return 'idle';
  if (cf.functionName === '(garbage collector)') return 'GC';
  if (cf.functionName === '(program)') return 'program (native, unattributed)';
  if (u.startsWith('wasm://')) return ourWasm.has(u) ? 'wasm (our Rust code)' : "wasm (undici's llhttp)";
  // Chromium names a module by its URL (bench/tools/chromium-cpuprofile.mjs), and the
  // clients there are bundles (bench/out/bundles/): ours' includes the glue.
  if (u.endsWith('mcp_wasm_client_bg.wasm')) return 'wasm (our Rust code)';
  if (u.includes('bench/out/bundles/')) return "the client's bundle (JS)";
  if (u.includes('mcp_wasm_client.js')) return 'wasm-bindgen glue (JS)';
  if (u.includes('/pkg/') || u.includes('bench/clients')) return 'our package JS';
  if (u.includes('@modelcontextprotocol') || u.includes('/zod/')) return 'TS client + zod';
  if (u.includes('undici') || u.includes('node:internal/deps')) return 'undici (fetch)';
  if (u.startsWith('node:')) return 'node internals';
  if (u.includes('bench/')) return 'benchmark loop';
  return u ? 'other JS' : `native: ${cf.functionName}`;
};
const areas = new Map();
const fns = new Map();
let total = 0;
for (const [id, us] of self) {
  const n = byId.get(id);
  const a = area(n.callFrame);
  if (a === 'idle') continue;
  total += us;
  areas.set(a, (areas.get(a) || 0) + us);
  const key = `${n.callFrame.functionName || '(anonymous)'}  [${a}]`;
  fns.set(key, (fns.get(key) || 0) + us);
}
console.log(`busy ${(total / 1000).toFixed(1)} ms`);
for (const [a, us] of [...areas].sort((x, y) => y[1] - x[1])) console.log(`${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / total).toFixed(1).padStart(5)} %  ${a}`);
console.log('top functions (self):');
for (const [f, us] of [...fns].sort((x, y) => y[1] - x[1]).slice(0, Number(topArg || 30))) console.log(`${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / total).toFixed(1).padStart(5)} %  ${f}`);
