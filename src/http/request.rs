//! Request framing for Streamable HTTP: the per-request `_meta` (2026-07-28 has no
//! handshake, so every request carries protocol version, capabilities and client info:
//! spec `basic/index.mdx` "_meta") and the standard headers (spec
//! `basic/transports/streamable-http.mdx` "Request Metadata").

use crate::http::encoding::encode_header_value;
use crate::json::{Map, Value};

/// An HTTP request for the shell to perform.
#[derive(Clone, Debug, PartialEq)]
pub struct HttpRequest {
    /// The engine's handle on this exchange; every response event names it.
    pub id: u64,
    pub method: HttpMethod,
    pub url: String,
    pub headers: Vec<(String, String)>,
    /// UTF-8 text (a JSON-RPC message, or a form for the authorization server) as bytes,
    /// the way the shell hands it to `fetch`: written in one buffer, it is never checked
    /// again as a `String` would be (a large tool call's arguments would be read through).
    pub body: Option<Vec<u8>>,
    /// A GET event stream the shell may open with `EventSource` (the 2024-11-05 stream,
    /// when no custom headers are needed: `EventSource` cannot send them).
    pub event_source: bool,
}

impl HttpRequest {
    /// True when the shell should read this stream with `EventSource` (never in the
    /// modern-only build, so the shell's `EventSource` path folds away there).
    #[inline]
    pub fn wants_event_source(&self) -> bool {
        cfg!(feature = "legacy") && self.event_source
    }

    /// The body as text (`None`: no body, or bytes that are not UTF-8).
    pub fn body_text(&self) -> Option<&str> {
        std::str::from_utf8(self.body.as_deref()?).ok()
    }

    /// Removes every header named `name` (ASCII case-insensitively, as HTTP compares
    /// names). One function for the callers that replace a header (`Authorization`,
    /// `DPoP`), not a `retain` with a closure of its own each.
    #[inline(never)]
    pub(crate) fn remove_header(&mut self, name: &str) {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HttpMethod {
    Post,
    Get,
    Delete,
}

impl HttpMethod {
    pub fn as_str(self) -> &'static str {
        match self {
            HttpMethod::Post => "POST",
            HttpMethod::Get => "GET",
            HttpMethod::Delete => "DELETE",
        }
    }
}

pub(crate) const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub(crate) const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub(crate) const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
pub(crate) const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
pub(crate) const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
pub(crate) const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
pub(crate) const META_RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
pub(crate) const PROGRESS_TOKEN: &str = "progressToken";

/// The `Accept` every POST sends: both response shapes (spec "Sending Messages" 2).
pub(crate) const ACCEPT_BOTH: &str = "application/json, text/event-stream";

/// What a modern request's `_meta` carries besides the host's own entries (the reference
/// [`add_modern_meta`] takes).
#[cfg(test)]
pub(crate) struct RequestMeta<'a> {
    pub protocol_version: &'a str,
    pub capabilities: &'a Value,
    pub client_info: &'a Value,
    pub log_level: Option<&'a str>,
    pub progress_token: Option<&'a Value>,
}

/// Adds the modern `_meta` to `params`, keeping any entries the host put there itself
/// (the client's reserved keys win). The reference for [`modern_params_text`].
#[cfg(test)]
pub(crate) fn add_modern_meta(params: &mut Map, meta: &RequestMeta) {
    let mut m = match params.remove("_meta") {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    m.insert(META_PROTOCOL_VERSION.into(), meta.protocol_version.into());
    m.insert(META_CLIENT_CAPABILITIES.into(), meta.capabilities.clone());
    m.insert(META_CLIENT_INFO.into(), meta.client_info.clone());
    if let Some(level) = meta.log_level {
        m.insert(META_LOG_LEVEL.into(), level.into());
    }
    if let Some(t) = meta.progress_token {
        m.insert(PROGRESS_TOKEN.into(), t.clone());
    }
    params.insert("_meta".into(), Value::Object(m));
}

/// A request's params: its members as a map, a string member `name` written first and at
/// most one more member kept as JSON text last (a tool call's: its `name`, and its
/// `arguments`, the host's JSON going into the request without becoming a `Value` and
/// back). Neither name is one of the map's. A tool call's params then need no map at all:
/// building one per call ran a hash table's code (indexmap, SipHash) on every call, a few
/// KB of code a call touches for one member (BENCHMARKS.md, the twenty-ninth session).
#[derive(Clone, Copy)]
pub struct Params<'a> {
    /// The members in a map; `None`: none (a plain tool call's params have no map, so
    /// none is made for it, which ran indexmap's code and `RandomState`'s on every call).
    pub map: Option<&'a Map>,
    /// `name`, a string, when the map does not hold it.
    pub name: Option<&'a str>,
    /// A member's name and its value as JSON text.
    pub raw: Option<(&'a str, &'a [u8])>,
}

