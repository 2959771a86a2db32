// Issue 13, coordination across contexts (`coordination: 'auto'`): tests 3, 4 and 9.
// Tabs of one BrowserContext (and a dedicated worker) share a task: one of them polls it
// (the server's tasks/get rate is one context's), each question is shown in one context,
// the outcome reaches all of them, and when the polling tab closes another takes over
// within 1.5 x pollIntervalMs with no gap over 2 x pollIntervalMs. Every client sends an
// `X-Tab` header, so the server's /debug/log says which context sent each poll.
import {
  launchBrowser, tasksServer, pages, openTab, debugTasks, pollsOf, test, run, until,
} from './lib.mjs';
import assert from 'node:assert/strict';

const EXT = 'io.modelcontextprotocol/tasks';
/** `task_paced`'s pollIntervalMs (tests/servers/README.md). */
const PACED_MS = 500;

/** In a tab: a client named `tab` (its X-Tab header), answering questions after `answerMs`.
 * `pushTasks`: the tests of the polling rate and of takeover measure polling itself, so
 * they poll (`false`); with push (issue 14) polls are a backstop (tests/js/suite.mjs). */
async function client(tab, name, { coordination = 'auto', answerMs = 300, pushTasks = 'auto' } = {}) {
  await tab.evaluate(({ url, name, coordination, answerMs, pushTasks }) => {
    window.dialogs = [];
    window.client = new window.mcp.McpClient(url, {
      extensions: ['io.modelcontextprotocol/tasks'],
      headers: { 'X-Tab': name },
      coordination,
      pushTasks,
      onElicitation: (req, ctx) => new Promise((resolve, reject) => {
        const d = { key: ctx.key, taskId: ctx.taskId, withdrawn: false, answered: false };
        window.dialogs.push(d);
        const t = setTimeout(() => {
          d.answered = true;
          if (ctx.key === 'name') resolve({ action: 'accept', content: { name: `Ada from ${name}` } });
          else resolve({ action: 'accept', content: { age: 36 } });
        }, answerMs);
        ctx.signal.addEventListener('abort', () => { clearTimeout(t); d.withdrawn = true; reject(ctx.signal.reason); });
      }),
    });
  }, { url: tab.mcpUrl, name, coordination, answerMs, pushTasks });
}

/** Starts `tool` as a task in `tab`; returns its toJSON(). */
function startTask(tab, tool, args) {
  return tab.evaluate(async ({ tool, args }) => {
    const t = await window.client.callToolAsTask(tool, args);
    return t.toJSON();
  }, { tool, args });
}

/** In `tab`: waits on the task (from its JSON); the outcome lands in `window.outcome`. */
function waitIn(tab, json) {
  return tab.evaluate((json) => {
    window.statuses = [];
    window.outcome = window.client.waitForTask(json, { onTaskStatus: (s) => window.statuses.push(s.status) })
      .then((t) => ({ ok: true, status: t.status, text: t.result?.content?.[0]?.text }),
        (e) => ({ ok: false, error: `${e.name}: ${e.message}` }));
  }, json);
}

const outcome = (tab) => tab.evaluate(() => window.outcome);
const tabOf = (entry) => entry.headers?.['x-tab'];
const seconds = (e) => e.time * 1000;

/** Polls of `taskId` in [from, to] (ms since the epoch, server clock). */
async function pollsBetween(mcpUrl, taskId, from, to) {
  const polls = await pollsOf(mcpUrl, taskId);
  return polls.filter((p) => seconds(p) >= from && seconds(p) <= to);
}

/** Two tabs of one context wait on one `task_paced` task for ~`ms`; returns the polls of
 * the window where both wait, and how long that window is. */
