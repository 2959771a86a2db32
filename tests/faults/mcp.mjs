// MCP 2026-07-28 for the fault server (server.mjs): the methods, the tools, the tasks
// extension, subscriptions/listen, and the faults each scenario injects into them.
//
// Tools (every scenario lists them all):
//   echo {text}                 never faulted: "the client still works" uses it
//   hit {}                      the call the transport scenarios act on ("hit ok")
//   sized {bytes, as}           a response of exactly `bytes` bytes (as: json → the body, sse → one event's data)
//   ask {rounds, sampling?}     MRTR: one input_required round per entry of rounds (an array of key arrays)
//   url_ask {url}               MRTR: one URL-mode elicitation for `url`
//   region_echo {region}        x-mcp-header `Region`: answers what Mcp-Param-Region carried
//   task_ask {phases, ttlMs, pollIntervalMs}   a task asking each phase's keys in turn, then completing
//   task_slow {ms, ttlMs, pollIntervalMs}      a task working for `ms`, then completing
// An answer to a key is an elicitation form result {action: 'accept', content: {value}}.

import { count } from './state.mjs';

export const PROTOCOL = '2026-07-28';
export const TASKS = 'io.modelcontextprotocol/tasks';
const SUB_ID = 'io.modelcontextprotocol/subscriptionId';

const obj = (properties, extra = {}) => ({ type: 'object', properties, ...extra });
const TOOLS = [
  { name: 'echo', description: 'Echoes text.', inputSchema: obj({ text: { type: 'string' } }) },
  { name: 'hit', description: 'The call a scenario acts on.', inputSchema: obj({}) },
  { name: 'sized', description: 'A response of an exact size.', inputSchema: obj({ bytes: { type: 'integer' }, as: { type: 'string', enum: ['json', 'sse'] } }) },
  { name: 'ask', description: 'MRTR rounds.', inputSchema: obj({ rounds: { type: 'array' } }) },
  { name: 'url_ask', description: 'URL-mode elicitation.', inputSchema: obj({ url: { type: 'string' } }) },
  { name: 'region_echo', description: 'x-mcp-header.', inputSchema: obj({ region: { type: 'string', 'x-mcp-header': 'Region' } }) },
  { name: 'task_ask', description: 'A task asking input.', inputSchema: obj({ phases: { type: 'array' } }) },
  { name: 'task_slow', description: 'A slow task.', inputSchema: obj({ ms: { type: 'integer' } }) },
];
const TASK_TOOLS = new Set(['task_ask', 'task_slow']);

const iso = (ms) => new Date(ms).toISOString();
const b64 = (v) => Buffer.from(JSON.stringify(v)).toString('base64');
const unb64 = (s) => JSON.parse(Buffer.from(String(s), 'base64').toString('utf8'));
const text = (t) => ({ resultType: 'complete', content: [{ type: 'text', text: t }] });

/** `=?base64?…?=` header values (the spec's "Value Encoding"). */
function decodeHeader(v) {
  if (typeof v !== 'string') return v;
  const m = v.match(/^=\?base64\?(.*)\?=$/);
  return m ? Buffer.from(m[1], 'base64').toString('utf8') : v;
}

function elicitForm(key) {
  return {
    method: 'elicitation/create',
    params: {
      mode: 'form',
      message: `A value for ${key}, please.`,
      requestedSchema: { type: 'object', properties: { value: { type: 'string' } }, required: ['value'] },
    },
  };
}
const answerValue = (r) => (r && typeof r === 'object' && r.action === 'accept' ? r.content?.value : `(${r?.action})`);

// ------------------------------------------------------------------ responding

