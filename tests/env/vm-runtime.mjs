// A runtime without window or DOM: a Node `vm` context whose global scope holds only
// what an edge runtime offers (fetch, Headers, Request, Response, AbortController,
// AbortSignal, setTimeout, clearTimeout, TextEncoder, TextDecoder, URL, console,
// WebAssembly, queueMicrotask) plus the JavaScript built-ins. The package's modules are
// loaded over HTTP, as such a runtime loads them, and linked with vm.SourceTextModule.
//
//   node --experimental-vm-modules tests/env/vm-runtime.mjs <mcp url> <base url serving /pkg/ and /env/>
import vm from 'node:vm';

const [mcpUrl, base] = process.argv.slice(2);
const context = vm.createContext({
  fetch, Headers, Request, Response, AbortController, AbortSignal, setTimeout, clearTimeout,
  TextEncoder, TextDecoder, URL, console, WebAssembly, queueMicrotask,
});

const modules = new Map();
async function load(url) {
  if (!modules.has(url)) {
    modules.set(url, (async () => {
      const res = await fetch(url);
      if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
      return new vm.SourceTextModule(await res.text(), {
        identifier: url,
        context,
        initializeImportMeta(meta) { meta.url = url; },
        importModuleDynamically(specifier) { throw new Error(`no dynamic import in this runtime (${specifier})`); },
      });
    })());
  }
  return modules.get(url);
}

const entry = new vm.SourceTextModule(`
  import * as mcp from '${base}/pkg/index.js';
  import { probe } from '${base}/env/probe.js';
  export const result = await probe(mcp, ${JSON.stringify(mcpUrl)}, 'vm');
  export const globals = ['window', 'self', 'document', 'navigator', 'process', 'crypto', 'performance', 'setInterval']
    .map((k) => k + ' ' + typeof globalThis[k]).join(', ');
`, { identifier: `${base}/entry.js`, context });

try {
  await entry.link((specifier, referrer) => load(new URL(specifier, referrer.identifier).href));
  await entry.evaluate();
  console.log(`${entry.namespace.result} | ${entry.namespace.globals}`);
} catch (e) {
  console.log(`ERROR ${e && e.name}: ${e && e.message}`);
}
