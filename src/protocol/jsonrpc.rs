//! JSON-RPC 2.0 framing: request ids, outgoing requests, and decoding of whatever a
//! peer sends (never panics; everything malformed is a typed [`Error`]).

use crate::error::{json_text, sanitize, Error, ErrorKind, Result};
use crate::json::RawJson;
use crate::json::{Map, Value};
use crate::protocol::fields::{self, field, Got, Kind, Shape};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A JSON-RPC request id: a string or an integer, never `null` (spec `RequestId`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    Number(i64),
    String(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "\"{}\"", sanitize(s, 100)),
        }
    }
}

impl RequestId {
    /// The id as a JSON value (what `_meta["io.modelcontextprotocol/subscriptionId"]` holds).
    pub(crate) fn to_value(&self) -> Value {
        match self {
            RequestId::Number(n) => Value::from(*n),
            RequestId::String(s) => Value::from(s.clone()),
        }
    }

    /// Reads an id from a JSON value: strings and integers only.
    pub(crate) fn from_value(v: &Value) -> Option<RequestId> {
        match v {
            Value::String(s) => Some(RequestId::String(s.clone())),
            Value::Number(n) => n.as_i64().map(RequestId::Number),
            _ => None,
        }
    }
}

/// The JSON-RPC `error` member (spec `Error`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    /// The wire shape `{"code", "message", "data"?}`, as the `Serialize` derive writes it.
    /// Hand-written: the shipped code needs only this and [`RpcError::from_value`], and the
    /// derives' state machines cost ~5 KB of wasm.
    pub(crate) fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("code".into(), self.code.into());
        m.insert("message".into(), self.message.clone().into());
        if let Some(d) = &self.data {
            m.insert("data".into(), d.clone());
        }
        Value::Object(m)
    }

    /// Reads what the `Deserialize` derive accepts from a JSON value (its error message is
    /// not needed): an object with an integer `code` (i64), a string `message` and any
    /// `data` (`null` = none), other members ignored; or an array `[code, message, data?]`.
    pub(crate) fn from_value(v: &Value) -> Option<RpcError> {
        let (code, message, data) = match v {
            Value::Object(m) => (m.get("code")?, m.get("message")?, m.get("data")),
            Value::Array(a) if a.len() == 2 || a.len() == 3 => (&a[0], &a[1], a.get(2)),
            _ => return None,
        };
        Some(RpcError {
            code: code.as_i64()?,
            message: message.as_str()?.to_string(),
            data: data.filter(|d| !d.is_null()).cloned(),
        })
    }
}

/// A message received from a peer.
#[derive(Debug)]
pub enum Message {
    /// A request (only legacy-era servers send these to clients).
    Request {
        id: RequestId,
        method: String,
        params: Option<Value>,
    },
    Notification {
        method: String,
        params: Option<Value>,
    },
    /// A successful response. The result stays raw text: it is interpreted by the engine
    /// (`resultType`) and handed to the host with `JSON.parse`, the fastest path for large results.
    Response { id: RequestId, result: RawJson },
    /// An error response. `id` is absent only when the peer could not read the request.
    Error {
        id: Option<RequestId>,
        error: RpcError,
    },
}

/// The members of a JSON-RPC message. `id` distinguishes `"id": null` (present,
/// `Some(Value::Null)`) from an absent id (`None`).
#[derive(Debug)]
struct Envelope {
    jsonrpc: Option<Value>,
    id: Option<Value>,
    method: Option<Value>,
    params: Option<Value>,
    result: Option<RawJson>,
    error: Option<Value>,
}

/// What `#[derive(Deserialize)]` read (see `protocol::fields`).
static ENVELOPE: Shape = Shape {
    expecting: "struct Envelope",
    with_len: "struct Envelope with 6 elements",
    fields: &[
        field("jsonrpc", Kind::Opt, false),
        field("id", Kind::Present, true),
        field("method", Kind::Opt, false),
        field("params", Kind::Opt, false),
        field("result", Kind::Raw, false),
        field("error", Kind::Opt, false),
    ],
};

