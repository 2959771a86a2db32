//! `json`: the crate's JSON reader (`mcp_wasm_client::json`) against serde_json on
//! arbitrary text. The crate reads peers' JSON by hand for size (`src/json/mod.rs`), so
//! serde_json is the oracle here.
//!
//! Properties:
//! - never panics;
//! - `json::parse` accepts exactly what `serde_json::from_str::<Value>` accepts, and builds
//!   the same `Value` (key order, the last of a repeated key, integers as `u64`/`i64`,
//!   other numbers the same `f64` bit for bit, correctly rounded: serde_json with its
//!   `float_roundtrip` feature, `fuzz/Cargo.toml`); serde_json read through
//!   `crate::oracle::serde_json_value`, where serde's private marker key
//!   (`"$serde_json::private::RawValue"`, live with the `raw_value` feature) is a key like
//!   any other, as it is in JSON and in the crate;
//! - `RawJson::from_string` accepts exactly what serde_json's `RawValue::from_string`
//!   accepts (which is more than a `Value` holds: lone surrogate escapes, numbers past
//!   f64, any depth) and keeps the same text;
//! - `json::parse_bytes` agrees with `json::parse` on UTF-8 and refuses anything else;
//! - `json::text` writes what it read as `serde_json::to_string` writes it (the crate
//!   writes JSON by hand too, `src/json/write.rs`).

use crate::oracle::serde_json_value;
use mcp_wasm_client::json::{parse, parse_bytes, text as written, RawJson};
use serde_json::value::RawValue;
use serde_json::Value;

pub fn run(data: &[u8]) {
    match std::str::from_utf8(data) {
        Ok(text) => agree(text),
        Err(_) => assert!(parse_bytes(data).is_err(), "{data:?}"),
    }
}

/// Equal, and numbers that are `f64` bit for bit (`-0.0` is not `0.0`).
pub fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() && y.is_f64() => {
            x.as_f64().map(f64::to_bits) == y.as_f64().map(f64::to_bits)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_value(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((ka, va), (kb, vb))| ka == kb && same_value(va, vb))
        }
        _ => a == b,
    }
}

/// Asserts that both readers agree on `text`, as a `Value` and as a raw value.
pub fn agree(text: &str) {
    match (parse(text), serde_json_value(text)) {
        (Ok(a), Ok(b)) => {
            // The crate's `Value` as serde_json's (through its `Serialize`: every number
            // kind, key order and value kept).
            let ours = serde_json::to_value(&a).unwrap_or_default();
            assert!(same_value(&ours, &b), "{text:?}: ours {a} serde_json {b}");
            assert_eq!(
                written(&a),
                serde_json::to_string(&a).unwrap_or_default(),
                "{a:?}"
            );
        }
        (Err(_), Err(_)) => {}
        (a, b) => panic!("{text:?}: ours {a:?}, serde_json {b:?}"),
    }
    match (
        RawJson::from_string(text.to_string()),
        RawValue::from_string(text.to_string()),
    ) {
        (Ok(a), Ok(b)) => assert_eq!(a.get(), b.get(), "{text:?}"),
        (Err(_), Err(_)) => {}
        (a, b) => panic!("raw {text:?}: ours {a:?}, serde_json {b:?}"),
    }
    assert_eq!(
        parse_bytes(text.as_bytes()).ok(),
        parse(text).ok(),
        "{text:?}"
    );
}
