// Error classes of mcp-wasm-client. Every error the client throws is an instance of
// McpClientError with a `name` saying its kind, plus `code` and `data` where they apply
// (`status` on HttpError). Errors answered by the server (JSON-RPC errors) extend McpError.

export class McpClientError extends Error {
  constructor(message, options) {
    super(message, options && options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'McpClientError';
    if (options && options.code !== undefined && options.code !== null) this.code = options.code;
    if (options && options.data !== undefined && options.data !== null) this.data = options.data;
    if (options && options.status !== undefined && options.status !== null) this.status = options.status;
  }
}

export class McpError extends McpClientError {
  constructor(message, options) { super(message, options); this.name = 'McpError'; }
}

const classes = { McpClientError, McpError };

// Kinds that come from a JSON-RPC error of the server extend McpError.
const FROM_SERVER = new Set([
  'MissingRequiredClientCapabilityError',
  'UnsupportedProtocolVersionError',
  'TaskNotFoundError',
]);

const NAMES = [
  'HttpError', 'TimeoutError', 'AbortError', 'NetworkError', 'CorsError', 'InvalidResultError',
  'ProtocolError', 'MissingRequiredClientCapabilityError', 'UnsupportedProtocolVersionError',
  'OutputValidationError', 'InputRequiredError', 'InputValidationError', 'HandlerError',
  'CapabilityError', 'TaskNotFoundError', 'TaskExpiredError', 'TaskCancelledError',
  'TaskTimeoutError', 'TaskError', 'ConfigError', 'AuthorizationError',
];

for (const name of NAMES) {
  const Base = FROM_SERVER.has(name) ? McpError : McpClientError;
  // A named class expression per kind, so stack traces and `constructor.name` read well.
  const C = ({ [name]: class extends Base {
    constructor(message, options) { super(message, options); this.name = name; }
  } })[name];
  classes[name] = C;
}

/** Used by the wasm module: builds the error of a kind. */
export function makeError(name, message, code, data, status, cause) {
  const C = classes[name] || McpClientError;
  return new C(message, { code, data, status, cause });
}

/** The error classes, for the package entry to export. */
export function errorClasses() {
  return classes;
}