fn parse_envelope(text: &str) -> crate::json::JsonResult<Envelope> {
    let mut g: [Got; 6] = Default::default();
    fields::parse(text, &ENVELOPE, &mut g)?;
    Ok(Envelope {
        jsonrpc: g[0].value(),
        id: g[1].value(),
        method: g[2].value(),
        params: g[3].value(),
        result: g[4].raw(),
        error: g[5].value(),
    })
}

/// Decodes one JSON-RPC message from text.
pub fn decode(text: &str) -> Result<Message> {
    let env = parse_envelope(text).map_err(|e| {
        Error::new(
            ErrorKind::Protocol,
            format!(
                "malformed JSON-RPC message: {}",
                sanitize(&e.to_string(), 200)
            ),
        )
    })?;
    // Checked where it lies, then taken: an error leaves only the envelope to drop (each
    // `?` after a member had been taken had its own drops in the wasm).
    let (id, code) = check(&env)?;
    if let Some(Value::String(method)) = env.method {
        return Ok(match id {
            Some(id) => Message::Request {
                id,
                method,
                params: env.params,
            },
            None => Message::Notification {
                method,
                params: env.params,
            },
        });
    }
    Ok(match (env.result, id) {
        (Some(result), Some(id)) => Message::Response { id, result },
        (_, id) => Message::Error {
            id,
            error: take_error(env.error, code),
        },
    })
}

/// Every rule `decode` holds a message to: its id, and an error response's code.
fn check(env: &Envelope) -> Result<(Option<RequestId>, i64)> {
    match &env.jsonrpc {
        Some(Value::String(v)) if v == "2.0" => {}
        _ => {
            return Err(Error::protocol(
                "not a JSON-RPC 2.0 message (\"jsonrpc\" must be \"2.0\")",
            ))
        }
    }
    let id = match &env.id {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            RequestId::from_value(v)
                .ok_or_else(|| Error::protocol("JSON-RPC id must be a string or an integer"))?,
        ),
    };
    if let Some(method) = &env.method {
        if !method.is_string() {
            return Err(Error::protocol("JSON-RPC method must be a string"));
        }
        if env.result.is_some() || env.error.is_some() {
            return Err(Error::protocol(
                "a JSON-RPC message cannot be both a request and a response",
            ));
        }
        if let Some(p) = &env.params {
            if !p.is_object() && !p.is_array() {
                return Err(Error::protocol(
                    "JSON-RPC params must be an object or an array",
                ));
            }
        }
        return Ok((id, 0));
    }
    match (&env.result, &env.error) {
        (Some(_), Some(_)) => Err(Error::invalid_result(
            "JSON-RPC response has both \"result\" and \"error\"",
        )),
        (Some(_), None) if id.is_none() => {
            Err(Error::invalid_result("JSON-RPC response without an id"))
        }
        (Some(_), None) => Ok((id, 0)),
        (None, Some(err)) => Ok((id, check_error(err)?)),
        (None, None) => Err(Error::invalid_result(
            "JSON-RPC response has neither \"result\" nor \"error\"",
        )),
    }
}

/// The code of a JSON-RPC error member, once it is known to be one.
fn check_error(v: &Value) -> Result<i64> {
    let Value::Object(m) = v else {
        return Err(Error::invalid_result(
            "JSON-RPC error member is not an object",
        ));
    };
    let code = match m.get("code") {
        Some(Value::Number(n)) => n
            .as_i64()
            .or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                    .map(|f| f as i64)
            })
            .ok_or_else(|| Error::invalid_result("JSON-RPC error code is not an integer"))?,
        _ => {
            return Err(Error::invalid_result(
                "JSON-RPC error without an integer code",
            ))
        }
    };
    match m.get("message") {
        // Lenient: a missing message is not worth losing the code for.
        None | Some(Value::Null | Value::String(_)) => Ok(code),
        Some(_) => Err(Error::invalid_result(
            "JSON-RPC error message is not a string",
        )),
    }
}