/** One request being answered: the JSON-RPC id, and whether the client got the answer. */
class Reply {
  constructor(ctx, id) {
    this.ctx = ctx;
    this.id = id;
    this.res = ctx.res;
    this.sse = false;
  }
  get gone() {
    return this.res.destroyed || this.res.writableEnded;
  }
  /** Resolves true once the whole answer was handed to the socket, false if it was cut. */
  delivered() {
    return new Promise((resolve) => {
      if (this.res.writableFinished) return resolve(true);
      this.res.once('finish', () => resolve(true));
      this.res.once('close', () => resolve(this.res.writableFinished));
    });
  }
  message(result, error) {
    const m = { jsonrpc: '2.0', id: this.id };
    if (error) m.error = error;
    else m.result = result;
    return m;
  }
  json(result, error, status = 200) {
    if (this.gone) return;
    const body = JSON.stringify(this.message(result, error));
    this.res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(body);
  }
  error(code, message, data, status = 200) {
    this.json(undefined, { code, message, ...(data !== undefined ? { data } : {}) }, status);
  }
  openSse() {
    if (!this.sse) {
      this.sse = true;
      this.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      this.res.flushHeaders();
    }
  }
  event(m) {
    this.openSse();
    if (!this.gone) this.res.write(`data: ${JSON.stringify(m)}\n\n`);
  }
  /** Cuts the connection once what was written is on the wire. */
  cut() {
    if (this.res.destroyed) return;
    this.res.write('', () => setTimeout(() => this.res.socket?.destroy(), 20));
  }
}

const CUT_NOW = (reply) => reply.res.socket?.destroy();
/** What the `flood-body` scenario writes at most before it holds the connection open. */
const FLOOD_BYTES = 64 * 1024 * 1024;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ------------------------------------------------------------------ the methods

export async function handleMcp(ctx) {
  const { req, res, st, scenario } = ctx;
  let msg;
  try {
    msg = JSON.parse(ctx.body);
  } catch {
    return res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
  }
  st.requests.push({ method: msg?.method, id: msg?.id, rawHeaders: req.rawHeaders, url: req.url });
  if (st.requests.length > 500) st.requests.shift();
  if (!msg || typeof msg !== 'object' || Array.isArray(msg) || typeof msg.method !== 'string') {
    return res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } }));
  }
  if (msg.id === undefined) return res.writeHead(202).end(); // a notification
  const reply = new Reply(ctx, msg.id);
  res.on('close', () => {
    if (!res.writableFinished) st.abandoned += 1;
  });
  const p = msg.params ?? {};
  const method = msg.method;
  st.calls[method] = (st.calls[method] ?? 0) + 1;
  ctx.n = st.calls[method];

  // Headers as the spec requires them (streamable-http.mdx "Request Metadata").
  if (req.headers['mcp-protocol-version'] !== PROTOCOL) {
    return reply.error(-32022, 'Unsupported protocol version', { supported: [PROTOCOL], requested: req.headers['mcp-protocol-version'] ?? null }, 400);
  }
  if (decodeHeader(req.headers['mcp-method']) !== method) return reply.error(-32020, 'Mcp-Method does not match the body', undefined, 400);
  const nameField = { 'tools/call': 'name', 'tasks/get': 'taskId', 'tasks/update': 'taskId', 'tasks/cancel': 'taskId' }[method];
  if (nameField && decodeHeader(req.headers['mcp-name']) !== p[nameField]) {
    return reply.error(-32020, 'Mcp-Name does not match the body', undefined, 400);
  }
  ctx.tasksDeclared = Boolean(p._meta?.['io.modelcontextprotocol/clientCapabilities']?.extensions?.[TASKS]);

  if (scenario === 'discover-503-once' && method === 'server/discover' && ctx.n === 1) {
    return res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '1' }).end('warming up\n');
  }
  if (scenario === 'tools-list-500-once' && method === 'tools/list' && ctx.n === 1) {
    return res.writeHead(500, { 'content-type': 'text/plain' }).end('list unavailable\n');
  }
  switch (method) {
    case 'server/discover':
      return reply.json({
        resultType: 'complete',
        supportedVersions: [PROTOCOL],
        capabilities: { tools: { listChanged: true }, extensions: { [TASKS]: {} } },
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'mcp-wasm-client-fault-server', version: '1.0.0' } },
      });
    case 'tools/list':
      return reply.json({ resultType: 'complete', tools: TOOLS });
    case 'tools/call':
      return toolsCall(ctx, reply, p);
    case 'tasks/get':
      return tasksGet(ctx, reply, p);
    case 'tasks/update':
      return tasksUpdate(ctx, reply, p);
    case 'tasks/cancel': {
      const t = lookup(st, p.taskId);
      if (!t) return reply.error(-32602, 'Task not found');
      if (!terminal(t)) setStatus(st, t, 'cancelled');
      return reply.json({ resultType: 'complete' });
    }
    case 'subscriptions/listen':
      return listen(ctx, reply, p);
    default:
      return reply.error(-32601, `Method not found: ${method}`, undefined, 404);
  }
}

