// Our SSE parser from two bench packages, A/B in Node: one process per package in turn,
// ROUNDS of each, BYTES MB in 64 KiB chunks, three timed passes a process (the bench of
// bench/lib/sse-bench.js, which bench/run.sh's part 6 runs). Prints each mode's median
// MB/s per package, its range, and B over A.
//   PKG_A=/tmp/pkg-bench-before PKG_B=bench/out/pkg-bench node bench/tools/sse-ab.mjs
// A package is a copy of bench/out/pkg-bench (bench/build-bench-pkg.sh) of each build.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const role = process.argv[2];
if (role === 'one') {
  const [, , , dir, mb, mode] = process.argv;
  const { createParser } = await import('eventsource-parser');
  const { sseBench } = await import('../lib/sse-bench.js');
  const m = await import(`${dir}/mcp_wasm_client.js`);
  m.initSync({ module: readFileSync(`${dir}/mcp_wasm_client_bg.wasm`) });
  const r = sseBench({ feed: m.__bench_sse, reset: m.__bench_sse_reset, createParser, bytes: Number(mb) * 1e6, chunk: 65536, reps: 3, small: mode === 'small' });
  console.log(JSON.stringify(r.mbps.ours));
} else {
  const pkgs = { A: process.env.PKG_A, B: process.env.PKG_B || 'bench/out/pkg-bench' };
  if (!pkgs.A) throw new Error('PKG_A= a copy of another build\'s bench/out/pkg-bench');
  const rounds = Number(process.env.ROUNDS || 6);
  const mb = process.env.BYTES || '50';
  const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];
  for (const mode of ['mixed', 'small']) {
    const got = { A: [], B: [] };
    for (let i = 0; i < rounds; i++) {
      for (const k of ['A', 'B']) {
        const out = execFileSync(process.execPath, [new URL(import.meta.url).pathname, 'one', resolve(pkgs[k]), mb, mode], { encoding: 'utf8' });
        got[k].push(...JSON.parse(out));
      }
    }
    const f = (k) => `${median(got[k]).toFixed(0)} MB/s (${Math.min(...got[k]).toFixed(0)}–${Math.max(...got[k]).toFixed(0)})`;
    console.log(`${mode}: A ${f('A')}, B ${f('B')}, B/A ${(median(got.B) / median(got.A)).toFixed(3)} (${got.A.length} passes each)`);
  }
}
