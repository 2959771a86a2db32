// Per-call CPU in Chromium with the three clients interleaved in ONE page (issue 14 target
// 1): raw fetch, ours and the TS client share the page's main thread, and each block of
// calls is measured by that thread's task time (DevTools Performance.getMetrics
// `TaskDuration`, thread ticks) right before and after it. `bench/run.mjs` runs each client
// in a page of its own, one after the other, so a round's ratio mixes three moments of the
// machine; here every block's ratio (ours − raw) ÷ (TS − raw) is taken from three blocks run
// back to back, in a rotating order, and the median over the blocks is reported with its
// quartiles. Uses the bundles `bench/run.mjs` builds (built here too).
//   node bench/tools/chromium-interleaved.mjs      WARMUP=5000 BLOCKS=15 N=200 BATCH=50 MODES=json,sse
//   CROSS=1 ...   (the server's URL on another origin than the page's, `localhost` for
//     `127.0.0.1`: every client's calls are cross-origin, as most pages' calls to an MCP server)
//   OUT=/tmp/blocks.json ...   (every block's µs per call and client written there, for other analyses)
//   PKG_B=/tmp/pkg-base ...   (an A/B: our client built from that copy of pkg/ runs as a fourth
//     client, `ours-b`, and each block's ours − ours-b is reported: two builds in one page)
import { writeFileSync } from 'node:fs';
import * as B from '../browser.mjs';
import { describeRatio, interpolatedQuantile as quantile, ratioSummary } from '../lib/blocks.mjs';

const WARMUP = Number(process.env.WARMUP ?? 5000);
const BLOCKS = Number(process.env.BLOCKS ?? 15);
const N = Number(process.env.N ?? 200);
const BATCH = Number(process.env.BATCH ?? 50);
const MODES = (process.env.MODES ?? 'json,sse').split(',');
const PKG_B = process.env.PKG_B;
const CROSS = process.env.CROSS === '1';
// EXTRA=lean,lean-core,fetch: more clients in the same blocks, each reported as its own ratio:
// `lean` (bench/clients/lean.js: a probe of a leaner call path; the bench package is built first),
// `lean-core` (bench/clients/lean-core.js: the same shell over the real engine)
// and `fetch` (bench/lib/workload.js `fetchAsOurs`: fetch called as our runner calls it).
const EXTRA = (process.env.EXTRA ?? '').split(',').filter(Boolean);
const CLIENTS = (PKG_B ? ['raw', 'ours', 'ours-b', 'ts'] : ['raw', 'ours', 'ts']).concat(EXTRA);

// OUT=file.json: every block's µs per call and client, by mode and pattern, written there.
const OUT = process.env.OUT;
const blocksOut = {};

const { child: server, url: base } = await B.startServer();
const template = await B.captureTemplate(base);

await B.buildBrowserBundles();
if (PKG_B) await B.buildBundleB(PKG_B);
if (EXTRA.some((x) => x.startsWith('lean'))) B.buildBenchPkg();
const browser = await B.launch();
console.log(`Chromium ${browser.version()}${CROSS ? ', the server on another origin' : ''}, warm-up ${WARMUP} calls per client, ${BLOCKS} blocks of ${N} calls per client and pattern (concurrent: batches of ${BATCH})`);
try {
  for (const mode of MODES) {
    const byPattern = await B.interleavedPerCall(browser, base, { clients: CLIENTS, mode, warmup: WARMUP, blocks: BLOCKS, n: N, batch: BATCH, template, cross: CROSS });
    for (const pattern of ['seq', 'conc']) {
      const rounds = byPattern[pattern];
      blocksOut[`${mode} ${pattern}`] = rounds;
      const s = ratioSummary(rounds, 'ours');
      console.log(
        `${mode} ${pattern}: main-thread task µs per call, medians: raw ${s.us.raw.toFixed(0)}, ours ${s.us.ours.toFixed(0)}, TS ${s.us.ts.toFixed(0)}; ` +
          `(ours − raw) ÷ (TS − raw) ${describeRatio(s)}`,
      );
      for (const x of EXTRA) {
        const sx = ratioSummary(rounds, x);
        console.log(`${mode} ${pattern}: ${x} median ${sx.us[x].toFixed(0)} µs; (${x} − raw) ÷ (TS − raw) ${describeRatio(sx)}`);
      }
      if (PKG_B) {
        const d = rounds.map((r) => r.ours - r['ours-b']);
        const sb = ratioSummary(rounds, 'ours-b');
        console.log(
          `${mode} ${pattern}: ours-b (${PKG_B}) median ${sb.us['ours-b'].toFixed(0)} µs, ratio per block ${sb.median.toFixed(2)}; ` +
            `ours − ours-b per block: median ${quantile(d, 0.5).toFixed(1)} µs (quartiles ${quantile(d, 0.25).toFixed(1)} to ${quantile(d, 0.75).toFixed(1)})`,
        );
      }
    }
  }
  if (OUT) writeFileSync(OUT, JSON.stringify({ chromium: browser.version(), warmup: WARMUP, n: N, batch: BATCH, cross: CROSS, blocks: blocksOut }));
} finally {
  await browser.close();
  server.kill();
}
