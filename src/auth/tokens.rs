//! Token responses (RFC 6749 §5.1, §5.2) and the token set kept per authorization server.

use crate::auth::metadata::{object, string};
use crate::error::json_text;
use crate::error::sanitize;
use crate::json::{Map, Value};
use crate::time::Millis;

/// The tokens of one authorization server for this client's resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tokens {
    pub access: String,
    pub refresh: Option<String>,
    /// When the access token expires (from `expires_in`), if the server said.
    pub expires_at: Option<Millis>,
    /// The scope granted (the response's `scope`, else what was asked).
    pub scope: Option<String>,
    /// `token_type` DPoP (RFC 9449 §5): bound to the client's DPoP key, sent with the
    /// `DPoP` scheme and a proof, never as `Bearer`.
    pub dpop: bool,
}

impl Tokens {
    pub(crate) fn expired(&self, now: Millis) -> bool {
        self.expires_at.is_some_and(|t| t <= now)
    }
}

/// A token endpoint answer: the tokens, or the server's error as a sanitized message.
pub(crate) fn parse_response(
    status: u16,
    body: &[u8],
    now: Millis,
    asked_scope: Option<&str>,
    dpop: bool,
) -> Result<Tokens, String> {
    let m = object(body);
    if !(200..300).contains(&status) {
        let detail = match &m {
            Ok(m) => oauth_error(m),
            Err(_) => String::new(),
        };
        return Err(if status == 0 {
            "the token endpoint could not be reached".to_string()
        } else {
            format!("the token endpoint answered HTTP {status}{detail}")
        });
    }
    let m = m.map_err(|e| format!("the token response is {e}"))?;
    let access = string(&m, "access_token").ok_or("the token response has no access_token")?;
    // The token_type asked for: DPoP when the request carried a proof (RFC 9449 §5: a
    // Bearer token then is a downgrade the client refuses), else Bearer (RFC 6750).
    let kind = m.get("token_type").and_then(Value::as_str).unwrap_or("");
    let asked = if dpop { "DPoP" } else { "Bearer" };
    if !kind.eq_ignore_ascii_case(asked) {
        return Err(format!(
            "the token endpoint issued a \"{}\" token_type where {asked} was asked for",
            sanitize(kind, 40)
        ));
    }
    if !token_ok(&access) {
        return Err("the access token is not a valid header value".into());
    }
    let expires_at = m
        .get("expires_in")
        .and_then(Value::as_f64)
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(|s| now.saturating_add((s.min(1e12) * 1000.0) as u64));
    Ok(Tokens {
        access,
        refresh: string(&m, "refresh_token"),
        expires_at,
        scope: string(&m, "scope").or_else(|| asked_scope.map(str::to_string)),
        dpop,
    })
}

/// Whether an access token can go in an `Authorization` header as it is: 1 to 16 KiB of
/// visible ASCII (RFC 6749 §A.12: `access-token = 1*VSCHAR`, less the space that would split
/// the header's token68, RFC 6750 §2.1 / RFC 9449 §7.1). Anything else (a control character,
/// a space, a non-ASCII character `fetch` refuses in a header) is not a token this client can
/// send. Fuzz bug 9 (RELIABILITY.md): a token response's `"atʑew"` reached the header.
pub(crate) fn token_ok(t: &str) -> bool {
    !t.is_empty() && t.len() <= 16 * 1024 && t.bytes().all(|b| (0x21..=0x7e).contains(&b))
}

/// `: error (description)` from an OAuth error object, sanitized.
pub(crate) fn oauth_error(m: &Map) -> String {
    let mut s = String::new();
    if let Some(e) = m.get("error").and_then(Value::as_str) {
        s.push_str(": ");
        s.push_str(&sanitize(e, 80));
        if let Some(d) = m.get("error_description").and_then(Value::as_str) {
            s.push_str(" (");
            s.push_str(&sanitize(d, 200));
            s.push(')');
        }
    }
    s
}

