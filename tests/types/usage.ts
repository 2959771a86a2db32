// Every public signature of the package, used as an application would, checked with
// `tsc --noEmit --strict` against the built pkg/ (tests/types/check.mjs). Never run.
// `@ts-expect-error` lines prove the types are strict (an `any` would let them through).
import {
  AbortError,
  AuthorizationError,
  CapabilityError,
  ConfigError,
  CorsError,
  HandlerError,
  HttpError,
  InputRequiredError,
  InputValidationError,
  InvalidResultError,
  McpClient,
  McpClientError,
  McpError,
  MissingRequiredClientCapabilityError,
  NetworkError,
  OutputValidationError,
  ProtocolError,
  Task,
  TaskCancelledError,
  TaskError,
  TaskExpiredError,
  TaskNotFoundError,
  TaskTimeoutError,
  TimeoutError,
  UnsupportedProtocolVersionError,
  version,
} from 'mcp-wasm-client';
import type {
  AuthOptions,
  ClientCredentialsOptions,
  AuthorizeContext,
  AuthStorage,
  CallToolResult,
  CompleteResult,
  ContentBlock,
  CreateMessageRequestParams,
  CreateMessageResult,
  PromptReference,
  ResourceLink,
  DiscoverResult,
  ElicitRequestParams,
  ElicitResult,
  GetPromptResult,
  InputContext,
  InputResponses,
  JsonValue,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  McpClientOptions,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Root,
  ServerCapabilities,
  Subscription,
  SubscriptionFilter,
  TaskJSON,
  TaskStatus,
  Tool,
  TaskRecord,
  TaskStore,
} from 'mcp-wasm-client';
import { showElicitationDialog } from 'mcp-wasm-client/dialog';
import type { ElicitationDialogLabels, ElicitationDialogOptions } from 'mcp-wasm-client/dialog';
import { load } from 'mcp-wasm-client/load';
import type { McpApi, WasmSource } from 'mcp-wasm-client/load';
import { useMcpClient, useTask } from 'mcp-wasm-client/react';
import type { McpClientStatus, UseMcpClientResult, UseTaskResult } from 'mcp-wasm-client/react';
import { aiTools, toModelOutput } from 'mcp-wasm-client/ai';
import type { AiToolsOptions, McpAiTool, McpToolModelOutput } from 'mcp-wasm-client/ai';
import { generateText, stepCountIs, type ToolSet } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

/** `true` only for `any`. */
type IsAny<T> = 0 extends 1 & T ? true : false;
function notAny<T>(_value: T, _check: IsAny<T> extends false ? true : never): void {}
function same<A, B>(_check: [A] extends [B] ? ([B] extends [A] ? true : never) : never): void {}

declare function askPerson(request: ElicitRequestParams, ctx: InputContext): Promise<Record<string, string | number | boolean | string[]>>;

