//! The spec's own JSON examples, its schema, and the client's decoders.
//!
//! The client keeps one model of each protocol shape: what it interprets is decoded by the
//! functions in `src/protocol/` and `src/schema/` (envelopes, errors, discover results,
//! input requests and answers, elicitation form schemas, tool listings); everything else
//! goes to the host as sent. These tests hold those decoders to the spec:
//!
//! 1. `every_example_is_valid_and_decoded`: every file under
//!    `tests/fixtures/spec/2026-07-28/examples/<TypeName>/` is valid against `<TypeName>` of
//!    the spec's `schema.json` (checked with the crate's own JSON Schema validator), and
//!    every decoder of the client that reads that shape accepts it and reads what the
//!    example says ([`decode`]). A folder that [`decode`] does not know fails the test, so
//!    a new example type gets a decision: decoded, or passed through (`PASSED_THROUGH`).
//! 2. `every_decoded_type_is_complete`: for each schema type the client decodes, an
//!    instance with *every* property set is synthesized from the schema; it must be valid
//!    and accepted, so an optional member the examples never use cannot trip a decoder.
//! 3. `malformed_instances_are_refused`: per decoded type, instances the schema refuses
//!    are refused by the decoder too (typed errors, not panics and not acceptance).
//! 4. `mutated_examples`: every example with each member replaced by values of other JSON
//!    types (or removed) never panics a decoder, and every mutation that is still valid
//!    against the schema is still accepted: the client never refuses what the spec allows
//!    (except where it is stricter on purpose: `STRICTER_THAN_SCHEMA`).
//! 5. `task_and_initialize_results_from_their_schemas`: the tasks extension's results and
//!    notifications (`ext-tasks/schema.json`) and the 2025 `initialize` result, which have
//!    no examples, synthesized from their schemas and read as written.

use mcp_wasm_client::engine::tools::ToolRegistry;
use mcp_wasm_client::error::{Error, ErrorKind};
use mcp_wasm_client::json;
use mcp_wasm_client::json::RawJson;
use mcp_wasm_client::json::{Map, Value};
use mcp_wasm_client::protocol::jsonrpc::{self, Message, RequestId, RpcError};
use mcp_wasm_client::protocol::legacy::decode_initialize_result;
use mcp_wasm_client::protocol::result::{peek_result_type, ResultType};
use mcp_wasm_client::protocol::tasks::{decode_create_task_result, decode_detailed_task};
use mcp_wasm_client::protocol::{codes, discover, input};
use mcp_wasm_client::schema::output::OutputSchema;
use mcp_wasm_client::schema::{answers, elicitation};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

const FIXTURES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/spec/2026-07-28"
);

/// Example folders (schema types) the client does not interpret beyond the envelope
/// around them: it builds them, or hands them to the host as sent. Each is still checked
/// against the schema, and the generic envelope and result checks of [`decode`] apply.
const PASSED_THROUGH: &[&str] = &[
    "BlobResourceContents",
    "CallToolRequest",
    "CallToolRequestParams",
    "CallToolResult",
    "CallToolResultResponse",
    "CancelledNotification",
    "CancelledNotificationParams",
    "ClientCapabilities",
    "CompleteRequest",
    "CompleteRequestParams",
    "CompleteResult",
    "CompleteResultResponse",
    "CreateMessageRequestParams",
    "DiscoverRequest",
    "EmbeddedResource",
    "GetPromptRequest",
    "GetPromptRequestParams",
    "GetPromptResult",
    "GetPromptResultResponse",
    "ListPromptsRequest",
    "ListPromptsResult",
    "ListPromptsResultResponse",
    "ListResourceTemplatesRequest",
    "ListResourceTemplatesResult",
    "ListResourceTemplatesResultResponse",
    "ListResourcesRequest",
    "ListResourcesResult",
    "ListResourcesResultResponse",
    "ListToolsRequest",
    "LoggingMessageNotification",
    "LoggingMessageNotificationParams",
    "ModelPreferences",
    "PaginatedRequestParams",
    "ProgressNotification",
    "ProgressNotificationParams",
    "PromptListChangedNotification",
    "ReadResourceRequest",
    "ReadResourceResult",
    "ReadResourceResultResponse",
    "Resource",
    "ResourceLink",
    "ResourceListChangedNotification",
    "ResourceUpdatedNotification",
    "ResourceUpdatedNotificationParams",
    "SamplingMessage",
    "ServerCapabilities",
    "SubscriptionsAcknowledgedNotification",
    "SubscriptionsListenRequest",
    "SubscriptionsListenResult",
    "SubscriptionsListenResultResponse",
    "TextResourceContents",
    "ToolListChangedNotification",
];

