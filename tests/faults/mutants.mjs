// Seeded random answers for the `envelopes` scenario (tests/faults/mcp.mjs): mutations of
// well-formed JSON-RPC responses, as bytes, in which `$ID` stands for the request's id. The
// fault suite's case and the longer run of fuzz/js/envelopes.mjs both send them three ways
// (the direct path, whose runner reads the usual forms itself, the shell's general path and
// the engine's) and require the same outcome of each. Runs in Node and in browsers.

const SEEDS = [
  '{"jsonrpc":"2.0","id":$ID,"result":{"resultType":"complete","content":[{"type":"text","text":"a"}]}}',
  '{"result":{"resultType":"complete","content":[{"type":"text","text":"b"}]},"jsonrpc":"2.0","id":$ID}',
  '{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"c"}],"structuredContent":{"n":1}}}',
  '{"jsonrpc":"2.0","id":$ID,"result":{"resultType":"complete","content":[],"_meta":{"k":[1,2.5,-3e2,true,null]}}}',
  '{"result":{"content":[{"type":"text","text":"caf\\u00e9 \\u003c"}]},"jsonrpc":"2.0","id":$ID}',
  '{"jsonrpc":"2.0","id":$ID,"error":{"code":-32000,"message":"no"}}',
];

/** Pieces inserted by the mutations: JSON's tokens, the envelope's names, escapes. */
const TOKENS = [
  '"resultType"', '"complete"', '"input_required"', '"task"', '"result"', '"jsonrpc"', '"2.0"', '"id"', '"error"',
  '"method"', '$ID', '{', '}', '[', ']', ',', ':', '"', ' ', '\n', '\t', '\\', '\\u0054', '\\u0072', '\\u003c',
  '\\ud800', '\\"', 'null', 'true', '0', '1', '-', '.', 'e5', '"content"', '"text"', ',"result":{}', ',"id":$ID',
  ',"jsonrpc":"2.0"', '\ufeff', 'é', '😀',
];

const UTF8 = new TextEncoder();

/** A seeded generator of numbers in [0, 1) (mulberry32). */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One mutant: a seed with one mutation (most often) to four (half of the mutants have
 *  theirs in the result, where the runner's reader looks beyond the envelope), as bytes. */
export function mutant(r) {
  const pick = (n) => Math.floor(r() * n);
  const seed = SEEDS[pick(SEEDS.length)];
  const b = Array.from(UTF8.encode(seed));
  const start = r() < 0.5 ? Math.max(0, seed.indexOf('"result":') + 9) : 0;
  const at = () => start + pick(b.length + 1 - start);
  const x = r();
  for (let i = x < 0.6 ? 1 : x < 0.85 ? 2 : 3 + pick(2); i > 0; i--) {
    const k = at();
    switch (pick(5)) {
      case 0:
        b.splice(k, 1 + pick(3));
        break;
      case 1:
        b.splice(k, 0, ...UTF8.encode(TOKENS[pick(TOKENS.length)]));
        break;
      case 2:
        b.splice(k, 1, pick(256));
        break;
      case 3: {
        const from = at();
        b.splice(k, 0, ...b.slice(from, from + 1 + pick(12)));
        break;
      }
      default:
        b.splice(k, pick(3), ...UTF8.encode(TOKENS[pick(TOKENS.length)]));
    }
  }
  // `$ID` stands for the id only where an id is written (`"id":$ID`); anywhere else (a
  // mutation moved it) it is `7`, so that no outcome depends on which call it answered.
  const text = String.fromCharCode(...b).replace(/(?<!"id":)\$ID/g, '7');
  return Uint8Array.from(text, (ch) => ch.charCodeAt(0));
}

/** Bytes as base64 (the `raw` argument of the `hit` tool). */
export function base64(bytes) {
  let s = '';
  for (const x of bytes) s += String.fromCharCode(x);
  return btoa(s);
}

/** What a call settled with: its value, or its error's class, code and message (with the
 *  numbers in it, such as the call's request id, written as `#`). */
export async function outcome(promise) {
  try {
    return { value: await promise };
  } catch (e) {
    return { error: [e?.name, e?.code ?? null, String(e?.message).replace(/\d+/g, '#')] };
  }
}

/** Calls `hit` with `args` on client `c` three ways: without options (the direct path),
 *  with a signal (the shell's general path, the engine's short path) and with a progress
 *  callback (the engine's general path). */
export async function threeWays(c, args) {
  const direct = await outcome(c.callTool('hit', args));
  const shell = await outcome(c.callTool('hit', args, { signal: new AbortController().signal }));
  const general = await outcome(c.callTool('hit', args, { onProgress: () => {} }));
  return { direct, shell, general };
}

/** Outcomes `a` and `b` as text to compare, with every number written as `#`: a mutant may
 *  carry `$ID`, the request's id, anywhere, and each call has its own. */
export function comparable(o) {
  return JSON.stringify(o).replace(/\d+/g, '#');
}
