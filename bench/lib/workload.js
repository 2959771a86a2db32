// The per-call workload, shared by the Node and the Chromium runs. `c` is a client from
// bench/clients/*.js. Times are milliseconds from performance.now().
export const ARGS = { text: 'hello from the benchmark' };
/** The request headers our client sends for the echo call, as the pairs its fetch runner passes. */
export const ECHO_HEADERS = [
  ['content-type', 'application/json'],
  ['accept', 'application/json, text/event-stream'],
  ['mcp-protocol-version', '2026-07-28'],
  ['mcp-method', 'tools/call'],
  ['mcp-name', 'echo'],
];

/** A POST's `fetch` options as our fetch runner makes them: header pairs, the body as
 *  bytes, a fresh AbortController's signal. */
export function postAsOurs(headers, body) {
  return { method: 'POST', headers, body, signal: new AbortController().signal };
}

/** The response headers our fetch runner reads (src/web/js/fetch.js `run`); returns the
 *  `Content-Type`. */
export function readHeadersAsOurs(res) {
  const h = res.headers;
  h.get('mcp-session-id');
  h.get('retry-after');
  h.get('content-length');
  h.get('content-encoding');
  return h.get('content-type');
}

/**
 * A client that calls the global `fetch` for the echo tools/call exactly as our fetch runner
 * calls it (src/web/js/fetch.js: header pairs, the body as bytes, a fresh AbortController's
 * signal, five response headers read, `arrayBuffer()`, TextDecoder, JSON.parse): the floor
 * of bench/tools/shell-cost.mjs and chromium-shell-cost.mjs, which differ from it only by
 * our client.
 */
export function fetchAsOurs(url) {
  let next = 1;
  const td = new TextDecoder('utf-8', { ignoreBOM: true });
  const te = new TextEncoder();
  return {
    call: async () => {
      const headers = ECHO_HEADERS.map((p) => [...p]);
      const body = te.encode(JSON.stringify({ jsonrpc: '2.0', id: next++, method: 'tools/call', params: { name: 'echo', arguments: ARGS } }));
      const res = await fetch(url, postAsOurs(headers, body));
      readHeadersAsOurs(res);
      return JSON.parse(td.decode(new Uint8Array(await res.arrayBuffer()))).result;
    },
  };
}

export async function warmup(c, n) {
  for (let i = 0; i < n; i++) await c.call('echo', ARGS);
  // and some concurrency, so both paths are warm
  await Promise.all(Array.from({ length: 50 }, () => c.call('echo', ARGS)));
}

export async function sequential(c, n) {
  const lat = new Float64Array(n);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    await c.call('echo', ARGS);
    lat[i] = performance.now() - s;
  }
  return { wall: performance.now() - t0, lat: Array.from(lat) };
}

export async function concurrent(c, n, batch) {
  const lat = new Float64Array(n);
  const t0 = performance.now();
  for (let i = 0; i < n; i += batch) {
    const k = Math.min(batch, n - i);
    await Promise.all(
      Array.from({ length: k }, async (_, j) => {
        const s = performance.now();
        await c.call('echo', ARGS);
        lat[i + j] = performance.now() - s;
      }),
    );
  }
  return { wall: performance.now() - t0, lat: Array.from(lat) };
}

/**
 * The bench server's answer to one of our echo requests, as JSON text, for the probes'
 * stand-in fetches (no network): the tool list for `tools/list` (our client lists the tools
 * once, to learn their x-mcp-header parameters), the echo result otherwise.
 */
export function echoAnswer(body) {
  const id = /"id":(\d+)/.exec(body)?.[1] ?? '0';
  return body.includes('"tools/list"')
    ? `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}]}}`
    : `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","content":[{"type":"text","text":${JSON.stringify(JSON.stringify(ARGS))}}]}}`;
}

/** A 200 `Response` of JSON `text`, with its Content-Length (as the bench server sends it). */
export function jsonResponse(text) {
  const bytes = new TextEncoder().encode(text);
  return new Response(bytes, { status: 200, headers: { 'content-type': 'application/json', 'content-length': String(bytes.byteLength) } });
}

/**
 * Node only: the process's CPU µs per call of `call`, `n` calls one at a time (`seq`), then
 * `n` in batches of 50 (`conc`), each after a collection when `--expose-gc` allows one.
 */
export async function cpuPerCall(call, n) {
  const out = {};
  for (const mode of ['seq', 'conc']) {
    globalThis.gc?.();
    const c0 = process.cpuUsage();
    if (mode === 'seq') for (let i = 0; i < n; i++) await call();
    else for (let i = 0; i < n; i += 50) await Promise.all(Array.from({ length: Math.min(50, n - i) }, call));
    const c = process.cpuUsage(c0);
    out[mode] = (c.user + c.system) / n;
  }
  return out;
}

/** The median of numbers (the mean of the middle two for an even count). */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

export function quantile(sorted, q) {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}

/** calls/s, p50, p99 (ms) of one pattern's run. */
export function summarize({ wall, lat }) {
  const s = [...lat].sort((a, b) => a - b);
  return { n: lat.length, wallMs: wall, callsPerSec: (1000 * lat.length) / wall, p50: quantile(s, 0.5), p99: quantile(s, 0.99) };
}
