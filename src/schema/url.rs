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

/// WHATWG URL host parsing, "ends in a number": the last label (after one trailing dot)
/// is all digits, or `0x` with hex digits. A browser then parses the whole host as an
/// IPv4 address with octal, hex and shortened forms: `0x7f.0.0.1`, `127.1`, `2130706433`
/// all open 127.0.0.1 and `010.0.0.1` opens 8.0.0.1, while the host shown would be the
/// text as written (found by fuzzing against the `url` crate).
fn ends_in_number(host: &str) -> bool {
    let h = host.strip_suffix('.').unwrap_or(host);
    let last = crate::text::rsplit_once(h, ".").map_or(h, |(_, last)| last);
    let hex = last
        .strip_prefix("0x")
        .or_else(|| last.strip_prefix("0X"))
        .is_some_and(|x| x.bytes().all(|b| b.is_ascii_hexdigit()));
    hex || (!last.is_empty() && last.bytes().all(|b| b.is_ascii_digit()))
}

/// `a.b.c.d`, each 0–255 in decimal without leading zeros: the one IPv4 form a browser
/// shows as written.
fn is_dotted_decimal(host: &str) -> bool {
    let parts: Vec<&str> = crate::text::split(host, ".").collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 3
                && p.bytes().all(|b| b.is_ascii_digit())
                && (p.len() == 1 || !p.starts_with('0'))
                && crate::text::digits(p).is_some_and(|n| n <= 255)
        })
}

/// An IPv6 address in RFC 4291 text form: eight groups of 1–4 hex digits, or fewer with
/// one `::`; the last 32 bits may be written as a dotted-decimal IPv4 address. By hand:
/// `core::net::Ipv6Addr`'s parser costs ~2 KB gzip of wasm.
fn is_ipv6<'a>(s: &'a str) -> bool {
    let (head, tail, compressed) = match crate::text::split_once(s, "::") {
        Some((h, t)) => (h, t, true),
        None => (s, "", false),
    };
    if crate::text::contains(tail, "::") {
        return false;
    }
    let split = |p: &'a str| crate::text::split(p, ":").filter(move |_| !p.is_empty());
    let pieces: Vec<&str> = split(head).chain(split(tail)).collect();
    // Only the last piece written may be an IPv4 address ("1.2.3.4::" is not valid).
    let v4_at = (!compressed || !tail.is_empty()).then(|| pieces.len().wrapping_sub(1));
    let mut groups = 0;
    for (i, p) in pieces.iter().enumerate() {
        if !p.is_empty() && p.len() <= 4 && p.bytes().all(|b| b.is_ascii_hexdigit()) {
            groups += 1;
        } else if v4_at == Some(i) && is_dotted_decimal(p) {
            groups += 2;
        } else {
            return false;
        }
    }
    if compressed {
        groups <= 7
    } else {
        groups == 8
    }
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
    let (scheme, rest) = crate::text::split_once(url, ":").ok_or_else(|| bad(url, "no scheme"))?;
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
    if authority.as_bytes().contains(&b'@') {
        return Err(bad(url, "user names or passwords in URLs are not allowed"));
    }
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (inner, after) =
            crate::text::split_once(v6, "]").ok_or_else(|| bad(url, "unclosed '[' in the host"))?;
        // A literal a browser cannot parse (`[1:2:3:4:5]`) is refused here rather than
        // opened (fuzz: schema).
        if !is_ipv6(inner) {
            return Err(bad(url, "malformed IPv6 address"));
        }
        (format!("[{}]", inner.to_ascii_lowercase()), after)
    } else {
        let cut = crate::text::find(authority, ":").unwrap_or(authority.len());
        let (h, p) = authority.split_at_checked(cut).unwrap_or((authority, ""));
        if h.is_empty()
            || crate::text::split(h, ".")
                .enumerate()
                .any(|(i, l)| l.is_empty() && i + 1 < crate::text::split(h, ".").count())
        {
            return Err(bad(url, "empty host or host label"));
        }
        if !h
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_') || !c.is_ascii())
        {
            return Err(bad(url, "the host has characters that are not allowed"));
        }
        if ends_in_number(h) && !is_dotted_decimal(h) {
            return Err(bad(
                url,
                "a numeric host must be a plain IPv4 address (a browser reads other forms as a different address)",
            ));
        }
        // ASCII only: non-ASCII hosts are flagged, and Unicode case tables cost ~10 KB of wasm.
        (h.to_ascii_lowercase(), p)
    };
    let port = match port {
        "" => None,
        p => {
            let digits = p.strip_prefix(':').unwrap_or("x");
            let n = if digits.len() <= 5 {
                crate::text::digits(digits).unwrap_or(u64::MAX)
            } else {
                u64::MAX
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
    let is_punycode =
        !host.is_ascii() || crate::text::split(&host, ".").any(|l| l.starts_with("xn--"));
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
        assert_eq!(check_url("https://10.0.0.255/").unwrap().host, "10.0.0.255");
        assert_eq!(
            check_url("https://0xample.com/").unwrap().host,
            "0xample.com"
        );
        for v6 in [
            "[::ffff:1.2.3.4]",
            "[1:2:3:4:5:6:7:8]",
            "[1::]",
            "[fe80::1:2]",
        ] {
            assert_eq!(check_url(&format!("https://{v6}/")).unwrap().host, v6);
        }
        assert_eq!(
            check_url("https://123.example/").unwrap().host,
            "123.example"
        );
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
            "https://[2001:DB8:2:001:1]/",
            "https://[1::2::3]/",
            "https://[::ffff:1.2.3]/",
            "https://[1.2.3.4::]/",
            "https://[::1.2.3.4:1]/",
            "https://[1:2:3:4:5:6:7:8:9]/",
            "https://[:::]/",
            "https://[::12345]/",
            "https://exa\u{202e}mple.com/",
            "https://example.com/\u{202e}fdp.exe",
            "https://exa\u{200b}mple.com/",
            // Numeric hosts a browser reads as another IPv4 address.
            "https://0x7f.0.0.1/",
            "https://127.1/",
            "https://2130706433/",
            "https://010.0.0.1/",
            "https://1.2.3.4./",
            "https://256.1.1.1/",
            "https://example.0x/",
            "https://example.123/",
        ] {
            let e = check_url(u).unwrap_err();
            assert_eq!(e.kind, ErrorKind::InvalidResult, "{u}");
            assert!(!e.message.contains('\n') && !e.message.contains('\u{202e}'));
        }
    }
}
