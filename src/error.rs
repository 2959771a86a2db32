//! The one error type of the crate.
//!
//! Every failure, whether it came from the peer (a JSON-RPC error), the network, the
//! host (a handler that threw) or the client's own checks, is an [`Error`]: a [`ErrorKind`]
//! plus an optional JSON-RPC `code`, a message, optional `data` and, for HTTP failures,
//! the `status`. The web shell maps it once to a JS `Error` whose `name` is
//! [`ErrorKind::js_name`].
//!
//! Messages built from peer-controlled strings go through `sanitize` so that a hostile
//! server cannot inject control characters into logs or UI (tasks rule 23).

use crate::json::Value;
use std::fmt;

/// What went wrong, as the host sees it. Each kind is one JS error class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// A JSON-RPC error answered by the server (`code`, `message`, `data` as sent).
    Mcp,
    /// An HTTP failure without a JSON-RPC body (`status` set).
    Http,
    /// The call's time budget ran out.
    Timeout,
    /// The host aborted the call (its `AbortSignal` fired, or `close()` was called).
    Abort,
    /// The request could not be sent or the response stream broke.
    Network,
    /// A browser blocked the exchange for CORS reasons (what the server must allow is in `data`).
    Cors,
    /// The server answered something that is not a valid result for the request.
    InvalidResult,
    /// The peer broke the transport framing (bad SSE, oversized event or body, bad content type).
    Protocol,
    /// `-32021`: the request needs a client capability that was not declared.
    MissingRequiredClientCapability,
    /// `-32022`: no protocol version both sides support.
    UnsupportedProtocolVersion,
    /// `structuredContent` does not satisfy the tool's `outputSchema`.
    OutputValidation,
    /// An input request could not be satisfied (round cap, undeclared kind, ...).
    InputRequired,
    /// The host's answer to an input request is invalid (e.g. it does not match `requestedSchema`).
    InputValidation,
    /// A host handler threw or rejected; the shell rethrows the original value.
    Handler,
    /// An operation needs a capability or extension that is not available on either side.
    Capability,
    /// Tasks: the server does not know the task (`-32602` on `tasks/*`).
    TaskNotFound,
    /// Tasks: the task's TTL has passed without a terminal status.
    TaskExpired,
    /// Tasks: the task ended `cancelled`.
    TaskCancelled,
    /// Tasks: a wait ran out of time; the task keeps running.
    TaskTimeout,
    /// Tasks: an operation that does not apply to this task (e.g. a local task).
    Task,
    /// The host passed invalid options or arguments.
    Config,
    /// OAuth authorization could not be completed (discovery, registration, the person's
    /// step, the token request, or a check of the spec refused what a server sent).
    Auth,
}

impl ErrorKind {
    /// The JS `name` of the error class for this kind.
    pub fn js_name(self) -> &'static str {
        match self {
            ErrorKind::Mcp => "McpError",
            ErrorKind::Http => "HttpError",
            ErrorKind::Timeout => "TimeoutError",
            ErrorKind::Abort => "AbortError",
            ErrorKind::Network => "NetworkError",
            ErrorKind::Cors => "CorsError",
            ErrorKind::InvalidResult => "InvalidResultError",
            ErrorKind::Protocol => "ProtocolError",
            ErrorKind::MissingRequiredClientCapability => "MissingRequiredClientCapabilityError",
            ErrorKind::UnsupportedProtocolVersion => "UnsupportedProtocolVersionError",
            ErrorKind::OutputValidation => "OutputValidationError",
            ErrorKind::InputRequired => "InputRequiredError",
            ErrorKind::InputValidation => "InputValidationError",
            ErrorKind::Handler => "HandlerError",
            ErrorKind::Capability => "CapabilityError",
            ErrorKind::TaskNotFound => "TaskNotFoundError",
            ErrorKind::TaskExpired => "TaskExpiredError",
            ErrorKind::TaskCancelled => "TaskCancelledError",
            ErrorKind::TaskTimeout => "TaskTimeoutError",
            ErrorKind::Task => "TaskError",
            ErrorKind::Config => "ConfigError",
            ErrorKind::Auth => "AuthorizationError",
        }
    }

    /// Every kind. The JS error classes (`src/web/js/objects.js`, and the exports of
    /// `src/web/package/index.js` and `index.d.ts`) are written by hand in this order; a
    /// test below checks that they agree with it.
    pub const ALL: [ErrorKind; 22] = [
        ErrorKind::Mcp,
        ErrorKind::Http,
        ErrorKind::Timeout,
        ErrorKind::Abort,
        ErrorKind::Network,
        ErrorKind::Cors,
        ErrorKind::InvalidResult,
        ErrorKind::Protocol,
        ErrorKind::MissingRequiredClientCapability,
        ErrorKind::UnsupportedProtocolVersion,
        ErrorKind::OutputValidation,
        ErrorKind::InputRequired,
        ErrorKind::InputValidation,
        ErrorKind::Handler,
        ErrorKind::Capability,
        ErrorKind::TaskNotFound,
        ErrorKind::TaskExpired,
        ErrorKind::TaskCancelled,
        ErrorKind::TaskTimeout,
        ErrorKind::Task,
        ErrorKind::Config,
        ErrorKind::Auth,
    ];
}

