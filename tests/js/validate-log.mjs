// Validates every MCP message the client sent to the test server(s) against the official
// JSON Schemas: the server records each HTTP request to /mcp (GET /debug/log); each POSTed
// JSON-RPC body is checked against the definition of its method.
//
//   node tests/js/validate-log.mjs <serverUrl> [<serverUrl> ...]   (…/mcp or the base URL)
//
// Schemas: tests/fixtures/spec/2026-07-28/schema.json (`#/$defs/<Type>`: the method's
// definition is found through `ClientRequest` / `ClientNotification`), and for the tasks
// extension's methods tests/fixtures/spec/ext-tasks/schema.json (GetTaskRequest,
// UpdateTaskRequest, CancelTaskRequest) together with the core request envelope (a
// 2026-07-28 request's params carry `_meta`: core `RequestParams`). Draft 2020-12, ajv.
// Exit status 1 when any message is invalid or has no schema; prints the method, the
// ajv errors and the body.
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url);
const load = (p) => JSON.parse(readFileSync(new URL(p, root), 'utf8'));
const core = load('tests/fixtures/spec/2026-07-28/schema.json');
const ext = load('tests/fixtures/spec/ext-tasks/schema.json');
// The core schema has no $id; give it one so both files can be referenced side by side.
const CORE = 'urn:mcp:schema:2026-07-28';
core.$id = CORE;
const EXT = ext.$id;

// strict: false — strict mode is about how a schema is written (the official files use
// keywords and unions ajv's strict mode flags); it does not relax instance validation.
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
ajv.addSchema(core);
ajv.addSchema(ext);

/** method → [label, compiled validator] */
const validators = new Map();
const defName = (ref) => ref.split('/').pop();
function coreDef(name) {
  return [`2026-07-28 #/$defs/${name}`, ajv.compile({ $ref: `${CORE}#/$defs/${name}` })];
}
for (const union of ['ClientRequest', 'ClientNotification']) {
  const d = core.$defs[union];
  const members = d.anyOf ? d.anyOf.map((r) => defName(r.$ref)) : [union];
  for (const name of members) {
    const method = core.$defs[name].properties.method.const;
    validators.set(method, coreDef(name));
  }
}
for (const [method, name] of [
  ['tasks/get', 'GetTaskRequest'],
  ['tasks/update', 'UpdateTaskRequest'],
  ['tasks/cancel', 'CancelTaskRequest'],
]) {
  validators.set(method, [
    `ext-tasks #/$defs/${name} + 2026-07-28 JSONRPCRequest/RequestParams`,
    ajv.compile({
      allOf: [
        { $ref: `${EXT}#/$defs/${name}` },
        { $ref: `${CORE}#/$defs/JSONRPCRequest` },
        { type: 'object', required: ['params'], properties: { params: { $ref: `${CORE}#/$defs/RequestParams` } } },
      ],
    }),
  ]);
}

const urls = process.argv.slice(2);
if (urls.length === 0) {
  console.error('usage: node tests/js/validate-log.mjs <serverUrl> [...]');
  process.exit(2);
}

let checked = 0;
let bad = 0;
const perMethod = {};
for (const url of urls) {
  const base = url.replace(/\/mcp\/?$/, '').replace(/\/$/, '');
  const res = await fetch(`${base}/debug/log`);
  if (!res.ok) {
    console.error(`GET ${base}/debug/log: HTTP ${res.status}`);
    process.exit(1);
  }
  const log = await res.json();
  for (const entry of log) {
    if (entry.httpMethod !== 'POST') continue; // preflights (OPTIONS) and others carry no MCP body
    let body = entry.body;
    if (body == null) {
      try {
        body = JSON.parse(entry.rawBody);
      } catch {
        continue; // not JSON: nothing to validate
      }
    }
    const messages = Array.isArray(body) ? body : [body];
    for (const msg of messages) {
      checked += 1;
      const method = msg && typeof msg === 'object' ? msg.method : undefined;
      const v = validators.get(method);
      if (!v) {
        bad += 1;
        console.error(`\n✗ ${base} #${entry.seq}: no client message schema for method ${JSON.stringify(method)}`);
        console.error(`  body: ${entry.rawBody}`);
        continue;
      }
      const [label, validate] = v;
      perMethod[method] = (perMethod[method] || 0) + 1;
      if (!validate(msg)) {
        bad += 1;
        console.error(`\n✗ ${base} #${entry.seq} ${method} is invalid against ${label}:`);
        for (const e of validate.errors.slice(0, 20)) {
          console.error(`  ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)} (schema ${e.schemaPath})`);
        }
        console.error(`  body: ${entry.rawBody}`);
      }
    }
  }
}

const summary = Object.entries(perMethod)
  .sort()
  .map(([m, n]) => `${m} ${n}`)
  .join(', ');
if (checked === 0) {
  console.error('no recorded MCP requests: nothing was validated (did the suites run against these servers?)');
  process.exit(1);
}
console.log(`schema: ${checked} client messages checked, ${bad} invalid (${summary})`);
process.exit(bad === 0 ? 0 : 1);
