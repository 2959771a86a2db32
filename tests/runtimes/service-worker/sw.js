// A module Service Worker registered by page.html. Module Service Workers may not use
// top-level await, so the package is entered through `mcp-wasm-client/load` (here by its
// served path) and instantiated on the first message. It answers the page's messages by
// calling the MCP server:
//   { op: 'scenario', mcp }          runs the shared scenario (../scenario.js)
//   { op: 'call', mcp, tool, args }  tools/call on one client kept across messages
// and replies on the MessageChannel port the page sent: { ok, value } or { ok: false, error }.
import { load } from '/pkg/load.js';
import { scenario } from '../scenario.js';

let client = null;
let calls = 0;

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('message', (e) => {
  const port = e.ports[0];
  const { op, mcp, tool, args } = e.data || {};
  e.waitUntil((async () => {
    try {
      const api = await load();
      const where = `${self instanceof ServiceWorkerGlobalScope ? 'ServiceWorkerGlobalScope' : 'not a service worker'}, window ${typeof window}`;
      let value;
      if (op === 'scenario') {
        value = { where, ...(await scenario(api, mcp, 'service-worker')) };
      } else if (op === 'call') {
        client = client || new api.McpClient(mcp, { clientInfo: { name: 'runtime-test-sw', version: '1.0.0' } });
        calls += 1;
        value = { where, calls, result: await client.callTool(tool, args || {}) };
      } else {
        throw new Error(`unknown op ${op}`);
      }
      port.postMessage({ ok: true, value });
    } catch (err) {
      port.postMessage({ ok: false, error: `${err && err.name}: ${err && err.message}` });
    }
  })());
});
