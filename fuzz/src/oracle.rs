//! serde_json as the oracle for text into a `Value`, without its private marker key.
//!
//! The targets compare the crate's JSON reader (`mcp_wasm_client::json`) with serde_json,
//! and build `Value`s from peer text to check what the engine did with it. This crate
//! enables serde_json's `raw_value` feature (the `RawValue` oracle), and with it
//! `Value`'s own `Deserialize` reads an object whose first key is serde_json's private
//! marker, `"$serde_json::private::RawValue"`, as a raw value: it parses the string inside
//! and returns that (`{"$serde_json::private::RawValue":"[1]"}` becomes `[1]`, and
//! `{"$serde_json::private::RawValue":1}` is refused). That is serde's plumbing, not JSON:
//! for the grammar (RFC 8259) and for the crate's reader that key is a key like any other,
//! and a peer may send it. The shipped crate does not enable `raw_value`.
//!
//! [`serde_value`] is serde_json's `Deserializer` (syntax, strings, numbers, the nesting
//! limit: everything the comparison is about) driving a visitor that builds a `Value` the
//! way `Value`'s own visitor does, minus that marker.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

/// `serde_json::from_str::<Value>(text)`, without the marker key (see the module's doc):
/// serde_json's own `Value`.
pub fn serde_json_value(text: &str) -> serde_json::Result<Value> {
    serde_json::from_str::<Plain>(text).map(|p| p.0)
}

/// [`serde_json_value`] as the crate's `Value` ([`to_crate`]).
pub fn serde_value(text: &str) -> serde_json::Result<mcp_wasm_client::json::Value> {
    serde_json_value(text).map(to_crate)
}

/// [`serde_value`] for bytes (`serde_json::from_slice`).
pub fn serde_value_bytes(bytes: &[u8]) -> serde_json::Result<mcp_wasm_client::json::Value> {
    serde_json::from_slice::<Plain>(bytes).map(|p| to_crate(p.0))
}

/// serde_json's `Value` as the crate's: the same kinds, numbers and members, in order
/// (inserted one by one: not the crate's own reader's path, `Map::from_members`).
pub fn to_crate(v: Value) -> mcp_wasm_client::json::Value {
    use mcp_wasm_client::json::{Map as M, Number as N, Value as V};
    match v {
        Value::Null => V::Null,
        Value::Bool(b) => V::Bool(b),
        Value::Number(n) => V::Number(match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => N::from(u),
            (None, Some(i), _) => N::from(i),
            (None, None, f) => f.and_then(N::from_f64).unwrap_or(N::from(0u64)),
        }),
        Value::String(s) => V::String(s),
        Value::Array(a) => V::Array(a.into_iter().map(to_crate).collect()),
        Value::Object(o) => {
            let mut m = M::new();
            for (k, v) in o {
                m.insert(k, to_crate(v));
            }
            V::Object(m)
        }
    }
}

/// A `Value` read by [`PlainVisitor`].
struct Plain(Value);

impl<'de> Deserialize<'de> for Plain {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Plain, D::Error> {
        d.deserialize_any(PlainVisitor)
    }
}

/// `Value`'s visitor in serde_json (`value/de.rs`), with every key read as a key.
struct PlainVisitor;

impl<'de> Visitor<'de> for PlainVisitor {
    type Value = Plain;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Plain, E> {
        Ok(Plain(Value::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Plain, E> {
        Ok(Plain(Value::Number(v.into())))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Plain, E> {
        Ok(Plain(Value::Number(v.into())))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Plain, E> {
        Ok(Plain(
            Number::from_f64(v).map_or(Value::Null, Value::Number),
        ))
    }

    fn visit_str<E>(self, v: &str) -> Result<Plain, E> {
        Ok(Plain(Value::String(v.to_string())))
    }

    fn visit_string<E>(self, v: String) -> Result<Plain, E> {
        Ok(Plain(Value::String(v)))
    }

    fn visit_unit<E>(self) -> Result<Plain, E> {
        Ok(Plain(Value::Null))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Plain, A::Error> {
        let mut items = Vec::new();
        while let Some(Plain(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Plain(Value::Array(items)))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Plain, A::Error> {
        let mut members = Map::new();
        while let Some((k, Plain(v))) = map.next_entry::<String, Plain>()? {
            members.insert(k, v);
        }
        Ok(Plain(Value::Object(members)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marker_key_is_a_key() {
        let marker = r#"{"$serde_json::private::RawValue":"[1]"}"#;
        assert_eq!(
            serde_json::from_str::<Value>(marker).unwrap(),
            serde_json::json!([1])
        );
        assert_eq!(
            serde_json_value(marker).unwrap(),
            serde_json::json!({"$serde_json::private::RawValue": "[1]"})
        );
        let refused = r#"{"$serde_json::private::RawValue":1}"#;
        assert!(serde_json::from_str::<Value>(refused).is_err());
        assert!(serde_json_value(refused).is_ok());
    }

    #[test]
    fn as_value_reads_everything_else() {
        for text in [
            r#"{"a":[1,-2,3.5,1e300,-0,18446744073709551616,"x\ud83d\ude00"],"a":null,"b":{}}"#,
            "[true,false,null]",
            "-9223372036854775808",
        ] {
            assert_eq!(
                serde_json_value(text).unwrap(),
                serde_json::from_str::<Value>(text).unwrap()
            );
            let ours = serde_value(text).unwrap();
            assert_eq!(
                serde_json::to_value(&ours).unwrap(),
                serde_json_value(text).unwrap()
            );
        }
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        for text in ["1e999", "[1,]", "\"\\ud800\"", &deep(128)] {
            assert!(serde_value(text).is_err(), "{text}");
        }
        assert!(serde_value(&deep(127)).is_ok());
    }
}
