//! TypeScript declarations for the JS API's option objects and results (wasm-bindgen
//! appends them to the generated `.d.ts`; the classes' signatures refer to them).
//! Names follow the spec's `schema.ts`.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** `Implementation` (clientInfo / serverInfo). */
export interface Implementation { name: string; version: string; title?: string; description?: string; websiteUrl?: string; icons?: Icon[]; [key: string]: unknown }
export interface Icon { src: string; mimeType?: string; sizes?: string[]; theme?: 'light' | 'dark' }

export type LoggingLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/** The context passed to input handlers. */
export interface InputContext {
  /** Fires when the call is aborted, times out, or the question becomes moot. */
  signal: AbortSignal;
  /** `request`: an MRTR round of a call; `task`: a task's input request. */
  scope: 'request' | 'task';
  taskId?: string;
  /** The input request's key. */
  key: string;
  /** The method that asked (`tools/call`, `prompts/get`, `resources/read`). */
  method: string;
  serverUrl: string;
  /** URL-mode elicitation: the URL, its origin, host (with port, as `URL#host`) and hostname, and whether the host is punycode (xn--). */
  url?: string;
  origin?: string;
  host?: string;
  hostname?: string;
  isPunycode?: boolean;
}

export interface ElicitRequestFormParams { mode?: 'form'; message: string; requestedSchema: { type: 'object'; properties: Record<string, PrimitiveSchemaDefinition>; required?: string[] }; _meta?: JsonObject }
export interface ElicitRequestURLParams { mode: 'url'; message: string; url: string; elicitationId?: string; _meta?: JsonObject }
export type ElicitRequestParams = ElicitRequestFormParams | ElicitRequestURLParams;
export type PrimitiveSchemaDefinition =
  | { type: 'string'; title?: string; description?: string; minLength?: number; maxLength?: number; format?: 'email' | 'uri' | 'date' | 'date-time'; default?: string; enum?: string[]; enumNames?: string[]; oneOf?: { const: string; title: string }[] }
  | { type: 'number' | 'integer'; title?: string; description?: string; minimum?: number; maximum?: number; default?: number }
  | { type: 'boolean'; title?: string; description?: string; default?: boolean }
  | { type: 'array'; title?: string; description?: string; minItems?: number; maxItems?: number; items: { type?: 'string'; enum?: string[]; anyOf?: { const: string; title: string }[] }; default?: string[] };
export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  /** The answers by field. `null` leaves an optional field empty; a field left out gets its `default`. */
  content?: Record<string, string | number | boolean | string[] | null>;
}

export interface SamplingMessage { role: 'user' | 'assistant'; content: SamplingContent | SamplingContent[]; _meta?: JsonObject }
export type SamplingContent = TextContent | ImageContent | AudioContent | { type: 'tool_use'; id: string; name: string; input: JsonObject } | { type: 'tool_result'; toolUseId: string; content: ContentBlock[]; structuredContent?: JsonValue; isError?: boolean };
export interface CreateMessageRequestParams {
  messages: SamplingMessage[]; maxTokens: number; systemPrompt?: string; temperature?: number; stopSequences?: string[];
  modelPreferences?: { hints?: { name?: string }[]; costPriority?: number; speedPriority?: number; intelligencePriority?: number };
  includeContext?: 'none' | 'thisServer' | 'allServers'; metadata?: JsonObject; tools?: Tool[]; toolChoice?: { mode?: 'auto' | 'required' | 'none' };
}
export interface CreateMessageResult { role: 'assistant' | 'user'; content: SamplingContent | SamplingContent[]; model: string; stopReason?: 'endTurn' | 'stopSequence' | 'maxTokens' | 'toolUse' | string; _meta?: JsonObject }
export interface Root { uri: string; name?: string; _meta?: JsonObject }
export interface ListRootsResult { roots: Root[] }

