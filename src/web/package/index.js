// Entry of the mcp-wasm-client package. It instantiates the WebAssembly module once (top-
// level await, so importers never call an init function) and re-exports the API and the
// error classes. Works in pages, module workers, Node >= 20 and bundlers (Vite, esbuild).
import init, * as bindings from './mcp_wasm_client.js';

const wasmUrl = new URL('./mcp_wasm_client_bg.wasm', import.meta.url);

async function load() {
  if (wasmUrl.protocol === 'file:') {
    // Node's fetch cannot read file: URLs; read the module from disk. The specifier is a
    // variable so that bundlers targeting browsers leave it alone.
    const fsModule = 'node:fs/promises';
    const { readFile } = await import(/* @vite-ignore */ fsModule);
    return init({ module_or_path: await readFile(wasmUrl) });
  }
  return init({ module_or_path: wasmUrl });
}

await load();

export { McpClient, Task, version } from './mcp_wasm_client.js';

const classes = bindings.errorClasses();
export const McpClientError = classes.McpClientError;
export const McpError = classes.McpError;
export const HttpError = classes.HttpError;
export const TimeoutError = classes.TimeoutError;
export const AbortError = classes.AbortError;
export const NetworkError = classes.NetworkError;
export const CorsError = classes.CorsError;
export const InvalidResultError = classes.InvalidResultError;
export const ProtocolError = classes.ProtocolError;
export const MissingRequiredClientCapabilityError = classes.MissingRequiredClientCapabilityError;
export const UnsupportedProtocolVersionError = classes.UnsupportedProtocolVersionError;
export const OutputValidationError = classes.OutputValidationError;
export const InputRequiredError = classes.InputRequiredError;
export const InputValidationError = classes.InputValidationError;
export const HandlerError = classes.HandlerError;
export const CapabilityError = classes.CapabilityError;
export const TaskNotFoundError = classes.TaskNotFoundError;
export const TaskExpiredError = classes.TaskExpiredError;
export const TaskCancelledError = classes.TaskCancelledError;
export const TaskTimeoutError = classes.TaskTimeoutError;
export const TaskError = classes.TaskError;
export const ConfigError = classes.ConfigError;
export const AuthorizationError = classes.AuthorizationError;
