//! Writing JSON text: a `Value` or a string, compact, as serde_json's `to_writer` writes
//! it: keys in the map's order, `"` `\` and controls escaped with serde_json's escapes
//! (`\u00XX` in lowercase hex for the controls without a short one), integers in decimal,
//! floats in the shortest digits that read back the same (natively by zmij, as serde_json's
//! printer does; in the wasm by the JS engine, which spells a few in another notation:
//! [`float`]).
//!
//! Why by hand, not `serde_json::to_writer`: serde's `Serializer` for a `Vec` and the
//! `Serialize` impls it drives were ~1.9 KB of the gzipped wasm beside the few lines this
//! takes (`bench/tools/wasm-without.mjs`; BENCHMARKS.md, the forty-seventh session). The
//! tests compare both on every kind of value (natively; the json fuzz target too), and the
//! wasm's floats in the browsers and Node (`tests/wasm/`).

use super::{Map, Number, Value};

/// Appends `v` as compact JSON text.
pub(crate) fn write(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => number(out, n),
        Value::String(s) => string(out, s),
        Value::Array(a) => {
            out.push(b'[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(out, x);
            }
            out.push(b']');
        }
        Value::Object(m) => object(out, m),
    }
}

/// Appends the object `m` as compact JSON text.
pub(crate) fn object(out: &mut Vec<u8>, m: &Map) {
    out.push(b'{');
    for (i, (k, x)) in m.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, k);
        out.push(b':');
        write(out, x);
    }
    out.push(b'}');
}

/// `v` as compact JSON text, as `serde_json::to_string` writes it.
pub fn text(v: &Value) -> String {
    let mut out = Vec::new();
    write(&mut out, v);
    String::from_utf8(out).unwrap_or_default()
}

fn number(out: &mut Vec<u8>, n: &Number) {
    let mut b = itoa::Buffer::new();
    if let Some(u) = n.as_u64() {
        out.extend_from_slice(b.format(u).as_bytes());
    } else if let Some(i) = n.as_i64() {
        out.extend_from_slice(b.format(i).as_bytes());
    } else if let Some(f) = n.as_f64().filter(|f| f.is_finite()) {
        float(out, f);
    } else {
        // A `Number` is never NaN or infinite; serde_json writes `null` for those.
        out.extend_from_slice(b"null");
    }
}

/// A finite float, natively as serde_json writes it (zmij: the shortest digits that read
/// back as `f`, `1e21`, `1.0`, `-0.0`).
#[cfg(not(target_arch = "wasm32"))]
fn float(out: &mut Vec<u8>, f: f64) {
    out.extend_from_slice(zmij::Buffer::new().format_finite(f).as_bytes());
}

/// A finite float, in the wasm: the JS engine's shortest digits (`String(f)`, ECMA-262
/// `Number::toString`: the same digits as zmij's), which spells some in another notation
/// (`1e+21`, `100000000000000000000`, `0.000001`). The text reads back as the same `f64`
/// either way, and stays a float to a reader that tells integers from floats: `.0` is added
/// to an integer's spelling, and `-0` keeps its sign (`String(-0)` is `"0"`). Why: zmij's
/// code and power-of-ten table were 1.6 KB of the gzipped wasm (BENCHMARKS.md, the
/// forty-seventh session); floats are rare in what the client writes (a person's answers,
/// a schema's bounds in a message). Tested in the browsers and Node (`tests/wasm/`).
#[cfg(target_arch = "wasm32")]
fn float(out: &mut Vec<u8>, f: f64) {
    if f == 0.0 && f.is_sign_negative() {
        out.push(b'-');
    }
    let s = crate::web::js::number_text(f);
    out.extend_from_slice(s.as_bytes());
    if !s.bytes().any(|c| c == b'.' || c == b'e') {
        out.extend_from_slice(b".0");
    }
}

/// Appends `s` as a JSON string (RFC 8259 §7: `"`, `\` and U+0000–U+001F escaped; the
/// rest as it is).
pub(crate) fn string(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let b = s.as_bytes();
    let mut from = 0;
    for (i, &c) in b.iter().enumerate() {
        let short = match c {
            b'"' => b'"',
            b'\\' => b'\\',
            b'\n' => b'n',
            b'\r' => b'r',
            b'\t' => b't',
            0x08 => b'b',
            0x0c => b'f',
            0..0x20 => 0,
            _ => continue,
        };
        out.extend_from_slice(b.get(from..i).unwrap_or_default());
        from = i + 1;
        out.push(b'\\');
        if short == 0 {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(b"u00");
            out.push(HEX[usize::from(c >> 4)]);
            out.push(HEX[usize::from(c & 15)]);
        } else {
            out.push(short);
        }
    }
    out.extend_from_slice(b.get(from..).unwrap_or_default());
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::{string, text};
    use crate::json;
    use crate::json::Value;

    /// The same text as serde_json's printer.
    fn same(v: &Value) {
        assert_eq!(text(v), serde_json::to_string(v).unwrap(), "{v:?}");
    }

    #[test]
    fn every_kind_of_value_as_serde_json_writes_it() {
        for v in [
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(7),
            json!(-1),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(i64::MAX),
            json!(""),
            json!("plain"),
            json!("q\"b\\s/"),
            json!("\u{0}\u{1}\u{8}\u{9}\u{a}\u{b}\u{c}\u{d}\u{1f}\u{20}\u{7f}"),
            json!("é ☃ 😀 \u{2028}\u{2029}"),
            json!([]),
            json!({}),
            json!([1, [2, [3, {}]], "x", null]),
            json!({"b": 1, "a": {"z": [true, false], "y": "\n"}, "": "", "k\"": []}),
        ] {
            same(&v);
        }
        // Every single byte's character (controls, ASCII, and one from each UTF-8 length).
        for c in (0u32..0x80).chain([0x80, 0x7ff, 0x800, 0xffff, 0x10000, 0x10ffff]) {
            let s: String = char::from_u32(c).into_iter().collect();
            same(&Value::String(format!("a{s}b{s}")));
            same(&json!({ s.clone(): s }));
        }
    }

    /// Natively (in the wasm a float's spelling is the JS engine's: `tests/wasm/`).
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn floats_as_serde_json_writes_them() {
        for f in [
            0.5,
            -0.0,
            0.0,
            1e300,
            1e-7,
            123456789.125,
            f64::MIN_POSITIVE,
            f64::MAX,
            5e-324,
            1e21,
            1e15,
            1.0,
        ] {
            same(&json!(f));
        }
        same(&json!({"a": [0.25, -1.5], "b": 1e-9}));
        // Floats from several magnitudes and digit counts.
        let mut f = 1.0e-310f64;
        while f < 1e308 {
            same(&json!(f));
            same(&json!(-f * 1.000_000_000_000_1));
            f *= 7.3;
        }
    }

    #[test]
    fn a_string_is_appended() {
        let mut out = b"x".to_vec();
        string(&mut out, "a\"b");
        assert_eq!(out, b"x\"a\\\"b\"");
    }
}