/** Options of `new McpClient(url, options)`. */
export interface McpClientOptions {
  clientInfo?: Implementation;
  /** `'auto'` (default) detects the server's era; a version pins it. */
  protocolVersion?: 'auto' | '2026-07-28' | '2025-11-25' | '2025-06-18' | '2025-03-26' | '2024-11-05' | (string & {});
  /** Sent on every request (e.g. `Authorization`). */
  headers?: Record<string, string> | Headers | [string, string][];
  /** Extensions to declare, e.g. `['io.modelcontextprotocol/tasks']` or `{ id: settings }`. */
  extensions?: string[] | Record<string, JsonObject>;
  /** Default time budget of a request in ms (server time; paused while a person answers). Default 60 000. */
  requestTimeoutMs?: number;
  /** Hard maximum of a call's wall time, human time included. */
  maxTotalTimeoutMs?: number;
  /** Tasks are polled at most this often while the page is hidden (never faster than their pollIntervalMs); `Infinity` pauses. Default 60 000. */
  hiddenPollIntervalMs?: number;
  /** A custom fetch (default: the global one). It gets `init.headers` as a `Headers` and
   *  `init.body` as a string; the global fetch is handed the body as UTF-8 bytes. */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** `notifications/message` log lines the server sent. */
  onLog?: (params: { level: LoggingLevel; logger?: string; data: unknown }) => void;
  /** Server notifications (list changes, resource updates, tasks). */
  onNotification?: (method: string, params: Record<string, unknown>) => void;
  /** Non-fatal problems (dropped tools, ignored messages). Default: console.warn. */
  onWarning?: (message: string) => void;
  /** Log level asked on every request (`_meta` `io.modelcontextprotocol/logLevel`). */
  logLevel?: LoggingLevel;
  /** `structuredContent` vs `outputSchema`: reject (default), warn, or skip. */
  validateOutput?: 'strict' | 'warn' | 'off';
  onElicitation?: (request: ElicitRequestParams, ctx: InputContext) => ElicitResult | Promise<ElicitResult>;
  /** Elicitation modes declared (default `{ form: true }` when a handler is given). */
  elicitation?: { form?: boolean; url?: boolean };
  onSampling?: (request: CreateMessageRequestParams, ctx: InputContext) => CreateMessageResult | Promise<CreateMessageResult>;
  sampling?: { tools?: boolean; context?: boolean };
  roots?: Root[] | ((ctx: InputContext) => Root[] | Promise<Root[]>);
  /** MRTR rounds per call and input rounds per task (over: InputRequiredError). Default 10. */
  maxInputRounds?: number;
  /** Tasks shared by the origin's tabs and workers: `'auto'` (default; where Web Locks and
   * BroadcastChannel exist, and the tasks extension is declared) polls each task from one
   * context and shows each question in one (a visible one preferred); `'none'`: every client
   * polls and asks on its own. */
  coordination?: 'auto' | 'none';
  /** Who the tasks belong to (1 to 200 characters; e.g. the signed-in user's id): tasks are
   * stored, resumed and shared between tabs only among clients of the same scope (and the
   * same server URL). Unset, one origin and one server URL are one identity: set it when
   * several people (or accounts) may use one server URL from one origin. */
  taskScope?: string;
  /** Push-driven tasks: tasks you wait on are listened for on one shared
   * `subscriptions/listen` stream (`notifications/tasks`); once the server acknowledges a
   * task, `tasks/get` is only a backstop (at most once per `max(pollIntervalMs, 60 s)`, and
   * at once after the stream drops). Servers that do not acknowledge are polled as before.
   * Default `'auto'`; `false` polls only. */
  pushTasks?: 'auto' | false;
  /** Bounds on what a server can make the client hold or do (README "Limits"). */
  limits?: {
    /** Data of one SSE event (over: ProtocolError). Default 16 MiB. */
    maxEventBytes?: number;
    /** One JSON response body (over: ProtocolError). Default 64 MiB. */
    maxBodyBytes?: number;
    /** Handlers of one call or task running at once; the others wait. Default 8. */
    maxConcurrentInputs?: number;
    /** Entries of one inputRequests (over: InvalidResultError, no handler runs), and a
     * 2025-era server's requests waiting for handlers at once (over: answered with a
     * JSON-RPC error). Default 64. */
    maxInputRequests?: number;
    /** Failed re-listens in a row before a subscription is lost (NetworkError). Default 8. */
    listenMaxRetries?: number;
    /** First re-listen delay, doubled each attempt (default 500) up to listenMaxBackoffMs (default 30 000). */
    listenBackoffMs?: number; listenMaxBackoffMs?: number;
    /** Wait for the listen acknowledgement (over: TimeoutError). Default 30 000. */
    listenAckTimeoutMs?: number;
  };
  /** OAuth 2.1 authorization: on a 401 (or 403 `insufficient_scope`) the client discovers the
   * authorization server, gets a token through your `onAuthorize`, and retries with it. */
  auth?: AuthOptions;
  /** Durable tasks: where tasks are kept so that `resumeTasks()` finds them after a reload.
   * Default `'indexeddb'` where IndexedDB exists, else `'memory'`; `'none'` stores nothing.
   * What a store that fails does not keep is kept in memory, with one `onWarning`; the store
   * is tried again for every change. */
  taskStore?: 'indexeddb' | 'memory' | 'none' | TaskStore;
  /** Keep answers sent but not yet acknowledged in the task store, to re-send them after a
   * reload (default true). `false`: answers are never written; such a question is asked
   * again after a reload. */
  storeAnswers?: boolean;
}