/// Where the client is stricter than `schema.json` on purpose: (a fragment of its error
/// message, why). A valid instance may be refused only for one of these reasons, and each
/// must still occur (`mutated_examples`).
const STRICTER_THAN_SCHEMA: &[(&str, &str)] = &[
    (
        "JSON-RPC id must be a string or an integer",
        "an integral id outside the 64-bit range (1e300, 2^64-1) is refused: the client matches ids exactly",
    ),
    (
        "is not defined",
        "a form schema whose `required` names a property it does not define is the server's mistake: no answer could satisfy it",
    ),
    (
        "elicitation URL",
        "the URL of a URL-mode request must be an absolute https (or local http) URL (client/elicitation, URL mode security)",
    ),
    (
        "neither inputRequests nor requestState",
        "an input_required result that asks nothing and carries no state cannot be answered",
    ),
    (
        "starting with file://",
        "a root's uri MUST be a file:// URI (client/roots); the schema only says string",
    ),
];

/// The reason a refusal of a valid instance is expected, if it is one of them.
fn stricter(error: &str, seen: &mut Vec<&'static str>) -> bool {
    match STRICTER_THAN_SCHEMA.iter().find(|(m, _)| error.contains(m)) {
        Some((m, _)) => {
            seen.push(m);
            true
        }
        None => false,
    }
}

// ---------------------------------------------------------------------------------------
// The schema.
// ---------------------------------------------------------------------------------------

/// `schema.json`, and a validator per type compiled on demand.
struct Spec {
    root: Value,
    compiled: HashMap<String, OutputSchema>,
}

impl Spec {
    fn load() -> Spec {
        Spec::load_from("schema.json")
    }

    /// Another schema of the fixtures, relative to the 2026-07-28 folder.
    fn load_from(file: &str) -> Spec {
        let text = std::fs::read_to_string(Path::new(FIXTURES).join(file)).expect(file);
        Spec {
            root: serde_json::from_str(&text).expect("schema.json is JSON"),
            compiled: HashMap::new(),
        }
    }

    fn defs(&self) -> &Map {
        self.root["$defs"].as_object().expect("$defs")
    }

    /// Whether `v` is valid as the schema type `name`.
    fn check(&mut self, name: &str, v: &Value) -> Result<(), String> {
        if !self.defs().contains_key(name) {
            return Err(format!("schema.json has no type {name}"));
        }
        let root = &self.root;
        let schema = self.compiled.entry(name.to_string()).or_insert_with(|| {
            let mut s = root.clone();
            s["$ref"] = json!(format!("#/$defs/{name}"));
            OutputSchema::compile(&s).unwrap_or_else(|e| panic!("{name}: {e}"))
        });
        schema
            .validate(v)
            .map_err(|e| format!("not a valid {name}: {e} {:?}", e.data))
    }
}

// ---------------------------------------------------------------------------------------
// The client's decoders, per schema type.
// ---------------------------------------------------------------------------------------

fn expect(cond: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if cond {
        Ok(())
    } else {
        Err(what())
    }
}

fn raw(v: &Value) -> RawJson {
    RawJson::from_string(v.to_string()).expect("a value encodes")
}

fn show(e: &Error) -> String {
    format!("{:?}: {}", e.kind, e.message)
}

/// What the client's decoders must make of an instance.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// A spec example: also read what it says (defaults it carries apply, and so on).
    Example,
    /// Any instance valid against the schema (synthesized or mutated): accepted.
    Valid,
}

/// The envelope checks every JSON-RPC message gets: `jsonrpc::decode` reads the kind the
/// members say, with the same method and id; a result's `resultType` is read as written;
/// an error's code maps to its error kind. Returns the `result`/`params`/`error.data`.
fn envelope(text: &str, v: &Value) -> Result<(), String> {
    let m = jsonrpc::decode(text).map_err(|e| format!("jsonrpc::decode: {}", show(&e)))?;
    let id = |m: &Value| -> Result<RequestId, String> {
        serde_json::to_value(&m["id"])
            .and_then(serde_json::from_value)
            .map_err(|e| format!("id: {e}"))
    };
    match m {
        Message::Request {
            id: got, method, ..
        } => {
            expect(v.get("id").is_some() && got == id(v)?, || {
                "request id".into()
            })?;
            expect(v["method"] == method.as_str(), || "request method".into())
        }
        Message::Notification { method, .. } => {
            expect(v.get("id").is_none(), || {
                "a request read as a notification".into()
            })?;
            expect(v["method"] == method.as_str(), || {
                "notification method".into()
            })
        }
        Message::Response { id: got, result } => {
            expect(got == id(v)?, || "response id".into())?;
            result_type(&result, &v["result"])
        }
        Message::Error { id: got, error } => {
            expect(v.get("id").is_none() || got == Some(id(v)?), || {
                "error id".into()
            })?;
            rpc_error(&error, &v["error"])
        }
    }
}

/// `peek_result_type` reads `resultType` as written (absent: complete).
fn result_type(raw: &RawJson, v: &Value) -> Result<(), String> {
    let t = peek_result_type(raw).map_err(|e| format!("peek_result_type: {}", show(&e)))?;
    let want = match v.get("resultType").and_then(Value::as_str) {
        None | Some("complete") => ResultType::Complete,
        Some("input_required") => ResultType::InputRequired,
        Some("task") => ResultType::Task,
        Some(other) => ResultType::Other(other.into()),
    };
    expect(t == want, || format!("resultType read as {t:?}"))
}

