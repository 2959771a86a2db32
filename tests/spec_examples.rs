//! The spec's own JSON examples and schema against the typed protocol structs.
//!
//! 1. `every_spec_example_round_trips`: every file under
//!    `tests/fixtures/spec/2026-07-28/examples/<TypeName>/` is decoded (from its text) into the
//!    Rust type named by its folder, encoded again, and must give the same JSON value. No
//!    member may land in an `extra` map (that would mean a field name is wrong), except where
//!    an example carries a member its schema type does not define (listed in
//!    `KNOWN_UNDECLARED_MEMBERS`). A folder the `check` match does not know fails the test.
//! 2. `every_schema_type_is_complete`: for every type in `schema.json` an instance with
//!    *every* property set is synthesized from the schema and goes through the same checks,
//!    so a misnamed optional field the examples never use is caught too.
//! 3. `malformed_instances_are_errors`: per type, wrong types for (required) fields are
//!    decoding errors, not panics and not silent acceptance.
//! 4. `mutated_examples_never_panic`: every example with each member replaced by values of
//!    other JSON types (or removed) decodes to `Ok` or `Err`, never a panic.

// Test-only envelopes and unions: their size does not matter.
#![allow(clippy::large_enum_variant)]

use mcp_wasm_client::error::ErrorKind;
use mcp_wasm_client::protocol::codes;
use mcp_wasm_client::protocol::completion::*;
use mcp_wasm_client::protocol::content::*;
use mcp_wasm_client::protocol::discover::*;
use mcp_wasm_client::protocol::elicitation::*;
use mcp_wasm_client::protocol::input;
use mcp_wasm_client::protocol::jsonrpc::{self, Message, RequestId, RpcError};
use mcp_wasm_client::protocol::meta::*;
use mcp_wasm_client::protocol::notifications::*;
use mcp_wasm_client::protocol::prompts::*;
use mcp_wasm_client::protocol::resources::*;
use mcp_wasm_client::protocol::roots::*;
use mcp_wasm_client::protocol::sampling::*;
use mcp_wasm_client::protocol::subscriptions::*;
use mcp_wasm_client::protocol::tools::*;
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::path::{Path, PathBuf};

const FIXTURES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/spec/2026-07-28"
);

/// Examples that carry members their schema type does not declare: (file, member).
/// `ListRootsRequest` in the schema is the bare input-request form `{method, params?}`, but
/// its example also has an `"id"`.
const KNOWN_UNDECLARED_MEMBERS: &[(&str, &str)] =
    &[("ListRootsRequest/list-roots-request.json", "\"id\"")];

// ---------------------------------------------------------------------------------------
// Envelopes and unions that only the test needs.
// ---------------------------------------------------------------------------------------

/// A JSON-RPC request with typed params.
#[derive(Debug, Serialize, Deserialize)]
struct JsonRpcRequestOf<P> {
    jsonrpc: String,
    id: RequestId,
    method: String,
    params: P,
    #[serde(flatten)]
    extra: Map<String, Value>,
}

/// A JSON-RPC notification with typed params.
#[derive(Debug, Serialize, Deserialize)]
struct JsonRpcNotificationOf<P> {
    jsonrpc: String,
    method: String,
    /// (No `default`: it would bound `P: Default`; a missing `Option` is `None` anyway.)
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<P>,
    #[serde(flatten)]
    extra: Map<String, Value>,
}

/// A JSON-RPC result response with a typed result.
#[derive(Debug, Serialize, Deserialize)]
struct JsonRpcResultResponse<R> {
    jsonrpc: String,
    id: RequestId,
    result: R,
    #[serde(flatten)]
    extra: Map<String, Value>,
}

/// A JSON-RPC error response.
#[derive(Debug, Serialize, Deserialize)]
struct JsonRpcErrorResponse {
    jsonrpc: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<RequestId>,
    error: RpcError,
    #[serde(flatten)]
    extra: Map<String, Value>,
}

/// `InputRequiredResult | R`, by `resultType`.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum Mrtr<R> {
    InputRequired(InputRequiredResultOf),
    Complete(R),
}

impl<'de, R: DeserializeOwned> Deserialize<'de> for Mrtr<R> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        if v.get("resultType").and_then(Value::as_str) == Some("input_required") {
            serde_json::from_value(v).map(Mrtr::InputRequired)
        } else {
            serde_json::from_value(v).map(Mrtr::Complete)
        }
        .map_err(D::Error::custom)
    }
}

/// `InputRequiredResult` with typed input requests (the library decodes it with
/// `protocol::input`, which keeps params raw).
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct InputRequiredResultOf {
    result_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    input_requests: Option<BTreeMap<String, InputRequest>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    request_state: Option<String>,
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    meta: Option<Map<String, Value>>,
    #[serde(flatten)]
    extra: Map<String, Value>,
}

/// `InputRequest`: `CreateMessageRequest | ListRootsRequest | ElicitRequest`, by `method`.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum InputRequest {
    Sampling(CreateMessageRequest),
    Roots(ListRootsRequest),
    Elicitation(ElicitRequest),
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        match v.get("method").and_then(Value::as_str) {
            Some("sampling/createMessage") => serde_json::from_value(v).map(InputRequest::Sampling),
            Some("roots/list") => serde_json::from_value(v).map(InputRequest::Roots),
            Some("elicitation/create") => serde_json::from_value(v).map(InputRequest::Elicitation),
            _ => return Err(D::Error::custom("unknown input request method")),
        }
        .map_err(D::Error::custom)
    }
}

/// `InputResponse`: `CreateMessageResult | ListRootsResult | ElicitResult`, by their
/// required members.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum InputResponse {
    Sampling(CreateMessageResult),
    Roots(ListRootsResult),
    Elicitation(ElicitResult),
}

impl<'de> Deserialize<'de> for InputResponse {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        if v.get("action").is_some() {
            serde_json::from_value(v).map(InputResponse::Elicitation)
        } else if v.get("roots").is_some() {
            serde_json::from_value(v).map(InputResponse::Roots)
        } else {
            serde_json::from_value(v).map(InputResponse::Sampling)
        }
        .map_err(D::Error::custom)
    }
}

// ---------------------------------------------------------------------------------------
// Checks.
// ---------------------------------------------------------------------------------------

/// Members found in `extra` maps while checking one instance.
#[derive(Default)]
struct Ctx {
    unknown: Vec<String>,
}

