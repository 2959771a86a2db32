// Types of `mcp-wasm-client/react` (React >= 18, an optional peer dependency). The hooks'
// types do not depend on React's own type package.
import type {
  CallToolResult, Implementation, McpClient, McpClientError, McpClientOptions, Task, TaskJSON, TaskStatus, Tool,
} from './index.js';

/** `'connecting'` until the server answered `server/discover` and the tools are listed. */
export type McpClientStatus = 'connecting' | 'ready' | 'error' | 'closed';

export interface UseMcpClientResult {
  /** The shared client; `null` before the first commit, when `url` is empty, and when `url` or
   *  `options` are invalid (`status: 'error'`, a ConfigError). */
  client: McpClient | null;
  status: McpClientStatus;
  /** What put the client in `'error'`, or made the last `refresh` fail (cleared by a later
   *  listing that works). */
  error: McpClientError | Error | undefined;
  serverInfo: Implementation | undefined;
  /** Every tool, kept current through `subscriptions/listen` (tools list_changed). */
  tools: readonly Tool[];
  /** Lists the tools again; after an error, connects again. */
  refresh: () => Promise<void>;
}

/**
 * One client per `url` and `options` object (identity: keep the object stable), shared by
 * the components that pass the same pair and closed when the last of them unmounts.
 * A falsy `url` holds no client (`status: 'closed'`).
 */
export declare function useMcpClient(url: string | null | undefined, options?: McpClientOptions): UseMcpClientResult;

export interface UseTaskResult {
  /** The task as last seen (`undefined` before the first status when only an id was given). */
  task: Task | TaskJSON | undefined;
  /** The status the server last reported. An error of the wait alone (a handler's error, an
   *  answer the client refused, the network, a timeout) leaves it as it was, with `error` set;
   *  `'failed'` and `'cancelled'` come from the server only. */
  status: TaskStatus | undefined;
  statusMessage: string | undefined;
  /** The tool call's result once `completed`. */
  result: CallToolResult | undefined;
  /** Why the task failed or was cancelled, or why the wait broke (the task may still run). */
  error: McpClientError | Error | undefined;
  /** `tasks/cancel` (an acknowledgement; the status follows). */
  cancel: () => Promise<void>;
}

/**
 * Follows a task with `client.waitForTask` (its input requests go to the client's
 * handlers) until it ends or the component unmounts (the task keeps running then).
 */
export declare function useTask(client: McpClient | null | undefined, taskOrTaskId: Task | TaskJSON | string | null | undefined): UseTaskResult;
