//! The little URL work authorization needs: splitting absolute `http(s)` URLs, building
//! the well-known discovery URLs (RFC 9728 §3.1, RFC 8414 §3.1 and §5), comparing the
//! protected resource with the server URL, and `application/x-www-form-urlencoded`.
//!
//! Written by hand rather than with the `url` crate (~68 KB gzip of wasm with its IDNA
//! tables, `src/schema/SIZE.md`). Nothing here normalizes what it compares unless the
//! comparison says so: the RFC 9207 `iss` check and the RFC 8414 `issuer` check are exact
//! string comparisons done by the caller.

/// The parts of an absolute URL: `scheme://authority path [?query] [#fragment]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Parts<'a> {
    /// Lower-cased.
    pub scheme: String,
    /// `host[:port]` as written (userinfo is refused).
    pub authority: &'a str,
    /// Starts with `/`, or is empty.
    pub path: &'a str,
    pub query: Option<&'a str>,
    pub fragment: Option<&'a str>,
}

/// Splits an absolute `http:` or `https:` URL. `None` for anything else, and for URLs
/// with spaces, control characters, backslashes or userinfo.
pub(crate) fn split(url: &str) -> Option<Parts<'_>> {
    if url.len() > 8192 || url.chars().any(|c| c.is_control() || c == ' ' || c == '\\') {
        return None;
    }
    let (scheme, rest) = crate::text::split_once(url, "://")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at_checked(end)?;
    if authority.is_empty() || authority.as_bytes().contains(&b'@') {
        return None;
    }
    let (before_frag, fragment) = match crate::text::split_once(tail, "#") {
        Some((a, f)) => (a, Some(f)),
        None => (tail, None),
    };
    let (path, query) = match crate::text::split_once(before_frag, "?") {
        Some((p, q)) => (p, Some(q)),
        None => (before_frag, None),
    };
    Some(Parts {
        scheme,
        authority,
        path,
        query,
        fragment,
    })
}

/// `scheme://authority` of a URL (scheme and host lower-cased; the port as written).
pub(crate) fn origin(url: &str) -> Option<String> {
    let p = split(url)?;
    Some(format!(
        "{}://{}",
        p.scheme,
        p.authority.to_ascii_lowercase()
    ))
}

/// `host:port` with the scheme's default port made explicit, lower-cased (for comparing).
fn host_port(p: &Parts) -> String {
    let a = p.authority.to_ascii_lowercase();
    let has_port = match crate::text::rfind(&a, ":") {
        Some(i) => !a.as_bytes()[i..].contains(&b']'),
        None => false,
    };
    if has_port {
        a
    } else {
        let port = if p.scheme == "https" { 443 } else { 80 };
        format!("{a}:{port}")
    }
}

/// RFC 9728 §3.3 / spec "Canonical Server URI": the protected resource the metadata names
/// must be this server. Same scheme, host and port (case-insensitively, default ports
/// made explicit), and the resource's path a prefix of the server URL's path at a segment
/// boundary (a metadata document at the root may name the origin: `https://mcp.example`
/// covers `https://mcp.example/mcp`). A fragment in the resource is refused (RFC 8707 §2).
pub(crate) fn resource_matches(resource: &str, server_url: &str) -> bool {
    let (Some(r), Some(s)) = (split(resource), split(server_url)) else {
        return false;
    };
    if r.fragment.is_some() || r.scheme != s.scheme || host_port(&r) != host_port(&s) {
        return false;
    }
    let rp = r.path.trim_end_matches('/');
    let sp = s.path;
    rp.is_empty() || sp == rp || (sp.starts_with(rp) && sp[rp.len()..].starts_with('/'))
}

/// The canonical URI of the MCP server for `resource=` when no metadata names one: the
/// URL without its fragment (RFC 8707 §2), scheme and host lower-cased.
pub(crate) fn canonical_resource(server_url: &str) -> String {
    match split(server_url) {
        Some(p) => {
            let mut s = format!(
                "{}://{}{}",
                p.scheme,
                p.authority.to_ascii_lowercase(),
                p.path
            );
            if let Some(q) = p.query {
                s.push('?');
                s.push_str(q);
            }
            s
        }
        None => server_url.to_string(),
    }
}