/// An error object: decoded as sent, mapped to the kind its code means.
fn rpc_error(e: &RpcError, v: &Value) -> Result<(), String> {
    expect(json!(e.code) == v["code"], || "error code".into())?;
    expect(v["message"] == e.message.as_str(), || {
        "error message".into()
    })?;
    let data = v.get("data").filter(|d| !d.is_null());
    expect(e.data.as_ref().filter(|d| !d.is_null()) == data, || {
        "error data".into()
    })?;
    let mapped = codes::from_rpc(e);
    let want = match e.code {
        codes::MISSING_REQUIRED_CLIENT_CAPABILITY => ErrorKind::MissingRequiredClientCapability,
        codes::UNSUPPORTED_PROTOCOL_VERSION => ErrorKind::UnsupportedProtocolVersion,
        _ => ErrorKind::Mcp,
    };
    expect(mapped.kind == want && mapped.code == Some(e.code), || {
        format!("code {} gave {:?} {:?}", e.code, mapped.kind, mapped.code)
    })?;
    if e.code == codes::UNSUPPORTED_PROTOCOL_VERSION {
        // What the engine retries with (basic/versioning): exactly the listed versions.
        let read: Vec<&str> = discover::supported_versions(e.data.as_ref()).collect();
        let listed = &v["data"]["supported"];
        expect(json!(read) == *listed, || {
            format!("supported read as {read:?}")
        })?;
    }
    Ok(())
}

/// A form schema with one field `f` (`required` when asked).
fn form_of(field: &Value, required: bool) -> Value {
    let mut s = json!({"type": "object", "properties": {"f": field}});
    if required {
        s["required"] = json!(["f"]);
    }
    s
}

/// The elicitation checker accepts `schema` as a form schema (it refuses only answers).
fn form_schema(schema: &Value, mode: Mode) -> Result<(), String> {
    let answer = json!({"action": "accept", "content": {}});
    match elicitation::check_form_answer(schema, &answer) {
        Ok(sent) => {
            if mode == Mode::Example {
                // A spec example's defaults are valid: a form pre-fills them (SEP-1034).
                let props = schema["properties"].as_object().into_iter().flatten();
                for (name, p) in props {
                    if let Some(d) = p.get("default") {
                        let got = &sent["content"][name];
                        expect(got == d, || format!("default of {name} sent as {got}"))?;
                    }
                }
            }
            Ok(())
        }
        Err(e) if e.kind == ErrorKind::InputValidation => Ok(()),
        Err(e) => Err(format!("check_form_answer: {}", show(&e))),
    }
}

/// One field schema, as the checker reads it inside a form.
fn field_schema(field: &Value, mode: Mode) -> Result<(), String> {
    form_schema(&form_of(field, false), mode)?;
    if mode == Mode::Example {
        // The field's example default is an answer the checker takes for it.
        if let Some(d) = field.get("default") {
            let answer = json!({"action": "accept", "content": {"f": d}});
            elicitation::check_form_answer(&form_of(field, true), &answer)
                .map_err(|e| format!("its default as the answer: {}", show(&e)))?;
        }
    }
    Ok(())
}

/// An `elicitation/create` params object, by mode.
fn elicit_params(p: &Value, mode: Mode) -> Result<(), String> {
    match p.get("mode").and_then(Value::as_str) {
        Some("url") => {
            let url = p["url"].as_str().ok_or("no url")?;
            elicitation::check_url(url)
                .map(drop)
                .map_err(|e| format!("check_url: {}", show(&e)))
        }
        _ => form_schema(&p["requestedSchema"], mode),
    }
}

/// A host's answer to an input request, by its shape (client/elicitation, client/roots,
/// client/sampling): what the checker sends on.
fn input_response(r: &Value) -> Result<(), String> {
    let checked = if r.get("action").is_some() {
        elicitation::check_url_answer(r)
    } else if r.get("roots").is_some() {
        answers::check_roots_result(r)
    } else {
        answers::check_sampling_result(r)
    };
    checked.map(drop).map_err(|e| show(&e))
}

/// A sampling content block, as the checker of sampling answers reads it.
fn sampling_block(b: &Value) -> Result<(), String> {
    let answer = json!({"role": "assistant", "model": "m", "content": b});
    answers::check_sampling_result(&answer)
        .map(drop)
        .map_err(|e| format!("check_sampling_result: {}", show(&e)))
}

/// A `tools/list` page: every tool kept, none dropped with a warning.
fn tools_page(page: &Value) -> Result<(), String> {
    let mut registry = ToolRegistry::default();
    let mut warnings = Vec::new();
    let kept = registry
        .ingest_page(&raw(page), true, &mut warnings)
        .map_err(|e| format!("ingest_page: {}", show(&e)))?;
    expect(warnings.is_empty(), || format!("ingest_page: {warnings:?}"))?;
    expect(kept == *page, || "ingest_page changed the page".into())
}

