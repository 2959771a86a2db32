//! Header value encoding for `Mcp-Name` and `Mcp-Param-*` (spec
//! `basic/transports/streamable-http.mdx`, "Value Encoding").
//!
//! A value goes into the header verbatim only when it is made of visible ASCII and
//! spaces, has no leading or trailing whitespace, and does not itself look like an
//! encoded value. Anything else is sent as `=?base64?<base64 of the UTF-8 bytes>?=`
//! (standard alphabet, padded; the markers are lowercase and case-sensitive). This keeps
//! CR, LF and other control characters out of headers, so a value cannot inject headers.

// `Error`, the crate's one error type, is large (at least 128 bytes); boxing it is a
// crate-wide choice, not this module's.
#![allow(clippy::result_large_err)]

use crate::error::{sanitize, Error};
use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine;

/// The marker that starts an encoded value.
const PREFIX: &str = "=?base64?";
/// The marker that ends an encoded value.
const SUFFIX: &str = "?=";

/// Decoding accepts the standard alphabet with or without padding (we always pad when
/// encoding; a server might not).
const DECODER: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// True when `value` matches the sentinel pattern: starts with `=?base64?` and ends
/// with `?=`. Such a value is never sent verbatim, to avoid ambiguity (spec: clients
/// MUST encode a plain value that matches the pattern).
fn looks_encoded(value: &str) -> bool {
    value.starts_with(PREFIX) && value.ends_with(SUFFIX)
}

/// Encodes a value for Mcp-Name / Mcp-Param-*: as-is when it is safe, else `=?base64?<base64 of UTF-8>?=`.
///
/// The empty string stays empty.
pub fn encode_header_value(value: &str) -> String {
    if is_plain_safe(value) {
        return value.to_owned();
    }
    let mut out = String::with_capacity(PREFIX.len() + value.len().div_ceil(3) * 4 + 2);
    out.push_str(PREFIX);
    crate::base64::encode_into(&mut out, value.as_bytes(), false);
    out.push_str(SUFFIX);
    out
}

/// Decodes a header value written by encode_header_value (or a server); Err(Protocol) on a malformed sentinel or non-UTF-8 payload.
///
/// A value that does not match the sentinel pattern is returned unchanged. One that
/// does must carry valid base64 (padding optional) of UTF-8 text between the markers.
pub fn decode_header_value(value: &str) -> Result<String, Error> {
    if !looks_encoded(value) {
        return Ok(value.to_owned());
    }
    let malformed = |why: &str| {
        Error::protocol(format!(
            "malformed base64 header value `{}`: {why}",
            sanitize(value, 200)
        ))
    };
    // `=?base64?=` matches the pattern, but its markers overlap: there is no payload.
    let end = value
        .len()
        .checked_sub(SUFFIX.len())
        .filter(|&end| end >= PREFIX.len())
        .ok_or_else(|| malformed("the markers overlap"))?;
    let payload = value
        .get(PREFIX.len()..end)
        .ok_or_else(|| malformed("the markers overlap"))?;
    let bytes = DECODER
        .decode(payload)
        .map_err(|_| malformed("invalid base64"))?;
    String::from_utf8(bytes).map_err(|_| malformed("the payload is not UTF-8"))
}

/// RFC 9110 token (1*tchar).
///
/// `tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`"
/// / "|" / "~" / DIGIT / ALPHA` (RFC 9110 §5.6.2).
pub fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'!' | b'#'
                        | b'$'
                        | b'%'
                        | b'&'
                        | b'\''
                        | b'*'
                        | b'+'
                        | b'-'
                        | b'.'
                        | b'^'
                        | b'_'
                        | b'`'
                        | b'|'
                        | b'~'
                )
        })
}

