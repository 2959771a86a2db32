// The same pkg/ in every JavaScript environment, each calling a real MCP server
// (tests/servers/modern_server.py; MCP_TEST_URL=... to use a running one):
//   vite    bundled by Vite 7 (vite build), the built app loaded in headless Chromium
//   script  a plain <script type="module"> page
//   worker  a dedicated module Web Worker
//   service-worker  a module Service Worker (no top-level await: `mcp-wasm-client/load`)
//   node    Node 20 ESM import by package name (/usr/bin/node; NODE=... to change)
//   vm      a runtime without window/DOM: a Node vm context with only fetch & co.
//   vm-module  the same, given the wasm as a compiled WebAssembly.Module through
//           `mcp-wasm-client/load` (how edge runtimes import .wasm), never fetching it
// One PASS/FAIL line per environment; exit status 1 when one failed.
import { execFile } from 'node:child_process';
import { cp, mkdir, readdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { OUT, ROOT, launchBrowser, mcpServer, staticServer } from '../e2e/lib.mjs';
import { expected } from './probe.js';

const run = promisify(execFile);
const NODE = process.env.NODE || '/usr/bin/node';
const HERE = join(ROOT, 'tests/env');
const WORK = join(OUT, 'env');

// A consumer directory where the package is installed by name, as `npm install ./pkg` does (a symlink).
const consumer = join(WORK, 'consumer');
await rm(WORK, { recursive: true, force: true });
await mkdir(join(consumer, 'node_modules'), { recursive: true });
await symlink(join(ROOT, 'pkg'), join(consumer, 'node_modules/mcp-wasm-client'), 'dir');
await cp(join(HERE, 'vite-app'), join(consumer, 'vite-app'), { recursive: true });
for (const f of ['probe.js', 'node-esm.mjs']) await cp(join(HERE, f), join(consumer, f));
await cp(join(HERE, 'probe.js'), join(consumer, 'vite-app/probe.js'));

const mcpUrl = await mcpServer('MCP_TEST_URL', 'tests/servers/modern_server.py');
const web = await staticServer({ '/pkg/': join(ROOT, 'pkg'), '/env/': HERE, '/vite/': join(WORK, 'vite-dist') });
const q = `?mcp=${encodeURIComponent(mcpUrl)}`;
let failed = 0;
let browser = null;

async function check(env, want, get) {
  const t0 = Date.now();
  let got;
  try {
    got = await get();
  } catch (e) {
    got = `ERROR ${e.message.split('\n')[0]}`;
  }
  if (got === want) {
    console.log(`PASS env ${env}: ${got} (${Date.now() - t0} ms)`);
  } else {
    failed += 1;
    console.log(`FAIL env ${env}: got "${got}", expected "${want}"`);
  }
}

async function inPage(path) {
  browser = browser || await launchBrowser();
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  try {
    await page.goto(`${web.url}${path}${q}`);
    const out = page.locator('#result[data-done]');
    await out.waitFor({ timeout: 30_000 });
    const text = await out.textContent();
    return errors.length ? `${text} (page errors: ${errors.join('; ')})` : text;
  } finally {
    await page.close();
  }
}

await check('vite', `${expected('vite')} | dialog function`, async () => {
  const { build } = await import('vite');
  await build({
    root: join(consumer, 'vite-app'),
    base: './',
    logLevel: 'warn',
    build: { outDir: join(WORK, 'vite-dist'), emptyOutDir: true },
  });
  const assets = await readdir(join(WORK, 'vite-dist/assets'));
  if (!assets.some((f) => f.endsWith('.wasm'))) throw new Error(`vite emitted no .wasm asset (${assets.join(', ')})`);
  return inPage('/vite/index.html');
});
await check('script', expected('script'), () => inPage('/env/pages/script.html'));
await check('worker', `${expected('worker')} | window undefined`, () => inPage('/env/pages/worker.html'));
await check('service-worker', `${expected('service-worker')} | window undefined, clients object`, () => inPage('/env/pages/service-worker.html'));
await check('node', `${expected('node')} | dialog function | node 20`, async () => {
  const { stdout } = await run(NODE, [join(consumer, 'node-esm.mjs'), mcpUrl], { timeout: 60_000 });
  return stdout.trim();
});
// The vm runtime's globals, as the probe module reports them.
const NO_DOM = 'window undefined, self undefined, document undefined, navigator undefined, process undefined, crypto undefined, performance undefined, setInterval undefined';
for (const [env, args] of [['vm', []], ['vm-module', ['module']]]) {
  await check(env, `${expected(env)} | ${NO_DOM}`, async () => {
    const { stdout } = await run(NODE, ['--experimental-vm-modules', '--no-warnings', join(HERE, 'vm-runtime.mjs'), mcpUrl, web.url, ...args], { timeout: 60_000 });
    return stdout.trim();
  });
}

if (browser) await browser.close();
await web.close();
console.log(failed === 0 ? 'env tests: all environments passed' : `env tests: ${failed} environment(s) FAILED`);
process.exit(failed === 0 ? 0 : 1);
