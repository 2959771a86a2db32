// The wasm shell's fetch runner (src/web/fetch.rs), and a tool call's arguments made into
// text and copied into the wasm (`argsText`, src/web/convert.rs). Plain JS because it is
// mostly awaiting fetches (several times smaller than the same in wasm, and each await in
// wasm costs a closure and a promise reaction more). How a response body is read, and the
// direct path's answer, are in bodies.js; the CORS diagnosis of a failed exchange, in
// objects.js beside the CorsError it fills.

import {
  EMPTY, JS_CHUNKED_BODIES, LONGER, SHORTER, STAND_IN_MIN, answerIn, bytesOf, join, oneReadSize, readAnswer, sizedAs, statedSize,
} from './bodies.js';
import { corsFacts, crossOrigin, describe, diagnose } from './objects.js';


/** The first header the platform refuses, as the error the shell reports, or null. */
function badHeader(pairs) {
  if (typeof Headers !== 'function') return null;
  const h = new Headers();
  for (const [n, v] of pairs) {
    try {
      h.append(n, v);
    } catch (e) {
      return `header ${n} could not be set: ${describe(e)}`;
    }
  }
  return null;
}

const UTF8 = new TextEncoder();

// A tool call's arguments cross into the wasm in two calls (src/web/convert.rs
// `tool_arguments`): `argsText` stringifies them and says how long the text is, so that
// the wasm can make room for it, and `argsInto` writes the text there. In between the text
// waits here. One call each way, no `catch` wrapper of the glue, and a regular expression
// only for text that holds `\ud`: a call's cost on loopback is mostly the code it touches
// (BENCHMARKS.md, the twenty-ninth session).
let argsWaiting;

/**
 * A tool's arguments as `JSON.stringify` writes them, kept for `argsInto`: their length
 * in UTF-16 units (UTF-8 takes at most 3 bytes a unit); -1 when they stringify to
 * nothing (a function, a symbol); -2 when `JSON.stringify` threw (a cycle, a BigInt), and
 * -3 when the text may hold a lone surrogate, which the wasm must refuse and so reads
 * whole: `argsKept` then gives what was thrown, or the text.
 */
export function argsText(v) {
  let t;
  try {
    t = JSON.stringify(v);
  } catch (e) {
    argsWaiting = e;
    return -2;
  }
  if (typeof t !== 'string') return -1;
  argsWaiting = t;
  // A lone UTF-16 surrogate is written as `\ud800`–`\udfff`, in lowercase (ECMA-262
  // QuoteJSONString; a pair is written as it is). An escaped backslash before such
  // letters matches too: the wasm then reads the text whole, finds no surrogate, and only
  // takes longer. (`indexOf` first: most text holds no backslash, and needs no RegExp.)
  return t.indexOf('\\ud') >= 0 && /\\ud[89a-f]/.test(t) ? -3 : t.length;
}

/** What `argsText` kept (given once). */
export function argsKept() {
  const t = argsWaiting;
  argsWaiting = undefined;
  return t;
}

/** Up to this many UTF-16 units, `argsInto` copies the ASCII of the text itself. */
const ASCII_COPY_MAX = 256;
/** A view of the wasm's memory for `argsInto`, and the memory it views. */
let argsMemory = null;
let argsView = EMPTY;

/** Writes the text `argsText` kept as UTF-8 into the wasm's `memory` at `ptr` (room for
 *  `cap` bytes), where the shell has a buffer waiting; returns the bytes written.
 *  Long text is written by `encodeInto` (a `String` argument's glue copies ASCII one
 *  character at a time in JS: large arguments, BENCHMARKS.md, the fifteenth session).
 *  Short text, what most calls send, has its ASCII copied here, into a view of the memory
 *  made once: a call into `encodeInto` costs about 1 µs in Chromium however short the text
 *  is, and a new view each time more (BENCHMARKS.md, the thirty-seventh session); from the
 *  first other character on, `encodeInto` writes the rest. */