/** A host task store (e.g. a KV binding). Each method may return a value or a promise.
 * `list(prefix)` gives the entries whose key starts with `prefix`: `[key, value]` pairs,
 * or keys only (each then read with `get`). A value may be the record or its JSON text. */
export interface TaskStore {
  get(key: string): unknown;
  put(key: string, value: TaskRecord): unknown;
  delete(key: string): unknown;
  list(prefix: string): Array<[string, unknown] | string> | Promise<Array<[string, unknown] | string>>;
}

/** What the task store keeps of a task (format version `v`). */
export interface TaskRecord {
  v: 1;
  /** The handle, as `Task#toJSON()` gives it (last status, `inputRequests`, `serverUrl`). */
  task: TaskJSON;
  /** The tool that created the task, when known. */
  tool: string | null;
  /** Input keys answered and acknowledged by the server (never asked again). */
  acked: string[];
  /** Answers sent but not yet acknowledged (only with `storeAnswers`). */
  pending?: Record<string, unknown>;
}

/** The `auth` option: the authorization code grant (a person signs in; the default) or the
 * client credentials grant (a confidential client, no person). */
export type AuthOptions = AuthorizationCodeOptions | ClientCredentialsOptions;

/** The authorization code grant with PKCE. Client identity, in the spec's order: `clientId`
 * (pre-registered), then `clientMetadataUrl` when the server supports Client ID Metadata
 * Documents, then Dynamic Client Registration. */
