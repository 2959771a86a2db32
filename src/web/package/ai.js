// The AI SDK adapter: a server's MCP tools as AI SDK tools (`ai` >= 5, an optional peer
// dependency of the package: only this entry imports it).
//
// Each tool is an AI SDK dynamic tool (its types are known at run time only): the MCP
// tool's `inputSchema` is its JSON schema, its description is the tool's, and `execute`
// calls `client.callTool` with the SDK's abort signal. So the client's handlers answer the
// server's input requests, tasks are driven to their result and progress is reported
// inside an agent loop as in any other call.
//
// What the model sees (`toModelOutput`, in the SDK's tool-output shape):
//   isError                → { type: 'error-text', value: the text blocks }  (a tool error
//                             for the model; execute does not throw)
//   structuredContent      → { type: 'json', value: structuredContent }
//   text blocks only       → { type: 'text', value: the texts, one per line }
//   anything else          → { type: 'json', value: the content blocks }
// The tool's own output (`toolResults[i].output`) is the CallToolResult as the server sent it.
import { dynamicTool, jsonSchema } from 'ai';
import { ConfigError } from './index.js';

function texts(content) {
  return (content ?? []).filter((b) => b && b.type === 'text').map((b) => b.text);
}

/** The model's view of a CallToolResult (see the head of this file). */
export function toModelOutput(result) {
  const content = Array.isArray(result?.content) ? result.content : [];
  const lines = texts(content);
  if (result?.isError) {
    const value = lines.length > 0
      ? lines.join('\n')
      : result.structuredContent !== undefined ? JSON.stringify(result.structuredContent) : 'The tool reported an error.';
    return { type: 'error-text', value };
  }
  if (result?.structuredContent !== undefined && result.structuredContent !== null) {
    return { type: 'json', value: result.structuredContent };
  }
  if (lines.length === content.length) return { type: 'text', value: lines.join('\n') };
  return { type: 'json', value: content };
}

/**
 * `aiTools(client, { include })`: the server's tools (every page of `tools/list`), or those
 * named in `include` (a name the server does not have is a ConfigError), as an AI SDK
 * ToolSet for `generateText` / `streamText` / agents. Each name is an own property of the
 * set; a name the server lists twice is the first of those tools.
 */
export async function aiTools(client, options = {}) {
  const { include, signal, onProgress, onTaskStatus, timeoutMs } = options;
  const listed = await client.listAllTools(signal ? { signal } : {});
  let chosen = listed;
  if (include !== undefined) {
    const names = new Set(include);
    const missing = [...names].filter((name) => !listed.some((t) => t.name === name));
    if (missing.length > 0) throw new ConfigError(`aiTools: the server has no tool named ${missing.map((n) => JSON.stringify(n)).join(', ')}`);
    chosen = listed.filter((t) => names.has(t.name));
  }
  // Every name an own property, `__proto__` too (an assignment would set the set's prototype
  // instead). A name listed twice (the server broke its uniqueness): the first tool wins.
  const tools = {};
  for (const mcpTool of chosen) {
    const name = mcpTool.name;
    if (Object.hasOwn(tools, name)) continue;
    const tool = dynamicTool({
      description: mcpTool.description ?? mcpTool.title,
      inputSchema: jsonSchema({ ...mcpTool.inputSchema, type: 'object', properties: mcpTool.inputSchema?.properties ?? {} }),
      execute: (input, execution) => {
        const toolCallId = execution?.toolCallId;
        const opts = {};
        if (execution?.abortSignal) opts.signal = execution.abortSignal;
        if (timeoutMs !== undefined) opts.timeoutMs = timeoutMs;
        if (onProgress) opts.onProgress = (p) => onProgress(p, { toolName: name, toolCallId });
        if (onTaskStatus) opts.onTaskStatus = (task) => onTaskStatus(task, { toolName: name, toolCallId });
        const args = input && typeof input === 'object' && !Array.isArray(input) ? input : {};
        return client.callTool(name, args, opts);
      },
      // ai 5 passes the output itself; ai >= 6 passes { toolCallId, input, output }.
      toModelOutput: (arg) => toModelOutput(arg && typeof arg === 'object' && 'toolCallId' in arg && 'output' in arg ? arg.output : arg),
    });
    Object.defineProperty(tools, name, { value: tool, enumerable: true, writable: true, configurable: true });
  }
  return tools;
}