export function argsInto(memory, ptr, cap) {
  const t = argsKept();
  const n = t.length;
  if (n > ASCII_COPY_MAX) return UTF8.encodeInto(t, new Uint8Array(memory.buffer, ptr, cap)).written;
  // A grown memory has a new buffer, and the old one's views are empty: view it again.
  // (Compared by memory too: two builds of this package in one page share this module.)
  if (memory !== argsMemory || argsView.byteLength === 0) {
    argsMemory = memory;
    argsView = new Uint8Array(memory.buffer);
  }
  const v = argsView;
  let i = 0;
  for (; i < n; i++) {
    const c = t.charCodeAt(i);
    if (c > 127) break;
    v[ptr + i] = c;
  }
  // (A cut before a unit that is not ASCII never parts a surrogate pair.)
  return i === n ? n : i + UTF8.encodeInto(t.slice(i), v.subarray(ptr + i, ptr + cap)).written;
}

/** Whether this environment has `EventSource` (the 2024-11-05 stream's reader). */
export const hasEventSource = () => typeof globalThis.EventSource === 'function';

/**
 * Performs the engine's HTTP requests with `fetch` (the host's, or the global one) and
 * feeds what comes back to the wasm shell through four functions made once per client:
 * `head(id, status, contentType, sessionId, retryAfter, wwwAuthenticate, dpopNonce,
 * crossOrigin401)` returns how to read the body (-1: chunk by chunk, as an SSE stream is;
 * n >= 0: one JSON message of at most n bytes, handed over whole; -2: not delivered, a
 * DPoP nonce this origin cannot read was asked for, a CORS error), `body(id, bytes, last)`,
 * and `fail(id, kind, message, data, status)`. A plain JSON answer (see `plain`) goes to
 * `head` with its whole body in place of `crossOrigin401`: its head, body and end at once;
 * on the direct path (`call`), when it is as plain as answers come and read here
 * (`readAnswer`), to `done(id, op, rpcId, size)`, which ends the call when it is the
 * answer to it. Transport facts only, but for the direct path's reading of the three
 * members of a response.
 *
 * It also keeps the promises of the client's calls (`wait`, `settle`): made here, in JS,
 * they cost the wasm no closure and no call back into it per call.
 */
export class Fetcher {
  constructor(fetchFn, head, body, fail, done) {
    this.fetchFn = typeof fetchFn === 'function' ? fetchFn : null;
    this.head = head;
    this.body = body;
    this.fail = fail;
    this.done = done;
    /** The most bytes the engine took as one JSON message (`head`'s answer), once seen:
     *  a plain answer within it is read whole before the engine hears its head. */
    this.jsonLimit = -1;
    /** The last header text `run` was given, and its pairs (`pairsOf`); the last URL and
     *  method `send` was given. */
    this.lastHeaderText = null;
    this.lastPairs = [];
    this.lastUrl = '';
    this.lastMethod = '';
    /** Exchanges in flight: id → AbortController. */
    this.live = new Map();
    /** The promises of calls in progress, by operation: { resolve, reject }. */
    this.waits = new Map();
    /** Results parsed here for the host (see `standIn`), by number, until claimed. */
    this.kept = new Map();
    this.nextRef = 1;
    // The stand-in's member name: a server cannot guess it (it never sees it), so no
    // result it sends can pass for one.
    const r = new Uint32Array(4);
    if (globalThis.crypto?.getRandomValues) globalThis.crypto.getRandomValues(r);
    else for (let i = 0; i < 4; i++) r[i] = Math.floor(Math.random() * 2 ** 32);
    this.key = `\u0000mcp-wasm-client/kept-${Array.from(r, (x) => x.toString(16)).join('-')}`;
    this.keyJson = JSON.stringify(this.key);
  }

  /** The promise of operation `op`'s call (asked for as soon as the operation starts). */
  wait(op) {
    return new Promise((resolve, reject) => this.waits.set(op, { resolve, reject }));
  }

  /** Operation `op` ended: its call's promise is resolved (`ok`) or rejected with `value`.
   *  A result the engine gives as JSON text, `json` (checked there), is parsed here: one
   *  call from the wasm for both steps, and no `catch` wrapper of the glue around
   *  `JSON.parse` (BENCHMARKS.md, the twenty-ninth session). */
  settle(op, ok, value, json) {
    const w = this.waits.get(op);
    if (w === undefined) return;
    this.waits.delete(op);
    if (json !== undefined) {
      try {
        value = JSON.parse(json);
      } catch {
        value = null; // not reached: the engine read the text as JSON
      }
    }
    (ok ? w.resolve : w.reject)(value);
  }