async function twoTabsPolling(env, coordination) {
  const context = await env.browser.newContext();
  try {
    const a = await openTab(context, env.site);
    const b = await openTab(context, env.site);
    a.mcpUrl = b.mcpUrl = env.mcpUrl;
    await client(a, 'A', { coordination, pushTasks: false });
    await client(b, 'B', { coordination, pushTasks: false });
    const json = await startTask(a, 'task_paced', { ms: 4000 });
    await waitIn(a, json);
    await waitIn(b, json);
    const from = Date.now() + 300;
    await new Promise((ok) => setTimeout(ok, 3000));
    const to = Date.now();
    const polls = await pollsBetween(env.mcpUrl, json.taskId, from, to);
    const [oa, ob] = [await outcome(a), await outcome(b)];
    return { polls, window: to - from, oa, ob };
  } finally {
    await context.close();
  }
}

test('3: two tabs waiting on one task: the server sees one tab\'s polling rate', async (env) => {
  const { polls, window, oa, ob } = await twoTabsPolling(env, 'auto');
  const intervals = window / PACED_MS;
  const perInterval = polls.length / intervals;
  console.log(`     auto: ${polls.length} polls in ${window} ms (${perInterval.toFixed(2)} per interval), from ${[...new Set(polls.map(tabOf))]}`);
  assert.ok(perInterval <= 1.25, `one tab's rate is 1 poll per interval, got ${perInterval.toFixed(2)}`);
  assert.ok(perInterval >= 0.6, `the task is still polled (${perInterval.toFixed(2)} per interval)`);
  assert.equal(new Set(polls.map(tabOf)).size, 1, 'one tab polls');
  // Per interval: never two polls in one interval (two tabs would interleave theirs).
  const gaps = polls.slice(1).map((p, i) => seconds(p) - seconds(polls[i]));
  assert.ok(Math.min(...gaps) >= 0.8 * PACED_MS, `polls ${gaps.map((g) => g.toFixed(0))} ms apart`);
  for (const o of [oa, ob]) {
    assert.deepEqual(o, { ok: true, status: 'completed', text: 'paced task done after 4000 ms' });
  }
});

test('3 (control): a client without the tasks extension has nothing to coordinate: no lock, no channel', async (env) => {
  const context = await env.browser.newContext();
  try {
    const tab = await openTab(context, env.site);
    // Web Locks held by this origin, and BroadcastChannels opened, for each kind of client.
    const seen = await tab.evaluate(async (url) => {
      const opened = [];
      const Original = globalThis.BroadcastChannel;
      globalThis.BroadcastChannel = class extends Original {
        constructor(name) { super(name); opened.push(name); }
      };
      const held = async () => (await navigator.locks.query()).held.map((l) => l.name).filter((n) => n.startsWith('mcp-wasm-client/peers/'));
      const settle = () => new Promise((r) => setTimeout(r, 200));
      const plain = new window.mcp.McpClient(url, {});
      await settle();
      const without = { locks: await held(), channels: [...opened] };
      plain.close();
      const tasks = new window.mcp.McpClient(url, { extensions: ['io.modelcontextprotocol/tasks'] });
      await settle();
      const withTasks = { locks: await held(), channels: [...opened] };
      tasks.close();
      globalThis.BroadcastChannel = Original;
      return { without, withTasks };
    }, env.mcpUrl);
    assert.deepEqual(seen.without, { locks: [], channels: [] }, JSON.stringify(seen));
    assert.equal(seen.withTasks.locks.filter((n) => n.includes(' context ')).length, 1, JSON.stringify(seen));
    assert.equal(seen.withTasks.channels.filter((n) => n.startsWith('mcp-wasm-client/peers/1 channel ')).length, 1, JSON.stringify(seen));
  } finally {
    await context.close();
  }
});

test('3 (control): with coordination "none" the same measure sees both tabs polling', async (env) => {
  const { polls, window } = await twoTabsPolling(env, 'none');
  const perInterval = polls.length / (window / PACED_MS);
  console.log(`     none: ${polls.length} polls in ${window} ms (${perInterval.toFixed(2)} per interval)`);
  assert.ok(perInterval >= 1.6, `two uncoordinated tabs poll twice as often, got ${perInterval.toFixed(2)}`);
  assert.equal(new Set(polls.map(tabOf)).size, 2);
});

