//! Content blocks (schema category "Content", spec `server/tools.mdx` "Tool Result" and
//! `server/prompts.mdx` "Content Types"): `ContentBlock`, `TextContent`, `ImageContent`,
//! `AudioContent`, `ResourceLink`, `EmbeddedResource`, plus the common `Role` and
//! `Annotations`.
//!
//! Every struct keeps the members it does not know in `extra`, so a value decoded from a
//! server and encoded again is the same JSON value. Unions are decoded by their
//! discriminator (`type` here) so that an error names what was wrong instead of
//! "did not match any variant".
//!
//! This file also holds the two small serde helpers the other protocol files share:
//! `number` (numbers the schema types `number`) and `present` (an optional
//! any-JSON member whose `null` must survive a round trip).

use crate::error::sanitize;
use crate::protocol::meta::{Icon, MetaObject};
use crate::protocol::resources::ResourceContents;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// The sender or recipient of messages and data in a conversation (spec `Role`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The person using the client.
    User,
    /// The model.
    Assistant,
}

/// Optional annotations for the client: who the data is for, how important it is, when it
/// last changed (spec `Annotations`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Who the intended audience of this object or data is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 (entirely optional) to 1 (effectively required).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "number::option"
    )]
    pub priority: Option<f64>,
    /// When the resource was last modified, as an ISO 8601 string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The `type` tag of [`TextContent`]: always `"text"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TextType {
    /// `"text"`
    #[default]
    #[serde(rename = "text")]
    Text,
}

/// The `type` tag of [`ImageContent`]: always `"image"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ImageType {
    /// `"image"`
    #[default]
    #[serde(rename = "image")]
    Image,
}

/// The `type` tag of [`AudioContent`]: always `"audio"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AudioType {
    /// `"audio"`
    #[default]
    #[serde(rename = "audio")]
    Audio,
}

/// The `type` tag of [`ResourceLink`]: always `"resource_link"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ResourceLinkType {
    /// `"resource_link"`
    #[default]
    #[serde(rename = "resource_link")]
    ResourceLink,
}

/// The `type` tag of [`EmbeddedResource`]: always `"resource"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EmbeddedResourceType {
    /// `"resource"`
    #[default]
    #[serde(rename = "resource")]
    Resource,
}

/// Text provided to or from an LLM (spec `TextContent`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    /// The `type` tag.
    #[serde(rename = "type")]
    pub kind: TextType,
    /// The text content of the message.
    pub text: String,
    /// Hints for the client: audience, priority, last modification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta`: metadata, kept as sent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl TextContent {
    /// A text block with nothing but its text.
    pub fn new(text: impl Into<String>) -> Self {
        TextContent {
            text: text.into(),
            ..Default::default()
        }
    }
}

/// An image provided to or from an LLM (spec `ImageContent`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// The `type` tag.
    #[serde(rename = "type")]
    pub kind: ImageType,
    /// The base64-encoded image data.
    pub data: String,
    /// The MIME type of the image.
    pub mime_type: String,
    /// Hints for the client: audience, priority, last modification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta`: metadata, kept as sent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Audio provided to or from an LLM (spec `AudioContent`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AudioContent {
    /// The `type` tag.
    #[serde(rename = "type")]
    pub kind: AudioType,
    /// The base64-encoded audio data.
    pub data: String,
    /// The MIME type of the audio.
    pub mime_type: String,
    /// Hints for the client: audience, priority, last modification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta`: metadata, kept as sent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A resource the server can read, included in a prompt or tool call result by reference
/// (spec `ResourceLink`; a `Resource` plus `type: "resource_link"`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    /// The `type` tag.
    #[serde(rename = "type")]
    pub kind: ResourceLinkType,
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

/// The contents of a resource, embedded into a prompt or tool call result (spec
/// `EmbeddedResource`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// The `type` tag.
    #[serde(rename = "type")]
    pub kind: EmbeddedResourceType,
    /// The embedded contents: text or blob.
    pub resource: ResourceContents,
    /// Hints for the client: audience, priority, last modification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta`: metadata, kept as sent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One block of a tool result or prompt message (spec `ContentBlock`), told apart by `type`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ContentBlock {
    /// `type: "text"`
    Text(TextContent),
    /// `type: "image"`
    Image(ImageContent),
    /// `type: "audio"`
    Audio(AudioContent),
    /// `type: "resource_link"`
    ResourceLink(ResourceLink),
    /// `type: "resource"`
    Resource(EmbeddedResource),
}

impl ContentBlock {
    /// The block's `type` tag.
    pub fn type_name(&self) -> &'static str {
        match self {
            ContentBlock::Text(_) => "text",
            ContentBlock::Image(_) => "image",
            ContentBlock::Audio(_) => "audio",
            ContentBlock::ResourceLink(_) => "resource_link",
            ContentBlock::Resource(_) => "resource",
        }
    }
}

