//! Elicitation (spec `client/elicitation.mdx`): the `elicitation/create` input request
//! (form or URL mode), the restricted form schema (`PrimitiveSchemaDefinition` and the
//! types it unites), and the client's `ElicitResult`.
//!
//! Elicitation reaches the client only inside `inputRequests` (MRTR or a task); see
//! [`super::input`] for that envelope.

use crate::error::sanitize;
use crate::protocol::content::{number, string_member, type_tag, unknown_tag};
use rustc_hash::FxHashSet;
use serde::de::{Error as _, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::fmt;

/// A JSON object whose entries keep the order they were sent in (form fields are shown in
/// `properties` order). Duplicate keys are a decoding error.
#[derive(Clone, Debug, PartialEq)]
pub struct OrderedMap<V>(pub Vec<(String, V)>);

impl<V> Default for OrderedMap<V> {
    fn default() -> Self {
        OrderedMap(Vec::new())
    }
}

impl<V> OrderedMap<V> {
    /// The value for `key`.
    pub fn get(&self, key: &str) -> Option<&V> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    /// Sets `key`, replacing its value in place or appending it.
    pub fn insert(&mut self, key: impl Into<String>, value: V) {
        let key = key.into();
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value,
            None => self.0.push((key, value)),
        }
    }
    /// The entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &V)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }
    /// The number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// True when there are no entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<V: Serialize> Serialize for OrderedMap<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for OrderedMap<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V2<V>(std::marker::PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for V2<V> {
            type Value = OrderedMap<V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<OrderedMap<V>, A::Error> {
                let mut seen = FxHashSet::default();
                let mut out = Vec::new();
                while let Some(k) = a.next_key::<String>()? {
                    if !seen.insert(k.clone()) {
                        return Err(A::Error::custom(format_args!(
                            "duplicate key \"{}\"",
                            sanitize(&k, 64)
                        )));
                    }
                    out.push((k, a.next_value()?));
                }
                Ok(OrderedMap(out))
            }
        }
        d.deserialize_map(V2(std::marker::PhantomData))
    }
}

/// The `method` of [`ElicitRequest`]: always `"elicitation/create"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ElicitRequestMethod {
    /// `"elicitation/create"`
    #[default]
    #[serde(rename = "elicitation/create")]
    ElicitationCreate,
}

/// A request to elicit information from the user, as an entry of `inputRequests`
/// (spec `ElicitRequest`: `method` and `params`, no JSON-RPC envelope).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ElicitRequest {
    /// The method tag.
    pub method: ElicitRequestMethod,
    /// The request's params.
    pub params: ElicitRequestParams,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The params of `elicitation/create`: form or URL mode, told apart by `mode` (absent
/// means form) (spec `ElicitRequestParams`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ElicitRequestParams {
    /// `mode: "form"` or no `mode`.
    Form(ElicitRequestFormParams),
    /// `mode: "url"`.
    Url(ElicitRequestURLParams),
}

impl ElicitRequestParams {
    /// The message to show the user.
    pub fn message(&self) -> &str {
        match self {
            ElicitRequestParams::Form(f) => &f.message,
            ElicitRequestParams::Url(u) => &u.message,
        }
    }
}

impl<'de> Deserialize<'de> for ElicitRequestParams {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let mode = match &v {
            Value::Object(m) if !m.contains_key("mode") => "form",
            _ => string_member::<D::Error>(&v, "mode", "elicitation request")?,
        };
        let decoded = match mode {
            "form" => serde_json::from_value(v).map(ElicitRequestParams::Form),
            "url" => serde_json::from_value(v).map(ElicitRequestParams::Url),
            other => return Err(unknown_tag("elicitation", "mode", other)),
        };
        decoded.map_err(D::Error::custom)
    }
}

/// The `mode` of [`ElicitRequestFormParams`]: `"form"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FormMode {
    /// `"form"`
    #[default]
    #[serde(rename = "form")]
    Form,
}

/// The `mode` of [`ElicitRequestURLParams`]: `"url"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum UrlMode {
    /// `"url"`
    #[default]
    #[serde(rename = "url")]
    Url,
}

/// Form mode: ask for non-sensitive information with a flat form (spec
/// `ElicitRequestFormParams`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestFormParams {
    /// `"form"`, or absent (which also means form).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<FormMode>,
    /// What is being asked for and why (peer-controlled text).
    pub message: String,
    /// The form: top-level primitive properties only.
    pub requested_schema: RequestedSchema,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// URL mode: send the user to a URL for an out-of-band interaction (spec
