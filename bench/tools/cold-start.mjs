// Chromium cold start, ours and the TS client interleaved (import, then the first listTools),
// each run in a fresh browser context; per-round ratios and medians. Builds the bundles
// as `bench/run.mjs` does. For a before/after, copy the old bundle first
// (`mkdir -p bench/out/bundles/before && cp bench/out/bundles/clients/{ours.js,mcp_wasm_client_bg.wasm}
// bench/out/bundles/before/`, before the new build) and add it: CLIENTS=ours,before,ts.
// TIMELINE=1 also prints each run's requests (method, ms from the import's start to the
// request and to its response head; the timing wrapper costs a little). PERF=1: the DevTools
// Performance domain on, WARM=1: each run followed by a warm one in its context, as the
// start-up runs of bench/run.sh (bench/browser.mjs) do.
//   node bench/tools/cold-start.mjs   (RUNS=12 CLIENTS=ours,ts)
import * as B from '../browser.mjs';
const { child, url: base } = await B.startServer();
await B.buildBrowserBundles();
const browser = await B.launch();
const runs = Number(process.env.RUNS || 12);
const clients = (process.env.CLIENTS || 'ours,ts').split(',');
const out = Object.fromEntries(clients.map((c) => [c, []]));
async function one(client) {
  const mod = client === 'before' ? `${base}/static/bench/out/bundles/before/ours.js` : `${base}/static/bench/out/bundles/clients/${client}.js`;
  const context = await browser.newContext();
  const page = await context.newPage();
  if (process.env.PERF) {
    // As bench/browser.mjs's start-up runs (bench/run.sh) do: the DevTools Performance domain on.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
  }
  await page.goto(`${base}/static/bench/pages/blank.html`);
  const r = await page.evaluate(async ({ mod, url, timeline }) => {
    const t0 = performance.now();
    const seen = [];
    const original = globalThis.fetch;
    if (timeline) {
      // Each request the client sends: its JSON-RPC method, when it left and when its head came.
      globalThis.fetch = async (u, init) => {
        const start = performance.now() - t0;
        // Our client hands the platform's fetch its body as bytes, the TS client as a string.
        const text = init?.body instanceof Uint8Array ? new TextDecoder().decode(init.body) : init?.body;
        const what = typeof text === 'string' ? (/"method":"([^"]+)"/.exec(text) || [])[1] : String(u).split('/').pop();
        const res = await original(u, init);
        seen.push(`${what} ${start.toFixed(1)}→${(performance.now() - t0).toFixed(1)}`);
        return res;
      };
    }
    const m = await import(mod);
    const t1 = performance.now();
    const c = await m.open(url);
    const { tools } = await c.listTools();
    if (!tools.length) throw new Error('no tools');
    const t2 = performance.now();
    globalThis.fetch = original;
    return { importMs: t1 - t0, firstMs: t2 - t1, totalMs: t2 - t0, seen };
  }, { mod, url: `${base}/json`, timeline: !!process.env.TIMELINE });
  if (process.env.TIMELINE) console.log(`  ${client}: import ${r.importMs.toFixed(1)} ms, result ${r.totalMs.toFixed(1)} ms; fetches ${r.seen.join(' | ')}`);
  if (process.env.WARM) {
    // As bench/browser.mjs's start-up runs: the page closed, 1.5 s, the same client again in
    // a new page of the same context (warm caches; not measured here).
    await page.close();
    await new Promise((ok) => setTimeout(ok, 1500));
    const again = await context.newPage();
    await again.goto(`${base}/static/bench/pages/blank.html`);
    await again.evaluate(async ({ mod, url }) => { const m = await import(mod); await (await m.open(url)).listTools(); },
      { mod, url: `${base}/json` });
  }
  await context.close();
  return r;
}
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
for (let k = 0; k < runs; k++) {
  const order = clients.map((_, i) => clients[(i + k) % clients.length]);
  const row = {};
  for (const c of order) { row[c] = await one(c); out[c].push(row[c]); }
  console.log(`run ${k}: ` + clients.map((c) => `${c} ${row[c].importMs.toFixed(1)}+${row[c].firstMs.toFixed(1)}=${row[c].totalMs.toFixed(1)} ms`).join(', ')
    + (row.ours && row.ts ? `  ratio ${(row.ours.totalMs / row.ts.totalMs).toFixed(2)}` : '')
    + (row.before && row.ts ? ` (before ${(row.before.totalMs / row.ts.totalMs).toFixed(2)})` : ''));
}
for (const c of clients) console.log(`${c}: median import ${med(out[c].map((r) => r.importMs)).toFixed(1)} ms, first call ${med(out[c].map((r) => r.firstMs)).toFixed(1)} ms, total ${med(out[c].map((r) => r.totalMs)).toFixed(1)} ms`);
for (const c of ['ours', 'before'].filter((c) => out[c] && out.ts)) console.log(`${c} / TS: ratio of medians ${(med(out[c].map((r) => r.totalMs)) / med(out.ts.map((r) => r.totalMs))).toFixed(2)}, median of per-run ratios ${med(out[c].map((r, i) => r.totalMs / out.ts[i].totalMs)).toFixed(2)}`);
await browser.close(); child.kill();
