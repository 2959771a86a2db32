// The wasm functions Chromium compiles lazily on the page's main thread between the import
// of the client and its first listTools result: how many, how many bytes of code, whose
// (BENCHMARKS.md, issue 14 target 5). A probe, not a benchmark: the counts and bytes are
// deterministic, the times are not (printed for scale only).
//
// Uses the named build `bench/profile-size.sh` leaves in bench/out/size-profile/ (its glue
// m.js and named.wasm, the shipped wasm with its function names); run that first.
//   node bench/tools/first-call-path.mjs            RUNS=3 TOP=25 (defaults)
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import * as B from '../browser.mjs';
import { functions } from '../lib/wasm-functions.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const WASM = `${ROOT}/bench/out/size-profile/named.wasm`;

const clean = (n) => n.replace(/\[[0-9a-f]+\]/g, '');
function owner(n) {
  n = clean(n);
  let m = /mcp_wasm_client::(\w+(?:::\w+)?)/.exec(n);
  if (m) return `ours: ${m[1]}`;
  if (/externref shim|^__wbg|^__wbindgen|wasm_bindgen|js_sys|^mcpclient_/.test(n)) return 'wasm-bindgen glue';
  m = /^<*&?(?:mut )?(\w+)::/.exec(n);
  return m ? m[1] : n.slice(0, 40);
}

const { names, sizes } = functions(WASM);
const total = sizes.reduce((a, s) => a + (s || 0), 0);
const { child: server, url: base } = await B.startServer();
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
let seen = null;
try {
  for (let run = 0; run < Number(process.env.RUNS || 3); run++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/static/bench/pages/blank.html`);
    await browser.startTracing(page, { categories: ['v8.wasm'] });
    const tools = await page.evaluate(async (base) => {
      const m = await import(`${base}/static/bench/out/size-profile/m.js`);
      await m.default({ module_or_path: `${base}/static/bench/out/size-profile/named.wasm` });
      const c = new m.McpClient(`${base}/json`);
      return (await c.listTools()).tools.length;
    }, base);
    const events = JSON.parse((await browser.stopTracing()).toString()).traceEvents.filter((e) => e.name === 'wasm.CompileLazy');
    const idx = [...new Set(events.map((e) => e.args.func_index))];
    const bytes = idx.reduce((a, i) => a + (sizes[i] || 0), 0);
    const ms = events.reduce((a, e) => a + e.dur, 0) / 1000;
    console.log(`run ${run}: ${tools} tools; ${idx.length} functions compiled lazily, ${bytes} B of ${total} B of code (${((100 * bytes) / total).toFixed(1)} %), ${ms.toFixed(1)} ms`);
    seen ??= idx;
    await context.close();
  }
} finally {
  await browser.close();
  server.kill();
}
const groups = new Map();
for (const i of seen) groups.set(owner(names.get(i) || ''), (groups.get(owner(names.get(i) || '')) || 0) + (sizes[i] || 0));
const top = Number(process.env.TOP || 25);
console.log('\nby owner (bytes of code on the first call\'s path, first run):');
for (const [k, v] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${String(v).padStart(8)} B  ${k}`);
console.log('\nlargest functions:');
for (const i of [...seen].sort((a, b) => sizes[b] - sizes[a]).slice(0, top)) console.log(`${String(sizes[i]).padStart(8)} B  ${clean(names.get(i) || `#${i}`).slice(0, 150)}`);
