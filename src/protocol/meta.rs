//! `_meta` keys and the common types every request and result shares (schema categories
//! "Common Types" and `server/discover`; spec `basic/index.mdx` "`_meta`",
//! `server/utilities/caching.mdx`, `server/utilities/pagination.mdx`):
//! the reserved `_meta` keys, `RequestMetaObject`, `ResultMetaObject`,
//! `NotificationMetaObject`, `RequestParams`, `NotificationParams`,
//! `PaginatedRequestParams`, the cache hints, `Icon`, `Implementation`,
//! `ClientCapabilities` and `ServerCapabilities`.

use crate::protocol::jsonrpc::RequestId;
use crate::protocol::notifications::LoggingLevel;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// `_meta` key: the protocol version of a request (required on every request).
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key: the client's capabilities for a request (required on every request).
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key: the client's [`Implementation`] (SHOULD be on every request).
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key: the minimum [`LoggingLevel`] the server may emit for a request.
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key: the `subscriptions/listen` request id a notification (or the listen result) belongs to.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// `_meta` key: the server's [`Implementation`] (SHOULD be on every result).
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key: opts a request into `notifications/progress`.
pub const PROGRESS_TOKEN: &str = "progressToken";
/// `_meta` key of the 2025-11-25 tasks utility (`{taskId}` on task-related messages). The
/// 2026-07-28 tasks extension does not use it; legacy-era code only.
pub const META_RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
/// `_meta` key: W3C trace context (reserved by spec `basic/index.mdx`).
pub const META_TRACEPARENT: &str = "traceparent";
/// `_meta` key: W3C trace state.
pub const META_TRACESTATE: &str = "tracestate";
/// `_meta` key: W3C baggage.
pub const META_BAGGAGE: &str = "baggage";

/// The contents of a `_meta` member: any JSON object (spec `MetaObject`).
pub type MetaObject = Map<String, Value>;

/// A progress token: a string or an integer, like a request id (spec `ProgressToken`).
pub type ProgressToken = RequestId;

/// An opaque pagination cursor (spec `Cursor`). An empty string is a valid cursor.
pub type Cursor = String;

/// Decodes a typed `_meta` view from a `_meta` map.
fn from_meta<T: DeserializeOwned>(meta: &MetaObject) -> Result<T, serde_json::Error> {
    serde_json::from_value(Value::Object(meta.clone()))
}

/// Encodes a typed `_meta` view as a `_meta` map.
fn to_meta<T: Serialize>(t: &T) -> MetaObject {
    match serde_json::to_value(t) {
        Ok(Value::Object(m)) => m,
        // A struct always serializes to an object; nothing else can happen.
        _ => Map::new(),
    }
}

/// The `_meta` of every client request (spec `RequestMetaObject`, `basic/index.mdx`
/// "Per-request protocol fields"). The params structs hold `_meta` as a plain map; use
/// [`RequestMetaObject::from_meta`] / [`RequestMetaObject::to_meta`] to read or build it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestMetaObject {
    /// The protocol version of this request (required).
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    pub protocol_version: String,
    /// The client's capabilities for this request (required; `{}` declares none).
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities")]
    pub client_capabilities: ClientCapabilities,
    /// The client software (SHOULD be sent).
    #[serde(
        rename = "io.modelcontextprotocol/clientInfo",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub client_info: Option<Implementation>,
    /// The minimum log level for this request; absent means no log messages.
    #[serde(
        rename = "io.modelcontextprotocol/logLevel",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub log_level: Option<LoggingLevel>,
    /// Requests `notifications/progress` for this request.
    #[serde(
        rename = "progressToken",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub progress_token: Option<ProgressToken>,
    /// Other keys (trace context, extensions), kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl RequestMetaObject {
    /// Reads the typed view of a request's `_meta`.
    pub fn from_meta(meta: &MetaObject) -> Result<Self, serde_json::Error> {
        from_meta(meta)
    }
    /// The `_meta` map to put on a request.
    pub fn to_meta(&self) -> MetaObject {
        to_meta(self)
    }
}