fn short<T>() -> String {
    std::any::type_name::<T>()
        .replace("mcp_wasm_client::protocol::", "")
        .replace("spec_examples::", "")
        .replace("alloc::collections::btree::map::", "")
        .replace("serde_json::map::", "")
        .replace("alloc::string::", "")
}

/// Every non-empty `extra: {...}` in a value's `Debug` text: members no typed field took.
fn unknown_members(debug: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = debug;
    while let Some(i) = rest.find("extra: {") {
        rest = &rest[i + "extra: {".len()..];
        if !rest.starts_with('}') {
            out.push(rest.chars().take(100).collect());
        }
    }
    out
}

/// Decodes `text` as `T`, encodes it again and compares with `v`.
fn rt<T: DeserializeOwned + Serialize + Debug>(
    text: &str,
    v: &Value,
    ctx: &mut Ctx,
) -> Result<T, String> {
    let t: T = serde_json::from_str(text)
        .map_err(|e| format!("does not decode as {}: {e}", short::<T>()))?;
    let back =
        serde_json::to_value(&t).map_err(|e| format!("{} does not encode: {e}", short::<T>()))?;
    if back != *v {
        return Err(format!(
            "{} round trip changed the value\n      sent: {v}\n      back: {back}",
            short::<T>()
        ));
    }
    for u in unknown_members(&format!("{t:?}")) {
        ctx.unknown.push(format!("{}: extra {{{u}", short::<T>()));
    }
    Ok(t)
}

/// [`rt`] for a sub-value.
fn rtv<T: DeserializeOwned + Serialize + Debug>(v: &Value, ctx: &mut Ctx) -> Result<T, String> {
    rt(&v.to_string(), v, ctx)
}

fn expect(cond: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if cond {
        Ok(())
    } else {
        Err(what())
    }
}

/// The value also decodes as a `ContentBlock` of that `type`.
fn as_block(v: &Value, ctx: &mut Ctx, kind: &str) -> Result<(), String> {
    let b: ContentBlock = rtv(v, ctx)?;
    expect(b.type_name() == kind, || {
        format!("ContentBlock chose {} for {kind}", b.type_name())
    })
}

/// The value also decodes as a `SamplingMessageContentBlock` of the expected variant.
fn as_sampling_block(
    v: &Value,
    ctx: &mut Ctx,
    ok: fn(&SamplingMessageContentBlock) -> bool,
) -> Result<(), String> {
    let b: SamplingMessageContentBlock = rtv(v, ctx)?;
    expect(ok(&b), || {
        format!("SamplingMessageContentBlock chose {b:?}")
    })
}

/// The value also decodes as a `PrimitiveSchemaDefinition` of the expected variant.
fn as_field(
    v: &Value,
    ctx: &mut Ctx,
    ok: fn(&PrimitiveSchemaDefinition) -> bool,
) -> Result<(), String> {
    let f: PrimitiveSchemaDefinition = rtv(v, ctx)?;
    expect(ok(&f), || format!("PrimitiveSchemaDefinition chose {f:?}"))
}

/// A request's (or request params') `_meta` is a valid `RequestMetaObject`.
fn request_meta(params: &Value, ctx: &mut Ctx) -> Result<(), String> {
    let meta = params
        .get("_meta")
        .ok_or("request params without the required _meta")?;
    rtv::<RequestMetaObject>(meta, ctx).map(drop)
}

/// A result's `_meta`, when present, is a valid `ResultMetaObject`.
fn result_meta(result: &Value, ctx: &mut Ctx) -> Result<(), String> {
    match result.get("_meta") {
        Some(meta) => rtv::<ResultMetaObject>(meta, ctx).map(drop),
        None => Ok(()),
    }
}

/// A notification params' `_meta`, when present, is a valid `NotificationMetaObject`.
fn notification_meta(params: &Value, ctx: &mut Ctx) -> Result<(), String> {
    match params.get("_meta") {
        Some(meta) => rtv::<NotificationMetaObject>(meta, ctx).map(drop),
        None => Ok(()),
    }
}

fn request<P: DeserializeOwned + Serialize + Debug>(
    text: &str,
    v: &Value,
    ctx: &mut Ctx,
    method: Option<&str>,
) -> Result<(), String> {
    let r: JsonRpcRequestOf<P> = rt(text, v, ctx)?;
    expect(r.jsonrpc == "2.0", || format!("jsonrpc is {:?}", r.jsonrpc))?;
    if let Some(m) = method {
        expect(r.method == m, || {
            format!("method is {:?}, expected {m:?}", r.method)
        })?;
        request_meta(&v["params"], ctx)?;
    }
    match jsonrpc::decode(text) {
        Ok(Message::Request { method: m, .. }) if m == r.method => Ok(()),
        other => Err(format!("jsonrpc::decode gave {other:?}")),
    }
}

fn notification<P: DeserializeOwned + Serialize + Debug>(
    text: &str,
    v: &Value,
    ctx: &mut Ctx,
    method: Option<&str>,
    params_required: bool,
) -> Result<(), String> {
    let n: JsonRpcNotificationOf<P> = rt(text, v, ctx)?;
    expect(n.jsonrpc == "2.0", || format!("jsonrpc is {:?}", n.jsonrpc))?;
    if let Some(m) = method {
        expect(n.method == m, || {
            format!("method is {:?}, expected {m:?}", n.method)
        })?;
    }
    expect(!params_required || n.params.is_some(), || {
        "params missing".into()
    })?;
    if let Some(p) = v.get("params") {
        notification_meta(p, ctx)?;
    }
    match jsonrpc::decode(text) {
        Ok(Message::Notification { method: m, .. }) if m == n.method => Ok(()),
        other => Err(format!("jsonrpc::decode gave {other:?}")),
    }
}

/// A result response; its result's `_meta` is checked as a `ResultMetaObject` (the listen
/// result has its own meta type and checks it itself).
fn response<R: DeserializeOwned + Serialize + Debug>(
    text: &str,
    v: &Value,
    ctx: &mut Ctx,
) -> Result<(), String> {
    let r: JsonRpcResultResponse<R> = rt(text, v, ctx)?;
    expect(r.jsonrpc == "2.0", || format!("jsonrpc is {:?}", r.jsonrpc))?;
    if v["result"]
        .get("_meta")
        .and_then(|m| m.get(META_SUBSCRIPTION_ID))
        .is_none()
    {
        result_meta(&v["result"], ctx)?;
    }
    match jsonrpc::decode(text) {
        Ok(Message::Response { id, .. }) if id == r.id => Ok(()),
        other => Err(format!("jsonrpc::decode gave {other:?}")),
    }
}

