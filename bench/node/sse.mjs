// SSE parsing throughput in Node (the same benchmark as the Chromium page): our parser
// in wasm (bench package, bench/out/pkg-bench) vs npm eventsource-parser. One JSON line.
//   node bench/node/sse.mjs [MB] [chunkBytes] [reps] [small]
import { readFileSync } from 'node:fs';
import { createParser } from 'eventsource-parser';
import { initSync, __bench_sse, __bench_sse_reset } from '../out/pkg-bench/mcp_wasm_client.js';
import { sseBench } from '../lib/sse-bench.js';

initSync({ module: readFileSync(new URL('../out/pkg-bench/mcp_wasm_client_bg.wasm', import.meta.url)) });
const [mb = '50', chunk = '65536', reps = '3', small] = process.argv.slice(2);
const r = sseBench({ feed: __bench_sse, reset: __bench_sse_reset, createParser, bytes: Number(mb) * 1e6, chunk: Number(chunk), reps: Number(reps), small: small === 'small' });
console.log(JSON.stringify(r));
