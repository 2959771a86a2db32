// SSE parsing throughput, in one page (or one Node process): our Rust parser inside wasm
// (through the `bench` package's __bench_sse hook) against npm eventsource-parser.
// `feed`/`reset` are the hook's exports, `createParser` eventsource-parser's.
import { makeStream } from './sse-stream.js';

export function sseBench({ feed, reset, createParser, bytes, chunk, reps, small = false }) {
  const stream = makeStream(bytes, small);
  const chunks = [];
  for (let off = 0; off < stream.length; off += chunk) chunks.push(stream.subarray(off, off + chunk));
  // Pre-decoded text chunks, for eventsource-parser's parse-only figure.
  const dec0 = new TextDecoder();
  const texts = chunks.map((c) => dec0.decode(c, { stream: true }));

  const runs = { ours: [], espDecode: [], espParseOnly: [] };
  const events = {};
  // One extra first round warms the JITs and is dropped.
  for (let r = -1; r < reps; r++) {
    {
      reset();
      let ev = 0;
      const t0 = performance.now();
      for (const c of chunks) {
        const n = feed(c);
        if (n === 0xffffffff) throw new Error('our parser refused the stream');
        ev += n;
      }
      if (r >= 0) runs.ours.push(performance.now() - t0);
      events.ours = ev;
    }
    {
      let ev = 0;
      const p = createParser({ onEvent: () => ev++ });
      const dec = new TextDecoder();
      const t0 = performance.now();
      for (const c of chunks) p.feed(dec.decode(c, { stream: true }));
      if (r >= 0) runs.espDecode.push(performance.now() - t0);
      events.espDecode = ev;
    }
    {
      let ev = 0;
      const p = createParser({ onEvent: () => ev++ });
      const t0 = performance.now();
      for (const t of texts) p.feed(t);
      if (r >= 0) runs.espParseOnly.push(performance.now() - t0);
      events.espParseOnly = ev;
    }
  }
  const mbps = (ms) => stream.length / 1e6 / (ms / 1000);
  return {
    bytes: stream.length,
    small,
    chunk,
    events,
    mbps: Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, v.map(mbps)])),
    ms: runs,
  };
}
