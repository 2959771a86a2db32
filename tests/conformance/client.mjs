#!/usr/bin/env node
// Conformance client: the command the official MCP conformance suite
// (@modelcontextprotocol/conformance) runs for its CLIENT scenarios.
//
//   MCP_CONFORMANCE_SCENARIO=<name> node tests/conformance/client.mjs <server-url>
//
// The suite appends the mock server's URL as the last argument and sets
//   MCP_CONFORMANCE_SCENARIO          which scenario is running
//   MCP_CONFORMANCE_PROTOCOL_VERSION  the wire version to speak (e.g. 2026-07-28)
//   MCP_CONFORMANCE_CONTEXT           JSON with scenario data (e.g. tool arguments)
//
// It uses only the package's public API (pkg/index.js): each scenario does what an
// application would do with McpClient, and the suite judges what went over the wire.
// Exit code 0 when the flow completed; 1 when the client threw, or when a 2025 version was
// asked for and the client did not speak the legacy (initialize handshake) era.
// Works under Node 22 (the suite's runner) and Node 20.
import {
  McpClient,
  version as packageVersion,
} from '../../pkg/index.js';

const serverUrl = process.argv[process.argv.length - 1];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const protocolVersion = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION || 'auto';
let context = {};
try {
  context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}');
} catch {
  context = {};
}

const verbose = !!process.env.CONFORMANCE_VERBOSE;
const log = (...a) => console.error('[client]', ...a);
const debug = (...a) => { if (verbose) log(...a); };
const show = (v) => JSON.stringify(v);

// Dated versions through 2025-11-25 use the initialize handshake ("legacy" era); the
// suite's runner says which one to speak.
const legacyRequested = /^\d{4}-\d{2}-\d{2}$/.test(protocolVersion) && protocolVersion < '2026-07-28';
const erasSeen = [];

/** Ends a client, noting the era it spoke. */
function done(client) {
  erasSeen.push(client.era);
  client.close();
}

/** auth/client-credentials-jwt: the suite's PKCS#8 key (PEM), imported non-extractable. */
async function pemKey(pem, alg) {
  const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  const params = alg === 'RS256'
    ? { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }
    : { name: 'ECDSA', namedCurve: 'P-256' };
  return crypto.subtle.importKey('pkcs8', der, params, false, ['sign']);
}
const clientKey = context.private_key_pem
  ? await pemKey(context.private_key_pem, context.signing_algorithm)
  : undefined;

/** The person's step, done by a headless "browser": follow the authorization URL without
 * following its redirect and hand back where the authorization server sent the person. */
async function followAuthorization(authorizationUrl, ctx) {
  debug('authorize', authorizationUrl, show({ issuer: ctx.issuer, scope: ctx.scope }));
  const r = await fetch(authorizationUrl, { redirect: 'manual', signal: ctx.signal });
  const location = r.headers.get('location');
  if (!location) throw new Error(`the authorization endpoint answered HTTP ${r.status} without a redirect`);
  return new URL(location, authorizationUrl).href;
}

/** OAuth for the auth scenarios: a pre-registered client when the suite passes one in
 * MCP_CONFORMANCE_CONTEXT, the suite's Client ID Metadata Document URL otherwise (used only
 * where the authorization server supports CIMD; else Dynamic Client Registration). */
function authOptions() {
  if (!scenario.startsWith('auth/')) return undefined;
  if (scenario.startsWith('auth/client-credentials-')) {
    // The client credentials extension: the suite's confidential client, no person; with
    // its key (private_key_jwt) when the suite gives one, else its secret.
    if (clientKey) {
      return {
        grant: 'client_credentials', clientId: context.client_id, privateKey: clientKey,
        algorithm: context.signing_algorithm ?? 'ES256',
      };
    }
    return { grant: 'client_credentials', clientId: context.client_id, clientSecret: context.client_secret };
  }
  return {
    redirectUri: 'http://localhost:3000/callback',
    onAuthorize: followAuthorization,
    clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
    ...(context.client_id ? { clientId: context.client_id } : {}),
    ...(context.client_secret ? { clientSecret: context.client_secret } : {}),
    ...(context.issuer ? { issuer: context.issuer } : {}),
  };
}

