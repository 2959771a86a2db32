//! A plain tool call's request written from a template (issue 14, target 1; BENCHMARKS.md,
//! the thirty-fifth session).
//!
//! The calls of one tool differ only in their JSON-RPC id and their arguments: the method,
//! the tool's name, the `_meta` every 2026-07-28 request carries (spec `basic/index.mdx`,
//! "_meta") and the headers (`Mcp-Method`, `Mcp-Name`: spec
//! `basic/transports/streamable-http.mdx`, "Request Metadata") are the same. Framing them
//! anew for each call wrote a dozen JSON strings through serde_json and checked two header
//! values for encoding every time. A template is framed once per tool by the same code
//! ([`write_modern_params`], [`modern_post_headers`]), and a call copies its pieces around
//! the id and the arguments: byte for byte the request the general framing writes (the
//! tests below compare the two).

use crate::http::request::{
    member, modern_post_headers, write_modern_params, Member, Params, RequestMetaText,
};

/// What comes before a request's id (`protocol::jsonrpc::request_head` writes the same).
const HEAD: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":";

/// The request of a plain `tools/call` of one tool, framed once: what the body holds around
/// the id and the arguments, and the headers. It holds what it was framed for, and is used
/// only while they are what a call would be framed with ([`ToolCallTemplate::fits`]).
#[derive(Debug)]
pub(crate) struct ToolCallTemplate {
    name: String,
    version: String,
    log_level: Option<String>,
    host_headers: Vec<(String, String)>,
    /// After the id: the method, and the params up to the end of the `name` member.
    mid: Vec<u8>,
    /// After the arguments: the `_meta` member, the end of the params and of the request.
    tail: Vec<u8>,
    headers: Vec<(String, String)>,
}

/// Where a plain tool call's `arguments` member starts (after `name`, before `_meta`).
const ARGUMENTS: &[u8] = b",\"arguments\":";

impl ToolCallTemplate {
    /// Frames tool `name`'s calls with `meta` (no progress token: a plain call has none) and
    /// the host's headers `host`. Out of line: once per tool, off the calls' path.
    #[inline(never)]
    pub(crate) fn new(
        name: &str,
        meta: &RequestMetaText,
        host: &[(String, String)],
    ) -> ToolCallTemplate {
        let mut params = Vec::with_capacity(256);
        write_modern_params(&mut params, Params::tool(name, None), meta);
        // The params without arguments are `{"name":…` and then `,"_meta":{…}}`; the
        // arguments go between the two (`write_modern_params` writes a raw member after
        // the named ones, before `_meta`).
        let mut named = vec![b'{'];
        member(&mut named, "name", Member::Str(name));
        let split = named.len().min(params.len());
        let mut mid = b",\"method\":\"tools/call\",\"params\":".to_vec();
        mid.extend_from_slice(&params[..split]);
        let mut tail = params[split..].to_vec();
        // `request_end` with no request state.
        tail.push(b'}');
        ToolCallTemplate {
            name: name.to_string(),
            version: meta.protocol_version.to_string(),
            log_level: meta.log_level.map(str::to_string),
            host_headers: host.to_vec(),
            mid,
            tail,
            headers: modern_post_headers(
                "tools/call",
                Params::tool(name, None),
                meta.protocol_version,
                &[],
                host,
            ),
        }
    }

    /// Whether this is tool `name`'s template and what it was framed with is still what
    /// its calls are framed with.
    pub(crate) fn fits(
        &self,
        name: &str,
        version: &str,
        log_level: Option<&str>,
        host: &[(String, String)],
    ) -> bool {
        self.name == name
            && self.version == version
            && self.log_level.as_deref() == log_level
            && self.host_headers == host
    }

    /// The body of the call with JSON-RPC id `id` and `args` (JSON text), if any.
    pub(crate) fn body(&self, id: i64, args: Option<&[u8]>) -> Vec<u8> {
        let mut n = itoa::Buffer::new();
        let id = n.format(id).as_bytes();
        let args_len = args.map_or(0, |a| ARGUMENTS.len() + a.len());
        let mut out =
            Vec::with_capacity(HEAD.len() + id.len() + self.mid.len() + args_len + self.tail.len());
        out.extend_from_slice(HEAD);
        out.extend_from_slice(id);
        out.extend_from_slice(&self.mid);
        if let Some(a) = args {
            out.extend_from_slice(ARGUMENTS);
            out.extend_from_slice(a);
        }
        out.extend_from_slice(&self.tail);
        out
    }

