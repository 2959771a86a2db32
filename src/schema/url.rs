//! The URL of a URL-mode elicitation (client/elicitation "Safe URL Handling").
//!
//! A small, strict parser of `scheme://host[:port][/path][?query][#fragment]` instead of
//! the `url` crate, which costs ~68 KB gzip of wasm with its IDNA tables (`SIZE.md`).
//! Strict on purpose: this URL is shown to a person who decides whether to open it, so
//! anything a browser could read differently from how it is displayed is refused:
//! userinfo (`https://bank.example@evil.test/`), backslashes, spaces and control
//! characters, percent-escapes in the host, empty labels, malformed ports. Hosts with
//! non-ASCII characters or `xn--` labels are accepted but flagged (`is_punycode`), so the
//! host can warn (the spec's SHOULD on Punycode).

use crate::error::{sanitize, Error};

/// What the host needs to present a URL-mode elicitation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UrlInfo {
    /// The URL, with scheme and host lower-cased.
    pub url: String,
    /// `scheme://host[:port]`, the port only when it is not the scheme's default.
    pub origin: String,
    /// The host to highlight (lower-case; IPv6 in brackets).
    pub host: String,
    /// A label starts with `xn--` (any case), or the host has non-ASCII characters.
    pub is_punycode: bool,
}

fn bad(url: &str, why: &str) -> Error {
    Error::invalid_result(format!(
        "elicitation URL '{}' refused: {why}",
        sanitize(url, 200)
    ))
}