// ------------------------------------------------------------------ tools/call

const TRANSPORT = {
  'cut-before-response-once': (r, ctx) => {
    if (ctx.nTool > 1) return false;
    r.event({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'about to be cut' } });
    r.cut();
  },
  'cut-before-response': (r) => {
    r.event({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'about to be cut' } });
    r.cut();
  },
  'cut-after-response': (r) => {
    r.event(r.message(text('hit ok')));
    r.cut();
  },
  'cut-json-body': (r) => {
    const body = JSON.stringify(r.message(text('hit ok')));
    r.res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
    r.res.write(body.slice(0, body.length >> 1));
    r.cut();
  },
  'cut-large-json-body': (r) => {
    // Past 64 KiB the client reads a result for the host into one buffer of its size.
    const body = JSON.stringify(r.message(text('x'.repeat(256 * 1024))));
    r.res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    r.res.write(body.slice(0, body.length >> 1));
    r.cut();
  },
  'http-500': (r) => r.res.writeHead(500, { 'content-type': 'text/plain' }).end('internal server error\n'),
  'http-502-html': (r) => r.res.writeHead(502, { 'content-type': 'text/html' }).end('<html><head><title>502 Bad Gateway</title></head>\n<body><h1>Bad Gateway</h1></body></html>\n'),
  'http-503-retry-after': (r) => r.res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '3' }).end('busy\n'),
  'http-429-retry-after': (r) => r.res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '2' }).end('slow down\n'),
  stall: () => {},
  'stall-sse': (r) => r.event({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'thinking…' } }),
  'malformed-json': (r) => r.res.writeHead(200, { 'content-type': 'application/json' }).end(`{"jsonrpc":"2.0","id":${JSON.stringify(r.id)},"result":{`),
  'html-200': (r) => r.res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Sign in</title><form>…</form>'),
  'wrong-content-type': (r) => r.res.writeHead(200, { 'content-type': 'text/plain' }).end(JSON.stringify(r.message(text('hit ok')))),
  'other-id': (r) => {
    const m = r.message(text('hit ok'));
    m.id = typeof r.id === 'number' ? r.id + 1000 : `${r.id}-other`;
    r.res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(m));
  },
  'duplicate-response': (r) => {
    r.event(r.message(text('hit ok')));
    r.event(r.message(text('a duplicate that must be ignored')));
    r.res.end();
  },
  'sse-malformed': (r) => {
    r.openSse();
    r.res.end('data: {"jsonrpc":"2.0", this is not JSON\n\n');
  },
  'endless-body': (r, ctx) => {
    r.res.writeHead(200, { 'content-type': 'application/json' });
    r.res.write('{');
    const t = setInterval(() => (r.gone ? clearInterval(t) : r.res.write(' ')), 50);
    r.res.on('close', () => clearInterval(t));
  },
  // As fast as the client takes it, up to FLOOD_BYTES (64 times the limit the case sets);
  // then the connection is held open, unended, until the client closes it. Without the cap,
  // WebKitGTK's network process went on reading a loopback flood at hundreds of MB/s after
  // the page had aborted the fetch (1 GiB in 2.7 s here, more than 30 s on a CI machine)
  // and held up the next cases' requests. A client without the limit still fails the case
  // (64 MiB, then no end: TimeoutError), and so does one that stops reading without
  // closing the connection.
  'flood-body': (r) => {
    r.res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let left = FLOOD_BYTES;
    const pump = () => {
      let more = true;
      while (!r.gone && left > 0 && more) {
        left -= chunk.length;
        more = r.res.write(chunk);
      }
      if (!r.gone && left > 0) r.res.once('drain', pump);
    };
    r.res.write('{');
    pump();
  },
  'error-ansi': (r) => r.error(-32000, '\u001b[31mdenied\u001b[0m\r\nX-Injected: yes\u0007 \u202etxt.exe\u0000 end', { detail: 'ansi' }),
  'http-500-ansi': (r) => r.res.writeHead(500, { 'content-type': 'text/plain' }).end('\u001b[2J\u001b[31mboom\u001b[0m\r\nSet-Cookie: x=1\r\n'),
};