test('3: one dialog per key across both tabs, answered once, the outcome in both', async (env) => {
  const context = await env.browser.newContext();
  try {
    const a = await openTab(context, env.site);
    const b = await openTab(context, env.site);
    a.mcpUrl = b.mcpUrl = env.mcpUrl;
    await client(a, 'A');
    await client(b, 'B');
    const json = await startTask(a, 'task_two_inputs', {});
    await waitIn(a, json);
    await waitIn(b, json);
    const [oa, ob] = await Promise.all([outcome(a), outcome(b)]);
    assert.equal(oa.ok, true, JSON.stringify(oa));
    assert.deepEqual(oa, ob, 'both tabs get the outcome');
    assert.match(oa.text, /^Ada from [AB] is 36 years old$/);
    const dialogs = [...await a.evaluate(() => window.dialogs), ...await b.evaluate(() => window.dialogs)];
    for (const key of ['name', 'age']) {
      const shown = dialogs.filter((d) => d.key === key);
      assert.equal(shown.length, 1, `key ${key} shown ${shown.length} times: ${JSON.stringify(dialogs)}`);
      assert.equal(shown[0].answered, true);
    }
    const stats = (await debugTasks(env.mcpUrl))[json.taskId];
    assert.deepEqual(stats.answers, { name: 1, age: 1 }, `answers counted: ${JSON.stringify(stats)}`);
    for (const t of [a, b]) {
      const st = await t.evaluate(() => window.statuses);
      assert.ok(st.includes('input_required'), `onTaskStatus in every tab: ${st}`);
    }
  } finally {
    await context.close();
  }
});

test('3: a question shown in a tab that is hidden moves to the visible tab (its signal fires in the first)', async (env) => {
  const context = await env.browser.newContext();
  try {
    const a = await openTab(context, env.site);
    const b = await openTab(context, env.site);
    a.mcpUrl = b.mcpUrl = env.mcpUrl;
    await client(a, 'A', { answerMs: 1500 });
    await client(b, 'B', { answerMs: 1500 });
    const json = await startTask(a, 'task_two_inputs', {});
    await waitIn(a, json);
    await waitIn(b, json);
    // A waits first, so it polls and, being visible, shows the question.
    await until(() => a.evaluate(() => window.dialogs.length === 1), 'the question in tab A');
    assert.equal(await b.evaluate(() => window.dialogs.length), 0);
    await a.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    const o = await b.evaluate(() => window.outcome);
    assert.deepEqual(o, { ok: true, status: 'completed', text: 'Ada from B is 36 years old' });
    const da = await a.evaluate(() => window.dialogs);
    const db = await b.evaluate(() => window.dialogs);
    assert.deepEqual(da.map((d) => [d.key, d.withdrawn, d.answered]), [['name', true, false]], 'withdrawn in A');
    assert.deepEqual(db.map((d) => [d.key, d.answered]), [['name', true], ['age', true]], 'shown in B');
    assert.deepEqual((await debugTasks(env.mcpUrl))[json.taskId].answers, { name: 1, age: 1 });
  } finally {
    await context.close();
  }
});

test('3: a question shown in a tab that closes moves to the other tab', async (env) => {
  const context = await env.browser.newContext();
  try {
    const a = await openTab(context, env.site);
    const b = await openTab(context, env.site);
    a.mcpUrl = b.mcpUrl = env.mcpUrl;
    await client(a, 'A', { answerMs: 60_000 });
    await client(b, 'B', { answerMs: 300 });
    const json = await startTask(a, 'task_two_inputs', {});
    await waitIn(a, json);
    await waitIn(b, json);
    await until(() => a.evaluate(() => window.dialogs.length === 1), 'the question in tab A');
    await a.close();
    const o = await b.evaluate(() => window.outcome);
    assert.deepEqual(o, { ok: true, status: 'completed', text: 'Ada from B is 36 years old' });
    const db = await b.evaluate(() => window.dialogs);
    assert.deepEqual(db.map((d) => [d.key, d.answered]), [['name', true], ['age', true]]);
    assert.deepEqual((await debugTasks(env.mcpUrl))[json.taskId].answers, { name: 1, age: 1 });
  } finally {
    await context.close();
  }
});

