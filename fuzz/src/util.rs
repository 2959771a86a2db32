//! Helpers shared by the targets: a reader that turns fuzzer bytes into choices, and the
//! checks every error must pass.

use mcp_wasm_client::error::Error;

/// Reads choices from the fuzzer's bytes; past the end every read gives zeros / empty.
pub struct Reader<'a> {
    data: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Reader { data }
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn u8(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    pub fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }

    /// One of `items`, by the next byte.
    pub fn pick<'t, T>(&mut self, items: &'t [T]) -> &'t T {
        &items[self.u8() as usize % items.len()]
    }

    /// `n` bytes (fewer at the end of the input).
    pub fn bytes(&mut self, n: usize) -> &'a [u8] {
        let n = n.min(self.data.len());
        let (head, rest) = self.data.split_at(n);
        self.data = rest;
        head
    }

    /// A blob with a 16-bit little-endian length prefix.
    pub fn blob(&mut self) -> &'a [u8] {
        let n = self.u16() as usize;
        self.bytes(n)
    }

    /// The rest of the input.
    pub fn rest(&mut self) -> &'a [u8] {
        self.bytes(self.data.len())
    }
}

/// Splits `data` at the first 0xFF byte (never part of UTF-8 text, so JSON documents can
/// be glued with it): `(before, after)`; `after` is empty when there is no separator.
pub fn split2(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|&b| b == 0xFF) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[]),
    }
}

/// True for the characters `error::sanitize` escapes.
pub fn is_unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// The longest error message any check below accepts (peer text is cut by `sanitize`).
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024;

/// Every error the crate makes from peer input must have a message safe to show and log
/// (house rule: peer strings go through `error::sanitize`) and of bounded size.
pub fn check_error(e: &Error) {
    assert!(
        !e.message.chars().any(is_unsafe_char),
        "unsanitized error message: {:?}",
        e.message
    );
    assert!(
        e.message.len() <= MAX_MESSAGE_BYTES,
        "error message of {} bytes",
        e.message.len()
    );
}

/// Same as [`check_error`], for the `String` reasons some checks return.
pub fn check_reason(s: &str) {
    assert!(!s.chars().any(is_unsafe_char), "unsanitized reason: {s:?}");
    assert!(s.len() <= MAX_MESSAGE_BYTES, "reason of {} bytes", s.len());
}

/// Syntactically valid JSON text (what the host's `JSON.parse` accepts). Not always a
/// serde_json `Value`: `1e999` is valid JSON beyond f64's range.
pub fn is_json_text(s: &str) -> bool {
    serde_json::from_str::<Box<serde_json::value::RawValue>>(s).is_ok()
}