impl From<TextContent> for ContentBlock {
    fn from(t: TextContent) -> Self {
        ContentBlock::Text(t)
    }
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let decoded = match type_tag::<D::Error>(&v, "content block")? {
            "text" => serde_json::from_value(v).map(ContentBlock::Text),
            "image" => serde_json::from_value(v).map(ContentBlock::Image),
            "audio" => serde_json::from_value(v).map(ContentBlock::Audio),
            "resource_link" => serde_json::from_value(v).map(ContentBlock::ResourceLink),
            "resource" => serde_json::from_value(v).map(ContentBlock::Resource),
            other => return Err(unknown_tag("content block", "type", other)),
        };
        decoded.map_err(D::Error::custom)
    }
}

/// Reads the string `type` member of a union member, or says why it cannot.
pub(crate) fn type_tag<'v, E: serde::de::Error>(v: &'v Value, what: &str) -> Result<&'v str, E> {
    string_member(v, "type", what)
}

/// Reads a string discriminator member of a union member, or says why it cannot.
pub(crate) fn string_member<'v, E: serde::de::Error>(
    v: &'v Value,
    key: &str,
    what: &str,
) -> Result<&'v str, E> {
    let Value::Object(m) = v else {
        return Err(E::custom(format_args!("a {what} must be a JSON object")));
    };
    match m.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(E::custom(format_args!(
            "a {what}'s \"{key}\" must be a string"
        ))),
        None => Err(E::custom(format_args!("a {what} needs a \"{key}\" member"))),
    }
}

/// The error for a discriminator value this schema does not define.
pub(crate) fn unknown_tag<E: serde::de::Error>(what: &str, key: &str, value: &str) -> E {
    E::custom(format_args!(
        "unknown {what} {key} \"{}\"",
        sanitize(value, 64)
    ))
}

/// Serialization of the numbers the schema types `number` (held as `f64`): an integral
/// value is written as an integer, so `50` read from a peer is written back as `50`, not
/// `50.0` (the JSON values stay equal). Deserialization is serde's own.
pub(crate) mod number {
    use serde::Serializer;

    /// 2^53: beyond it not every integer is an `f64`.
    const EXACT: f64 = 9_007_199_254_740_992.0;

    /// Serializes an `f64`, integral values as integers.
    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        if v.fract() == 0.0 && v.abs() < EXACT {
            if *v >= 0.0 {
                s.serialize_u64(*v as u64)
            } else {
                s.serialize_i64(*v as i64)
            }
        } else {
            s.serialize_f64(*v)
        }
    }

    /// [`serialize`] for an `Option<f64>` (use with `skip_serializing_if = "Option::is_none"`).
    pub fn option<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(f) => serialize(f, s),
            None => s.serialize_none(),
        }
    }
}

/// For an optional member of any JSON type: present (even `null`) is `Some`, absent is
/// `None`, so `"structuredContent": null` survives a round trip. Use with `default`.
pub(crate) fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_dispatch_on_type_and_round_trip() {
        let v = json!({"type": "text", "text": "hi", "x-ext": {"a": 1}});
        let b: ContentBlock = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(b.type_name(), "text");
        assert_eq!(serde_json::to_value(&b).unwrap(), v);
    }

    #[test]
    fn bad_blocks_are_errors_that_say_why() {
        for (v, needle) in [
            (
                json!({"type": "video", "data": ""}),
                "unknown content block type",
            ),
            (json!({"text": "no type"}), "needs a \"type\""),
            (json!({"type": 3}), "must be a string"),
            (json!([1]), "must be a JSON object"),
            (json!({"type": "text", "text": 5}), "invalid type"),
        ] {
            let e = serde_json::from_value::<ContentBlock>(v)
                .unwrap_err()
                .to_string();
            assert!(e.contains(needle), "{e}");
        }
    }

    #[test]
    fn a_standalone_block_checks_its_tag() {
        assert!(
            serde_json::from_value::<TextContent>(json!({"type": "image", "text": "x"})).is_err()
        );
        assert!(serde_json::from_value::<TextContent>(json!({"text": "x"})).is_err());
        assert_eq!(
            serde_json::to_value(TextContent::new("x")).unwrap(),
            json!({"type": "text", "text": "x"})
        );
    }

    #[test]
    fn numbers_keep_their_json_shape() {
        let a = Annotations {
            priority: Some(1.0),
            ..Default::default()
        };
        assert_eq!(serde_json::to_value(&a).unwrap(), json!({"priority": 1}));
        let a = Annotations {
            priority: Some(0.25),
            ..Default::default()
        };
        assert_eq!(serde_json::to_value(&a).unwrap(), json!({"priority": 0.25}));
        let a: Annotations = serde_json::from_value(json!({"priority": 1})).unwrap();
        assert_eq!(a.priority, Some(1.0));
    }

    #[test]
    fn unknown_tags_are_sanitized_in_errors() {
        let e = serde_json::from_value::<ContentBlock>(json!({"type": "a\u{1b}[31m"}))
            .unwrap_err()
            .to_string();
        assert!(!e.contains('\u{1b}'), "{e}");
    }
}
