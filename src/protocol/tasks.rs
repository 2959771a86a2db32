//! Tasks extension (`io.modelcontextprotocol/tasks`, spec `ext-tasks/specification/draft/tasks.md`):
//! `Task`, `DetailedTask`, `CreateTaskResult`, strictly decoded (tasks rule 3): a
//! missing or non-string `taskId`, an unknown `status`, timestamps that are not ISO 8601
//! dates and times, a malformed `ttlMs` or `pollIntervalMs` are
//! [`ErrorKind::InvalidResult`] errors.

use crate::error::{json_text, sanitize, Error, ErrorKind, Result};
use crate::json::RawJson;
use crate::json::{Map, Value};
use crate::protocol::fields::{self, field, Got, Kind, Shape};
use crate::protocol::input::{decode_input_requests, InputRequest};
use crate::protocol::jsonrpc::RpcError;
use crate::time::{parse_iso8601, IsoTime};

/// Task status (spec `Task.status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TaskStatus {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
    pub(crate) fn parse(s: &str) -> Option<TaskStatus> {
        Some(match s {
            "working" => TaskStatus::Working,
            "input_required" => TaskStatus::InputRequired,
            "completed" => TaskStatus::Completed,
            "failed" => TaskStatus::Failed,
            "cancelled" => TaskStatus::Cancelled,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    /// `completed`, `failed` and `cancelled` are terminal and never change again.
    pub(crate) fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// A task's operational metadata (spec `Task`).
#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    pub task_id: String,
    pub status: TaskStatus,
    pub status_message: Option<String>,
    /// As sent (ISO 8601).
    pub created_at: String,
    /// `created_at` in epoch milliseconds; `None` for a time without a UTC offset, which
    /// cannot be placed on the timeline (tasks rule 3).
    pub created_at_ms: Option<i64>,
    pub last_updated_at: String,
    /// `last_updated_at` in epoch milliseconds, or `None` as for `created_at_ms`.
    pub last_updated_at_ms: Option<i64>,
    /// Time to live from creation; `None` = unlimited (`ttlMs: null`).
    pub ttl_ms: Option<u64>,
    pub poll_interval_ms: Option<u64>,
}

impl Task {
    /// When the TTL backstop passes (`createdAt + ttlMs`), if the task has a TTL and its
    /// `createdAt` names its offset. A local `createdAt` has no backstop (tasks rule 10):
    /// read in a wrong zone it could end a live task hours early.
    pub(crate) fn expires_at_ms(&self) -> Option<i64> {
        let created = self.created_at_ms?;
        self.ttl_ms
            .map(|ttl| created.saturating_add(ttl.min(i64::MAX as u64) as i64))
    }

    /// The task as the wire shape (`Task` fields, camelCase).
    pub fn to_value(&self) -> Map {
        let mut m = Map::new();
        m.insert("taskId".into(), self.task_id.clone().into());
        m.insert("status".into(), self.status.as_str().into());
        if let Some(s) = &self.status_message {
            m.insert("statusMessage".into(), s.clone().into());
        }
        m.insert("createdAt".into(), self.created_at.clone().into());
        m.insert("lastUpdatedAt".into(), self.last_updated_at.clone().into());
        m.insert(
            "ttlMs".into(),
            self.ttl_ms.map(Value::from).unwrap_or(Value::Null),
        );
        if let Some(p) = self.poll_interval_ms {
            m.insert("pollIntervalMs".into(), p.into());
        }
        m
    }
}

/// A `tasks/get` result or `notifications/tasks` params: a task plus its status payload.
#[derive(Debug)]
pub struct DetailedTask {
    pub task: Task,
    /// `input_required`: all outstanding requests (never empty).
    pub input_requests: Vec<InputRequest>,
    /// `completed`: the original request's result (a JSON object), raw.
    pub result: Option<RawJson>,
    /// `failed`: the JSON-RPC error of the execution.
    pub error: Option<RpcError>,
}

/// The members of a task object; `ttl_ms` distinguishes `null` (`Some(Null)`: unlimited)
/// from absent.
struct RawTask {
    result_type: Option<Value>,
    task_id: Option<Value>,
    status: Option<Value>,
    status_message: Option<Value>,
    created_at: Option<Value>,
    last_updated_at: Option<Value>,
    ttl_ms: Option<Value>,
    poll_interval_ms: Option<Value>,
    input_requests: Option<RawJson>,
    result: Option<RawJson>,
    error: Option<Value>,
}

/// What `#[derive(Deserialize)]` read (see `protocol::fields`).
static RAW_TASK: Shape = Shape {
    expecting: "struct RawTask",
    with_len: "struct RawTask with 11 elements",
    fields: &[
        field("resultType", Kind::Opt, true),
        field("taskId", Kind::Opt, true),
        field("status", Kind::Opt, true),
        field("statusMessage", Kind::Opt, true),
        field("createdAt", Kind::Opt, true),
        field("lastUpdatedAt", Kind::Opt, true),
        field("ttlMs", Kind::Present, true),
        field("pollIntervalMs", Kind::Opt, true),
        field("inputRequests", Kind::Raw, true),
        field("result", Kind::Raw, true),
        field("error", Kind::Opt, true),
    ],
};

fn parse_raw_task(text: &str) -> crate::json::JsonResult<RawTask> {
    let mut g: [Got; 11] = Default::default();
    fields::parse(text, &RAW_TASK, &mut g)?;
    Ok(RawTask {
        result_type: g[0].value(),
        task_id: g[1].value(),
        status: g[2].value(),
        status_message: g[3].value(),
        created_at: g[4].value(),
        last_updated_at: g[5].value(),
        ttl_ms: g[6].value(),
        poll_interval_ms: g[7].value(),
        input_requests: g[8].raw(),
        result: g[9].raw(),
        error: g[10].value(),
    })
}

fn invalid(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidResult, msg)
}

/// A non-negative millisecond count. Fractions are dropped; values beyond `u64` saturate
/// (a huge `pollIntervalMs` is honoured but bounded, never a crash: tasks rule 5).
fn millis(v: &Value, field: &str) -> Result<u64> {
    match v {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                Ok(u)
            } else if let Some(f) = n.as_f64() {
                if f.is_finite() && f >= 0.0 {
                    Ok(if f >= u64::MAX as f64 {
                        u64::MAX
                    } else {
                        f as u64
                    })
                } else {
                    Err(invalid(format!(
                        "{field} must be a non-negative number of milliseconds"
                    )))
                }
            } else {
                Err(invalid(format!(
                    "{field} must be a non-negative number of milliseconds"
                )))
            }
        }
        _ => Err(invalid(format!("{field} must be a number"))),
    }
}

