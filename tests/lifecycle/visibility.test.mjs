// Issue 13, tests 5 and 6: visibility- and network-aware polling, in Chromium against the
// Python tasks server (`task_slow`: pollIntervalMs 100).
//  5. Hidden: polls drop to hiddenPollIntervalMs; visible again: a poll within 100 ms.
//     (Infinity: no poll at all while hidden.)
//  6. Offline (context.setOffline): zero requests while offline, a poll within 100 ms of
//     going online, no error reaches the waiter, the task completes.
//  6c. Offline while the person answers an input dialog (`ask_name`): the retry carrying
//     the answer fails, is held, and goes out once online; the person is asked once.
// Times are the server's (`/debug/log` entries' `time`, epoch seconds) against the page's
// Date.now() at the event (same machine, same clock). Requests the client tries while
// offline never reach the server, so test 6 also counts the client's fetch calls (the
// `fetch` option) to prove none was even attempted.
import { launchBrowser, tasksServer, pages, openTab, pollsOf, test, run } from './lib.mjs';

const EXT = 'io.modelcontextprotocol/tasks';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function check(cond, msg) {
  if (!cond) throw new Error(msg);
}

/** Server times (ms) of the task's polls. */
async function pollTimes(mcpUrl, taskId) {
  return (await pollsOf(mcpUrl, taskId)).map((e) => e.time * 1000);
}

/** When the client started each request, by JSON-RPC id (from `window.fetches`): a poll the
 * server saw is matched to its start, since one started just before the page hid or went
 * offline may arrive just after (in flight; Firefox's and WebKit's emulated offline does not
 * cut it either). */
function startsById(fetches) {
  const starts = new Map();
  for (const f of fetches) {
    try {
      starts.set(JSON.parse(f.body).id, f.t);
    } catch {
      // not a JSON-RPC body: no poll
    }
  }
  return starts;
}

/** In the page: a client, a `task_slow` task of `ms` and a wait on it (window.wait). */
async function startTask(tab, mcpUrl, options, ms) {
  return tab.evaluate(
    async ({ mcpUrl, options, ms, EXT }) => {
      window.fetches = [];
      // Issue 13's polling rules (hidden, offline) are measured on polls: no task stream
      // (with push, issue 14, polls are a backstop: tests/js/suite.mjs).
      const opts = { extensions: [EXT], pushTasks: false, ...options };
      if (opts.hiddenPollIntervalMs === 'Infinity') opts.hiddenPollIntervalMs = Infinity;
      // Every request the client tries, with its time (the server never sees an offline one).
      opts.fetch = (url, init) => {
        window.fetches.push({ t: Date.now(), body: String(init?.body ?? '') });
        return fetch(url, init);
      };
      window.client = new mcp.McpClient(mcpUrl, opts);
      const t = await window.client.callToolAsTask('task_slow', { ms });
      window.statuses = [];
      window.outcome = null;
      window.wait = window.client
        .waitForTask(t, { onTaskStatus: (s) => window.statuses.push(s.status) })
        .then(
          (r) => (window.outcome = { ok: true, status: r.status }),
          (e) => (window.outcome = { ok: false, error: `${e.name}: ${e.message}` }),
        );
      return t.taskId;
    },
    { mcpUrl, options, ms, EXT },
  );
}

/** Makes the page hidden or visible as a real tab switch would; returns the page's time. */
function setHidden(tab, hidden) {
  return tab.evaluate((hidden) => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
    const t = Date.now();
    document.dispatchEvent(new Event('visibilitychange'));
    return t;
  }, hidden);
}

async function outcome(tab, timeoutMs) {
  await tab.waitForFunction(() => window.outcome !== null, null, { timeout: timeoutMs });
  return tab.evaluate(() => window.outcome);
}

