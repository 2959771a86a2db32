//! Substring search by bytes, for the few places that look for a short needle (`"://"`,
//! `"::"`) in a short string. Why not `str::find(&str)`: a `&str` pattern links core's
//! Two-Way searcher (`StrSearcher`, `TwoWaySearcher`), about 0.8 KB of the gzipped wasm
//! (`bench/tools/wasm-without.mjs`; BENCHMARKS.md, the forty-fourth session), for needles of
//! two to ten bytes in URLs and messages, where a plain scan is as quick.
//!
//! And decimal numbers of ASCII digits ([`digits`]). Why not `str::parse`: each integer
//! type it is used for is its own copy in the wasm, and it also accepts a leading `+`,
//! which none of the grammars read here allows (SSE's `retry`, RFC 9110's `delay-seconds`,
//! a URL's port and IPv4 parts, a JSON Pointer's array index).

/// The byte index of the first `needle` in `haystack`. A match of valid UTF-8 in valid
/// UTF-8 starts and ends on character boundaries, so the index slices `haystack` safely.
pub(crate) fn find(haystack: &str, needle: &str) -> Option<usize> {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    if n.is_empty() {
        return Some(0);
    }
    h.windows(n.len()).position(|w| w == n)
}

/// Whether `needle` occurs in `haystack`.
pub(crate) fn contains(haystack: &str, needle: &str) -> bool {
    find(haystack, needle).is_some()
}

/// `haystack` split around the first `needle`, as `str::split_once` splits it.
pub(crate) fn split_once<'a>(haystack: &'a str, needle: &str) -> Option<(&'a str, &'a str)> {
    let i = find(haystack, needle)?;
    Some((haystack.get(..i)?, haystack.get(i + needle.len()..)?))
}

/// The value of `s` when it is one or more ASCII digits (`1*DIGIT`) and fits a `u64`;
/// `None` for anything else (empty, a sign, a space, an overflow).
pub(crate) fn digits(s: &str) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    s.bytes().try_fold(0u64, |n, b| {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        n.checked_mul(10)?.checked_add(u64::from(d))
    })
}

#[cfg(test)]
mod tests {
    use super::{contains, digits, find, split_once};

    /// std's answer where std reads only digits; `None` for what std also takes (a `+`).
    #[test]
    fn digits_agrees_with_std_on_digits() {
        for s in [
            "0",
            "7",
            "0042",
            "255",
            "65535",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999999",
        ] {
            assert_eq!(digits(s), s.parse::<u64>().ok(), "{s:?}");
        }
        for s in [
            "", "+5", "-5", " 5", "5 ", "5a", "0x5", "٣", "1_000", "/", ":",
        ] {
            assert_eq!(digits(s), None, "{s:?}");
        }
    }

    /// The same answers as std's searcher, on needles at the start, middle and end, absent,
    /// longer than the haystack, empty, and next to multi-byte characters.
    #[test]
    fn agrees_with_std() {
        let hays = [
            "",
            "a",
            "://",
            "https://x",
            "x://y://z",
            "é://ü",
            "::1",
            "1::2::3",
            "ab:",
            ":/",
        ];
        let needles = ["://", "::", "", "a", "é", "https://x/", ":/"];
        for h in hays {
            for n in needles {
                assert_eq!(find(h, n), h.find(n), "{h:?} {n:?}");
                assert_eq!(contains(h, n), h.contains(n), "{h:?} {n:?}");
                assert_eq!(split_once(h, n), h.split_once(n), "{h:?} {n:?}");
            }
        }
    }
}