test('4: the polling tab closes: the other takes over within 1.5 x pollIntervalMs, no gap over 2 x', async (env) => {
  const context = await env.browser.newContext();
  try {
    const a = await openTab(context, env.site);
    const b = await openTab(context, env.site);
    a.mcpUrl = b.mcpUrl = env.mcpUrl;
    await client(a, 'A', { pushTasks: false });
    await client(b, 'B', { pushTasks: false });
    const json = await startTask(a, 'task_paced', { ms: 6000 });
    await waitIn(a, json);
    await waitIn(b, json);
    await new Promise((ok) => setTimeout(ok, 1700));
    const before = await pollsOf(env.mcpUrl, json.taskId);
    const poller = tabOf(before.at(-1));
    assert.equal(new Set(before.map(tabOf)).size, 1, 'one poller before the close');
    const [gone, other, otherName] = poller === 'A' ? [a, b, 'B'] : [b, a, 'A'];
    await gone.close();
    const o = await other.evaluate(() => window.outcome);
    assert.deepEqual(o, { ok: true, status: 'completed', text: 'paced task done after 6000 ms' });
    const polls = await pollsOf(env.mcpUrl, json.taskId);
    const lastOld = polls.filter((p) => tabOf(p) === poller).at(-1);
    const firstNew = polls.find((p) => tabOf(p) === otherName);
    assert.ok(firstNew, 'the other tab polled');
    assert.ok(seconds(firstNew) > seconds(lastOld), 'the other tab polled only after the first one went');
    const takeover = seconds(firstNew) - seconds(lastOld);
    const gaps = polls.slice(1).map((p, i) => seconds(p) - seconds(polls[i]));
    console.log(`     takeover ${takeover.toFixed(0)} ms; largest gap ${Math.max(...gaps).toFixed(0)} ms; ${polls.length} polls`);
    assert.ok(takeover <= 1.5 * PACED_MS, `takeover after ${takeover} ms`);
    assert.ok(Math.max(...gaps) <= 2 * PACED_MS, `gaps ${gaps.map((g) => g.toFixed(0))}`);
  } finally {
    await context.close();
  }
});

test('9: a page and a dedicated worker share one task: one poller', async (env) => {
  const context = await env.browser.newContext();
  try {
    const page = await openTab(context, env.site, 'peers-worker.html');
    page.mcpUrl = env.mcpUrl;
    // Both poll (pushTasks: false): with the task stream, polls are a backstop and the
    // window below would hold none, whoever led.
    await client(page, 'page', { pushTasks: false });
    const json = await startTask(page, 'task_paced', { ms: 3500 });
    // The worker waits first: it leads, and the page follows it.
    await page.evaluate(({ url, json }) => {
      window.workerOutcome = new Promise((ok) => { window.worker.onmessage = (e) => ok(e.data); });
      window.worker.postMessage({ url, task: json, pushTasks: false });
    }, { url: env.mcpUrl, json });
    await until(async () => (await pollsOf(env.mcpUrl, json.taskId)).length > 0, 'the worker first poll', 5000);
    await waitIn(page, json);
    const from = Date.now() + 300;
    const [po, wo] = [await outcome(page), await page.evaluate(() => window.workerOutcome)];
    const to = Date.now() - 100;
    assert.deepEqual(po, { ok: true, status: 'completed', text: 'paced task done after 3500 ms' });
    assert.equal(wo.ok, true, JSON.stringify(wo));
    assert.equal(wo.task.status, 'completed');
    const all = await pollsOf(env.mcpUrl, json.taskId);
    // On failure, every poll with its context and time (ms from when both waits had ended).
    const end = to + 100;
    const seen = JSON.stringify(all.map((p) => [tabOf(p), Math.round(seconds(p) - end)]));
    assert.deepEqual([...new Set(all.map(tabOf))], ['worker'], `only the worker polls: ${seen}`);
    const polls = all.filter((p) => seconds(p) >= from && seconds(p) <= to);
    const perInterval = polls.length / ((to - from) / PACED_MS);
    console.log(`     ${polls.length} polls in ${to - from} ms (${perInterval.toFixed(2)} per interval)`);
    assert.ok(perInterval <= 1.25, `one context's rate, got ${perInterval.toFixed(2)}`);
    assert.ok(perInterval >= 0.6, `the task is still polled (${perInterval.toFixed(2)} per interval)`);
  } finally {
    await context.close();
  }
});

