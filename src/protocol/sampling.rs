//! Sampling (spec `client/sampling.mdx`; deprecated in 2026-07-28 by SEP-2577 but still
//! part of the protocol): the `sampling/createMessage` input request, its messages and
//! content blocks (including tool use), model preferences, and the client's
//! `CreateMessageResult`.

use crate::protocol::content::{
    number, present, type_tag, unknown_tag, AudioContent, ContentBlock, ImageContent, Role,
    TextContent,
};
use crate::protocol::meta::MetaObject;
use crate::protocol::tools::Tool;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// The `method` of [`CreateMessageRequest`]: always `"sampling/createMessage"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CreateMessageRequestMethod {
    /// `"sampling/createMessage"`
    #[default]
    #[serde(rename = "sampling/createMessage")]
    SamplingCreateMessage,
}

/// A request to sample an LLM via the client, as an entry of `inputRequests` (spec
/// `CreateMessageRequest`: `method` and `params`, no JSON-RPC envelope).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CreateMessageRequest {
    /// The method tag.
    pub method: CreateMessageRequestMethod,
    /// The request's params.
    pub params: CreateMessageRequestParams,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Which servers' context to include (`CreateMessageRequestParams.includeContext`;
/// values other than `none` need the `sampling.context` capability and are deprecated).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum IncludeContext {
    /// Only this request's messages.
    None,
    /// Context from the requesting server (deprecated).
    ThisServer,
    /// Context from every server (deprecated).
    AllServers,
}

/// Params of `sampling/createMessage` (spec `CreateMessageRequestParams`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageRequestParams {
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// The maximum number of tokens to sample (the client must respect it).
    pub max_tokens: u64,
    /// The server's model preferences; the client may ignore them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// A system prompt; the client may change or omit it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Context to include (deprecated values other than `none`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    /// The sampling temperature.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "number::option"
    )]
    pub temperature: Option<f64>,
    /// Sequences that stop sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata to pass through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// Tools the model may use (needs the `sampling.tools` capability).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// How the model may use tools (default `auto`; needs `sampling.tools`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The client's answer to `sampling/createMessage` (spec `CreateMessageResult`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Who sent the message.
    pub role: Role,
    /// The sampled content: one block or several.
    pub content: SamplingContent,
    /// The model that generated the message.
    pub model: String,
    /// Why sampling stopped: `endTurn`, `stopSequence`, `maxTokens`, `toolUse` or another string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// `_meta`: metadata, kept as sent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A message to or from an LLM (spec `SamplingMessage`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who sent the message.
    pub role: Role,
    /// One block or several.
    pub content: SamplingContent,
    /// `_meta`: metadata, kept as sent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `SamplingMessageContentBlock | SamplingMessageContentBlock[]`, the `content` of a
/// sampling message or result (unnamed in the schema). A JSON array is `Multiple`,
/// anything else `Single`, so each round-trips as sent.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SamplingContent {
    /// One block (boxed: a block is much larger than a `Vec`).
    Single(Box<SamplingMessageContentBlock>),
    /// An array of blocks.
    Multiple(Vec<SamplingMessageContentBlock>),
}

impl SamplingContent {
    /// The blocks, whichever form they were sent in.
    pub fn blocks(&self) -> &[SamplingMessageContentBlock] {
        match self {
            SamplingContent::Single(b) => std::slice::from_ref(b.as_ref()),
            SamplingContent::Multiple(v) => v,
        }
    }
}

impl<'de> Deserialize<'de> for SamplingContent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let decoded = if v.is_array() {
            serde_json::from_value(v).map(SamplingContent::Multiple)
        } else {
            serde_json::from_value(v).map(SamplingContent::Single)
        };
        decoded.map_err(D::Error::custom)
    }
}

/// One block of sampling content (spec `SamplingMessageContentBlock`), told apart by `type`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SamplingMessageContentBlock {
    /// `type: "text"`
    Text(TextContent),
    /// `type: "image"`
    Image(ImageContent),
    /// `type: "audio"`
    Audio(AudioContent),
    /// `type: "tool_use"`
    ToolUse(ToolUseContent),
    /// `type: "tool_result"`
    ToolResult(ToolResultContent),
}

