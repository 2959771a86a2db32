// A dedicated worker waiting on a task (issue 13: a worker has no document and counts as
// visible; it uses navigator.onLine and the online/offline events of its global scope).
// Messages from the page: { mcpUrl, ms } starts a task and a wait (the worker posts
// { taskId }, later { outcome, net, fetches }); { net: 'offline' | 'online' } sets
// navigator.onLine and fires the event (Playwright's context.setOffline cuts a worker's
// network but fires no event there).
const mcp = await import('/pkg/index.js');
const net = [];
addEventListener('offline', () => net.push(['offline', Date.now()]));
addEventListener('online', () => net.push(['online', Date.now()]));
const fetches = [];
async function start(mcpUrl, ms) {
  const client = new mcp.McpClient(mcpUrl, {
    extensions: ['io.modelcontextprotocol/tasks'],
    pushTasks: false, // polls measured (issue 13); push-driven tasks: tests/js/suite.mjs
    fetch: (url, init) => {
      fetches.push({ t: Date.now(), body: String(init?.body ?? '') });
      return fetch(url, init);
    },
  });
  let outcome;
  try {
    const t = await client.callToolAsTask('task_slow', { ms });
    postMessage({ taskId: t.taskId });
    const r = await client.waitForTask(t);
    outcome = { ok: true, status: r.status };
  } catch (e) {
    outcome = { ok: false, error: `${e.name}: ${e.message}` };
  }
  postMessage({ outcome, net, fetches, hasDocument: typeof document !== 'undefined' });
}
self.onmessage = ({ data }) => {
  if (data.net) {
    const online = data.net === 'online';
    Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => online });
    dispatchEvent(new Event(data.net));
    return;
  }
  start(data.mcpUrl, data.ms);
};
postMessage({ ready: true });
