// Runs tests/legacy/suite.mjs in Node, then in headless Chromium.
//   node tests/legacy/run.mjs <everythingUrl> <pythonUrl> <sseUrl> [--only <regexp>]
import http from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { runLegacySuite } from './suite.mjs';

const [everything, python, sse] = process.argv.slice(2, 5);
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt > 0 ? process.argv[onlyAt + 1] : undefined;
if (!sse) {
  console.error('usage: node tests/legacy/run.mjs <everythingUrl> <pythonUrl> <sseUrl> [--only <regexp>]');
  process.exit(2);
}
const urls = { everything, python, sse };
let failed = 0;

const unhandled = [];
process.on('unhandledRejection', (r) => unhandled.push(`${r?.name}: ${r?.message}`));
console.log('node:');
const n = await runLegacySuite({ urls, env: 'node', only: only && new RegExp(only) });
failed += n.failed + unhandled.length;
for (const f of n.failures) console.error(`\n✗ node: ${f.name}\n${f.error}`);
if (unhandled.length) console.error(`✗ node: unhandled rejections: ${unhandled.join('; ')}`);

// The repository root over HTTP, so the page imports /pkg/index.js as any page would.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MIME = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };
const files = http.createServer((req, res) => {
  const file = normalize(join(ROOT, decodeURIComponent(new URL(req.url, 'http://x').pathname)));
  if (!file.startsWith(ROOT.endsWith(sep) ? ROOT : ROOT + sep)) return res.writeHead(403).end();
  try {
    if (!statSync(file).isFile()) throw new Error();
  } catch {
    return res.writeHead(404).end();
  }
  res.writeHead(200, { 'content-type': MIME[extname(file)] || 'application/octet-stream', 'cache-control': 'no-store' });
  createReadStream(file).pipe(res);
});
await new Promise((r) => files.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${files.address().port}`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'],
});
try {
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  await page.exposeFunction('__report', (line) => console.log(line));
  console.log('chromium:');
  const q = new URLSearchParams({ ...urls, ...(only ? { only } : {}) });
  await page.goto(`${origin}/tests/legacy/page.html?${q}`);
  const r = await page.waitForFunction(() => window.__result, null, { timeout: 10 * 60_000 }).then((h) => h.jsonValue());
  if (r.error) {
    console.error(`✗ chromium: ${r.error}`);
    failed += 1;
  } else {
    failed += r.failed + r.unhandled.length;
    for (const f of r.failures) console.error(`\n✗ chromium: ${f.name}\n${f.error}`);
    if (r.unhandled.length) console.error(`✗ chromium: unhandled rejections: ${r.unhandled.join('; ')}`);
    console.log(`legacy: node ${n.passed}/${n.total}, chromium ${r.passed}/${r.total}`);
  }
} finally {
  await browser.close();
  files.close();
}
process.exit(failed === 0 ? 0 : 1);