/**
 * The `envelopes` scenario's answers: one response to request `id` (its JSON text) in the
 * form named, as a 200 of `application/json`. A client reads some of these forms itself on
 * its direct path (src/web/js/bodies.js `readAnswer`) and hands the others to its engine; the
 * case compares what each path makes of every form.
 */
const ENVELOPES = {
  'jsonrpc-first': (id) => `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","content":[{"type":"text","text":"a"}]}}`,
  'result-first': (id) => `{"result":{"resultType":"complete","content":[{"type":"text","text":"b"}]},"jsonrpc":"2.0","id":${id}}`,
  'no-result-type': (id) => `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"c"}]}}`,
  'id-first': (id) => `{"id":${id},"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"d"}]}}`,
  spaced: (id) => `{"jsonrpc": "2.0", "id": ${id}, "result": {"resultType": "complete", "content": [{"type": "text", "text": "e"}]}}`,
  'padded-result': (id) => `{"jsonrpc":"2.0","id":${id},"result": \n{"resultType":"complete","content":[]}\t}`,
  'nested-result-type': (id) => `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","structuredContent":{"resultType":"x"},"content":[]}}`,
  'unicode-escape': (id) => `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","content":[{"type":"text","text":"caf\\u00e9"}]}}`,
  'html-escapes': (id) => `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","content":[{"type":"text","text":"\\u003cb\\u003e \\u0026"}]}}`,
  'escaped-letter': (id) => `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","content":[{"type":"text","text":"\\u0072"}]}}`,
  'lone-surrogate': (id) => `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"\\ud800"}]}}`,
  deep: (id) => `{"jsonrpc":"2.0","id":${id},"result":{"content":[],"deep":${'['.repeat(300)}${']'.repeat(300)}}}`,
  'duplicate-result': (id) => `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"first"}]},"result":{"content":[{"type":"text","text":"second"}]}}`,
  'duplicate-result-first': (id) => `{"result":{"content":[{"type":"text","text":"first"}]},"result":{"content":[{"type":"text","text":"second"}]},"jsonrpc":"2.0","id":${id}}`,
  'duplicate-id': (id) => `{"jsonrpc":"2.0","id":${id},"id":${id},"result":{"content":[]}}`,
  'duplicate-jsonrpc': (id) => `{"result":{"content":[]},"jsonrpc":"2.0","jsonrpc":"2.0","id":${id}}`,
  'result-and-error': (id) => `{"jsonrpc":"2.0","id":${id},"result":{"content":[]},"error":{"code":-32000,"message":"both"}}`,
  'duplicate-result-type': (id) => `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"input_required","resultType":"complete","content":[]}}`,
  'escaped-result-type': (id) => `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"input_required","result\\u0054ype":"complete","content":[]}}`,
  'null-result-type': (id) => `{"jsonrpc":"2.0","id":${id},"result":{"resultType":null,"content":[]}}`,
  'other-result-type': (id) => `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"elsewhere","content":[]}}`,
  'array-result': (id) => `{"jsonrpc":"2.0","id":${id},"result":[{"content":[]}]}`,
  'string-result': (id) => `{"jsonrpc":"2.0","id":${id},"result":"done"}`,
  'null-result': (id) => `{"jsonrpc":"2.0","id":${id},"result":null}`,
  'trailing-brace': (id) => `{"jsonrpc":"2.0","id":${id},"result":{"content":[]}}}`,
  'two-values': (id) => `{"jsonrpc":"2.0","id":${id},"result":{"content":[]} {}}`,
  'leading-zero-id': (id) => `{"jsonrpc":"2.0","id":0${id},"result":{"content":[]}}`,
  'fraction-id': (id) => `{"jsonrpc":"2.0","id":${id}.0,"result":{"content":[]}}`,
  'string-id': (id) => `{"jsonrpc":"2.0","id":"${id}","result":{"content":[]}}`,
  'other-id': (id) => `{"jsonrpc":"2.0","id":${Number(id) + 1000},"result":{"content":[]}}`,
  'long-id': (id) => `{"jsonrpc":"2.0","id":1${'0'.repeat(20)}${id},"result":{"content":[]}}`,
  'jsonrpc-1': (id) => `{"jsonrpc":"1.0","id":${id},"result":{"content":[]}}`,
  bom: (id) => `\ufeff{"jsonrpc":"2.0","id":${id},"result":{"content":[]}}`,
  'not-utf8': (id) => Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"`), Buffer.from([0xc3, 0x28]), Buffer.from('"}]}}')]),
};