/// The client's decoders on one instance of the schema type `name`. `Ok(true)` when a
/// decoder of the client read it, `Ok(false)` for a type it passes through, `Err` when a
/// decoder refused it or misread it.
fn decode(name: &str, text: &str, v: &Value, mode: Mode) -> Result<bool, String> {
    if v.get("jsonrpc").is_some() {
        envelope(text, v)?;
    }
    let params = &v["params"];
    let result = &v["result"];
    match name {
        // Errors.
        "ParseError" | "InvalidRequestError" | "MethodNotFoundError" | "InvalidParamsError"
        | "InternalError" => {
            let e: RpcError = serde_json::from_str(text).map_err(|e| e.to_string())?;
            rpc_error(&e, v)?;
        }
        // Error responses: `envelope` decoded them and checked the kind and `data.supported`.
        "HeaderMismatchError"
        | "MissingRequiredClientCapabilityError"
        | "UnsupportedProtocolVersionError" => {}

        // server/discover.
        "DiscoverResult" => check_discover(v)?,
        "DiscoverResultResponse" => check_discover(result)?,

        // Multi round-trip: input requests and the host's answers.
        "InputRequests" => {
            let n = input::decode_input_requests(&raw(v))
                .map_err(|e| format!("decode_input_requests: {}", show(&e)))?
                .len();
            expect(Some(n) == v.as_object().map(Map::len), || format!("{n} decoded"))?;
        }
        "InputRequiredResult" => {
            result_type(&raw(v), v)?;
            let ir = input::decode_input_required(&raw(v))
                .map_err(|e| format!("decode_input_required: {}", show(&e)))?;
            let n = v["inputRequests"].as_object().map_or(0, Map::len);
            expect(ir.input_requests.len() == n, || "inputRequests count".into())?;
        }
        // The request forms inside `inputRequests`.
        "CreateMessageRequest" | "ListRootsRequest" | "ElicitRequest" => {
            input::decode_input_requests(&raw(&json!({ "k": v })))
                .map_err(|e| format!("decode_input_requests: {}", show(&e)))?;
            if name == "ElicitRequest" {
                elicit_params(params, mode)?;
            }
        }
        "InputResponses" => {
            for (k, r) in v.as_object().into_iter().flatten() {
                input_response(r).map_err(|e| format!("{k}: {e}"))?;
            }
        }
        "CreateMessageResult" | "ListRootsResult" | "ElicitResult" => input_response(v)?,
        "Root" => input_response(&json!({ "roots": [v] }))?,
        "TextContent" | "ImageContent" | "AudioContent" | "ToolUseContent"
        | "ToolResultContent" => sampling_block(v)?,

        // Elicitation form schemas.
        "ElicitRequestFormParams" | "ElicitRequestURLParams" => elicit_params(v, mode)?,
        "StringSchema"
        | "NumberSchema"
        | "BooleanSchema"
        | "UntitledSingleSelectEnumSchema"
        | "TitledSingleSelectEnumSchema"
        | "UntitledMultiSelectEnumSchema"
        | "TitledMultiSelectEnumSchema"
        | "LegacyTitledEnumSchema"
        | "PrimitiveSchemaDefinition" => field_schema(v, mode)?,

        // tools/list.
        "Tool" => tools_page(&json!({ "tools": [v] }))?,
        "ListToolsResult" => tools_page(v)?,
        "ListToolsResultResponse" => tools_page(result)?,

        other if PASSED_THROUGH.contains(&other) => return Ok(false),
        other => {
            return Err(format!(
                "no decision for the schema type {other:?}: decode it in `decode` or list it in PASSED_THROUGH (tests/spec_examples.rs)"
            ))
        }
    }
    Ok(true)
}

/// A discover result: accepted, and `capabilities` is what the engine keeps.
fn check_discover(v: &Value) -> Result<(), String> {
    let m = v.as_object().ok_or("not an object")?;
    let caps = discover::check_discover_result(m)
        .map_err(|e| format!("check_discover_result: {}", show(&e)))?;
    expect(Some(caps) == m.get("capabilities"), || {
        "capabilities".into()
    })
}

// ---------------------------------------------------------------------------------------
// 1. The examples.
// ---------------------------------------------------------------------------------------

/// (folder, file name, path) of every example, sorted.
fn examples() -> Vec<(String, String, PathBuf)> {
    let root = Path::new(FIXTURES).join("examples");
    let mut out = Vec::new();
    let dirs = std::fs::read_dir(&root).unwrap_or_else(|e| panic!("{}: {e}", root.display()));
    for dir in dirs {
        let dir = dir.expect("examples folder entry").path();
        assert!(
            dir.is_dir(),
            "unexpected file {} in the examples folder",
            dir.display()
        );
        let folder = dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("folder name")
            .to_string();
        let mut n = 0;
        for f in std::fs::read_dir(&dir).expect("examples subfolder") {
            let f = f.expect("example entry").path();
            let file = f
                .file_name()
                .and_then(|n| n.to_str())
                .expect("file name")
                .to_string();
            assert!(file.ends_with(".json"), "unexpected file {}", f.display());
            out.push((folder.clone(), file, f));
            n += 1;
        }
        assert!(n > 0, "examples folder {folder} is empty");
    }
    out.sort();
    out
}

