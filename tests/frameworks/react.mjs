// The React hooks (`mcp-wasm-client/react`) in headless Chromium against the test server
// (tests/servers/modern_server.py; MCP_TEST_URL=... to use a running one):
//   1. esbuild bundles tests/frameworks/react.test.jsx (React 19 in development mode, so
//      StrictMode double-mounts; @testing-library/react) and the example page
//      (tests/env/react-app/main.jsx), the package resolved by name through pkg/'s exports;
//   2. the test page runs its cases and this prints one PASS/FAIL line per case;
//   3. the example page is loaded as a user would and must show the server and its tools.
// Exit status 1 when anything failed. Bundles go to test-output/frameworks/.
// REACT_MODULES=<a node_modules holding react and react-dom> bundles that React instead of
// the installed one (e.g. React 18, the oldest the package supports).
import { cp, mkdir, readFile, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { OUT, ROOT, launchBrowser, mcpServer, staticServer } from '../e2e/lib.mjs';

const WORK = join(OUT, 'frameworks');
let failed = 0;
const report = (ok, line) => {
  if (!ok) failed += 1;
  console.log(`${ok ? 'PASS' : 'FAIL'} react: ${line}`);
};

await rm(WORK, { recursive: true, force: true });
await mkdir(join(WORK, 'node_modules'), { recursive: true });
// Installed by name, as `npm install ./pkg` does: the exports map decides what resolves.
await symlink(join(ROOT, 'pkg'), join(WORK, 'node_modules/mcp-wasm-client'), 'dir');
await cp(join(ROOT, 'pkg/mcp_wasm_client_bg.wasm'), join(WORK, 'mcp_wasm_client_bg.wasm'));
await cp(join(ROOT, 'tests/env/react-app/index.html'), join(WORK, 'example.html'));
await cp(join(ROOT, 'tests/frameworks/react-test.html'), join(WORK, 'react-test.html'));

const t0 = Date.now();
try {
  const esbuild = await import('esbuild');
  const common = {
    bundle: true, format: 'esm', platform: 'browser', target: 'es2022', jsx: 'automatic', logLevel: 'error',
    nodePaths: [join(WORK, 'node_modules')], define: { 'process.env.NODE_ENV': '"development"' },
  };
  if (process.env.REACT_MODULES) {
    common.alias = { react: join(process.env.REACT_MODULES, 'react'), 'react-dom': join(process.env.REACT_MODULES, 'react-dom') };
  }
  await esbuild.build({ ...common, entryPoints: [join(ROOT, 'tests/frameworks/react.test.jsx')], outfile: join(WORK, 'react-test.js') });
  await esbuild.build({ ...common, entryPoints: [join(ROOT, 'tests/env/react-app/main.jsx')], outfile: join(WORK, 'main.js') });
  const version = JSON.parse(await readFile(join(process.env.REACT_MODULES || join(ROOT, 'node_modules'), 'react/package.json'), 'utf8')).version;
  report(true, `esbuild bundles the test and the example with React ${version} (${Date.now() - t0} ms)`);
} catch (e) {
  report(false, `esbuild: ${e.message}`);
  process.exit(1);
}

const mcpUrl = await mcpServer('MCP_TEST_URL', 'tests/servers/modern_server.py');
const web = await staticServer({ '/frameworks/': WORK }, {});
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // The bundles use import.meta.url for the wasm: it sits next to them.
  await page.goto(`${web.url}/frameworks/react-test.html?mcp=${encodeURIComponent(mcpUrl)}`);
  await page.waitForFunction(() => window.__done === true, null, { timeout: 120_000 })
    .catch((e) => errors.push(`the cases did not finish: ${e.message.split('\n')[0]}`));
  const results = await page.evaluate(() => window.__results || []);
  if (results.length === 0) report(false, 'no case ran');
  for (const r of results) report(r.ok, r.ok ? `${r.name} (${r.ms} ms)` : `${r.name}: ${r.detail}`);
  if (errors.length) report(false, `page errors: ${errors.join('; ')}`);
  await page.close();

  const example = await browser.newPage();
  const exampleErrors = [];
  example.on('pageerror', (e) => exampleErrors.push(e.message));
  const t1 = Date.now();
  await example.goto(`${web.url}/frameworks/example.html?mcp=${encodeURIComponent(mcpUrl)}`);
  try {
    await example.locator('[data-testid=status]', { hasText: 'ready' }).waitFor({ timeout: 15_000 });
    const server = await example.locator('[data-testid=server]').textContent();
    const tools = await example.locator('ul[aria-label=tools] li').count();
    const ok = server === 'MCP test server' && tools > 10 && exampleErrors.length === 0;
    report(ok, `example page (tests/env/react-app): ${server}, ${tools} tools${exampleErrors.length ? `; errors: ${exampleErrors.join('; ')}` : ''} (${Date.now() - t1} ms)`);
  } catch (e) {
    report(false, `example page: ${e.message.split('\n')[0]}${exampleErrors.length ? `; errors: ${exampleErrors.join('; ')}` : ''}`);
  }
} finally {
  await browser.close();
  await web.close();
}
process.exit(failed === 0 ? 0 : 1);
