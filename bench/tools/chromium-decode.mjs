// What decoding a small request body costs in Chromium, in isolation: the exact body our
// client sends for the benchmark's echo call (captured from the bench server) decoded by
// one `TextDecoder` as wasm-bindgen's glue does it (a view of a `WebAssembly.Memory`), and
// the same bytes in a buffer of their own, by `String.fromCharCode` and by a loop. A CPU
// profile of concurrent calls (chromium-cpuprofile.mjs) put `decode` at 8-15 µs a call
// (BENCHMARKS.md, the forty-first and forty-second sessions); this says what one decode of
// that body costs, so that a profile's share can be checked against it.
//   node bench/tools/chromium-decode.mjs     N=200000 MEMORY_MIB=16
import * as B from '../browser.mjs';

const N = Number(process.env.N ?? 200_000);
const MEMORY_MIB = Number(process.env.MEMORY_MIB ?? 16);

const { child: server, url: base } = await B.startServer();
let browser;
try {
  const template = await B.captureTemplate(base);
  const body = typeof template.body === 'string' ? template.body : JSON.stringify(template.body);
  browser = await B.launch({ playwright: true });
  const page = await browser.newPage();
  await page.goto(`${base}/static/bench/pages/blank.html`);
  const out = await page.evaluate(
    ({ body, n, mib }) => {
      const bytes = new TextEncoder().encode(body);
      const memory = new WebAssembly.Memory({ initial: (mib << 20) >> 16 });
      const heap = new Uint8Array(memory.buffer);
      const ptr = heap.length >> 1;
      heap.set(bytes, ptr);
      const own = bytes.slice();
      const td = new TextDecoder('utf-8', { ignoreBOM: true });
      const len = bytes.length;
      let sink = 0;
      const rows = [];
      const time = (name, f) => {
        for (let i = 0; i < n / 10; i++) sink += f().length;
        const t0 = performance.now();
        for (let i = 0; i < n; i++) sink += f().length;
        rows.push([name, ((performance.now() - t0) * 1000) / n]);
      };
      // Twice each, in turn, so that a tier-up or a collection shows as a difference.
      for (let round = 0; round < 2; round++) {
        time('TextDecoder, a view of wasm memory (the glue)', () => td.decode(heap.subarray(ptr, ptr + len)));
        time('TextDecoder, a buffer of its own', () => td.decode(own));
        time('String.fromCharCode.apply, a view of wasm memory', () => String.fromCharCode.apply(null, heap.subarray(ptr, ptr + len)));
        time('a loop of String.fromCharCode', () => {
          let s = '';
          for (let i = ptr; i < ptr + len; i++) s += String.fromCharCode(heap[i]);
          return s;
        });
      }
      return { len, rows, sink };
    },
    { body, n: N, mib: MEMORY_MIB },
  );
  console.log(`Chromium ${browser.version()}: a request body of ${out.len} bytes (the echo call), ${N} decodes a row, µs each`);
  for (const [name, us] of out.rows) console.log(`  ${us.toFixed(3).padStart(7)}  ${name}`);
} finally {
  await browser?.close();
  server.kill();
}
