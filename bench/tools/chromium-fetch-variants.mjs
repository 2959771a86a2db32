// How our fetch runner's way of calling `fetch` costs in Chromium, one difference at a time
// (issue 14 target 1; the seventeenth session measured the same in Node: nothing measurable).
// Our runner (src/web/js/fetch.js `run`) calls fetch differently from the raw loop: header
// pairs instead of an object, the body as bytes, a fresh AbortController's signal per
// request, `arrayBuffer()` instead of `text()` (the bytes go to the wasm), and it reads a few
// response headers and `res.type`. Every variant below is the raw loop's POST of our echo
// request with one of those changes; `all` has them all. They run in ONE page, in blocks
// back to back in a rotating order, each block timed by the main thread's task time
// (DevTools Performance.getMetrics `TaskDuration`, thread ticks), and each variant is reported
// as its difference to `raw` within the block: median and quartiles over the blocks. A probe,
// not a test.
//   node bench/tools/chromium-fetch-variants.mjs   WARMUP=2000 BLOCKS=15 N=200 BATCH=50 PATTERNS=seq,conc
import * as B from '../browser.mjs';

const WARMUP = Number(process.env.WARMUP ?? 2000);
const BLOCKS = Number(process.env.BLOCKS ?? 15);
const N = Number(process.env.N ?? 200);
const BATCH = Number(process.env.BATCH ?? 50);
const PATTERNS = (process.env.PATTERNS ?? 'seq,conc').split(',');
const VARIANTS = (process.env.VARIANTS ?? 'raw,pairs,bytes,signal,abuf,heads,all').split(',');

const quantile = B.interpolatedQuantile;

const { child: server, url: base } = await B.startServer();
const template = await B.captureTemplate(base);
const browser = await B.launch();
console.log(`Chromium ${browser.version()}, warm-up ${WARMUP} calls per variant, ${BLOCKS} blocks of ${N} calls per variant and pattern (concurrent: batches of ${BATCH})`);
try {
  const { context, page, task } = await B.measuredPage(browser, base);
  await page.evaluate(
    async ({ url, template, variants, warmup }) => {
      const names = ['content-type', 'accept', 'mcp-protocol-version', 'mcp-method', 'mcp-name'];
      const object = {};
      const pairs = [];
      for (const h of names) {
        if (template.headers[h]) {
          object[h] = template.headers[h];
          pairs.push([h, template.headers[h]]);
        }
      }
      const m = /^(\{"jsonrpc":"2\.0","id":)\d+(,.*)$/s.exec(template.body);
      if (!m) throw new Error('unexpected template body');
      let nextId = 1;
      const text = () => `${m[1]}${nextId++}${m[2]}`;
      const enc = new TextEncoder();
      const dec = new TextDecoder('utf-8', { fatal: true });
      const byText = async (res) => JSON.parse(await res.text()).result;
      const byBytes = async (res) => JSON.parse(dec.decode(new Uint8Array(await res.arrayBuffer()))).result;
      const heads = (res) => {
        const h = res.headers;
        // What the runner reads of every answer besides its body.
        return [res.status, h.get('content-type'), h.get('mcp-session-id'), h.get('retry-after'), h.get('content-length'), h.get('content-encoding'), res.type];
      };
      const all = {
        raw: async () => byText(await fetch(url, { method: 'POST', headers: object, body: text() })),
        pairs: async () => byText(await fetch(url, { method: 'POST', headers: pairs, body: text() })),
        bytes: async () => byText(await fetch(url, { method: 'POST', headers: object, body: enc.encode(text()) })),
        signal: async () => byText(await fetch(url, { method: 'POST', headers: object, body: text(), signal: new AbortController().signal })),
        abuf: async () => byBytes(await fetch(url, { method: 'POST', headers: object, body: text() })),
        heads: async () => {
          const res = await fetch(url, { method: 'POST', headers: object, body: text() });
          heads(res);
          return byText(res);
        },
        all: async () => {
          const res = await fetch(url, { method: 'POST', headers: pairs, body: enc.encode(text()), signal: new AbortController().signal });
          heads(res);
          return byBytes(res);
        },
      };
      const want = JSON.stringify({ text: 'hello from the benchmark' });
      for (const v of variants) {
        const r = await all[v]();
        if (r?.content?.[0]?.text !== want) throw new Error(`${v}: wrong echo result ${JSON.stringify(r)}`);
      }
      window.__v = all;
      window.__seq = async (v, n) => {
        for (let i = 0; i < n; i++) await all[v]();
      };
      window.__conc = async (v, n, batch) => {
        for (let i = 0; i < n; i += batch) await Promise.all(Array.from({ length: Math.min(batch, n - i) }, () => all[v]()));
      };
      for (let i = 0; i < warmup; i += 100) for (const v of variants) await window.__seq(v, Math.min(100, warmup - i));
    },
    { url: `${base}/json`, template, variants: VARIANTS, warmup: WARMUP },
  );
  for (const pattern of PATTERNS) {
    const rounds = await B.interleavedBlocks(VARIANTS, BLOCKS, N, task, (v) =>
      page.evaluate(
        ({ v, pattern, n, batch }) => (pattern === 'seq' ? window.__seq(v, n) : window.__conc(v, n, batch)),
        { v, pattern, n: N, batch: BATCH },
      ),
    );
    const rawMed = quantile(rounds.map((r) => r.raw), 0.5);
    console.log(`${pattern}: raw ${rawMed.toFixed(0)} µs per call of main-thread task time (median; quartiles ${quantile(rounds.map((r) => r.raw), 0.25).toFixed(0)}–${quantile(rounds.map((r) => r.raw), 0.75).toFixed(0)})`);
    for (const v of VARIANTS) {
      if (v === 'raw') continue;
      const d = rounds.map((r) => r[v] - r.raw);
      console.log(`  ${v.padEnd(6)} − raw, per block: median ${quantile(d, 0.5).toFixed(0).padStart(5)} µs (quartiles ${quantile(d, 0.25).toFixed(0)} to ${quantile(d, 0.75).toFixed(0)})`);
    }
  }
  await context.close();
} finally {
  await browser.close();
  server.kill();
}
