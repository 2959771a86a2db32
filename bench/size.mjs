// Size: what a web app ships for each client, bundled by esbuild (browser, ESM, minified),
// counted with `gzip -9` (and brotli q11 for information).
//
//   node bench/size.mjs            bundles bench/apps/*.js into bench/out/bundles/, prints a
//                                  table and writes bench/out/size.json
//   node bench/size.mjs --check    measures only our client, both entries (pkg/: every era;
//                                  pkg/modern/: mcp-wasm-client/modern, 2026-07-28 only) and
//                                  compares each with its bench/size-budget.json budget
//                                  (maxGzipBytes, modernMaxGzipBytes); exit status 1 when over
//
// Our client ships a JS bundle plus the .wasm asset it fetches (esbuild leaves
// `new URL('./mcp_wasm_client_bg.wasm', import.meta.url)` alone; the file is copied beside
// the bundle): both are counted. The TypeScript client is JS only.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants } from 'node:zlib';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'bench/out');
const PKG = process.env.PKG_DIR ? resolve(process.env.PKG_DIR) : join(ROOT, 'pkg');

export function gzip9(buf) {
  const r = spawnSync('gzip', ['-9', '-n', '-c'], { input: buf, maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`gzip failed: ${r.stderr}`);
  return r.stdout.length;
}
const brotli = (buf) => brotliCompressSync(buf, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;

// Which npm package (or our pkg/) a bundled input file belongs to.
function packageOf(path) {
  if (path.startsWith('pkg/') || path.includes('/pkg/')) return 'mcp-wasm-client (glue)';
  const m = path.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  return m ? m[1] : path.startsWith('bench/') ? 'app' : path;
}

/** Bundles one app; returns the figures and the per-package split of the JS. `pkg`: the
 *  directory of our entry (pkg/, or pkg/modern/ for `mcp-wasm-client/modern`). */
export async function bundle(name, { write = true, pkg = PKG, outName = name } = {}) {
  const outdir = join(OUT, 'bundles', outName);
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    entryPoints: [join(ROOT, 'bench/apps', `${name}.js`)],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'error',
    absWorkingDir: ROOT,
    alias: { 'mcp-wasm-client': join(pkg, 'index.js') },
    outfile: join(outdir, 'app.js'),
  });
  const js = result.outputFiles[0].contents;
  if (write) writeFileSync(join(outdir, 'app.js'), js);
  const out = Object.values(result.metafile.outputs)[0];
  const byPkg = {};
  for (const [path, { bytesInOutput }] of Object.entries(out.inputs)) {
    const p = packageOf(path);
    byPkg[p] = (byPkg[p] || 0) + bytesInOutput;
  }
  const fig = { name, jsBytes: js.length, jsGzip: gzip9(js), jsBrotli: brotli(js), byPkg };
  if (name === 'ours') {
    const wasm = readFileSync(join(pkg, 'mcp_wasm_client_bg.wasm'));
    if (write) copyFileSync(join(pkg, 'mcp_wasm_client_bg.wasm'), join(outdir, 'mcp_wasm_client_bg.wasm'));
    Object.assign(fig, { wasmBytes: wasm.length, wasmGzip: gzip9(wasm), wasmBrotli: brotli(wasm) });
  }
  fig.totalBytes = fig.jsBytes + (fig.wasmBytes || 0);
  fig.totalGzip = fig.jsGzip + (fig.wasmGzip || 0);
  fig.totalBrotli = fig.jsBrotli + (fig.wasmBrotli || 0);
  return fig;
}

const kb = (n) => `${n.toLocaleString('en-US')} B`;

// The entries the budget covers: the default entry (every era) and `mcp-wasm-client/modern`
// (2026-07-28 only; the same app bundled against pkg/modern/).
const ENTRIES = [
  { key: 'maxGzipBytes', label: 'default entry (mcp-wasm-client)', pkg: PKG },
  { key: 'modernMaxGzipBytes', label: 'modern entry (mcp-wasm-client/modern)', pkg: join(PKG, 'modern') },
];

async function check() {
  const budgetFile = join(ROOT, 'bench/size-budget.json');
  const budget = JSON.parse(readFileSync(budgetFile, 'utf8'));
  let over = false;
  for (const e of ENTRIES) {
    if (!existsSync(join(e.pkg, 'mcp_wasm_client_bg.wasm'))) {
      console.error(`size check: ${e.pkg}/mcp_wasm_client_bg.wasm is missing (run scripts/build.sh)`);
      process.exit(2);
    }
    const max = budget[e.key];
    const f = await bundle('ours', { write: false, pkg: e.pkg });
    const line = `size check: ${e.label} ${kb(f.totalGzip)} gzip -9 (wasm ${kb(f.wasmGzip)} + JS ${kb(f.jsGzip)}); budget ${kb(max)}`;
    if (f.totalGzip > max) {
      console.error(`${line}: OVER by ${kb(f.totalGzip - max)}`);
      over = true;
      continue;
    }
    const room = max - f.totalGzip;
    console.log(`${line}: ok (${kb(room)} under)`);
    if (room > 1024) console.log(`size check: ${e.label} more than 1 KB under budget; lower ${e.key} in bench/size-budget.json to lock the gain in.`);
  }
  if (over) {
    console.error('Make it smaller, or raise bench/size-budget.json with a written reason in the commit message.');
    process.exit(1);
  }
}

async function full() {
  const figs = {};
  for (const name of ['ours', 'ts', 'ts-tasks', 'raw']) figs[name] = await bundle(name);
  if (existsSync(join(PKG, 'modern', 'mcp_wasm_client_bg.wasm'))) {
    figs['ours-modern'] = await bundle('ours', { pkg: join(PKG, 'modern'), outName: 'ours-modern' });
    figs['ours-modern'].name = 'ours-modern';
  }
  const ts = figs.ts.totalGzip;
  const tst = figs['ts-tasks'].totalGzip;
  console.log('\n== Size: what a web app ships (esbuild --bundle --minify, browser ESM) ==');
  console.log('app        |   minified JS |   .wasm |  gzip -9 total | brotli total | vs TS min | vs TS+tasks');
  for (const f of Object.values(figs)) {
    console.log(
      `${f.name.padEnd(10)} | ${String(f.jsBytes).padStart(13)} | ${String(f.wasmBytes || '-').padStart(7)} | ${String(f.totalGzip).padStart(14)} | ${String(f.totalBrotli).padStart(12)} | ${(f.totalGzip / ts).toFixed(2).padStart(8)}× | ${(f.totalGzip / tst).toFixed(2).padStart(8)}×`,
    );
  }
  for (const f of Object.values(figs)) {
    const parts = Object.entries(f.byPkg)
      .sort((a, b) => b[1] - a[1])
      .filter(([, n]) => n / f.jsBytes >= 0.01)
      .map(([p, n]) => `${p} ${((100 * n) / f.jsBytes).toFixed(0)}%`);
    console.log(`  ${f.name} JS by package: ${parts.join(', ')}`);
  }
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, 'size.json'), JSON.stringify(figs, null, 2));
  return figs;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) await check();
  else await full();
}