/// The milliseconds of an ISO 8601 timestamp field ("ISO 8601 timestamp", § Tasks; the
/// schema says only `string`), `None` when it has no UTC offset (tasks rule 3). Checked
/// where it lies; `take_text` takes its text once the whole task is known good.
fn timestamp(v: &Option<Value>, field: &str) -> Result<Option<i64>> {
    match v {
        Some(Value::String(s)) => match parse_iso8601(s) {
            Some(IsoTime::Placed(ms)) => Ok(Some(ms)),
            Some(IsoTime::Local) => Ok(None),
            None => Err(invalid(format!(
                "{field} is not an ISO 8601 calendar date and time (such as 2025-11-25T10:30:00Z): \"{}\"",
                sanitize(s, 60)
            ))),
        },
        Some(_) => Err(invalid(format!("{field} is not a string"))),
        None => Err(invalid(format!("task has no {field}"))),
    }
}

/// The string of a field already checked to hold one.
fn take_text(v: &mut Option<Value>) -> Option<String> {
    match v.take() {
        Some(Value::String(s)) => Some(s),
        _ => None,
    }
}

/// What [`check_task`] read of a task, beside the text [`take_task`] takes.
struct Checked {
    status: TaskStatus,
    created_at_ms: Option<i64>,
    last_updated_at_ms: Option<i64>,
    ttl_ms: Option<u64>,
    poll_interval_ms: Option<u64>,
}