/// Where to look for the Protected Resource Metadata when the challenge names none
/// (RFC 9728 §3.1, spec "Protected Resource Metadata Discovery Requirements"): at the
/// path of the MCP endpoint first, then at the root.
pub(crate) fn prm_well_known(server_url: &str) -> Vec<String> {
    let Some(p) = split(server_url) else {
        return Vec::new();
    };
    let base = format!("{}://{}", p.scheme, p.authority);
    let path = p.path.trim_end_matches('/');
    let mut v = Vec::with_capacity(2);
    if !path.is_empty() {
        v.push(format!("{base}/.well-known/oauth-protected-resource{path}"));
    }
    v.push(format!("{base}/.well-known/oauth-protected-resource"));
    v
}

/// Where to look for the metadata of the authorization server `issuer`, in the spec's
/// order ("Authorization Server Metadata Discovery"): with a path, RFC 8414 path
/// insertion, OIDC path insertion, OIDC path appending; without, RFC 8414 then OIDC.
/// `None` when the issuer is not an `http(s)` URL without query and fragment (RFC 8414 §2).
pub(crate) fn as_well_known(issuer: &str) -> Option<Vec<String>> {
    let p = split(issuer)?;
    if p.query.is_some() || p.fragment.is_some() {
        return None;
    }
    let base = format!("{}://{}", p.scheme, p.authority);
    let path = p.path.trim_end_matches('/');
    Some(if path.is_empty() {
        vec![
            format!("{base}/.well-known/oauth-authorization-server"),
            format!("{base}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{base}/.well-known/oauth-authorization-server{path}"),
            format!("{base}/.well-known/openid-configuration{path}"),
            format!("{base}{path}/.well-known/openid-configuration"),
        ]
    })
}

/// A reference from a response (the challenge's `resource_metadata`) made absolute against
/// the URL it came from. Only absolute URLs and absolute paths are accepted.
pub(crate) fn resolve(base: &str, reference: &str) -> Option<String> {
    if split(reference).is_some() {
        return Some(reference.to_string());
    }
    if reference.starts_with('/') && !reference.starts_with("//") {
        let p = split(base)?;
        return Some(format!("{}://{}{reference}", p.scheme, p.authority));
    }
    None
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
pub(crate) fn encode(s: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push('%');
            out.push(HEX[(b >> 4) as usize] as char);
            out.push(HEX[(b & 15) as usize] as char);
        }
    }
}

/// `application/x-www-form-urlencoded` pairs.
pub(crate) fn form(pairs: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (i, (k, v)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        encode(k, &mut out);
        out.push('=');
        encode(v, &mut out);
    }
    out
}

/// `url` with the pairs added to its query (before any fragment).
pub(crate) fn with_query(url: &str, pairs: &[(&str, &str)]) -> String {
    let (head, frag) = match crate::text::split_once(url, "#") {
        Some((h, f)) => (h, Some(f)),
        None => (url, None),
    };
    let mut s = head.to_string();
    if !pairs.is_empty() {
        if !head.as_bytes().contains(&b'?') {
            s.push('?');
        } else if !(head.ends_with('?') || head.ends_with('&')) {
            s.push('&');
        }
        s.push_str(&form(pairs));
    }
    if let Some(f) = frag {
        s.push('#');
        s.push_str(f);
    }
    s
}

/// Decodes one form component (`+` is a space; a malformed escape stays as written;
/// invalid UTF-8 becomes U+FFFD).
pub(crate) fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'+' {
            out.push(b' ');
        } else if c == b'%' {
            let hex = |x: &u8| (*x as char).to_digit(16);
            match (b.get(i + 1).and_then(hex), b.get(i + 2).and_then(hex)) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => out.push(c),
            }
        } else {
            out.push(c);
        }
        i += 1;
    }
    crate::text::lossy(&out)
}

/// The query parameters of a URL (the authorization response), decoded. The fragment is
/// ignored (`response_mode=query`, the default for the code flow).
pub(crate) fn query_params(url: &str) -> Vec<(String, String)> {
    let head = crate::text::split_once(url, "#").map_or(url, |(h, _)| h);
    let Some((_, q)) = crate::text::split_once(head, "?") else {
        return Vec::new();
    };
    crate::text::split(q, "&")
        .filter(|p| !p.is_empty())
        .take(64)
        .map(|p| match crate::text::split_once(p, "=") {
            Some((k, v)) => (decode(k), decode(v)),
            None => (decode(p), String::new()),
        })
        .collect()
}