export async function everything(token: string, signal: AbortSignal): Promise<void> {
  const v: string = version();

  // ---- options
  const options: McpClientOptions = {
    clientInfo: { name: 'usage', version: '1.0.0', title: 'Usage' },
    protocolVersion: 'auto',
    headers: { Authorization: `Bearer ${token}` },
    extensions: ['io.modelcontextprotocol/tasks'],
    requestTimeoutMs: 30_000,
    maxTotalTimeoutMs: 600_000,
    hiddenPollIntervalMs: Infinity,
    fetch: (input, init) => fetch(input, init),
    onLog: ({ level, logger, data }) => console.log(level, logger, data),
    onNotification: (method, params) => console.log(method, params),
    onWarning: (message) => console.warn(message),
    logLevel: 'info',
    validateOutput: 'warn',
    onElicitation: async (request, ctx) => {
      same<typeof ctx.scope, 'request' | 'task'>(true);
      if (request.mode === 'url') {
        const target: string = request.url;
        console.log(target, ctx.host, ctx.origin);
        return ctx.isPunycode ? { action: 'decline' } : { action: 'accept' };
      }
      const fields = Object.keys(request.requestedSchema.properties);
      return fields.length ? { action: 'accept', content: await askPerson(request, ctx) } : { action: 'cancel' };
    },
    elicitation: { form: true, url: true },
    onSampling: (request: CreateMessageRequestParams, ctx: InputContext): CreateMessageResult => ({
      role: 'assistant',
      content: { type: 'text', text: `${request.messages.length} messages, ${ctx.key}` },
      model: 'person',
      stopReason: 'endTurn',
    }),
    sampling: { tools: false },
    roots: (ctx) => [{ uri: `file:///work/${ctx.method}`, name: 'work' }] satisfies Root[],
    maxInputRounds: 5,
    limits: { maxBodyBytes: 1 << 20, listenMaxRetries: 3 },
  };
  // Durable tasks: the built-in stores, and a host store (sync or async; pairs or keys).
  const kv = new Map<string, string>();
  const kvStore: TaskStore = {
    get: async (key) => kv.get(key),
    put: async (key, value: TaskRecord) => { kv.set(key, JSON.stringify(value)); },
    delete: (key) => kv.delete(key),
    list: async (prefix) => [...kv.keys()].filter((k) => k.startsWith(prefix)),
  };
  const stores: McpClientOptions[] = [
    { taskStore: 'indexeddb', storeAnswers: false }, { taskStore: 'memory' }, { taskStore: 'none' },
    { taskStore: kvStore, storeAnswers: true },
  ];
  void stores;
  // Push-driven tasks: 'auto' (the default) or false.
  const pushes: McpClientOptions[] = [{ pushTasks: 'auto' }, { pushTasks: false }];
  void pushes;
  // @ts-expect-error pushTasks is 'auto' or false
  const badPush: McpClientOptions = { pushTasks: true };
  void badPush;
  // Tasks scoped to an identity: a string.
  const scoped: McpClientOptions = { taskScope: 'user-42' };
  void scoped;
  // @ts-expect-error taskScope is a string
  const badScope: McpClientOptions = { taskScope: 42 };
  void badScope;
  // @ts-expect-error taskStore is one of three names or a store object
  const badStore: McpClientOptions = { taskStore: 'localStorage' };
  void badStore;
  // @ts-expect-error requestTimeoutMs is a number
  const badOptions: McpClientOptions = { requestTimeoutMs: '30s' };
  void badOptions;

  const client = new McpClient('https://example.com/mcp', options);
  const bare = new McpClient('https://example.com/mcp');
  const withHeaders = new McpClient('https://example.com/mcp', { headers: new Headers({ a: 'b' }), roots: [{ uri: 'file:///' }] });
  void bare;
  void withHeaders;

  // ---- the dialog, as a handler or wrapped
  const dialogClient = new McpClient('https://example.com/mcp', { onElicitation: showElicitationDialog });
  void dialogClient;
  const labels: Partial<ElicitationDialogLabels> = { submit: 'Send', open: 'Open' };
  const dialogOptions: ElicitationDialogOptions = {
    serverName: 'Example', title: 'Please answer', container: document.body, injectStyles: false,
    className: 'mine', labels, openUrl: (url) => window.open(url, '_blank', 'noopener,noreferrer'),
  };
  const answer: ElicitResult = await showElicitationDialog(
    { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string', minLength: 1 } }, required: ['name'] } },
    { signal, serverUrl: 'https://example.com/mcp' },
    dialogOptions,
  );
  const again = await showElicitationDialog({ mode: 'url', message: 'Open', url: 'https://example.com/' });
  same<typeof answer.action, 'accept' | 'decline' | 'cancel'>(true);
  notAny(again, true);
  // @ts-expect-error a request needs a message
  await showElicitationDialog({ requestedSchema: { type: 'object', properties: {} } });

  // ---- properties
  const url: string = client.url;
  const pv: string = client.protocolVersion;
  const era: 'modern' | 'legacy' | 'http+sse' = client.era;
  // @ts-expect-error era is a union of three strings
  const wrongEra: 'modern' = client.era;
  const tasksOn: boolean = client.tasksEnabled;
  const caps: ServerCapabilities | undefined = client.serverCapabilities;
  void [v, url, pv, era, wrongEra, tasksOn, caps];

  // ---- discovery and lists
  const info: DiscoverResult = await client.discover();
  await client.discover({ signal, timeoutMs: 5_000, cache: 'no-cache', logLevel: 'debug', _meta: { trace: 'x' } });
  const page: ListToolsResult = await client.listTools({ cursor: info.supportedVersions[0] });
  const tools: Tool[] = await client.listAllTools({ signal });
  const resources: ListResourcesResult = await client.listResources();
  const allResources: Resource[] = await client.listAllResources();
  const templates: ListResourceTemplatesResult = await client.listResourceTemplates({}, { timeoutMs: 1 });
  const allTemplates: ResourceTemplate[] = await client.listAllResourceTemplates();
  const read: ReadResourceResult = await client.readResource('test://hello', { signal });
  const prompts: ListPromptsResult = await client.listPrompts();
  const allPrompts: Prompt[] = await client.listAllPrompts();
  const prompt: GetPromptResult = await client.getPrompt('greet', { name: 'Ada' });
  const completion: CompleteResult = await client.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'name', value: 'A' });
  await client.complete({ type: 'ref/resource', uri: 'test://items/{id}' }, { name: 'id', value: '1' }, { arguments: {} }, { signal });
  notAny(page.tools[0], true);
  notAny(read.contents[0], true);
  notAny(prompt.messages[0].content, true);
  void [tools, resources, allResources, templates, allTemplates, prompts, allPrompts, completion.completion.values];

  // ---- calls
  const result: CallToolResult = await client.callTool('get_weather', { location: 'Seattle' }, {
    signal: AbortSignal.timeout(30_000),
    resetTimeoutOnProgress: true,
    onProgress: ({ progress, total, message }) => console.log(progress, total, message),
    onTaskStatus: (task) => console.log(task.status, task.statusMessage),
    taskTimeoutMs: 60_000,
  });
  await client.callTool('no_arguments');
  const blocks: ContentBlock[] = result.content;
  for (const b of blocks) {
    if (b.type === 'text') console.log(b.text);
    else if (b.type === 'image') console.log(b.mimeType, b.data.length);
    else if (b.type === 'resource_link') console.log(b.uri);
  }
  const structured: JsonValue | undefined = result.structuredContent;
  notAny(structured, true);
  // @ts-expect-error callTool's result has no `tasks`
  void result.tasks;

  // ---- tasks
  const task: Task = await client.callToolAsTask('deploy', { env: 'prod' }, { signal });
  const status: TaskStatus = task.status;
  const fields: [string, string | undefined, string, string, number | null, number | undefined, string] =
    [task.taskId, task.statusMessage, task.createdAt, task.lastUpdatedAt, task.ttlMs, task.pollIntervalMs, task.serverUrl];
  const flags: boolean[] = [task.isTerminal, task.isCompleted, task.isFailed, task.isCancelled, task.isInputRequired, task.isLocal, task.ttlElapsed()];
  const pending = task.inputRequests;
  if (pending) for (const [key, req] of Object.entries(pending)) console.log(key, req.method, req.params);
  const stored: TaskJSON = task.toJSON();
  const resumed: Task = Task.fromJSON(JSON.parse(JSON.stringify(stored)) as TaskJSON);
  const now: Task = await client.getTask(resumed);
  await client.getTask(task.taskId, { signal });
  const done: Task = await client.waitForTask(stored, { signal, timeoutMs: 60_000, maxTotalTimeoutMs: 120_000, onStatus: (t) => console.log(t.status) });
  const resumedTasks: Task[] = await client.resumeTasks();
  for (const t of resumedTasks) void client.waitForTask(t, { onStatus: (s) => console.log(s.status) });
  void client.waitForTask(stored, { onTaskStatus: (t) => console.log(t.statusMessage) }); // README's name for it
  const kind: 'complete' | undefined = taskResultKind(await client.callTool('x'));
  const leftEmpty: ElicitResult = { action: 'accept', content: { nickname: null, name: 'Ada' } };
  const taskResult: CallToolResult = await client.getTaskResult(done.taskId, { timeoutMs: 1_000 });
  const responses: InputResponses = { name: { action: 'accept', content: { name: 'Ada' } } };
  const updated: void = await client.updateTask(task, responses);
  const cancelled: void = await client.cancelTask(task, { signal });
  const failure = done.error;
  if (failure) console.log(failure.code, failure.message, failure.data);
  notAny(done.result, true);
  task.free();
  {
    using scoped = Task.fromJSON(stored);
    console.log(scoped.taskId);
  }
  void [status, fields, flags, now, taskResult, updated, cancelled];

  // ---- subscriptions
  const filter: SubscriptionFilter = { toolsListChanged: true, resourceSubscriptions: ['test://hello'], taskIds: [task.taskId] };
  const sub: Subscription = await client.listen(filter, (method, params) => console.log(method, params), {
    signal,
    onReconnect: ({ attempt, delayMs, reason }) => console.log(attempt, delayMs, reason),
  });
  await client.listen({ promptsListChanged: true });
  const granted: SubscriptionFilter = sub.acknowledged;
  const id: string | number = sub.subscriptionId;
  const reconnects: number = sub.reconnects;
  for await (const n of sub) {
    console.log(n.method, n.params);
    break;
  }
  sub.close();
  await sub.closed;
  void [granted, id, reconnects];

  // ---- errors
  try {
    await client.callTool('x', {});
  } catch (e) {
    if (e instanceof MissingRequiredClientCapabilityError) console.log(e.code, e.data);
    else if (e instanceof McpError) {
      const code: number = e.code;
      const data: unknown = e.data;
      console.log(code, data, e.message);
    } else if (e instanceof HttpError) {
      const s: number = e.status;
      console.log(s);
    } else if (e instanceof McpClientError) {
      const code: number | undefined = e.code;
      console.log(e.name, code, e.status);
      notAny(e.data, true);
    }
  }
  const classes = [
    McpClientError, McpError, HttpError, TimeoutError, AbortError, NetworkError, CorsError, InvalidResultError,
    ProtocolError, MissingRequiredClientCapabilityError, UnsupportedProtocolVersionError, OutputValidationError,
    InputRequiredError, InputValidationError, HandlerError, CapabilityError, TaskNotFoundError, TaskExpiredError,
    TaskCancelledError, TaskTimeoutError, TaskError, ConfigError, AuthorizationError,
  ];
  const made: McpClientError = new McpError('boom', { code: -32603, data: { why: 1 }, cause: new Error('root') });
  const fromServer: McpError = new TaskNotFoundError('gone', { code: -32602 });
  const plain: Error = new TaskCancelledError('stopped');
  void [classes, made, fromServer, plain];

  client.close();
}