/// The `_meta` of a result (spec `ResultMetaObject`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ResultMetaObject {
    /// The server software (self-reported; for display and logs only).
    #[serde(
        rename = "io.modelcontextprotocol/serverInfo",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub server_info: Option<Implementation>,
    /// Other keys, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ResultMetaObject {
    /// Reads the typed view of a result's `_meta`.
    pub fn from_meta(meta: &MetaObject) -> Result<Self, serde_json::Error> {
        from_meta(meta)
    }
    /// The `_meta` map of this view.
    pub fn to_meta(&self) -> MetaObject {
        to_meta(self)
    }
}

/// The `_meta` of a notification (spec `NotificationMetaObject`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NotificationMetaObject {
    /// The listen stream the notification was delivered on (absent outside listen streams).
    #[serde(
        rename = "io.modelcontextprotocol/subscriptionId",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub subscription_id: Option<RequestId>,
    /// Other keys, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl NotificationMetaObject {
    /// Reads the typed view of a notification's `_meta`.
    pub fn from_meta(meta: &MetaObject) -> Result<Self, serde_json::Error> {
        from_meta(meta)
    }
    /// The `_meta` map of this view.
    pub fn to_meta(&self) -> MetaObject {
        to_meta(self)
    }
}

/// Common params for any request: just `_meta` (spec `RequestParams`; the params of
/// `server/discover`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestParams {
    /// A [`RequestMetaObject`] (required on every request).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Common params for any notification: just `_meta` (spec `NotificationParams`; the params
/// of the `list_changed` notifications).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NotificationParams {
    /// A [`NotificationMetaObject`].
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Common params for paginated requests (spec `PaginatedRequestParams`; `tools/list`,
/// `prompts/list`, `resources/list`, `resources/templates/list`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PaginatedRequestParams {
    /// A [`RequestMetaObject`] (required on every request).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Where to continue: the previous page's `nextCursor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Cursor>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Who may cache a result (spec `CacheableResult.cacheScope`, `server/utilities/caching.mdx`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// No user-specific data: any client, gateway or proxy may share it.
    Public,
    /// Cache per authorization context only.
    Private,
}

/// The freshness a result's `ttlMs` grants, in milliseconds. The schema requires
/// `ttlMs >= 0` on cacheable results, but `caching.mdx` "Time-to-Live (TTL) Field" tells
/// clients to treat an absent value (older servers) or a negative one as `0`, so the
/// cacheable results hold `ttlMs` as `Option<i64>` and this is how it is read.
pub fn effective_ttl_ms(ttl_ms: Option<i64>) -> u64 {
    ttl_ms.map_or(0, |t| u64::try_from(t).unwrap_or(0))
}

/// Theme an icon is designed for (spec `Icon.theme`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IconTheme {
    /// For a light background.
    Light,
    /// For a dark background.
    Dark,
}

/// An optionally-sized icon a user interface can show (spec `Icon`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// An `https:` URL or a `data:` URI.
    pub src: String,
    /// MIME type override when the source's is missing or generic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes as `WxH` strings, or `"any"` for scalable formats.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// The background the icon is designed for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Describes an MCP implementation: the client's `clientInfo`, the server's `serverInfo`
/// (spec `Implementation`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// Programmatic name; the display name when `title` is absent.
    pub name: String,
    /// Human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The version of this implementation.
    pub version: String,
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The implementation's website.
    pub website_url: Option<String>,
    /// Icons a user interface can show.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ClientCapabilities.elicitation`: `{}` means form mode only (spec `client/elicitation.mdx`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitationCapability {
    /// Form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<Map<String, Value>>,
    /// URL mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<Map<String, Value>>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ClientCapabilities.sampling` (deprecated with sampling itself).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SamplingCapability {
    /// Support for the deprecated `includeContext` values other than `"none"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Map<String, Value>>,
    /// Support for `tools` and `toolChoice` in sampling requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Map<String, Value>>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What a client supports, declared on every request (spec `ClientCapabilities`). Not a