    /// The call's headers.
    pub(crate) fn headers(&self) -> Vec<(String, String)> {
        self.headers.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;
    use crate::protocol::jsonrpc::{request_end, request_head, RequestId};

    /// What the general framing writes for the same call (`Shared::request`'s modern arm).
    fn framed(
        id: i64,
        name: &str,
        args: Option<&[u8]>,
        meta: &RequestMetaText,
        host: &[(String, String)],
    ) -> (Vec<u8>, Vec<(String, String)>) {
        let mut body = Vec::new();
        request_head(&mut body, &RequestId::Number(id), "tools/call");
        write_modern_params(&mut body, Params::tool(name, args), meta);
        request_end(&mut body, None);
        let h = modern_post_headers(
            "tools/call",
            Params::tool(name, args),
            meta.protocol_version,
            &[],
            host,
        );
        (body, h)
    }

    /// Byte for byte the general framing's request, for names that need escaping or
    /// header encoding, with and without arguments, a log level and host headers, and
    /// ids of every width.
    #[test]
    fn a_call_from_its_template_is_the_general_framing_byte_for_byte() {
        let caps = json!({"elicitation":{"form":{}},"sampling":{}}).to_string();
        let info = json!({"name":"c\"\u{e9}","version":"1"}).to_string();
        let args: [Option<&[u8]>; 4] = [
            None,
            Some(b"{}"),
            Some(br#"{"a":[1,"x\u0000"],"b":{"c":null}}"#),
            Some("{\"k\":\"\u{1F600}\"}".as_bytes()),
        ];
        let hosts = [
            vec![],
            vec![("X-Trace".to_string(), "1".to_string())],
            vec![
                ("Authorization".to_string(), "Bearer t".to_string()),
                ("X-A".to_string(), "b".to_string()),
            ],
        ];
        for name in [
            "echo",
            "",
            "n\u{e9}\"\\\u{1}\n",
            " padded ",
            "=?base64?x?=",
            "a/b.c-d_e",
        ] {
            for level in [None, Some("debug")] {
                for host in &hosts {
                    let meta = RequestMetaText {
                        protocol_version: "2026-07-28",
                        capabilities: &caps,
                        client_info: &info,
                        log_level: level,
                        progress_token: None,
                    };
                    let t = ToolCallTemplate::new(name, &meta, host);
                    assert!(t.fits(name, "2026-07-28", level, host));
                    for id in [0, 7, 10, 123_456_789, i64::MAX] {
                        for a in args {
                            let (body, headers) = framed(id, name, a, &meta, host);
                            assert_eq!(
                                String::from_utf8_lossy(&t.body(id, a)),
                                String::from_utf8_lossy(&body),
                                "{name:?} {level:?} {host:?} {id}"
                            );
                            assert_eq!(t.headers(), headers);
                        }
                    }
                }
            }
        }
    }

    /// A template fits only the tool, version, log level and host headers it was framed
    /// with.
    #[test]
    fn a_template_fits_only_what_it_was_framed_with() {
        let meta = RequestMetaText {
            protocol_version: "2026-07-28",
            capabilities: "{}",
            client_info: "{}",
            log_level: Some("info"),
            progress_token: None,
        };
        let host = vec![("X-A".to_string(), "1".to_string())];
        let t = ToolCallTemplate::new("echo", &meta, &host);
        assert!(t.fits("echo", "2026-07-28", Some("info"), &host));
        assert!(!t.fits("echo2", "2026-07-28", Some("info"), &host));
        assert!(!t.fits("ech", "2026-07-28", Some("info"), &host));
        assert!(!t.fits("echo", "2026-07-29", Some("info"), &host));
        assert!(!t.fits("echo", "2026-07-28", None, &host));
        assert!(!t.fits("echo", "2026-07-28", Some("debug"), &host));
        assert!(!t.fits("echo", "2026-07-28", Some("info"), &[]));
        let other = vec![("X-A".to_string(), "2".to_string())];
        assert!(!t.fits("echo", "2026-07-28", Some("info"), &other));
    }
}