test('5. hidden: polls drop to hiddenPollIntervalMs; visible again: a poll within 100 ms', async ({ browser, mcpUrl, site }) => {
  const context = await browser.newContext();
  try {
    const tab = await openTab(context, site);
    const taskId = await startTask(tab, mcpUrl, { hiddenPollIntervalMs: 1000 }, 6000);
    await sleep(1000);
    const hiddenAt = await setHidden(tab, true);
    await sleep(3500);
    const visibleAt = await setHidden(tab, false);
    await sleep(500);
    const fetches = await tab.evaluate(() => window.fetches);
    const starts = startsById(fetches);
    const polls = await pollsOf(mcpUrl, taskId);
    const start = (p) => starts.get(p.body?.id);
    const at = (p) => p.time * 1000;
    check(polls.every((p) => start(p) !== undefined), 'every poll the server saw is one this client started');
    // Server arrival times, each poll on the side of the change where the client started it
    // (one started just before hiding may arrive just after: it is a visible one).
    const before = polls.filter((p) => start(p) <= hiddenAt && at(p) > hiddenAt - 1000).map(at);
    check(before.length >= 5, `visible: polls every ~100 ms before hiding (got ${before.length} in the last second)`);
    // The first hidden poll may be the one already due (at most 1000 ms after the last).
    const hidden = polls.filter((p) => start(p) > hiddenAt && start(p) < visibleAt).map(at);
    check(hidden.length >= 2 && hidden.length <= 4, `hidden for 3.5 s at 1000 ms: 2 to 4 polls, got ${hidden.length}`);
    const last = before.at(-1);
    const gaps = [hidden[0] - last, ...hidden.slice(1).map((t, i) => t - hidden[i])];
    // Server arrival times: ~1000 ms apart, give or take the requests' transit jitter.
    for (const g of gaps) check(g >= 850 && g <= 2000, `hidden gap ${Math.round(g)} ms, not ~1000: ${gaps.map(Math.round)}`);
    // The client's own start times: never less than 1000 ms apart while hidden.
    const pollStarts = fetches.filter((f) => f.body.includes('"tasks/get"')).map((f) => f.t);
    const started = pollStarts.filter((t) => t > hiddenAt && t < visibleAt);
    const prev = pollStarts.filter((t) => t <= hiddenAt).at(-1);
    [prev, ...started].slice(1).forEach((t, i, a) => {
      const g = t - (i === 0 ? prev : a[i - 1]);
      check(g >= 995, `the client started hidden polls ${g} ms apart`);
    });
    // The first poll started once visible again (a hidden one in flight does not count).
    const first = polls.find((p) => start(p) >= visibleAt);
    const after = first && at(first);
    check(after !== undefined && after - visibleAt <= 100, `visible again: a poll within 100 ms (got ${after === undefined ? 'none' : Math.round(after - visibleAt)} ms)`);
    const o = await outcome(tab, 10_000);
    check(o.ok && o.status === 'completed', `the task completes: ${JSON.stringify(o)}`);
    console.log(`     hidden gaps ${gaps.map(Math.round).join(', ')} ms; poll ${Math.round(after - visibleAt)} ms after visible`);
  } finally {
    await context.close();
  }
});

test('5b. hiddenPollIntervalMs: Infinity: no poll while hidden; visible again: a poll within 100 ms', async ({ browser, mcpUrl, site }) => {
  const context = await browser.newContext();
  try {
    const tab = await openTab(context, site);
    const taskId = await startTask(tab, mcpUrl, { hiddenPollIntervalMs: 'Infinity' }, 3000);
    await sleep(500);
    const hiddenAt = await setHidden(tab, true);
    await sleep(2000);
    const visibleAt = await setHidden(tab, false);
    await sleep(300);
    const times = await pollTimes(mcpUrl, taskId);
    // A poll in flight as the page hid may land just after.
    const hidden = times.filter((t) => t > hiddenAt + 100 && t < visibleAt);
    check(hidden.length === 0, `no poll while hidden, got ${hidden.length}`);
    const after = times.find((t) => t >= visibleAt);
    check(after !== undefined && after - visibleAt <= 100, `a poll within 100 ms of visible (got ${after === undefined ? 'none' : Math.round(after - visibleAt)} ms)`);
    const o = await outcome(tab, 10_000);
    check(o.ok && o.status === 'completed', `the task completes: ${JSON.stringify(o)}`);
  } finally {
    await context.close();
  }
});