/** A client for the scenario's server, speaking the version the suite asked for. */
function newClient(extra = {}) {
  const auth = authOptions();
  return new McpClient(serverUrl, {
    clientInfo: { name: 'mcp-wasm-client-conformance', version: String(packageVersion?.() ?? '0.0.0') },
    protocolVersion,
    requestTimeoutMs: 20_000,
    onWarning: (m) => log('warning:', m),
    ...(auth ? { auth } : {}),
    ...extra,
  });
}

/** Placeholder arguments for a tool: one value per required property, by type. */
function placeholderArgs(tool) {
  const props = tool.inputSchema?.properties ?? {};
  const args = {};
  for (const name of tool.inputSchema?.required ?? []) {
    const t = props[name]?.type;
    args[name] = t === 'integer' || t === 'number' ? 1
      : t === 'boolean' ? true
      : t === 'object' ? {}
      : t === 'array' ? []
      : t === 'null' ? null
      : 'x';
  }
  return args;
}

// ---------------------------------------------------------------------------
// Scenario flows
// ---------------------------------------------------------------------------

/** tools_call / initialize: list tools, call add_numbers (or the first tool) with a=2, b=3. */
async function toolsCall() {
  const client = newClient();
  const tools = await client.listAllTools({});
  debug('tools', show(tools.map((t) => t.name)));
  const tool = tools.find((t) => t.name === 'add_numbers') ?? tools[0];
  if (tool) {
    const r = await client.callTool(tool.name, { a: 2, b: 3 }, {});
    debug('result', show(r));
  }
  done(client);
}

/** request-metadata (SEP-2575): per-request _meta and MCP-Protocol-Version on every POST,
 * and a retry with a supported version after -32022. Declares roots, sampling and
 * elicitation so the capability-shape checks are exercised too. */
async function requestMetadata() {
  const client = newClient({
    onElicitation: () => ({ action: 'decline' }),
    onSampling: () => ({ role: 'assistant', content: { type: 'text', text: '' }, model: 'none' }),
    roots: [],
  });
  const d = await client.discover({});
  debug('discover', show(d));
  const tools = await client.listTools({}, {});
  debug('tools', show(tools));
  done(client);
}

/** http-standard-headers (SEP-2243): Mcp-Method on every request, Mcp-Name on
 * tools/call, resources/read and prompts/get. Exercises every listed item. */
async function httpStandardHeaders() {
  const client = newClient();
  for (const tool of await client.listAllTools({})) {
    await client.callTool(tool.name, placeholderArgs(tool), {});
  }
  for (const res of await client.listAllResources({})) {
    await client.readResource(res.uri, {});
  }
  for (const prompt of await client.listAllPrompts({})) {
    await client.getPrompt(prompt.name, {}, {});
  }
  done(client);
}

/** http-custom-headers (SEP-2243): call the annotated tools with the arguments the suite
 * passes in MCP_CONFORMANCE_CONTEXT; the client mirrors them into Mcp-Param-* headers. */
async function httpCustomHeaders() {
  const client = newClient();
  const tools = await client.listAllTools({});
  const names = new Set(tools.map((t) => t.name));
  const calls = context.toolCalls ?? [];
  if (calls.length === 0) throw new Error('MCP_CONFORMANCE_CONTEXT has no toolCalls');
  for (const { name, arguments: args } of calls) {
    if (!names.has(name)) throw new Error(`tool ${name} is not among the listed tools`);
    const r = await client.callTool(name, args ?? {}, {});
    debug(name, show(r));
  }
  done(client);
}

/** http-invalid-tool-headers (SEP-2243): the client must drop tools whose x-mcp-header
 * is invalid. Call every tool the client still exposes; the suite fails any call to an
 * invalid one and requires valid_tool to be called. */
async function httpInvalidToolHeaders() {
  const client = newClient();
  const tools = await client.listAllTools({});
  log('tools kept by the client:', tools.map((t) => t.name).join(', '));
  for (const tool of tools) {
    const args = tool.name === 'valid_tool' ? { region: 'us-west1' } : placeholderArgs(tool);
    await client.callTool(tool.name, args, {});
  }
  done(client);
}

/** json-schema-ref-no-deref (SEP-2106): list tools; the client must not fetch the
 * network $ref in the inputSchema. */
