// A module Service Worker: module service workers may not use top-level await, so the
// package's main entry (which instantiates the wasm with one) cannot be imported here.
// `mcp-wasm-client/load` instantiates it when asked.
import { load } from '/pkg/load.js';
import { probe } from '/env/probe.js';

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('message', (e) => {
  const port = e.ports[0];
  e.waitUntil((async () => {
    const text = await load()
      .then((mcp) => probe(mcp, e.data.mcp, 'service-worker'))
      .catch((err) => `ERROR ${err && err.name}: ${err && err.message}`);
    port.postMessage(`${text} | window ${typeof window}, clients ${typeof self.clients}`);
  })());
});
