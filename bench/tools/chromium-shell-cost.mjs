// What our client adds to a `fetch` used as ours uses it, in Chromium, with no network: the
// page's global `fetch` is replaced by a stand-in that answers each tools/call at once with a
// real `Response` (bench/tools/shell-cost.mjs's `warm` setting, in a page). Two clients in ONE
// page, in blocks back to back in a rotating order, each block timed by the main thread's
// task time (DevTools `TaskDuration`):
// - `fetch`: a loop that calls the stand-in exactly as our fetch runner calls fetch (header
//   pairs, the body as bytes, a fresh AbortController's signal, five response headers read,
//   `arrayBuffer()`, TextDecoder, JSON.parse);
// - `ours`: `McpClient.callTool` from the bench bundle (bench/out/bundles/clients/ours.js);
// - `ts` (with CLIENTS=fetch,ours,ts): the TS client's callTool, the same way.
// Each block's ours − fetch is the time our client's JS and wasm take per call when its code
// stays in the caches (nothing else runs between calls). Set beside what ours adds over raw
// fetch on loopback (bench/tools/chromium-interleaved.mjs), it tells how much of that is our
// code's own work and how much the caches' (BENCHMARKS.md, the twenty-second session).
// A probe, not a test:
//   node bench/tools/chromium-shell-cost.mjs     WARMUP=5000 BLOCKS=15 N=1000 BATCH=50
//   PKG_B=/tmp/pkg-before ...   (another build of ours as a third client, `ours-b`)
//   PROFILE=bench/out/shell.cpuprofile ...   (a CPU profile of ours instead of the blocks)
//   POLLUTE=8 ...   (cold caches: 8 MiB walked before each answer, as shell-cost.mjs `cold`)
import * as B from '../browser.mjs';

const WARMUP = Number(process.env.WARMUP ?? 5000);
const BLOCKS = Number(process.env.BLOCKS ?? 15);
const N = Number(process.env.N ?? 1000);
const BATCH = Number(process.env.BATCH ?? 50);
const PKG_B = process.env.PKG_B;
const POLLUTE = Number(process.env.POLLUTE ?? 0);
// CLIENTS=fetch,ours,ts: the TS client too (it connects to the bench server before the
// stand-in replaces `fetch`: its server/discover goes there; its calls go to the stand-in).
const CLIENTS = (process.env.CLIENTS ?? 'fetch,ours').split(',').concat(PKG_B ? ['ours-b'] : []);
const quantile = B.interpolatedQuantile;