#[test]
fn every_example_is_valid_and_decoded() {
    let mut spec = Spec::load();
    let all = examples();
    assert!(all.len() >= 129, "only {} example files found", all.len());
    let mut failures = Vec::new();
    let mut decoded = 0;
    let mut folders = Vec::new();
    for (folder, file, path) in &all {
        let text = std::fs::read_to_string(path).expect("readable example");
        let id = format!("{folder}/{file}");
        let v: Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{id}: not JSON: {e}"));
                continue;
            }
        };
        folders.push(folder.as_str());
        if let Err(e) = spec.check(folder, &v) {
            failures.push(format!("{id}: {e}"));
        }
        match decode(folder, &text, &v, Mode::Example) {
            Ok(true) => decoded += 1,
            Ok(false) => {}
            Err(e) => failures.push(format!("{id}: {e}")),
        }
    }
    for p in PASSED_THROUGH {
        if !folders.contains(p) {
            failures.push(format!("PASSED_THROUGH names {p}, which has no example"));
        }
    }
    println!(
        "{} example files valid, {decoded} of them read by the client's decoders",
        all.len() - failures.len()
    );
    assert!(decoded >= 50, "only {decoded} examples reached a decoder");
    assert!(
        failures.is_empty(),
        "{} example check(s) failed:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

// ---------------------------------------------------------------------------------------
// 2. Every decoded type, with every property set.
// ---------------------------------------------------------------------------------------

/// The schema types the client decodes and that have no example folder of their own.
const DECODED_WITHOUT_EXAMPLES: &[&str] = &[
    "JSONRPCRequest",
    "JSONRPCNotification",
    "JSONRPCResultResponse",
    "JSONRPCErrorResponse",
    "Error",
];

struct Synth<'a> {
    defs: &'a Map,
}

impl Synth<'_> {
    /// An instance of the schema type `name`.
    fn def(&self, name: &str, depth: usize) -> Value {
        let Some(def) = self.defs.get(name) else {
            return Value::Null;
        };
        let mut v = self.instance(def, depth + 1);
        if name == "InputRequiredResult" {
            v["resultType"] = json!("input_required");
        }
        v
    }

    /// An instance of `schema` with every property set.
    fn instance(&self, schema: &Value, depth: usize) -> Value {
        if depth > 24 {
            return Value::Null;
        }
        if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
            let name = r.trim_start_matches("#/$defs/");
            return match name {
                "JSONObject" | "MetaObject" => json!({}),
                "JSONValue" => json!("x"),
                _ => self.def(name, depth),
            };
        }
        if let Some(c) = schema.get("const") {
            return c.clone();
        }
        if let Some(e) = schema.get("enum").and_then(Value::as_array) {
            return e[0].clone();
        }
        if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
            let mut out = Value::Null;
            for s in all {
                merge(&mut out, self.instance(s, depth + 1));
            }
            return out;
        }
        if let Some(any) = schema.get("anyOf").and_then(Value::as_array) {
            return self.instance(&any[0], depth + 1);
        }
        let ty = match schema.get("type") {
            Some(Value::String(t)) => t.as_str(),
            Some(Value::Array(ts)) => ts[0].as_str().unwrap_or("string"),
            _ => return json!("x"),
        };
        match ty {
            "string" => match schema.get("format").and_then(Value::as_str) {
                Some("uri") => json!("https://example.com/x"),
                Some("email") => json!("a@example.com"),
                Some("date") => json!("2026-01-31"),
                Some("date-time") => json!("2026-01-31T09:30:00Z"),
                _ => json!("x"),
            },
            "integer" => json!(1),
            "number" => json!(0.5),
            "boolean" => json!(true),
            "array" => match schema.get("items") {
                Some(items) => json!([self.instance(items, depth + 1)]),
                None => json!([]),
            },
            _ => {
                let mut m = Map::new();
                if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                    for (k, p) in props {
                        // The MRTR discriminator: `InputRequiredResult` sets its own in `def`.
                        let v = if k == "resultType" {
                            json!("complete")
                        } else {
                            self.instance(p, depth + 1)
                        };
                        m.insert(k.clone(), v);
                    }
                }
                // A map type (no declared properties): one entry.
                if m.is_empty() && schema.get("properties").is_none() {
                    if let Some(ap) = schema.get("additionalProperties").filter(|a| a.is_object()) {
                        m.insert("k".into(), self.instance(ap, depth + 1));
                    }
                }
                Value::Object(m)
            }
        }
    }
}

/// Deep merge for `allOf`: objects member-wise, anything else replaced.
fn merge(into: &mut Value, from: Value) {
    match (into, from) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                merge(a.get_or_insert(&k, Value::Null), v);
            }
        }
        (slot, v) => *slot = v,
    }
}

