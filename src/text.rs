//! Substring search by bytes, for the places that look for a short needle (`"://"`,
//! `"::"`) or a one-byte separator (`:`, `/`, `#`, …) in a short string. Why not
//! `str::find(&str)`: a `&str` pattern links core's Two-Way searcher (`StrSearcher`,
//! `TwoWaySearcher`), about 0.8 KB of the gzipped wasm (`bench/tools/wasm-without.mjs`;
//! BENCHMARKS.md, the forty-fourth session), for needles of two to ten bytes in URLs and
//! messages, where a plain scan is as quick; a `char` pattern links `CharSearcher` ([`split`]).
//!
//! And decimal numbers of ASCII digits ([`digits`]), bytes as text with U+FFFD for what
//! is not UTF-8 ([`lossy`]), and names joined with a separator ([`join`]). Why not `str::parse`: each integer
//! type it is used for is its own copy in the wasm, and it also accepts a leading `+`,
//! which none of the grammars read here allows (SSE's `retry`, RFC 9110's `delay-seconds`,
//! a URL's port and IPv4 parts, a JSON Pointer's array index).

/// `bytes` as text, each ill-formed sequence replaced by U+FFFD, as
/// `String::from_utf8_lossy` replaces them (one U+FFFD per maximal subpart, Unicode §3.9:
/// what `Utf8Error::error_len` measures). Why not std's: its `Utf8Chunks` iterator is a
/// second UTF-8 validator in the wasm beside `str::from_utf8`'s, 0.4 KB gzipped at most
/// (`bench/tools/wasm-without.mjs`; BENCHMARKS.md, the forty-seventh session).
pub(crate) fn lossy(mut bytes: &[u8]) -> String {
    let mut out = String::new();
    loop {
        match std::str::from_utf8(bytes) {
            Ok(s) => {
                out.push_str(s);
                return out;
            }
            Err(e) => {
                let (good, rest) = bytes.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(good).unwrap_or_default());
                out.push(char::REPLACEMENT_CHARACTER);
                match e.error_len() {
                    Some(n) => bytes = rest.get(n..).unwrap_or_default(),
                    // A sequence cut short by the end.
                    None => return out,
                }
            }
        }
    }
}

/// The items with `sep` between them, as `[&str]::join` makes them. Why not std's: its
/// `join_generic_copy` was two copies in the wasm (for `&str` and `String` items), 0.4 KB
/// gzipped at most (`bench/tools/wasm-without.mjs`; BENCHMARKS.md, the forty-seventh
/// session), for five joins of a few short names each, none on a hot path.
pub(crate) fn join<'a>(items: impl IntoIterator<Item = &'a str>, sep: &str) -> String {
    let mut out = String::new();
    for (i, s) in items.into_iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(s);
    }
    out
}

/// The byte index of the first `needle` in `haystack`. A match of valid UTF-8 in valid
/// UTF-8 starts and ends on character boundaries, so the index slices `haystack` safely.
pub(crate) fn find(haystack: &str, needle: &str) -> Option<usize> {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    match n {
        [] => Some(0),
        // One byte (the separators of URLs, headers and SSE lines): a plain scan.
        [b] => h.iter().position(|c| c == b),
        _ => h.windows(n.len()).position(|w| w == n),
    }
}

/// The byte index of the last `needle` in `haystack` (`str::rfind`).
pub(crate) fn rfind(haystack: &str, needle: &str) -> Option<usize> {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    match n {
        [] => Some(h.len()),
        [b] => h.iter().rposition(|c| c == b),
        _ => h.windows(n.len()).rposition(|w| w == n),
    }
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

/// `haystack` split around the last `needle`, as `str::rsplit_once` splits it.
pub(crate) fn rsplit_once<'a>(haystack: &'a str, needle: &str) -> Option<(&'a str, &'a str)> {
    let i = rfind(haystack, needle)?;
    Some((haystack.get(..i)?, haystack.get(i + needle.len()..)?))
}