/// True for `localhost`, `127.0.0.1` and `[::1]` hosts (and their subdomains of localhost).
pub(crate) fn is_loopback(url: &str) -> bool {
    let Some(p) = split(url) else {
        return false;
    };
    let a = p.authority.to_ascii_lowercase();
    let host = if a.starts_with('[') {
        format!(
            "{}]",
            crate::text::split_once(&a, "]").map_or(a.as_str(), |(h, _)| h)
        )
    } else {
        crate::text::split_once(&a, ":")
            .map_or(a.as_str(), |(h, _)| h)
            .to_string()
    };
    host == "localhost" || host.ends_with(".localhost") || host == "127.0.0.1" || host == "[::1]"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_refuses() {
        let p = split("HTTPS://Mcp.Example:8443/a/b?x=1#f").unwrap();
        assert_eq!(p.scheme, "https");
        assert_eq!(p.authority, "Mcp.Example:8443");
        assert_eq!(p.path, "/a/b");
        assert_eq!(p.query, Some("x=1"));
        assert_eq!(p.fragment, Some("f"));
        assert!(split("ftp://x/").is_none());
        assert!(split("https://user@x/").is_none());
        assert!(split("https://x/ a").is_none());
        assert!(split("https:///p").is_none());
        assert!(split("mcp.example.com").is_none());
        assert_eq!(split("http://h").unwrap().path, "");
    }

    #[test]
    fn resource_comparison() {
        let s = "http://localhost:3000/mcp";
        assert!(resource_matches("http://localhost:3000/mcp", s));
        assert!(resource_matches("http://localhost:3000", s));
        assert!(resource_matches("http://localhost:3000/", s));
        assert!(resource_matches("HTTP://LOCALHOST:3000/mcp", s));
        assert!(!resource_matches("https://evil.example.com/mcp", s));
        assert!(!resource_matches("http://localhost:3001/mcp", s));
        assert!(!resource_matches("http://localhost:3000/mc", s));
        assert!(!resource_matches("http://localhost:3000/mcp/x", s));
        assert!(!resource_matches("http://localhost:3000/mcp#f", s));
        assert!(resource_matches(
            "https://a.example:443/mcp",
            "https://a.example/mcp"
        ));
        assert!(!resource_matches("not a url", s));
    }

    #[test]
    fn well_known_urls_in_spec_order() {
        assert_eq!(
            prm_well_known("https://example.com/public/mcp"),
            [
                "https://example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://example.com/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            prm_well_known("https://example.com/"),
            ["https://example.com/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            as_well_known("https://auth.example.com/tenant1").unwrap(),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            as_well_known("https://auth.example.com/").unwrap(),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration"
            ]
        );
        assert!(as_well_known("https://a.example/?x=1").is_none());
    }

    #[test]
    fn forms_and_queries() {
        assert_eq!(
            form(&[("a b", "x/y=z&"), ("k", "é")]),
            "a%20b=x%2Fy%3Dz%26&k=%C3%A9"
        );
        assert_eq!(
            with_query("https://as/authorize", &[("a", "1")]),
            "https://as/authorize?a=1"
        );
        assert_eq!(
            with_query("https://as/authorize?x=y#f", &[("a", "1")]),
            "https://as/authorize?x=y&a=1#f"
        );
        assert_eq!(
            with_query("https://as/a?", &[("a", "1")]),
            "https://as/a?a=1"
        );
        let q = query_params(
            "http://localhost/cb?code=a%2Bb+c&state=s&iss=http%3A%2F%2Fx&bad=%zz&e#frag",
        );
        assert_eq!(
            q,
            [
                ("code".to_string(), "a+b c".to_string()),
                ("state".into(), "s".into()),
                ("iss".into(), "http://x".into()),
                ("bad".into(), "%zz".into()),
                ("e".into(), "".into())
            ]
        );
        assert_eq!(decode("%"), "%");
        assert_eq!(decode("%4"), "%4");
        assert_eq!(decode("%ff"), "\u{fffd}");
        assert!(query_params("http://x/cb").is_empty());
    }

    #[test]
    fn resolves_and_loopback() {
        assert_eq!(
            resolve("http://h:1/mcp", "/.well-known/x").as_deref(),
            Some("http://h:1/.well-known/x")
        );
        assert_eq!(
            resolve("http://h:1/mcp", "https://o/x").as_deref(),
            Some("https://o/x")
        );
        assert_eq!(resolve("http://h:1/mcp", "x"), None);
        assert!(is_loopback("http://localhost:3000/cb"));
        assert!(is_loopback("http://127.0.0.1/cb"));
        assert!(is_loopback("http://[::1]:8/cb"));
        assert!(!is_loopback("https://app.example/cb"));
        assert_eq!(
            canonical_resource("HTTPS://A.example/mcp#x"),
            "https://a.example/mcp"
        );
    }
}