/**
 * `body` made `pad` bytes longer (when `pad` is a number): a member `"pad"` of that many
 * `x`s before the first `"content":`, or, in a body without one, white space at its end. A
 * large answer may be read another way than a small one (src/web/js/fetch.js `standIn`); it
 * must be taken the same.
 */
function padded(body, pad) {
  if (typeof pad !== 'number') return body;
  const t = Buffer.from(body).toString('latin1');
  const at = t.indexOf('"content":');
  const out = at < 0 ? t + ' '.repeat(pad) : `${t.slice(0, at)}"pad":"${'x'.repeat(pad)}",${t.slice(at)}`;
  return Buffer.from(out, 'latin1');
}

async function toolsCall(ctx, reply, p) {
  const { st, scenario } = ctx;
  const name = p.name;
  const args = p.arguments ?? {};
  const key = `tools/call ${name}`;
  st.calls[key] = (st.calls[key] ?? 0) + 1;
  ctx.nTool = st.calls[key];
  if (name === 'hit' && TRANSPORT[scenario]) {
    if (TRANSPORT[scenario](reply, ctx) !== false) return;
  }
  if (name === 'hit' && scenario === 'envelopes') {
    // `raw`: the answer's bytes in base64, `$ID` standing for the id (tests/faults/mutants.mjs).
    const id = JSON.stringify(reply.id);
    const form = typeof args.raw === 'string' ? () => Buffer.from(Buffer.from(args.raw, 'base64').toString('latin1').replaceAll('$ID', id), 'latin1') : ENVELOPES[args.form];
    if (!form) return reply.error(-32602, 'unknown form');
    const body = padded(form(id), args.pad);
    return reply.res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }).end(body);
  }
  if (scenario === 'header-echo' && name !== 'echo' && name !== 'region_echo') {
    return reply.json(text(JSON.stringify({ name, mcpName: ctx.req.headers['mcp-name'], rawHeaders: ctx.req.rawHeaders })));
  }
  switch (name) {
    case 'echo':
      return reply.json(text(String(args.text ?? '')));
    case 'hit':
      return reply.json(text('hit ok'));
    case 'sized':
      return sized(reply, Number(args.bytes), args.as === 'sse' ? 'sse' : 'json');
    case 'ask':
      return mrtr(ctx, reply, p, args);
    case 'url_ask': {
      if (p.inputResponses?.consent) return reply.json(text(`url flow: ${p.inputResponses.consent.action}`));
      return reply.json({
        resultType: 'input_required',
        inputRequests: { consent: { method: 'elicitation/create', params: { mode: 'url', message: 'Please open this page.', url: String(args.url), elicitationId: 'e-1' } } },
      });
    }
    case 'region_echo': {
      const raw = ctx.req.headers['mcp-param-region'];
      // The spec's server side of x-mcp-header: a missing or different header is -32020.
      if (typeof args.region === 'string' && decodeHeader(raw) !== args.region) {
        return reply.error(-32020, 'Mcp-Param-Region does not match arguments.region', undefined, 400);
      }
      return reply.json(text(JSON.stringify({ raw, decoded: decodeHeader(raw), matched: decodeHeader(raw) === args.region })));
    }
    case 'task_ask':
    case 'task_slow': {
      if (!ctx.tasksDeclared) {
        return reply.error(-32021, 'This tool runs only as a task', { requiredCapabilities: { extensions: { [TASKS]: {} } } });
      }
      const t = newTask(st, scenario, name, args);
      return reply.json({ resultType: 'task', ...taskFields(t, 'working') });
    }
    default:
      return reply.error(-32602, `Unknown tool: ${String(name).slice(0, 80)}`);
  }
}

/** A response of exactly `bytes` bytes: the JSON body, or one SSE event's data. */
function sized(reply, bytes, as) {
  const bare = JSON.stringify(reply.message(text('')));
  const pad = bytes - Buffer.byteLength(bare);
  if (!(pad >= 0)) return reply.error(-32602, `bytes must be at least ${Buffer.byteLength(bare)}`);
  const body = JSON.stringify(reply.message(text('x'.repeat(pad))));
  if (as === 'sse') {
    reply.openSse();
    reply.res.end(`data: ${body}\n\n`);
  } else {
    reply.res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }).end(body);
  }
}