export interface AuthorizationCodeOptions {
  grant?: 'authorization_code';
  /** Where the authorization server sends the person back (https:, or http: on localhost). */
  redirectUri: string;
  /** The person's step: open `authorizationUrl` (a popup, a redirect, a system browser) and
   * resolve with the full URL the authorization server redirected to (`redirectUri?code=…`). */
  onAuthorize: (authorizationUrl: string, ctx: AuthorizeContext) => string | URL | Promise<string | URL>;
  /** A pre-registered client. */
  clientId?: string;
  clientSecret?: string;
  /** The authorization server (`issuer`) the pre-registered client belongs to. */
  issuer?: string;
  /** Your Client ID Metadata Document (an https: URL with a path). */
  clientMetadataUrl?: string;
  /** Scopes to ask for besides those the server asks for (space-separated). */
  scope?: string;
  /** `client_name` for Dynamic Client Registration (default: `clientInfo.name`). */
  clientName?: string;
  /** DCR `application_type` (default: `native` for a localhost redirect, else `web`). */
  applicationType?: 'web' | 'native';
  /** DPoP (RFC 9449): tokens bound to a non-extractable ES256 key of this client, so a token
   * copied out of the page is useless elsewhere. `'auto'` (default): when the authorization
   * server lists ES256 in `dpop_signing_alg_values_supported`; `true`: required (else an
   * `AuthorizationError`, `data.reason` `'dpop-unsupported'`); `false`: never. With `storage`
   * the key pair is kept there as a `CryptoKeyPair` (IndexedDB keeps it by structured clone;
   * with a storage of strings, in the IndexedDB database `mcp-wasm-client-dpop`), else for
   * the client's life. */
  dpop?: boolean | 'auto';
  /** A pre-registered client that authenticates with `private_key_jwt` (RFC 7523) instead of
   * `clientSecret` (never both): see {@link ClientCredentialsKeyOptions}. */
  privateKey?: CryptoKey | JsonWebKey;
  keyId?: string;
  algorithm?: 'ES256' | 'RS256';
  /** Keeps registrations and tokens (refresh tokens included) across page loads, keyed by
   * authorization server, and each pending authorization request until its code is exchanged
   * (so a page that navigated away can finish it: README "Sign in from a browser app"; `set(key, '')`
   * clears one). Values are strings; `get` resolves to `null`/`undefined` when absent. */
  storage?: AuthStorage;
}

/** The client credentials grant (RFC 6749 §4.4; MCP extension
 * `io.modelcontextprotocol/oauth-client-credentials`): the client gets its own token with
 * its pre-registered id and secret, no person involved. For servers, workers and edge
 * runtimes that can keep a secret, never a page. */
export type ClientCredentialsOptions = ClientCredentialsSecretOptions | ClientCredentialsKeyOptions;
/** The client credentials grant with a client secret (`client_secret_basic` or `_post`). */
export interface ClientCredentialsSecretOptions extends ClientCredentialsCommon {
  clientSecret: string;
  privateKey?: never;
}
/** The client credentials grant with `private_key_jwt` (RFC 7523 §2.2): each token request
 * carries a client assertion (`iss` = `sub` = `clientId`, `aud` = the issuer, 5 minutes)
 * signed with `privateKey`; no shared secret. */
export interface ClientCredentialsKeyOptions extends ClientCredentialsCommon {
  clientSecret?: never;
  /** A private `CryptoKey` (may be non-extractable) or a private JWK. */
  privateKey: CryptoKey | JsonWebKey;
  /** The `kid` of the assertion's header. */
  keyId?: string;
  /** Default `'ES256'` (ECDSA P-256); `'RS256'` for an RSA key. */
  algorithm?: 'ES256' | 'RS256';
}
export interface ClientCredentialsCommon {
  grant: 'client_credentials';
  clientId: string;
  /** DPoP, as for the authorization code grant. */
  dpop?: boolean | 'auto';
  /** The authorization server (`issuer`) the client belongs to. */
  issuer?: string;
  /** Scopes to ask for besides those the server asks for (space-separated). */
  scope?: string;
  /** Keeps tokens across restarts, keyed by authorization server. */
  storage?: AuthStorage;
}
/** Values are JSON text, except the DPoP key pair (`dpop`), which `set` gets as the
 * `CryptoKeyPair` itself under a key of its own (`mcp-wasm-client:oauth:dpop:…`): a storage
 * that keeps values by structured clone (IndexedDB) keeps the key across loads without ever
 * exporting it; with a string-only one (localStorage) the pair goes to the IndexedDB
 * database `mcp-wasm-client-dpop` instead (where there is IndexedDB). */
