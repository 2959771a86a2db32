// A minimal MCP 2026-07-28 server for the benchmarks (not a test server: it checks
// nothing it does not need). Plain node:http, loopback only, permissive CORS.
//
//   POST /json  every answer is one application/json body
//   POST /sse   every answer is a text/event-stream with one `message` event
//   GET  /static/<path>   files of the repository (pkg/, bench/, bench/out/) for the pages
//   GET  /__stats         requests counted per method since the last reset; ?reset=1 resets
//   GET  /__last          the headers and body of the last tools/call request
//
// Methods: server/discover, tools/list, tools/call (tools `echo`, `large`, `task`),
// tasks/get, tasks/cancel, subscriptions/listen (taskIds only). `large` answers with a ~5 MB
// structuredContent. `task` answers with a CreateTaskResult (resultType "task",
// pollIntervalMs 1000); tasks/get says "working" until TASK_MS (default 30 000; the call's
// argument `ms` when given) after creation, then "completed" with a result. A listen for `taskIds` (tasks extension,
// "Task Status Notifications") is an open SSE stream: the acknowledgement lists the ids it
// knows, then a `notifications/tasks` (the full task) for each at once and on its status
// change; closing the request ends it. Other listen filters: -32601.
//
// Usage: node bench/server.mjs [port]   prints `READY http://127.0.0.1:<port>` once
// listening. Env: TASK_MS, LARGE_BYTES (default 5 MiB), POLL_MS (default 1000),
// CHUNKED_JSON=1 (JSON answers without Content-Length).
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const TASK_MS = Number(process.env.TASK_MS || 30000);
const POLL_MS = Number(process.env.POLL_MS || 1000);
const LARGE_BYTES = Number(process.env.LARGE_BYTES || 5 * 1024 * 1024);
const CHUNKED_JSON = process.env.CHUNKED_JSON === '1';
const PV = '2026-07-28';
const TASKS_EXT = 'io.modelcontextprotocol/tasks';
const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'mcp-bench-server', version: '1.0.0' } };

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, GET, OPTIONS',
  'access-control-allow-headers': '*, Authorization',
  'access-control-expose-headers': '*',
  'access-control-max-age': '7200',
};

const TOOLS = [
  {
    name: 'echo',
    description: 'Echoes its arguments as text.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  },
  {
    name: 'large',
    description: 'Answers with a large structuredContent (LARGE_BYTES).',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'task',
    description: 'Runs as a task (tasks extension) for TASK_MS.',
    inputSchema: { type: 'object', properties: {} },
  },
];

// The large result: an array of records, ~LARGE_BYTES of JSON, built once.
function largeResultJson() {
  const items = [];
  let size = 0;
  for (let i = 0; size < LARGE_BYTES; i++) {
    const item = {
      id: i,
      name: `item-${i}`,
      score: (i * 7919) % 1000 / 10,
      active: i % 3 === 0,
      tags: ['alpha', 'beta', `t${i % 17}`],
      note: 'Lorem ipsum dolor sit amet, consectetur adipiscing elit \u00e9\u00e8 \u4e16\u754c',
      nested: { x: i, y: -i, z: null },
    };
    items.push(item);
    size += JSON.stringify(item).length + 1;
  }
  return JSON.stringify({ resultType: 'complete', content: [{ type: 'text', text: `${items.length} items` }], structuredContent: { items } });
}
let LARGE = null;

const tasks = new Map();
let nextTask = 1;
const iso = (ms) => new Date(ms).toISOString();
function taskFields(t, now) {
  const done = now - t.created >= t.ms;
  const f = {
    taskId: t.id,
    status: done ? 'completed' : 'working',
    createdAt: iso(t.created),
    lastUpdatedAt: iso(done ? t.created + t.ms : t.created),
    ttlMs: 600000,
    pollIntervalMs: POLL_MS,
  };
  if (done) f.result = { resultType: 'complete', content: [{ type: 'text', text: `task ${t.id} done` }] };
  return f;
}

/** Open task streams: `{ res, sub, ids: Set }`. */
const listeners = new Set();

function sseMessage(msg) {
  return `event: message\ndata: ${JSON.stringify(msg)}\n\n`;
}

function taskNotification(l, t, now) {
  const params = { ...taskFields(t, now), _meta: { 'io.modelcontextprotocol/subscriptionId': l.sub } };
  return sseMessage({ jsonrpc: '2.0', method: 'notifications/tasks', params });
}

/** The task's status changes (it completes): every stream listing it hears of it. */
function taskChanged(t) {
  const now = Date.now();
  for (const l of listeners) if (l.ids.has(t.id)) l.res.write(taskNotification(l, t, now));
}

/** subscriptions/listen with taskIds: acknowledges the known ids and keeps the stream open. */
function listen(msg, req, res) {
  const ids = msg.params?.notifications?.taskIds;
  const caps = msg.params?._meta?.['io.modelcontextprotocol/clientCapabilities'];
  if (!Array.isArray(ids) || !caps?.extensions?.[TASKS_EXT]) return false;
  const l = { res, sub: msg.id, ids: new Set(ids.filter((id) => tasks.has(id))) };
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...CORS });
  const meta = { 'io.modelcontextprotocol/subscriptionId': msg.id };
  res.write(sseMessage({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: { taskIds: [...l.ids] }, _meta: meta } }));
  // Each task's state at once, as the project's Python tasks server does (the spec does not
  // require it; without it the client polls each task once more after the acknowledgement).
  const now = Date.now();
  for (const id of l.ids) res.write(taskNotification(l, tasks.get(id), now));
  listeners.add(l);
  res.on('close', () => listeners.delete(l));
  return true;
}