/// A bare JSON-RPC error object with the given code.
fn error_object(text: &str, v: &Value, ctx: &mut Ctx, code: i64) -> Result<(), String> {
    let e: RpcError = rt(text, v, ctx)?;
    expect(e.code == code, || {
        format!("code {} instead of {code}", e.code)
    })
}

/// A JSON-RPC error response with the given code (any code when `None`); returns its `data`.
fn error_response(
    text: &str,
    v: &Value,
    ctx: &mut Ctx,
    code: Option<i64>,
) -> Result<Option<Value>, String> {
    let r: JsonRpcErrorResponse = rt(text, v, ctx)?;
    expect(r.jsonrpc == "2.0", || format!("jsonrpc is {:?}", r.jsonrpc))?;
    if let Some(c) = code {
        expect(r.error.code == c, || {
            format!("code {} instead of {c}", r.error.code)
        })?;
    }
    match jsonrpc::decode(text) {
        Ok(Message::Error { error, .. }) if error == r.error => Ok(error.data),
        other => Err(format!("jsonrpc::decode gave {other:?}")),
    }
}

/// Checks one JSON text as the schema type `name`. The one place that maps schema type
/// names (= example folder names) to Rust types.
fn check(name: &str, text: &str, ctx: &mut Ctx) -> Result<(), String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let v = &v;
    match name {
        // Content
        "TextContent" => {
            rt::<TextContent>(text, v, ctx)?;
            as_block(v, ctx, "text")?;
            as_sampling_block(v, ctx, |b| matches!(b, SamplingMessageContentBlock::Text(_)))
        }
        "ImageContent" => {
            rt::<ImageContent>(text, v, ctx)?;
            as_block(v, ctx, "image")?;
            as_sampling_block(v, ctx, |b| matches!(b, SamplingMessageContentBlock::Image(_)))
        }
        "AudioContent" => {
            rt::<AudioContent>(text, v, ctx)?;
            as_block(v, ctx, "audio")?;
            as_sampling_block(v, ctx, |b| matches!(b, SamplingMessageContentBlock::Audio(_)))
        }
        "ResourceLink" => {
            rt::<ResourceLink>(text, v, ctx)?;
            as_block(v, ctx, "resource_link")
        }
        "EmbeddedResource" => {
            rt::<EmbeddedResource>(text, v, ctx)?;
            as_block(v, ctx, "resource")
        }
        "ContentBlock" => rt::<ContentBlock>(text, v, ctx).map(drop),
        "TextResourceContents" => {
            rt::<TextResourceContents>(text, v, ctx)?;
            let c: ResourceContents = rtv(v, ctx)?;
            expect(matches!(c, ResourceContents::Text(_)), || format!("ResourceContents chose {c:?}"))
        }
        "BlobResourceContents" => {
            rt::<BlobResourceContents>(text, v, ctx)?;
            let c: ResourceContents = rtv(v, ctx)?;
            expect(matches!(c, ResourceContents::Blob(_)), || format!("ResourceContents chose {c:?}"))
        }

        // Common types
        "Annotations" => rt::<Annotations>(text, v, ctx).map(drop),
        "Role" => rt::<Role>(text, v, ctx).map(drop),
        "Icon" => rt::<Icon>(text, v, ctx).map(drop),
        "Implementation" => rt::<Implementation>(text, v, ctx).map(drop),
        "ClientCapabilities" => rt::<ClientCapabilities>(text, v, ctx).map(drop),
        "ServerCapabilities" => rt::<ServerCapabilities>(text, v, ctx).map(drop),
        "RequestMetaObject" => rt::<RequestMetaObject>(text, v, ctx).map(drop),
        "ResultMetaObject" => rt::<ResultMetaObject>(text, v, ctx).map(drop),
        "NotificationMetaObject" => rt::<NotificationMetaObject>(text, v, ctx).map(drop),
        "RequestParams" => {
            rt::<RequestParams>(text, v, ctx)?;
            request_meta(v, ctx)
        }
        "NotificationParams" => {
            rt::<NotificationParams>(text, v, ctx)?;
            notification_meta(v, ctx)
        }
        "PaginatedRequestParams" => {
            rt::<PaginatedRequestParams>(text, v, ctx)?;
            request_meta(v, ctx)
        }
        "LoggingLevel" => rt::<LoggingLevel>(text, v, ctx).map(drop),
        "RequestId" | "ProgressToken" => rt::<RequestId>(text, v, ctx).map(drop),
        "Cursor" | "ResultType" => rt::<String>(text, v, ctx).map(drop),
        "MetaObject" | "JSONObject" => rt::<Map<String, Value>>(text, v, ctx).map(drop),

        // JSON-RPC and errors
        "JSONRPCRequest" => request::<Map<String, Value>>(text, v, ctx, None),
        "JSONRPCNotification" => notification::<Map<String, Value>>(text, v, ctx, None, false),
        "JSONRPCResultResponse" => response::<Map<String, Value>>(text, v, ctx),
        "JSONRPCErrorResponse" => error_response(text, v, ctx, None).map(drop),
        "Error" => rt::<RpcError>(text, v, ctx).map(drop),
        "ParseError" => error_object(text, v, ctx, codes::PARSE_ERROR),
        "InvalidRequestError" => error_object(text, v, ctx, codes::INVALID_REQUEST),
        "MethodNotFoundError" => error_object(text, v, ctx, codes::METHOD_NOT_FOUND),
        "InvalidParamsError" => error_object(text, v, ctx, codes::INVALID_PARAMS),
        "InternalError" => error_object(text, v, ctx, codes::INTERNAL_ERROR),
        "HeaderMismatchError" => error_response(text, v, ctx, Some(codes::HEADER_MISMATCH)).map(drop),
        "MissingRequiredClientCapabilityError" => {
            let data = error_response(text, v, ctx, Some(codes::MISSING_REQUIRED_CLIENT_CAPABILITY))?;
            rtv::<MissingRequiredClientCapabilityData>(&data.ok_or("no error.data")?, ctx)?;
            let r: JsonRpcErrorResponse = serde_json::from_str(text).map_err(|e| e.to_string())?;
            let kind = codes::from_rpc(&r.error).kind;
            expect(kind == ErrorKind::MissingRequiredClientCapability, || format!("kind {kind:?}"))
        }
        "UnsupportedProtocolVersionError" => {
            let data = error_response(text, v, ctx, Some(codes::UNSUPPORTED_PROTOCOL_VERSION))?;
            rtv::<UnsupportedProtocolVersionData>(&data.ok_or("no error.data")?, ctx).map(drop)
        }

        // completion/complete
        "PromptReference" => {
            rt::<PromptReference>(text, v, ctx)?;
            let r: CompleteReference = rtv(v, ctx)?;
            expect(matches!(r, CompleteReference::Prompt(_)), || format!("chose {r:?}"))
        }
        "ResourceTemplateReference" => {
            rt::<ResourceTemplateReference>(text, v, ctx)?;
            let r: CompleteReference = rtv(v, ctx)?;
            expect(matches!(r, CompleteReference::ResourceTemplate(_)), || format!("chose {r:?}"))
        }
        "CompleteRequest" => request::<CompleteRequestParams>(text, v, ctx, Some("completion/complete")),
        "CompleteRequestParams" => {
            rt::<CompleteRequestParams>(text, v, ctx)?;
            request_meta(v, ctx)
        }
        "CompleteResult" => {
            rt::<CompleteResult>(text, v, ctx)?;
            result_meta(v, ctx)
        }
        "CompleteResultResponse" => response::<CompleteResult>(text, v, ctx),

        // elicitation/create
        "ElicitRequest" => rt::<ElicitRequest>(text, v, ctx).map(drop),
        "ElicitRequestParams" => rt::<ElicitRequestParams>(text, v, ctx).map(drop),
        "ElicitRequestFormParams" => {
            rt::<ElicitRequestFormParams>(text, v, ctx)?;
            let p: ElicitRequestParams = rtv(v, ctx)?;
            expect(matches!(p, ElicitRequestParams::Form(_)), || format!("chose {p:?}"))
        }
        "ElicitRequestURLParams" => {
            rt::<ElicitRequestURLParams>(text, v, ctx)?;
            let p: ElicitRequestParams = rtv(v, ctx)?;
            expect(matches!(p, ElicitRequestParams::Url(_)), || format!("chose {p:?}"))
        }
        "ElicitResult" => rt::<ElicitResult>(text, v, ctx).map(drop),
        "PrimitiveSchemaDefinition" => rt::<PrimitiveSchemaDefinition>(text, v, ctx).map(drop),
        "StringSchema" => {
            rt::<StringSchema>(text, v, ctx)?;
            as_field(v, ctx, |f| matches!(f, PrimitiveSchemaDefinition::String(_)))
        }
        "NumberSchema" => {
            rt::<NumberSchema>(text, v, ctx)?;
            as_field(v, ctx, |f| matches!(f, PrimitiveSchemaDefinition::Number(_)))
        }
        "BooleanSchema" => {
            rt::<BooleanSchema>(text, v, ctx)?;
            as_field(v, ctx, |f| matches!(f, PrimitiveSchemaDefinition::Boolean(_)))
        }
        "UntitledSingleSelectEnumSchema" => {
            rt::<UntitledSingleSelectEnumSchema>(text, v, ctx)?;
            as_field(v, ctx, |f| matches!(f, PrimitiveSchemaDefinition::UntitledSingleSelectEnum(_)))
        }
        "TitledSingleSelectEnumSchema" => {
            rt::<TitledSingleSelectEnumSchema>(text, v, ctx)?;
            as_field(v, ctx, |f| matches!(f, PrimitiveSchemaDefinition::TitledSingleSelectEnum(_)))
        }
        "UntitledMultiSelectEnumSchema" => {
            rt::<UntitledMultiSelectEnumSchema>(text, v, ctx)?;
            as_field(v, ctx, |f| matches!(f, PrimitiveSchemaDefinition::UntitledMultiSelectEnum(_)))
        }
        "TitledMultiSelectEnumSchema" => {
            rt::<TitledMultiSelectEnumSchema>(text, v, ctx)?;
            as_field(v, ctx, |f| matches!(f, PrimitiveSchemaDefinition::TitledMultiSelectEnum(_)))
        }
        "LegacyTitledEnumSchema" => {
            rt::<LegacyTitledEnumSchema>(text, v, ctx)?;
            as_field(v, ctx, |f| matches!(f, PrimitiveSchemaDefinition::LegacyTitledEnum(_)))
        }

        // Request-scoped notifications
        "CancelledNotification" | "ClientNotification" => notification::<CancelledNotificationParams>(
            text,
            v,
            ctx,
            Some("notifications/cancelled"),
            true,
        ),
        "CancelledNotificationParams" => {
            rt::<CancelledNotificationParams>(text, v, ctx)?;
            notification_meta(v, ctx)
        }
        "LoggingMessageNotification" => notification::<LoggingMessageNotificationParams>(
            text,
            v,
            ctx,
            Some("notifications/message"),
            true,
        ),
        "LoggingMessageNotificationParams" => {
            rt::<LoggingMessageNotificationParams>(text, v, ctx)?;
            notification_meta(v, ctx)
        }
        "ProgressNotification" => notification::<ProgressNotificationParams>(
            text,
            v,
            ctx,
            Some("notifications/progress"),
            true,
        ),
        "ProgressNotificationParams" => {
            rt::<ProgressNotificationParams>(text, v, ctx)?;
            notification_meta(v, ctx)
        }

        // Listen-stream notifications
        "PromptListChangedNotification" => notification::<NotificationParams>(
            text,
            v,
            ctx,
            Some("notifications/prompts/list_changed"),
            false,
        ),
        "ResourceListChangedNotification" => notification::<NotificationParams>(
            text,
            v,
            ctx,
            Some("notifications/resources/list_changed"),
            false,
        ),
        "ToolListChangedNotification" => notification::<NotificationParams>(
            text,
            v,
            ctx,
            Some("notifications/tools/list_changed"),
            false,
        ),
        "ResourceUpdatedNotification" => notification::<ResourceUpdatedNotificationParams>(
            text,
            v,
            ctx,
            Some("notifications/resources/updated"),
            true,
        ),
        "ResourceUpdatedNotificationParams" => {
            rt::<ResourceUpdatedNotificationParams>(text, v, ctx)?;
            notification_meta(v, ctx)
        }
        "SubscriptionsAcknowledgedNotification" => notification::<SubscriptionsAcknowledgedNotificationParams>(
            text,
            v,
            ctx,
            Some("notifications/subscriptions/acknowledged"),
            true,
        ),
        "SubscriptionsAcknowledgedNotificationParams" => {
            rt::<SubscriptionsAcknowledgedNotificationParams>(text, v, ctx)?;
            notification_meta(v, ctx)
        }

        // Multi round-trip (the library decodes these with `protocol::input`)
        "InputRequest" => rt::<InputRequest>(text, v, ctx).map(drop),
        "InputRequests" => {
            rt::<BTreeMap<String, InputRequest>>(text, v, ctx)?;
            let raw: Box<RawValue> = serde_json::from_str(text).map_err(|e| e.to_string())?;
            let n = input::decode_input_requests(&raw).map_err(|e| format!("protocol::input: {e}"))?.len();
            expect(n == v.as_object().map_or(0, Map::len), || format!("protocol::input decoded {n} entries"))
        }
        "InputRequiredResult" => {
            rt::<InputRequiredResultOf>(text, v, ctx)?;
            result_meta(v, ctx)?;
            let raw: Box<RawValue> = serde_json::from_str(text).map_err(|e| e.to_string())?;
            input::decode_input_required(&raw)
                .map(drop)
                .map_err(|e| format!("protocol::input: {e}"))
        }
        "InputResponse" => rt::<InputResponse>(text, v, ctx).map(drop),
        "InputResponses" => rt::<BTreeMap<String, InputResponse>>(text, v, ctx).map(drop),

        // prompts/*
        "Prompt" => rt::<Prompt>(text, v, ctx).map(drop),
        "PromptArgument" => rt::<PromptArgument>(text, v, ctx).map(drop),
        "PromptMessage" => rt::<PromptMessage>(text, v, ctx).map(drop),
        "ListPromptsRequest" => request::<PaginatedRequestParams>(text, v, ctx, Some("prompts/list")),
        "ListPromptsResult" => {
            rt::<ListPromptsResult>(text, v, ctx)?;
            result_meta(v, ctx)
        }
        "ListPromptsResultResponse" => response::<ListPromptsResult>(text, v, ctx),
        "GetPromptRequest" => request::<GetPromptRequestParams>(text, v, ctx, Some("prompts/get")),
        "GetPromptRequestParams" => {
            rt::<GetPromptRequestParams>(text, v, ctx)?;
            request_meta(v, ctx)
        }
        "GetPromptResult" => {
            rt::<GetPromptResult>(text, v, ctx)?;
            result_meta(v, ctx)
        }
        "GetPromptResultResponse" => response::<Mrtr<GetPromptResult>>(text, v, ctx),

        // resources/*
        "Resource" => rt::<Resource>(text, v, ctx).map(drop),
        "ResourceTemplate" => rt::<ResourceTemplate>(text, v, ctx).map(drop),
        "ListResourcesRequest" => request::<PaginatedRequestParams>(text, v, ctx, Some("resources/list")),
        "ListResourcesResult" => {
            rt::<ListResourcesResult>(text, v, ctx)?;
            result_meta(v, ctx)
        }
        "ListResourcesResultResponse" => response::<ListResourcesResult>(text, v, ctx),
        "ListResourceTemplatesRequest" => {
            request::<PaginatedRequestParams>(text, v, ctx, Some("resources/templates/list"))
        }
        "ListResourceTemplatesResult" => {
            rt::<ListResourceTemplatesResult>(text, v, ctx)?;
            result_meta(v, ctx)
        }
        "ListResourceTemplatesResultResponse" => response::<ListResourceTemplatesResult>(text, v, ctx),
        "ReadResourceRequest" => request::<ReadResourceRequestParams>(text, v, ctx, Some("resources/read")),
        "ReadResourceRequestParams" => {
            rt::<ReadResourceRequestParams>(text, v, ctx)?;
            request_meta(v, ctx)
        }
        "ReadResourceResult" => {
            rt::<ReadResourceResult>(text, v, ctx)?;
            result_meta(v, ctx)
        }
        "ReadResourceResultResponse" => response::<Mrtr<ReadResourceResult>>(text, v, ctx),

        // roots/list
        "ListRootsRequest" => rt::<ListRootsRequest>(text, v, ctx).map(drop),
        "ListRootsResult" => rt::<ListRootsResult>(text, v, ctx).map(drop),
        "Root" => rt::<Root>(text, v, ctx).map(drop),

        // sampling/createMessage
        "CreateMessageRequest" => rt::<CreateMessageRequest>(text, v, ctx).map(drop),
        "CreateMessageRequestParams" => rt::<CreateMessageRequestParams>(text, v, ctx).map(drop),
        "CreateMessageResult" => rt::<CreateMessageResult>(text, v, ctx).map(drop),
        "SamplingMessage" => rt::<SamplingMessage>(text, v, ctx).map(drop),
        "SamplingMessageContentBlock" => rt::<SamplingMessageContentBlock>(text, v, ctx).map(drop),
        "ModelHint" => rt::<ModelHint>(text, v, ctx).map(drop),
        "ModelPreferences" => rt::<ModelPreferences>(text, v, ctx).map(drop),
        "ToolChoice" => rt::<ToolChoice>(text, v, ctx).map(drop),
        "ToolUseContent" => {
            rt::<ToolUseContent>(text, v, ctx)?;
            as_sampling_block(v, ctx, |b| matches!(b, SamplingMessageContentBlock::ToolUse(_)))
        }
        "ToolResultContent" => {
            rt::<ToolResultContent>(text, v, ctx)?;
            as_sampling_block(v, ctx, |b| matches!(b, SamplingMessageContentBlock::ToolResult(_)))
        }

        // server/discover
        "DiscoverRequest" => request::<RequestParams>(text, v, ctx, Some("server/discover")),
        "DiscoverResult" => {
            rt::<DiscoverResult>(text, v, ctx)?;
            result_meta(v, ctx)
        }
        "DiscoverResultResponse" => response::<DiscoverResult>(text, v, ctx),

        // subscriptions/listen
        "SubscriptionFilter" => rt::<SubscriptionFilter>(text, v, ctx).map(drop),
        "SubscriptionsListenRequest" => {
            request::<SubscriptionsListenRequestParams>(text, v, ctx, Some("subscriptions/listen"))
        }
        "SubscriptionsListenRequestParams" => {
            rt::<SubscriptionsListenRequestParams>(text, v, ctx)?;
            request_meta(v, ctx)
        }
        "SubscriptionsListenResult" => {
            rt::<SubscriptionsListenResult>(text, v, ctx)?;
            let meta = v.get("_meta").ok_or("listen result without the required _meta")?;
            rtv::<SubscriptionsListenResultMetaObject>(meta, ctx).map(drop)
        }
        "SubscriptionsListenResultMetaObject" => rt::<SubscriptionsListenResultMetaObject>(text, v, ctx).map(drop),
        "SubscriptionsListenResultResponse" => {
            response::<SubscriptionsListenResult>(text, v, ctx)?;
            let meta = v["result"].get("_meta").ok_or("listen result without the required _meta")?;
            let m: SubscriptionsListenResultMetaObject = rtv(meta, ctx)?;
            let id: RequestId = serde_json::from_value(v["id"].clone()).map_err(|e| e.to_string())?;
            expect(m.subscription_id == id, || "subscriptionId differs from the response id".into())
        }

        // tools/*
        "Tool" => rt::<Tool>(text, v, ctx).map(drop),
        "ToolAnnotations" => rt::<ToolAnnotations>(text, v, ctx).map(drop),
        "ListToolsRequest" => request::<PaginatedRequestParams>(text, v, ctx, Some("tools/list")),
        "ListToolsResult" => {
            rt::<ListToolsResult>(text, v, ctx)?;
            result_meta(v, ctx)
        }
        "ListToolsResultResponse" => response::<ListToolsResult>(text, v, ctx),
        "CallToolRequest" => request::<CallToolRequestParams>(text, v, ctx, Some("tools/call")),
        "CallToolRequestParams" => {
            rt::<CallToolRequestParams>(text, v, ctx)?;
            request_meta(v, ctx)
        }
        "CallToolResult" => {
            rt::<CallToolResult>(text, v, ctx)?;
            result_meta(v, ctx)
        }
        "CallToolResultResponse" => response::<Mrtr<CallToolResult>>(text, v, ctx),

        other => Err(format!(
            "no Rust type is mapped to the schema type {other:?}: add it to `check` in tests/spec_examples.rs"
        )),
    }
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
fn every_spec_example_round_trips() {
    let all = examples();
    assert!(all.len() >= 129, "only {} example files found", all.len());
    let mut failures = Vec::new();
    let mut undeclared_seen = Vec::new();
    for (folder, file, path) in &all {
        let text = std::fs::read_to_string(path).expect("readable example");
        let mut ctx = Ctx::default();
        let id = format!("{folder}/{file}");
        match check(folder, &text, &mut ctx) {
            Err(e) => failures.push(format!("{id}: {e}")),
            Ok(()) => {
                for u in ctx.unknown {
                    match KNOWN_UNDECLARED_MEMBERS
                        .iter()
                        .find(|(f, m)| *f == id && u.contains(m))
                    {
                        Some(known) => undeclared_seen.push(*known),
                        None => failures.push(format!("{id}: a member no typed field took: {u}")),
                    }
                }
            }
        }
    }
    for known in KNOWN_UNDECLARED_MEMBERS {
        if !undeclared_seen.contains(known) {
            failures.push(format!(
                "{}: the known undeclared member {} is gone: update KNOWN_UNDECLARED_MEMBERS",
                known.0, known.1
            ));
        }
    }
    println!(
        "{} of {} example files round-trip",
        all.len() - failures.len(),
        all.len()
    );
    assert!(
        failures.is_empty(),
        "{} example check(s) failed:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

// ---------------------------------------------------------------------------------------
// 2. Every schema type, with every property set.
// ---------------------------------------------------------------------------------------

/// Schema types with no Rust type of their own, and why.
const NOT_MAPPED: &[(&str, &str)] = &[
    (
        "JSONRPCMessage",
        "union of envelopes: protocol::jsonrpc::decode",
    ),
    (
        "JSONRPCResponse",
        "union of envelopes: protocol::jsonrpc::decode",
    ),
    ("JSONValue", "serde_json::Value"),
    ("JSONArray", "serde_json::Value"),
    (
        "Result",
        "base of every result: its fields are in each result struct",
    ),
    ("EmptyResult", "= Result"),
    ("ClientResult", "= Result"),
    ("ServerResult", "union of the result structs"),
    (
        "CacheableResult",
        "base: ttlMs/cacheScope are in each cacheable result",
    ),
    ("PaginatedResult", "base: nextCursor is in each list result"),
    ("PaginatedRequest", "base of the list requests"),
    ("Request", "base envelope"),
    ("Notification", "base envelope"),
    ("ClientRequest", "union of the request envelopes"),
    ("ServerNotification", "union of the notification envelopes"),
    ("BaseMetadata", "base: name/title are in each struct"),
    ("Icons", "base: icons is in each struct"),
    (
        "ResourceContents",
        "base of Text/BlobResourceContents; the Rust enum of that name is their union",
    ),
    ("ResourceRequestParams", "base of ReadResourceRequestParams"),
    (
        "InputResponseRequestParams",
        "base: inputResponses/requestState are in each MRTR params struct",
    ),
    ("EnumSchema", "sub-union of PrimitiveSchemaDefinition"),
    (
        "SingleSelectEnumSchema",
        "sub-union of PrimitiveSchemaDefinition",
    ),
    (
        "MultiSelectEnumSchema",
        "sub-union of PrimitiveSchemaDefinition",
    ),
];

struct Synth<'a> {
    defs: &'a Map<String, Value>,
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
            "string" => json!("x"),
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
                merge(a.entry(k).or_insert(Value::Null), v);
            }
        }
        (slot, v) => *slot = v,
    }
}