/// Where the client is stricter than the schema (`STRICTER_THAN_SCHEMA`), makes a
/// synthesized value one the spec's prose allows: every form field required (so that
/// `required` names defined fields), roots under `file://`.
fn prose_valid(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Object(form)) = m.get_mut("requestedSchema") {
                if let Some(Value::Object(props)) = form.get("properties") {
                    let names: Vec<Value> = props.keys().map(|k| json!(k)).collect();
                    form.insert("required".into(), Value::Array(names));
                }
            }
            if let Some(Value::Array(roots)) = m.get_mut("roots") {
                for r in roots.iter_mut().filter_map(Value::as_object_mut) {
                    r.insert("uri".into(), json!("file:///home/user/project"));
                }
            }
            m.values_mut().for_each(prose_valid);
        }
        Value::Array(a) => a.iter_mut().for_each(prose_valid),
        _ => {}
    }
}

#[test]
fn every_decoded_type_is_complete() {
    let mut spec = Spec::load();
    let defs = spec.defs().clone();
    let synth = Synth { defs: &defs };
    let mut names: Vec<String> = examples().into_iter().map(|(f, _, _)| f).collect();
    names.dedup();
    names.retain(|n| !PASSED_THROUGH.contains(&n.as_str()));
    names.extend(DECODED_WITHOUT_EXAMPLES.iter().map(|n| n.to_string()));
    let mut failures = Vec::new();
    let mut checked = 0;
    for name in &names {
        let mut instance = synth.def(name, 0);
        if name == "JSONRPCErrorResponse" || name == "Error" {
            // The synthesized code would be 1: use one the client maps.
            let e = if name == "Error" {
                &mut instance
            } else {
                &mut instance["error"]
            };
            e["code"] = json!(codes::INTERNAL_ERROR);
        }
        if name == "Root" {
            instance["uri"] = json!("file:///home/user/project");
        }
        prose_valid(&mut instance);
        if let Err(e) = spec.check(name, &instance) {
            failures.push(format!(
                "{name}: the synthesized instance is not valid: {e}\n      instance: {instance}"
            ));
            continue;
        }
        let decoded = match name.as_str() {
            "JSONRPCRequest"
            | "JSONRPCNotification"
            | "JSONRPCResultResponse"
            | "JSONRPCErrorResponse" => envelope(&instance.to_string(), &instance).map(|()| true),
            "Error" => serde_json::to_value(&instance)
                .and_then(serde_json::from_value::<RpcError>)
                .map_err(|e| e.to_string())
                .and_then(|e| rpc_error(&e, &instance))
                .map(|()| true),
            _ => decode(name, &instance.to_string(), &instance, Mode::Valid),
        };
        match decoded {
            Ok(true) => checked += 1,
            Ok(false) => failures.push(format!("{name}: not decoded")),
            Err(e) => failures.push(format!("{name}: {e}\n      instance: {instance}")),
        }
    }
    println!("{checked} decoded schema types accepted with every property set");
    assert!(checked >= 30, "only {checked} types checked");
    assert!(
        failures.is_empty(),
        "{} schema type check(s) failed:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

/// The shapes of the tasks extension (`ext-tasks/schema.json`) and the 2025 `initialize`
/// result (`2025-11-25/schema.json`), which have no examples: synthesized with every
/// property set, valid against their schema, and read as written by the client's decoders.
#[test]
fn task_and_initialize_results_from_their_schemas() {
    let mut spec = Spec::load_from("../ext-tasks/schema.json");
    let defs = spec.defs().clone();
    let synth = Synth { defs: &defs };
    // The schema says only "string" for the timestamps; the extension's prose says RFC 3339,
    // which the client requires.
    let times = |v: &mut Value| {
        v["createdAt"] = json!("2026-01-31T09:30:00Z");
        v["lastUpdatedAt"] = json!("2026-01-31T09:31:00.5+01:00");
    };
    let mut failures = Vec::new();

    let mut created = synth.def("CreateTaskResult", 0);
    created["resultType"] = json!("task");
    times(&mut created);
    prose_valid(&mut created);
    if let Err(e) = spec.check("CreateTaskResult", &created) {
        failures.push(format!("CreateTaskResult: {e}"));
    }
    match decode_create_task_result(&raw(&created)) {
        Ok(t) => {
            if json!(t.task_id) != created["taskId"] || t.ttl_ms != created["ttlMs"].as_u64() {
                failures.push(format!("CreateTaskResult read as {t:?}"));
            }
        }
        Err(e) => failures.push(format!("CreateTaskResult: {}", show(&e))),
    }

    let variants = defs["DetailedTask"]["anyOf"]
        .as_array()
        .expect("DetailedTask variants");
    assert_eq!(variants.len(), 5, "one variant per task status");
    for variant in variants {
        let mut task = synth.instance(variant, 0);
        times(&mut task);
        prose_valid(&mut task);
        let status = task["status"].as_str().unwrap_or("?").to_string();
        let id = task["taskId"].as_str().map(str::to_string);
        let mut result = task.clone();
        result["resultType"] = json!("complete");
        for (name, v, notification) in [
            ("GetTaskResult", &result, false),
            ("TaskStatusNotificationParams", &task, true),
        ] {
            if let Err(e) = spec.check(name, v) {
                failures.push(format!("{name} ({status}): {e}\n      instance: {v}"));
            }
            match decode_detailed_task(&raw(v), id.as_deref(), notification) {
                Ok(dt) => {
                    let inputs = v["inputRequests"].as_object().map_or(0, Map::len);
                    if dt.task.status.as_str() != status
                        || dt.input_requests.len() != inputs
                        || dt.result.is_some() != v.get("result").is_some()
                        || dt.error.is_some() != v.get("error").is_some()
                    {
                        failures.push(format!("{name} ({status}) misread: {dt:?}"));
                    }
                }
                Err(e) => failures.push(format!(
                    "{name} ({status}): {}\n      instance: {v}",
                    show(&e)
                )),
            }
        }
    }

    let mut legacy = Spec::load_from("../2025-11-25/schema.json");
    let defs = legacy.defs().clone();
    let mut init = Synth { defs: &defs }.def("InitializeResult", 0);
    init["protocolVersion"] = json!("2025-11-25");
    if let Err(e) = legacy.check("InitializeResult", &init) {
        failures.push(format!("InitializeResult: {e}"));
    }
    match decode_initialize_result(&raw(&init), false) {
        Ok(r) => {
            if r.capabilities != init["capabilities"] || r.server_info != init["serverInfo"] {
                failures.push(format!("InitializeResult misread: {r:?}"));
            }
            // `discover()` answers alike in every era: the same checks as a modern result.
            if let Err(e) = check_discover(&r.as_discover()) {
                failures.push(format!("InitializeResult::as_discover: {e}"));
            }
        }
        Err(e) => failures.push(format!("InitializeResult: {}", show(&e))),
    }
    println!("tasks extension and 2025 initialize shapes read as written");
    assert!(failures.is_empty(), "{}", failures.join("\n  "));
}

// ---------------------------------------------------------------------------------------
// 3. Malformed instances.
// ---------------------------------------------------------------------------------------

#[test]
fn malformed_instances_are_refused() {
    let mut spec = Spec::load();
    let cases: &[(&str, Value)] = &[
        (
            "DiscoverResult",
            json!({"supportedVersions": "2026-07-28", "capabilities": {}}),
        ),
        (
            "DiscoverResult",
            json!({"supportedVersions": ["2026-07-28", 1], "capabilities": {}}),
        ),
        (
            "DiscoverResult",
            json!({"supportedVersions": ["2026-07-28"], "capabilities": 1}),
        ),
        (
            "DiscoverResult",
            json!({"supportedVersions": ["2026-07-28"]}),
        ),
        ("DiscoverResult", json!({"capabilities": {}})),
        (
            "InputRequiredResult",
            json!({"resultType": "input_required", "inputRequests": []}),
        ),
        (
            "InputRequiredResult",
            json!({"resultType": "input_required", "requestState": 5}),
        ),
        (
            "InputRequests",
            json!({"a": {"method": "sampling/create", "params": {}}}),
        ),
        ("InputRequests", json!({"a": {"method": 5}})),
        ("InputRequests", json!([])),
        (
            "CreateMessageResult",
            json!({"role": "system", "content": {"type": "text", "text": "x"}, "model": "m"}),
        ),
        (
            "CreateMessageResult",
            json!({"role": "assistant", "content": {"type": "text", "text": "x"}, "model": 5}),
        ),
        (
            "CreateMessageResult",
            json!({"role": "assistant", "content": {"type": "text", "text": 5}, "model": "m"}),
        ),
        (
            "CreateMessageResult",
            json!({"role": "assistant", "model": "m"}),
        ),
        (
            "CreateMessageResult",
            json!({"role": "assistant", "content": {"type": "video"}, "model": "m"}),
        ),
        ("ListRootsResult", json!({"roots": "x"})),
        ("ListRootsResult", json!({"roots": [{"name": "r"}]})),
        ("ListRootsResult", json!({"roots": [{"uri": 5}]})),
        ("ElicitResult", json!({"action": "ok"})),
        ("ElicitResult", json!({})),
        (
            "ElicitRequestURLParams",
            json!({"mode": "url", "message": "m", "elicitationId": "e", "url": 5}),
        ),
        (
            "ElicitRequestFormParams",
            json!({"message": "m", "requestedSchema": {"type": "object", "properties": []}}),
        ),
        (
            "ElicitRequestFormParams",
            json!({"message": "m", "requestedSchema": {"type": "array", "properties": {}}}),
        ),
        (
            "ElicitRequestFormParams",
            json!({"message": "m", "requestedSchema": {"type": "object", "properties": {"a": {"type": "object"}}}}),
        ),
        ("StringSchema", json!({"type": "string", "minLength": "3"})),
        ("NumberSchema", json!({"type": "float"})),
        ("NumberSchema", json!({"type": "number", "minimum": "0"})),
        (
            "UntitledSingleSelectEnumSchema",
            json!({"type": "string", "enum": "Red"}),
        ),
        (
            "UntitledSingleSelectEnumSchema",
            json!({"type": "string", "enum": [1]}),
        ),
        (
            "TitledSingleSelectEnumSchema",
            json!({"type": "string", "oneOf": [{"const": 1, "title": "x"}]}),
        ),
        (
            "UntitledMultiSelectEnumSchema",
            json!({"type": "array", "items": {"type": "string", "enum": "Red"}}),
        ),
        (
            "UntitledMultiSelectEnumSchema",
            json!({"type": "array", "items": {"type": "string", "enum": []}, "maxItems": "2"}),
        ),
        (
            "TitledMultiSelectEnumSchema",
            json!({"type": "array", "items": {"anyOf": "x"}}),
        ),
        ("PrimitiveSchemaDefinition", json!({"type": "object"})),
        ("PrimitiveSchemaDefinition", json!("string")),
        (
            "Tool",
            json!({"name": 5, "inputSchema": {"type": "object"}}),
        ),
        ("Tool", json!({"name": "n"})),
        ("Tool", json!({"name": "n", "inputSchema": 5})),
        ("ListToolsResult", json!({"tools": {}})),
        ("ListToolsResult", json!({"nextCursor": "c"})),
        ("TextContent", json!({"type": "text", "text": 5})),
        (
            "ImageContent",
            json!({"type": "image", "data": 1, "mimeType": "image/png"}),
        ),
        (
            "ToolUseContent",
            json!({"type": "tool_use", "id": "1", "name": "t", "input": []}),
        ),
        (
            "ToolResultContent",
            json!({"type": "tool_result", "toolUseId": 5, "content": []}),
        ),
    ];
    let mut accepted = Vec::new();
    for (name, v) in cases {
        // The schema refuses it (the case is malformed indeed) ...
        if spec.check(name, v).is_ok() {
            accepted.push(format!(
                "{name}: the schema accepts {v}: not a malformed case"
            ));
        }
        // ... and so does the client's decoder.
        match std::panic::catch_unwind(|| decode(name, &v.to_string(), v, Mode::Valid)) {
            Ok(Ok(_)) => accepted.push(format!("{name} accepted {v}")),
            Ok(Err(_)) => {}
            Err(_) => accepted.push(format!("{name} panicked on {v}")),
        }
    }
    println!("{} malformed instances refused", cases.len());
    assert!(
        accepted.is_empty(),
        "malformed instances accepted:\n  {}",
        accepted.join("\n  ")
    );
}

// ---------------------------------------------------------------------------------------
// 4. Mutated examples.
// ---------------------------------------------------------------------------------------

/// Every value reachable in `v` replaced by values of other shapes, and every object
/// member removed.
fn mutations(v: &Value, depth: usize, out: &mut Vec<Value>, rebuild: &dyn Fn(Value) -> Value) {
    let replacements = [
        Value::Null,
        json!(true),
        json!(-1),
        json!(1.5),
        json!(1e300),
        json!(u64::MAX),
        json!("x"),
        json!([]),
        json!({}),
        json!([{}]),
    ];
    for r in &replacements {
        if r != v {
            out.push(rebuild(r.clone()));
        }
    }
    if depth > 8 {
        return;
    }
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                let mut without = m.clone();
                without.remove(k);
                out.push(rebuild(Value::Object(without)));
                let rebuild_child = |c: Value| {
                    let mut m2 = m.clone();
                    m2.insert(k.clone(), c);
                    rebuild(Value::Object(m2))
                };
                mutations(child, depth + 1, out, &rebuild_child);
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                let rebuild_child = |c: Value| {
                    let mut a2 = a.clone();
                    a2[i] = c;
                    rebuild(Value::Array(a2))
                };
                mutations(child, depth + 1, out, &rebuild_child);
            }
        }
        _ => {}
    }
}