  /** The result kept under number `n` (once), or undefined. */
  take(n) {
    const v = this.kept.get(n);
    this.kept.delete(n);
    return v;
  }

  /**
   * A large JSON body whose result goes to the host unread: parsed here once (the engine
   * would scan it twice, and the host parse it again), the result kept, and the engine
   * fed a stand-in: the same `id`, and a result naming only what was kept.
   * `text`: the body, decoded. Read as the direct path reads a small answer (`answerIn`),
   * so that a large body passes only what the engine would pass: `JSON.parse` alone would
   * keep the last of two `result`s, `id`s or `resultType`s, and take an `id` of `7.0`.
   * Anything else (an error, a request, a non-`complete` result, another form): null, and
   * the engine reads the body as it is.
   */
  standIn(text) {
    const m = answerIn(text);
    if (m === null) return null;
    const n = this.nextRef++;
    this.kept.set(n, m.result);
    const stub = `{"jsonrpc":"2.0","id":${m.id},"result":{"resultType":"complete",${this.keyJson}:${n}}}`;
    return { n, bytes: new TextEncoder().encode(stub) };
  }

  /** The whole body of exchange `id`: the engine hears it (or its stand-in), and its end. */
  whole(id, bytes, host) {
    if (!this.live.delete(id)) return;
    if (host && bytes.byteLength >= STAND_IN_MIN) {
      let text = null;
      try {
        text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
      } catch {
        // not UTF-8: the engine says so
      }
      if (text !== null) {
        bytes = null; // the text holds the body now: the bytes may go before the parse
        const s = this.standIn(text);
        if (s) {
          try {
            return this.body(id, s.bytes, true);
          } finally {
            this.kept.delete(s.n); // claimed while the engine handled it, or never to be
          }
        }
        bytes = new TextEncoder().encode(text); // the same bytes (valid UTF-8)
      }
    }
    this.body(id, bytes, true);
  }

  /**
   * In Node (`JS_CHUNKED_BODIES`), the body of exchange `id` read into one buffer of its
   * `Content-Length`, `total`; null when the engine gave up on the exchange meanwhile
   * (`whole` then drops it). A body
   * longer or shorter than announced is a broken stream (a platform fetch cannot deliver
   * either over HTTP/1.1 framing; a host's `fetch` function could).
   */
  async sized(id, reader, total) {
    const buf = new Uint8Array(total);
    let at = 0;
    for (;;) {
      if (!this.live.has(id)) {
        await reader.cancel().catch(() => {});
        return null;
      }
      const r = await reader.read();
      if (r.done) break;
      const u = bytesOf(r.value);
      if (!u) continue;
      if (u.byteLength > total - at) throw new Error(LONGER);
      buf.set(u, at);
      at += u.byteLength;
    }
    if (at !== total) throw new Error(SHORTER);
    return buf;
  }

  /**
   * Whether a response of `status` with headers `h` may be a plain JSON answer, read whole
   * before the engine hears its head (`head` with the body): a 200 of `application/json`,
   * once the engine's limit for one JSON message is known; its `Content-Type`, or null.
   * `run` reads such a body in one piece when its size is known and within that limit (and
   * it is not a large result for the host: `standIn`), and chunk by chunk while it stays
   * within when its size is not known (another origin's, a compressed one, one of no
   * stated size). The engine then hears what it would have heard as a head and one whole
   * body; anything else goes the usual way.
   */
  plain(status, h) {
    if (status !== 200 || this.jsonLimit < 0) return null;
    const ct = h.get('content-type');
    // (`application/json` exactly, what most servers send, needs no regular expression.)
    return ct === 'application/json' || (ct !== null && /^application\/json\s*(;|$)/i.test(ct)) ? ct : null;
  }