export interface AuthStorage {
  get(key: string): string | null | undefined | Promise<string | null | undefined>;
  set(key: string, value: string): void | Promise<void>;
}
/** The context of `onAuthorize`. */
export interface AuthorizeContext {
  /** Fires when the flow is moot (the client closed): close your popup. */
  signal: AbortSignal;
  serverUrl: string;
  /** The authorization server the person signs in at. */
  issuer: string;
  /** The protected resource the token is for (`resource` parameter). */
  resource: string;
  /** The scopes asked for, if any. */
  scope?: string;
  redirectUri: string;
}

/** Options of one request. */
export interface RequestOptions {
  signal?: AbortSignal;
  /** Time budget in ms (server time); default: the client's `requestTimeoutMs`. */
  timeoutMs?: number;
  resetTimeoutOnProgress?: boolean;
  maxTotalTimeoutMs?: number;
  onProgress?: (p: { progress: number; total?: number; message?: string }) => void;
  /** `'no-cache'` skips the cache lookup (the fresh result is still cached). */
  cache?: 'default' | 'no-cache';
  logLevel?: LoggingLevel;
  _meta?: JsonObject;
}
export interface CallToolOptions extends RequestOptions {
  /** Called when the task behind the call changes. */
  onTaskStatus?: (task: Task) => void;
  /** Budget of the wait for a task (default: until it ends or its TTL passes). */
  taskTimeoutMs?: number;
}
export interface WaitOptions {
  signal?: AbortSignal;
  /** Budget of the wait; an elapsed budget sends nothing. The task keeps running. */
  timeoutMs?: number;
  maxTotalTimeoutMs?: number;
  /** Called when the task changes (as `CallToolOptions.onTaskStatus`). */
  onTaskStatus?: (task: Task) => void;
  /** The same as `onTaskStatus` (read when that is not given). */
  onStatus?: (task: Task) => void;
}
export interface ListenOptions { signal?: AbortSignal; onReconnect?: (info: { attempt: number; delayMs: number; reason: string }) => void }
export interface PageParams { cursor?: string }

export interface Annotations { audience?: ('user' | 'assistant')[]; priority?: number; lastModified?: string }
export interface TextContent { type: 'text'; text: string; annotations?: Annotations; _meta?: JsonObject }
export interface ImageContent { type: 'image'; data: string; mimeType: string; annotations?: Annotations; _meta?: JsonObject }
export interface AudioContent { type: 'audio'; data: string; mimeType: string; annotations?: Annotations; _meta?: JsonObject }
export interface ResourceLink { type: 'resource_link'; uri: string; name: string; title?: string; description?: string; mimeType?: string; size?: number; icons?: Icon[]; annotations?: Annotations; _meta?: JsonObject }
export interface TextResourceContents { uri: string; mimeType?: string; text: string; _meta?: JsonObject }
export interface BlobResourceContents { uri: string; mimeType?: string; blob: string; _meta?: JsonObject }
export interface EmbeddedResource { type: 'resource'; resource: TextResourceContents | BlobResourceContents; annotations?: Annotations; _meta?: JsonObject }
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

export interface ToolAnnotations { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean }
export interface Tool { name: string; title?: string; description?: string; icons?: Icon[]; inputSchema: JsonObject & { type: 'object' }; outputSchema?: JsonObject; annotations?: ToolAnnotations; _meta?: JsonObject }
/** What every result carries (spec `Result`): `resultType` is `"complete"` in what reaches the host
 *  (the client itself handles `input_required` and `task`), and absent from servers of older eras. */
