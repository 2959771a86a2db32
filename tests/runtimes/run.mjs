// The package in real runtimes, each running the shared scenario (tests/runtimes/scenario.js:
// tools/list, tools/call, an MRTR round answered by a handler, a task with two input phases,
// an McpError) against tests/servers/modern_server.py:
//
//   workerd          Cloudflare's runtime (npm `workerd`): a module worker bundled as Wrangler
//                    does (workerd/bundle.mjs), the .wasm a CompiledWasm module, entered through
//                    `mcp-wasm-client/load`; started from workerd/config.capnp, outbound fetches
//                    allowed to loopback only; driven by HTTP requests
//   workerd-wrangler the README's wrangler.jsonc and worker (workerd/wrangler/), served by
//                    `workerd serve wrangler.jsonc`, which bundles it as Wrangler does; only
//                    public addresses allowed there (as deployed), so the call must be refused
//   deno             Deno (npm `deno`): pkg/index.js imported by path; --allow-net to the
//                    server's host:port only, --allow-read of pkg/ and this folder, no remote imports
//   bun              Bun (npm `bun`): pkg/index.js imported by path
//   node             Node itself, no harness (node-idle.mjs): the client's timer keeps the
//                    process alive while a task is polled, and not once the calls have ended
//   service-worker   a module Service Worker in headless Chromium, registered by a page, using
//                    `mcp-wasm-client/load`, answering the page's messages by calling the server
//
//   node tests/runtimes/run.mjs [mcp url]   (default: $MCP_TEST_SERVER_URL, else a server is started)
//
// They run in parallel. One PASS/FAIL line per runtime; a runtime that cannot start is a
// FAIL with its reason. Exit status 1 when one failed.
import { cp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { launchBrowser, mcpServer, staticServer } from '../e2e/lib.mjs';
import { OUT, ROOT, bunCommand, denoCommand, runCommand, startWorkerd } from './lib.mjs';
import { expected } from './scenario.js';
import { bundleWorker } from './workerd/bundle.mjs';

const HERE = join(ROOT, 'tests/runtimes');
const mcpUrl = process.argv[2] || process.env.MCP_TEST_SERVER_URL || await mcpServer('MCP_TEST_URL', 'tests/servers/modern_server.py');
const q = `mcp=${encodeURIComponent(mcpUrl)}`;

/** The scenario's result must equal `expected(env)` plus `extra`, key for key. */
function verdict(env, got, extra = {}) {
  const want = { ...extra, ...expected(env) };
  const g = JSON.stringify(got);
  const w = JSON.stringify(want);
  if (g !== w) throw new Error(`got ${g}\n      expected ${w}`);
  return `${got.era}; tools ${got.tools.length}; echo; MRTR "${got.mrtr.result}"; task "${got.task.result}" (${got.task.asks.length} inputs); ${got.error}`;
}

function parseLastJson(stdout) {
  const line = stdout.trim().split('\n').pop();
  try {
    return JSON.parse(line);
  } catch {
    throw new Error(`not a JSON result: ${stdout.trim().slice(0, 500)}`);
  }
}

const RUNTIMES = {
  async workerd() {
    const names = await bundleWorker();
    if (names.join() !== 'mcp_wasm_client_bg.wasm') throw new Error(`the bundle's wasm modules: ${names.join(', ')}`);
    const w = await startWorkerd();
    try {
      const res = await fetch(`${w.url}/scenario?${q}`);
      const body = await res.text();
      if (!res.ok) throw new Error(`HTTP ${res.status}: ${body.slice(0, 800)}`);
      const got = JSON.parse(body);
      // The same isolate, two more requests: the module instantiated once, and a client made
      // by one request and kept at module scope, serve them.
      for (const n of [2, 3]) {
        const again = await fetch(`${w.url}/call?${q}&n=${n}`).then((r) => r.json());
        if (again?.content?.[0]?.text !== `call ${n - 1}`) throw new Error(`request /call n=${n}: ${JSON.stringify(again)}`);
      }
      return `${verdict('workerd', got, { wasmIsModule: true })}; a module-scope client across 2 more requests`;
    } catch (e) {
      const log = w.stderr().trim();
      throw new Error(log ? `${e.message}\n      workerd: ${log.split('\n').slice(-10).join('\n      ')}` : e.message);
    } finally {
      await w.stop();
    }
  },
  // The README's wrangler.jsonc and worker, served by workerd itself (it bundles `main` with
  // esbuild as Wrangler does). Public addresses only there, as deployed: the call to the
  // loopback server must be refused by the runtime, not fail inside the client.
  async 'workerd-wrangler'() {
    const dir = join(OUT, 'runtimes/wrangler');
    await rm(dir, { recursive: true, force: true });
    await cp(join(HERE, 'workerd/wrangler'), dir, { recursive: true });
    await mkdir(join(dir, 'node_modules'));
    await symlink(join(ROOT, 'pkg'), join(dir, 'node_modules/mcp-wasm-client'), 'dir');
    const config = join(dir, 'wrangler.jsonc');
    const text = await readFile(config, 'utf8');
    if (!text.includes('"https://mcp.example.com/mcp"')) throw new Error('wrangler.jsonc: MCP_SERVER_URL placeholder not found');
    await writeFile(config, text.replace('"https://mcp.example.com/mcp"', JSON.stringify(mcpUrl)));
    const w = await startWorkerd(config, [], { WORKERD_ESBUILD: join(ROOT, 'node_modules/.bin/esbuild') });
    try {
      const res = await fetch(w.url);
      const body = await res.text();
      if (!res.ok) throw new Error(`HTTP ${res.status}: ${body.slice(0, 800)}`);
      const want = { wasmIsModule: true, version: 'string', url: mcpUrl, call: 'NetworkError' };
      if (body !== JSON.stringify(want)) throw new Error(`got ${body}, expected ${JSON.stringify(want)}`);
      const port = new URL(mcpUrl).port;
      const refused = `connecting to 127.0.0.1:${port} is not allowed`;
      for (let i = 0; i < 20 && !w.stderr().includes(refused); i++) await new Promise((r) => setTimeout(r, 50));
      if (!w.stderr().includes(refused)) throw new Error(`workerd did not log "${refused}": ${w.stderr().slice(-600)}`);
      return 'bundled by workerd from wrangler.jsonc; .wasm a WebAssembly.Module; vars in env; the call refused by the public-only outbound, as deployed';
    } finally {
      await w.stop();
    }
  },
  async deno() {
    const cmd = await denoCommand(join(HERE, 'main-entry.mjs'), [mcpUrl], mcpUrl, [join(ROOT, 'pkg'), HERE]);
    return verdict('deno', parseLastJson(await runCommand(cmd)));
  },
  async bun() {
    return verdict('bun', parseLastJson(await runCommand(bunCommand(join(HERE, 'main-entry.mjs'), [mcpUrl]))));
  },
  // Node with no test harness around it: a task's polls keep the process alive, and a client
  // left open does not once its calls have ended. Exiting by itself within 20 s, a third
  // of the request deadline the last call had, shows the second (tests/runtimes/node-idle.mjs).
  async node() {
    const got = parseLastJson(await runCommand({ cmd: process.execPath, args: [join(HERE, 'node-idle.mjs'), mcpUrl], env: process.env }, 20_000));
    const want = { echo: 'first', task: 'completed', result: 'slow task done after 1500 ms', last: 'last', waitedMs: true };
    if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`got ${JSON.stringify(got)}\n      expected ${JSON.stringify(want)}`);
    return `a task waited on by polling; exited by itself, the client left open`;
  },
  async 'service-worker'() {
    const web = await staticServer({ '/pkg/': join(ROOT, 'pkg'), '/runtimes/': HERE });
    let browser = null;
    try {
      browser = await launchBrowser();
      const page = await browser.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
      await page.goto(`${web.url}/runtimes/service-worker/page.html`);
      await page.locator('#status[data-done]').waitFor({ timeout: 30_000 });
      const status = await page.locator('#status').textContent();
      if (status !== 'ready') throw new Error(`${status}; ${errors.join('; ')}`);
      const ask = (m) => page.evaluate((msg) => window.ask(msg), m);
      const where = 'ServiceWorkerGlobalScope, window undefined';
      const s = await ask({ op: 'scenario', mcp: mcpUrl });
      if (!s.ok) throw new Error(`scenario: ${s.error}`);
      const out = verdict('service-worker', s.value, { where });
      // Two more messages, answered by one client the worker keeps between them.
      for (const [i, text] of [[1, 'first'], [2, 'second']]) {
        const r = await ask({ op: 'call', mcp: mcpUrl, tool: 'echo', args: { text } });
        const got = r.ok ? [r.value.where, r.value.calls, r.value.result.content[0].text] : r.error;
        if (JSON.stringify(got) !== JSON.stringify([where, i, text])) throw new Error(`call message ${i}: ${JSON.stringify(got)}`);
      }
      if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
      return `${out}; 2 call messages answered`;
    } finally {
      if (browser) await browser.close();
      await web.close();
    }
  },
};

const only = process.env.RUNTIMES ? process.env.RUNTIMES.split(',') : Object.keys(RUNTIMES);
console.log(`runtimes: ${only.join(', ')} against ${mcpUrl}`);
const results = await Promise.all(only.map(async (name) => {
  const t0 = Date.now();
  try {
    if (!RUNTIMES[name]) throw new Error('no such runtime');
    const text = await RUNTIMES[name]();
    return { name, ok: true, line: `PASS runtime ${name}: ${text} (${Date.now() - t0} ms)` };
  } catch (e) {
    return { name, ok: false, line: `FAIL runtime ${name}: ${e.message} (${Date.now() - t0} ms)` };
  }
}));
for (const r of results) console.log(r.line);
const failed = results.filter((r) => !r.ok).length;
console.log(failed === 0 ? `runtime tests: all ${results.length} runtimes passed` : `runtime tests: ${failed} runtime(s) FAILED`);
process.exit(failed === 0 ? 0 : 1);