/// The crate's error: kind, optional JSON-RPC code, message, optional data, optional HTTP status.
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    pub kind: ErrorKind,
    /// The JSON-RPC error code: the peer's; or, for an error of a kind the spec gives one
    /// code (`-32022`, `-32602` for an unknown task) that the client found itself, that code.
    pub code: Option<i64>,
    pub message: String,
    pub data: Option<Value>,
    /// The HTTP status, for [`ErrorKind::Http`] and errors that came with one.
    pub status: Option<u16>,
    /// For [`ErrorKind::Handler`]: the shell's handle on the value the host threw, so the
    /// original JS value can be rethrown unchanged.
    pub host_ref: Option<u32>,
}

impl Error {
    /// A client-side error (no code, no data).
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            code: None,
            message: message.into(),
            data: None,
            status: None,
            host_ref: None,
        }
    }

    /// A JSON-RPC error as the peer sent it. The message is sanitized.
    pub(crate) fn rpc(code: i64, message: &str, data: Option<Value>) -> Self {
        Error {
            kind: ErrorKind::Mcp,
            code: Some(code),
            message: sanitize(message, 1000),
            data,
            status: None,
            host_ref: None,
        }
    }

    pub(crate) fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    pub(crate) fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    pub(crate) fn with_code(mut self, code: i64) -> Self {
        self.code = Some(code);
        self
    }

    pub(crate) fn with_kind(mut self, kind: ErrorKind) -> Self {
        self.kind = kind;
        self
    }

    /// Shorthand constructors for the common kinds.
    pub(crate) fn invalid_result(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::InvalidResult, message)
    }
    pub(crate) fn protocol(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Protocol, message)
    }
    pub fn network(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Network, message)
    }
    pub(crate) fn config(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Config, message)
    }
    pub fn timeout(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Timeout, message)
    }
    pub fn abort(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Abort, message)
    }
    pub(crate) fn http(status: u16, message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Http, message).with_status(status)
    }

    /// The error a host handler produced; `host_ref` names the thrown JS value in the shell.
    pub fn handler(host_ref: Option<u32>, message: impl Into<String>) -> Self {
        let mut e = Error::new(ErrorKind::Handler, message);
        e.host_ref = host_ref;
        e
    }

    /// True when a retry of the same request could succeed without anything changing
    /// (used by the task drivers: a transient failure of a poll is not fatal, tasks rule 15;
    /// one of a `tasks/update` is no definite answer, rule 8).
    pub(crate) fn is_transient(&self) -> bool {
        match self.kind {
            ErrorKind::Network | ErrorKind::Timeout => true,
            ErrorKind::Http => matches!(self.status, Some(408 | 425 | 429 | 500..=599)),
            ErrorKind::Protocol => true,
            _ => false,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.js_name(), self.message)?;
        if let Some(code) = self.code {
            write!(f, " (code {code})")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// A peer-controlled string made safe for messages and logs: control characters
/// (C0, DEL, C1, and the Unicode bidi/line separators that can reorder or break a line)
/// become `\u{..}` escapes, and the text is cut at `max_chars` characters.
pub(crate) fn sanitize(s: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max_chars + 8));
    for (n, c) in s.chars().enumerate() {
        if n >= max_chars {
            out.push('…');
            break;
        }
        let unsafe_char = c.is_control()
            || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}')
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c);
        if unsafe_char {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// A JSON object from `(key, value)` pairs, in order, the values moved in (`crate::json!`
/// takes each leaf that is an expression by reference and clones it, as serde_json's
/// `json!` does).
pub(crate) fn json_object(pairs: Vec<(&str, Value)>) -> Value {
    let mut m = crate::json::Map::new();
    for (k, v) in pairs {
        m.insert(k.into(), v);
    }
    Value::Object(m)
}

/// A JSON value as compact text: `crate::json::text`, which `Value`'s `Display`
/// (`to_string()`, `{}`) writes too; without the formatter's machinery.
pub(crate) fn json_text(v: &Value) -> String {
    crate::json::text(v)
}

/// `Result` with the crate's error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    /// `json_text` writes what serde_json's printer writes, and what `Value`'s `Display`
    /// writes (messages show values through both).
    #[test]
    fn json_text_is_serde_jsons_text_and_display() {
        let v: Value = serde_json::from_str(
            r#"{"b":[1,-2,3.5,1e300,null,true],"a":"\u0000\"\\é\u2028","c":{},"d":[],"e":0.1}"#,
        )
        .unwrap();
        for x in [&v, &v["b"], &v["a"], &v["e"], &Value::Null] {
            assert_eq!(json_text(x), serde_json::to_string(x).unwrap());
            assert_eq!(json_text(x), x.to_string());
        }
    }

    #[test]
    fn sanitize_escapes_controls_and_bidi() {
        assert_eq!(
            sanitize("a\nb\r\u{1b}[31m", 100),
            "a\\u{a}b\\u{d}\\u{1b}[31m"
        );
        assert_eq!(sanitize("x\u{202e}y", 100), "x\\u{202e}y");
        assert_eq!(sanitize("héllo 世界", 100), "héllo 世界");
    }

    #[test]
    fn sanitize_cuts_long_text() {
        assert_eq!(sanitize("abcdef", 3), "abc…");
    }

    #[test]
    fn every_kind_has_a_distinct_js_name_ending_in_error() {
        let mut names: Vec<_> = ErrorKind::ALL.iter().map(|k| k.js_name()).collect();
        assert!(names.iter().all(|n| n.ends_with("Error")));
        names.sort();
        names.dedup();
        assert_eq!(names.len(), ErrorKind::ALL.len());
    }

    /// The text of `path`, relative to the crate root.
    fn read(path: &str) -> String {
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
        std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// The text of `path` between `start` and the next `end`.
    fn js_between(path: &str, start: &str, end: &str) -> String {
        let text = read(path);
        let from = text
            .find(start)
            .unwrap_or_else(|| panic!("{path}: no {start:?}"))
            + start.len();
        let len = text[from..]
            .find(end)
            .unwrap_or_else(|| panic!("{path}: no {end:?}"));
        text[from..from + len].to_string()
    }

    /// The quoted names in a JS list (`'A', 'B'`).
    fn quoted(list: &str) -> Vec<String> {
        list.split('\'')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    }

    /// The JS error classes are the kinds of [`ErrorKind::ALL`], with the same names, in
    /// the same order, everywhere they are listed: the classes `objects.js` makes (McpError
    /// by hand, the others from `NAMES`), the package entry's exports and its types. The
    /// classes `objects.js` derives from McpError (`FROM_SERVER`) are the ones `index.d.ts`
    /// declares so; every other kind extends McpClientError.
    #[test]
    fn the_js_error_classes_are_the_kinds() {
        let kinds: Vec<String> = ErrorKind::ALL
            .iter()
            .map(|k| k.js_name().to_string())
            .collect();

        let mut made = vec!["McpError".to_string()];
        made.extend(quoted(&js_between(
            "src/web/js/objects.js",
            "const NAMES = [",
            "];",
        )));
        assert_eq!(made, kinds, "src/web/js/objects.js");

        let exported: Vec<String> = js_between("src/web/package/index.js", "export const {", "}")
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| s.ends_with("Error") && s != "McpClientError")
            .collect();
        assert_eq!(exported, kinds, "src/web/package/index.js exports");

        let dts = read("src/web/package/index.d.ts");
        let mut declared = Vec::new();
        let mut from_mcp_error = Vec::new();
        for line in dts.lines() {
            let Some(rest) = line.strip_prefix("export declare class ") else {
                continue;
            };
            let mut words = rest.split_whitespace();
            let (Some(name), Some("extends"), Some(base)) =
                (words.next(), words.next(), words.next())
            else {
                panic!("index.d.ts: unexpected class line {line:?}");
            };
            if name == "McpClientError" {
                continue;
            }
            declared.push(name.to_string());
            match base {
                "McpError" => from_mcp_error.push(name.to_string()),
                "McpClientError" => {}
                _ => panic!("index.d.ts: {name} extends {base}"),
            }
        }
        assert_eq!(declared, kinds, "src/web/package/index.d.ts classes");
        let mut from_server = quoted(&js_between(
            "src/web/js/objects.js",
            "const FROM_SERVER = new Set([",
            "]);",
        ));
        from_server.sort();
        from_mcp_error.sort();
        assert_eq!(
            from_server, from_mcp_error,
            "objects.js FROM_SERVER vs index.d.ts"
        );
    }

    #[test]
    fn rpc_errors_keep_code_and_sanitize_message() {
        let e = Error::rpc(-32602, "bad\nthing", None);
        assert_eq!(e.kind, ErrorKind::Mcp);
        assert_eq!(e.code, Some(-32602));
        assert_eq!(e.message, "bad\\u{a}thing");
    }

    #[test]
    fn transient_classification() {
        assert!(Error::network("x").is_transient());
        assert!(Error::http(503, "x").is_transient());
        assert!(!Error::http(404, "x").is_transient());
        assert!(!Error::rpc(-32602, "x", None).is_transient());
    }
}
