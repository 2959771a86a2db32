//! `schema`: the output schema validator (`schema::output::OutputSchema`), the elicitation
//! answer checks (`schema::elicitation`), the sampling/roots answer checks
//! (`schema::answers`) and the URL-mode URL check, on arbitrary (schema, instance) pairs.
//!
//! Input: `[mode] part1 0xFF part2`.
//! - mode 0 (and any other): `part1` = schema JSON, `part2` = instance JSON; everything
//!   runs on the pair.
//! - mode 1: `part1` is a `pattern`, `part2` a string: reaches the hand-written regex
//!   engine without JSON syntax in the way (`pattern` and `patternProperties`).
//! - mode 2: `part2` against each `format` (email, uri, date, date-time) in a form
//!   schema, where formats are asserted.
//! - mode 3: `part1` is a URL for `check_url`.
//!
//! Properties:
//! - never panics, never hangs (the regex has a step budget; libFuzzer's `-timeout`);
//! - `validate` is deterministic and its errors are `OutputValidation`, sanitized, with a
//!   string `data.path`; `compile` reasons are sanitized;
//! - every answer check is idempotent: what it returns passes again unchanged; errors
//!   are typed and sanitized; a sampling answer is returned as given;
//! - `check_url`: what it accepts has no whitespace or control characters, an https:
//!   (or http: on a loopback host) origin, and checking its normalized URL again gives
//!   the same facts. Under cargo-fuzz (`cfg(fuzzing)`) also a differential check against
//!   the WHATWG parser of the `url` crate (what a browser would open): a URL we accept
//!   whose host is not flagged `is_punycode` parses, with the same scheme and the same
//!   host, and no userinfo.

use crate::oracle::serde_value_bytes;
use crate::util::{check_error, check_reason, split2};
use mcp_wasm_client::error::ErrorKind;
use mcp_wasm_client::json;
use mcp_wasm_client::json::Value;
use mcp_wasm_client::schema::answers::{check_roots_result, check_sampling_result};
use mcp_wasm_client::schema::elicitation::{check_form_answer, check_url, check_url_answer};
use mcp_wasm_client::schema::output::OutputSchema;

fn output(schema: &Value, instance: &Value) {
    match OutputSchema::compile(schema) {
        Ok(s) => {
            let first = s.validate(instance);
            let second = s.validate(instance);
            assert_eq!(first, second, "validation is not deterministic");
            if let Err(e) = first {
                check_error(&e);
                assert_eq!(e.kind, ErrorKind::OutputValidation);
                let data = e.data.as_ref().expect("validation errors carry data");
                assert!(data["path"].is_string());
                assert!(data["errors"].is_array());
            }
        }
        Err(reason) => check_reason(&reason),
    }
}

fn form(schema: &Value, answer: &Value) {
    match check_form_answer(schema, answer) {
        Ok(v) => {
            let again = check_form_answer(schema, &v).expect("a checked answer passes again");
            assert_eq!(again, v, "checking is not idempotent");
        }
        Err(e) => {
            check_error(&e);
            assert!(matches!(
                e.kind,
                ErrorKind::InputValidation | ErrorKind::InvalidResult
            ));
        }
    }
}

fn answers(answer: &Value) {
    match check_url_answer(answer) {
        Ok(v) => assert_eq!(check_url_answer(&v).expect("passes again"), v),
        Err(e) => {
            check_error(&e);
            assert_eq!(e.kind, ErrorKind::InputValidation);
        }
    }
    match check_sampling_result(answer) {
        Ok(v) => {
            assert_eq!(&v, answer);
            assert_eq!(check_sampling_result(&v).expect("passes again"), v);
        }
        Err(e) => {
            check_error(&e);
            assert_eq!(e.kind, ErrorKind::InputValidation);
        }
    }
    match check_roots_result(answer) {
        Ok(v) => assert_eq!(check_roots_result(&v).expect("passes again"), v),
        Err(e) => {
            check_error(&e);
            assert_eq!(e.kind, ErrorKind::InputValidation);
        }
    }
}

fn url(u: &str) {
    match check_url(u) {
        Ok(info) => {
            assert!(!info
                .url
                .chars()
                .any(|c| c.is_control() || c.is_whitespace()));
            assert!(!info.host.is_empty());
            assert!(
                info.origin.starts_with("https://") || info.origin.starts_with("http://"),
                "{info:?}"
            );
            assert_eq!(check_url(&info.url).as_ref(), Ok(&info), "not idempotent");
            #[cfg(fuzzing)]
            whatwg(u, &info);
        }
        Err(e) => {
            check_error(&e);
            assert_eq!(e.kind, ErrorKind::InvalidResult);
        }
    }
}

/// What a browser makes of a URL `check_url` accepted.
#[cfg(fuzzing)]
fn whatwg(u: &str, info: &mcp_wasm_client::schema::elicitation::UrlInfo) {
    let Ok(parsed) = url::Url::parse(u) else {
        // A host flagged `is_punycode` (non-ASCII, or an `xn--` label) may be one IDNA
        // refuses: the browser then opens nothing, which is safe. Any other must open.
        assert!(
            info.is_punycode,
            "check_url accepted {u:?}, which a browser cannot parse"
        );
        return;
    };
    assert!(matches!(parsed.scheme(), "https" | "http"), "{u:?}");
    assert!(info.origin.starts_with(parsed.scheme()), "{u:?}");
    assert_eq!(parsed.username(), "", "{u:?}");
    assert_eq!(parsed.password(), None, "{u:?}");
    if info.host.is_ascii() && !info.is_punycode {
        let host = match parsed.host() {
            Some(url::Host::Ipv6(a)) => format!("[{a}]"),
            Some(h) => h.to_string(),
            None => String::new(),
        };
        if !info.host.starts_with('[') {
            assert_eq!(
                host, info.host,
                "shown host differs from the opened one: {u:?}"
            );
        }
    }
}

pub fn run(data: &[u8]) {
    let Some((&mode, data)) = data.split_first() else {
        return;
    };
    let (a, b) = split2(data);
    match mode % 4 {
        1 => {
            let pattern = String::from_utf8_lossy(a);
            let text = String::from_utf8_lossy(b);
            let s = json!({"type": "string", "pattern": pattern});
            output(&s, &json!(text));
            let s = json!({"patternProperties": {pattern.as_ref(): false}});
            output(&s, &json!({text.as_ref(): 1}));
        }
        2 => {
            let text = String::from_utf8_lossy(b);
            let f = String::from_utf8_lossy(a);
            for format in ["email", "uri", "date", "date-time", f.as_ref()] {
                let schema = json!({"type": "object", "properties": {
                    "f": {"type": "string", "format": format, "maxLength": 200}},
                    "required": ["f"]});
                form(
                    &schema,
                    &json!({"action": "accept", "content": {"f": text}}),
                );
                output(&json!({"format": format}), &json!(text));
            }
        }
        3 => url(&String::from_utf8_lossy(a)),
        _ => {
            let (Ok(schema), Ok(instance)) = (serde_value_bytes(a), serde_value_bytes(b)) else {
                // One document alone: use it both ways.
                if let Ok(v) = serde_value_bytes(a) {
                    output(&v, &v);
                    form(&v, &json!({"action": "accept", "content": {}}));
                    answers(&v);
                }
                return;
            };
            output(&schema, &instance);
            form(&schema, &instance);
            answers(&instance);
            if let Some(u) = instance.as_str() {
                url(u);
            }
            if let Some(u) = instance.get("url").and_then(Value::as_str) {
                url(u);
            }
        }
    }
}
