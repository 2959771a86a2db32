//! Substring search by bytes, for the few places that look for a short needle (`"://"`,
//! `"::"`) in a short string. Why not `str::find(&str)`: a `&str` pattern links core's
//! Two-Way searcher (`StrSearcher`, `TwoWaySearcher`), about 0.8 KB of the gzipped wasm
//! (`bench/tools/wasm-without.mjs`; BENCHMARKS.md, the forty-fourth session), for needles of
//! two to ten bytes in URLs and messages, where a plain scan is as quick.

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

#[cfg(test)]
mod tests {
    use super::{contains, find, split_once};

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
