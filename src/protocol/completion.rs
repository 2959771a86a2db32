//! Argument completion (spec `server/utilities/completion.mdx`): the params and result of
//! `completion/complete`, and the references it completes for (`PromptReference`,
//! `ResourceTemplateReference`). Its result is not cacheable.

use crate::protocol::content::{type_tag, unknown_tag};
use crate::protocol::meta::MetaObject;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The `type` tag of [`PromptReference`]: always `"ref/prompt"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PromptReferenceType {
    /// `"ref/prompt"`
    #[default]
    #[serde(rename = "ref/prompt")]
    Prompt,
}

/// The `type` tag of [`ResourceTemplateReference`]: always `"ref/resource"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ResourceTemplateReferenceType {
    /// `"ref/resource"`
    #[default]
    #[serde(rename = "ref/resource")]
    Resource,
}

/// Identifies a prompt (spec `PromptReference`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PromptReference {
    /// The `type` tag.
    #[serde(rename = "type")]
    pub kind: PromptReferenceType,
    /// The prompt's programmatic name.
    pub name: String,
    /// Human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Identifies a resource or resource template (spec `ResourceTemplateReference`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourceTemplateReference {
    /// The `type` tag.
    #[serde(rename = "type")]
    pub kind: ResourceTemplateReferenceType,
    /// The URI or URI template.
    pub uri: String,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `CompleteRequestParams.ref`: `PromptReference | ResourceTemplateReference`, told apart
/// by `type` (unnamed in the schema).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum CompleteReference {
    /// `type: "ref/prompt"`
    Prompt(PromptReference),
    /// `type: "ref/resource"`
    ResourceTemplate(ResourceTemplateReference),
}

impl<'de> Deserialize<'de> for CompleteReference {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let decoded = match type_tag::<D::Error>(&v, "completion reference")? {
            "ref/prompt" => serde_json::from_value(v).map(CompleteReference::Prompt),
            "ref/resource" => serde_json::from_value(v).map(CompleteReference::ResourceTemplate),
            other => return Err(unknown_tag("completion reference", "type", other)),
        };
        decoded.map_err(D::Error::custom)
    }
}

/// `CompleteRequestParams.argument`: the argument being completed and its partial value.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CompleteArgument {
    /// The argument's name.
    pub name: String,
    /// The value typed so far.
    pub value: String,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `CompleteRequestParams.context`: arguments already resolved.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CompleteContext {
    /// Previously resolved argument values, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of `completion/complete` (spec `CompleteRequestParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompleteRequestParams {
    /// What is being completed: a prompt or a resource template.
    #[serde(rename = "ref")]
    pub reference: CompleteReference,
    /// The argument being completed.
    pub argument: CompleteArgument,
    /// Arguments already resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompleteContext>,
    /// A `RequestMetaObject` (required on every request).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `CompleteResult.completion`: the suggestions.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// At most 100 values (the schema's `maxItems`; not enforced when decoding).
    pub values: Vec<String>,
    /// The total number of options, which may exceed `values.len()`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// More options exist beyond these.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of `completion/complete` (spec `CompleteResult`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteResult {
    /// The suggestions.
    pub completion: Completion,
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
    fn references_dispatch_on_type() {
        let r: CompleteReference =
            serde_json::from_value(json!({"type": "ref/resource", "uri": "file:///{p}"})).unwrap();
        assert!(matches!(r, CompleteReference::ResourceTemplate(_)));
        let r: CompleteReference =
            serde_json::from_value(json!({"type": "ref/prompt", "name": "p"})).unwrap();
        assert!(matches!(r, CompleteReference::Prompt(_)));
        for bad in [
            json!({"type": "ref/tool", "name": "t"}),
            json!({"type": "ref/prompt"}),
            json!({"name": "p"}),
        ] {
            assert!(serde_json::from_value::<CompleteReference>(bad).is_err());
        }
    }
}
