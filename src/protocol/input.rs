//! Embedded input requests (MRTR, spec `basic/patterns/mrtr.mdx`; and a task's
//! `inputRequests`, tasks extension): `InputRequests`, `InputRequiredResult`.
//!
//! Input requests are bare `{method, params}` objects keyed by server-chosen strings.
//! Decoding is strict: a non-object map, an entry that is not an object, an unknown
//! method, missing params, or a key that appears twice are [`ErrorKind::InvalidResult`]
//! errors, so no handler is ever called twice for one key.

use crate::error::{sanitize, Error, ErrorKind, Result};
use crate::json::RawJson;
use crate::json::UniqueError;
use crate::json::{Map, Value};
use crate::protocol::fields::{self, field, Got, Kind, Shape};

/// The kinds of input a server may ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InputKind {
    /// `elicitation/create`: ask the person (form or URL mode).
    Elicitation,
    /// `sampling/createMessage`: ask for an LLM completion (deprecated in 2026-07-28).
    Sampling,
    /// `roots/list`: ask for the client's roots (deprecated in 2026-07-28).
    Roots,
}

impl InputKind {
    pub(crate) fn from_method(method: &str) -> Option<InputKind> {
        match method {
            "elicitation/create" => Some(InputKind::Elicitation),
            "sampling/createMessage" => Some(InputKind::Sampling),
            "roots/list" => Some(InputKind::Roots),
            _ => None,
        }
    }

    pub(crate) fn method(self) -> &'static str {
        match self {
            InputKind::Elicitation => "elicitation/create",
            InputKind::Sampling => "sampling/createMessage",
            InputKind::Roots => "roots/list",
        }
    }
}

/// One entry of `inputRequests`.
#[derive(Clone, Debug, PartialEq)]
pub struct InputRequest {
    pub key: String,
    pub kind: InputKind,
    /// The request's params as sent (an object; `{}` for `roots/list` without params).
    pub params: Map,
}

/// A decoded `InputRequiredResult`.
#[derive(Debug)]
pub struct InputRequiredResult {
    /// The entries in the order the server sent them.
    pub input_requests: Vec<InputRequest>,
    /// The opaque `requestState`, kept as its raw JSON token so it is echoed byte-exact.
    pub request_state: Option<RawJson>,
}

struct RawInputRequired {
    input_requests: Option<RawJson>,
    request_state: Option<RawJson>,
}

/// What `#[derive(Deserialize)]` read (see `protocol::fields`).
static RAW_INPUT_REQUIRED: Shape = Shape {
    expecting: "struct RawInputRequired",
    with_len: "struct RawInputRequired with 2 elements",
    fields: &[
        field("inputRequests", Kind::Raw, true),
        field("requestState", Kind::Raw, true),
    ],
};

fn parse_raw_input_required(text: &str) -> crate::json::JsonResult<RawInputRequired> {
    let mut g: [Got; 2] = Default::default();
    fields::parse(text, &RAW_INPUT_REQUIRED, &mut g)?;
    Ok(RawInputRequired {
        input_requests: g[0].raw(),
        request_state: g[1].raw(),
    })
}

fn invalid(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidResult, msg)
}

/// Decodes an `inputRequests` map given as raw JSON.
pub fn decode_input_requests(raw: &RawJson) -> Result<Vec<InputRequest>> {
    if raw.get() == "null" {
        return Err(invalid("inputRequests is null"));
    }
    // Duplicate keys are refused (a `Value` would keep the last one).
    let map = crate::json::parse_unique_object(raw.get()).map_err(|e| {
        invalid(match e {
            UniqueError::Json(e) => format!(
                "inputRequests is not a valid map: {}",
                sanitize(&e.to_string(), 200)
            ),
            UniqueError::Duplicate(k) => format!(
                "inputRequests is not a valid map: duplicate inputRequests key \"{}\"",
                sanitize(&k, 100)
            ),
        })
    })?;
    let mut out = Vec::with_capacity(map.len());
    for (key, entry) in map {
        out.push(decode_entry(key, entry)?);
    }
    Ok(out)
}

fn decode_entry(key: String, entry: Value) -> Result<InputRequest> {
    let shown = sanitize(&key, 100);
    let Value::Object(mut e) = entry else {
        return Err(invalid(format!(
            "inputRequests[\"{shown}\"] is not an object"
        )));
    };
    let method = match e.remove("method") {
        Some(Value::String(m)) => m,
        _ => return Err(invalid(format!("inputRequests[\"{shown}\"] has no method"))),
    };
    let kind = InputKind::from_method(&method).ok_or_else(|| {
        invalid(format!(
            "inputRequests[\"{shown}\"] has unknown method \"{}\"",
            sanitize(&method, 100)
        ))
    })?;
    let params = match e.remove("params") {
        Some(Value::Object(p)) => p,
        None | Some(Value::Null) if kind == InputKind::Roots => Map::new(),
        None | Some(Value::Null) => {
            return Err(invalid(format!(
                "inputRequests[\"{shown}\"] ({method}) has no params"
            )))
        }
        Some(_) => {
            return Err(invalid(format!(
                "inputRequests[\"{shown}\"] params is not an object"
            )))
        }
    };
    Ok(InputRequest { key, kind, params })
}

