// Entry of the mcp-wasm-client package. It instantiates the WebAssembly module once (top-
// level await, so importers never call an init function) and re-exports the API and the
// error classes. Works in pages, module workers, Node >= 20 and bundlers (Vite, esbuild).
// Hosts without top-level await (module Service Workers) use `mcp-wasm-client/load`.
import { load } from './load.js';

export const {
  McpClient,
  Task,
  version,
  McpClientError,
  McpError,
  HttpError,
  TimeoutError,
  AbortError,
  NetworkError,
  CorsError,
  InvalidResultError,
  ProtocolError,
  MissingRequiredClientCapabilityError,
  UnsupportedProtocolVersionError,
  OutputValidationError,
  InputRequiredError,
  InputValidationError,
  HandlerError,
  CapabilityError,
  TaskNotFoundError,
  TaskExpiredError,
  TaskCancelledError,
  TaskTimeoutError,
  TaskError,
  ConfigError,
  AuthorizationError,
} = await load();
