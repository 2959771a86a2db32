//! The 2025 shapes the client still speaks with older servers (spec 2025-11-25:
//! `basic/lifecycle.mdx`, `basic/transports.mdx`, `basic/utilities/tasks.mdx`):
//! `initialize`, the 2025 `Task` (`ttl`, `pollInterval`), the wrapped
//! `CreateTaskResult {task}`, and session ids.

use crate::error::json_object;
use crate::error::{sanitize, Error, ErrorKind, Result};
use crate::json::RawJson;
use crate::json::{Map, Value};
use crate::protocol::capabilities::server_tasks;
use crate::protocol::codes::UNSUPPORTED_PROTOCOL_VERSION;
use crate::protocol::tasks::{decode_create_task_result, Task};
use crate::protocol::{HTTP_SSE_PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSIONS};

/// What `initialize` told the client.
#[derive(Clone, Debug, PartialEq)]
pub struct InitializeResult {
    pub protocol_version: String,
    pub capabilities: Value,
    pub server_info: Value,
    pub instructions: Option<String>,
}

impl InitializeResult {
    /// The same information in the shape of a 2026-07-28 `DiscoverResult`, so that
    /// `discover()` answers alike in every era.
    pub fn as_discover(&self) -> Value {
        let mut m = Map::new();
        m.insert(
            "supportedVersions".into(),
            Value::Array(vec![self.protocol_version.clone().into()]),
        );
        m.insert("capabilities".into(), self.capabilities.clone());
        m.insert("serverInfo".into(), self.server_info.clone());
        if let Some(i) = &self.instructions {
            m.insert("instructions".into(), i.clone().into());
        }
        Value::Object(m)
    }

    /// 2025 tasks: the server accepts task-augmented `tools/call`.
    pub fn supports_tool_tasks(&self) -> bool {
        server_tasks(&self.capabilities, false).tool_calls
    }

    pub fn supports_task_list(&self) -> bool {
        server_tasks(&self.capabilities, false).list
    }
}

/// Decodes an `InitializeResult`; the version must be one the client speaks.
pub fn decode_initialize_result(raw: &RawJson, over_sse: bool) -> Result<InitializeResult> {
    let v: Value = crate::json::parse(raw.get())
        .map_err(|_| Error::invalid_result("initialize result is not JSON"))?;
    let Value::Object(m) = v else {
        return Err(Error::invalid_result("initialize result is not an object"));
    };
    let version = m
        .get("protocolVersion")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::invalid_result("initialize result has no protocolVersion"))?
        .to_string();
    let ok = LEGACY_PROTOCOL_VERSIONS.contains(&version.as_str())
        || (over_sse && version == HTTP_SSE_PROTOCOL_VERSION);
    if !ok {
        return Err(Error::new(
            ErrorKind::UnsupportedProtocolVersion,
            format!("the server answered initialize with protocol version \"{}\", which this client does not speak", sanitize(&version, 40)),
        )
        .with_code(UNSUPPORTED_PROTOCOL_VERSION)
        .with_data(json_object(vec![
            (
                "supported",
                LEGACY_PROTOCOL_VERSIONS.iter().map(|&v| Value::from(v)).collect(),
            ),
            ("requested", version.into()),
        ])));
    }
    let capabilities = match m.get("capabilities") {
        Some(c @ Value::Object(_)) => c.clone(),
        None => Value::Object(Map::new()),
        Some(_) => {
            return Err(Error::invalid_result(
                "initialize result capabilities is not an object",
            ))
        }
    };
    let server_info = m
        .get("serverInfo")
        .cloned()
        .unwrap_or(Value::Object(Map::new()));
    let instructions = m
        .get("instructions")
        .and_then(Value::as_str)
        .map(str::to_string);
    Ok(InitializeResult {
        protocol_version: version,
        capabilities,
        server_info,
        instructions,
    })
}