impl<'a> Params<'a> {
    /// Params that are a map only.
    pub fn of(map: &'a Map) -> Params<'a> {
        Params {
            map: Some(map),
            name: None,
            raw: None,
        }
    }

    /// A tool call's params: its `name` and its `arguments` as JSON text, no map.
    pub fn tool(name: &'a str, args: Option<&'a [u8]>) -> Params<'a> {
        Params {
            map: None,
            name: Some(name),
            raw: args.map(|a| ("arguments", a)),
        }
    }

    /// The params as one map (the raw member parsed): for the legacy eras, which build
    /// their requests from a map. A tool call made there parses its arguments itself
    /// (`ToolOp::call`, refusing what a `Value` cannot read); this is for a request that
    /// went out in the modern framing and is sent again after a fall back to a legacy era.
    /// Text a `Value` cannot read (only from a Rust caller: `JSON.stringify` never writes
    /// it) becomes `null`.
    #[cfg(feature = "legacy")]
    pub(crate) fn to_map(self) -> Map {
        let mut m = self.map.cloned().unwrap_or_default();
        if let Some(n) = self.name {
            // `name` first, as it is written in the modern framing.
            let rest = std::mem::replace(&mut m, Map::new());
            m.insert("name".into(), n.into());
            for (k, v) in rest {
                m.insert(k, v);
            }
        }
        if let Some((k, r)) = self.raw {
            let v = std::str::from_utf8(r)
                .ok()
                .and_then(|r| crate::json::parse(r).ok());
            m.insert(k.into(), v.unwrap_or(Value::Null));
        }
        m
    }
}

/// What a modern request's `_meta` carries, with the constant parts already serialized
/// (capabilities and client info are written once per client, not rebuilt per request).
pub(crate) struct RequestMetaText<'a> {
    pub protocol_version: &'a str,
    /// JSON text of the capabilities object.
    pub capabilities: &'a str,
    /// JSON text of the client info object.
    pub client_info: &'a str,
    pub log_level: Option<&'a str>,
    pub progress_token: Option<&'a Value>,
}

/// The JSON text of `params` with the modern `_meta`: byte for byte what serializing
/// `params` after [`add_modern_meta`] gave (the same members in the same order: a host
/// `_meta` is taken out as `Map::remove` does, by swapping the last member into its place,
/// and the merged `_meta` comes last; reserved keys the host also set keep the host's
/// position), without cloning `params` or building the `_meta` map.
#[cfg(test)]
pub(crate) fn modern_params_text(params: &Map, meta: &RequestMetaText) -> String {
    let mut out = Vec::new();
    write_modern_params(&mut out, Params::of(params), meta);
    String::from_utf8(out).unwrap_or_default()
}

/// Writes [`modern_params_text`] at the end of `out` (a request's text being built in one
/// buffer: `protocol::jsonrpc::request_head` before it); a raw member goes verbatim after
/// the map's members, before `_meta`.
pub(crate) fn write_modern_params(out: &mut Vec<u8>, p: Params, meta: &RequestMetaText) {
    out.push(b'{');
    if let Some(n) = p.name {
        member(out, "name", Member::Str(n));
    }
    if let Some(params) = p.map {
        // `add_modern_meta` takes `_meta` out and puts it back last.
        for (k, v) in params.iter().filter(|(k, _)| *k != "_meta") {
            member(out, k, Member::Value(v));
        }
    }
    if let Some((k, r)) = p.raw {
        member(out, k, Member::Text(r));
    }
    member(out, "_meta", Member::Text(b"{"));
    // In the order add_modern_meta inserted them; `None`: not sent.
    let reserved = [
        (
            META_PROTOCOL_VERSION,
            Some(Member::Str(meta.protocol_version)),
        ),
        (
            META_CLIENT_CAPABILITIES,
            Some(Member::Text(meta.capabilities.as_bytes())),
        ),
        (
            META_CLIENT_INFO,
            Some(Member::Text(meta.client_info.as_bytes())),
        ),
        (META_LOG_LEVEL, meta.log_level.map(Member::Str)),
        (PROGRESS_TOKEN, meta.progress_token.map(Member::Value)),
    ];
    let mut used = [false; 5];
    if let Some(Value::Object(host)) = p.map.and_then(|m| m.get("_meta")) {
        for (k, v) in host {
            match reserved
                .iter()
                .position(|(r, m)| *r == k.as_str() && m.is_some())
            {
                Some(i) => {
                    used[i] = true;
                    member(out, k, reserved[i].1.unwrap_or(Member::Text(b"")));
                }
                None => member(out, k, Member::Value(v)),
            }
        }
    }
    for (i, (k, m)) in reserved.iter().enumerate() {
        if let (Some(m), false) = (m, used[i]) {
            member(out, k, *m);
        }
    }
    out.extend_from_slice(b"}}");
}