/// Tokens as stored (`storage.set`): JSON text.
pub(crate) fn to_record(t: &Tokens) -> String {
    let mut m = Map::new();
    m.insert("access_token".into(), t.access.clone().into());
    if let Some(r) = &t.refresh {
        m.insert("refresh_token".into(), r.clone().into());
    }
    if let Some(e) = t.expires_at {
        m.insert("expires_at".into(), e.into());
    }
    if let Some(s) = &t.scope {
        m.insert("scope".into(), s.clone().into());
    }
    if t.dpop {
        m.insert("token_type".into(), "DPoP".into());
    }
    json_text(&Value::Object(m))
}

/// Stored tokens, when well-formed.
pub(crate) fn from_record(text: &str) -> Option<Tokens> {
    let m = object(text.as_bytes()).ok()?;
    Some(Tokens {
        // A stored token that could not be sent (written by another version, or changed by
        // hand) is no token: the client signs in again.
        access: string(&m, "access_token").filter(|t| token_ok(t))?,
        refresh: string(&m, "refresh_token"),
        expires_at: m.get("expires_at").and_then(Value::as_u64),
        scope: string(&m, "scope"),
        dpop: string(&m, "token_type").is_some_and(|k| k == "DPoP"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn responses() {
        let t = parse_response(
            200,
            br#"{"access_token":"a","token_type":"bearer","expires_in":60,"refresh_token":"r"}"#,
            1000,
            Some("x"),
            false,
        )
        .unwrap();
        assert_eq!(t.expires_at, Some(61_000));
        assert_eq!(t.scope.as_deref(), Some("x"));
        assert!(!t.expired(60_999) && t.expired(61_000));
        assert_eq!(from_record(&to_record(&t)), Some(t));
        let e = parse_response(
            400,
            b"{\"error\":\"invalid_grant\",\"error_description\":\"bad\\ncode\"}",
            0,
            None,
            false,
        )
        .unwrap_err();
        assert_eq!(
            e,
            "the token endpoint answered HTTP 400: invalid_grant (bad\\u{a}code)"
        );
        assert!(parse_response(
            200,
            br#"{"access_token":"a","token_type":"DPoP"}"#,
            0,
            None,
            false
        )
        .unwrap_err()
        .contains("DPoP"));
        assert!(parse_response(200, br#"{"token_type":"Bearer"}"#, 0, None, false).is_err());
        assert!(parse_response(
            200,
            br#"{"access_token":"a b","token_type":"Bearer"}"#,
            0,
            None,
            false
        )
        .is_err());
        assert!(parse_response(200, b"nope", 0, None, false).is_err());
        // Fuzz bug 9: only visible ASCII reaches the Authorization header.
        for bad in ["at\u{291}ew", "a\u{e9}", "", "a\tb", "a\u{7f}b"] {
            let body = format!(
                r#"{{"access_token":{},"token_type":"Bearer"}}"#,
                crate::json::Value::from(bad)
            );
            assert!(
                parse_response(200, body.as_bytes(), 0, None, false).is_err(),
                "{bad:?} accepted"
            );
            let rec = format!(r#"{{"access_token":{}}}"#, crate::json::Value::from(bad));
            assert!(from_record(&rec).is_none(), "{bad:?} restored");
        }
        let ok = parse_response(
            200,
            br#"{"access_token":"eyJ.a-b_c~d+e/f=","token_type":"Bearer"}"#,
            0,
            None,
            false,
        );
        assert_eq!(ok.map(|t| t.access).as_deref(), Ok("eyJ.a-b_c~d+e/f="));
        assert!(parse_response(0, b"", 0, None, false).is_err());
        assert!(from_record("[]").is_none());
        let d = parse_response(
            200,
            br#"{"access_token":"a","token_type":"dpop"}"#,
            0,
            None,
            true,
        )
        .unwrap();
        assert!(d.dpop);
        assert_eq!(from_record(&to_record(&d)), Some(d));
        let e = parse_response(
            200,
            br#"{"access_token":"a","token_type":"Bearer"}"#,
            0,
            None,
            true,
        )
        .unwrap_err();
        assert!(e.contains("token_type where DPoP was asked for"), "{e}");
    }
}
