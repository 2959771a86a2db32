// A dedicated module worker for tests/lifecycle/peers.test.mjs (test 9): it waits on a task
// the page hands it (toJSON) with its own client, and posts the outcome back.
import * as mcp from '/pkg/index.js';

self.onmessage = async (e) => {
  const { url, task, pushTasks = 'auto' } = e.data;
  const client = new mcp.McpClient(url, {
    extensions: ['io.modelcontextprotocol/tasks'],
    headers: { 'X-Tab': 'worker' },
    pushTasks,
  });
  const statuses = [];
  try {
    const t = await client.waitForTask(task, { onTaskStatus: (s) => statuses.push(s.status) });
    self.postMessage({ ok: true, task: JSON.parse(JSON.stringify(t)), statuses });
  } catch (err) {
    self.postMessage({ ok: false, error: `${err && err.name}: ${err && err.message}` });
  } finally {
    client.close();
  }
};
self.postMessage({ ready: true });