/// The pieces of `haystack` between the `sep`s, as `str::split` gives them (`sep` not
/// empty: an empty one gives `haystack` whole).
///
/// Why these instead of `str::split`, `split_once`, `find` and `rfind` with a `char`:
/// a `char` pattern links core's `CharSearcher` (and its `memchr`), 0.4 KB of the gzipped
/// wasm at most (`bench/tools/wasm-without.mjs`; BENCHMARKS.md, the forty-ninth session),
/// for separators of one ASCII byte in URLs, media types, SSE lines and JSON Pointers.
pub(crate) fn split<'a>(haystack: &'a str, sep: &'a str) -> Split<'a> {
    Split {
        rest: Some(haystack),
        sep,
    }
}

/// The iterator of [`split`].
pub(crate) struct Split<'a> {
    rest: Option<&'a str>,
    sep: &'a str,
}

impl<'a> Iterator for Split<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let s = self.rest?;
        match split_once(s, self.sep).filter(|_| !self.sep.is_empty()) {
            Some((piece, rest)) => {
                self.rest = Some(rest);
                Some(piece)
            }
            None => self.rest.take(),
        }
    }
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
    use super::{contains, digits, find, join, lossy, rfind, rsplit_once, split, split_once};

    #[test]
    fn join_agrees_with_std() {
        for v in [
            vec![],
            vec![""],
            vec!["a"],
            vec!["a", "b"],
            vec!["", "x", ""],
            vec!["é", "☃", "z"],
        ] {
            for sep in ["", ".", ", "] {
                assert_eq!(join(v.iter().copied(), sep), v.join(sep), "{v:?} {sep:?}");
            }
        }
    }

    /// std's text for every one- and two-byte input, every three-byte input of a few
    /// dozen bytes that matter to UTF-8 (ASCII, continuations, each lead's limits), and
    /// longer mixes.
    #[test]
    fn lossy_agrees_with_std() {
        let same = |b: &[u8]| assert_eq!(lossy(b), String::from_utf8_lossy(b), "{b:?}");
        same(b"");
        for a in 0..=255u8 {
            same(&[a]);
            for b in 0..=255u8 {
                same(&[a, b]);
            }
        }
        let edges = [
            0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0,
            0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xf8, 0xfe, 0xff,
        ];
        for a in edges {
            for b in edges {
                for c in edges {
                    same(&[a, b, c]);
                    for d in [0x41, 0x80, 0xbf, 0xf0] {
                        same(&[a, b, c, d]);
                        same(&[d, a, b, c, d]);
                    }
                }
            }
        }
        same("é☃😀 plain".as_bytes());
        same(b"a\xf0\x9f\x98b\xed\xa0\x80c\xc3");
    }

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
            ".",
            "..",
            "a.b..c.",
            "/a/b/",
            "x#y#z",
            "ü:é:",
        ];
        let needles = [
            "://",
            "::",
            "",
            "a",
            "é",
            "https://x/",
            ":/",
            ":",
            ".",
            "/",
            "#",
        ];
        for h in hays {
            for n in needles {
                assert_eq!(find(h, n), h.find(n), "{h:?} {n:?}");
                assert_eq!(contains(h, n), h.contains(n), "{h:?} {n:?}");
                assert_eq!(split_once(h, n), h.split_once(n), "{h:?} {n:?}");
                assert_eq!(rfind(h, n), h.rfind(n), "{h:?} {n:?}");
                assert_eq!(rsplit_once(h, n), h.rsplit_once(n), "{h:?} {n:?}");
                if !n.is_empty() {
                    let ours: Vec<&str> = split(h, n).collect();
                    let std: Vec<&str> = h.split(n).collect();
                    assert_eq!(ours, std, "{h:?} {n:?}");
                } else {
                    assert_eq!(split(h, n).collect::<Vec<_>>(), [h], "{h:?}");
                }
            }
        }
    }
}