/// True when `value` can be sent as a header value verbatim (what encode_header_value leaves alone).
///
/// That is: every character is visible ASCII (0x21–0x7E) or space, the value neither
/// starts nor ends with a space, and it does not match the `=?base64?…?=` pattern. Tab,
/// although allowed in HTTP field values, is encoded (it is whitespace and a control
/// character). The empty string is safe.
pub fn is_plain_safe(value: &str) -> bool {
    let bytes = value.as_bytes();
    bytes.iter().all(|&b| (0x20..=0x7e).contains(&b))
        && bytes.first() != Some(&b' ')
        && bytes.last() != Some(&b' ')
        && !looks_encoded(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    /// Every byte is allowed in a header value and there is no surrounding whitespace.
    fn header_safe_chars(v: &str) -> bool {
        v.bytes().all(|b| (0x20..=0x7e).contains(&b)) && !v.starts_with(' ') && !v.ends_with(' ')
    }

    #[test]
    fn spec_encoding_table() {
        let rows = [
            ("us-west1", "us-west1"),
            ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            (" padded ", "=?base64?IHBhZGRlZCA=?="),
            ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
            ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
        ];
        for (plain, encoded) in rows {
            assert_eq!(encode_header_value(plain), encoded, "{plain:?}");
            assert_eq!(decode_header_value(encoded).unwrap(), plain);
        }
    }

    #[test]
    fn plain_values() {
        for v in [
            "",
            "a",
            "get_weather",
            "file:///projects/myapp/config.json",
            "a b",
            "!~{}[]\"\\",
            "=?base64?",
            "?=",
            "=?BASE64?abc?=", // the markers are case-sensitive
            "x=?base64?abc?=",
            "=?base64?abc?=x",
        ] {
            assert!(is_plain_safe(v), "{v:?}");
            assert_eq!(encode_header_value(v), v);
            assert_eq!(decode_header_value(v).unwrap(), v);
        }
    }

    #[test]
    fn values_that_must_be_encoded() {
        for v in [
            " lead",
            "trail ",
            " ",
            "tab\there",
            "\t",
            "nul\0",
            "del\x7f",
            "é",
            "\u{85}",
            "\u{2028}",
            "=?base64??=",
            "=?base64?=",
            "=?base64?abc?=",
        ] {
            assert!(!is_plain_safe(v), "{v:?}");
            let e = encode_header_value(v);
            assert!(e.starts_with("=?base64?") && e.ends_with("?="), "{e}");
            assert!(header_safe_chars(&e), "{e:?}");
            assert_eq!(decode_header_value(&e).unwrap(), v);
        }
    }

    #[test]
    fn cr_lf_injection_never_reaches_the_header() {
        for v in [
            "a\r\nX-Injected: 1",
            "\r\n\r\nbody",
            "a\rb",
            "a\nb",
            "\n",
            "\r",
            "=?base64?\r\n?=",
            "x\u{0}\r\n",
        ] {
            let e = encode_header_value(v);
            assert!(!e.contains('\r') && !e.contains('\n'), "{e:?}");
            assert!(header_safe_chars(&e));
            assert_eq!(decode_header_value(&e).unwrap(), v);
        }
    }

    #[test]
    fn round_trip_many_strings() {
        let mut cases: Vec<String> = vec![
            String::new(),
            "x".repeat(10_000),
            "世界".repeat(5_000),
            "😀 emoji \u{10ffff}".into(),
            " ".repeat(3),
            "=?base64?SGVsbG8sIOS4lueVjA==?=".into(),
        ];
        // Every character below 0x100 alone and between letters.
        for c in (0u32..0x100).filter_map(char::from_u32) {
            cases.push(c.to_string());
            cases.push(format!("a{c}b"));
        }
        // Lengths 0..=9 exercise every base64 padding case.
        for n in 0..10 {
            cases.push("é".repeat(n));
            cases.push(format!(" {}", "a".repeat(n)));
        }
        for v in &cases {
            let e = encode_header_value(v);
            assert!(header_safe_chars(&e), "{e:?}");
            assert_eq!(&decode_header_value(&e).unwrap(), v);
            // Encoding is only ever applied when needed.
            assert_eq!(e == *v, is_plain_safe(v));
        }
    }

    #[test]
    fn decode_rejects_malformed_sentinels() {
        for bad in [
            "=?base64?=",           // overlapping markers
            "=?base64?!!!!?=",      // not base64
            "=?base64?SGVsbG8?=x",  // does not end with the marker: plain, see below
            "=?base64?SGVsbG8=x?=", // junk after the padding
            "=?base64?/w==?=",      // 0xFF: not UTF-8
            "=?base64? SGVs?=",     // whitespace inside
            "=?base64?\r\n?=",
        ] {
            match decode_header_value(bad) {
                Ok(v) => assert_eq!(v, bad, "only non-sentinels pass through"),
                Err(e) => {
                    assert_eq!(e.kind, ErrorKind::Protocol);
                    assert!(!e.message.contains('\r') && !e.message.contains('\n'));
                }
            }
        }
        assert!(decode_header_value("=?base64?=").is_err());
        assert!(decode_header_value("=?base64?/w==?=").is_err());
        assert!(decode_header_value("=?base64?!!!!?=").is_err());
        assert_eq!(decode_header_value("=?base64??=").unwrap(), "");
        // Padding is optional when decoding.
        assert_eq!(decode_header_value("=?base64?SGVsbG8?=").unwrap(), "Hello");
        assert_eq!(decode_header_value("=?base64?SGVsbG8=?=").unwrap(), "Hello");
    }

    #[test]
    fn tokens() {
        for t in ["Region", "a", "X-Tenant_ID.v2", "!#$%&'*+-.^_`|~09azAZ"] {
            assert!(is_token(t), "{t:?}");
        }
        for t in [
            "", " ", "a b", "a:b", "a\r", "a\n", "é", "a(b)", "a/b", "a\"", "a,b", "a;b", "{}",
            "a\t", "\0",
        ] {
            assert!(!is_token(t), "{t:?}");
        }
    }
}
