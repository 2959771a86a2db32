//! Response classification: status × content type × body (spec
//! `basic/transports/streamable-http.mdx` "Sending Messages" 6: a request is answered
//! with `application/json` or `text/event-stream`, and the client must support both).

use crate::error::{sanitize, Error};

/// The response headers the engine reads, lower-case, in the order
/// [`ResponseHead::read`](crate::engine::core::ResponseHead::read) takes their values: the
/// shell reads these and no other. The reference for the shell's fetch runner
/// (`src/web/js/fetch.js`, `Fetcher.run`), which reads them in JS and passes them in this order.
#[cfg(test)]
pub(crate) const RESPONSE_HEADERS: [&str; 5] = [
    "content-type",
    // Legacy era (2025-11-25 "Session Management").
    "mcp-session-id",
    "retry-after",
    // 401 and 403 answers (OAuth).
    "www-authenticate",
    // DPoP (RFC 9449 §8, §9): a server's nonce, read with its `use_dpop_nonce` error.
    "dpop-nonce",
];

/// Whether the shell reads header `name` of a response with `status`. `WWW-Authenticate`
/// only on 401 and 403, the statuses whose challenge the engine uses (RFC 9110 §11.6.1;
/// RFC 6750 §3.1 `insufficient_scope`): each read is a call into the host's `Headers`,
/// on every response. `DPoP-Nonce` only on refusals: 400 (the token endpoint's
/// `use_dpop_nonce`, RFC 9449 §8), 401 and 403 (the resource server's, §9); a new nonce on
/// a success (§8.2) is learnt at the next refusal instead. (The fetch runner does the same
/// in JS.)
#[cfg(test)]
pub(crate) fn reads_header(name: &str, status: u16) -> bool {
    match name {
        "www-authenticate" => matches!(status, 401 | 403),
        "dpop-nonce" => matches!(status, 400 | 401 | 403),
        _ => true,
    }
}

/// How a response body is to be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum BodyKind {
    /// `application/json`: one JSON-RPC message.
    Json,
    /// `text/event-stream`: JSON-RPC messages in SSE `message` events.
    Sse,
    /// Anything else (HTML error pages, `text/plain`, none).
    Other(String),
}

/// Classifies a `Content-Type` header value (parameters such as `charset` are ignored;
/// `application/*+json` counts as JSON).
pub(crate) fn classify_content_type(ct: Option<&str>) -> BodyKind {
    let Some(ct) = ct else {
        return BodyKind::Other(String::new());
    };
    let essence = crate::text::split_once(ct, ";")
        .map_or(ct, |(e, _)| e)
        .trim();
    // Compared without a lowercase copy: the common answers allocate nothing per response.
    let b = essence.as_bytes();
    let starts = |p: &str| {
        b.get(..p.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(p.as_bytes()))
    };
    let ends = |p: &str| {
        b.len()
            .checked_sub(p.len())
            .is_some_and(|at| b[at..].eq_ignore_ascii_case(p.as_bytes()))
    };
    if essence.eq_ignore_ascii_case("application/json") || (starts("application/") && ends("+json"))
    {
        BodyKind::Json
    } else if essence.eq_ignore_ascii_case("text/event-stream") {
        BodyKind::Sse
    } else {
        BodyKind::Other(essence.to_ascii_lowercase())
    }
}

/// True for a 2xx status.
pub(crate) fn is_success(status: u16) -> bool {
    (200..300).contains(&status)
}

