// What the driver costs the page: per-call main-thread time (DevTools Performance.getMetrics
// `TaskDuration`) and wall time of each client under Playwright and over the bare DevTools
// pipe that bench/run.mjs uses (bench/lib/cdp-pipe.mjs), one fresh browser per client and
// driver, the drivers alternating, the clients rotating round by round.
//   node bench/tools/chromium-drivers.mjs     ROUNDS=2 WARMUP=2000 N=1000 MODE=json CLIENTS=raw,ours,ts
import * as B from '../browser.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 2);
const WARMUP = Number(process.env.WARMUP ?? 2000);
const N = Number(process.env.N ?? 1000);
const MODE = process.env.MODE ?? 'json';
const CLIENTS = (process.env.CLIENTS ?? 'raw,ours,ts').split(',');
await B.buildBrowserBundles();
const { child: server, url: base } = await B.startServer();
const template = await B.captureTemplate(base);

async function measure(playwright, client) {
  const browser = await B.launch({ playwright });
  try {
    const { context, page, task } = await B.measuredPage(browser, base);
    await page.evaluate(async ({ client, url, template, warmup }) => {
      const m = await import(`/static/bench/out/bundles/clients/${client}.js`);
      window.__w = await import('/static/bench/lib/workload.js');
      window.__c = await m.open(url, { template });
      await window.__w.warmup(window.__c, warmup);
    }, { client, url: `${base}/${MODE}`, template, warmup: WARMUP });
    const out = {};
    for (const pattern of ['seq', 'conc']) {
      const t0 = await task();
      const wall = await page.evaluate(async ({ pattern, n }) => {
        const w = window.__w;
        return (pattern === 'seq' ? await w.sequential(window.__c, n) : await w.concurrent(window.__c, n, 10)).wall;
      }, { pattern, n: N });
      out[pattern] = { taskUs: ((await task()) - t0) * 1e6 / N, wallMs: wall / N };
    }
    await context.close();
    return out;
  } finally {
    await browser.close();
  }
}

console.log(`${MODE}, warm-up ${WARMUP}, ${N} calls per pattern (concurrent: batches of 10); main-thread µs / wall ms per call`);
const rows = [];
for (let r = 0; r < ROUNDS; r++) {
  for (let k = 0; k < CLIENTS.length; k++) {
    const client = CLIENTS[(k + r) % CLIENTS.length];
    for (const playwright of r % 2 ? [true, false] : [false, true]) {
      const x = await measure(playwright, client);
      rows.push({ round: r + 1, driver: playwright ? 'playwright' : 'pipe', client, ...x });
      const f = (p) => `${Math.round(x[p].taskUs)} µs / ${x[p].wallMs.toFixed(2)} ms`;
      console.log(`round ${r + 1} ${(playwright ? 'playwright' : 'pipe').padEnd(10)} ${client.padEnd(4)} seq ${f('seq')} | conc ${f('conc')}`);
    }
  }
}
// Per driver and pattern: each client's median over raw fetch, and ours ÷ TS (target 1's ratio).
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
for (const driver of ['pipe', 'playwright']) {
  for (const p of ['seq', 'conc']) {
    const of = (c) => med(rows.filter((x) => x.driver === driver && x.client === c).map((x) => x[p].taskUs));
    if (!CLIENTS.includes('raw')) continue;
    const raw = of('raw');
    const add = Object.fromEntries(CLIENTS.filter((c) => c !== 'raw').map((c) => [c, of(c) - raw]));
    const ratio = add.ours !== undefined && add.ts ? ` ours/ts ${(add.ours / add.ts).toFixed(2)}` : '';
    console.log(`${driver.padEnd(10)} ${p.padEnd(4)} raw ${Math.round(raw)} µs; over raw: ${Object.entries(add).map(([c, v]) => `${c} +${Math.round(v)}`).join(', ')}${ratio}`);
  }
}
server.kill();