// ---- OAuth (the `auth` option)
export async function oauth(signal: AbortSignal): Promise<void> {
  const storage: AuthStorage = {
    get: (key) => localStorage.getItem(key),
    set: async (key, value) => { localStorage.setItem(key, value); },
  };
  const auth: AuthOptions = {
    redirectUri: 'https://app.example/callback',
    clientMetadataUrl: 'https://app.example/client.json',
    scope: 'files:read',
    clientName: 'usage',
    applicationType: 'web',
    storage,
    onAuthorize: async (authorizationUrl: string, ctx: AuthorizeContext) => {
      const s: AbortSignal = ctx.signal;
      const issuer: string = ctx.issuer;
      const scope: string | undefined = ctx.scope;
      console.log(s.aborted, issuer, scope, ctx.resource, ctx.redirectUri, ctx.serverUrl);
      return new URL(`${ctx.redirectUri}?code=x`, authorizationUrl);
    },
  };
  const preRegistered: AuthOptions = {
    redirectUri: 'http://localhost:8765/cb', clientId: 'id', clientSecret: 'secret', issuer: 'https://as.example',
    onAuthorize: (url) => url,
  };
  // @ts-expect-error onAuthorize resolves with the callback URL
  const wrong: AuthOptions = { redirectUri: 'https://app.example/cb', onAuthorize: () => 42 };
  // @ts-expect-error applicationType is 'web' or 'native'
  const wrongType: AuthOptions = { redirectUri: 'https://app.example/cb', onAuthorize: (u) => u, applicationType: 'spa' };
  // The client credentials grant: no person, so no redirectUri nor onAuthorize.
  const machine: AuthOptions = { grant: 'client_credentials', clientId: 'svc', clientSecret: 's', scope: 'tools' };
  const machineOnly: ClientCredentialsOptions = { grant: 'client_credentials', clientId: 'svc', clientSecret: 's' };
  // @ts-expect-error the client credentials grant needs the client's secret
  const noSecret: AuthOptions = { grant: 'client_credentials', clientId: 'svc' };
  // @ts-expect-error grant is 'authorization_code' or 'client_credentials'
  const wrongGrant: AuthOptions = { grant: 'password', clientId: 'svc', clientSecret: 's' };
  // DPoP (issue 16): 'auto' by default, or true / false.
  const bound: AuthOptions = { redirectUri: 'https://app.example/cb', onAuthorize: (u) => u, dpop: true };
  const unbound: AuthOptions = { redirectUri: 'https://app.example/cb', onAuthorize: (u) => u, dpop: 'auto' };
  // @ts-expect-error dpop is true, false or 'auto'
  const wrongDpop: AuthOptions = { redirectUri: 'https://app.example/cb', onAuthorize: (u) => u, dpop: 'always' };
  // private_key_jwt: a CryptoKey or a JWK instead of the secret, never both.
  const key: CryptoKey = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign'])).privateKey;
  const signed: AuthOptions = { grant: 'client_credentials', clientId: 'bot', privateKey: key, keyId: 'k1', algorithm: 'ES256' };
  const jwk: JsonWebKey = { kty: 'RSA' };
  const rsa: ClientCredentialsOptions = { grant: 'client_credentials', clientId: 'bot', privateKey: jwk, algorithm: 'RS256', dpop: false };
  // @ts-expect-error a secret and a key together
  const both: AuthOptions = { grant: 'client_credentials', clientId: 'bot', clientSecret: 's', privateKey: key };
  // @ts-expect-error algorithm is 'ES256' or 'RS256'
  const wrongAlg: AuthOptions = { grant: 'client_credentials', clientId: 'bot', privateKey: key, algorithm: 'HS256' };
  void [bound, unbound, wrongDpop, signed, rsa, both, wrongAlg];
  void [preRegistered, wrong, wrongType, machine, machineOnly, noSecret, wrongGrant];
  const client = new McpClient('https://mcp.example/mcp', { auth });
  const done: void = await client.authorize({ signal });
  void done;
  try {
    await client.listAllTools();
  } catch (e) {
    if (e instanceof AuthorizationError) {
      notAny(e.data, true);
      console.log(e.message, e.data);
    }
  }
  client.close();
}