test('6. offline: zero requests while offline, a poll within 100 ms of online, no error, the task completes', async ({ browser, mcpUrl, site }) => {
  const context = await browser.newContext();
  try {
    const tab = await openTab(context, site);
    await tab.evaluate(() => {
      window.net = [];
      addEventListener('offline', () => window.net.push(['offline', Date.now()]));
      addEventListener('online', () => window.net.push(['online', Date.now()]));
    });
    // The task ends on the server while the page is offline; the client learns it online.
    const taskId = await startTask(tab, mcpUrl, {}, 1500);
    await sleep(500);
    await context.setOffline(true);
    await tab.waitForFunction(() => window.net.some(([k]) => k === 'offline'));
    await sleep(2500);
    await context.setOffline(false);
    await tab.waitForFunction(() => window.net.some(([k]) => k === 'online'));
    const o = await outcome(tab, 10_000);
    const { net, fetches } = await tab.evaluate(() => ({ net: window.net, fetches: window.fetches }));
    const offAt = net.find(([k]) => k === 'offline')[1];
    const onAt = net.find(([k]) => k === 'online')[1];
    const tried = fetches.filter((f) => f.t > offAt && f.t < onAt);
    check(tried.length === 0, `the client tried ${tried.length} requests while offline: ${tried.map((f) => f.body.slice(0, 80)).join(' | ')}`);
    // What the server received while the page was offline: only a poll the client had
    // started before going offline may be among it (in flight as the page went offline:
    // Firefox and WebKit emulate offline by navigator.onLine and the events, which do not
    // cut a request already sent). Matched by JSON-RPC id with the client's own starts.
    const startedAt = startsById(fetches);
    const polls = await pollsOf(mcpUrl, taskId);
    const during = polls.filter((p) => p.time * 1000 > offAt && p.time * 1000 < onAt);
    const late = during.filter((p) => !(startedAt.get(p.body?.id) < offAt));
    check(late.length === 0, `the server saw ${late.length} polls while offline not started before it (${during.length} arrived in that time)`);
    // The first poll started once online again, as in test 5.
    const first = polls.find((p) => startedAt.get(p.body?.id) >= onAt);
    const after = first && first.time * 1000;
    check(after !== undefined && after - onAt <= 100, `a poll within 100 ms of online (got ${after === undefined ? 'none' : Math.round(after - onAt)} ms)`);
    check(o.ok && o.status === 'completed', `no error reaches the waiter, the task completes: ${JSON.stringify(o)}`);
    console.log(`     offline ${onAt - offAt} ms (${during.length} poll started before it arrived in it); poll ${Math.round(after - onAt)} ms after online`);
  } finally {
    await context.close();
  }
});

test('6b. a dedicated worker (no document: visible) uses navigator.onLine: no request offline, a poll within 100 ms of online', async ({ browser, mcpUrl, site }) => {
  const context = await browser.newContext();
  try {
    const tab = await openTab(context, site);
    await tab.evaluate(() => {
      window.msgs = [];
      window.w = new Worker('/pages/visibility-worker.js', { type: 'module' });
      window.w.onmessage = (e) => window.msgs.push(e.data);
      window.w.onerror = (e) => window.msgs.push({ error: String(e.message) });
    });
    await tab.waitForFunction(() => window.msgs.some((m) => m.ready || m.error));
    await tab.evaluate((mcpUrl) => window.w.postMessage({ mcpUrl, ms: 1500 }), mcpUrl);
    await tab.waitForFunction(() => window.msgs.some((m) => m.taskId || m.outcome || m.error));
    await sleep(500);
    await context.setOffline(true);
    await tab.evaluate(() => window.w.postMessage({ net: 'offline' }));
    await sleep(2500);
    await context.setOffline(false);
    await tab.evaluate(() => window.w.postMessage({ net: 'online' }));
    await tab.waitForFunction(() => window.msgs.some((m) => m.outcome || m.error), null, { timeout: 15_000 });
    const msgs = await tab.evaluate(() => window.msgs);
    const err = msgs.find((m) => m.error);
    check(!err, `worker error: ${err?.error}`);
    const { outcome: o, net, fetches, hasDocument } = msgs.find((m) => m.outcome);
    check(!hasDocument, 'a dedicated worker has no document');
    const offAt = net.find(([k]) => k === 'offline')?.[1];
    const onAt = net.find(([k]) => k === 'online')?.[1];
    check(offAt && onAt, `the worker saw offline and online: ${JSON.stringify(net)}`);
    const tried = fetches.filter((f) => f.t > offAt && f.t < onAt);
    check(tried.length === 0, `the worker's client tried ${tried.length} requests while offline`);
    const times = await pollTimes(mcpUrl, msgs.find((m) => m.taskId).taskId);
    const after = times.find((t) => t >= onAt);
    check(after !== undefined && after - onAt <= 100, `a poll within 100 ms of online (got ${after === undefined ? 'none' : Math.round(after - onAt)} ms)`);
    check(o.ok && o.status === 'completed', `no error reaches the waiter: ${JSON.stringify(o)}`);
  } finally {
    await context.close();
  }
});

