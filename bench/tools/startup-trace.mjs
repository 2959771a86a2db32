// Chromium cold start with a trace: where the page's main thread spends the time from the
// import of a client's bundle to its first listTools result (wasm lazy compilation, the
// streaming compile, script), BENCHMARKS.md "Where the cold start goes". A probe, not a
// benchmark: tracing slows the runs. Uses the bundles `bench/run.sh` built.
//   node bench/tools/startup-trace.mjs          CLIENTS=ours,ts RUNS=3 (defaults)
import * as B from '../browser.mjs';
const { child, url: base } = await B.startServer();
const browser = await B.launch({ playwright: true }); // its tracing API
const cats = ['v8.wasm', 'disabled-by-default-v8.wasm.detailed', 'v8', 'devtools.timeline', 'v8.execute', 'blink', 'loading', 'disabled-by-default-devtools.timeline'];
for (const client of (process.env.CLIENTS || 'ours,ts').split(',')) {
  for (let k = 0; k < Number(process.env.RUNS || 3); k++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/static/bench/pages/blank.html`);
    await browser.startTracing(page, { categories: cats });
    const r = await page.evaluate(async ({ mod, url }) => {
      const t0 = performance.now();
      const m = await import(mod);
      const t1 = performance.now();
      const c = await m.open(url);
      const { tools } = await c.listTools();
      const t3 = performance.now();
      return { importMs: t1 - t0, firstMs: t3 - t1, totalMs: t3 - t0 };
    }, { mod: `${base}/static/bench/out/bundles/clients/${client}.js`, url: `${base}/json` });
    const buf = await browser.stopTracing();
    const ev = JSON.parse(buf.toString()).traceEvents;
    // the renderer main thread: the thread of the most v8.execute / FunctionCall events
    const byName = {};
    const tids = {};
    for (const e of ev) if (e.ph === 'X' && e.name === 'RunTask') tids[`${e.pid}:${e.tid}`] = (tids[`${e.pid}:${e.tid}`] || 0) + e.dur;
    const main = Object.entries(tids).sort((a, b) => b[1] - a[1])[0][0];
    for (const e of ev) {
      if (e.ph !== 'X' || !e.dur) continue;
      const key = `${e.pid}:${e.tid}` === main ? 'main' : 'other';
      const n = `${key} ${e.name}`;
      (byName[n] ??= { dur: 0, n: 0 }).dur += e.dur / 1000;
      byName[n].n++;
    }
    const top = Object.entries(byName).filter(([n]) => /wasm|Wasm|Compile|compile|RunTask|FunctionCall|EvaluateScript|v8.run|V8.Execute|ParseHTML|ResourceLoad|Microtask/i.test(n)).sort((a, b) => b[1].dur - a[1].dur).slice(0, 18);
    console.log(`${client} run ${k}: import ${r.importMs.toFixed(1)} ms, first call ${r.firstMs.toFixed(1)} ms, total ${r.totalMs.toFixed(1)} ms`);
    for (const [n, v] of top) console.log(`   ${v.dur.toFixed(1).padStart(8)} ms ${String(v.n).padStart(5)}× ${n}`);
    await context.close();
  }
}
await browser.close(); child.kill();