impl<'de> Deserialize<'de> for SamplingMessageContentBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use SamplingMessageContentBlock as B;
        let v = Value::deserialize(d)?;
        let decoded = match type_tag::<D::Error>(&v, "sampling content block")? {
            "text" => serde_json::from_value(v).map(B::Text),
            "image" => serde_json::from_value(v).map(B::Image),
            "audio" => serde_json::from_value(v).map(B::Audio),
            "tool_use" => serde_json::from_value(v).map(B::ToolUse),
            "tool_result" => serde_json::from_value(v).map(B::ToolResult),
            other => return Err(unknown_tag("sampling content block", "type", other)),
        };
        decoded.map_err(D::Error::custom)
    }
}

/// The `type` tag of [`ToolUseContent`]: always `"tool_use"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ToolUseType {
    /// `"tool_use"`
    #[default]
    #[serde(rename = "tool_use")]
    ToolUse,
}

/// The `type` tag of [`ToolResultContent`]: always `"tool_result"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ToolResultType {
    /// `"tool_result"`
    #[default]
    #[serde(rename = "tool_result")]
    ToolResult,
}

/// A request from the model to call a tool (spec `ToolUseContent`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolUseContent {
    /// The `type` tag.
    #[serde(rename = "type")]
    pub kind: ToolUseType,
    /// Identifies this tool use; the matching result quotes it as `toolUseId`.
    pub id: String,
    /// The tool to call.
    pub name: String,
    /// The arguments, matching the tool's input schema.
    pub input: Map<String, Value>,
    /// Kept when the tool use is sent back in later requests (enables caching).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of a tool use, given back to the model (spec `ToolResultContent`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultContent {
    /// The `type` tag.
    #[serde(rename = "type")]
    pub kind: ToolResultType,
    /// The `id` of the tool use this answers.
    pub tool_use_id: String,
    /// The unstructured result.
    pub content: Vec<ContentBlock>,
    /// The structured result: any JSON value; present-but-`null` is `Some(Value::Null)`.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
    /// Whether the tool use ended in an error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Kept when the result is sent back in later requests (enables caching).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A hint for model selection (spec `ModelHint`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelHint {
    /// A (partial) model name, e.g. `claude-3-sonnet`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The server's model preferences for sampling; priorities are 0..=1 (spec
/// `ModelPreferences`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Hints in order of preference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// How much cost matters, from 0 to 1.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "number::option"
    )]
    pub cost_priority: Option<f64>,
    /// How much speed matters, from 0 to 1.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "number::option"
    )]
    pub speed_priority: Option<f64>,
    /// How much capability matters, from 0 to 1.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "number::option"
    )]
    pub intelligence_priority: Option<f64>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// How the model may use tools (`ToolChoice.mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolChoiceMode {
    /// The model decides (the default).
    Auto,
    /// The model must use at least one tool.
    Required,
    /// The model must not use tools.
    None,
}

/// Tool selection for a sampling request (spec `ToolChoice`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolChoice {
    /// Absent means `auto`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ToolChoiceMode>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn content_keeps_its_single_or_array_form() {
        for v in [
            json!({"role": "user", "content": {"type": "text", "text": "x"}}),
            json!({"role": "user", "content": [{"type": "text", "text": "x"}]}),
            json!({"role": "user", "content": []}),
        ] {
            let m: SamplingMessage = serde_json::from_value(v.clone()).unwrap();
            assert_eq!(serde_json::to_value(&m).unwrap(), v);
        }
        let m: SamplingMessage = serde_json::from_value(
            json!({"role": "user", "content": {"type": "text", "text": "x"}}),
        )
        .unwrap();
        assert_eq!(m.content.blocks().len(), 1);
    }

    #[test]
    fn sampling_blocks_exclude_resources() {
        let bad = json!({"type": "resource_link", "uri": "u", "name": "n"});
        assert!(serde_json::from_value::<SamplingMessageContentBlock>(bad).is_err());
        let ok = json!({"type": "tool_use", "id": "1", "name": "t", "input": {}});
        assert!(matches!(
            serde_json::from_value::<SamplingMessageContentBlock>(ok).unwrap(),
            SamplingMessageContentBlock::ToolUse(_)
        ));
    }

    #[test]
    fn tool_choice_modes() {
        for m in ["auto", "required", "none"] {
            let t: ToolChoice = serde_json::from_value(json!({"mode": m})).unwrap();
            assert_eq!(serde_json::to_value(&t).unwrap(), json!({"mode": m}));
        }
        assert!(serde_json::from_value::<ToolChoice>(json!({"mode": "any"})).is_err());
    }
}
