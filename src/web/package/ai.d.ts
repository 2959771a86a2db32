// Types of `mcp-wasm-client/ai` (the AI SDK, `ai` >= 5, an optional peer dependency).
import type { Tool as AiTool } from 'ai';
import type { CallToolResult, JsonValue, McpClient, Task } from './index.js';

/** Which tool call a progress or task report belongs to. */
export interface AiToolCallInfo { toolName: string; toolCallId: string | undefined }

export interface AiToolsOptions {
  /** Only these tools (a name the server does not have is a ConfigError). Default: every tool. */
  include?: readonly string[];
  /** Aborts the `tools/list` of `aiTools` itself. */
  signal?: AbortSignal;
  /** Progress of a call (the server's `notifications/progress`). */
  onProgress?: (progress: { progress: number; total?: number; message?: string }, call: AiToolCallInfo) => void;
  /** Each status of a task behind a call. */
  onTaskStatus?: (task: Task, call: AiToolCallInfo) => void;
  /** Time budget of each call in ms (default: the client's `requestTimeoutMs`). */
  timeoutMs?: number;
}

/** An MCP tool as an AI SDK tool: its output is the `CallToolResult`. */
export type McpAiTool = AiTool<unknown, CallToolResult>;

/** What the model is shown for a tool's result (the AI SDK's tool-output shape). */
export type McpToolModelOutput =
  | { type: 'text'; value: string }
  | { type: 'json'; value: JsonValue }
  | { type: 'error-text'; value: string };

/** The model's view of a result: `isError` → `error-text`, `structuredContent` → `json`,
 *  text blocks → `text`, other blocks → `json` of the blocks. */
export declare function toModelOutput(result: CallToolResult): McpToolModelOutput;

/** The server's tools (or those in `include`) as an AI SDK ToolSet. Every name is an own
 *  property (`__proto__` too: copy the set with spread or `Object.entries`, not
 *  `Object.assign`); a name the server lists twice is the first of those tools. */
export declare function aiTools(client: McpClient, options?: AiToolsOptions): Promise<Record<string, McpAiTool>>;
