// What a tools/call with large arguments costs in Chromium (bench/tools/large-arguments.mjs
// is the Node half): our client (pkg/), a baseline build (BASELINE_PKG) and the TS client
// in ONE page, blocks of sequential calls interleaved with the order rotating. A stand-in
// global fetch answers at once (after making a `Request` of the body, as the platform's
// fetch does), so the figure is the clients' own work on the arguments and the request.
// Each block is measured by the page's main-thread task time (DevTools
// Performance.getMetrics `TaskDuration`, thread ticks); the ratio is the median of the
// blocks' ratios within a rotation. A probe, not a test:
//   BASELINE_PKG=/tmp/pkg-before node bench/tools/chromium-large-arguments.mjs
//   SIZES=1000,5000,100000 BLOCKS=15 N=200 WARMUP=300 CONTENT=ascii (no text outside ASCII)
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as B from '../browser.mjs';
import { median } from '../lib/workload.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = join(ROOT, 'bench/out/bundles/large-arguments');
const SIZES = (process.env.SIZES ?? '1000,5000,100000').split(',').map(Number);
const BLOCKS = Number(process.env.BLOCKS ?? 15);
const N = Number(process.env.N ?? 200);
const WARMUP = Number(process.env.WARMUP ?? 300);
const BASELINE = resolve(process.env.BASELINE_PKG ?? join(ROOT, 'bench/out/pkg-baseline'));
const CLIENTS = ['ours', 'baseline', 'ts'];

/** One bundle per client, each in its own directory (ours and the baseline each beside
 *  their own wasm module). */
async function bundles() {
  const pkgs = { ours: join(ROOT, 'pkg'), baseline: BASELINE };
  for (const [name, dir] of Object.entries(pkgs)) {
    const out = join(OUT, name);
    mkdirSync(out, { recursive: true });
    const entry = join(out, 'entry.js');
    writeFileSync(entry, `import { McpClient } from ${JSON.stringify(join(dir, 'index.js'))};
export async function open(url) {
  const c = new McpClient(url, { clientInfo: { name: 'bench', version: '1.0.0' } });
  return { call: (t, a) => c.callTool(t, a) };
}
`);
    await build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'browser', target: 'es2022', minify: true, outfile: join(out, 'client.js'), logLevel: 'error', absWorkingDir: ROOT });
    copyFileSync(join(dir, 'mcp_wasm_client_bg.wasm'), join(out, 'mcp_wasm_client_bg.wasm'));
  }
  mkdirSync(join(OUT, 'ts'), { recursive: true });
  await build({ entryPoints: [join(ROOT, 'bench/clients/ts.js')], bundle: true, format: 'esm', platform: 'browser', target: 'es2022', minify: true, outfile: join(OUT, 'ts/client.js'), logLevel: 'error', absWorkingDir: ROOT });
}

const { child: server, url: base } = await B.startServer();
await bundles();
const browser = await B.launch();
console.log(`Chromium ${browser.version()}, ${process.env.CONTENT === 'ascii' ? 'ASCII' : 'mixed'} text, one page per size, ${BLOCKS} blocks of ${N} sequential calls per client after ${WARMUP}, interleaved; main-thread task µs per call, medians of the blocks (range); ours = pkg/, baseline = ${BASELINE}`);
console.log('| arguments | ours | baseline | TS client | ours ÷ baseline | ours ÷ TS |');
console.log('|---:|---:|---:|---:|---:|---:|');
try {
  for (const size of SIZES) {
    const { context, page, task } = await B.measuredPage(browser, base);
    await page.evaluate(
      async ({ clients, base, size, warmup, ascii }) => {
        // The same stand-in and arguments as large-arguments.mjs in Node.
        const S = await import(`${base}/static/bench/lib/stand-in.js`);
        globalThis.fetch = S.standInFetch(globalThis.fetch);
        window.__args = S.argsOf(size, ascii);
        window.__c = {};
        for (const name of clients) {
          const m = await import(`${base}/static/bench/out/bundles/large-arguments/${name}/client.js`);
          const c = await m.open(S.MCP_URL);
          const first = await c.call('write', window.__args);
          if (first?.content?.[0]?.text !== 'written') throw new Error(`${name}: wrong result ${JSON.stringify(first)}`);
          window.__c[name] = c;
        }
        for (let i = 0; i < warmup; i += 50) for (const name of clients) for (let k = 0; k < 50; k++) await window.__c[name].call('write', window.__args);
      },
      { clients: CLIENTS, base, size, warmup: WARMUP, ascii: process.env.CONTENT === 'ascii' },
    );
    const rounds = await B.interleavedBlocks(CLIENTS, BLOCKS, N, task, (name) =>
      page.evaluate(
        async ({ name, n }) => {
          for (let i = 0; i < n; i++) await window.__c[name].call('write', window.__args);
        },
        { name, n: N },
      ),
    );
    const us = Object.fromEntries(CLIENTS.map((c) => [c, rounds.map((r) => r[c])]));
    const rb = rounds.map((r) => r.ours / r.baseline);
    const rt = rounds.map((r) => r.ours / r.ts);
    const cell = (xs) => `${median(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`;
    console.log(`| ${size.toLocaleString('en')} characters | ${cell(us.ours)} | ${cell(us.baseline)} | ${cell(us.ts)} | ${median(rb).toFixed(2)} | ${median(rt).toFixed(2)} |`);
    await context.close();
  }
} finally {
  await browser.close();
  server.kill();
}
