// Node: the client's one timer keeps the process alive exactly while the engine has a
// deadline (src/web/driver.rs `reschedule`). A task waited on by polling, with nothing in
// flight between the polls, must still end (the timer is referenced then); a client left
// open once its calls have ended must not hold the process (the timer is unreferenced), so
// the process exits by itself, long before the 60 s request deadline it last had.
// Prints one JSON line; tests/runtimes/run.mjs (runtime `node`) runs it with a time limit.
//
//   node tests/runtimes/node-idle.mjs <mcp url>
import { McpClient } from '../../pkg/index.js';

const client = new McpClient(process.argv[2], {
  clientInfo: { name: 'runtime-test-node', version: '1.0.0' },
  extensions: ['io.modelcontextprotocol/tasks'],
  // Polls only: no listen stream is in flight between them.
  pushTasks: false,
});
const text = (r) => r.content.map((c) => c.text).join('');
const t0 = Date.now();
const echo = text(await client.callTool('echo', { text: 'first' }));
const task = await client.callToolAsTask('task_slow', { ms: 1500 });
const done = await client.waitForTask(task);
const last = text(await client.callTool('echo', { text: 'last' }));
// No close(): the client is left as a host may leave it.
console.log(JSON.stringify({ echo, task: done.status, result: text(done.result), last, waitedMs: Date.now() - t0 >= 1500 }));
