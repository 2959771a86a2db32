// A runtime without window or DOM: a Node `vm` context whose global scope holds only
// what an edge runtime offers (fetch, Headers, Request, Response, AbortController,
// AbortSignal, setTimeout, clearTimeout, TextEncoder, TextDecoder, URL, console,
// WebAssembly, queueMicrotask) plus the JavaScript built-ins. The package's modules are
// loaded over HTTP, as such a runtime loads them, and linked with vm.SourceTextModule.
//
//   node --experimental-vm-modules tests/env/vm-runtime.mjs <mcp url> <base url serving /pkg/ and /env/> [module]
//
// With `module`, the runtime works as edge runtimes that import `.wasm` files as compiled
// modules (Cloudflare Workers, Vercel Edge): the package is entered through
// `mcp-wasm-client/load` and given a `WebAssembly.Module` (the global `wasmModule`), and
// fetch refuses the package's `.wasm` URL, so nothing fetches it.
import vm from 'node:vm';

const [mcpUrl, base, mode] = process.argv.slice(2);
const given = mode === 'module';
const wasmUrl = `${base}/pkg/mcp_wasm_client_bg.wasm`;
const guardedFetch = (input, init) => {
  const url = input instanceof Request ? input.url : String(input);
  if (given && url === wasmUrl) return Promise.reject(new TypeError('this runtime does not fetch the .wasm'));
  return fetch(input, init);
};
const globals = {
  fetch: guardedFetch, Headers, Request, Response, AbortController, AbortSignal, setTimeout, clearTimeout,
  TextEncoder, TextDecoder, URL, console, WebAssembly, queueMicrotask,
};
if (given) globals.wasmModule = await WebAssembly.compile(await (await fetch(wasmUrl)).arrayBuffer());
const context = vm.createContext(globals);

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

const probeCall = given
  ? `import { load } from '${base}/pkg/load.js';
     export const result = await probe(await load(wasmModule), ${JSON.stringify(mcpUrl)}, 'vm-module');`
  : `import * as mcp from '${base}/pkg/index.js';
     export const result = await probe(mcp, ${JSON.stringify(mcpUrl)}, 'vm');`;
const entry = new vm.SourceTextModule(`
  import { probe } from '${base}/env/probe.js';
  ${probeCall}
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
