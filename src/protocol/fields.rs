//! One hand-written serde visitor for the few JSON objects the engine reads field by field
//! (the JSON-RPC envelope, tasks, `input_required` results, the `resultType` peek, cache
//! hints). Each was a `#[derive(Deserialize)]` struct of optional fields; every derive is
//! its own state machine in the wasm (field matcher, map and sequence paths, a `from_str`
//! instantiation), ~20 KB in all. This visitor is driven by a table instead, and does what
//! those derives did, call for call, so that results and error messages are unchanged:
//! the same deserializer calls per field kind, `duplicate field` on a repeated member,
//! unknown members skipped, and a JSON array read positionally (`invalid length` when it is
//! too short for a field without a default). Tests compare it with the derives it replaced.

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::fmt;

/// How a member is read (the type the derived struct's field had).
#[derive(Clone, Copy)]
pub(crate) enum Kind {
    /// `Option<Value>`: `null` and absent are both `None`.
    Opt,
    /// `Option<Value>` read with `Value::deserialize(..).map(Some)`: `null` is `Some(Null)`.
    Present,
    /// `Option<Box<RawValue>>`: kept as raw text; `null` is `None`.
    Raw,
}

/// A member: its name, how it is read, and whether it had `#[serde(default)]` (only matters
/// for the array form).
pub(crate) struct Field {
    pub name: &'static str,
    pub kind: Kind,
    pub default: bool,
}

pub(crate) const fn field(name: &'static str, kind: Kind, default: bool) -> Field {
    Field {
        name,
        kind,
        default,
    }
}

/// The derived struct's shape: `expecting` is its `"struct Name"`, `with_len` its
/// `"struct Name with N elements"`.
pub(crate) struct Shape {
    pub name: &'static str,
    pub expecting: &'static str,
    pub with_len: &'static str,
    pub fields: &'static [Field],
}

/// What a member held.
#[derive(Default, Debug)]
pub(crate) enum Got {
    #[default]
    None,
    Value(Value),
    Raw(Box<RawValue>),
}

impl Got {
    pub(crate) fn value(&mut self) -> Option<Value> {
        match std::mem::take(self) {
            Got::Value(v) => Some(v),
            _ => None,
        }
    }

    pub(crate) fn raw(&mut self) -> Option<Box<RawValue>> {
        match std::mem::take(self) {
            Got::Raw(r) => Some(r),
            _ => None,
        }
    }
}

/// Parses `text` (exactly as `serde_json::from_str` would the derived struct) into `out`,
/// one slot per field of `shape`.
pub(crate) fn parse(text: &str, shape: &'static Shape, out: &mut [Got]) -> serde_json::Result<()> {
    let mut de = serde_json::Deserializer::from_str(text);
    (&mut de).deserialize_struct(shape.name, &[], ShapeVisitor { shape, out })?;
    de.end()
}

struct ShapeVisitor<'a> {
    shape: &'static Shape,
    out: &'a mut [Got],
}

impl<'de> Visitor<'de> for ShapeVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.shape.expecting)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let fields = self.shape.fields;
        let mut seen = 0u32;
        while let Some(key) = map.next_key_seed(KeySeed(fields))? {
            match key {
                Some(i) => {
                    if seen & (1 << i) != 0 {
                        return Err(de::Error::duplicate_field(fields[i].name));
                    }
                    seen |= 1 << i;
                    self.out[i] = map.next_value_seed(FieldSeed(fields[i].kind))?;
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        for (i, f) in self.shape.fields.iter().enumerate() {
            match seq.next_element_seed(FieldSeed(f.kind))? {
                Some(g) => self.out[i] = g,
                None if f.default => {}
                None => return Err(de::Error::invalid_length(i, &self.shape.with_len)),
            }
        }
        Ok(())
    }
}

/// A member name: the index of the field, or `None` for a member to skip.
struct KeySeed(&'static [Field]);

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<usize>, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("field identifier")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|f| f.name == v))
    }
}

