// The response bodies of the fetch runner (src/web/js/fetch.js): when a body may be read in
// one piece, how it is checked against its `Content-Length`, and the direct path's answer
// read by comparing text (`readAnswer`). Transport facts only, but for `readAnswer`'s
// reading of the three members of a response. Imported by fetch.js alone (the Rust side
// names it only so that wasm-bindgen copies it: src/web/js.rs).

export const EMPTY = new Uint8Array(0);
/** Bodies from this size on may be parsed here for the host (`Fetcher.standIn`). */
export const STAND_IN_MIN = 64 * 1024;

/**
 * Whether `Response#arrayBuffer()` is built from JS chunks here: Node's fetch (undici) reads
 * the body as JS chunks and concatenates them into a copy, so a large body is better read
 * chunk by chunk into one buffer of its size (`Fetcher.sized`: 49.4 against 54.1 MiB of peak
 * RSS for a 5 MB result). Browsers, Deno, Bun and workerd consume a body natively into one
 * buffer, and there reading the chunks in JS is what costs: in Chromium, 5.2 MiB more of
 * the renderer's peak for a 5 MB result than `arrayBuffer()` (BENCHMARKS.md, the
 * twenty-first session). Deno and Bun also answer to `process.versions.node`.
 */
export const JS_CHUNKED_BODIES =
  typeof globalThis.process?.versions?.node === 'string' && globalThis.Deno === undefined && globalThis.process.versions.bun === undefined;

/** A body chunk as a Uint8Array, or null when it is not bytes. `ArrayBuffer.isView`, not
 *  `instanceof Uint8Array`: a fetch from another realm yields Uint8Arrays that are not
 *  instances of this realm's class. */