/// Checks the URL the server wants opened. Allowed: `https:`, or `http:` on `localhost`,
/// `127.0.0.1` or `[::1]`.
pub fn check_url(url: &str) -> Result<UrlInfo, Error> {
    if url.is_empty() || url.len() > 8192 {
        return Err(bad(url, "empty or longer than 8192 bytes"));
    }
    // Bidi controls and zero-width characters can make the shown URL differ from the real one.
    let hidden = |c: char| matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}');
    if url
        .chars()
        .any(|c| c.is_control() || c.is_whitespace() || c == '\\' || hidden(c))
    {
        return Err(bad(
            url,
            "spaces, control or invisible characters and backslashes are not allowed",
        ));
    }
    let (scheme, rest) = url.split_once(':').ok_or_else(|| bad(url, "no scheme"))?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "https" && scheme != "http" {
        return Err(bad(
            url,
            "only https: (or http: on localhost) may be opened",
        ));
    }
    let rest = rest
        .strip_prefix("//")
        .ok_or_else(|| bad(url, "expected '//' after the scheme"))?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at_checked(end).unwrap_or((rest, ""));
    if authority.contains('@') {
        return Err(bad(url, "user names or passwords in URLs are not allowed"));
    }
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (inner, after) = v6
            .split_once(']')
            .ok_or_else(|| bad(url, "unclosed '[' in the host"))?;
        let ok = inner.contains(':')
            && inner
                .chars()
                .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.');
        if !ok {
            return Err(bad(url, "malformed IPv6 address"));
        }
        (format!("[{}]", inner.to_ascii_lowercase()), after)
    } else {
        let cut = authority.find(':').unwrap_or(authority.len());
        let (h, p) = authority.split_at_checked(cut).unwrap_or((authority, ""));
        if h.is_empty()
            || h.split('.')
                .enumerate()
                .any(|(i, l)| l.is_empty() && i + 1 < h.split('.').count())
        {
            return Err(bad(url, "empty host or host label"));
        }
        if !h
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_') || !c.is_ascii())
        {
            return Err(bad(url, "the host has characters that are not allowed"));
        }
        // ASCII only: non-ASCII hosts are flagged, and Unicode case tables cost ~10 KB of wasm.
        (h.to_ascii_lowercase(), p)
    };
    let port = match port {
        "" => None,
        p => {
            let digits = p.strip_prefix(':').unwrap_or("x");
            let n: u32 = if !digits.is_empty()
                && digits.len() <= 5
                && digits.bytes().all(|b| b.is_ascii_digit())
            {
                digits.parse().unwrap_or(u32::MAX)
            } else {
                u32::MAX
            };
            if n > 65535 {
                return Err(bad(url, "malformed port"));
            }
            Some(n)
        }
    };
    if scheme == "http" && !matches!(host.as_str(), "localhost" | "127.0.0.1" | "[::1]") {
        return Err(bad(url, "http: is only allowed for localhost; use https:"));
    }
    let default_port = if scheme == "https" { 443 } else { 80 };
    let mut origin = format!("{scheme}://{host}");
    let mut authority = host.clone();
    if let Some(p) = port {
        authority.push_str(&format!(":{p}"));
        if p != default_port {
            origin.push_str(&format!(":{p}"));
        }
    }
    let is_punycode = !host.is_ascii() || host.split('.').any(|l| l.starts_with("xn--"));
    Ok(UrlInfo {
        url: format!("{scheme}://{authority}{tail}"),
        origin,
        host,
        is_punycode,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    #[test]
    fn accepted_urls() {
        let i = check_url("HTTPS://MCP.Example.com/ui/set_api_key?x=1#f").unwrap();
        assert_eq!(i.url, "https://mcp.example.com/ui/set_api_key?x=1#f");
        assert_eq!(i.origin, "https://mcp.example.com");
        assert_eq!(i.host, "mcp.example.com");
        assert!(!i.is_punycode);
        let i = check_url("https://example.com:8443").unwrap();
        assert_eq!(
            (i.origin.as_str(), i.url.as_str()),
            ("https://example.com:8443", "https://example.com:8443")
        );
        assert_eq!(
            check_url("https://example.com:443/").unwrap().origin,
            "https://example.com"
        );
        assert_eq!(
            check_url("http://localhost:3000/cb").unwrap().origin,
            "http://localhost:3000"
        );
        assert_eq!(check_url("http://127.0.0.1/").unwrap().host, "127.0.0.1");
        assert_eq!(check_url("http://[::1]:8080/x").unwrap().host, "[::1]");
        assert_eq!(
            check_url("https://[2001:DB8::1]/").unwrap().host,
            "[2001:db8::1]"
        );
        assert_eq!(
            check_url("https://example.com./").unwrap().host,
            "example.com."
        );
    }

    #[test]
    fn punycode_and_unicode_hosts_are_flagged() {
        assert!(
            check_url("https://xn--pple-43d.com/login")
                .unwrap()
                .is_punycode
        );
        assert!(
            check_url("https://login.XN--pple-43d.com/")
                .unwrap()
                .is_punycode
        );
        assert!(check_url("https://аpple.com/").unwrap().is_punycode);
        assert!(!check_url("https://xn.example.com/").unwrap().is_punycode);
    }

    #[test]
    fn refused_urls() {
        for u in [
            "",
            "javascript:alert(1)",
            "data:text/html,hi",
            "file:///etc/passwd",
            "ftp://example.com/",
            "http://example.com/",
            "http://localhost.evil.test/",
            "http://127.0.0.2/",
            "https://user:pass@example.com/",
            "https://example.com@evil.test/",
            "https://exa mple.com/",
            "https://example.com/\n",
            "https://example.com\\@evil.test/",
            "https:/example.com",
            "https:example.com",
            "https://",
            "https://:443/",
            "https://a..b/",
            "https://ex%61mple.com/",
            "https://example.com:99999/",
            "https://example.com:/",
            "https://example.com:8a/",
            "https://[::1/",
            "https://[zz::1]/",
            "https://exa\u{202e}mple.com/",
            "https://example.com/\u{202e}fdp.exe",
            "https://exa\u{200b}mple.com/",
        ] {
            let e = check_url(u).unwrap_err();
            assert_eq!(e.kind, ErrorKind::InvalidResult, "{u}");
            assert!(!e.message.contains('\n') && !e.message.contains('\u{202e}'));
        }
    }
}
