// The floor for the many-tasks run: the same tasks created and polled with bare fetch
// (tools/call with the tasks capability, then tasks/get every pollIntervalMs until
// completed), no client. Runs in the page.
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
};
let nextId = 1;

async function rpc(url, method, params, name) {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    'mcp-name': name,
  };
  const body = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: META } });
  const res = await fetch(url, { method: 'POST', headers, body });
  return (await res.json()).result;
}

export async function createTasks(url, count) {
  const tasks = [];
  for (let i = 0; i < count; i += 50) {
    const k = Math.min(50, count - i);
    tasks.push(...(await Promise.all(Array.from({ length: k }, () => rpc(url, 'tools/call', { name: 'task', arguments: {} }, 'task')))));
  }
  return tasks;
}

export function waitAll(url, tasks) {
  return Promise.all(
    tasks.map(
      (t) =>
        new Promise((resolve, reject) => {
          const tick = async () => {
            try {
              const r = await rpc(url, 'tasks/get', { taskId: t.taskId }, t.taskId);
              if (r.status === 'completed') resolve(r.result);
              else setTimeout(tick, r.pollIntervalMs ?? 1000);
            } catch (e) {
              reject(e);
            }
          };
          setTimeout(tick, t.pollIntervalMs ?? 1000);
        }),
    ),
  );
}