/// Decodes an `InputRequiredResult`. At least one of `inputRequests` and `requestState`
/// must be present; `requestState` must be a string.
pub fn decode_input_required(raw: &RawJson) -> Result<InputRequiredResult> {
    let r = parse_raw_input_required(raw.get()).map_err(|e| {
        invalid(format!(
            "malformed input_required result: {}",
            sanitize(&e.to_string(), 200)
        ))
    })?;
    let input_requests = match &r.input_requests {
        Some(raw) if raw.get() != "null" => decode_input_requests(raw)?,
        _ => Vec::new(),
    };
    let request_state = match r.request_state {
        Some(rs) if rs.get() == "null" => None,
        Some(rs) => {
            if !rs.get().starts_with('"') {
                return Err(invalid("requestState is not a string"));
            }
            Some(rs)
        }
        None => None,
    };
    if input_requests.is_empty() && request_state.is_none() {
        return Err(invalid(
            "input_required result has neither inputRequests nor requestState",
        ));
    }
    Ok(InputRequiredResult {
        input_requests,
        request_state,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `Deserialize` derive `RawInputRequired` had.
    mod derived {
        use serde::Deserialize;
        use serde_json::value::RawValue;

        #[derive(Deserialize)]
        pub(super) struct RawInputRequired {
            #[serde(rename = "inputRequests", default)]
            pub input_requests: Option<Box<RawValue>>,
            #[serde(rename = "requestState", default)]
            pub request_state: Option<Box<RawValue>>,
        }
    }

    #[test]
    fn raw_input_required_parse_matches_the_derive() {
        fields::assert_same_as_derive(
            &["inputRequests", "requestState"],
            parse_raw_input_required,
            |r: derived::RawInputRequired| {
                let text =
                    |r: Option<Box<serde_json::value::RawValue>>| r.map(|r| r.get().to_string());
                format!("{:?}", (text(r.input_requests), text(r.request_state)))
            },
            |r| {
                let text = |r: Option<RawJson>| r.map(|r| r.get().to_string());
                format!("{:?}", (text(r.input_requests), text(r.request_state)))
            },
        );
    }

    fn raw(s: &str) -> RawJson {
        RawJson::from_string(s.to_string()).unwrap()
    }

    #[test]
    fn decodes_the_spec_example() {
        let text = include_str!("../../tests/fixtures/spec/2026-07-28/examples/InputRequiredResult/input-required-result-with-elicitation-and-sampling-and-request-state.json");
        let r = decode_input_required(&raw(text)).unwrap();
        assert_eq!(r.input_requests.len(), 2);
        assert_eq!(r.input_requests[0].key, "github_login");
        assert_eq!(r.input_requests[0].kind, InputKind::Elicitation);
        assert_eq!(r.input_requests[1].kind, InputKind::Sampling);
        assert_eq!(
            r.request_state.unwrap().get(),
            "\"eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0\""
        );
    }

    #[test]
    fn request_state_only() {
        let r = decode_input_required(&raw(
            r#"{"resultType":"input_required","requestState":"s"}"#,
        ))
        .unwrap();
        assert!(r.input_requests.is_empty());
        assert!(r.request_state.is_some());
    }

    #[test]
    fn roots_without_params_is_fine() {
        let r = decode_input_required(&raw(r#"{"inputRequests":{"r":{"method":"roots/list"}}}"#))
            .unwrap();
        assert_eq!(r.input_requests[0].kind, InputKind::Roots);
    }

    #[test]
    fn bad_inputs_are_typed_errors() {
        for text in [
            r#"{"resultType":"input_required"}"#,
            r#"{"inputRequests":[]}"#,
            r#"{"inputRequests":"x"}"#,
            r#"{"inputRequests":{"a":5}}"#,
            r#"{"inputRequests":{"a":{"method":"tools/call","params":{}}}}"#,
            r#"{"inputRequests":{"a":{"params":{}}}}"#,
            r#"{"inputRequests":{"a":{"method":"elicitation/create"}}}"#,
            r#"{"inputRequests":{"a":{"method":"sampling/createMessage","params":[1]}}}"#,
            r#"{"inputRequests":{"a":{"method":"roots/list"},"a":{"method":"roots/list"}}}"#,
            r#"{"requestState":42}"#,
            r#"{"requestState":{"a":1}}"#,
            r#"{"inputRequests":{},"requestState":null}"#,
        ] {
            let e = decode_input_required(&raw(text))
                .err()
                .unwrap_or_else(|| panic!("accepted {text}"));
            assert_eq!(e.kind, ErrorKind::InvalidResult, "{text}");
        }
    }

    #[test]
    fn odd_request_state_tokens_survive_verbatim() {
        for rs in [r#""\u00e9\u0000""#, r#""é🎉""#, r#""{\"json\":[1,2]}""#] {
            let text = format!(r#"{{"requestState":{rs}}}"#);
            let r = decode_input_required(&raw(&text)).unwrap();
            assert_eq!(r.request_state.unwrap().get(), rs);
        }
        let long = format!("\"{}\"", "x".repeat(200_000));
        let r = decode_input_required(&raw(&format!(r#"{{"requestState":{long}}}"#))).unwrap();
        assert_eq!(r.request_state.unwrap().get().len(), long.len());
    }
}