const stats = {};
let last = null;

function answer(msg) {
  const p = msg.params || {};
  switch (msg.method) {
    case 'server/discover':
      return {
        resultType: 'complete',
        supportedVersions: [PV],
        capabilities: { tools: {}, extensions: { [TASKS_EXT]: {} } },
        ttlMs: 0,
        cacheScope: 'public',
        _meta: SERVER_INFO,
      };
    case 'tools/list':
      return { resultType: 'complete', tools: TOOLS, ttlMs: 0, cacheScope: 'public' };
    case 'tools/call': {
      if (p.name === 'echo') {
        return { resultType: 'complete', content: [{ type: 'text', text: JSON.stringify(p.arguments ?? {}) }] };
      }
      if (p.name === 'large') return { raw: (LARGE ??= largeResultJson()) };
      if (p.name === 'task') {
        const caps = p._meta?.['io.modelcontextprotocol/clientCapabilities'];
        if (!caps?.extensions?.[TASKS_EXT]) return { error: { code: -32021, message: 'tasks extension required', data: { requiredCapabilities: { extensions: { [TASKS_EXT]: {} } } } } };
        const ms = Number.isFinite(p.arguments?.ms) && p.arguments.ms >= 0 ? p.arguments.ms : TASK_MS;
        const t = { id: `t-${nextTask++}`, created: Date.now(), ms };
        tasks.set(t.id, t);
        setTimeout(() => taskChanged(t), ms).unref();
        return { resultType: 'task', ...taskFields(t, t.created) };
      }
      return { error: { code: -32602, message: `unknown tool ${p.name}` } };
    }
    case 'tasks/get': {
      const t = tasks.get(p.taskId);
      if (!t) return { error: { code: -32602, message: 'unknown task' } };
      return { resultType: 'complete', ...taskFields(t, Date.now()) };
    }
    case 'tasks/cancel': {
      tasks.delete(p.taskId);
      return { resultType: 'complete' };
    }
    default:
      return { error: { code: -32601, message: `method not found: ${msg.method}` }, httpStatus: 404 };
  }
}

function frame(msg, out) {
  const id = JSON.stringify(msg.id ?? null);
  if (out.raw) return `{"jsonrpc":"2.0","id":${id},"result":${out.raw}}`;
  if (out.error) return `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify(out.error)}}`;
  return `{"jsonrpc":"2.0","id":${id},"result":${JSON.stringify(out)}}`;
}

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json', '.wasm': 'application/wasm', '.map': 'application/json',
};

async function serveStatic(req, res) {
  const p = decodeURIComponent(req.url.split('?')[0].slice('/static'.length));
  const full = normalize(join(ROOT, p));
  if (!full.startsWith(ROOT + '/') || !/^\/(pkg|bench|pkg-bench)\//.test(p)) {
    res.writeHead(404).end();
    return;
  }
  try {
    if (!(await stat(full)).isFile()) throw new Error('not a file');
    const body = await readFile(full);
    res.writeHead(200, { 'content-type': TYPES[extname(full)] || 'application/octet-stream', 'cache-control': 'no-cache', ...CORS });
    res.end(body);
  } catch {
    res.writeHead(404, CORS).end();
  }
}

export function startServer(port = 0) {
  const server = createServer((req, res) => {
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS).end();
      return;
    }
    if (req.method === 'GET') {
      if (req.url.startsWith('/static/')) return void serveStatic(req, res);
      if (req.url.startsWith('/__stats')) {
        const body = JSON.stringify(stats);
        if (req.url.includes('reset=1')) for (const k of Object.keys(stats)) delete stats[k];
        res.writeHead(200, { 'content-type': 'application/json', ...CORS }).end(body);
        return;
      }
      if (req.url.startsWith('/__last')) {
        res.writeHead(200, { 'content-type': 'application/json', ...CORS }).end(JSON.stringify(last));
        return;
      }
      res.writeHead(405, CORS).end();
      return;
    }
    const sse = req.url.startsWith('/sse');
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let msg;
      try {
        msg = JSON.parse(text);
      } catch {
        res.writeHead(400, { 'content-type': 'application/json', ...CORS });
        res.end('{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error"}}');
        return;
      }
      stats[msg.method] = (stats[msg.method] || 0) + 1;
      if (msg.method === 'tools/call' && msg.params?.name === 'echo') last = { headers: req.headers, body: text };
      if (msg.id === undefined) {
        res.writeHead(202, CORS).end();
        return;
      }
      if (msg.method === 'subscriptions/listen' && listen(msg, req, res)) return;
      const out = answer(msg);
      const body = frame(msg, out);
      if (sse) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...CORS });
        res.end(`event: message\ndata: ${body}\n\n`);
      } else {
        // With Content-Length, as the Python SDK (Starlette) and the TS SDK's servers send
        // it; CHUNKED_JSON=1 leaves it out (Node then sends the body chunked), for the
        // clients' chunk-reading path.
        const head = { 'content-type': 'application/json', ...CORS };
        if (!CHUNKED_JSON) head['content-length'] = Buffer.byteLength(body);
        res.writeHead(out.error ? out.httpStatus || 200 : 200, head);
        res.end(body);
      }
    });
  });
  server.keepAliveTimeout = 60000;
  return new Promise((ok) => server.listen(port, '127.0.0.1', () => ok(server)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await startServer(Number(process.argv[2] || 0));
  console.log(`READY http://127.0.0.1:${server.address().port}`);
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