export interface ResultBase { resultType?: 'complete'; _meta?: JsonObject }
export interface CacheHints extends ResultBase { ttlMs?: number; cacheScope?: 'public' | 'private' }
export interface ListToolsResult extends CacheHints { tools: Tool[]; nextCursor?: string; _meta?: JsonObject }
export interface CallToolResult extends ResultBase { content: ContentBlock[]; structuredContent?: JsonValue; isError?: boolean; _meta?: JsonObject }
export interface Resource { uri: string; name: string; title?: string; description?: string; mimeType?: string; size?: number; icons?: Icon[]; annotations?: Annotations; _meta?: JsonObject }
export interface ResourceTemplate { uriTemplate: string; name: string; title?: string; description?: string; mimeType?: string; icons?: Icon[]; annotations?: Annotations; _meta?: JsonObject }
export interface ListResourcesResult extends CacheHints { resources: Resource[]; nextCursor?: string }
export interface ListResourceTemplatesResult extends CacheHints { resourceTemplates: ResourceTemplate[]; nextCursor?: string }
export interface ReadResourceResult extends CacheHints { contents: (TextResourceContents | BlobResourceContents)[]; _meta?: JsonObject }
export interface PromptArgument { name: string; title?: string; description?: string; required?: boolean }
export interface Prompt { name: string; title?: string; description?: string; arguments?: PromptArgument[]; icons?: Icon[]; _meta?: JsonObject }
export interface ListPromptsResult extends CacheHints { prompts: Prompt[]; nextCursor?: string }
export interface PromptMessage { role: 'user' | 'assistant'; content: ContentBlock }
export interface GetPromptResult extends ResultBase { description?: string; messages: PromptMessage[]; _meta?: JsonObject }
export interface PromptReference { type: 'ref/prompt'; name: string; title?: string }
export interface ResourceTemplateReference { type: 'ref/resource'; uri: string }
export interface CompleteResult extends ResultBase { completion: { values: string[]; total?: number; hasMore?: boolean } }
export interface ServerCapabilities {
  experimental?: Record<string, JsonObject>; logging?: JsonObject; completions?: JsonObject;
  prompts?: { listChanged?: boolean }; resources?: { subscribe?: boolean; listChanged?: boolean };
  tools?: { listChanged?: boolean }; extensions?: Record<string, JsonObject>;
}
export interface DiscoverResult extends CacheHints {
  supportedVersions: string[]; capabilities: ServerCapabilities; serverInfo?: Implementation; instructions?: string; _meta?: JsonObject;
}

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
export interface InputRequest { method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list'; params?: JsonObject }
export type InputRequests = Record<string, InputRequest>;
export type InputResponses = Record<string, ElicitResult | CreateMessageResult | ListRootsResult>;
export interface JsonRpcErrorObject { code: number; message: string; data?: JsonValue }
/** What `Task#toJSON` gives and `Task.fromJSON` takes. */
export interface TaskJSON {
  taskId: string; status: TaskStatus; statusMessage?: string; createdAt: string; lastUpdatedAt: string;
  ttlMs: number | null; pollIntervalMs?: number; inputRequests?: InputRequests; result?: CallToolResult;
  error?: JsonRpcErrorObject; isLocal?: boolean; serverUrl?: string;
  /** The tool whose call created the task, when known (tasks from `resumeTasks()`). */
  toolName?: string;
}

export interface SubscriptionFilter {
  toolsListChanged?: boolean; promptsListChanged?: boolean; resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  /** Tasks extension: `notifications/tasks` for these tasks. */
  taskIds?: string[];
}
/**
 * A `subscriptions/listen` stream. Also an async iterator of `{ method, params }`: without an
 * `onNotification` callback it keeps every notification until read; with one (which sees
 * each), only the latest 1,000 not yet read.
 */
export interface Subscription extends AsyncIterableIterator<{ method: string; params: Record<string, unknown> }> {
  /** The filter the server agreed to honour (compare with what you asked). */
  readonly acknowledged: SubscriptionFilter;
  readonly subscriptionId: string | number;
  /** Reconnections so far (a dropped stream is listened to again). */
  readonly reconnects: number;
  /** Resolves when the subscription ends gracefully (or is closed); rejects when it is lost. */
  readonly closed: Promise<void>;
  close(): void;
}
"#;