  /** Starts request `id`; `headers` is `name\0value\0…` (names and values hold no NUL);
   *  `body`: UTF-8 bytes (a copy, the runner's own) or undefined; `text`: the body as a
   *  string instead (a small one: see `hand` in fetch.rs), or undefined; `kind`, bits: 1
   *  when its result goes to the host unread (see `standIn`), 2 for the authorization
   *  flow's own request, sent with `redirect: 'error'` (`Core::is_flow_request`: a redirect
   *  would carry a code, a verifier or a secret to a URL no check ran on), 4 when it
   *  carries a DPoP proof (its answer's `DPoP-Nonce` is read whatever its status: RFC 9449
   *  §8.2, §9). `url`, `method` and `headers` are undefined when
   *  they are those of the request before: the calls of one tool send the same, and each
   *  text the wasm hands over is decoded anew (BENCHMARKS.md, the twenty-ninth session).
   *  `op`: the direct path's call (`call`), else undefined. */
  send(id, url, method, headers, body, text, kind, op) {
    if (url === undefined) url = this.lastUrl;
    else this.lastUrl = url;
    if (method === undefined) method = this.lastMethod;
    else this.lastMethod = method;
    if (headers === undefined) headers = this.lastHeaderText;
    const ac = new AbortController();
    this.live.set(id, ac);
    this.run(id, ac, url, method, headers, text ?? body, (kind & 1) !== 0, op, (kind & 2) !== 0, (kind & 4) !== 0).catch((e) => {
      try {
        this.failed(id, 'network', `fetch failed: ${describe(e)}`);
      } catch {
        // the client is gone
      }
    });
  }

  /**
   * The direct path: `send` for plain call `op`'s request (its result goes to the host),
   * and the call's promise, returned. A plain answer to it (`plain`, with no session id or
   * `Retry-After`, and `application/json` exactly) that `readAnswer` reads is told to
   * `done(id, op, rpcId, size)`; when the engine takes it as the call's end, the promise is
   * settled here with the result read. Anything else takes the usual way, and the engine
   * settles the promise (`settle`).
   */
  call(op, id, url, method, headers, body, text) {
    const p = this.wait(op);
    this.send(id, url, method, headers, body, text, 1, op);
    return p;
  }

  /** The engine gave up on exchange `id`. */
  cancel(id) {
    const ac = this.live.get(id);
    if (ac) {
      this.live.delete(id);
      ac.abort();
    }
  }

  failed(id, kind, message, data, status) {
    if (!this.live.delete(id)) return;
    this.fail(id, kind, message, data, status || 0);
  }

  /** The header pairs of `headerText` (`name\0value\0…`). The last text's pairs are kept
   *  and given again for the same text (the calls of one tool send the same headers), so
   *  that a call does not split a string and make its pieces each time (BENCHMARKS.md, the
   *  twenty-eighth session). The pairs are never changed: fetch and `Headers` copy them. */
  pairsOf(headerText) {
    if (headerText === this.lastHeaderText) return this.lastPairs;
    const pairs = [];
    if (headerText) {
      const p = headerText.split('\0');
      for (let i = 0; i + 1 < p.length; i += 2) pairs.push([p[i], p[i + 1]]);
    }
    this.lastHeaderText = headerText;
    this.lastPairs = pairs;
    return pairs;
  }

