// A small static file server for the console: serves www/ at / and the built package at
// /pkg/. Loopback only. Usage: node www/serve.mjs [port] (0 = a free port).
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.wasm': 'application/wasm', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.ts': 'text/plain; charset=utf-8', '.map': 'application/json',
};

function resolvePath(urlPath) {
  const p = decodeURIComponent(urlPath.split('?')[0]);
  const base = p.startsWith('/pkg/') ? root : join(root, 'www');
  const full = normalize(join(base, p === '/' ? '/index.html' : p));
  if (!full.startsWith(root)) return null;
  return full;
}

export function startStatic(port = 0, extra = {}) {
  const server = createServer(async (req, res) => {
    if (extra[req.url]) {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(extra[req.url]));
      return;
    }
    const file = resolvePath(req.url);
    try {
      if (!file || !(await stat(file)).isFile()) throw new Error('not found');
      res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(await readFile(file));
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  return new Promise((ok) => server.listen(port, '127.0.0.1', () => ok(server)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const port = Number(process.argv[2] || 0);
  const serverUrl = process.argv[3] || '';
  const server = await startStatic(port, { '/config.json': { serverUrl } });
  console.log(`READY http://127.0.0.1:${server.address().port}/`);
}