// `mcp-wasm-client/load` (module Service Workers, edge runtimes): the same API, typed.
async function loaded(module: WebAssembly.Module) {
  const api: McpApi = await load();
  const fromModule = await load(module);
  const source: WasmSource = new URL('https://cdn.example/mcp.wasm');
  await load(source);
  const client = new fromModule.McpClient('https://mcp.example/mcp');
  const same: typeof McpClient = api.McpClient;
  notAny(api.McpError, true);
  notAny(await client.listAllTools(), true);
  try {
    await client.discover();
  } catch (e) {
    if (e instanceof api.McpError) {
      const code: number = e.code;
      console.log(code);
    }
  }
  // (No @ts-expect-error for a wrong source: TypeScript's `WebAssembly.Module` is an empty
  // interface, which every non-null value satisfies.)
  notAny(fromModule, true);
  void same;
}
void loaded;

// `mcp-wasm-client/react`: the hooks' results, typed without React's own type package.
const reactOptions: McpClientOptions = { extensions: ['io.modelcontextprotocol/tasks'] };
function ToolsPanel(props: { url: string; taskId: string | null }) {
  const { client, status, error, serverInfo, tools, refresh }: UseMcpClientResult = useMcpClient(props.url, reactOptions);
  same<typeof status, 'connecting' | 'ready' | 'error' | 'closed'>(true);
  const s: McpClientStatus = status;
  const c: McpClient | null = client;
  const name: string | undefined = serverInfo?.name;
  const names: string[] = tools.map((t: Tool) => t.name);
  const message: string | undefined = error?.message;
  const again: Promise<void> = refresh();
  // @ts-expect-error the tool list is read-only
  tools.push({ name: 'x', inputSchema: { type: 'object' } });
  useMcpClient(null);
  // @ts-expect-error the url is a string
  useMcpClient(42);
  const { task, status: taskStatus, statusMessage, result, error: taskError, cancel }: UseTaskResult = useTask(client, props.taskId);
  const ts: TaskStatus | undefined = taskStatus;
  const text: ContentBlock[] | undefined = result?.content;
  const id: string | undefined = task?.taskId;
  const cancelled: Promise<void> = cancel();
  useTask(client, task);
  // @ts-expect-error a task is a Task, TaskJSON or id
  useTask(client, 7);
  notAny(task, true);
  notAny(result, true);
  void [s, c, name, names, message, again, ts, text, id, cancelled, statusMessage, taskError];
}
void ToolsPanel;