  async run(id, ac, url, method, headerText, body, host, op, flow, proved) {
    const pairs = this.pairsOf(headerText);
    const custom = this.fetchFn;
    const f = custom || globalThis.fetch;
    const self = custom ? undefined : globalThis;
    if (typeof f !== 'function') return this.failed(id, 'network', 'no fetch function in this environment');
    // A host's fetch gets a Headers object (it may read or change it); the platform's, the
    // pairs (it builds its own).
    let headers = pairs;
    if (custom) {
      const bad = badHeader(pairs);
      if (bad) return this.failed(id, 'config', bad);
      headers = new Headers(pairs);
      // A host's fetch gets the body as text, as it always has (it may read it); the
      // platform's takes the body as it comes (text or bytes).
      if (body !== undefined && typeof body !== 'string') body = new TextDecoder().decode(body);
    }
    const init = { method, headers, signal: ac.signal };
    if (body !== undefined) init.body = body;
    if (flow) init.redirect = 'error';
    let res;
    try {
      res = f.call(self, url, init);
    } catch (e) {
      const bad = badHeader(pairs);
      return bad ? this.failed(id, 'config', bad) : this.failed(id, 'network', `fetch failed: ${describe(e)}`);
    }
    try {
      res = await res;
    } catch (e) {
      if (ac.signal.aborted) return this.live.delete(id);
      const bad = badHeader(pairs);
      if (bad) return this.failed(id, 'config', bad);
      const page = crossOrigin(url);
      if (page) {
        const reason = await diagnose(f, self, url, pairs).catch(() => null);
        if (ac.signal.aborted) return this.live.delete(id); // the engine gave up while probing
        if (typeof reason === 'string') {
          const facts = corsFacts(reason, page, url, method, pairs, 0);
          return this.failed(id, 'cors', facts.message, facts.data, 0);
        }
      }
      // (A flow request's redirect lands here too: refused, `redirect: 'error'`.)
      return this.failed(id, 'network', `fetch failed: ${describe(e)}${flow ? ' (an authorization request follows no redirect)' : ''}`);
    }
    if (!res || typeof res.status !== 'number' || !res.headers) {
      return this.failed(id, 'network', 'fetch did not return a Response');
    }
    const status = res.status;
    const h = res.headers;
    // WWW-Authenticate only where the engine uses it (401, 403).
    const www = status === 401 || status === 403 ? h.get('www-authenticate') : null;
    if (status === 401 && www === null) {
      // A 401 always carries WWW-Authenticate (RFC 9110 §15.5.2): unreadable, it was not
      // exposed to this origin, and the page cannot learn how to authenticate.
      const page = crossOrigin(url);
      if (page) {
        ac.abort();
        const facts = corsFacts('www-authenticate-not-exposed', page, url, method, pairs, 401);
        return this.failed(id, 'cors', facts.message, facts.data, 401);
      }
    }
    if (!this.live.has(id)) return;
    // DPoP-Nonce: a refusal's (RFC 9449 §8: 400 from the token endpoint; §9: 401, 403), and
    // any answer's to a request that carried a proof (§8.2: a new nonce may come with any
    // response, and the next proof carries it). Such an answer takes the usual way, so
    // that the engine learns it.
    const nonce = proved || status === 400 || status === 401 || status === 403 ? h.get('dpop-nonce') : null;
    // A plain answer's body read chunk by chunk (`plain`) that turned out larger than one:
    // its reader, and the chunks read, go on the usual way.
    let reader = null;
    const parts = [];
    let n = 0;
    const ct = this.plain(status, h);
    if (ct !== null) {
      // The engine hears the head with the body: one call into the wasm, not two.
      const sid = h.get('mcp-session-id');
      const ra = h.get('retry-after');
      const most = host ? Math.min(this.jsonLimit, STAND_IN_MIN - 1) : this.jsonLimit;
      const size = oneReadSize(h, res, Number.MAX_SAFE_INTEGER);
      // The direct path's call, under a head that lets the runner read its answer itself
      // (`readAnswer`, when the body is in one of the usual forms).
      const usual = op !== undefined && sid === null && ra === null && nonce === null && ct === 'application/json';
      let answer = null;
      let bytes;
      try {
        if (size >= 0) {
          if (size <= most) bytes = new Uint8Array(await res.arrayBuffer());
        } else if (!res.body) {
          bytes = EMPTY;
        } else {
          reader = res.body.getReader();
          // Another origin's body is read chunk by chunk even when its `Content-Length` is
          // stated: `Content-Encoding` is not a header CORS lets the page read, so the size
          // may be that of compressed bytes, and `arrayBuffer()` would take a body of any
          // size. Once the bytes read are as many as stated and are a whole usual answer,
          // they are taken without waiting for the stream's end (one read less: −13 to −28
          // µs a call in Chromium, BENCHMARKS.md, the fortieth session). Not
          // compressed, the body is exactly that long (HTTP's framing), so the end was next.
          // Compressed, what was read is one whole JSON object, and what could follow is
          // either white space (the same answer) or bytes that make the body no JSON at all:
          // such a body alone, under an encoding the page cannot see, is taken as its first
          // answer rather than refused.
          const stated = usual ? statedSize(h) : -1;
          for (;;) {
            if (!this.live.has(id)) {
              await reader.cancel().catch(() => {});
              return;
            }
            const r = await reader.read();
            if (r.done) {
              bytes = join(parts.splice(0), n);
              break;
            }
            const u = bytesOf(r.value);
            if (!u) continue;
            parts.push(u);
            n += u.byteLength;
            if (n > most) break;
            if (n === stated) {
              const whole = join(parts.splice(0), n);
              answer = readAnswer(whole);
              if (answer !== null) {
                bytes = whole;
                reader.cancel().catch(() => {});
                break;
              }
              parts.push(whole);
            }
          }
        }
      } catch (e) {
        if (ac.signal.aborted) return this.live.delete(id);
        return this.failed(id, 'network', `the response stream broke: ${describe(e)}`);
      }
      if (bytes !== undefined) {
        if (!this.live.delete(id)) return;
        if (usual) {
          const m = answer ?? readAnswer(bytes);
          if (m !== null && this.done(id, op, m.id, bytes.byteLength)) return this.settle(op, true, m.result);
        }
        // (`application/json` exactly, the usual type, is not handed over: the wasm knows it.)
        this.head(id, status, ct === 'application/json' ? null : ct, sid, ra, null, nonce, bytes);
        return;
      }
    }
    const cross = status === 401 && crossOrigin(url) !== undefined;
    let limit = this.head(id, status, h.get('content-type'), h.get('mcp-session-id'), h.get('retry-after'), www, nonce, cross);
    if (limit > this.jsonLimit) this.jsonLimit = limit;
    if (limit === -2) {
      // The engine found a cross-origin 401 asking for a DPoP nonce that this origin
      // cannot read (not exposed): the page cannot answer it.
      ac.abort();
      const facts = corsFacts('dpop-nonce-not-exposed', crossOrigin(url), url, method, pairs, 401);
      return this.failed(id, 'cors', facts.message, facts.data, 401);
    }
    const stream = res.body;
    if (!this.live.has(id)) {
      // The engine is done with it: drop the body (an aborted stream rejects: caught).
      (reader ?? stream)?.cancel?.().catch(() => {});
      return;
    }
    if (!stream) {
      this.live.delete(id);
      return this.body(id, EMPTY, true);
    }
    try {
      if (reader === null) {
        // A JSON body that may be read in one piece (`oneReadSize`): one read.
        const total = oneReadSize(h, res, limit);
        if (total >= 0) {
          if (!host || total < STAND_IN_MIN) return this.whole(id, new Uint8Array(await res.arrayBuffer()), host);
          if (!JS_CHUNKED_BODIES) return this.whole(id, sizedAs(new Uint8Array(await res.arrayBuffer()), total), host);
          // In Node, a large result for the host: its chunks copied as they come into one
          // buffer of the announced size, so that one copy of the body is alive at a time,
          // not the chunks and their concatenation and `arrayBuffer()`'s copy of that.
          return this.whole(id, await this.sized(id, stream.getReader(), total), host);
        }
        reader = stream.getReader();
      } else if (limit < 0 || n > limit) {
        // What was read as a plain answer's: the body's first bytes.
        this.body(id, join(parts.splice(0), n), false);
        limit = -1;
      }
      for (;;) {
        if (!this.live.has(id)) {
          // Cancelled by the engine: the abort has errored the stream, so cancel() rejects.
          await reader.cancel().catch(() => {});
          return;
        }
        const r = await reader.read();
        if (r.done) break;
        const u = bytesOf(r.value);
        if (!u) continue;
        if (limit < 0) {
          this.body(id, u, false);
          continue;
        }
        parts.push(u);
        n += u.byteLength;
        if (n > limit) {
          // Over the limit: the engine refuses it; from here on, chunk by chunk.
          this.body(id, join(parts, n), false);
          parts.length = 0;
          limit = -1;
        }
      }
      // `splice`: the gathered chunks are referenced by nothing once joined.
      if (limit >= 0) return this.whole(id, parts.length ? join(parts.splice(0), n) : EMPTY, host);
      if (this.live.delete(id)) this.body(id, EMPTY, true);
    } catch (e) {
      if (ac.signal.aborted) return this.live.delete(id);
      this.failed(id, 'network', `the response stream broke: ${describe(e)}`);
    }
  }
}
