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

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = join(ROOT, 'bench/out/bundles/large-arguments');
const SIZES = (process.env.SIZES ?? '1000,5000,100000').split(',').map(Number);
const BLOCKS = Number(process.env.BLOCKS ?? 15);
const N = Number(process.env.N ?? 200);
const WARMUP = Number(process.env.WARMUP ?? 300);
const BASELINE = resolve(process.env.BASELINE_PKG ?? join(ROOT, 'bench/out/pkg-baseline'));
const CLIENTS = ['ours', 'baseline', 'ts'];

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  const i = (s.length - 1) * q;
  const lo = Math.floor(i);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (i - lo);
};

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
    const context = await browser.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
    await page.goto(`${base}/static/bench/pages/blank.html`);
    const task = async () => (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration').value;
    await page.evaluate(
      async ({ clients, base, size, warmup, ascii }) => {
        const enc = new TextEncoder();
        const dec = new TextDecoder();
        // The stand-in (as in large-arguments.mjs): a Request of the body, then the id
        // from the request's start or end, and a small answer.
        const real = globalThis.fetch;
        globalThis.fetch = async (url, init) => {
          // Anything but the MCP endpoint (the wasm module, loaded at the first call) goes out.
          if (String(url) !== 'http://127.0.0.1:9/mcp') return real(url, init);
          new Request(url, { method: init.method, headers: init.headers, body: init.body });
          const b = init?.body;
          const ends = (x) => (typeof x === 'string' ? [x.slice(0, 200), x.slice(-100)] : [dec.decode(x.subarray(0, 200)), dec.decode(x.subarray(-100))]);
          const [head, tail] = b ? ends(b) : ['', ''];
          const idOf = (t) => /"id":("[^"\\]*"|\d+)/.exec(t)?.[1];
          const id = idOf(head) ?? idOf(tail) ?? '0';
          const text = head.includes('"tools/list"')
            ? `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","tools":[{"name":"write","inputSchema":{"type":"object"}}]}}`
            : head.includes('"server/discover"')
              ? `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"stand-in","version":"1.0.0"}}}}`
              : `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","content":[{"type":"text","text":"written"}]}}`;
          const bytes = enc.encode(text);
          return new Response(bytes, { status: 200, headers: { 'content-type': 'application/json', 'content-length': String(bytes.byteLength) } });
        };
        const line = ascii
          ? 'const s = "a \\"quoted\\" word" + 42; // no emoji\tand a tab\n'
          : 'const s = "a \\"quoted\\" word" + 42; // émoji 🎉\tand a tab\n';
        window.__args = { path: '/work/src/file.js', content: line.repeat(Math.ceil(size / line.length)).slice(0, size) };
        window.__c = {};
        for (const name of clients) {
          const m = await import(`${base}/static/bench/out/bundles/large-arguments/${name}/client.js`);
          const c = await m.open('http://127.0.0.1:9/mcp');
          const first = await c.call('write', window.__args);
          if (first?.content?.[0]?.text !== 'written') throw new Error(`${name}: wrong result ${JSON.stringify(first)}`);
          window.__c[name] = c;
        }
        for (let i = 0; i < warmup; i += 50) for (const name of clients) for (let k = 0; k < 50; k++) await window.__c[name].call('write', window.__args);
      },
      { clients: CLIENTS, base, size, warmup: WARMUP, ascii: process.env.CONTENT === 'ascii' },
    );
    const us = Object.fromEntries(CLIENTS.map((c) => [c, []]));
    const rb = [];
    const rt = [];
    for (let b = 0; b < BLOCKS; b++) {
      const order = CLIENTS.map((_, i) => CLIENTS[(i + b) % CLIENTS.length]);
      const block = {};
      for (const name of order) {
        const t0 = await task();
        await page.evaluate(
          async ({ name, n }) => {
            for (let i = 0; i < n; i++) await window.__c[name].call('write', window.__args);
          },
          { name, n: N },
        );
        block[name] = ((await task()) - t0) * 1e6 / N;
        us[name].push(block[name]);
      }
      rb.push(block.ours / block.baseline);
      rt.push(block.ours / block.ts);
    }
    const cell = (xs) => `${quantile(xs, 0.5).toFixed(1)} (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`;
    console.log(`| ${size.toLocaleString('en')} characters | ${cell(us.ours)} | ${cell(us.baseline)} | ${cell(us.ts)} | ${quantile(rb, 0.5).toFixed(2)} | ${quantile(rt, 0.5).toFixed(2)} |`);
    await context.close();
  }
} finally {
  await browser.close();
  server.kill();
}
