//! `jsonrpc`: JSON-RPC message decoding (`protocol::jsonrpc::decode`) on arbitrary text,
//! and the encoders on whatever it decoded.
//!
//! Properties:
//! - never panics; errors are typed and sanitized;
//! - a decoded response's `result` is valid JSON text (not always a serde_json `Value`:
//!   numbers beyond f64, such as `1e999`, are valid JSON but out of `Value`'s range);
//! - what the client would send back decodes again to the same thing: `encode_response`
//!   of a decoded response or error (same id, code), `encode_request` of a decoded
//!   request (same id and method, params an object), `encode_notification` likewise.

use crate::oracle::serde_value;
use crate::util::{check_error, is_json_text};
use mcp_wasm_client::error::ErrorKind;
use mcp_wasm_client::json::{Map, Value};
use mcp_wasm_client::protocol::jsonrpc::{
    decode, encode_notification, encode_request, encode_response, Message,
};

pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let msg = match decode(&text) {
        Ok(m) => m,
        Err(e) => {
            check_error(&e);
            assert!(matches!(
                e.kind,
                ErrorKind::Protocol | ErrorKind::InvalidResult
            ));
            return;
        }
    };
    match msg {
        Message::Response { id, result } => {
            // Valid JSON text; it may still not fit serde_json's `Value` (`1e999`: "number
            // out of range"), which the engine treats as an invalid result when it looks
            // inside, and the host's JSON.parse reads as Infinity.
            assert!(is_json_text(result.get()));
            let Ok(v) = serde_value(result.get()) else {
                return;
            };
            match decode(&encode_response(&id, Ok(v))) {
                Ok(Message::Response { id: id2, .. }) => assert_eq!(id, id2),
                other => panic!("re-encoded response decodes as {other:?}"),
            }
        }
        Message::Error { id, error } => {
            if let Some(id) = id {
                match decode(&encode_response(&id, Err(error.clone()))) {
                    Ok(Message::Error {
                        id: Some(id2),
                        error: e2,
                    }) => {
                        assert_eq!(id, id2);
                        assert_eq!(error.code, e2.code);
                        assert_eq!(error.message, e2.message);
                    }
                    other => panic!("re-encoded error decodes as {other:?}"),
                }
            }
        }
        Message::Request { id, method, params } => {
            let p: Map = match params {
                Some(Value::Object(m)) => m,
                _ => Map::new(),
            };
            match decode(&encode_request(&id, &method, &p, None)) {
                Ok(Message::Request {
                    id: id2,
                    method: m2,
                    params: Some(Value::Object(_)),
                }) => {
                    assert_eq!(id, id2);
                    assert_eq!(method, m2);
                }
                other => panic!("re-encoded request decodes as {other:?}"),
            }
        }
        Message::Notification { method, params } => {
            let p = match params {
                Some(Value::Object(m)) => Some(m),
                _ => None,
            };
            match decode(&encode_notification(&method, p.as_ref())) {
                Ok(Message::Notification { method: m2, .. }) => assert_eq!(method, m2),
                other => panic!("re-encoded notification decodes as {other:?}"),
            }
        }
    }
}