#[test]
fn every_schema_type_is_complete() {
    let text =
        std::fs::read_to_string(Path::new(FIXTURES).join("schema.json")).expect("schema.json");
    let schema: Value = serde_json::from_str(&text).expect("schema.json is JSON");
    let defs = schema["$defs"].as_object().expect("$defs");
    let synth = Synth { defs };
    let mut failures = Vec::new();
    let mut checked = 0;
    for (name, def) in defs {
        if NOT_MAPPED.iter().any(|(n, _)| n == name) {
            continue;
        }
        let _ = def;
        let instance = synth.def(name, 0);
        let mut ctx = Ctx::default();
        match check(name, &instance.to_string(), &mut ctx) {
            Err(e) => failures.push(format!("{name}: {e}\n      instance: {instance}")),
            Ok(()) => {
                checked += 1;
                for u in ctx.unknown {
                    failures.push(format!(
                        "{name}: a schema property no typed field took: {u}"
                    ));
                }
            }
        }
    }
    for (n, _) in NOT_MAPPED {
        if !defs.contains_key(*n) {
            failures.push(format!(
                "NOT_MAPPED names {n}, which the schema no longer has"
            ));
        }
    }
    println!("{checked} schema types checked with every property set");
    assert!(
        failures.is_empty(),
        "{} schema type check(s) failed:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

// ---------------------------------------------------------------------------------------
// 3. Malformed instances.
// ---------------------------------------------------------------------------------------

/// `Some(what was accepted)` when `T` accepts `v` (from text and from a value).
fn accepts<T: DeserializeOwned + Debug>(v: &Value) -> Option<String> {
    if let Ok(t) = serde_json::from_str::<T>(&v.to_string()) {
        return Some(format!("{t:?}"));
    }
    serde_json::from_value::<T>(v.clone())
        .ok()
        .map(|t| format!("{t:?}"))
}

macro_rules! malformed {
    ($($t:ty => [$($v:tt),+ $(,)?]),* $(,)?) => {
        vec![$($((stringify!($t), json!($v), accepts::<$t> as fn(&Value) -> Option<String>)),+),*]
    };
}

#[test]
fn malformed_instances_are_errors() {
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let cases = malformed![
        // content.rs
        Role => ["system", 1],
        Annotations => [{"audience": "user"}, {"priority": "high"}, {"lastModified": 5}, []],
        TextContent => [{"type": "text", "text": 5}, {"type": "image", "text": "x"}, {"text": "x"}],
        ImageContent => [{"type": "image", "data": "AA==", "mimeType": []}, {"type": "image", "data": 1, "mimeType": "image/png"}],
        AudioContent => [{"type": "audio", "data": 5, "mimeType": "audio/wav"}],
        ResourceLink => [{"type": "resource_link", "uri": 1, "name": "n"}, {"type": "resource_link", "uri": "u", "name": "n", "size": -1}],
        EmbeddedResource => [{"type": "resource", "resource": "x"}, {"type": "resource", "resource": {"uri": "u"}}],
        ContentBlock => [{"type": "text", "text": false}, {"type": "video"}, "text", null],
        // meta.rs
        Icon => [{"src": 5}, {"src": "s", "theme": "blue"}, {"src": "s", "sizes": "48x48"}],
        Implementation => [{"name": "n", "version": 1}, {"name": 1, "version": "1"}],
        ClientCapabilities => [{"elicitation": "yes"}, {"roots": []}, {"extensions": {"x": true}}],
        ServerCapabilities => [{"tools": true}, {"logging": 1}, {"experimental": []}],
        ElicitationCapability => [{"form": true}],
        SamplingCapability => [{"tools": 1}],
        PromptsCapability => [{"listChanged": "yes"}],
        ResourcesCapability => [{"subscribe": 1}],
        ToolsCapability => [{"listChanged": 0}],
        RequestMetaObject => [{"io.modelcontextprotocol/protocolVersion": 2026, "io.modelcontextprotocol/clientCapabilities": {}},
                              {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": []}],
        ResultMetaObject => [{"io.modelcontextprotocol/serverInfo": "x"}],
        NotificationMetaObject => [{"io.modelcontextprotocol/subscriptionId": {}}, {"io.modelcontextprotocol/subscriptionId": 1.5}],
        RequestParams => [{"_meta": "x"}],
        NotificationParams => [{"_meta": []}],
        PaginatedRequestParams => [{"cursor": 3}],
        CacheScope => ["shared"],
        MissingRequiredClientCapabilityData => [{"requiredCapabilities": 5}, {}],
        // notifications.rs
        LoggingLevel => ["verbose", 3],
        LoggingMessageNotificationParams => [{"level": 3, "data": "x"}, {"level": "info"}],
        ProgressNotificationParams => [{"progressToken": "t", "progress": "50%"}, {"progressToken": null, "progress": 1}],
        CancelledNotificationParams => [{"requestId": 1.5}, {"requestId": null}, {"reason": "x"}],
        // resources.rs
        Resource => [{"uri": "u", "name": null}, {"uri": "u", "name": "n", "size": "1kB"}],
        ResourceTemplate => [{"uriTemplate": 5, "name": "n"}],
        TextResourceContents => [{"uri": "u", "text": 5}],
        BlobResourceContents => [{"uri": "u", "blob": 5}],
        ResourceContents => [{"uri": "u"}, {"uri": 1, "text": "x"}, []],
        ListResourcesResult => [{"resources": {}}, {"resources": [], "ttlMs": "60s"}],
        ListResourceTemplatesResult => [{"resourceTemplates": "x"}, {"resourceTemplates": [], "ttlMs": 1.5}],
        ReadResourceRequestParams => [{"uri": 5}, {"uri": "u", "requestState": 1}],
        ReadResourceResult => [{"contents": {}}, {"contents": [], "cacheScope": "shared"}],
        // tools.rs
        Tool => [{"name": 5, "inputSchema": {}}, {"name": "n"}, {"name": "n", "inputSchema": {}, "icons": {}}],
        ToolAnnotations => [{"readOnlyHint": "yes"}, {"title": 1}],
        ListToolsResult => [{"tools": [{"name": 1, "inputSchema": {}}]}, {"tools": [], "nextCursor": 2}],
        CallToolRequestParams => [{"name": 5}, {"name": "t", "arguments": []}],
        CallToolResult => [{"content": "text"}, {"content": [], "isError": "no"}],
        // prompts.rs
        Prompt => [{"name": 5}, {"name": "p", "arguments": [{"name": 1}]}],
        PromptArgument => [{"name": "a", "required": "yes"}],
        PromptMessage => [{"role": "user", "content": "x"}, {"role": 1, "content": {"type": "text", "text": "x"}}],
        ListPromptsResult => [{"prompts": null}],
        GetPromptRequestParams => [{"name": []}, {"name": "p", "arguments": {"a": 1}}],
        GetPromptResult => [{"messages": {}}],
        // completion.rs
        PromptReference => [{"type": "ref/prompt", "name": 5}, {"type": "ref/resource", "name": "p"}],
        ResourceTemplateReference => [{"type": "ref/resource", "uri": 5}],
        CompleteReference => [{"type": "ref/x", "name": "p"}, {"name": "p"}],
        CompleteArgument => [{"name": "a", "value": 5}],
        CompleteContext => [{"arguments": {"a": 1}}],
        CompleteRequestParams => [{"ref": {"type": "ref/prompt", "name": "p"}, "argument": "x"}],
        Completion => [{"values": "x"}, {"values": [], "total": -1}],
        CompleteResult => [{"completion": {"values": "x"}}, {"completion": []}],
        // discover.rs
        DiscoverResult => [{"supportedVersions": "2026-07-28", "capabilities": {}}, {"supportedVersions": [], "capabilities": 1}],
        UnsupportedProtocolVersionData => [{"supported": "x", "requested": "y"}, {"supported": []}],
        // elicitation.rs
        ElicitRequest => [{"method": "elicitation/create", "params": "x"}, {"method": "elicitation/get", "params": {"mode": "url", "message": "m", "url": "u"}}],
        ElicitRequestParams => [{"mode": "popup", "message": "m"}, {"mode": "url", "message": "m", "url": 5}],
        ElicitRequestFormParams => [{"message": 5, "requestedSchema": {"type": "object", "properties": {}}}, {"mode": "url", "message": "m", "requestedSchema": {"type": "object", "properties": {}}}],
        ElicitRequestURLParams => [{"mode": "url", "message": "m", "url": 5}, {"message": "m", "url": "u"}],
        RequestedSchema => [{"type": "object", "properties": []}, {"type": "array", "properties": {}}, {"type": "object", "properties": {"a": {"type": "object"}}}],
        StringSchema => [{"type": "number"}, {"type": "string", "minLength": "3"}, {"type": "string", "format": "hostname"}],
        NumberSchema => [{"type": "float"}, {"type": "number", "minimum": "0"}],
        BooleanSchema => [{"type": "boolean", "default": "false"}],
        EnumOption => [{"const": 1, "title": "x"}, {"const": "a"}],
        UntitledSingleSelectEnumSchema => [{"type": "string", "enum": "Red"}],
        TitledSingleSelectEnumSchema => [{"type": "string", "oneOf": [{"const": 1, "title": "x"}]}],
        UntitledEnumItems => [{"type": "number", "enum": ["a"]}],
        TitledEnumItems => [{"anyOf": "x"}],
        UntitledMultiSelectEnumSchema => [{"type": "array", "items": {"type": "string", "enum": "Red"}}, {"type": "array", "items": {"type": "string", "enum": []}, "maxItems": "2"}],
        TitledMultiSelectEnumSchema => [{"type": "array", "items": {"anyOf": "x"}}],
        LegacyTitledEnumSchema => [{"type": "string", "enum": ["a"], "enumNames": "A"}],
        PrimitiveSchemaDefinition => [{"type": "object"}, {"type": "string", "title": 5}, "string"],
        ElicitAction => ["ok"],
        ElicitValue => [{"a": 1}, null, [1]],
        ElicitResult => [{"action": "ok"}, {"action": "accept", "content": []}],
        // sampling.rs
        CreateMessageRequest => [{"method": "sampling/create", "params": {"messages": [], "maxTokens": 1}}],
        CreateMessageRequestParams => [{"messages": [], "maxTokens": "100"}, {"messages": [], "maxTokens": -1}, {"messages": {}, "maxTokens": 1}],
        IncludeContext => ["everything"],
        CreateMessageResult => [{"role": "assistant", "content": {"type": "text", "text": "x"}, "model": 5}],
        SamplingMessage => [{"role": 5, "content": []}, {"role": "user", "content": 5}],
        SamplingContent => [5, [{"type": "resource", "resource": {"uri": "u", "text": ""}}]],
        SamplingMessageContentBlock => [{"type": "resource_link", "uri": "u", "name": "n"}, {"type": "tool_use", "id": 1, "name": "t", "input": {}}],
        ToolUseContent => [{"type": "tool_use", "id": "1", "name": "t", "input": []}],
        ToolResultContent => [{"type": "tool_result", "toolUseId": 5, "content": []}, {"type": "tool_result", "toolUseId": "1", "content": "x"}],
        ModelHint => [{"name": 5}],
        ModelPreferences => [{"costPriority": "high"}, {"hints": {}}],
        ToolChoiceMode => ["any"],
        ToolChoice => [{"mode": "any"}],
        // roots.rs
        ListRootsRequest => [{"method": "roots/get"}, {"method": "roots/list", "params": 1}],
        Root => [{"uri": 5}],
        ListRootsResult => [{"roots": "x"}, {"roots": [{"name": "r"}]}],
        // subscriptions.rs
        SubscriptionFilter => [{"resourceSubscriptions": "x"}, {"toolsListChanged": "yes"}],
        SubscriptionsListenRequestParams => [{"notifications": []}],
        SubscriptionsListenResult => [{"resultType": 5}, {"_meta": 5}],
        SubscriptionsListenResultMetaObject => [{"io.modelcontextprotocol/subscriptionId": {}}, {}],
        SubscriptionsAcknowledgedNotificationParams => [{"notifications": "x"}],
        ResourceUpdatedNotificationParams => [{"uri": 5}],
    ];
    let mut accepted = Vec::new();
    let mut types = std::collections::BTreeSet::new();
    for (ty, v, accepts) in &cases {
        types.insert(*ty);
        if let Some(what) = accepts(v) {
            accepted.push(format!("{ty} accepted {v} as {what}"));
        }
    }
    // A valid `_meta` decodes: the RequestMetaObject cases above fail for the right reason.
    assert!(accepts::<RequestMetaObject>(&meta).is_some());
    println!(
        "{} malformed instances of {} types rejected",
        cases.len(),
        types.len()
    );
    assert!(
        accepted.is_empty(),
        "malformed instances accepted:\n  {}",
        accepted.join("\n  ")
    );
}

// ---------------------------------------------------------------------------------------
// 4. No panics on mutated input.
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
fn mutated_examples_never_panic() {
    let mut panics = Vec::new();
    let mut total = 0;
    for (folder, file, path) in examples() {
        let text = std::fs::read_to_string(&path).expect("readable example");
        let v: Value = serde_json::from_str(&text).expect("example is JSON");
        let mut variants = Vec::new();
        mutations(&v, 0, &mut variants, &|x| x);
        for m in variants {
            total += 1;
            let mtext = m.to_string();
            let outcome = std::panic::catch_unwind(|| {
                let mut ctx = Ctx::default();
                let _ = check(&folder, &mtext, &mut ctx);
            });
            if outcome.is_err() {
                panics.push(format!("{folder}/{file}: {mtext}"));
            }
        }
    }
    println!("{total} mutated examples decoded without a panic");
    assert!(panics.is_empty(), "panics on:\n  {}", panics.join("\n  "));
}
