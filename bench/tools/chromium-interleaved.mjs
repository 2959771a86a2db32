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

const quantile = B.interpolatedQuantile;

/** Bootstrap resamples of the blocks for the intervals below (a fixed seed: a rerun of the
 *  same blocks gives the same interval). */
const RESAMPLES = 2000;
/** A small seeded generator (mulberry32), for the bootstrap's resampling. */
function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
/** The 5th and 95th percentiles of `stat` over bootstrap resamples of `rounds` (the blocks,
 *  drawn with replacement): how far the figure could move with other blocks of the same
 *  run. The blocks are taken as independent, which neighbouring blocks of one page are not
 *  quite, so the interval is a floor on the spread, not a bound. */
function interval(rounds, stat) {
  const next = seeded(0x5eed);
  const out = [];
  for (let k = 0; k < RESAMPLES; k++) {
    const sample = rounds.map(() => rounds[Math.floor(next() * rounds.length)]);
    out.push(stat(sample));
  }
  out.sort((a, b) => a - b);
  return `${quantile(out, 0.05).toFixed(2)}–${quantile(out, 0.95).toFixed(2)}`;
}
/** (x − raw) ÷ (TS − raw) of the blocks' medians. */
const ofMedians = (x) => (rounds) => {
  const m = (c) => quantile(rounds.map((r) => r[c]), 0.5);
  return (m(x) - m('raw')) / (m('ts') - m('raw'));
};
/** The median over the blocks of (x − raw) ÷ (TS − raw). */
const medianRatio = (x) => (rounds) => quantile(rounds.map((r) => (r[x] - r.raw) / (r.ts - r.raw)), 0.5);
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
    const { context, page, task } = await B.measuredPage(browser, base);
    await page.evaluate(
      async ({ clients, base, url, template, warmup }) => {
        const w = await import('/static/bench/lib/workload.js');
        window.__w = w;
        window.__c = {};
        for (const name of clients) {
          const c =
            name === 'fetch'
              ? w.fetchAsOurs(url)
              : await (
                  await import(
                    name.startsWith('lean')
                      ? `${base}/static/bench/clients/${name}.js`
                      : `${base}/static/bench/out/bundles/${name === 'ours-b' ? 'clients-b' : 'clients'}/${name}.js`
                  )
                ).open(url, { template });
          const first = await c.call('echo', w.ARGS);
          if (first?.content?.[0]?.text !== JSON.stringify(w.ARGS)) throw new Error(`${name}: wrong echo result ${JSON.stringify(first)}`);
          window.__c[name] = c;
        }
        // Warm-up interleaved too, in blocks of 100, so no client is warmed long before the others.
        for (let i = 0; i < warmup; i += 100) for (const name of clients) await w.warmup(window.__c[name], Math.min(100, warmup - i));
      },
      { clients: CLIENTS, base, url: `${CROSS ? base.replace('//127.0.0.1', '//localhost') : base}/${mode}`, template, warmup: WARMUP },
    );
    for (const pattern of ['seq', 'conc']) {
      const rounds = await B.interleavedBlocks(CLIENTS, BLOCKS, N, task, B.pageCalls(page, pattern, N, BATCH));
      const us = Object.fromEntries(CLIENTS.map((c) => [c, rounds.map((r) => r[c])]));
      const ratios = rounds.map((r) => (r.ours - r.raw) / (r.ts - r.raw));
      const med = (name) => quantile(us[name], 0.5);
      console.log(
        `${mode} ${pattern}: main-thread task µs per call, medians: raw ${med('raw').toFixed(0)}, ours ${med('ours').toFixed(0)}, TS ${med('ts').toFixed(0)}; ` +
          `(ours − raw) ÷ (TS − raw) per block: median ${quantile(ratios, 0.5).toFixed(2)} (quartiles ${quantile(ratios, 0.25).toFixed(2)}–${quantile(ratios, 0.75).toFixed(2)}); ` +
          `of the medians ${((med('ours') - med('raw')) / (med('ts') - med('raw'))).toFixed(2)}; ` +
          `bootstrap 90 % intervals: median ${interval(rounds, medianRatio('ours'))}, of the medians ${interval(rounds, ofMedians('ours'))}`,
      );
      blocksOut[`${mode} ${pattern}`] = rounds;
      for (const x of EXTRA) {
        const rx = rounds.map((r) => (r[x] - r.raw) / (r.ts - r.raw));
        console.log(
          `${mode} ${pattern}: ${x} median ${med(x).toFixed(0)} µs; (${x} − raw) ÷ (TS − raw) per block: median ${quantile(rx, 0.5).toFixed(2)} ` +
            `(quartiles ${quantile(rx, 0.25).toFixed(2)}–${quantile(rx, 0.75).toFixed(2)}); of the medians ${((med(x) - med('raw')) / (med('ts') - med('raw'))).toFixed(2)}; ` +
            `bootstrap 90 % intervals: median ${interval(rounds, medianRatio(x))}, of the medians ${interval(rounds, ofMedians(x))}`,
        );
      }
      if (PKG_B) {
        const d = rounds.map((r) => r.ours - r['ours-b']);
        const rb = rounds.map((r) => (r['ours-b'] - r.raw) / (r.ts - r.raw));
        console.log(
          `${mode} ${pattern}: ours-b (${PKG_B}) median ${med('ours-b').toFixed(0)} µs, ratio per block ${quantile(rb, 0.5).toFixed(2)}; ` +
            `ours − ours-b per block: median ${quantile(d, 0.5).toFixed(1)} µs (quartiles ${quantile(d, 0.25).toFixed(1)} to ${quantile(d, 0.75).toFixed(1)})`,
        );
      }
    }
    await context.close();
  }
  if (OUT) writeFileSync(OUT, JSON.stringify({ chromium: browser.version(), warmup: WARMUP, n: N, batch: BATCH, cross: CROSS, blocks: blocksOut }));
} finally {
  await browser.close();
  server.kill();
}