test('6c. offline while the person answers a dialog: the retry carrying the answer waits for online, the person is asked once', async ({ browser, mcpUrl, site }) => {
  // Chromium's setOffline cuts the network, so the retry's fetch fails and the client holds
  // it until online. Firefox and WebKit emulate offline by navigator.onLine and the events
  // only (tests/browsers/playwright-shim.mjs): their retry reaches the server at once, and
  // what is checked there is that nothing is lost or asked twice.
  const cutsNetwork = !process.env.BROWSER_ENGINE || process.env.BROWSER_ENGINE === 'chromium';
  const context = await browser.newContext();
  try {
    const tab = await openTab(context, site);
    await tab.evaluate((mcpUrl) => {
      window.net = [];
      addEventListener('offline', () => window.net.push(['offline', Date.now()]));
      addEventListener('online', () => window.net.push(['online', Date.now()]));
      window.asked = 0;
      window.fetches = [];
      window.client = new mcp.McpClient(mcpUrl, {
        onElicitation: () => {
          window.asked += 1;
          return new Promise((resolve) => (window.answer = resolve));
        },
        fetch: (url, init) => {
          window.fetches.push({ t: Date.now(), body: String(init?.body ?? '') });
          return fetch(url, init);
        },
      });
      window.outcome = null;
      window.client.callTool('ask_name', {}).then(
        (r) => (window.outcome = { ok: true, text: r.content?.[0]?.text }),
        (e) => (window.outcome = { ok: false, error: `${e.name}: ${e.message}` }),
      );
    }, mcpUrl);
    await tab.waitForFunction(() => typeof window.answer === 'function');
    await context.setOffline(true);
    await tab.waitForFunction(() => window.net.some(([k]) => k === 'offline'));
    // The person answers while the page is offline.
    await tab.evaluate(() => window.answer({ action: 'accept', content: { name: 'Ada' } }));
    await sleep(1000);
    if (cutsNetwork) {
      check((await tab.evaluate(() => window.outcome)) === null, `the call ended while offline: ${JSON.stringify(await tab.evaluate(() => window.outcome))}`);
    }
    await context.setOffline(false);
    await tab.waitForFunction(() => window.net.some(([k]) => k === 'online'));
    const o = await outcome(tab, 10_000);
    check(o.ok && o.text === 'Hello, Ada!', `the answer reached the tool: ${JSON.stringify(o)}`);
    const { asked, fetches, net } = await tab.evaluate(() => ({ asked: window.asked, fetches: window.fetches, net: window.net }));
    check(asked === 1, `the person was asked ${asked} times`);
    const retries = fetches.filter((f) => f.body.includes('"inputResponses"'));
    if (cutsNetwork) {
      // One retry tried offline (it failed), and the same answer sent again once online.
      const onAt = net.find(([k]) => k === 'online')[1];
      check(retries.length === 2, `${retries.length} retries carrying the answer were tried`);
      check(retries[1].t >= onAt, 'the answer was sent again only once online');
      const [first, again] = retries.map((f) => JSON.parse(f.body).params);
      check(first.inputResponses !== undefined && JSON.stringify(again) === JSON.stringify(first), 'the same answer (and params) both times');
    } else {
      check(retries.length === 1, `${retries.length} retries carrying the answer were sent`);
    }
    await tab.evaluate(() => window.client.close());
  } finally {
    await context.close();
  }
});

test('the listeners are on document and globalThis only, and client.close() removes them', async ({ browser, mcpUrl, site }) => {
  const context = await browser.newContext();
  try {
    const tab = await openTab(context, site);
    const errors = [];
    tab.on('pageerror', (e) => errors.push(e.message));
    const r = await tab.evaluate((mcpUrl) => {
      const live = {};
      const spy = (target, name) => {
        const add = target.addEventListener.bind(target);
        const remove = target.removeEventListener.bind(target);
        target.addEventListener = (type, f, o) => { live[`${name}:${type}`] = (live[`${name}:${type}`] || 0) + 1; add(type, f, o); };
        target.removeEventListener = (type, f, o) => { live[`${name}:${type}`] = (live[`${name}:${type}`] || 0) - 1; remove(type, f, o); };
      };
      spy(document, 'document');
      spy(globalThis, 'global');
      const client = new mcp.McpClient(mcpUrl, { extensions: ['io.modelcontextprotocol/tasks'] });
      const open = { ...live };
      client.close();
      // Events after close reach nobody (no throw from a freed closure).
      document.dispatchEvent(new Event('visibilitychange'));
      dispatchEvent(new Event('online'));
      return { open, closed: { ...live } };
    }, mcpUrl);
    const want = { 'document:visibilitychange': 1, 'global:online': 1, 'global:offline': 1 };
    check(JSON.stringify(r.open) === JSON.stringify(want), `listeners while open: ${JSON.stringify(r.open)}`);
    check(Object.values(r.closed).every((n) => n === 0), `listeners left after close: ${JSON.stringify(r.closed)}`);
    check(errors.length === 0, `page errors: ${errors.join('; ')}`);
  } finally {
    await context.close();
  }
});

await run(
  async () => {
    const mcpUrl = await tasksServer();
    const site = await pages();
    const browser = await launchBrowser();
    return { mcpUrl, site, browser };
  },
  async ({ site, browser }) => {
    await browser.close();
    await site.close?.();
  },
);