/// closed set: unknown capabilities are kept in `extra`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientCapabilities {
    /// Experimental, non-standard capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<BTreeMap<String, Map<String, Value>>>,
    /// Listing roots (deprecated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<Map<String, Value>>,
    /// Sampling from an LLM (deprecated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// Elicitation from the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// Extensions by identifier (e.g. `io.modelcontextprotocol/tasks`) with their settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<BTreeMap<String, Map<String, Value>>>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ServerCapabilities.prompts`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptsCapability {
    /// The server can send `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ServerCapabilities.resources`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesCapability {
    /// The server honours `resourceSubscriptions` on `subscriptions/listen`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// The server can send `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ServerCapabilities.tools`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolsCapability {
    /// The server can send `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What a server supports, from `server/discover` only (spec `ServerCapabilities`). Not a
/// closed set: unknown capabilities are kept in `extra`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerCapabilities {
    /// Experimental, non-standard capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<BTreeMap<String, Map<String, Value>>>,
    /// Log messages (`notifications/message`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<Map<String, Value>>,
    /// Argument completion (`completion/complete`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<Map<String, Value>>,
    /// Present if the server offers prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<PromptsCapability>,
    /// Present if the server offers resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// Present if the server offers tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsCapability>,
    /// Extensions by identifier (e.g. `io.modelcontextprotocol/tasks`) with their settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<BTreeMap<String, Map<String, Value>>>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `error.data` of a `MissingRequiredClientCapabilityError` (`-32021`): the capabilities
/// the request needs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingRequiredClientCapabilityData {
    /// The capabilities the request needs.
    pub required_capabilities: ClientCapabilities,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn request_meta_keys_are_the_constants() {
        let m = RequestMetaObject {
            protocol_version: "2026-07-28".into(),
            client_info: Some(Implementation {
                name: "c".into(),
                version: "1".into(),
                ..Default::default()
            }),
            log_level: Some(LoggingLevel::Debug),
            progress_token: Some(RequestId::Number(1)),
            ..Default::default()
        }
        .to_meta();
        for key in [
            META_PROTOCOL_VERSION,
            META_CLIENT_CAPABILITIES,
            META_CLIENT_INFO,
            META_LOG_LEVEL,
            PROGRESS_TOKEN,
        ] {
            assert!(m.contains_key(key), "{key}");
        }
        assert_eq!(m[META_CLIENT_CAPABILITIES], json!({}));
        let back = RequestMetaObject::from_meta(&m).unwrap();
        assert_eq!(back.to_meta(), m);
    }

    #[test]
    fn other_meta_keys_are_the_constants() {
        let r = ResultMetaObject {
            server_info: Some(Implementation::default()),
            ..Default::default()
        };
        assert!(r.to_meta().contains_key(META_SERVER_INFO));
        let n = NotificationMetaObject {
            subscription_id: Some(RequestId::String("l".into())),
            ..Default::default()
        };
        assert!(n.to_meta().contains_key(META_SUBSCRIPTION_ID));
    }

    #[test]
    fn request_meta_needs_version_and_capabilities() {
        let mut m = Map::new();
        m.insert(META_PROTOCOL_VERSION.into(), json!("2026-07-28"));
        assert!(RequestMetaObject::from_meta(&m).is_err());
        m.insert(META_CLIENT_CAPABILITIES.into(), json!({}));
        assert!(RequestMetaObject::from_meta(&m).is_ok());
        m.insert(META_LOG_LEVEL.into(), json!("verbose"));
        assert!(RequestMetaObject::from_meta(&m).is_err());
    }

    #[test]
    fn ttl_reading_follows_the_caching_page() {
        assert_eq!(effective_ttl_ms(None), 0);
        assert_eq!(effective_ttl_ms(Some(-5)), 0);
        assert_eq!(effective_ttl_ms(Some(60_000)), 60_000);
    }

    #[test]
    fn capability_values_must_be_objects() {
        assert!(
            serde_json::from_value::<ServerCapabilities>(json!({"extensions": {"x": true}}))
                .is_err()
        );
        assert!(serde_json::from_value::<ClientCapabilities>(json!({"roots": []})).is_err());
        let c: ClientCapabilities =
            serde_json::from_value(json!({"elicitation": {}, "x-future": {"a": 1}})).unwrap();
        assert_eq!(c.elicitation, Some(ElicitationCapability::default()));
        assert_eq!(c.extra["x-future"], json!({"a": 1}));
    }
}