/// The 2025 client capabilities for `initialize`, from the modern ones the host configured
/// (elicitation, sampling, roots; extensions have no 2025 form).
#[cfg(feature = "legacy")]
pub(crate) fn legacy_capabilities(modern: &Value) -> Value {
    let mut m = Map::new();
    if let Some(e) = modern.get("elicitation") {
        m.insert("elicitation".into(), e.clone());
    }
    if let Some(s) = modern.get("sampling") {
        m.insert("sampling".into(), s.clone());
    }
    if modern.get("roots").is_some() {
        m.insert(
            "roots".into(),
            json_object(vec![("listChanged", false.into())]),
        );
    }
    Value::Object(m)
}

/// Maps a 2025 `Task` object (`ttl`, `pollInterval`) to the 2026 field names and decodes it.
pub(crate) fn decode_legacy_task_value(v: &Value) -> Result<Task> {
    let Value::Object(src) = v else {
        return Err(Error::invalid_result("task is not an object"));
    };
    let mut m = src.clone();
    if let Some(ttl) = m.remove("ttl") {
        m.insert("ttlMs".into(), ttl);
    } else if !m.contains_key("ttlMs") {
        m.insert("ttlMs".into(), Value::Null);
    }
    if let Some(p) = m.remove("pollInterval") {
        m.insert("pollIntervalMs".into(), p);
    }
    m.remove("resultType");
    decode_create_task_result(&RawJson::of(&Value::Object(m)))
}

/// Decodes a 2025 `CreateTaskResult` (`{task: {...}}`).
pub fn decode_legacy_create_task_result(raw: &RawJson) -> Result<Task> {
    let v: Value = crate::json::parse(raw.get())
        .map_err(|_| Error::invalid_result("CreateTaskResult is not JSON"))?;
    match v.get("task") {
        Some(t) => decode_legacy_task_value(t),
        None => Err(Error::invalid_result(
            "a 2025 CreateTaskResult must carry a task object",
        )),
    }
}

/// A session id must be visible ASCII (0x21–0x7E; 2025-11-25 transports "Session Management").
pub(crate) fn check_session_id(s: &str) -> Result<()> {
    if s.is_empty() || s.len() > 1024 || !s.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
        return Err(Error::protocol(format!(
            "the server sent an invalid Mcp-Session-Id (\"{}\"): it must be visible ASCII",
            sanitize(s, 60)
        )));
    }
    Ok(())
}