export function bytesOf(v) {
  if (!ArrayBuffer.isView(v)) return null;
  return v instanceof Uint8Array ? v : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

/** True when `s` is 1 to 15 decimal digits (a `Content-Length` taken as it is). A loop, not
 *  a regular expression: it runs on every answer, and what a call costs on loopback is
 *  mostly the code it touches (BENCHMARKS.md, the twenty-eighth session). */
function digits(s) {
  if (s.length === 0 || s.length > 15) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** The size of a body that may be read in one piece: its `Content-Length` when that is
 *  known and at most `limit` (the engine's, -1 when it takes the body in chunks), and
 *  the body is neither compressed (the size is then the size read) nor filtered by CORS
 *  (whose hidden `Content-Encoding` could be); else -1. */
export function oneReadSize(h, res, limit) {
  if (limit < 0) return -1;
  const size = statedSize(h);
  if (size < 0 || size > limit) return -1;
  if (res.type !== 'basic' && res.type !== 'default') return -1;
  return size;
}

/** A body's `Content-Length` when it is stated and no `Content-Encoding` can be read (the
 *  body is not compressed, or CORS hides that it is); else -1. */
export function statedSize(h) {
  const size = h.get('content-length');
  if (size === null || !digits(size) || h.get('content-encoding') !== null) return -1;
  return Number(size);
}

export const LONGER = 'the body is longer than its Content-Length';
export const SHORTER = 'the body is shorter than its Content-Length';

/** `body`, read whole, checked against its `Content-Length`, `total`, as `Fetcher.sized`
 *  checks it chunk by chunk. */
export function sizedAs(body, total) {
  if (body.byteLength !== total) throw new Error(body.byteLength > total ? LONGER : SHORTER);
  return body;
}

export function join(parts, n) {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

// The direct path's answer read here (`readAnswer`): the forms of a plain response whose
// envelope can be checked by comparing text. Servers write one of two: the Python SDK (and
// most) `jsonrpc`, `id`, `result`; the TypeScript SDK `result`, `jsonrpc`, `id`.
const FIRST = '{"jsonrpc":"2.0","id":';
const THEN_RESULT = ',"result":';
const RESULT_FIRST = '{"result":';
const LAST = ',"jsonrpc":"2.0","id":';
/** Strict UTF-8, as the engine reads a body; a BOM is kept (the engine refuses one). */
const STRICT = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/** An escape of a letter of `resultType` (`\u0072`, `\u0065`, …): of all escapes, only these
 *  can write that name (servers escape `<`, `>`, `&`, control characters, non-ASCII). */
const SPELLS = /\\u00(?:7[023459]|6[5c]|54)/i;
/** The escape of a UTF-16 surrogate (`\ud800`–`\udfff`), paired or not. */
const SURROGATE = /\\ud[89a-f]/i;

/** The id written from `from` to `to` in `t` when it is an integer of 1 to 15 digits as
 *  JSON writes it (no leading zero); else -1. */
function idAt(t, from, to) {
  const n = to - from;
  if (n < 1 || n > 15 || (n > 1 && t.charCodeAt(from) === 48)) return -1;
  for (let i = from; i < to; i++) {
    const c = t.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
  }
  return Number(t.slice(from, to));
}

/** `text` parsed, when it is one JSON object (not an array); else null. */
function objectOf(text) {
  let v;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : null;
}

/**
 * A plain answer's JSON-RPC response read here: `{ id, result }` when `bytes` are UTF-8 text
 * that `answerIn` reads; else null. The direct path's reader (below).
 */
export function readAnswer(bytes) {
  let t;
  try {
    t = STRICT.decode(bytes);
  } catch {
    return null;
  }
  return answerIn(t);
}

/**
 * A plain answer's JSON-RPC response read from its text `t`: `{ id, result }` when `t` is
 * of one of the two forms above, with exactly the members `jsonrpc`,
 * `id` (an integer) and `result`, and the result a JSON object whose `resultType` is
 * absent or `"complete"` (its name written once, none of its letters escaped), and no
 * surrogate escaped in it; else null.
 * What such an answer holds is what the engine would hand the host for it
 * (`Core::plain_answer`), so the engine is only told its id and size
 * (`Core::on_result_read`), or fed a stand-in for a large result (`Fetcher.standIn`), and
 * reads nothing of it: the runner parses the result once, as it does anyway (BENCHMARKS.md,
 * the thirty-fourth session).
 * Anything else is handed to the engine whole, which decides as for any answer.
 *
 * Why text is compared: `JSON.parse` keeps the last of duplicate members, which the engine
 * refuses. With the envelope's text fixed around it, the result's text parsing as one value
 * is what proves the envelope has its three members once each. (`readAnswer` is exported for
 * the differential of fuzz/js/envelopes.mjs, which counts what it reads.)
 */
export function answerIn(t) {
  const end = t.length - 1;
  if (t.charCodeAt(end) !== 125) return null; // `}`
  let id;
  let from;
  let to;
  if (t.startsWith(FIRST)) {
    let i = FIRST.length;
    while (i < end && t.charCodeAt(i) >= 48 && t.charCodeAt(i) <= 57) i++;
    id = idAt(t, FIRST.length, i);
    if (!t.startsWith(THEN_RESULT, i)) return null;
    from = i + THEN_RESULT.length;
    to = end;
  } else if (t.startsWith(RESULT_FIRST)) {
    let i = end;
    while (i > 0 && t.charCodeAt(i - 1) >= 48 && t.charCodeAt(i - 1) <= 57) i--;
    id = idAt(t, i, end);
    from = RESULT_FIRST.length;
    to = i - LAST.length;
    if (to < from || !t.startsWith(LAST, to)) return null;
  } else {
    return null;
  }
  if (id < 0) return null;
  const text = t.slice(from, to);
  const result = objectOf(text);
  if (result === null) return null;
  // A surrogate's escape (`\ud800`): the engine refuses a lone one in a name of the
  // result's members, which it reads (`peek_result_type`); JSON.parse takes it.
  if (text.indexOf('\\u') >= 0 && SURROGATE.test(text)) return null;
  const rt = result.resultType;
  if (rt !== undefined) {
    // Written once: `JSON.parse` would keep the last of two (the engine refuses them).
    // A name may also be written with escapes (`result\u0054ype`): text escaping one of
    // its letters is not read here.
    if (rt !== 'complete' || text.indexOf('"resultType"') !== text.lastIndexOf('"resultType"') || (text.indexOf('\\u') >= 0 && SPELLS.test(text))) return null;
  }
  return { id, result };
}
