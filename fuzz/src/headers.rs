//! `headers`: header value encoding (`http::encoding`), `x-mcp-header` (`http::x_mcp_header`)
//! and the modern POST headers (`http::request::modern_post_headers`).
//!
//! Input: `text 0xFF schema-json 0xFF arguments-json` (any part may be missing).
//!
//! Properties:
//! - never panics;
//! - `encode_header_value` gives only visible ASCII and inner spaces (no CR, LF, NUL or
//!   other control characters, no leading/trailing space), and `decode_header_value`
//!   gives the original back (round trip), for any text;
//! - `decode_header_value` of any text: a value that is not a sentinel is returned as is;
//!   what it decodes to encodes and decodes back to itself; errors are sanitized;
//! - `header_params` on any JSON: names are tokens, unique case-insensitively, paths
//!   non-empty; reasons are sanitized;
//! - `param_headers` on any arguments: header names are `Mcp-Param-<name>`, values
//!   header-safe, and a string argument decodes back to itself;
//! - `modern_post_headers` for any method and params: every value header-safe.

use crate::oracle::serde_value_bytes;
use crate::util::{check_error, check_reason, split2};
use mcp_wasm_client::http::encoding::{
    decode_header_value, encode_header_value, is_plain_safe, is_token,
};
use mcp_wasm_client::http::request::{modern_post_headers, Params};
use mcp_wasm_client::http::x_mcp_header::{header_params, param_headers};
use mcp_wasm_client::json::{Map, Value};

/// Visible ASCII and spaces, no space at either end.
fn header_safe(v: &str) -> bool {
    v.bytes().all(|b| (0x20..=0x7e).contains(&b)) && !v.starts_with(' ') && !v.ends_with(' ')
}

fn round_trip(s: &str) {
    let enc = encode_header_value(s);
    assert!(header_safe(&enc), "unsafe header value {enc:?} for {s:?}");
    assert_eq!(decode_header_value(&enc).expect("own encoding decodes"), s);
    if is_plain_safe(s) {
        assert_eq!(enc, s);
    }
}

pub fn run(data: &[u8]) {
    let (text, rest) = split2(data);
    let (schema, args) = split2(rest);

    let text = String::from_utf8_lossy(text);
    round_trip(&text);
    match decode_header_value(&text) {
        Ok(d) => {
            if !(text.starts_with("=?base64?") && text.ends_with("?=")) {
                assert_eq!(d, text);
            }
            round_trip(&d);
        }
        Err(e) => check_error(&e),
    }

    let Ok(schema) = serde_value_bytes(schema) else {
        return;
    };
    let args: Option<Value> = serde_value_bytes(args).ok();
    match header_params(&schema) {
        Ok(params) => {
            for (i, p) in params.iter().enumerate() {
                assert!(is_token(&p.name));
                assert!(!p.path.is_empty());
                for q in &params[..i] {
                    assert!(!q.name.eq_ignore_ascii_case(&p.name));
                }
            }
            match param_headers(&params, args.as_ref()) {
                Ok(headers) => {
                    for (name, value) in &headers {
                        let p = params
                            .iter()
                            .find(|p| format!("Mcp-Param-{}", p.name) == *name)
                            .expect("a header per param");
                        assert!(header_safe(value), "unsafe header {name}: {value:?}");
                        let mut v = args.as_ref().expect("a header needs arguments");
                        for k in &p.path {
                            v = &v[k.as_str()];
                        }
                        if let Value::String(s) = v {
                            assert_eq!(&decode_header_value(value).expect("decodes"), s);
                        }
                    }
                }
                Err(e) => check_error(&e),
            }
        }
        Err(reason) => check_reason(&reason),
    }

    // The request framing: method and params straight from the fuzzer.
    let params = match &args {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    // A tool call's name is kept outside the map (`Params::name`): the text as one, too.
    let named = Params {
        name: Some(text.as_ref()),
        ..Params::of(&params)
    };
    for method in [text.as_ref(), "tools/call", "resources/read", "tasks/get"] {
        for p in [Params::of(&params), named] {
            for (name, value) in modern_post_headers(method, p, "2026-07-28", &[], &[]) {
                assert!(is_token(&name));
                assert!(header_safe(&value), "unsafe header {name}: {value:?}");
            }
        }
    }
}