/** MRTR (stateless: everything the server knows is in requestState). */
async function mrtr(ctx, reply, p, args) {
  const { st, scenario } = ctx;
  const rounds = Array.isArray(args.rounds) ? args.rounds : [];
  let s = { round: 0, answers: {} };
  if (p.requestState !== undefined) {
    try {
      s = unb64(p.requestState);
    } catch {
      return reply.error(-32602, 'requestState was not echoed byte-exact');
    }
  }
  if (s.round > 0) {
    const asked = rounds[s.round - 1] ?? [];
    const got = p.inputResponses ?? {};
    for (const k of Object.keys(got)) count(st, 'mrtr', k, 'answered');
    const missing = asked.filter((k) => !(k in got));
    if (missing.length) return reply.error(-32602, `inputResponses lacks ${missing.join(', ')}`);
    for (const k of asked) s.answers[k] = answerValue(got[k]);
    st.calls['mrtr retries'] = (st.calls['mrtr retries'] ?? 0) + 1;
    if (scenario === 'mrtr-drop-retry' && st.calls['mrtr retries'] === 1) {
      reply.openSse();
      return reply.cut();
    }
    // No response head at all: every engine's fetch rejects, as Firefox's does for a cut
    // after the head and before any body byte.
    if (scenario === 'mrtr-reset-retry' && st.calls['mrtr retries'] === 1) return CUT_NOW(reply);
    // Refused for a while: 503 with Retry-After: 1 (once).
    if (scenario === 'mrtr-busy-retry' && st.calls['mrtr retries'] === 1) {
      st.busyAt = Date.now();
      return reply.res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '1' }).end('busy\n');
    }
    if (scenario === 'mrtr-busy-retry') st.calls['mrtr retry after ms'] = Date.now() - st.busyAt;
  }
  if (s.round < rounds.length) {
    const keys = rounds[s.round];
    const inputRequests = Object.fromEntries(keys.map((k) => [k, elicitForm(k)]));
    reply.json({ resultType: 'input_required', inputRequests, requestState: b64({ round: s.round + 1, answers: s.answers }) });
    if (await reply.delivered()) for (const k of keys) count(st, 'mrtr', k, 'presented');
    return;
  }
  return reply.json(text(Object.entries(s.answers).map(([k, v]) => `${k}=${v}`).join(';')));
}

// ------------------------------------------------------------------ tasks

function newTask(st, scenario, tool, args) {
  const now = Date.now();
  const seq = st.nextTask++;
  const id = scenario === 'task-id-reused' ? 'reused-task' : `task-${st.token}-${seq}`;
  const t = {
    id,
    // Counts are per task: tasks sharing a reused id are told apart by their number.
    scope: scenario === 'task-id-reused' ? `${id}#${seq}` : id,
    tool,
    createdAt: now,
    updatedAt: now,
    ttlMs: args.ttlMs === null ? null : Number(args.ttlMs ?? 600_000),
    pollIntervalMs: Number(args.pollIntervalMs ?? 50),
    status: 'working',
    phases: Array.isArray(args.phases) ? args.phases : [],
    phase: -1,
    outstanding: {},
    answers: {},
    result: undefined,
    doneAt: tool === 'task_slow' ? now + Number(args.ms ?? 1000) : undefined,
    completedViews: 0,
    scenario,
  };
  st.tasks.set(id, t);
  if (tool === 'task_ask') advance(st, t);
  // A slow task completes on time, not only when polled: its task streams hear of it
  // (tasks extension, "Task Status Notifications"; issue 14).
  if (t.doneAt !== undefined) setTimeout(() => lookup(st, id), t.doneAt - now + 1).unref?.();
  return t;
}

const terminal = (t) => ['completed', 'failed', 'cancelled'].includes(t.status);

function setStatus(st, t, status) {
  t.status = status;
  t.updatedAt = Math.max(Date.now(), t.updatedAt + 1);
  for (const l of st.listens) l.task(t);
}