// `mcp-wasm-client/ai`: the tools go straight into generateText.
async function agent(client: McpClient, signal: AbortSignal) {
  const options: AiToolsOptions = {
    include: ['search', 'deploy'],
    signal,
    onProgress: (p, call) => console.log(call.toolName, call.toolCallId, p.progress, p.total),
    onTaskStatus: (task: Task, call) => console.log(call.toolName, task.status),
    timeoutMs: 30_000,
  };
  const tools = await aiTools(client, options);
  const all: Record<string, McpAiTool> = await aiTools(client);
  const set: ToolSet = tools;
  const model = new MockLanguageModelV4();
  const { text, toolResults } = await generateText({ model, tools, prompt: 'deploy it', stopWhen: stepCountIs(5) });
  const answer: string = text;
  for (const r of toolResults) notAny(r, true);
  const shown: McpToolModelOutput = toModelOutput({ content: [{ type: 'text', text: 'hi' }] });
  if (shown.type === 'json') {
    const v: JsonValue = shown.value;
    void v;
  }
  // @ts-expect-error include is a list of names
  await aiTools(client, { include: 'search' });
  notAny(tools, true);
  notAny(all.search, true);
  void [set, answer];
}
void agent;

/** `resultType` is declared on results (spec `Result`). */
function taskResultKind(r: CallToolResult): 'complete' | undefined {
  return r.resultType;
}

/** Optional members the spec's schema gives (2026-07-28 `schema.json`). */
export const specOptionals: [ResourceLink, PromptReference, Root, CreateMessageResult] = [
  { type: 'resource_link', uri: 'file:///a', name: 'a', icons: [{ src: 'https://example.com/a.png', sizes: ['48x48'] }] },
  { type: 'ref/prompt', name: 'p', title: 'P' },
  { uri: 'file:///work', _meta: { pinned: true } },
  { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm', _meta: { cost: 1 } },
];
