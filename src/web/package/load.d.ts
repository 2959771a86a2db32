/** What `mcp-wasm-client` exports: the client, `Task`, `version` and the error classes. */
export type McpApi = typeof import('./index.js');

/**
 * Where the WebAssembly module comes from: a compiled `WebAssembly.Module` (edge runtimes
 * that import `.wasm` files as modules), its bytes, a `Response` or a URL to fetch.
 */
export type WasmSource = WebAssembly.Module | BufferSource | Response | Promise<Response> | URL | string;

/**
 * Instantiates the WebAssembly module (once; later calls share the first) and resolves
 * with the package's API. For hosts where the main entry's top-level await is not allowed
 * (module Service Workers) or where the module is not a file next to this one. By default
 * the module is the `.wasm` file of the package.
 */
export declare function load(source?: WasmSource): Promise<McpApi>;