/// Checks the task in `r` where it lies; [`take_task`] takes it once every check of the
/// caller passed too. An error then leaves nothing of the task to drop on its way out:
/// each `?` after a field had been taken had its own drops in the wasm.
fn check_task(r: &RawTask) -> Result<Checked> {
    match &r.task_id {
        Some(Value::String(s)) if !s.is_empty() => {}
        Some(Value::String(_)) => return Err(invalid("taskId is empty")),
        Some(_) => return Err(invalid("taskId is not a string")),
        None => return Err(invalid("task has no taskId")),
    }
    let status = match &r.status {
        Some(Value::String(s)) => TaskStatus::parse(s)
            .ok_or_else(|| invalid(format!("unknown task status \"{}\"", sanitize(s, 60))))?,
        Some(_) => return Err(invalid("task status is not a string")),
        None => return Err(invalid("task has no status")),
    };
    match &r.status_message {
        None | Some(Value::Null | Value::String(_)) => {}
        Some(_) => return Err(invalid("statusMessage is not a string")),
    }
    let created_at_ms = timestamp(&r.created_at, "createdAt")?;
    let last_updated_at_ms = timestamp(&r.last_updated_at, "lastUpdatedAt")?;
    let ttl_ms = match &r.ttl_ms {
        None => return Err(invalid("task has no ttlMs (null means unlimited)")),
        Some(Value::Null) => None,
        Some(v) => Some(millis(v, "ttlMs")?),
    };
    let poll_interval_ms = match &r.poll_interval_ms {
        None | Some(Value::Null) => None,
        Some(v) => Some(millis(v, "pollIntervalMs")?),
    };
    Ok(Checked {
        status,
        created_at_ms,
        last_updated_at_ms,
        ttl_ms,
        poll_interval_ms,
    })
}

/// The task [`check_task`] passed.
fn take_task(r: &mut RawTask, c: Checked) -> Task {
    Task {
        task_id: take_text(&mut r.task_id).unwrap_or_default(),
        status: c.status,
        status_message: take_text(&mut r.status_message),
        created_at: take_text(&mut r.created_at).unwrap_or_default(),
        created_at_ms: c.created_at_ms,
        last_updated_at: take_text(&mut r.last_updated_at).unwrap_or_default(),
        last_updated_at_ms: c.last_updated_at_ms,
        ttl_ms: c.ttl_ms,
        poll_interval_ms: c.poll_interval_ms,
    }
}

fn parse_raw(raw: &RawJson, what: &str) -> Result<RawTask> {
    if !raw.get().trim_ascii_start().starts_with('{') {
        return Err(invalid(format!("{what} is not a JSON object")));
    }
    parse_raw_task(raw.get()).map_err(|e| {
        invalid(format!(
            "malformed {what}: {}",
            sanitize(&e.to_string(), 200)
        ))
    })
}

/// Decodes a `CreateTaskResult` (`resultType: "task"`, flat task fields).
pub fn decode_create_task_result(raw: &RawJson) -> Result<Task> {
    let mut r = parse_raw(raw, "CreateTaskResult")?;
    let c = check_task(&r)?;
    Ok(take_task(&mut r, c))
}

