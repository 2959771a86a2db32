// Figures for tasks across the browser's lifecycle (issue 13), in headless Chromium
// against the Python tasks server (tests/servers/modern_server.py), counted by the
// server (its /debug/log), not by the client:
//
//   1. tasks/get requests per task per minute with 1, 2 and 5 tabs waiting on one task,
//      with coordination 'auto' (one poller) beside 'none' (every tab polls), and the ratio;
//   2. the same with every tab hidden (hiddenPollIntervalMs);
//   3. bytes a task takes in the store (IndexedDB), without and with a stored answer;
//   4. time from a reload to the task's first poll (navigation start -> first tasks/get).
//
//   node bench/lifecycle.mjs            # WINDOW_MS=6000 (the counting window per case)
//
// Needs a built pkg/ (scripts/build.sh) and the installed tools (scripts/setup.sh).
import { launchBrowser, openTab, pages, pollsOf, tasksServer, debugLog } from '../tests/lifecycle/lib.mjs';

const WINDOW_MS = Number(process.env.WINDOW_MS || 6000);
const HIDDEN_MS = 1000;
const TASKS = 'io.modelcontextprotocol/tasks';

const mcpUrl = await tasksServer();
const site = await pages();
const browser = await launchBrowser();
const rows = [];
const say = (line) => {
  console.log(line);
  rows.push(line);
};

/** Makes `tab` hidden (headless pages are always visible): see browser-lifecycle.md. */
async function hide(tab) {
  await tab.evaluate(() => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
    document.dispatchEvent(new Event('visibilitychange'));
  });
}

/** Opens `n` tabs waiting on one `task_slow`; returns tasks/get per minute seen by the server. */
async function pollRate(n, { coordination, hidden = false }) {
  const context = await browser.newContext();
  const tabs = [];
  for (let i = 0; i < n; i++) tabs.push(await openTab(context, site));
  // Polling, not push (`pushTasks: 'auto'` is the default since issue 14): with the server's
  // notifications there are almost no polls to count, and what this measures is that one
  // context polls for all of them.
  const opts = { extensions: [TASKS], taskStore: 'memory', coordination, hiddenPollIntervalMs: HIDDEN_MS, pushTasks: false };
  if (hidden) for (const t of tabs) await hide(t);
  const json = await tabs[0].evaluate(async ([url, opts]) => {
    window.client = new window.mcp.McpClient(url, opts);
    const task = await window.client.callToolAsTask('task_slow', { ms: 600_000 });
    window.client.waitForTask(task).catch(() => {});
    return task.toJSON();
  }, [mcpUrl, opts]);
  for (const t of tabs.slice(1)) {
    await t.evaluate(([url, opts, json]) => {
      window.client = new window.mcp.McpClient(url, opts);
      window.client.waitForTask(window.mcp.Task.fromJSON(json)).catch(() => {});
    }, [mcpUrl, opts, json]);
  }
  // Let every tab settle (lock requests, a hidden tab's first slow interval), then count.
  await new Promise((r) => setTimeout(r, hidden ? 2 * HIDDEN_MS : 500));
  const before = (await pollsOf(mcpUrl, json.taskId)).length;
  await new Promise((r) => setTimeout(r, WINDOW_MS));
  const after = (await pollsOf(mcpUrl, json.taskId)).length;
  await tabs[0].evaluate((id) => window.client.cancelTask(id).catch(() => {}), json.taskId);
  await context.close();
  return ((after - before) / WINDOW_MS) * 60_000;
}

console.log(`# tasks across tabs (bench/lifecycle.mjs): task_slow, pollIntervalMs 100, window ${WINDOW_MS} ms`);
const one = await pollRate(1, { coordination: 'auto' });
say(`tasks/get per task per minute, 1 tab: ${one.toFixed(0)}`);
for (const n of [2, 5]) {
  const auto = await pollRate(n, { coordination: 'auto' });
  const none = await pollRate(n, { coordination: 'none' });
  say(`tasks/get per task per minute, ${n} tabs: ${auto.toFixed(0)} with coordination 'auto' (${(auto / one).toFixed(2)}x one tab), ${none.toFixed(0)} with 'none' (${(none / one).toFixed(2)}x)`);
}
for (const n of [1, 5]) {
  const hid = await pollRate(n, { coordination: 'auto', hidden: true });
  say(`tasks/get per task per minute, ${n} tab(s), all hidden (hiddenPollIntervalMs ${HIDDEN_MS}): ${hid.toFixed(0)} (${(hid / one).toFixed(3)}x visible)`);
}