#[derive(Clone, Copy)]
pub(crate) enum Member<'a> {
    Value(&'a Value),
    /// A string, to be written as JSON.
    Str(&'a str),
    /// Already JSON text (empty: the value follows separately).
    Text(&'a [u8]),
}

/// Writes `,"key":value` (no comma right after an opening brace).
pub(crate) fn member(out: &mut Vec<u8>, key: &str, v: Member) {
    if out.last() != Some(&b'{') {
        out.push(b',');
    }
    crate::json::write_str(out, key);
    out.push(b':');
    match v {
        Member::Value(v) => crate::json::write(out, v),
        Member::Str(s) => crate::json::write_str(out, s),
        Member::Text(t) => out.extend_from_slice(t),
    }
}

/// Adds only a progress token (legacy eras: no per-request capabilities).
#[cfg(feature = "legacy")]
pub(crate) fn add_progress_token(params: &mut Map, token: &Value) {
    let entry = params.get_or_insert("_meta", Value::Object(Map::new()));
    if let Value::Object(m) = entry {
        m.insert(PROGRESS_TOKEN.into(), token.clone());
    }
}

/// The body field mirrored into `Mcp-Name`, for the methods that require it:
/// `params.name` for `tools/call` and `prompts/get`, `params.uri` for `resources/read`,
/// `params.taskId` for `tasks/get|update|cancel` (tasks extension "Routing Headers").
pub(crate) fn mcp_name<'a>(method: &str, params: Params<'a>) -> Option<&'a str> {
    let field = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => return None,
    };
    match params.name {
        Some(n) if field == "name" => Some(n),
        _ => params.map?.get(field).and_then(Value::as_str),
    }
}

/// The headers of a modern POST: content negotiation, protocol version, `Mcp-Method`,
/// `Mcp-Name` (base64-sentinel encoded when needed), then `extra` (e.g. `Mcp-Param-*`),
/// then the host's headers.
pub fn modern_post_headers(
    method: &str,
    params: Params,
    protocol_version: &str,
    extra: &[(String, String)],
    host: &[(String, String)],
) -> Vec<(String, String)> {
    let mut h = Vec::with_capacity(6 + extra.len() + host.len());
    h.push(("Content-Type".into(), "application/json".into()));
    h.push(("Accept".into(), ACCEPT_BOTH.into()));
    h.push(("MCP-Protocol-Version".into(), protocol_version.into()));
    h.push(("Mcp-Method".into(), encode_header_value(method)));
    if let Some(name) = mcp_name(method, params) {
        h.push(("Mcp-Name".into(), encode_header_value(name)));
    }
    h.extend(extra.iter().cloned());
    h.extend(host.iter().cloned());
    h
}

