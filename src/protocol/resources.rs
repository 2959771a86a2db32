//! Resources (spec `server/resources.mdx`): `Resource`, `ResourceTemplate`, the contents
//! `TextResourceContents` / `BlobResourceContents`, and the params and results of
//! `resources/list`, `resources/templates/list` and `resources/read`.
//! Updates arrive on listen streams ([`super::subscriptions`]).

use crate::protocol::content::{string_member, Annotations};
use crate::protocol::meta::{CacheScope, Cursor, Icon, MetaObject};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// A resource the server can read (spec `Resource`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The URI of this resource.
    pub uri: String,
    /// Programmatic name; the display name when `title` is absent.
    pub name: String,
    /// Human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Hints for the client: audience, priority, last modification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Size of the raw content in bytes, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons a user interface can show.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// `_meta`: metadata, kept as sent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A template for resources the server offers, with an RFC 6570 URI template (spec
/// `ResourceTemplate`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// The RFC 6570 URI template.
    pub uri_template: String,
    /// Programmatic name; the display name when `title` is absent.
    pub name: String,
    /// Human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of every matching resource, when they all share one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Hints for the client: audience, priority, last modification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons a user interface can show.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// `_meta`: metadata, kept as sent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The contents of a resource that can be represented as text (spec `TextResourceContents`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextResourceContents {
    /// The URI of this resource.
    pub uri: String,
    /// The MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text of the item.
    pub text: String,
    /// `_meta`: metadata, kept as sent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The contents of a binary resource (spec `BlobResourceContents`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlobResourceContents {
    /// The URI of this resource.
    pub uri: String,
    /// The MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The base64-encoded binary data.
    pub blob: String,
    /// `_meta`: metadata, kept as sent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The contents of a resource: `TextResourceContents | BlobResourceContents`, as
/// `resources/read` and `EmbeddedResource` carry them. (The schema's `ResourceContents`
/// is the base both share: `uri`, `mimeType`, `_meta`; see the accessors.) Told apart by
/// which of `text` / `blob` is present; an object with both is read as text and keeps
/// `blob` in `extra`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// `text` is present.
    Text(TextResourceContents),
    /// `blob` (and no `text`) is present.
    Blob(BlobResourceContents),
}

impl ResourceContents {
    /// The URI of this resource.
    pub fn uri(&self) -> &str {
        match self {
            ResourceContents::Text(t) => &t.uri,
            ResourceContents::Blob(b) => &b.uri,
        }
    }

    /// The MIME type, if known.
    pub fn mime_type(&self) -> Option<&str> {
        match self {
            ResourceContents::Text(t) => t.mime_type.as_deref(),
            ResourceContents::Blob(b) => b.mime_type.as_deref(),
        }
    }

    /// The `_meta` object, if any.
    pub fn meta(&self) -> Option<&MetaObject> {
        match self {
            ResourceContents::Text(t) => t.meta.as_ref(),
            ResourceContents::Blob(b) => b.meta.as_ref(),
        }
    }
}

impl<'de> Deserialize<'de> for ResourceContents {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        // Checks the object shape and `uri` with a clear message first.
        string_member::<D::Error>(&v, "uri", "resource contents")?;
        let decoded = if v.get("text").is_some() {
            serde_json::from_value(v).map(ResourceContents::Text)
        } else if v.get("blob").is_some() {
            serde_json::from_value(v).map(ResourceContents::Blob)
        } else {
            return Err(D::Error::custom(
                "resource contents need a \"text\" or a \"blob\" member",
            ));
        };
        decoded.map_err(D::Error::custom)
    }
}

/// The result of `resources/list` (spec `ListResourcesResult`, a cacheable, paginated result).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourcesResult {
    /// This page of the list.
    pub resources: Vec<Resource>,
    /// Present when there may be more pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Freshness hint in ms; read it with [`crate::protocol::meta::effective_ttl_ms`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<i64>,
    /// Who may cache this result (absent from older servers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// `"complete"`; absent from pre-2026 servers (then read as `"complete"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<String>,
    /// A `ResultMetaObject`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of `resources/templates/list` (spec `ListResourceTemplatesResult`, a
/// cacheable, paginated result).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourceTemplatesResult {
    /// This page of the list.
    pub resource_templates: Vec<ResourceTemplate>,
    /// Present when there may be more pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Freshness hint in ms; read it with [`crate::protocol::meta::effective_ttl_ms`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<i64>,
    /// Who may cache this result (absent from older servers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// `"complete"`; absent from pre-2026 servers (then read as `"complete"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<String>,
    /// A `ResultMetaObject`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of `resources/read` (spec `ReadResourceRequestParams`; may be an MRTR retry).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceRequestParams {
    /// The URI to read; the server decides how to interpret it.
    pub uri: String,
    /// MRTR: answers to the previous round's `inputRequests`, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<Map<String, Value>>,
    /// MRTR: the previous round's `requestState`, echoed verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// A `RequestMetaObject` (required on every request).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of `resources/read` (spec `ReadResourceResult`, a cacheable result).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceResult {
    /// The resource and any sub-resources.
    pub contents: Vec<ResourceContents>,
    /// Freshness hint in ms; read it with [`crate::protocol::meta::effective_ttl_ms`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<i64>,
    /// Who may cache this result (absent from older servers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// `"complete"`; absent from pre-2026 servers (then read as `"complete"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<String>,
    /// A `ResultMetaObject`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn contents_are_told_apart_by_text_or_blob() {
        let t: ResourceContents = serde_json::from_value(json!({"uri": "u", "text": "x"})).unwrap();
        assert!(matches!(t, ResourceContents::Text(_)));
        let b: ResourceContents =
            serde_json::from_value(json!({"uri": "u", "blob": "AA=="})).unwrap();
        assert!(matches!(b, ResourceContents::Blob(_)));
        assert_eq!(b.uri(), "u");
        let both = json!({"uri": "u", "text": "x", "blob": "AA=="});
        let t: ResourceContents = serde_json::from_value(both.clone()).unwrap();
        assert!(matches!(t, ResourceContents::Text(_)));
        assert_eq!(serde_json::to_value(&t).unwrap(), both);
        for bad in [
            json!({"uri": "u"}),
            json!({"text": "x"}),
            json!({"uri": "u", "text": 1}),
            json!("u"),
        ] {
            assert!(serde_json::from_value::<ResourceContents>(bad).is_err());
        }
    }

    #[test]
    fn a_read_result_without_cache_hints_still_decodes() {
        let r: ReadResourceResult =
            serde_json::from_value(json!({"contents": [{"uri": "u", "text": ""}]})).unwrap();
        assert_eq!(crate::protocol::meta::effective_ttl_ms(r.ttl_ms), 0);
        assert_eq!(r.cache_scope, None);
        assert!(serde_json::from_value::<ReadResourceResult>(
            json!({"contents": [], "cacheScope": "shared"})
        )
        .is_err());
    }
}
