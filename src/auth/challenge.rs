//! `WWW-Authenticate` (RFC 9110 §11.6.1, RFC 6750 §3): the challenges of a 401 or 403.
//!
//! ```text
//! WWW-Authenticate = 1#challenge
//! challenge        = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
//! auth-param       = token BWS "=" BWS ( token / quoted-string )
//! ```
//!
//! Several challenges may share one header, separated by commas like their parameters:
//! a token not followed by `=` starts a new challenge. The parser is total (any input
//! yields some challenges, possibly none) and bounded (8 KiB of header, 32 parameters
//! per challenge, 4 KiB per value).

use crate::error::sanitize;
use crate::json::{Map, Value};

/// One challenge: its scheme and parameters (names lower-cased, values unquoted).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Challenge {
    pub scheme: String,
    pub params: Vec<(String, String)>,
}

impl Challenge {
    pub(crate) fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What the MCP client uses of a `Bearer` challenge.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Bearer {
    /// RFC 9728 §5.1: where the Protected Resource Metadata is.
    pub resource_metadata: Option<String>,
    /// RFC 6750 §3: the scopes needed, space-separated.
    pub scope: Option<String>,
    /// RFC 6750 §3.1: `invalid_token`, `insufficient_scope`, ...
    pub error: Option<String>,
    pub error_description: Option<String>,
}

impl Bearer {
    pub(crate) fn insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

const MAX_HEADER: usize = 8192;
const MAX_PARAMS: usize = 32;
const MAX_VALUE: usize = 4096;

fn is_tchar(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c)
}

struct Scan<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scan<'_> {
    fn skip_ws(&mut self) {
        while self
            .b
            .get(self.i)
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
        {
            self.i += 1;
        }
    }
    fn skip_ws_commas(&mut self) {
        while self
            .b
            .get(self.i)
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n' | b','))
        {
            self.i += 1;
        }
    }
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
    fn token(&mut self) -> String {
        let start = self.i;
        while self.peek().is_some_and(is_tchar) {
            self.i += 1;
        }
        crate::text::lossy(self.b.get(start..self.i).unwrap_or_default())
    }
    /// A quoted-string (the opening quote is current); backslash escapes any octet.
    fn quoted(&mut self) -> String {
        self.i += 1;
        let mut out = Vec::new();
        while let Some(c) = self.peek() {
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    if let Some(n) = self.peek() {
                        out.push(n);
                        self.i += 1;
                    }
                }
                _ => out.push(c),
            }
        }
        out.truncate(MAX_VALUE);
        crate::text::lossy(&out)
    }
    /// Skips whatever does not fit the grammar up to the next comma.
    fn skip_junk(&mut self) {
        while self.peek().is_some_and(|c| c != b',') {
            self.i += 1;
        }
    }
}

/// Every challenge of a `WWW-Authenticate` value.
pub(crate) fn parse(header: &str) -> Vec<Challenge> {
    let cut = header.len().min(MAX_HEADER);
    let mut s = Scan {
        b: header.as_bytes().get(..cut).unwrap_or_default(),
        i: 0,
    };
    let mut out: Vec<Challenge> = Vec::new();
    loop {
        s.skip_ws_commas();
        if s.peek().is_none() {
            break;
        }
        let name = s.token();
        if name.is_empty() {
            s.i += 1;
            s.skip_junk();
            continue;
        }
        s.skip_ws();
        if s.peek() == Some(b'=') {
            // name=value: a parameter of the current challenge, or token68 (`abc==`).
            s.i += 1;
            if s.peek() == Some(b'=') || s.peek().is_none() || s.peek() == Some(b',') {
                while s.peek() == Some(b'=') {
                    s.i += 1;
                }
                continue; // token68: not used by Bearer
            }
            s.skip_ws();
            let value = if s.peek() == Some(b'"') {
                s.quoted()
            } else {
                let mut v = s.token();
                v.truncate(MAX_VALUE);
                v
            };
            if let Some(c) = out.last_mut() {
                if c.params.len() < MAX_PARAMS {
                    c.params.push((name.to_ascii_lowercase(), value));
                }
            }
            s.skip_ws();
            if s.peek().is_some_and(|c| c != b',') {
                s.skip_junk();
            }
        } else {
            // A token not followed by '=': a new challenge's scheme.
            out.push(Challenge {
                scheme: name,
                params: Vec::new(),
            });
        }
    }
    out
}

/// The `Bearer` challenge of a header and its `DPoP` one (RFC 9449 §7.1: the same
/// parameters), the one of the scheme the client's token uses first (`dpop`): a server
/// that accepts both may send both, and its `error` (a step-up's `insufficient_scope`) is
/// on the challenge of the scheme the request used.
pub(crate) fn bearer(header: &str, dpop: bool) -> Option<Bearer> {
    let all = parse(header);
    let (first, then) = if dpop {
        ("dpop", "bearer")
    } else {
        ("bearer", "dpop")
    };
    let c = all
        .iter()
        .find(|c| c.scheme.eq_ignore_ascii_case(first))
        .or_else(|| all.iter().find(|c| c.scheme.eq_ignore_ascii_case(then)))?;
    let get = |n: &str| c.param(n).map(str::to_string);
    Some(Bearer {
        resource_metadata: get("resource_metadata"),
        scope: get("scope"),
        error: get("error"),
        error_description: get("error_description"),
    })
}