/// The headers of a legacy (2025 era) POST: no `Mcp-Method`/`Mcp-Name`; the protocol
/// version only after initialization; the session id once the server assigned one.
#[cfg(feature = "legacy")]
pub(crate) fn legacy_post_headers(
    protocol_version: Option<&str>,
    session_id: Option<&str>,
    host: &[(String, String)],
) -> Vec<(String, String)> {
    let mut h = Vec::with_capacity(4 + host.len());
    h.push(("Content-Type".into(), "application/json".into()));
    h.push(("Accept".into(), ACCEPT_BOTH.into()));
    if let Some(v) = protocol_version {
        h.push(("MCP-Protocol-Version".into(), v.into()));
    }
    if let Some(s) = session_id {
        h.push(("Mcp-Session-Id".into(), s.into()));
    }
    h.extend(host.iter().cloned());
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[cfg(feature = "legacy")]
    #[test]
    fn params_as_one_map_parse_the_raw_member() {
        let map = obj(json!({"name":"t"}));
        let m = Params {
            map: Some(&map),
            name: None,
            raw: Some(("arguments", br#"{"a":[1,"x"]}"#)),
        }
        .to_map();
        assert_eq!(
            Value::Object(m),
            json!({"name":"t","arguments":{"a":[1,"x"]}})
        );
        assert_eq!(Params::of(&map).to_map(), map);
    }

    fn obj(v: Value) -> Map {
        v.as_object().cloned().unwrap()
    }

    /// A tool call's params as the engine keeps them (the name and the arguments outside
    /// the map, which holds at most a host `_meta`, or `inputResponses` in a later round)
    /// are written byte for byte as the same members all in one map were, in the same
    /// order, and give the same `Mcp-Name`.
    #[test]
    fn a_name_outside_the_map_is_written_as_its_first_member() {
        let token = json!(3);
        let meta = meta_text(Some("debug"), Some(&token));
        let args: &[u8] = br#"{"a":[1,"x"]}"#;
        for rest in [
            json!({}),
            json!({"_meta":{"custom/x":1}}),
            json!({"inputResponses":{"k":{"action":"accept"}},"_meta":{"io.modelcontextprotocol/logLevel":"x"}}),
        ] {
            for name in ["echo", "n\u{e9}\"\u{1}"] {
                let map = obj(rest.clone());
                let mut whole = obj(json!({ "name": name }));
                whole.extend(map.clone());
                let (mut a, mut b) = (Vec::new(), Vec::new());
                let outside = Params {
                    map: Some(&map),
                    name: Some(name),
                    raw: Some(("arguments", args)),
                };
                let inside = Params {
                    map: Some(&whole),
                    name: None,
                    raw: Some(("arguments", args)),
                };
                write_modern_params(&mut a, outside, &meta);
                write_modern_params(&mut b, inside, &meta);
                assert_eq!(String::from_utf8(a).unwrap(), String::from_utf8(b).unwrap());
                assert_eq!(mcp_name("tools/call", outside), Some(name));
                assert_eq!(mcp_name("tools/call", inside), Some(name));
                // Only `name` is taken from outside the map.
                assert_eq!(mcp_name("resources/read", outside), None);
                #[cfg(feature = "legacy")]
                {
                    let one = serde_json::to_string(&outside.to_map()).unwrap();
                    assert_eq!(one, serde_json::to_string(&inside.to_map()).unwrap());
                    assert!(one.starts_with(r#"{"name":"#), "{one}");
                }
            }
        }
    }

    #[test]
    fn meta_is_added_and_host_entries_kept() {
        let mut p = obj(
            json!({"name":"t","_meta":{"custom/x":1,"io.modelcontextprotocol/protocolVersion":"bogus"}}),
        );
        let caps = json!({"elicitation":{"form":{}}});
        let info = json!({"name":"c","version":"1"});
        add_modern_meta(
            &mut p,
            &RequestMeta {
                protocol_version: "2026-07-28",
                capabilities: &caps,
                client_info: &info,
                log_level: Some("debug"),
                progress_token: Some(&json!("p-1")),
            },
        );
        let m = &p["_meta"];
        assert_eq!(m["custom/x"], 1);
        assert_eq!(m[META_PROTOCOL_VERSION], "2026-07-28");
        assert_eq!(m[META_CLIENT_CAPABILITIES], caps);
        assert_eq!(m[META_CLIENT_INFO], info);
        assert_eq!(m[META_LOG_LEVEL], "debug");
        assert_eq!(m[PROGRESS_TOKEN], "p-1");
    }

    /// A request's `_meta` texts for client `c` 1, at 2026-07-28.
    fn meta_text<'a>(
        log_level: Option<&'a str>,
        progress_token: Option<&'a Value>,
    ) -> RequestMetaText<'a> {
        RequestMetaText {
            protocol_version: "2026-07-28",
            capabilities: "{}",
            client_info: r#"{"name":"c","version":"1"}"#,
            log_level,
            progress_token,
        }
    }

    /// A tool call's params without a map (`Params::tool`) are written as with an empty one.
    #[test]
    fn a_tool_calls_params_need_no_map() {
        let meta = meta_text(None, None);
        let args = br#"{"a":[1,"x"]}"#;
        let empty = Map::new();
        let (mut without, mut with) = (Vec::new(), Vec::new());
        write_modern_params(&mut without, Params::tool("echo", Some(args)), &meta);
        write_modern_params(
            &mut with,
            Params {
                map: Some(&empty),
                name: Some("echo"),
                raw: Some(("arguments", args)),
            },
            &meta,
        );
        assert_eq!(without, with);
        assert_eq!(
            serde_json::from_slice::<Value>(&without).unwrap(),
            json!({"name":"echo","arguments":{"a":[1,"x"]},"_meta":{
                "io.modelcontextprotocol/protocolVersion":"2026-07-28",
                "io.modelcontextprotocol/clientCapabilities":{},
                "io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}})
        );
        let mut bare = Vec::new();
        write_modern_params(&mut bare, Params::tool("echo", None), &meta);
        assert!(bare.starts_with(br#"{"name":"echo","_meta":{"#));
        assert_eq!(
            mcp_name("tools/call", Params::tool("echo", None)),
            Some("echo")
        );
        assert_eq!(mcp_name("resources/read", Params::tool("echo", None)), None);
        #[cfg(feature = "legacy")]
        assert_eq!(
            Value::Object(Params::tool("echo", Some(args)).to_map()),
            json!({"name":"echo","arguments":{"a":[1,"x"]}})
        );
    }

    /// The text writer gives byte for byte what cloning the params, merging `_meta` into
    /// them and serializing gave.
    #[test]
    fn modern_params_text_is_add_modern_meta_serialized() {
        let caps = json!({"elicitation":{"form":{}},"extensions":{"a/b":{"x":[1,"\u{2028}"]}}});
        let info = json!({"name":"c \"q\"","version":"1"});
        let (caps_text, info_text) = (caps.to_string(), info.to_string());
        let params = [
            json!({}),
            json!({"name":"t","arguments":{"z":1,"a":[{"k":"v"}]}}),
            json!({"_meta":{"custom/x":1}}),
            json!({"_meta":{"custom/x":1},"name":"t","uri":"u","last":true}),
            json!({"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"bogus","x":2,"progressToken":"mine","io.modelcontextprotocol/logLevel":"info"},"b":1,"c":2}),
            json!({"name":"t","c":2,"_meta":null}),
            json!({"_meta":5,"a":1}),
            json!({"a":1,"_meta":{}}),
            json!({"\u{0}\"key\"\n":"\u{1f}","é":"\u{2028}","_meta":{"io.modelcontextprotocol/clientInfo":0,"io.modelcontextprotocol/clientCapabilities":0}}),
        ];
        let token = json!("p-7");
        let num_token = json!(42);
        for p in &params {
            for (level, tok) in [
                (None, None),
                (Some("debug"), None),
                (None, Some(&token)),
                (Some("error"), Some(&num_token)),
            ] {
                let p = obj(p.clone());
                let mut reference = p.clone();
                add_modern_meta(
                    &mut reference,
                    &RequestMeta {
                        protocol_version: "2026-07-28",
                        capabilities: &caps,
                        client_info: &info,
                        log_level: level,
                        progress_token: tok,
                    },
                );
                let text = modern_params_text(
                    &p,
                    &RequestMetaText {
                        protocol_version: "2026-07-28",
                        capabilities: &caps_text,
                        client_info: &info_text,
                        log_level: level,
                        progress_token: tok,
                    },
                );
                assert_eq!(text, serde_json::to_string(&reference).unwrap(), "{p:?}");
            }
        }
    }

    #[test]
    fn mcp_name_per_method() {
        let p = obj(json!({"name":"n","uri":"u","taskId":"t"}));
        assert_eq!(mcp_name("tools/call", Params::of(&p)), Some("n"));
        assert_eq!(mcp_name("prompts/get", Params::of(&p)), Some("n"));
        assert_eq!(mcp_name("resources/read", Params::of(&p)), Some("u"));
        assert_eq!(mcp_name("tasks/update", Params::of(&p)), Some("t"));
        assert_eq!(mcp_name("tools/list", Params::of(&p)), None);
        assert_eq!(mcp_name("server/discover", Params::of(&p)), None);
    }

    #[test]
    fn modern_headers_in_order() {
        let p = obj(json!({"name":"get_weather"}));
        let h = modern_post_headers(
            "tools/call",
            Params::of(&p),
            "2026-07-28",
            &[("Mcp-Param-Region".into(), "us-west1".into())],
            &[("Authorization".into(), "Bearer x".into())],
        );
        let names: Vec<_> = h.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "Content-Type",
                "Accept",
                "MCP-Protocol-Version",
                "Mcp-Method",
                "Mcp-Name",
                "Mcp-Param-Region",
                "Authorization"
            ]
        );
        assert_eq!(h[4].1, "get_weather");
    }
}
