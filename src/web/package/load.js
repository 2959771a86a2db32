// `load()`: the package's API once its WebAssembly module is instantiated, for hosts that
// cannot import the main entry. The main entry instantiates the module with a top-level
// await, which module Service Workers do not allow; and some edge runtimes hand the module
// over as a `WebAssembly.Module` import instead of a URL to fetch. The main entry itself is
// `await load()`.
import init, { McpClient, Task, errorClasses, version } from './mcp_wasm_client.js';

let loading = null;

/**
 * Instantiates the WebAssembly module (once; later calls share the first) and resolves
 * with the API the main entry exports. `source` is where the module comes from: by
 * default the `.wasm` file next to this one.
 */
export function load(source) {
  if (!loading) {
    loading = instantiate(source).catch((e) => {
      loading = null; // a failed load may be tried again
      throw e;
    });
  }
  return loading;
}

async function instantiate(source) {
  if (source === undefined) {
    const url = new URL('./mcp_wasm_client_bg.wasm', import.meta.url);
    if (url.protocol === 'file:') {
      // Node's fetch cannot read file: URLs; read the module from disk. The specifier is a
      // variable so that bundlers targeting browsers leave it alone.
      const fsModule = 'node:fs/promises';
      const { readFile } = await import(/* @vite-ignore */ fsModule);
      source = await readFile(url);
    } else {
      source = url;
    }
  }
  await init({ module_or_path: source });
  return { McpClient, Task, version, ...errorClasses() };
}