function advance(st, t) {
  t.phase += 1;
  if (t.phase < t.phases.length) {
    t.outstanding = Object.fromEntries(t.phases[t.phase].map((k) => [k, elicitForm(k)]));
    setStatus(st, t, 'input_required');
  } else {
    t.outstanding = {};
    t.result = text(t.phases.flat().map((k) => `${k}=${t.answers[k]}`).join(';'));
    setStatus(st, t, 'completed');
  }
}

/** The task if it exists and its TTL has not passed (an expired task is deleted). */
function lookup(st, id) {
  const t = st.tasks.get(id);
  if (!t) return undefined;
  if (t.ttlMs !== null && Date.now() >= t.createdAt + t.ttlMs) {
    st.tasks.delete(id);
    return undefined;
  }
  if (t.doneAt !== undefined && t.status === 'working' && Date.now() >= t.doneAt) {
    t.result = text('slow done');
    setStatus(st, t, 'completed');
  }
  return t;
}

function taskFields(t, status = t.status) {
  return {
    taskId: t.id,
    status,
    createdAt: iso(t.createdAt),
    lastUpdatedAt: iso(t.updatedAt),
    ttlMs: t.ttlMs,
    pollIntervalMs: t.pollIntervalMs,
  };
}

/** A DetailedTask. `observe`: a view the client will see (task-regress counts those);
 *  without it, the task as it really is (for /debug/state). */
export function taskView(t, observe = true) {
  if (observe && t.scenario === 'task-regress' && t.status === 'completed') {
    t.completedViews += 1;
    if (t.completedViews > 1) {
      // Terminal statuses never change; this server says otherwise.
      return { ...taskFields(t, 'working'), lastUpdatedAt: iso(t.updatedAt + 1000), statusMessage: 'regressed' };
    }
  }
  const v = taskFields(t);
  if (t.status === 'input_required') v.inputRequests = { ...t.outstanding };
  if (t.status === 'completed') v.result = t.result;
  return v;
}

async function tasksGet(ctx, reply, p) {
  const { st, scenario, n } = ctx;
  if (scenario === 'task-get-transient' && n <= 4) {
    if (n === 1) return reply.res.writeHead(503, { 'content-type': 'text/plain' }).end('restarting\n');
    if (n === 2) return reply.error(-32603, 'Internal error (transient)');
    if (n === 3) return CUT_NOW(reply);
    return reply.res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>Bad Gateway</body></html>');
  }
  const t = lookup(st, p.taskId);
  if (!t) return reply.error(-32602, 'Failed to retrieve task: Task not found');
  const view = taskView(t);
  if (scenario === 'task-stale-poll' && st.updateInFlight) {
    // Answered from the state before the update, delivered after the update was lost.
    await st.updateInFlight;
    await sleep(50);
  }
  reply.json({ resultType: 'complete', ...view });
  if (view.status === 'input_required' && (await reply.delivered())) {
    for (const k of Object.keys(view.inputRequests)) count(st, t.scope, k, 'presented');
  }
}

async function tasksUpdate(ctx, reply, p) {
  const { st, scenario } = ctx;
  // "The first update": every delivery of the first request (a browser may deliver a POST
  // twice, see below); the fault hits each, the update is applied at most once.
  st.firstUpdateId ??= JSON.stringify(reply.id);
  const first = st.firstUpdateId === JSON.stringify(reply.id);
  if (scenario === 'task-update-lost' && first) return CUT_NOW(reply);
  const t = lookup(st, p.taskId);
  if (!t) return reply.error(-32602, 'Failed to retrieve task: Task not found');
  if (scenario === 'task-lost-ack-sse' && first) reply.openSse();
  if (scenario === 'task-stale-poll' && first && !st.updateInFlight) {
    // The update is applied 150 ms from now; polls arriving meanwhile see the old state.
    st.updateInFlight = sleep(150);
    await st.updateInFlight;
  }
  const responses = p.inputResponses && typeof p.inputResponses === 'object' ? p.inputResponses : {};
  // The same JSON-RPC id twice is one request delivered twice by the transport (a browser
  // re-sends a POST whose reused keep-alive connection was reset before any response byte),
  // not the client answering again: counted apart, applied idempotently.
  const rid = `tasks/update ${JSON.stringify(reply.id)}`;
  const again = st.seenIds.has(rid);
  st.seenIds.add(rid);
  let applied = false;
  for (const [k, v] of Object.entries(responses)) {
    count(st, t.scope, k, again ? 'retransmitted' : 'answered');
    if (!terminal(t) && k in t.outstanding) {
      t.answers[k] = answerValue(v);
      delete t.outstanding[k];
      applied = true;
    }
  }
  if (applied) {
    if (Object.keys(t.outstanding).length === 0) advance(st, t);
    else setStatus(st, t, t.status);
  }
  if ((scenario === 'task-lost-ack' || scenario === 'task-lost-ack-sse') && first) {
    await sleep(10);
    return CUT_NOW(reply);
  }
  if (scenario === 'task-stale-poll' && first) {
    st.updateInFlight = undefined; // later polls answer at once
    return CUT_NOW(reply);
  }
  return reply.json({ resultType: 'complete' });
}

