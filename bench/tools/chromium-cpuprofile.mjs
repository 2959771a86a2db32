// A CPU profile of the page's main thread in Chromium while one client runs sequential calls
// in steady state (after WARMUP calls), one .cpuprofile per client, written to bench/out/ and
// summarised by bench/tools/cpuprof-summary.mjs. A probe for where a call's main-thread time
// goes (issue 14 target 1); sampling slows the calls, so the figures are shares, not costs.
//   node bench/tools/chromium-cpuprofile.mjs     CLIENTS=raw,ours,ts WARMUP=3000 N=2000 MODE=json
//   BATCH=50 ...   (concurrent calls in batches of 50 instead of sequential ones)
//   RUN=2 ...   (the files named with `-run2`, so that repeated runs are all kept)
//   CLIENTS=lean,ours ...   (`lean`, bench/clients/lean.js: the probe of a lean call path, its
//     module unbundled as chromium-interleaved.mjs loads it; the bench package is built first)
// The window `bench/run.sh` measures for its concurrent calls at 200 warm-up calls is
// `WARMUP=1200 N=1000 BATCH=50` (warm-up here ends with 50 concurrent calls too).
import { writeFileSync } from 'node:fs';
import * as B from '../browser.mjs';
const WARMUP = Number(process.env.WARMUP ?? 3000);
const N = Number(process.env.N ?? 2000);
const MODE = process.env.MODE ?? 'json';
const BATCH = Number(process.env.BATCH ?? 0);
const CLIENTS = (process.env.CLIENTS ?? 'raw,ours,ts').split(',');
const { child: server, url: base } = await B.startServer();
const template = await B.captureTemplate(base);
await B.buildBrowserBundles();
if (CLIENTS.some((x) => x.startsWith('lean'))) B.buildBenchPkg();
const browser = await B.launch();
try {
  for (const name of CLIENTS) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await page.goto(`${base}/static/bench/pages/blank.html`);
    await page.evaluate(async ({ module, url, template, warmup }) => {
      const w = await import('/static/bench/lib/workload.js');
      const m = await import(module);
      window.__w = w;
      window.__c = await m.open(url, { template });
      await w.warmup(window.__c, warmup);
    }, { module: B.clientModuleUrl(base, name), url: `${base}/${MODE}`, template, warmup: WARMUP });
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
    await page.evaluate(async ({ n, batch }) => {
      if (batch > 0) await window.__w.concurrent(window.__c, n, batch);
      else await window.__w.sequential(window.__c, n);
    }, { n: N, batch: BATCH });
    const { profile } = await cdp.send('Profiler.stop');
    const file = `bench/out/chromium-${name}-${MODE}${BATCH > 0 ? `-batch${BATCH}` : ''}${process.env.RUN ? `-run${process.env.RUN}` : ''}.cpuprofile`;
    writeFileSync(file, JSON.stringify(profile));
    console.log(`${name}: ${file}`);
    await context.close();
  }
} finally {
  await browser.close();
  server.kill();
}