async function jsonSchemaRefNoDeref() {
  const client = newClient();
  const tools = await client.listAllTools({});
  debug('tools', show(tools));
  // Give any (wrong) background dereferencing a moment to reach the canary.
  await new Promise((r) => setTimeout(r, 200));
  done(client);
}

/** json-schema-2020-12-preservation (SEP-1613/2106): echo the focal tool's inputSchema,
 * as the client exposes it, back through json_schema_echo. */
async function jsonSchemaPreservation() {
  const client = newClient();
  const tools = await client.listAllTools({});
  const focal = tools.find((t) => t.name === 'json_schema_2020_12_tool');
  if (!focal) throw new Error('json_schema_2020_12_tool is not among the listed tools');
  await client.callTool('json_schema_echo', { schema: focal.inputSchema }, {});
  done(client);
}

/** sep-2322-client-request-state (MRTR): input_required rounds with and without
 * requestState, a different request in the middle of a round (must carry neither
 * inputResponses nor requestState), and a result without resultType. */
async function mrtrRequestState() {
  let client;
  let unrelatedDone = false;
  client = newClient({
    onElicitation: async (req, ctx) => {
      debug('elicitation', ctx.key, show(req));
      if (!unrelatedDone) {
        // Another call while the MRTR round of test_mrtr_echo_state is open.
        unrelatedDone = true;
        await client.callTool('test_mrtr_unrelated', {}, {});
      }
      return { action: 'accept', content: { confirmed: true } };
    },
  });
  await client.listAllTools({});
  for (const name of ['test_mrtr_echo_state', 'test_mrtr_no_state', 'test_mrtr_no_result_type']) {
    const r = await client.callTool(name, {}, {});
    debug(name, show(r));
  }
  done(client);
}

/** elicitation-sep1034-client-defaults (2025-11-25): accept the server's elicitation
 * with an empty answer; the client is expected to fill in the schema defaults. */
async function elicitationDefaults() {
  const client = newClient({
    onElicitation: () => ({ action: 'accept', content: {} }),
  });
  for (const tool of await client.listAllTools({})) {
    await client.callTool(tool.name, placeholderArgs(tool), {});
  }
  done(client);
}

/** Anything else: list the tools and call each with placeholder arguments. */
async function generic() {
  const client = newClient({
    onElicitation: () => ({ action: 'accept', content: {} }),
  });
  for (const tool of await client.listAllTools({})) {
    await client.callTool(tool.name, placeholderArgs(tool), {});
  }
  done(client);
}

const flows = {
  'initialize': toolsCall,
  'tools_call': toolsCall,
  'request-metadata': requestMetadata,
  'http-standard-headers': httpStandardHeaders,
  'http-custom-headers': httpCustomHeaders,
  'http-invalid-tool-headers': httpInvalidToolHeaders,
  'json-schema-ref-no-deref': jsonSchemaRefNoDeref,
  'json-schema-2020-12-preservation': jsonSchemaPreservation,
  'sep-2322-client-request-state': mrtrRequestState,
  'elicitation-sep1034-client-defaults': elicitationDefaults,
};

const flow = flows[scenario] ?? generic;
if (!serverUrl || !/^https?:/.test(serverUrl)) {
  console.error('usage: MCP_CONFORMANCE_SCENARIO=<scenario> node tests/conformance/client.mjs <server-url>');
  process.exit(2);
}
debug(`scenario ${scenario || '(none)'} version ${protocolVersion} url ${serverUrl}`);
try {
  await flow();
  // The lenient mock servers of some 2025 scenarios answer modern requests too, so a
  // client that never did the initialize handshake could look like a pass there.
  if (legacyRequested && erasSeen.some((e) => e !== 'legacy')) {
    log(`protocol ${protocolVersion} was asked for, but the client spoke the ${erasSeen.join('/')} era ` +
      '(no initialize handshake)');
    process.exit(1);
  }
  process.exit(0);
} catch (e) {
  log(`scenario ${scenario} failed: ${e?.name ?? 'Error'}: ${e?.message ?? e}` +
    (e?.code !== undefined ? ` (code ${e.code})` : '') +
    (e?.status !== undefined ? ` (HTTP ${e.status})` : '') +
    (e?.data !== undefined ? ` data=${show(e.data)}` : ''));
  process.exit(1);
}