/// The error member [`check_error`] passed, with its code.
fn take_error(v: Option<Value>, code: i64) -> RpcError {
    let mut m = match v {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    let message = match m.remove("message") {
        Some(Value::String(s)) => s,
        _ => String::new(),
    };
    RpcError {
        code,
        message,
        data: m.remove("data"),
    }
}

/// Serializes a request whose params are `params` plus, when given, a raw
/// `requestState` token spliced in verbatim (MRTR: echoed byte-exact, never re-encoded).
pub fn encode_request(
    id: &RequestId,
    method: &str,
    params: &Map,
    raw_request_state: Option<&RawJson>,
) -> String {
    let mut out = Vec::with_capacity(128);
    request_head(&mut out, id, method);
    crate::json::write_object(&mut out, params);
    request_end(&mut out, raw_request_state);
    String::from_utf8(out).unwrap_or_default()
}

/// Writes a request's text up to its params: `{"jsonrpc":"2.0","id":…,"method":…,"params":`.
/// The params object follows in the same buffer, then [`request_end`]: one allocation for
/// the whole request text.
pub(crate) fn request_head(out: &mut Vec<u8>, id: &RequestId, method: &str) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    match id {
        RequestId::Number(n) => out.extend_from_slice(itoa::Buffer::new().format(*n).as_bytes()),
        RequestId::String(s) => crate::json::write_str(out, s),
    }
    out.extend_from_slice(b",\"method\":");
    crate::json::write_str(out, method);
    out.extend_from_slice(b",\"params\":");
}

/// Ends a request after its params object (written after [`request_head`]): a raw
/// `requestState` spliced into the params verbatim when given, then the closing brace.
pub(crate) fn request_end(out: &mut Vec<u8>, raw_request_state: Option<&RawJson>) {
    if let Some(raw) = raw_request_state {
        // The params end with their object's closing brace: drop it and append the member.
        out.pop();
        if out.last() != Some(&b'{') {
            out.push(b',');
        }
        out.extend_from_slice(b"\"requestState\":");
        out.extend_from_slice(raw.get().as_bytes());
        out.push(b'}');
    }
    out.push(b'}');
}

/// Serializes a notification (legacy eras only: `notifications/initialized`, `notifications/cancelled`).
pub fn encode_notification(method: &str, params: Option<&Map>) -> String {
    let mut v = Map::new();
    v.insert("jsonrpc".into(), "2.0".into());
    v.insert("method".into(), method.into());
    if let Some(p) = params {
        v.insert("params".into(), Value::Object(p.clone()));
    }
    json_text(&Value::Object(v))
}

