//! `results`: decoding of results per method, on arbitrary JSON text.
//!
//! Every decoder runs on every input (they are cheap and the fuzzer then learns all of
//! them from one corpus): `peek_result_type`, `decode_input_required`,
//! `decode_create_task_result`, `decode_detailed_task` (as a `tasks/get` answer and as
//! `notifications/tasks` params), `decode_initialize_result` (Streamable HTTP and
//! HTTP+SSE), `decode_legacy_create_task_result`, `parse_rfc3339`, `parse_iso8601`, and
//! the `server/discover` checks (`check_discover_result`, `supported_versions`).
//!
//! Properties:
//! - never panics; errors are typed (`InvalidResult`) and sanitized;
//! - `peek_result_type` agrees with the parsed `resultType`;
//! - a decoded task re-encodes (`Task::to_value`) to something that decodes to the same
//!   task; a decoded `requestState` spliced into a request (`encode_request`) gives valid
//!   JSON that carries it unchanged; input request keys are unique;
//! - a discover result the client accepts has a `supportedVersions` list of strings and a
//!   `capabilities` object; `supported_versions` yields exactly the strings of `supported`;
//! - `parse_rfc3339` ∘ `format_rfc3339` is the identity on what parsed;
//! - `parse_iso8601` places every RFC 3339 date-time where `parse_rfc3339` does, and a
//!   decoded task's `*_ms` fields are what it says of the task's timestamps (`None`: a
//!   local time).

use crate::oracle::serde_value;
use crate::util::{check_error, is_json_text};
use mcp_wasm_client::error::{Error, ErrorKind};
use mcp_wasm_client::json::RawJson;
use mcp_wasm_client::json::{Map, Value};
use mcp_wasm_client::protocol::discover;
use mcp_wasm_client::protocol::input::decode_input_required;
use mcp_wasm_client::protocol::jsonrpc::{encode_request, RequestId};
use mcp_wasm_client::protocol::legacy::{
    decode_initialize_result, decode_legacy_create_task_result,
};
use mcp_wasm_client::protocol::result::{peek_result_type, ResultType};
use mcp_wasm_client::protocol::tasks::{decode_create_task_result, decode_detailed_task, Task};
use mcp_wasm_client::time::{format_rfc3339, parse_iso8601, parse_rfc3339, IsoTime};
use serde_json::value::RawValue;

fn invalid_result(e: &Error) {
    check_error(e);
    assert_eq!(e.kind, ErrorKind::InvalidResult, "{e:?}");
}

fn raw(v: &Value) -> RawJson {
    RawJson::from_string(v.to_string()).expect("a value encodes")
}

/// The epoch milliseconds of a decoded task's timestamp (`None`: a local time); a
/// timestamp that does not parse never decodes.
fn placed(text: &str) -> Option<i64> {
    match parse_iso8601(text) {
        Some(IsoTime::Placed(ms)) => Some(ms),
        Some(IsoTime::Local) => None,
        None => panic!("a task decoded with the timestamp {text:?}"),
    }
}

fn check_task(t: &Task, decode: impl Fn(&RawJson) -> Result<Task, Error>) {
    assert!(!t.task_id.is_empty());
    assert_eq!(placed(&t.created_at), t.created_at_ms);
    assert_eq!(placed(&t.last_updated_at), t.last_updated_at_ms);
    let again = decode(&raw(&Value::Object(t.to_value()))).expect("a re-encoded task decodes");
    assert_eq!(&again, t);
}

/// The `server/discover` checks on a decoded value.
fn discover_checks(value: &Value) {
    if let Value::Object(m) = value {
        match discover::check_discover_result(m) {
            Ok(caps) => {
                assert!(caps.is_object());
                assert_eq!(discover::capabilities(m), Some(caps));
                let versions = m["supportedVersions"].as_array().expect("checked");
                assert!(versions.iter().all(Value::is_string));
            }
            Err(e) => invalid_result(&e),
        }
    }
    let listed: Vec<&str> = discover::supported_versions(Some(value)).collect();
    let expected: Vec<&str> = value
        .get("supported")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    assert_eq!(listed, expected);
}

pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let iso = parse_iso8601(text);
    if let Some(IsoTime::Placed(ms)) = iso {
        assert!(ms.abs() < 253_402_400_000_000, "{text:?} -> {ms}");
    }
    if let Some(ms) = parse_rfc3339(text) {
        assert_eq!(iso, Some(IsoTime::Placed(ms)), "{text:?}");
        let f = format_rfc3339(ms);
        match parse_rfc3339(&f) {
            Some(ms2) => assert_eq!(ms, ms2, "{text:?} -> {f:?}"),
            // Only outside 0000..=9999 after the offset is applied.
            None => assert!(!(0..253_402_300_800_000).contains(&ms), "{text:?} -> {f:?}"),
        }
    }
    // The crate checks raw JSON itself (`crate::json`): as serde_json's `RawValue` does.
    let ours = RawJson::from_string(text.to_string());
    let Ok(theirs) = serde_json::from_str::<Box<RawValue>>(text) else {
        assert!(ours.is_err(), "{text:?}");
        return;
    };
    let r = ours.unwrap_or_else(|e| panic!("{text:?}: refused: {e}"));
    assert_eq!(r.get(), theirs.get());
    let value: Option<Value> = serde_value(text).ok();
    if let Some(v) = &value {
        discover_checks(v);
    }

    match peek_result_type(&r) {
        Ok(t) => {
            let rt = value.as_ref().and_then(|v| v.get("resultType"));
            let expected = match rt {
                None => ResultType::Complete,
                Some(Value::String(s)) => match s.as_str() {
                    "complete" => ResultType::Complete,
                    "input_required" => ResultType::InputRequired,
                    "task" => ResultType::Task,
                    other => ResultType::Other(other.to_string()),
                },
                Some(other) => panic!("resultType {other} accepted"),
            };
            // Duplicate keys: serde_json's Value keeps the last one, a struct the first
            // or errors; only compare when there is one `resultType` member, and when the
            // text fits a `Value` at all (`1e999` does not).
            if value.is_some() && text.matches("\"resultType\"").count() <= 1 {
                assert_eq!(t, expected);
            }
        }
        Err(e) => invalid_result(&e),
    }

    match decode_input_required(&r) {
        Ok(ir) => {
            let mut keys: Vec<&str> = ir.input_requests.iter().map(|i| i.key.as_str()).collect();
            keys.sort_unstable();
            let n = keys.len();
            keys.dedup();
            assert_eq!(n, keys.len(), "duplicate inputRequests keys");
            assert!(!ir.input_requests.is_empty() || ir.request_state.is_some());
            if let Some(rs) = &ir.request_state {
                // requestState is opaque: a JSON string the client echoes byte for byte. It
                // is JSON text as serde_json's `RawValue` reads it, which is more than a
                // `Value` holds (a lone surrogate escape such as "\udb01" is JSON text that
                // no Rust string can hold), so values are compared only where there is one.
                assert!(is_json_text(rs.get()), "requestState is JSON text");
                assert!(rs.get().starts_with('"'), "requestState is a string");
                let state = serde_value(rs.get()).ok();
                assert!(state.as_ref().is_none_or(Value::is_string));
                let mut params = Map::new();
                params.insert("name".into(), "t".into());
                let body = encode_request(&RequestId::Number(7), "tools/call", &params, Some(rs));
                assert!(is_json_text(&body), "the retry is JSON text");
                if let Some(state) = state {
                    let sent: Value = serde_value(&body).expect("the retry is JSON");
                    assert_eq!(sent["params"]["requestState"], state);
                    assert_eq!(sent["params"]["name"], "t");
                }
                // Byte-exact echo.
                assert!(body.contains(rs.get()));
                let empty = encode_request(&RequestId::Number(7), "x", &Map::new(), Some(rs));
                assert!(is_json_text(&empty));
            }
        }
        Err(e) => invalid_result(&e),
    }

    match decode_create_task_result(&r) {
        Ok(t) => check_task(&t, decode_create_task_result),
        Err(e) => invalid_result(&e),
    }
    let expected_id = value
        .as_ref()
        .and_then(|v| v.get("taskId"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    for notification in [false, true] {
        for id in [None, expected_id.as_deref(), Some("task-123")] {
            match decode_detailed_task(&r, id, notification) {
                Ok(dt) => {
                    if let Some(id) = id {
                        assert_eq!(dt.task.task_id, id);
                    }
                    check_task(&dt.task, decode_create_task_result);
                    if let Some(res) = &dt.result {
                        assert!(is_json_text(res.get()));
                    }
                }
                Err(e) => invalid_result(&e),
            }
        }
    }
    for over_sse in [false, true] {
        match decode_initialize_result(&r, over_sse) {
            Ok(init) => {
                assert!(!init.protocol_version.is_empty());
                let d = init.as_discover();
                assert!(d["supportedVersions"].is_array());
            }
            Err(e) => {
                check_error(&e);
            }
        }
    }
    match decode_legacy_create_task_result(&r) {
        Ok(t) => {
            assert!(!t.task_id.is_empty());
            assert_eq!(placed(&t.created_at), t.created_at_ms);
        }
        Err(e) => invalid_result(&e),
    }
}