test('3: in a sandboxed iframe Web Locks refuse: the client warns and polls its own task', async (env) => {
  const context = await env.browser.newContext();
  try {
    const page = await context.newPage();
    page.on('pageerror', (e) => console.error(`[page error] ${e.message}`));
    await page.goto(`${env.site.url}/pages/sandboxed.html?url=${encodeURIComponent(env.mcpUrl)}`);
    await page.waitForFunction(() => window.sandboxed !== undefined, null, { timeout: 15_000 });
    const res = await page.evaluate(() => window.sandboxed);
    // The premise, in Chromium: locks exist in the frame and refuse. (Another engine may
    // grant or lack them there; the task must complete all the same.)
    const engine = process.env.BROWSER_ENGINE || 'chromium';
    if (engine === 'chromium') assert.equal(res.locks, 'SecurityError', JSON.stringify(res));
    assert.equal(res.status, 'completed', JSON.stringify(res));
    if (res.locks === 'SecurityError') {
      assert.ok(res.warnings.some((w) => /not coordinated/.test(w)), JSON.stringify(res.warnings));
    }
  } finally {
    await context.close();
  }
});

test('3: taskScope keeps identities apart: store, channel and locks are per scope', async (env) => {
  const context = await env.browser.newContext();
  try {
    const [a, b, c] = [await openTab(context, env.site), await openTab(context, env.site), await openTab(context, env.site)];
    const make = (tab, taskScope) => tab.evaluate(({ url, taskScope }) => {
      window.client = new window.mcp.McpClient(url, { extensions: ['io.modelcontextprotocol/tasks'], pushTasks: false, taskScope });
    }, { url: env.mcpUrl, taskScope });
    await make(a, 'alice');
    await make(b, 'bob');
    await make(c, 'alice');
    const json = await startTask(a, 'task_paced', { ms: 4000 });
    await a.evaluate((json) => { window.client.waitForTask(json).catch(() => {}); }, json);
    await until(async () => (await pollsOf(env.mcpUrl, json.taskId)).length > 0, 'the first poll', 5000);
    const resumed = (tab) => tab.evaluate(async () => (await window.client.resumeTasks()).map((t) => t.taskId));
    assert.deepEqual(await resumed(b), [], "bob's page does not resume alice's task");
    assert.deepEqual(await resumed(c), [json.taskId], "alice's other page does");
    // Waiting on the same task: alice's other page follows alice's poller; bob's page does not.
    const follows = (tab) => tab.evaluate(async (json) => {
      const t = window.mcp.Task.fromJSON(json);
      window.client.waitForTask(t).catch(() => {});
      await new Promise((ok) => setTimeout(ok, 300));
      return window.client.isPolledElsewhere(t);
    }, json);
    assert.equal(await follows(c), true);
    assert.equal(await follows(b), false);
  } finally {
    await context.close();
  }
});

await run(async () => {
  const [mcpUrl, site, browser] = await Promise.all([tasksServer(), pages(), launchBrowser()]);
  return { mcpUrl, site, browser };
}, async (env) => {
  await env.browser.close();
  env.site.close();
});
