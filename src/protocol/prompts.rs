//! Prompts (spec `server/prompts.mdx`): `Prompt`, `PromptArgument`, `PromptMessage`, and
//! the params and results of `prompts/list` and `prompts/get`.

use crate::protocol::content::{ContentBlock, Role};
use crate::protocol::meta::{CacheScope, Cursor, Icon, MetaObject};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// An argument a prompt template accepts (spec `PromptArgument`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptArgument {
    /// Programmatic name; the display name when `title` is absent.
    pub name: String,
    /// Human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether the argument must be provided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A prompt or prompt template the server offers (spec `Prompt`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Prompt {
    /// Programmatic name, used in `prompts/get`.
    pub name: String,
    /// Human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The arguments for templating the prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
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

/// One message of a prompt (spec `PromptMessage`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// Who sent the message.
    pub role: Role,
    /// The message content.
    pub content: ContentBlock,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of `prompts/list` (spec `ListPromptsResult`, a cacheable, paginated result).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListPromptsResult {
    /// This page of the list.
    pub prompts: Vec<Prompt>,
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

/// Params of `prompts/get` (spec `GetPromptRequestParams`; may be an MRTR retry).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptRequestParams {
    /// The prompt's name.
    pub name: String,
    /// Template arguments: strings only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
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

/// The result of a completed `prompts/get` (spec `GetPromptResult`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptResult {
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The prompt's messages.
    pub messages: Vec<PromptMessage>,
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
    fn prompt_arguments_are_strings() {
        assert!(serde_json::from_value::<GetPromptRequestParams>(
            json!({"name": "p", "arguments": {"n": 1}})
        )
        .is_err());
        let p: GetPromptRequestParams =
            serde_json::from_value(json!({"name": "p", "arguments": {"n": "1"}})).unwrap();
        assert_eq!(p.arguments.unwrap()["n"], "1");
    }

    #[test]
    fn a_message_needs_a_known_role() {
        let m = json!({"role": "system", "content": {"type": "text", "text": "x"}});
        assert!(serde_json::from_value::<PromptMessage>(m).is_err());
    }
}
