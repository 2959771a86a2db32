// Runs tests/js/suite.mjs (or another suite with the same runSuite API, e.g.
// tests/faults/suite.mjs) in headless Chromium (playwright-core, /usr/bin/chromium) against a
// running test server.
//   node tests/js/run-browser.mjs <serverUrl> [--suite <path>] [--only <regexp>] [--modern]
// --modern: the page runs the suite on the mcp-wasm-client/modern entry (pkg/modern/).
// Serves the repository root over HTTP on a free port (the page imports /pkg/index.js like
// any page would), opens tests/js/browser.html, streams each case's line back, and exits 0
// when every case passed (expected failures aside) and no promise rejection went unhandled.
import http from 'node:http';
import net from 'node:net';
import { createReadStream, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const args = process.argv.slice(2);
const serverUrl = args[0];
const onlyAt = args.indexOf('--only');
const only = onlyAt >= 0 ? args[onlyAt + 1] : undefined;
const suiteAt = args.indexOf('--suite');
if (!serverUrl) {
  console.error('usage: node tests/js/run-browser.mjs <serverUrl> [--suite <path>] [--only <regexp>]');
  process.exit(2);
}
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];
const SUITE_TIMEOUT_MS = 10 * 60 * 1000;

// ------------------------------------------------------------------ static files

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.ts': 'text/plain; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
};
const files = http.createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  const file = normalize(join(ROOT, path));
  if (!file.startsWith(ROOT.endsWith(sep) ? ROOT : ROOT + sep)) {
    res.writeHead(403).end();
    return;
  }
  let st;
  try {
    st = statSync(file);
  } catch {
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${path}`);
    return;
  }
  if (!st.isFile()) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`not a file: ${path}`);
    return;
  }
  res.writeHead(200, {
    'content-type': MIME[extname(file)] || 'application/octet-stream',
    'content-length': st.size,
    'cache-control': 'no-store',
  });
  createReadStream(file).pipe(res);
});
await new Promise((r) => files.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${files.address().port}`;

/** A URL on a port nothing listens on (bound, then released). */
async function deadUrl() {
  const srv = net.createServer();
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return `http://127.0.0.1:${port}/mcp`;
}

// ------------------------------------------------------------------ the browser

const t0 = Date.now();
let browser;
let code = 1;
try {
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  const page = await browser.newPage();
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e?.stack ?? e)));
  page.on('console', (m) => {
    if (m.type() === 'error' && process.env.VERBOSE) console.error(`  [console.error] ${m.text()}`);
  });
  await page.exposeFunction('__report', (line) => console.log(line));
  const q = new URLSearchParams({ server: serverUrl, dead: await deadUrl() });
  if (only) q.set('only', only);
  if (args.includes('--modern')) q.set('entry', 'modern');
  if (suiteAt >= 0) {
    // The page imports the suite by its path under the repository root (served above).
    const file = normalize(join(process.cwd(), args[suiteAt + 1]));
    q.set('suite', `/${file.slice(ROOT.length).split(sep).join('/')}`.replace(/^\/+/, '/'));
  }
  await page.goto(`${origin}/tests/js/browser.html?${q}`);
  await page.waitForFunction(() => window.__result !== undefined, null, { timeout: SUITE_TIMEOUT_MS, polling: 100 });
  const r = await page.evaluate(() => window.__result);
  if (r.error) {
    console.error(`the suite did not run in the page:\n${r.error}`);
  } else {
    for (const f of r.failures) console.error(`\n✗ ${f.name}\n${f.error}`);
    if (r.unhandled.length) {
      console.error(`\n✗ ${r.unhandled.length} unhandled promise rejection(s) in the page:`);
      for (const u of [...new Set(r.unhandled)]) console.error(`  ${u} (×${r.unhandled.filter((x) => x === u).length})`);
    }
    // Uncaught errors of the page (Playwright also reports unhandled rejections here).
    const distinct = [...new Set(pageErrors)];
    for (const e of distinct) {
      const n = pageErrors.filter((x) => x === e).length;
      console.error(`\n✗ uncaught page error (×${n}): ${e.split('\n').slice(0, 4).join('\n')}`);
    }
    const version = browser.version();
    console.log(
      `chromium ${version}${args.includes('--modern') ? ' (mcp-wasm-client/modern)' : ''}: ${r.passed} passed, ${r.failed} failed, ${r.xfailed} expected failures, ` +
        `${r.xpassed} unexpected passes, ${r.skipped ? `${r.skipped} skipped, ` : ''}${r.notApplicable ? `${r.notApplicable} not applicable: legacy era, ` : ''}${r.unhandled.length} unhandled rejections ` +
        `(${r.total} cases, ${((Date.now() - t0) / 1000).toFixed(1)} s)`,
    );
    code = r.failed === 0 && r.xpassed === 0 && r.unhandled.length === 0 && pageErrors.length === 0 && r.total > 0 ? 0 : 1;
  }
} catch (e) {
  console.error(`browser run failed: ${e?.stack ?? e}`);
} finally {
  await browser?.close().catch(() => {});
  files.close();
  files.closeAllConnections?.();
}
process.exit(code);