/// Decodes a `tasks/get` result (or, with `is_notification`, `notifications/tasks` params).
/// `expected_id` is the task the client asked about: an answer for another task is invalid
/// (tasks rule 18).
pub fn decode_detailed_task(
    raw: &RawJson,
    expected_id: Option<&str>,
    is_notification: bool,
) -> Result<DetailedTask> {
    let mut r = parse_raw(raw, "DetailedTask")?;
    if !is_notification {
        match &r.result_type {
            None => {}
            Some(Value::String(s)) if s == "complete" => {}
            // The extension's own examples put "task" on tasks/get answers; accept it
            // only when the payload is really a task (tasks rule 2).
            Some(Value::String(s)) if s == "task" && r.status.is_some() => {}
            Some(other) => {
                return Err(invalid(format!(
                    "tasks/get answered resultType {}; expected \"complete\"",
                    sanitize(&json_text(other), 60)
                )))
            }
        }
    }
    let c = check_task(&r)?;
    if let Some(expected) = expected_id {
        let id = match &r.task_id {
            Some(Value::String(s)) => s.as_str(),
            _ => "",
        };
        if id != expected {
            return Err(invalid(format!(
                "tasks/get for \"{}\" answered task \"{}\"",
                sanitize(expected, 100),
                sanitize(id, 100)
            )));
        }
    }
    let mut input_requests = Vec::new();
    let mut error = None;
    match c.status {
        TaskStatus::InputRequired => {
            let raw = r
                .input_requests
                .as_ref()
                .ok_or_else(|| invalid("task is input_required but has no inputRequests"))?;
            input_requests = decode_input_requests(raw)?;
            if input_requests.is_empty() {
                return Err(invalid("task is input_required but inputRequests is empty"));
            }
        }
        TaskStatus::Completed => {
            let raw = r
                .result
                .as_ref()
                .ok_or_else(|| invalid("task is completed but has no result"))?;
            if !raw.get().trim_ascii_start().starts_with('{') {
                return Err(invalid("task result is not a JSON object"));
            }
        }
        TaskStatus::Failed => {
            let err = r
                .error
                .as_ref()
                .ok_or_else(|| invalid("task is failed but has no error"))?;
            let e = RpcError::from_value(err)
                .ok_or_else(|| invalid("task error is not a JSON-RPC error {code, message}"))?;
            error = Some(e);
        }
        TaskStatus::Working | TaskStatus::Cancelled => {}
    }
    let result = if c.status == TaskStatus::Completed {
        r.result.take()
    } else {
        None
    };
    Ok(DetailedTask {
        task: take_task(&mut r, c),
        input_requests,
        result,
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `Deserialize` derive `RawTask` had; `parse_raw_task` must read exactly as it did.
    mod derived {
        use crate::json::Value;
        use serde::Deserialize;
        use serde_json::value::RawValue;

        fn present<'de, D: serde::Deserializer<'de>>(
            d: D,
        ) -> std::result::Result<Option<Value>, D::Error> {
            Value::deserialize(d).map(Some)
        }

        #[derive(Deserialize)]
        pub(super) struct RawTask {
            #[serde(rename = "resultType", default)]
            pub result_type: Option<Value>,
            #[serde(rename = "taskId", default)]
            pub task_id: Option<Value>,
            #[serde(default)]
            pub status: Option<Value>,
            #[serde(rename = "statusMessage", default)]
            pub status_message: Option<Value>,
            #[serde(rename = "createdAt", default)]
            pub created_at: Option<Value>,
            #[serde(rename = "lastUpdatedAt", default)]
            pub last_updated_at: Option<Value>,
            #[serde(rename = "ttlMs", default, deserialize_with = "present")]
            pub ttl_ms: Option<Value>,
            #[serde(rename = "pollIntervalMs", default)]
            pub poll_interval_ms: Option<Value>,
            #[serde(rename = "inputRequests", default)]
            pub input_requests: Option<Box<RawValue>>,
            #[serde(default)]
            pub result: Option<Box<RawValue>>,
            #[serde(default)]
            pub error: Option<Value>,
        }
    }

    #[test]
    fn raw_task_parse_matches_the_derive() {
        macro_rules! show {
            ($r:expr) => {{
                let r = $r;
                format!(
                    "{:?}",
                    (
                        r.result_type,
                        r.task_id,
                        r.status,
                        r.status_message,
                        r.created_at,
                        r.last_updated_at,
                        r.ttl_ms,
                        r.poll_interval_ms,
                        r.input_requests.as_ref().map(|r| r.get().to_string()),
                        r.result.as_ref().map(|r| r.get().to_string()),
                        r.error
                    )
                )
            }};
        }
        fields::assert_same_as_derive(
            &[
                "resultType",
                "taskId",
                "status",
                "statusMessage",
                "createdAt",
                "lastUpdatedAt",
                "ttlMs",
                "pollIntervalMs",
                "inputRequests",
                "result",
                "error",
            ],
            parse_raw_task,
            |r: derived::RawTask| show!(r),
            |r| show!(r),
        );
    }
    use crate::protocol::input::InputKind;

    fn raw(s: &str) -> RawJson {
        RawJson::from_string(s.to_string()).unwrap()
    }

    const SEED: &str = r#"{"resultType":"task","taskId":"786512e2","status":"working","statusMessage":"The operation is now in progress.","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttlMs":60000,"pollIntervalMs":5000}"#;

    #[test]
    fn create_task_result_from_the_spec() {
        let t = decode_create_task_result(&raw(SEED)).unwrap();
        assert_eq!(t.task_id, "786512e2");
        assert_eq!(t.status, TaskStatus::Working);
        assert_eq!(t.ttl_ms, Some(60_000));
        assert_eq!(t.poll_interval_ms, Some(5000));
        assert_eq!(t.expires_at_ms(), Some(1_764_066_600_000 + 60_000));
        let v = Value::Object(t.to_value());
        assert_eq!(v["ttlMs"], 60000);
    }

    #[test]
    fn null_ttl_is_unlimited_and_huge_numbers_saturate() {
        let t = decode_create_task_result(&raw(
            r#"{"taskId":"a","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttlMs":null,"pollIntervalMs":1e300}"#,
        ))
        .unwrap();
        assert_eq!(t.ttl_ms, None);
        assert_eq!(t.expires_at_ms(), None);
        assert_eq!(t.poll_interval_ms, Some(u64::MAX));
    }

    #[test]
    fn rule3_malformed_create_task_results() {
        let base: Value = serde_json::from_str(SEED).unwrap();
        let cases: Vec<(&str, Option<Value>)> = vec![
            ("taskId", None),
            ("taskId", Some(Value::from(5))),
            ("taskId", Some(Value::from(""))),
            ("status", Some(Value::from("running"))),
            ("status", None),
            ("createdAt", Some(Value::from("yesterday"))),
            ("createdAt", Some(Value::from(""))),
            ("createdAt", Some(Value::from("2025-11-25"))),
            ("createdAt", Some(Value::from(1_764_066_600_000u64))),
            ("createdAt", None),
            ("lastUpdatedAt", Some(Value::from("10:30:00Z"))),
            ("lastUpdatedAt", Some(Value::from(17))),
            ("ttlMs", Some(Value::from(-1))),
            ("ttlMs", Some(Value::from("60000"))),
            ("ttlMs", None),
            ("pollIntervalMs", Some(Value::from(-5))),
            ("pollIntervalMs", Some(Value::from("5s"))),
            ("statusMessage", Some(Value::from(3))),
        ];
        for (field, value) in cases {
            let mut v = base.clone();
            match &value {
                Some(x) => v[field] = x.clone(),
                None => {
                    v.as_object_mut().unwrap().remove(field);
                }
            }
            let e = decode_create_task_result(&raw(&v.to_string())).err();
            assert_eq!(
                e.map(|e| e.kind),
                Some(ErrorKind::InvalidResult),
                "{field} = {value:?}"
            );
        }
        assert!(decode_create_task_result(&raw("[1]")).is_err());
    }

    /// Rule 3: a timestamp is an "ISO 8601 timestamp" (§ Tasks; the schema says only
    /// `string`), not only RFC 3339's profile. Kept verbatim; one without a UTC offset is
    /// not placed on the timeline, so the task has no TTL backstop (rule 10).
    #[test]
    fn rule_3_iso8601_timestamps_are_accepted_as_sent() {
        let base: Value = serde_json::from_str(SEED).unwrap();
        for (ts, ms) in [
            ("2025-11-25T10:30:00", None),
            ("2025-11-25T10:30:00.123456", None),
            ("2025-11-25T10:30Z", Some(1_764_066_600_000)),
            ("20251125T103000Z", Some(1_764_066_600_000)),
            ("2025-11-25T12:30:00.5+0200", Some(1_764_066_600_500)),
        ] {
            let mut v = base.clone();
            v["createdAt"] = ts.into();
            v["lastUpdatedAt"] = ts.into();
            let t = decode_create_task_result(&raw(&v.to_string())).unwrap();
            assert_eq!((t.created_at.as_str(), t.created_at_ms), (ts, ms), "{ts}");
            assert_eq!(t.last_updated_at_ms, ms, "{ts}");
            assert_eq!(t.expires_at_ms(), ms.map(|m| m + 60_000), "{ts}");
            assert_eq!(Value::Object(t.to_value())["createdAt"], ts);
        }
    }

    #[test]
    fn detailed_task_payloads() {
        let t = decode_detailed_task(&raw(r#"{"resultType":"complete","taskId":"t","status":"input_required","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:50:00Z","ttlMs":3600000,"pollIntervalMs":5000,"inputRequests":{"name":{"method":"elicitation/create","params":{"mode":"form","message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}}}"#), Some("t"), false).unwrap();
        assert_eq!(t.input_requests.len(), 1);
        assert_eq!(t.input_requests[0].kind, InputKind::Elicitation);

        let t = decode_detailed_task(&raw(r#"{"resultType":"complete","taskId":"t","status":"completed","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:50:00Z","ttlMs":null,"result":{"content":[],"isError":false}}"#), Some("t"), false).unwrap();
        assert!(t.result.is_some());

        // The extension's example: a stray "task" resultType on a tasks/get answer.
        let t = decode_detailed_task(&raw(r#"{"resultType":"task","taskId":"t","status":"failed","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttlMs":3600000,"statusMessage":"x","error":{"code":-32603,"message":"API rate limit exceeded"}}"#), Some("t"), false).unwrap();
        assert_eq!(t.error.unwrap().code, -32603);
    }

    /// Each rule a task is held to, by its message, in the order the rules are checked
    /// (every field where it lies, before any is taken: `check_task`).
    #[test]
    fn each_task_rule_refuses_with_its_own_message() {
        let ok = r#""taskId":"t","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttlMs":1000"#;
        let with = |member: &str, value: &str| {
            let mut v: Value = serde_json::from_str(&format!("{{{ok}}}")).unwrap();
            let m = v.as_object_mut().unwrap();
            if value.is_empty() {
                m.remove(member);
            } else {
                m.insert(member.into(), serde_json::from_str(value).unwrap());
            }
            v.to_string()
        };
        let cases = [
            (with("taskId", ""), "task has no taskId"),
            (with("taskId", r#""""#), "taskId is empty"),
            (with("taskId", "5"), "taskId is not a string"),
            (with("status", ""), "task has no status"),
            (with("status", "1"), "task status is not a string"),
            (with("status", r#""done""#), "unknown task status \"done\""),
            (with("statusMessage", "3"), "statusMessage is not a string"),
            (with("createdAt", ""), "task has no createdAt"),
            (with("createdAt", "7"), "createdAt is not a string"),
            (
                with("createdAt", r#""later""#),
                "createdAt is not an ISO 8601 calendar date and time (such as 2025-11-25T10:30:00Z): \"later\"",
            ),
            (
                with("lastUpdatedAt", r#""x""#),
                "lastUpdatedAt is not an ISO 8601 calendar date and time",
            ),
            (
                with("ttlMs", ""),
                "task has no ttlMs (null means unlimited)",
            ),
            (
                with("ttlMs", "-1"),
                "ttlMs must be a non-negative number of milliseconds",
            ),
            (with("ttlMs", r#""1""#), "ttlMs must be a number"),
            (
                with("pollIntervalMs", "true"),
                "pollIntervalMs must be a number",
            ),
            // Two faults: the first rule's message.
            (
                r#"{"taskId":5,"status":1,"ttlMs":-1}"#.to_string(),
                "taskId is not a string",
            ),
        ];
        for (body, message) in &cases {
            for e in [
                decode_create_task_result(&raw(body)).err(),
                decode_detailed_task(&raw(body), Some("t"), false).err(),
            ] {
                let e = e.unwrap_or_else(|| panic!("{body} decoded"));
                assert_eq!(e.kind, ErrorKind::InvalidResult, "{body}");
                assert!(e.message.contains(message), "{body}: {}", e.message);
            }
        }
        let head = r#""createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttlMs":1000"#;
        let detailed = [
            (
                r#""taskId":"u","status":"working""#,
                "tasks/get for \"t\" answered task \"u\"",
            ),
            (
                r#""taskId":"t","status":"input_required""#,
                "input_required but has no inputRequests",
            ),
            (
                r#""taskId":"t","status":"input_required","inputRequests":{}"#,
                "input_required but inputRequests is empty",
            ),
            (
                r#""taskId":"t","status":"completed""#,
                "task is completed but has no result",
            ),
            (
                r#""taskId":"t","status":"completed","result":[1]"#,
                "task result is not a JSON object",
            ),
            (
                r#""taskId":"t","status":"failed""#,
                "task is failed but has no error",
            ),
            (
                r#""taskId":"t","status":"failed","error":{"message":"m"}"#,
                "task error is not a JSON-RPC error {code, message}",
            ),
        ];
        for (members, message) in detailed {
            let body = format!("{{{members},{head}}}");
            let e = decode_detailed_task(&raw(&body), Some("t"), false).unwrap_err();
            assert!(e.message.contains(message), "{body}: {}", e.message);
        }
        // What passed is taken whole.
        let body = format!(
            r#"{{"taskId":"t","status":"completed","statusMessage":"ok","result":{{"a":1}},{head}}}"#
        );
        let d = decode_detailed_task(&raw(&body), Some("t"), false).unwrap();
        assert_eq!(
            (d.task.task_id.as_str(), d.task.status_message.as_deref()),
            ("t", Some("ok"))
        );
        assert_eq!(
            (
                d.task.created_at.as_str(),
                d.result.map(|r| r.get().to_string())
            ),
            ("2025-11-25T10:30:00Z", Some(r#"{"a":1}"#.to_string()))
        );
    }

    #[test]
    fn detailed_task_bad_inputs() {
        let head = r#""createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttlMs":1000"#;
        for (body, expected) in [
            (
                format!(r#"{{"taskId":"other","status":"working",{head}}}"#),
                Some("t"),
            ),
            (format!(r#"{{"status":"working",{head}}}"#), Some("t")),
            (
                format!(r#"{{"taskId":"t","status":"input_required",{head}}}"#),
                Some("t"),
            ),
            (
                format!(
                    r#"{{"taskId":"t","status":"input_required","inputRequests":{{}},{head}}}"#
                ),
                Some("t"),
            ),
            (
                format!(r#"{{"taskId":"t","status":"input_required","inputRequests":[1],{head}}}"#),
                Some("t"),
            ),
            (
                format!(r#"{{"taskId":"t","status":"completed",{head}}}"#),
                Some("t"),
            ),
            (
                format!(r#"{{"taskId":"t","status":"completed","result":"done",{head}}}"#),
                Some("t"),
            ),
            (
                format!(r#"{{"taskId":"t","status":"failed",{head}}}"#),
                Some("t"),
            ),
            (
                format!(r#"{{"taskId":"t","status":"failed","error":"boom",{head}}}"#),
                Some("t"),
            ),
            (
                format!(
                    r#"{{"resultType":"input_required","taskId":"t","status":"working",{head}}}"#
                ),
                Some("t"),
            ),
            (
                format!(r#"{{"resultType":"task","taskId":"t",{head}}}"#),
                Some("t"),
            ),
        ] {
            let e = decode_detailed_task(&raw(&body), expected, false).err();
            assert_eq!(e.map(|e| e.kind), Some(ErrorKind::InvalidResult), "{body}");
        }
    }
}
