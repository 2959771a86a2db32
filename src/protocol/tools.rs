//! Tools (spec `server/tools.mdx`): `Tool`, `ToolAnnotations`, and the params and results
//! of `tools/list` and `tools/call`.
//!
//! `inputSchema`, `outputSchema` and `structuredContent` stay [`serde_json::Value`]: they
//! are arbitrary JSON (Schema) and are passed on and checked verbatim.

use crate::protocol::content::{present, ContentBlock};
use crate::protocol::meta::{CacheScope, Cursor, Icon, MetaObject};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Additional, untrusted hints about a tool (spec `ToolAnnotations`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// A human-readable title (after `Tool.title` in display precedence).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates (default true; meaningful when not read-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeating a call with the same arguments has no further effect (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool may interact with an open world of external entities (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A tool the client can call (spec `Tool`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// Programmatic name, used in `tools/call`.
    pub name: String,
    /// Human-readable display name (display precedence: `title`, `annotations.title`, `name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description for people and models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A JSON Schema object (`type: "object"`) for the arguments, kept verbatim.
    pub input_schema: Value,
    /// A JSON Schema for `structuredContent`, kept verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Untrusted hints about the tool's behaviour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
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

impl Tool {
    /// The name to show: `title`, then `annotations.title`, then `name`.
    pub fn display_name(&self) -> &str {
        self.title
            .as_deref()
            .or_else(|| self.annotations.as_ref().and_then(|a| a.title.as_deref()))
            .unwrap_or(&self.name)
    }
}

/// The result of `tools/list` (spec `ListToolsResult`, a cacheable, paginated result).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    /// This page of the list.
    pub tools: Vec<Tool>,
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

/// Params of `tools/call` (spec `CallToolRequestParams`; may be an MRTR retry).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolRequestParams {
    /// The tool's name.
    pub name: String,
    /// The arguments, matching the tool's `inputSchema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
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

/// The result of a completed `tools/call` (spec `CallToolResult`). A tool failure is
/// `isError: true` here, not a JSON-RPC error.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// The unstructured result.
    pub content: Vec<ContentBlock>,
    /// The structured result: any JSON value (should match the tool's `outputSchema`).
    /// Present-but-`null` is `Some(Value::Null)`.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
    /// Whether the call ended in an error (absent means false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
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
    fn structured_content_null_survives() {
        let v = json!({"content": [], "structuredContent": null});
        let r: CallToolResult = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(r.structured_content, Some(Value::Null));
        assert_eq!(serde_json::to_value(&r).unwrap(), v);
        let r: CallToolResult = serde_json::from_value(json!({"content": []})).unwrap();
        assert_eq!(r.structured_content, None);
    }

    #[test]
    fn display_name_precedence() {
        let mut t: Tool =
            serde_json::from_value(json!({"name": "n", "inputSchema": {"type": "object"}}))
                .unwrap();
        assert_eq!(t.display_name(), "n");
        t.annotations = Some(ToolAnnotations {
            title: Some("a".into()),
            ..Default::default()
        });
        assert_eq!(t.display_name(), "a");
        t.title = Some("t".into());
        assert_eq!(t.display_name(), "t");
    }

    #[test]
    fn a_tool_needs_an_input_schema() {
        assert!(serde_json::from_value::<Tool>(json!({"name": "n"})).is_err());
    }
}
