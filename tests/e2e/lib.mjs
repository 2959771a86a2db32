// Shared helpers of the browser and environment tests: MCP servers on free ports (or
// the ones tests/e2e/run.sh started), a static file server, headless Chromium.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdirSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const OUT = join(ROOT, 'test-output');
mkdirSync(OUT, { recursive: true });

/** Chromium flags for this machine (shared/docs/toolchain.md). */
export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-quic', '--no-first-run', '--disable-gpu',
];

export async function launchBrowser() {
  // BROWSER_ENGINE=firefox|webkit: the same tests through WebDriver (tests/browsers/, issue 18).
  const engine = process.env.BROWSER_ENGINE;
  if (engine && engine !== 'chromium') return (await import('../browsers/playwright-shim.mjs')).launchEngine(engine);
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

const started = [];
process.on('exit', () => {
  for (const p of started) {
    try { process.kill(p.pid, 'SIGTERM'); } catch { /* gone */ }
  }
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

/**
 * The URL of an MCP server: `process.env[envName]` when set (run.sh started it), otherwise
 * the Python `script` started here on a free port and stopped (by PID) when this process exits.
 */
export async function mcpServer(envName, script) {
  if (process.env[envName]) return process.env[envName];
  const python = join(ROOT, '.venv/bin/python');
  const child = spawn(python, [join(ROOT, script), '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  started.push(child);
  return new Promise((ok, fail) => {
    let buf = '';
    const timer = setTimeout(() => fail(new Error(`${script} did not print READY within 20 s`)), 20_000);
    child.stdout.on('data', (d) => {
      buf += d;
      const m = /^READY (\S+)$/m.exec(buf);
      if (m) {
        clearTimeout(timer);
        ok(m[1]);
      }
    });
    child.on('exit', (code) => fail(new Error(`${script} exited (${code}) before READY`)));
  });
}

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.wasm': 'application/wasm', '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/**
 * A loopback static server: `mounts` maps URL prefixes to directories (longest first),
 * `extra` maps exact paths to JSON bodies, `headers` are added to every file served.
 * Resolves with `{ url, close() }`.
 */
export function staticServer(mounts, extra = {}, headers = {}) {
  const entries = Object.entries(mounts).sort((a, b) => b[0].length - a[0].length);
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (extra[path] !== undefined) {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(extra[path]));
      return;
    }
    const hit = entries.find(([prefix]) => path.startsWith(prefix));
    let file = null;
    if (hit) {
      const dir = resolve(hit[1]);
      const rel = path.slice(hit[0].length);
      const full = normalize(join(dir, rel === '' || rel.endsWith('/') ? `${rel}index.html` : rel));
      if (full.startsWith(dir)) file = full;
    }
    try {
      if (!file || !(await stat(file)).isFile()) throw new Error('not found');
      res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream', 'cache-control': 'no-store', ...headers });
      res.end(await readFile(file));
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((done) => { server.closeAllConnections(); server.close(() => done()); }),
  })));
}

/** Waits until `fn()` is truthy (polls every 50 ms). */
export async function until(fn, what, timeoutMs = 15_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