/// Resolves the 2024-11-05 `endpoint` event's URI reference against the server URL (RFC
/// 3986 §5.2) and refuses another origin (the POST target must be the server's own).
#[cfg(feature = "legacy")]
pub(crate) fn resolve_endpoint(base: &str, endpoint: &str) -> Result<String> {
    let endpoint = endpoint.trim();
    let origin_of = |u: &str| -> Option<String> {
        let scheme_end = crate::text::find(u, "://")?;
        let rest = &u[scheme_end + 3..];
        let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        Some(format!(
            "{}://{}",
            u[..scheme_end].to_ascii_lowercase(),
            rest[..host_end].to_ascii_lowercase()
        ))
    };
    let base_origin = origin_of(base).ok_or_else(|| Error::config("server URL has no origin"))?;
    if endpoint.chars().any(|c| c.is_control() || c == ' ') {
        return Err(Error::protocol("the endpoint event holds an invalid URI"));
    }
    // The resolver JSON Schema references use (RFC 3986 §5.2): a "://"
    // in a query is no scheme, a query alone keeps the base's path. The fragment goes.
    let resolved = crate::schema::resolve_reference(base, endpoint);
    let resolved = match crate::text::split_once(&resolved, "#") {
        Some((r, _)) => r.to_string(),
        None => resolved,
    };
    let origin = origin_of(&resolved)
        .ok_or_else(|| Error::protocol("the endpoint event holds an invalid URI"))?;
    if origin != base_origin {
        return Err(Error::protocol(format!(
            "the endpoint event names another origin ({}); refused",
            sanitize(&origin, 100)
        )));
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    #[cfg(feature = "legacy")]
    fn endpoint_resolution_and_origin_check() {
        let b = "http://127.0.0.1:8000/sse";
        assert_eq!(
            resolve_endpoint(b, "/messages/?session_id=abc").unwrap(),
            "http://127.0.0.1:8000/messages/?session_id=abc"
        );
        assert_eq!(
            resolve_endpoint(b, "messages?s=1").unwrap(),
            "http://127.0.0.1:8000/messages?s=1"
        );
        assert_eq!(
            resolve_endpoint(b, "http://127.0.0.1:8000/m").unwrap(),
            "http://127.0.0.1:8000/m"
        );
        assert!(resolve_endpoint(b, "http://evil.example/m").is_err());
        assert!(resolve_endpoint(b, "//evil.example/m").is_err());
        assert!(resolve_endpoint(b, "http://127.0.0.1:8001/m").is_err());
        assert!(resolve_endpoint(b, "/m\r\nx").is_err());
    }

    #[test]
    #[cfg(feature = "legacy")]
    fn endpoint_references_resolve_as_rfc_3986_says() {
        let b = "http://127.0.0.1:8000/a/sse?v=1#f";
        let cases = [
            // "://" in a query is no scheme.
            (
                "/x/messages?next=https://evil.example/x",
                "http://127.0.0.1:8000/x/messages?next=https://evil.example/x",
            ),
            (
                "messages?next=http://e.example",
                "http://127.0.0.1:8000/a/messages?next=http://e.example",
            ),
            // A query only, or nothing: the base's path (and its query when none).
            ("?token=t1", "http://127.0.0.1:8000/a/sse?token=t1"),
            ("", "http://127.0.0.1:8000/a/sse?v=1"),
            ("#x", "http://127.0.0.1:8000/a/sse?v=1"),
            ("./m", "http://127.0.0.1:8000/a/m"),
            ("../../m/./n", "http://127.0.0.1:8000/m/n"),
            ("/p/../q", "http://127.0.0.1:8000/q"),
            ("HTTP://127.0.0.1:8000/m", "HTTP://127.0.0.1:8000/m"),
        ];
        for (r, want) in cases {
            assert_eq!(resolve_endpoint(b, r).unwrap(), want, "{r}");
        }
        assert_eq!(
            resolve_endpoint("http://h.test", "m").unwrap(),
            "http://h.test/m"
        );
        // A scheme: an absolute URI, checked for its origin.
        assert!(resolve_endpoint(b, "mailto:a@b").is_err());
        assert!(resolve_endpoint(b, "https://127.0.0.1:8000/m").is_err());
    }

    #[test]
    fn session_ids() {
        assert!(check_session_id("1868a90c-abc").is_ok());
        assert!(check_session_id("a b").is_err());
        assert!(check_session_id("a\r\nb").is_err());
        assert!(check_session_id("é").is_err());
        assert!(check_session_id("").is_err());
    }

    #[test]
    fn legacy_tasks() {
        let raw = RawJson::from_string(
            r#"{"task":{"taskId":"t","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000,"pollInterval":500}}"#.into(),
        )
        .unwrap();
        let t = decode_legacy_create_task_result(&raw).unwrap();
        assert_eq!((t.ttl_ms, t.poll_interval_ms), (Some(60000), Some(500)));
        let bad = RawJson::from_string(r#"{"taskId":"t"}"#.into()).unwrap();
        assert_eq!(
            decode_legacy_create_task_result(&bad).unwrap_err().kind,
            ErrorKind::InvalidResult
        );
    }

    #[test]
    fn initialize_versions() {
        let ok = RawJson::from_string(r#"{"protocolVersion":"2025-06-18","capabilities":{"tasks":{"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"s","version":"1"}}"#.into()).unwrap();
        let r = decode_initialize_result(&ok, false).unwrap();
        assert!(r.supports_tool_tasks());
        assert_eq!(r.as_discover()["supportedVersions"], json!(["2025-06-18"]));
        let bad =
            RawJson::from_string(r#"{"protocolVersion":"1999-01-01","capabilities":{}}"#.into())
                .unwrap();
        let e = decode_initialize_result(&bad, false).unwrap_err();
        assert_eq!(
            (e.kind, e.code),
            (ErrorKind::UnsupportedProtocolVersion, Some(-32022))
        );
    }
}
