//! The string formats a form-mode `requestedSchema` may name (client/elicitation
//! "Requested Schema": `email`, `uri`, `date`, `date-time`). Hand-written: each is a few
//! lines, while a format crate would bring IDNA and regex tables into the wasm.
//!
//! Only elicitation asserts formats; for tool `outputSchema` they stay annotations.
//!
//! Letters are ASCII-checked and any non-ASCII character is let through (an
//! internationalized address): `char::is_alphanumeric` and friends would link core's
//! Unicode tables, ~15 KB of wasm.

/// A pragmatic RFC 5321-style address: one `@`, a non-empty local part without spaces or
/// specials, a domain of non-empty dot-separated labels that has a dot (or is `localhost`).
pub(crate) fn is_email(s: &str) -> bool {
    let Some((local, domain)) = crate::text::split_once(s, "@") else {
        return false;
    };
    let local_ok = !local.is_empty()
        && local.len() <= 64
        && !local.starts_with('.')
        && !local.ends_with('.')
        && !local.as_bytes().windows(2).any(|w| w == b"..")
        && local
            .chars()
            .all(|c| !c.is_whitespace() && !c.is_control() && !is_special(c));
    let labels_ok = domain.len() <= 253
        && crate::text::split(domain, ".").all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || !c.is_ascii())
        });
    local_ok
        && labels_ok
        && (domain.as_bytes().contains(&b'.') || domain.eq_ignore_ascii_case("localhost"))
}

/// RFC 5321's specials, which an unquoted local part may not hold. Tested by bytes: a `char`
/// pattern over a `&str` links core's substring searcher (src/text.rs says why not).
fn is_special(c: char) -> bool {
    c.is_ascii() && b"()<>[]:;@\\,\"".contains(&(c as u8))
}

/// An RFC 3986 URI with a scheme: `scheme ":" ...`, only URI characters after it (ASCII,
/// no spaces; `%` followed by two hex digits).
pub(crate) fn is_uri(s: &str) -> bool {
    let Some((scheme, rest)) = crate::text::split_once(s, ":") else {
        return false;
    };
    let mut sc = scheme.bytes();
    if !sc.next().is_some_and(|b| b.is_ascii_alphabetic())
        || !sc.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
    {
        return false;
    }
    let b = rest.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'%' {
            if !(b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
            {
                return false;
            }
            i += 3;
            continue;
        }
        if !(c.is_ascii_alphanumeric() || b"-._~:/?#[]@!$&'()*+,;=".contains(&c)) {
            return false;
        }
        i += 1;
    }
    true
}

/// `YYYY-MM-DD`, a real calendar date (RFC 3339 `full-date`).
pub(crate) fn is_date(s: &str) -> bool {
    s.len() == 10 && crate::time::parse_rfc3339(&format!("{s}T00:00:00Z")).is_some()
}

/// RFC 3339 `date-time`.
pub(crate) fn is_date_time(s: &str) -> bool {
    crate::time::parse_rfc3339(s).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn email() {
        for ok in [
            "a@b.co",
            "first.last+tag@sub.example.org",
            "x@localhost",
            "josé@exämple.de",
        ] {
            assert!(is_email(ok), "{ok}");
        }
        for bad in [
            "",
            "a",
            "@b.co",
            "a@",
            "a@b",
            "a b@c.de",
            "a@b .de",
            "a@@b.de",
            "a@b@c.de",
            "a@.b.de",
            "a@b..de",
            ".a@b.de",
            "a.@b.de",
            "a..b@c.de",
            "a@-b.de",
            "a@b-.de",
            "a\n@b.de",
            "<a>@b.de",
        ] {
            assert!(!is_email(bad), "{bad}");
        }
    }

    #[test]
    fn uri() {
        for ok in [
            "https://example.com/a?b=c#d",
            "urn:isbn:0451450523",
            "mailto:a@b.c",
            "file:///tmp/x",
            "x:",
            "h:%20",
        ] {
            assert!(is_uri(ok), "{ok}");
        }
        for bad in [
            "",
            "example.com",
            "/relative",
            "1http://x",
            "http://exa mple.com",
            "http://x/é",
            "h:%2",
            "h:%zz",
            ":x",
        ] {
            assert!(!is_uri(bad), "{bad}");
        }
    }

    #[test]
    fn dates() {
        for ok in ["2024-02-29", "2023-12-31", "0001-01-01"] {
            assert!(is_date(ok), "{ok}");
        }
        for bad in [
            "2023-02-29",
            "2023-13-01",
            "2023-00-10",
            "2023-1-01",
            "20230101",
            "2023-01-01T00:00:00Z",
            "2023-01-32",
            "",
        ] {
            assert!(!is_date(bad), "{bad}");
        }
        for ok in [
            "2025-11-25T10:30:00Z",
            "2025-11-25T10:30:00.123+02:00",
            "2025-11-25t10:30:00z",
        ] {
            assert!(is_date_time(ok), "{ok}");
        }
        for bad in [
            "2025-11-25",
            "2025-11-25T25:00:00Z",
            "2025-11-25T10:30:00",
            "2025-02-30T10:30:00Z",
        ] {
            assert!(!is_date_time(bad), "{bad}");
        }
    }
}