// ------------------------------------------------------------------ subscriptions/listen

export function closeListens(st) {
  for (const l of st.listens) l.close();
  st.listens.clear();
}

async function listen(ctx, reply, p) {
  const { st, scenario, n, params } = ctx;
  const filter = p.notifications && typeof p.notifications === 'object' ? p.notifications : {};
  const meta = { [SUB_ID]: reply.id };
  if (scenario === 'listen-flap' && n > 1 && n <= 1 + Number(params.get('fails') ?? 1)) {
    return reply.res.writeHead(503, { 'content-type': 'text/plain' }).end('unavailable\n');
  }
  const granted = {};
  for (const k of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged']) if (filter[k]) granted[k] = true;
  if (Array.isArray(filter.taskIds)) granted.taskIds = filter.taskIds.filter((id) => lookup(st, id));
  reply.openSse();
  const l = {
    notify: (method, extra) => reply.event({ jsonrpc: '2.0', method, params: { ...extra, _meta: meta } }),
    task: (t) => {
      if (!granted.taskIds?.includes(t.id)) return;
      const view = taskView(t);
      l.notify('notifications/tasks', view);
      // Keys delivered on the task stream (issue 14) are presented as a poll's are.
      if (view.status === 'input_required') for (const k of Object.keys(view.inputRequests)) count(st, t.scope, k, 'presented');
    },
    close: () => {
      if (!reply.gone) {
        reply.event(reply.message({ resultType: 'complete', _meta: meta }));
        reply.res.end();
      }
    },
  };
  reply.res.on('close', () => st.listens.delete(l));
  if (scenario === 'listen-odd-ack') {
    // Not an acknowledgement of the filter: `?form=` says what comes first instead.
    const form = params.get('form');
    if (form === 'result') {
      reply.event(reply.message({ resultType: 'complete', _meta: meta }));
      return reply.res.end();
    }
    if (form === 'input-required') {
      const ask = { method: 'elicitation/create', params: { mode: 'form', message: 'Why?', requestedSchema: { type: 'object', properties: {} } } };
      reply.event(reply.message({ resultType: 'input_required', inputRequests: { why: ask }, _meta: meta }));
      return reply.res.end();
    }
    const odd = { array: ['toolsListChanged'], string: 'all', boolean: { toolsListChanged: 'yes' }, ids: { taskIds: 'all' } };
    const p2 = form === 'missing' ? { _meta: meta } : { notifications: odd[form], _meta: meta };
    return reply.event({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: p2 });
  }
  if (scenario === 'listen-slow-ack') {
    const delay = params.get('delay');
    if (delay === null) return; // never acknowledged
    await sleep(Number(delay));
  }
  reply.event({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: granted, _meta: meta } });
  st.listens.add(l);
  for (const id of granted.taskIds ?? []) {
    const t = lookup(st, id);
    if (t) l.task(t);
  }
  if (scenario === 'listen-drop') {
    await sleep(30);
    l.notify('notifications/tools/list_changed', {});
    if (n === 1) {
      st.listens.delete(l);
      reply.cut();
    }
  }
  if (scenario === 'listen-flood') {
    // `?count=` list_changed notifications at once, numbered by `seq`.
    const count = Number(params.get('count') ?? 3000);
    for (let i = 0; i < count; i++) l.notify('notifications/tools/list_changed', { seq: i });
  }
  if (scenario === 'listen-flap') {
    await sleep(30);
    if (n === 1) {
      st.listens.delete(l);
      reply.cut();
    } else l.notify('notifications/tools/list_changed', {});
  }
}