/// Serializes a response to a server request (legacy eras only).
pub fn encode_response(id: &RequestId, outcome: std::result::Result<Value, RpcError>) -> String {
    let mut v = Map::new();
    v.insert("jsonrpc".into(), "2.0".into());
    v.insert("id".into(), id.to_value());
    match outcome {
        Ok(result) => v.insert("result".into(), result),
        Err(e) => v.insert("error".into(), e.to_value()),
    };
    json_text(&Value::Object(v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    /// The `Deserialize` derive `Envelope` had; `parse_envelope` must read exactly as it did.
    mod derived {
        use crate::json::Value;
        use serde::Deserialize;
        use serde_json::value::RawValue;

        #[derive(Deserialize)]
        pub(super) struct Envelope {
            pub jsonrpc: Option<Value>,
            #[serde(default, deserialize_with = "present")]
            pub id: Option<Value>,
            pub method: Option<Value>,
            pub params: Option<Value>,
            pub result: Option<Box<RawValue>>,
            pub error: Option<Value>,
        }

        fn present<'de, D: serde::Deserializer<'de>>(
            d: D,
        ) -> std::result::Result<Option<Value>, D::Error> {
            Value::deserialize(d).map(Some)
        }
    }

    #[test]
    fn envelope_parse_matches_the_derive() {
        let names = ["jsonrpc", "id", "method", "params", "result", "error"];
        for text in fields::tricky_inputs(&names) {
            let derived = serde_json::from_str::<derived::Envelope>(&text).map(|d| {
                let result = d.result.map(|r| r.get().to_string());
                format!(
                    "{:?}",
                    (d.jsonrpc, d.id, d.method, d.params, result, d.error)
                )
            });
            let ours = parse_envelope(&text).map(|d| {
                let result = d.result.map(|r| r.get().to_string());
                format!(
                    "{:?}",
                    (d.jsonrpc, d.id, d.method, d.params, result, d.error)
                )
            });
            // Both refuse the same texts; the messages are crate::json's own.
            assert_eq!(
                ours.map_err(|_| "refused"),
                derived.map_err(|_| "refused"),
                "{text}"
            );
        }
    }

    /// The hand-written conversions accept, refuse and write exactly what the derives do.
    #[test]
    fn rpc_error_value_conversions_match_the_derives() {
        let cases = [
            json!({"code": -32602, "message": "bad"}),
            json!({"code": 1, "message": "m", "data": {"x": [1, 2]}}),
            json!({"code": 1, "message": "m", "data": null}),
            json!({"code": 1, "message": "m", "data": 0, "extra": true}),
            json!({"message": "m", "code": 9223372036854775807i64}),
            json!({"code": 9223372036854775808u64, "message": "m"}),
            json!({"code": -1.0, "message": "m"}),
            json!({"code": 1.5, "message": "m"}),
            json!({"code": "1", "message": "m"}),
            json!({"code": 1, "message": 2}),
            json!({"code": 1, "message": null}),
            json!({"code": 1}),
            json!({"message": "m"}),
            json!({}),
            json!([1, "m"]),
            json!([1, "m", {"d": 1}]),
            json!([1, "m", null]),
            json!([1, "m", 1, 2]),
            json!([1]),
            json!([]),
            json!("error"),
            json!(null),
            json!(7),
        ];
        for v in cases {
            let derived =
                serde_json::from_value::<RpcError>(serde_json::to_value(&v).unwrap()).ok();
            assert_eq!(RpcError::from_value(&v), derived, "{v}");
            if let Some(e) = derived {
                assert_eq!(
                    serde_json::to_value(e.to_value()).unwrap(),
                    serde_json::to_value(&e).unwrap(),
                    "{v}"
                );
                assert_eq!(
                    e.to_value().to_string(),
                    serde_json::to_string(&e).unwrap(),
                    "{v}"
                );
            }
        }
    }

    /// Each rule `decode` holds a message to, by its error (the checks run on the members
    /// where they lie before any is taken: the order of the rules is the order here).
    #[test]
    fn each_rule_refuses_with_its_own_error() {
        use ErrorKind::{InvalidResult, Protocol};
        let cases = [
            (
                r#"{"id":1,"result":{}}"#,
                Protocol,
                "not a JSON-RPC 2.0 message",
            ),
            (
                r#"{"jsonrpc":"1.0","id":1,"result":{}}"#,
                Protocol,
                "not a JSON-RPC 2.0",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1.5,"method":3}"#,
                Protocol,
                "JSON-RPC id must be a string or an integer",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":3}"#,
                Protocol,
                "JSON-RPC method must be a string",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"m","result":{}}"#,
                Protocol,
                "cannot be both a request and a response",
            ),
            (
                r#"{"jsonrpc":"2.0","method":"m","error":{}}"#,
                Protocol,
                "cannot be both a request and a response",
            ),
            (
                r#"{"jsonrpc":"2.0","method":"m","params":3}"#,
                Protocol,
                "params must be an object or an array",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1}}"#,
                InvalidResult,
                "has both \"result\" and \"error\"",
            ),
            (
                r#"{"jsonrpc":"2.0","result":{}}"#,
                InvalidResult,
                "JSON-RPC response without an id",
            ),
            (
                r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
                InvalidResult,
                "JSON-RPC response without an id",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"error":5}"#,
                InvalidResult,
                "error member is not an object",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"error":{"message":"m"}}"#,
                InvalidResult,
                "error without an integer code",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":1.5}}"#,
                InvalidResult,
                "error code is not an integer",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":2}}"#,
                InvalidResult,
                "error message is not a string",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1}"#,
                InvalidResult,
                "has neither \"result\" nor \"error\"",
            ),
        ];
        for (text, kind, message) in cases {
            match decode(text) {
                Err(e) => {
                    assert_eq!(e.kind, kind, "{text}");
                    assert!(e.message.contains(message), "{text}: {}", e.message);
                }
                Ok(m) => panic!("{text} decoded as {m:?}"),
            }
        }
        // What the checks let through is taken whole.
        match decode(r#"{"jsonrpc":"2.0","error":{"code":2.0,"data":[1],"message":null}}"#) {
            Ok(Message::Error { id: None, error }) => {
                assert_eq!((error.code, error.message.as_str()), (2, ""));
                assert_eq!(error.data, Some(json!([1])));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn decodes_responses_errors_notifications_requests() {
        match decode(r#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete"}}"#).unwrap() {
            Message::Response { id, result } => {
                assert_eq!(id, RequestId::Number(7));
                assert_eq!(result.get(), r#"{"resultType":"complete"}"#);
            }
            m => panic!("{m:?}"),
        }
        match decode(
            r#"{"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"bad","data":{"x":1}}}"#,
        )
        .unwrap()
        {
            Message::Error { id, error } => {
                assert_eq!(id, Some(RequestId::String("a".into())));
                assert_eq!(error.code, -32602);
                assert_eq!(error.data, Some(json!({"x":1})));
            }
            m => panic!("{m:?}"),
        }
        match decode(r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse"}}"#).unwrap() {
            Message::Error { id: None, .. } => {}
            m => panic!("{m:?}"),
        }
        match decode(
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#,
        )
        .unwrap()
        {
            Message::Notification { method, .. } => assert_eq!(method, "notifications/progress"),
            m => panic!("{m:?}"),
        }
        match decode(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).unwrap() {
            Message::Request { method, .. } => assert_eq!(method, "ping"),
            m => panic!("{m:?}"),
        }
    }

    #[test]
    fn rejects_malformed_messages_with_typed_errors() {
        let cases = [
            ("", ErrorKind::Protocol),
            ("{", ErrorKind::Protocol),
            ("<html>502</html>", ErrorKind::Protocol),
            ("[]", ErrorKind::Protocol),
            (r#"{"id":1,"result":{}}"#, ErrorKind::Protocol),
            (
                r#"{"jsonrpc":"1.0","id":1,"result":{}}"#,
                ErrorKind::Protocol,
            ),
            (r#"{"jsonrpc":"2.0","id":1}"#, ErrorKind::InvalidResult),
            (
                r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":""}}"#,
                ErrorKind::InvalidResult,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1.5,"result":{}}"#,
                ErrorKind::Protocol,
            ),
            (
                r#"{"jsonrpc":"2.0","id":{},"result":{}}"#,
                ErrorKind::Protocol,
            ),
            (r#"{"jsonrpc":"2.0","result":{}}"#, ErrorKind::InvalidResult),
            (
                r#"{"jsonrpc":"2.0","id":1,"error":"boom"}"#,
                ErrorKind::InvalidResult,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"error":{"message":"no code"}}"#,
                ErrorKind::InvalidResult,
            ),
            (r#"{"jsonrpc":"2.0","method":7}"#, ErrorKind::Protocol),
            (
                r#"{"jsonrpc":"2.0","id":1,"id":2,"result":{}}"#,
                ErrorKind::Protocol,
            ),
        ];
        for (text, kind) in cases {
            let e = decode(text)
                .err()
                .unwrap_or_else(|| panic!("accepted {text}"));
            assert_eq!(e.kind, kind, "{text}: {e}");
        }
    }

    #[test]
    fn request_state_is_spliced_byte_exact() {
        let mut params = Map::new();
        params.insert("name".into(), "t".into());
        let raw = RawJson::from_string(r#""\u00e9\/x""#.into()).unwrap();
        let text = encode_request(&RequestId::Number(3), "tools/call", &params, Some(&raw));
        assert_eq!(
            text,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","requestState":"\u00e9\/x"}}"#
        );
        let empty = encode_request(&RequestId::Number(4), "tools/call", &Map::new(), Some(&raw));
        assert!(empty.ends_with(r#""params":{"requestState":"\u00e9\/x"}}"#));
        let v: Value = serde_json::from_str(&empty).unwrap();
        assert_eq!(v["params"]["requestState"], "é/x");
    }
}