#[test]
fn mutated_examples() {
    let mut spec = Spec::load();
    let mut failures = Vec::new();
    let mut total = 0;
    let mut valid = 0;
    let mut seen = Vec::new();
    for (folder, file, path) in examples() {
        let text = std::fs::read_to_string(&path).expect("readable example");
        let v: Value = serde_json::from_str(&text).expect("example is JSON");
        let mut variants = Vec::new();
        mutations(&v, 0, &mut variants, &|x| x);
        for m in variants {
            total += 1;
            let mtext = m.to_string();
            let outcome = std::panic::catch_unwind(|| decode(&folder, &mtext, &m, Mode::Valid));
            match outcome {
                Err(_) => failures.push(format!("{folder}/{file}: panic on {mtext}")),
                Ok(Err(e)) if spec.check(&folder, &m).is_ok() && !stricter(&e, &mut seen) => {
                    failures.push(format!("{folder}/{file}: refused a valid {mtext}: {e}"))
                }
                Ok(_) => {}
            }
            if spec.check(&folder, &m).is_ok() {
                valid += 1;
            }
        }
    }
    for (m, why) in STRICTER_THAN_SCHEMA {
        if !seen.contains(m) {
            failures.push(format!(
                "STRICTER_THAN_SCHEMA lists {m:?} ({why}), which no valid mutation met"
            ));
        }
    }
    println!("{total} mutated examples decoded without a panic; {valid} of them valid");
    assert!(
        failures.is_empty(),
        "{} mutation(s) failed:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}