/// `ElicitRequestURLParams`). Show the full URL and ask for consent before opening it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitRequestURLParams {
    /// `"url"` (required in this mode).
    pub mode: UrlMode,
    /// Why the interaction is needed (peer-controlled text).
    pub message: String,
    /// The URL to navigate to.
    pub url: String,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The JSON Schema `type` `"object"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ObjectType {
    /// `"object"`
    #[default]
    #[serde(rename = "object")]
    Object,
}

/// The JSON Schema `type` `"string"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StringType {
    /// `"string"`
    #[default]
    #[serde(rename = "string")]
    String,
}

/// The JSON Schema `type` `"boolean"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BooleanType {
    /// `"boolean"`
    #[default]
    #[serde(rename = "boolean")]
    Boolean,
}

/// The JSON Schema `type` `"array"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ArrayType {
    /// `"array"`
    #[default]
    #[serde(rename = "array")]
    Array,
}

/// The JSON Schema `type` of a [`NumberSchema`]: `"number"` or `"integer"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NumberType {
    /// `"number"`: any number.
    #[default]
    Number,
    /// `"integer"`: whole numbers only.
    Integer,
}

/// `ElicitRequestFormParams.requestedSchema`: a restricted JSON Schema, an object with
/// primitive properties only (unnamed in the schema).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestedSchema {
    /// `$schema`, if given.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// The `type` tag.
    #[serde(rename = "type")]
    pub kind: ObjectType,
    /// The form fields, in the order sent.
    pub properties: OrderedMap<PrimitiveSchemaDefinition>,
    /// The names of the fields that must be answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// String formats a [`StringSchema`] may ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StringFormat {
    /// `"uri"`
    Uri,
    /// `"email"`
    Email,
    /// `"date"` (RFC 3339 full-date)
    Date,
    /// `"date-time"` (RFC 3339)
    DateTime,
}