const { child: server, url: base } = await B.startServer();
await B.buildBrowserBundles();
if (PKG_B) await B.buildBundleB(PKG_B);
const browser = await B.launch();
console.log(`Chromium ${browser.version()}, a stand-in fetch (no network${POLLUTE ? `; ${POLLUTE} MiB walked before each answer` : ''}); warm-up ${WARMUP} calls per client, ${BLOCKS} blocks of ${N} calls per client and pattern (concurrent: batches of ${BATCH})`);
try {
  const { context, page, task } = await B.measuredPage(browser, base);
  await page.evaluate(
    async ({ clients, base, warmup, pollute }) => {
      const w = await import('/static/bench/lib/workload.js');
      const enc = new TextEncoder();
      const dec = new TextDecoder();
      const echoed = JSON.stringify(JSON.stringify(w.ARGS));
      const url = `${base}/json`;
      const loop = w.fetchAsOurs(url);
      window.__w = w;
      window.__c = { fetch: loop };
      for (const name of clients.filter((c) => c !== 'fetch')) {
        const m = await import(`${base}/static/bench/out/bundles/${name === 'ours-b' ? 'clients-b' : 'clients'}/${name}.js`);
        window.__c[name] = await m.open(url);
      }
      // The stand-in only once the clients' modules are loaded (ours fetches its wasm).
      // POLLUTE=n: before answering, the stand-in waits for a macrotask and walks n MiB
      // (one write per 64-byte line), evicting the caches as a real exchange does
      // (shell-cost.mjs's `cold` setting); the walk costs every client alike.
      const walk = new Uint32Array((pollute * 1048576) / 4);
      const mc = new MessageChannel();
      const waiting = [];
      mc.port1.onmessage = () => waiting.shift()?.();
      let sink = 0;
      globalThis.__sink = () => sink;
      globalThis.fetch = async (_url, init) => {
        if (walk.length) {
          await new Promise((r) => {
            waiting.push(r);
            mc.port2.postMessage(0);
          });
          for (let i = 0; i < walk.length; i += 16) sink += walk[i]++;
        }
        const body = typeof init?.body === 'string' ? init.body : init?.body ? dec.decode(init.body) : '';
        const id = /"id":(\d+)/.exec(body)?.[1] ?? '0';
        // The client lists the tools once (to learn their x-mcp-header parameters).
        const text = body.includes('"tools/list"')
          ? `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}]}}`
          : `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","content":[{"type":"text","text":${echoed}}]}}`;
        const bytes = enc.encode(text);
        return new Response(bytes, { status: 200, headers: { 'content-type': 'application/json', 'content-length': String(bytes.byteLength) } });
      };
      for (const name of clients) {
        const first = await window.__c[name].call('echo', w.ARGS);
        if (first?.content?.[0]?.text !== JSON.stringify(w.ARGS)) throw new Error(`${name}: wrong echo result ${JSON.stringify(first)}`);
      }
      for (let i = 0; i < warmup; i += 100) for (const name of clients) await w.warmup(window.__c[name], Math.min(100, warmup - i));
    },
    { clients: CLIENTS, base, warmup: WARMUP, pollute: POLLUTE },
  );
  if (process.env.PROFILE) {
    // PROFILE=<file>: a CPU profile of 5,000 sequential calls of ours instead of the blocks
    // (then bench/tools/cpuprof-summary.mjs <file>).
    const cdp = await context.newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
    await cdp.send('Profiler.start');
    await page.evaluate(async (name) => { await window.__w.sequential(window.__c[name], 5000); }, process.env.PROFILE_CLIENT || "ours");
    const { profile } = await cdp.send('Profiler.stop');
    (await import('node:fs')).writeFileSync(process.env.PROFILE, JSON.stringify(profile));
    console.log(`profile: ${process.env.PROFILE}`);
  }
  for (const pattern of process.env.PROFILE ? [] : ['seq', 'conc']) {
    const rounds = await B.interleavedBlocks(CLIENTS, BLOCKS, N, task, B.pageCalls(page, pattern, N, BATCH));
    const med = (name) => quantile(rounds.map((r) => r[name]), 0.5);
    const d = rounds.map((r) => r.ours - r.fetch);
    console.log(
      `${pattern}: main-thread task µs per call, medians: fetch ${med('fetch').toFixed(1)}, ours ${med('ours').toFixed(1)}; ` +
        `ours − fetch per block: median ${quantile(d, 0.5).toFixed(1)} (quartiles ${quantile(d, 0.25).toFixed(1)} to ${quantile(d, 0.75).toFixed(1)})`,
    );
    if (CLIENTS.includes('ts')) {
      const dt = rounds.map((r) => r.ts - r.fetch);
      const ratio = rounds.map((r) => (r.ours - r.fetch) / (r.ts - r.fetch));
      console.log(
        `${pattern}: TS ${med('ts').toFixed(1)}; TS − fetch per block: median ${quantile(dt, 0.5).toFixed(1)} (quartiles ${quantile(dt, 0.25).toFixed(1)} to ${quantile(dt, 0.75).toFixed(1)}); ` +
          `(ours − fetch) ÷ (TS − fetch) per block: median ${quantile(ratio, 0.5).toFixed(2)} (quartiles ${quantile(ratio, 0.25).toFixed(2)}–${quantile(ratio, 0.75).toFixed(2)})`,
      );
    }
    if (PKG_B) {
      const db = rounds.map((r) => r.ours - r['ours-b']);
      console.log(`${pattern}: ours-b ${med('ours-b').toFixed(1)}; ours − ours-b per block: median ${quantile(db, 0.5).toFixed(1)} (quartiles ${quantile(db, 0.25).toFixed(1)} to ${quantile(db, 0.75).toFixed(1)})`);
    }
  }
  await context.close();
} finally {
  await browser.close();
  server.kill();
}
