// Peak memory of a large result in Chromium (issue 14 target 2: "peak memory growth ≤ the
// TS client's", Node and Chromium). `bench/run.mjs` measures the JS heap after the call in
// Chromium, which leaves out what a large body costs outside the heap while it is read and
// parsed (ArrayBuffers, the decoded string's backing store). Here: the peak resident memory
// of the page's renderer process during one large call, from Linux's own high-water mark
// (`VmHWM` in /proc/<pid>/status, reset to the current size by writing 5 to
// /proc/<pid>/clear_refs right before the call; Linux only, needs write access to the
// renderer's /proc files: the same user), minus its size before the call. Every renderer
// process is read (only this page's is busy), the clients in rotating order per round, each
// in a fresh context, the result kept alive after the call by every client alike.
//   node bench/tools/chromium-large-memory.mjs        ROUNDS=5 CLIENTS=raw,ours,ts
//   PROCESSES=all ...   (every process of the browser summed, not only the renderers)
//   PKG_B=/tmp/pkg-other CLIENTS=raw,ours,ours-b,ts ...   (our client built from that copy of
//     pkg/ as the client `ours-b`: two builds of ours side by side, as chromium-interleaved.mjs)
// The strict readers beside raw fetch (bench/clients/raw-*.js, BENCHMARKS.md, the twenty-
// first to twenty-third and twenty-fifth sessions): CLIENTS=raw,raw-strict,raw-pipe,raw-chunks,raw-tee,raw-blob,raw-transfer,raw-clone,raw-slices,ts
import * as B from '../browser.mjs';
import { median } from '../lib/workload.js';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const CLIENTS = (process.env.CLIENTS ?? 'raw,ours,ts').split(',');
const mib = (b) => (b / 2 ** 20).toFixed(1);

const { child: server, url: base } = await B.startServer();
await B.buildBrowserBundles();
if (process.env.PKG_B) await B.buildBundleB(process.env.PKG_B);
else if (CLIENTS.includes('ours-b')) throw new Error('the client ours-b needs PKG_B (a copy of pkg/ from another build)');
const browser = await B.launch();
const bcdp = await browser.newBrowserCDPSession();

const results = Object.fromEntries(CLIENTS.map((c) => [c, { peak: [], fromHead: [] }]));
console.log(`Chromium ${browser.version()}: peak ${process.env.PROCESSES === 'all' ? 'RSS growth of all its processes' : 'renderer RSS growth'} during one ~5 MB result (after one warm-up call), ${ROUNDS} rounds`);
try {
  for (let r = 0; r < ROUNDS; r++) {
    const order = CLIENTS.map((_, i) => CLIENTS[(i + r) % CLIENTS.length]);
    const line = [];
    for (const client of order) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await page.goto(`${base}/static/bench/pages/blank.html`);
      await page.evaluate(
        async ({ mod, url }) => {
          const m = await import(mod);
          window.__tHead = 0;
          const spy = (u, i) => fetch(u, i).then((res) => ((window.__tHead = performance.now()), res));
          window.__c = await m.open(url, { fetch: spy });
          await window.__c.call('echo', { text: 'warm' });
          await window.__c.call('large', {}); // warm-up, not kept
        },
        { mod: `${base}/static/bench/out/bundles/${client === 'ours-b' ? 'clients-b' : 'clients'}/${client}.js`, url: `${base}/json` },
      );
      await cdp.send('HeapProfiler.collectGarbage');
      await new Promise((ok) => setTimeout(ok, 300));
      const { result: t, peak } = await B.rendererPeakGrowth(bcdp, () => B.largeCall(page), { all: process.env.PROCESSES === 'all' });
      if (peak === null) throw new Error('the renderer\'s /proc files cannot be read or reset here (Linux, same user needed)');
      results[client].peak.push(peak);
      results[client].fromHead.push(t.fromHeadMs);
      line.push(`${client} +${mib(peak)} MiB, ${t.fromHeadMs.toFixed(1)} ms from head`);
      await context.close();
    }
    console.log(`round ${r + 1}: ${line.join('; ')}`);
  }
} finally {
  await browser.close();
  server.kill();
}
const med = (c, k) => median(results[c][k]);
for (const c of CLIENTS) {
  console.log(`${c.padEnd(4)}: peak RSS growth median +${mib(med(c, 'peak'))} MiB (${results[c].peak.map(mib).join(', ')}), from head median ${med(c, 'fromHead').toFixed(1)} ms`);
}
if (results.ours && results.ts) {
  console.log(`ours / TS: peak growth ${(med('ours', 'peak') / med('ts', 'peak')).toFixed(2)}×, from head ${(med('ours', 'fromHead') / med('ts', 'fromHead')).toFixed(2)}×`);
}