/// True when a `DPoP` challenge asks for a nonce (RFC 9449 §9: `error="use_dpop_nonce"`).
pub(crate) fn use_dpop_nonce(header: &str) -> bool {
    parse(header).iter().any(|c| {
        c.scheme.eq_ignore_ascii_case("dpop") && c.param("error") == Some("use_dpop_nonce")
    })
}

/// The challenges as error data for the host (`HttpError.data.wwwAuthenticate`): the first
/// `Bearer` challenge (else the first one) as `{ scheme, params }`, values sanitized.
pub(crate) fn to_data(header: &str) -> Option<Value> {
    let all = parse(header);
    let c = all
        .iter()
        .find(|c| c.scheme.eq_ignore_ascii_case("bearer"))
        .or(all.first())?;
    let mut params = Map::new();
    for (n, v) in &c.params {
        params.insert(sanitize(n, 64), Value::String(sanitize(v, 2000)));
    }
    let mut m = Map::new();
    m.insert("scheme".into(), Value::String(sanitize(&c.scheme, 64)));
    m.insert("params".into(), Value::Object(params));
    Some(Value::Object(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sdk_style_bearer() {
        let h = r#"Bearer error="invalid_token", error_description="Missing Authorization header", resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource/mcp""#;
        let b = bearer(h, false).unwrap();
        assert_eq!(b.error.as_deref(), Some("invalid_token"));
        assert_eq!(
            b.resource_metadata.as_deref(),
            Some("http://localhost:3000/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(b.scope, None);
        assert!(!b.insufficient_scope());
    }

    #[test]
    fn spec_example_with_folding_and_scope() {
        let h = "Bearer error=\"insufficient_scope\",\n   scope=\"files:read files:write\",\tresource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource\", error_description=\"a \\\"quoted\\\" word\"";
        let b = bearer(h, false).unwrap();
        assert!(b.insufficient_scope());
        assert_eq!(b.scope.as_deref(), Some("files:read files:write"));
        assert_eq!(b.error_description.as_deref(), Some("a \"quoted\" word"));
    }

    #[test]
    fn several_challenges_and_token_values() {
        let h = r#"Basic realm="x", Newauth abc==, BEARER Scope=read  , realm=r"#;
        let all = parse(h);
        assert_eq!(all.len(), 3);
        assert_eq!(all[0].param("realm"), Some("x"));
        assert_eq!(all[1].scheme, "Newauth");
        assert!(all[1].params.is_empty());
        let b = bearer(h, false).unwrap();
        assert_eq!(b.scope.as_deref(), Some("read"));
        assert_eq!(all[2].param("realm"), Some("r"));
    }

    #[test]
    fn garbage_never_panics() {
        for h in [
            "",
            ",,,",
            "=",
            "Bearer =",
            "Bearer scope=\"unterminated",
            "Bearer scope=\"x\\",
            "\u{1}\u{ff}é Bearer a=b",
            "Bearer a=b c d=e",
            "Bearer ===,,=",
        ] {
            let _ = parse(h);
            let _ = bearer(h, false);
            let _ = to_data(h);
        }
        let long = format!("Bearer scope=\"{}\"", "a".repeat(100_000));
        assert!(
            bearer(&long, false)
                .unwrap()
                .scope
                .unwrap_or_default()
                .len()
                <= MAX_VALUE
        );
        assert!(bearer("Basic realm=x", false).is_none());
    }

    /// Every string of up to 6 characters over the grammar's delimiters: no panic, and
    /// parameters only ever attach to a challenge.
    #[test]
    fn exhaustive_short_inputs() {
        let alphabet = ['B', 'a', '=', '"', '\\', ',', ' ', 'é'];
        let mut inputs = vec![String::new()];
        for _ in 0..6 {
            let mut next = Vec::new();
            for s in &inputs {
                for c in alphabet {
                    next.push(format!("{s}{c}"));
                }
            }
            for s in &next {
                for c in parse(s) {
                    assert!(!c.scheme.is_empty());
                }
                let _ = to_data(s);
                let _ = crate::auth::url::query_params(&format!("x?{s}"));
            }
            inputs = next;
        }
    }

    #[test]
    fn data_for_the_host_is_sanitized() {
        let d = to_data("Bearer error=\"bad\\\u{1b}[31m\", scope=s").unwrap();
        assert_eq!(d["scheme"], "Bearer");
        assert_eq!(d["params"]["scope"], "s");
        assert_eq!(d["params"]["error"], "bad\\u{1b}[31m");
    }
}
