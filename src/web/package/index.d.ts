// Types of the mcp-wasm-client package entry.
export { McpClient, Task, version } from './mcp_wasm_client.js';
export type * from './mcp_wasm_client.js';

export interface McpClientErrorOptions { code?: number; data?: unknown; status?: number; cause?: unknown }

/** Base class of every error the client throws. `name` says the kind. */
export declare class McpClientError extends Error {
  constructor(message: string, options?: McpClientErrorOptions);
  /** The JSON-RPC error code, when the server sent one. */
  code?: number;
  /** Error details: the server's `data`, or what the client knows (e.g. `{ taskId }`, `{ path }`). */
  data?: unknown;
  /** The HTTP status, when one came with the error. */
  status?: number;
}
/** A JSON-RPC error answered by the server (`code`, `message`, `data` as sent). Its
 *  subclasses the client may also find itself carry the spec's code for the condition
 *  (`-32022` for no common protocol version). */
export declare class McpError extends McpClientError { code: number }
/** An HTTP failure without a JSON-RPC body. */
export declare class HttpError extends McpClientError { status: number }
/** The call's time budget ran out. */
export declare class TimeoutError extends McpClientError {}
/** The call was aborted (its signal fired, or the client was closed). */
export declare class AbortError extends McpClientError {}
/** The request could not be sent or its response stream broke. */
export declare class NetworkError extends McpClientError {}
/** The browser blocked the exchange for CORS reasons; `data` names what the server must allow
 *  (`data.required`: the response headers to add, e.g. `Access-Control-Allow-Origin: <origin>`). */
export declare class CorsError extends McpClientError { data: CorsErrorData }
/** `CorsError.data` (README "CORS"). */
export interface CorsErrorData {
  reason: 'origin-not-allowed' | 'preflight-refused' | 'www-authenticate-not-exposed' | 'dpop-nonce-not-exposed';
  /** The page's origin (the one the server must allow) and the server's. */
  origin: string; serverOrigin: string;
  /** The URL of the refused request (for an OAuth flow's own request: the endpoint). */
  url: string;
  /** The request's headers that are not CORS-safelisted, a method other than GET/HEAD/POST, headers to expose. */
  allowHeaders: string[]; allowMethods: string[]; exposeHeaders: string[];
  /** The response headers the server must send, one `Name: value` line each. */
  required: string[];
  status?: number;
}
/** The server's answer is not a valid result for the request. */
export declare class InvalidResultError extends McpClientError {}
/** The peer broke the transport (bad SSE, oversized event or body, wrong content type). */
export declare class ProtocolError extends McpClientError {}
/** `-32021`: `data.requiredCapabilities` names what the server needs declared. */
export declare class MissingRequiredClientCapabilityError extends McpError {}
/** `-32022`: no protocol version both sides support (`data.supported`). */
export declare class UnsupportedProtocolVersionError extends McpError {}
/** `structuredContent` does not satisfy the tool's `outputSchema` (`data.path`). */
export declare class OutputValidationError extends McpClientError {}
/** The server's input requests could not be satisfied (too many rounds, an undeclared kind). */
export declare class InputRequiredError extends McpClientError {}
/** A handler's answer is invalid (e.g. it does not match `requestedSchema`); nothing was sent. */
export declare class InputValidationError extends McpClientError {}
/** Reserved: a handler's own error is rethrown unchanged. */
export declare class HandlerError extends McpClientError {}
/** A capability or extension is missing on either side (e.g. tasks not declared). */
export declare class CapabilityError extends McpClientError {}
/** The server does not know the task. */
export declare class TaskNotFoundError extends McpError {}
/** The task's TTL passed without a terminal status. */
export declare class TaskExpiredError extends McpClientError {}
/** The task was cancelled; `data` is the last task state. */
export declare class TaskCancelledError extends McpClientError {}
/** A wait ran out of time; the task keeps running (`data.taskId`). */
export declare class TaskTimeoutError extends McpClientError {}
/** A task operation that does not apply (e.g. on a local task). */
export declare class TaskError extends McpClientError {}
/** Invalid options or arguments. */
export declare class ConfigError extends McpClientError {}
/** OAuth authorization failed (`data.reason`, e.g. `resource-mismatch`, `iss-mismatch`); see `auth` in McpClientOptions. */
export declare class AuthorizationError extends McpClientError {}