// ------------------------------------------------------------------ store bytes, reload

{
  const context = await browser.newContext();
  const tab = await openTab(context, site);
  const bytes = await tab.evaluate(async (url) => {
    const answers = [];
    window.client = new window.mcp.McpClient(url, {
      extensions: ['io.modelcontextprotocol/tasks'],
      taskStore: 'indexeddb',
      elicitation: { form: true },
      onElicitation: (req) => {
        answers.push(req);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    });
    const sizes = async () => {
      const db = await new Promise((ok, fail) => {
        const r = indexedDB.open('mcp-wasm-client');
        r.onsuccess = () => ok(r.result);
        r.onerror = () => fail(r.error);
      });
      const names = [...db.objectStoreNames];
      const out = [];
      for (const name of names) {
        const all = await new Promise((ok, fail) => {
          const r = db.transaction(name).objectStore(name).getAll();
          r.onsuccess = () => ok(r.result);
          r.onerror = () => fail(r.error);
        });
        for (const v of all) out.push(new TextEncoder().encode(typeof v === 'string' ? v : JSON.stringify(v)).length);
      }
      db.close();
      return out;
    };
    const task = await window.client.callToolAsTask('task_slow', { ms: 600_000 });
    window.client.waitForTask(task).catch(() => {});
    await new Promise((r) => setTimeout(r, 500));
    const plain = await sizes();
    await window.client.cancelTask(task).catch(() => {});
    return { plain };
  }, mcpUrl);
  say(`store bytes per task (IndexedDB record as JSON, a working task): ${bytes.plain.join(', ') || 'none found'}`);

  // Reload: start a task, reload, resume; navigation start -> the first tasks/get after it.
  const json = await tab.evaluate(async (url) => {
    window.client = new window.mcp.McpClient(url, { extensions: ['io.modelcontextprotocol/tasks'], taskStore: 'indexeddb' });
    const task = await window.client.callToolAsTask('task_slow', { ms: 600_000 });
    window.client.waitForTask(task).catch(() => {});
    await new Promise((r) => setTimeout(r, 300));
    return task.toJSON();
  }, mcpUrl);
  const times = [];
  for (let i = 0; i < 5; i++) {
    await tab.reload();
    await tab.waitForFunction(() => window.mcpReady === true);
    const navStart = await tab.evaluate(async (url) => {
      window.client = new window.mcp.McpClient(url, { extensions: ['io.modelcontextprotocol/tasks'], taskStore: 'indexeddb' });
      const tasks = await window.client.resumeTasks();
      for (const t of tasks) window.client.waitForTask(t).catch(() => {});
      return performance.timeOrigin;
    }, mcpUrl);
    await new Promise((r) => setTimeout(r, 400));
    const log = await debugLog(mcpUrl);
    const first = log.find((e) => e.method === 'tasks/get' && e.body?.params?.taskId === json.taskId && e.time * 1000 >= navStart);
    if (first) times.push(first.time * 1000 - navStart);
  }
  times.sort((a, b) => a - b);
  say(`reload -> first poll of the resumed task (navigation start -> tasks/get at the server), ${times.length} reloads: median ${times.length ? times[times.length >> 1].toFixed(0) : '?'} ms, min ${times.length ? times[0].toFixed(0) : '?'} ms, max ${times.length ? times[times.length - 1].toFixed(0) : '?'} ms`);
  await tab.evaluate((id) => window.client.cancelTask(id).catch(() => {}), json.taskId);
  await context.close();
}

await browser.close();
await site.close();
process.exit(0);
