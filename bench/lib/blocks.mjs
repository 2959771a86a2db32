// Figures of interleaved blocks (Node side, no browser): the per-call probes and
// `bench/run.sh` run the clients in one page, block after block in a rotating order
// (bench/browser.mjs `interleavedBlocks`), and judge each block's ratio
// (x − raw) ÷ (TS − raw). A block is a round in the issue's sense ("side by side in one
// run, ratios within a round"): its three clients run back to back, not minutes apart.

// (The fault suite's seeded generator, mulberry32: a rerun over the same blocks gives the
// same interval.)
import { random } from '../../tests/faults/mutants.mjs';

/** The `q` quantile of the numbers `xs` (any order), interpolated between the two nearest
 *  ranks. */
export function interpolatedQuantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  const i = (s.length - 1) * q;
  const lo = Math.floor(i);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (i - lo);
}

/** Bootstrap resamples of the blocks for `interval`. */
const RESAMPLES = 2000;

/** The 5th and 95th percentiles of `stat` over bootstrap resamples of `blocks` (drawn with
 *  replacement): how far the figure could move with other blocks of the same run. The
 *  blocks are taken as independent, which neighbouring blocks of one page are not quite,
 *  so the interval is a floor on the spread, not a bound. */
export function interval(blocks, stat) {
  const next = random(0x5eed);
  const out = [];
  for (let k = 0; k < RESAMPLES; k++) out.push(stat(blocks.map(() => blocks[Math.floor(next() * blocks.length)])));
  return [interpolatedQuantile(out, 0.05), interpolatedQuantile(out, 0.95)];
}

/** Client `c`'s median µs per call over `blocks`. */
const medianOf = (blocks, c) => interpolatedQuantile(blocks.map((r) => r[c]), 0.5);

/** The median over `blocks` of (x − raw) ÷ (TS − raw). */
export const medianRatio = (x) => (blocks) => interpolatedQuantile(blocks.map((r) => (r[x] - r.raw) / (r.ts - r.raw)), 0.5);

/** (x − raw) ÷ (TS − raw) of the blocks' medians. */
export const ofMedians = (x) => (blocks) =>
  (medianOf(blocks, x) - medianOf(blocks, 'raw')) / (medianOf(blocks, 'ts') - medianOf(blocks, 'raw'));

/** Client `x`'s figures over `blocks` (each `{ raw, ts, x, … }` in µs per call): the
 *  median µs of each, the median of the blocks' ratios with its quartiles, the ratio of
 *  the medians, and a bootstrap 90 % interval of both ratios. */
export function ratioSummary(blocks, x) {
  const ratios = blocks.map((r) => (r[x] - r.raw) / (r.ts - r.raw));
  return {
    blocks: blocks.length,
    us: { raw: medianOf(blocks, 'raw'), [x]: medianOf(blocks, x), ts: medianOf(blocks, 'ts') },
    median: interpolatedQuantile(ratios, 0.5),
    quartiles: [interpolatedQuantile(ratios, 0.25), interpolatedQuantile(ratios, 0.75)],
    ofMedians: ofMedians(x)(blocks),
    medianInterval: interval(blocks, medianRatio(x)),
    ofMediansInterval: interval(blocks, ofMedians(x)),
  };
}

const f2 = (v) => v.toFixed(2);

/** `ratioSummary`'s figures in one line. */
export function describeRatio(s) {
  return (
    `per block: median ${f2(s.median)} (quartiles ${f2(s.quartiles[0])}–${f2(s.quartiles[1])}; 90 % interval ${f2(s.medianInterval[0])}–${f2(s.medianInterval[1])}); ` +
    `of the medians ${f2(s.ofMedians)} (90 % interval ${f2(s.ofMediansInterval[0])}–${f2(s.ofMediansInterval[1])})`
  );
}