struct FieldSeed(Kind);

impl<'de> DeserializeSeed<'de> for FieldSeed {
    type Value = Got;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Got, D::Error> {
        Ok(match self.0 {
            Kind::Opt => Option::<Value>::deserialize(d)?.map_or(Got::None, Got::Value),
            Kind::Present => Got::Value(Value::deserialize(d)?),
            Kind::Raw => Option::<Box<RawValue>>::deserialize(d)?.map_or(Got::None, Got::Raw),
        })
    }
}

/// Inputs that exercise every path of a shape's parse (tests of the modules that use it
/// compare `parse` with the derive it replaced on each of them).
#[cfg(test)]
pub(crate) fn tricky_inputs(names: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = [
        "{}",
        "[]",
        "null",
        "5",
        "-1.5",
        "\"x\"",
        "true",
        "",
        " ",
        "{",
        "[1",
        "{} x",
        " {} ",
        "{\"zzz\": [1, {\"b\": 2}], \"q\": null}",
        "{\"a\":1,}",
        "{,}",
        "{\"\\ud800\": 1}",
        "[null, null, null, null, null, null, null, null, null, null, null, null, null]",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    for n in 0..=names.len() + 1 {
        v.push(format!("[{}]", vec!["1"; n].join(",")));
        v.push(format!("[{}]", vec!["null"; n].join(",")));
        v.push(format!("[{}]", vec!["\"2.0\""; n].join(",")));
        v.push(format!("[{}]", vec!["{\"k\":[1]}"; n].join(",")));
    }
    for f in names {
        let esc: String = f.chars().map(|c| format!("\\u{:04x}", c as u32)).collect();
        for val in [
            "null",
            "1",
            "-7",
            "1.5",
            "\"s\"",
            "\"2.0\"",
            "{\"a\":[1,2]}",
            "[]",
            "true",
            "[1,]",
            "1e999",
            "\"\\ud800\"",
            "tru",
            "\"\\q\"",
            &deep,
        ] {
            v.push(format!("{{\"{f}\": {val}}}"));
            v.push(format!("{{\"x\": 0, \"{f}\": {val}, \"y\": [{{}}]}}"));
        }
        v.push(format!("{{\"{f}\": 1, \"{f}\": 2}}"));
        v.push(format!("{{\"{f}\": null, \"{f}\": null}}"));
        v.push(format!("{{\"{f}\": 1, \"zz\": 0, \"{esc}\": 2}}"));
        v.push(format!("{{\"{esc}\": \"e\"}}"));
        v.push(format!("{{\"{f} \": 1}}"));
        v.push(format!("{{\"{}\": 1}}", f.to_uppercase()));
    }
    let all: Vec<String> = names.iter().map(|f| format!("\"{f}\": \"v\"")).collect();
    v.push(format!("{{{}}}", all.join(",")));
    let all: Vec<String> = names
        .iter()
        .map(|f| format!("\"{f}\": {{\"n\": 1}}"))
        .collect();
    v.push(format!("{{{}}}", all.join(",")));
    v
}

/// Asserts that `ours` reads every [`tricky_inputs`] text exactly as the derive `T` did
/// (`show` renders both results alike; errors compare by message).
#[cfg(test)]
pub(crate) fn assert_same_as_derive<T: serde::de::DeserializeOwned, U>(
    names: &[&str],
    ours: impl Fn(&str) -> serde_json::Result<U>,
    show_derived: impl Fn(T) -> String,
    show_ours: impl Fn(U) -> String,
) {
    for text in tricky_inputs(names) {
        let d = serde_json::from_str::<T>(&text).map(&show_derived);
        let o = ours(&text).map(&show_ours);
        assert_eq!(
            o.map_err(|e| e.to_string()),
            d.map_err(|e| e.to_string()),
            "{text}"
        );
    }
}