/// A text field (spec `StringSchema`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StringSchema {
    /// The `type` tag.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum length in characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Maximum length in characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// The format the string must have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<StringFormat>,
    /// The value to pre-fill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A number or integer field (spec `NumberSchema`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NumberSchema {
    /// The `type` tag.
    #[serde(rename = "type")]
    pub kind: NumberType,
    /// Human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Lowest allowed value.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "number::option"
    )]
    pub minimum: Option<f64>,
    /// Highest allowed value.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "number::option"
    )]
    pub maximum: Option<f64>,
    /// The value to pre-fill.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "number::option"
    )]
    pub default: Option<f64>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A checkbox field (spec `BooleanSchema`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BooleanSchema {
    /// The `type` tag.
    #[serde(rename = "type")]
    pub kind: BooleanType,
    /// Human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The value to pre-fill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One option of a titled enum: the value and its display label (`{const, title}`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EnumOption {
    /// The value sent back when chosen (`const`).
    #[serde(rename = "const")]
    pub value: String,
    /// The label shown.
    pub title: String,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Single choice from plain values (spec `UntitledSingleSelectEnumSchema`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UntitledSingleSelectEnumSchema {
    /// The `type` tag.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The values to choose from.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// The value to pre-fill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Single choice from labelled values (spec `TitledSingleSelectEnumSchema`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledSingleSelectEnumSchema {
    /// The `type` tag.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The options with their labels.
    pub one_of: Vec<EnumOption>,
    /// The value to pre-fill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `UntitledMultiSelectEnumSchema.items`: `{type: "string", enum: [...]}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UntitledEnumItems {
    /// The `type` tag.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// The values to choose from.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `TitledMultiSelectEnumSchema.items`: `{anyOf: [{const, title}, ...]}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledEnumItems {
    /// The options with their labels.
    pub any_of: Vec<EnumOption>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Several choices from plain values (spec `UntitledMultiSelectEnumSchema`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UntitledMultiSelectEnumSchema {
    /// The `type` tag.
    #[serde(rename = "type")]
    pub kind: ArrayType,
    /// Human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum number of choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Maximum number of choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The schema of the chosen values.
    pub items: UntitledEnumItems,
    /// The value to pre-fill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Several choices from labelled values (spec `TitledMultiSelectEnumSchema`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledMultiSelectEnumSchema {
    /// The `type` tag.
    #[serde(rename = "type")]
    pub kind: ArrayType,
    /// Human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum number of choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Maximum number of choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The schema of the chosen values.
    pub items: TitledEnumItems,
    /// The value to pre-fill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Deprecated single choice with labels in `enumNames` (spec `LegacyTitledEnumSchema`;
/// use [`TitledSingleSelectEnumSchema`] instead).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LegacyTitledEnumSchema {
    /// The `type` tag.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The values to choose from.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Display names, parallel to `enum`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enum_names: Option<Vec<String>>,
    /// The value to pre-fill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One form field: a primitive schema without nesting (spec `PrimitiveSchemaDefinition`).
/// Told apart by `type`, then by `oneOf` / `enum` / `enumNames` (strings) or
/// `items.anyOf` (arrays).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PrimitiveSchemaDefinition {
    /// `type: "string"` without `enum` or `oneOf`.
    String(StringSchema),
    /// `type: "number"` or `"integer"`.
    Number(NumberSchema),
    /// `type: "boolean"`.
    Boolean(BooleanSchema),
    /// `type: "string"` with `enum`.
    UntitledSingleSelectEnum(UntitledSingleSelectEnumSchema),
    /// `type: "string"` with `oneOf`.
    TitledSingleSelectEnum(TitledSingleSelectEnumSchema),
    /// `type: "array"` with `items.enum`.
    UntitledMultiSelectEnum(UntitledMultiSelectEnumSchema),
    /// `type: "array"` with `items.anyOf`.
    TitledMultiSelectEnum(TitledMultiSelectEnumSchema),
    /// `type: "string"` with `enum` and `enumNames`.
    LegacyTitledEnum(LegacyTitledEnumSchema),
}

impl PrimitiveSchemaDefinition {
    /// The field's `title`, if any.
    pub fn title(&self) -> Option<&str> {
        match self {
            PrimitiveSchemaDefinition::String(s) => s.title.as_deref(),
            PrimitiveSchemaDefinition::Number(s) => s.title.as_deref(),
            PrimitiveSchemaDefinition::Boolean(s) => s.title.as_deref(),
            PrimitiveSchemaDefinition::UntitledSingleSelectEnum(s) => s.title.as_deref(),
            PrimitiveSchemaDefinition::TitledSingleSelectEnum(s) => s.title.as_deref(),
            PrimitiveSchemaDefinition::UntitledMultiSelectEnum(s) => s.title.as_deref(),
            PrimitiveSchemaDefinition::TitledMultiSelectEnum(s) => s.title.as_deref(),
            PrimitiveSchemaDefinition::LegacyTitledEnum(s) => s.title.as_deref(),
        }
    }

    /// The field's `description`, if any.
    pub fn description(&self) -> Option<&str> {
        match self {
            PrimitiveSchemaDefinition::String(s) => s.description.as_deref(),
            PrimitiveSchemaDefinition::Number(s) => s.description.as_deref(),
            PrimitiveSchemaDefinition::Boolean(s) => s.description.as_deref(),
            PrimitiveSchemaDefinition::UntitledSingleSelectEnum(s) => s.description.as_deref(),
            PrimitiveSchemaDefinition::TitledSingleSelectEnum(s) => s.description.as_deref(),
            PrimitiveSchemaDefinition::UntitledMultiSelectEnum(s) => s.description.as_deref(),
            PrimitiveSchemaDefinition::TitledMultiSelectEnum(s) => s.description.as_deref(),
            PrimitiveSchemaDefinition::LegacyTitledEnum(s) => s.description.as_deref(),
        }
    }
}

impl<'de> Deserialize<'de> for PrimitiveSchemaDefinition {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use PrimitiveSchemaDefinition as P;
        let v = Value::deserialize(d)?;
        let has = |k: &str| v.get(k).is_some();
        let decoded = match type_tag::<D::Error>(&v, "form field schema")? {
            "boolean" => serde_json::from_value(v).map(P::Boolean),
            "number" | "integer" => serde_json::from_value(v).map(P::Number),
            "string" if has("oneOf") => serde_json::from_value(v).map(P::TitledSingleSelectEnum),
            "string" if has("enum") && has("enumNames") => {
                serde_json::from_value(v).map(P::LegacyTitledEnum)
            }
            "string" if has("enum") => serde_json::from_value(v).map(P::UntitledSingleSelectEnum),
            "string" => serde_json::from_value(v).map(P::String),
            "array" if v.get("items").is_some_and(|i| i.get("anyOf").is_some()) => {
                serde_json::from_value(v).map(P::TitledMultiSelectEnum)
            }
            "array" => serde_json::from_value(v).map(P::UntitledMultiSelectEnum),
            other => return Err(unknown_tag("form field schema", "type", other)),
        };
        decoded.map_err(D::Error::custom)
    }
}

/// The user's answer to an elicitation (spec `ElicitResult.action`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted the form, or confirmed (URL mode).
    Accept,
    /// Explicitly declined.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// One answered form field: `string | number | boolean | string[]` (`ElicitResult.content`
/// values). Numbers keep their JSON form.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ElicitValue {
    /// A string.
    String(String),
    /// A number, as sent.
    Number(serde_json::Number),
    /// A boolean.
    Boolean(bool),
    /// A list of strings (multi-select).
    Strings(Vec<String>),
}

impl<'de> Deserialize<'de> for ElicitValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const WHAT: &str =
            "an elicitation answer must be a string, a number, a boolean or an array of strings";
        Ok(match Value::deserialize(d)? {
            Value::String(s) => ElicitValue::String(s),
            Value::Number(n) => ElicitValue::Number(n),
            Value::Bool(b) => ElicitValue::Boolean(b),
            Value::Array(items) => ElicitValue::Strings(
                items
                    .into_iter()
                    .map(|i| match i {
                        Value::String(s) => Ok(s),
                        _ => Err(D::Error::custom(WHAT)),
                    })
                    .collect::<Result<_, _>>()?,
            ),
            _ => return Err(D::Error::custom(WHAT)),
        })
    }
}

/// The client's answer to `elicitation/create` (spec `ElicitResult`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The form data: only with `accept` in form mode; absent for URL mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<OrderedMap<ElicitValue>>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field(v: Value) -> PrimitiveSchemaDefinition {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn fields_dispatch_to_their_schema() {
        use PrimitiveSchemaDefinition as P;
        assert!(matches!(field(json!({"type": "string"})), P::String(_)));
        assert!(matches!(field(json!({"type": "integer"})), P::Number(_)));
        assert!(matches!(field(json!({"type": "boolean"})), P::Boolean(_)));
        assert!(matches!(
            field(json!({"type": "string", "enum": ["a"]})),
            P::UntitledSingleSelectEnum(_)
        ));
        assert!(matches!(
            field(json!({"type": "string", "enum": ["a"], "enumNames": ["A"]})),
            P::LegacyTitledEnum(_)
        ));
        assert!(matches!(
            field(json!({"type": "string", "oneOf": [{"const": "a", "title": "A"}]})),
            P::TitledSingleSelectEnum(_)
        ));
        assert!(matches!(
            field(json!({"type": "array", "items": {"type": "string", "enum": ["a"]}})),
            P::UntitledMultiSelectEnum(_)
        ));
        assert!(matches!(
            field(json!({"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}})),
            P::TitledMultiSelectEnum(_)
        ));
    }

    #[test]
    fn nested_or_unknown_fields_are_refused() {
        for bad in [
            json!({"type": "object", "properties": {}}),
            json!({"type": "array", "items": {"type": "number"}}),
            json!({"type": "string", "format": "hostname"}),
            json!({"type": "string", "oneOf": [{"const": "a"}]}),
            json!({"title": "no type"}),
        ] {
            assert!(
                serde_json::from_value::<PrimitiveSchemaDefinition>(bad.clone()).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn mode_selects_the_params() {
        let form = json!({"message": "m", "requestedSchema": {"type": "object", "properties": {}}});
        let p: ElicitRequestParams = serde_json::from_value(form.clone()).unwrap();
        assert!(matches!(p, ElicitRequestParams::Form(_)));
        assert_eq!(serde_json::to_value(&p).unwrap(), form);
        let url = json!({"mode": "url", "message": "m", "url": "https://x"});
        let p: ElicitRequestParams = serde_json::from_value(url).unwrap();
        assert!(matches!(p, ElicitRequestParams::Url(_)));
        assert_eq!(p.message(), "m");
        for bad in [
            json!({"mode": "popup", "message": "m"}),
            json!({"mode": 1, "message": "m"}),
            json!({"mode": "url", "message": "m"}),
            json!({"message": "m"}),
        ] {
            assert!(serde_json::from_value::<ElicitRequestParams>(bad).is_err());
        }
    }

    #[test]
    fn form_properties_keep_their_order() {
        let s: RequestedSchema = serde_json::from_value(json!({"type": "object", "properties": {
            "z": {"type": "string"}, "a": {"type": "boolean"}, "m": {"type": "number"}
        }}))
        .unwrap();
        let names: Vec<&str> = s.properties.iter().map(|(k, _)| k).collect();
        assert_eq!(names, ["z", "a", "m"]);
        assert!(s.properties.get("a").is_some());
    }

    #[test]
    fn duplicate_properties_are_refused() {
        let text =
            r#"{"type":"object","properties":{"a":{"type":"string"},"a":{"type":"boolean"}}}"#;
        assert!(serde_json::from_str::<RequestedSchema>(text).is_err());
    }

    #[test]
    fn answers_are_primitive() {
        let r: ElicitResult = serde_json::from_value(
            json!({"action": "accept", "content": {"n": 1.5, "b": true, "s": "x", "l": ["a"]}}),
        )
        .unwrap();
        let c = r.content.unwrap();
        assert_eq!(
            c.get("n"),
            Some(&ElicitValue::Number(
                serde_json::Number::from_f64(1.5).unwrap()
            ))
        );
        assert_eq!(c.get("l"), Some(&ElicitValue::Strings(vec!["a".into()])));
        for bad in [
            json!({"action": "accept", "content": {"o": {"x": 1}}}),
            json!({"action": "accept", "content": {"l": [1]}}),
            json!({"action": "accept", "content": {"n": null}}),
            json!({"action": "maybe"}),
        ] {
            assert!(serde_json::from_value::<ElicitResult>(bad).is_err());
        }
    }
}