/// The error for an HTTP failure whose body is not a JSON-RPC message: an `HttpError`
/// with the status and the start of the body (sanitized) for diagnosis.
pub(crate) fn http_error(status: u16, content_type: &str, body: &[u8]) -> Error {
    let snippet = crate::text::lossy(body.get(..body.len().min(200)).unwrap_or_default());
    let mut msg = format!("HTTP {status}");
    if !content_type.is_empty() {
        msg.push_str(&format!(" ({})", sanitize(content_type, 60)));
    }
    let snippet = snippet.trim();
    if !snippet.is_empty() {
        msg.push_str(": ");
        msg.push_str(&sanitize(snippet, 200));
    }
    Error::http(status, msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_headers_read_fill_the_engines_head() {
        use crate::engine::core::ResponseHead;
        let v = RESPONSE_HEADERS.map(|n| Some(format!("v:{n}")));
        let h = ResponseHead::read(401, &v);
        assert_eq!(h.status, 401);
        assert_eq!(h.content_type, Some("v:content-type"));
        assert_eq!(h.session_id, Some("v:mcp-session-id"));
        assert_eq!(h.retry_after, Some("v:retry-after"));
        assert_eq!(h.www_authenticate, Some("v:www-authenticate"));
        assert_eq!(h.dpop_nonce, Some("v:dpop-nonce"));
        assert!(RESPONSE_HEADERS
            .iter()
            .all(|n| *n == n.to_ascii_lowercase()));
    }

    #[test]
    fn the_challenge_is_read_only_where_it_counts() {
        for status in [200, 202, 400, 404, 500] {
            assert!(!reads_header("www-authenticate", status), "{status}");
            assert!(reads_header("content-type", status));
        }
        for status in [401, 403] {
            assert!(RESPONSE_HEADERS.iter().all(|n| reads_header(n, status)));
        }
        assert!(reads_header("dpop-nonce", 400));
        assert!(!reads_header("dpop-nonce", 200) && !reads_header("dpop-nonce", 500));
    }

    #[test]
    fn content_types() {
        assert_eq!(
            classify_content_type(Some("application/json")),
            BodyKind::Json
        );
        assert_eq!(
            classify_content_type(Some("Application/JSON; charset=utf-8")),
            BodyKind::Json
        );
        assert_eq!(
            classify_content_type(Some("application/vnd.x+json")),
            BodyKind::Json
        );
        assert_eq!(
            classify_content_type(Some("text/event-stream")),
            BodyKind::Sse
        );
        assert_eq!(
            classify_content_type(Some("text/html")),
            BodyKind::Other("text/html".into())
        );
        assert_eq!(classify_content_type(None), BodyKind::Other(String::new()));
        // Case is ignored without a lowercase copy; what is not JSON or SSE is named in
        // lowercase, as before.
        let cases = [
            (" APPLICATION/Problem+JSON ;q=1", BodyKind::Json),
            ("Text/Event-Stream;charset=utf-8", BodyKind::Sse),
            (
                "application/json5",
                BodyKind::Other("application/json5".into()),
            ),
            ("+json", BodyKind::Other("+json".into())),
            ("application/", BodyKind::Other("application/".into())),
            ("Text/HTML", BodyKind::Other("text/html".into())),
            ("", BodyKind::Other(String::new())),
            ("é+JSON", BodyKind::Other("é+json".into())),
        ];
        for (ct, kind) in cases {
            assert_eq!(classify_content_type(Some(ct)), kind, "{ct:?}");
        }
    }

    /// The classification as it was written before it stopped making a lowercase copy
    /// (the reference for the differential test below).
    fn classify_by_lowercase_copy(ct: &str) -> BodyKind {
        let essence = ct
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if essence == "application/json"
            || (essence.starts_with("application/") && essence.ends_with("+json"))
        {
            BodyKind::Json
        } else if essence == "text/event-stream" {
            BodyKind::Sse
        } else {
            BodyKind::Other(essence)
        }
    }

    #[test]
    fn content_types_classify_as_by_a_lowercase_copy() {
        // Every sequence of up to four pieces (some in other cases): prefixes, suffixes,
        // separators, spaces, non-ASCII (`İ` lowercases to more bytes outside ASCII only).
        let pieces = [
            "application/",
            "APPLICATION/",
            "json",
            "JSON",
            "+json",
            "+JsOn",
            "text/",
            "event-stream",
            "Event-Stream",
            ";",
            " ",
            "\t",
            "charset=utf-8",
            "é",
            "İ",
            "+",
            "/",
            "x",
        ];
        let mut level = vec![String::new()];
        let mut n = 0;
        for k in 0..=4 {
            for s in &level {
                assert_eq!(
                    classify_content_type(Some(s)),
                    classify_by_lowercase_copy(s),
                    "{s:?}"
                );
                n += 1;
            }
            if k == 4 {
                break;
            }
            level = level
                .iter()
                .flat_map(|s| pieces.iter().map(move |p| format!("{s}{p}")))
                .collect();
        }
        assert_eq!(n, (0..=4).map(|k| pieces.len().pow(k)).sum::<usize>());
    }

    #[test]
    fn http_errors_carry_status_and_a_clean_snippet() {
        let e = http_error(502, "text/html", b"<html>\n<h1>Bad gateway</h1></html>");
        assert_eq!(e.status, Some(502));
        assert!(e.message.contains("HTTP 502 (text/html)"));
        assert!(!e.message.contains('\n'));
    }
}
