//! JSON: the [`Value`] the engine works on (`value.rs`, its objects in `map.rs`, `json!` in
//! `macros.rs`, conversions in `convert.rs`); reading JSON text into a `Value`, or checked
//! and kept as raw text ([`RawJson`]), or member by member for the few objects the engine
//! reads field by field (`protocol::fields`, on this module's walker); and writing JSON
//! text (`write.rs`).
//!
//! Why by hand, not `serde_json::from_str`: serde's `Deserializer` and its visitors, with
//! their error messages (whose `Display` pulls core's float formatting), were 35 KB of the
//! wasm, 14.4 KB gzip (`bench/tools/wasm-without.mjs`, BENCHMARKS.md); the engine needs only
//! "text to `Value`" and "check this text and keep it", which this module does in a few KB.
//! It accepts exactly what serde_json accepts (RFC 8259, nesting up to 127 levels, lone
//! surrogate escapes refused) and builds the same values as serde_json's `Value` with
//! `preserve_order` (members in order, a repeated key in its first place with its last
//! value): `tests/json_differential.rs` and the `json` fuzz target (`fuzz/src/json.rs`)
//! compare the two on every input.
//! Integers are read as serde_json reads them (`u64` or `i64` where they fit); every other
//! number as the `f64` nearest to it, as `JSON.parse` and serde_json with its
//! `float_roundtrip` feature (the tests' oracle) read it (`number.rs`).

mod convert;
mod macros;
mod map;
mod number;
#[cfg(test)]
mod tests;
mod value;
#[cfg(test)]
mod value_tests;
mod write;

pub use convert::ToValue;
pub use map::Map;
use std::borrow::Cow;
use std::fmt;
pub use value::{Index, Number, Value};
pub use write::text;
pub(crate) use write::{object as write_object, string as write_str, write};

/// How deep arrays and objects may nest (serde_json's limit: past it a hostile document
/// would exhaust the stack).
const MAX_DEPTH: u32 = 128;

/// Why a text is not the JSON expected, and where (1-based line and column, as serde_json
/// reports them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonError {
    what: &'static str,
    line: usize,
    column: usize,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            return write!(f, "expected {}", self.what);
        }
        write!(
            f,
            "{} at line {} column {}",
            self.what, self.line, self.column
        )
    }
}

impl JsonError {
    /// An error about the shape, not the syntax (no position: the text parsed): "expected
    /// {what}".
    pub(crate) fn shape(what: &'static str) -> JsonError {
        JsonError {
            what,
            line: 0,
            column: 0,
        }
    }
}

/// What the readers of this module return.
pub type JsonResult<T> = Result<T, JsonError>;

/// One JSON value's text, checked, kept as the peer wrote it (a `result` handed to the
/// host, an opaque `requestState` echoed byte for byte).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawJson(Box<str>);

impl RawJson {
    /// Checks that `text` is one JSON value (surrounding whitespace allowed and kept out).
    pub fn from_string(text: String) -> Result<RawJson, JsonError> {
        let mut p = Parser::new(&text);
        p.ws();
        let start = p.pos;
        p.value(false)?;
        let end = p.pos;
        p.end()?;
        if start == 0 && end == text.len() {
            return Ok(RawJson(text.into_boxed_str()));
        }
        Ok(RawJson(text.get(start..end).unwrap_or_default().into()))
    }

    /// Text this crate printed itself ([`text`]'s output) or already checked: not
    /// checked again.
    pub(crate) fn printed(text: String) -> RawJson {
        RawJson(text.into_boxed_str())
    }

    /// A value's text, as [`text`] prints it.
    pub(crate) fn of(v: &Value) -> RawJson {
        RawJson::printed(crate::error::json_text(v))
    }

    /// The text, owned.
    pub fn into_string(self) -> String {
        self.0.into_string()
    }

    /// The JSON text.
    pub fn get(&self) -> &str {
        &self.0
    }
}

/// Parses one JSON text into a `Value` (what `serde_json::from_str::<Value>` accepts).
pub fn parse(text: &str) -> Result<Value, JsonError> {
    let mut p = Parser::new(text);
    let v = p.value(true)?;
    p.end()?;
    Ok(v)
}

/// [`parse`] for bytes: they must be UTF-8.
pub fn parse_bytes(bytes: &[u8]) -> Result<Value, JsonError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse(text),
        Err(e) => {
            Err(Parser::new_bytes(bytes).error_at(e.valid_up_to(), "invalid unicode code point"))
        }
    }
}

/// Parses a JSON object keeping its members in order and refusing a repeated key
/// (`UniqueError::Duplicate`; `UniqueError::Json` when the text is not JSON or not an
/// object). A `Value` would keep the last of a repeated key.
pub(crate) fn parse_unique_object(text: &str) -> Result<Vec<(String, Value)>, UniqueError> {
    let mut p = Parser::new(text);
    p.ws();
    if p.peek() != Some(b'{') {
        p.value(false).map_err(UniqueError::Json)?;
        return Err(UniqueError::Json(JsonError::shape("an object")));
    }
    let mut out: Vec<(String, Value)> = Vec::new();
    p.object(|p, key| {
        out.push((key.to_string(), p.value(true)?));
        Ok(())
    })
    .map_err(UniqueError::Json)?;
    p.end().map_err(UniqueError::Json)?;
    // The repeated key whose second occurrence comes first. Sorted once (a stable sort
    // keeps a key's occurrences in the text's order), so an object of many keys costs
    // n log n.
    let order = crate::sorted_map::sorted_positions(out.len(), &mut |a, b| out[a].0.cmp(&out[b].0));
    let repeat = (order.windows(2))
        .filter(|w| out[w[0]].0 == out[w[1]].0)
        .map(|w| w[1])
        .min();
    match repeat {
        Some(i) => Err(UniqueError::Duplicate(std::mem::take(&mut out[i].0))),
        None => Ok(out),
    }
}

/// Why [`parse_unique_object`] refused a text.
#[derive(Debug)]
pub(crate) enum UniqueError {
    Json(JsonError),
    Duplicate(String),
}

/// A cursor over the text: `value(true)` builds a `Value` (recursively, 127 levels at
/// most), `value(false)` only checks one (`skip`, with a stack of its own: any depth).
pub(crate) struct Parser<'a> {
    s: &'a [u8],
    pub(crate) pos: usize,
    depth: u32,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(text: &'a str) -> Parser<'a> {
        Parser::new_bytes(text.as_bytes())
    }

    fn new_bytes(s: &'a [u8]) -> Parser<'a> {
        Parser {
            s,
            pos: 0,
            depth: 0,
        }
    }

    /// The text between two positions the walker stopped at (always on char boundaries:
    /// it stops only at ASCII bytes or the end).
    pub(crate) fn slice(&self, start: usize, end: usize) -> &'a str {
        self.s
            .get(start..end)
            .and_then(|b| std::str::from_utf8(b).ok())
            .unwrap_or_default()
    }

    // Inlined: the reader's most frequent call (306 a tool call in the census,
    // bench/tools/wasm-calls.mjs), and smaller inline than a call under opt-level "z".
    #[inline(always)]
    pub(crate) fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    pub(crate) fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn error_at(&self, pos: usize, what: &'static str) -> JsonError {
        let before = self.s.get(..pos).unwrap_or(self.s);
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let column = match before.iter().rposition(|&b| b == b'\n') {
            Some(nl) => pos - nl,
            None => pos + 1,
        };
        JsonError { what, line, column }
    }

    pub(crate) fn error(&self, what: &'static str) -> JsonError {
        self.error_at(self.pos, what)
    }

    /// After the value: only whitespace may follow.
    pub(crate) fn end(&mut self) -> Result<(), JsonError> {
        self.ws();
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.error("trailing characters")),
        }
    }

    fn literal(&mut self, word: &'static [u8], v: Value) -> Result<Value, JsonError> {
        for &b in word {
            match self.peek() {
                None => return Err(self.error("EOF while parsing a value")),
                Some(c) if c == b => self.pos += 1,
                Some(_) => return Err(self.error("expected ident")),
            }
        }
        Ok(v)
    }

    /// One value (leading whitespace skipped). With `build` false it is only checked, as
    /// serde_json's `RawValue` checks it, and `Value::Null` comes back.
    pub(crate) fn value(&mut self, build: bool) -> Result<Value, JsonError> {
        if !build {
            self.skip()?;
            return Ok(Value::Null);
        }
        self.ws();
        match self.peek() {
            None => Err(self.error("EOF while parsing a value")),
            Some(b'n') => self.literal(b"null", Value::Null),
            Some(b't') => self.literal(b"true", Value::Bool(true)),
            Some(b'f') => self.literal(b"false", Value::Bool(false)),
            Some(b'"') => Ok(Value::String(self.string(true)?.into_owned())),
            Some(b'-' | b'0'..=b'9') => Ok(Value::Number(self.number()?)),
            Some(b'[') => {
                let mut items = Vec::new();
                self.array(|p| {
                    items.push(p.value(true)?);
                    Ok(())
                })?;
                Ok(Value::Array(items))
            }
            Some(b'{') => {
                let mut members = Vec::new();
                self.object(|p, key| {
                    let v = p.value(true)?;
                    members.push((key.to_string(), v));
                    Ok(())
                })?;
                Ok(Value::Object(Map::from_members(members)))
            }
            Some(_) => Err(self.error("expected value")),
        }
    }

    /// Checks one value without building it, with a stack of open containers instead of
    /// recursion: like serde_json's `RawValue`, a checked value may nest to any depth (a
    /// result handed to the host's `JSON.parse`), and a deep one must not exhaust the stack.
    fn skip(&mut self) -> Result<(), JsonError> {
        // The open containers: `true` for an object.
        let mut open: Vec<bool> = Vec::new();
        loop {
            self.ws();
            match self.peek() {
                None => return Err(self.error("EOF while parsing a value")),
                Some(b'n') => self.literal(b"null", Value::Null).map(drop)?,
                Some(b't') => self.literal(b"true", Value::Null).map(drop)?,
                Some(b'f') => self.literal(b"false", Value::Null).map(drop)?,
                Some(b'"') => self.string(false).map(drop)?,
                Some(b'-' | b'0'..=b'9') => self.number_syntax()?,
                Some(b'[') => {
                    self.pos += 1;
                    self.ws();
                    if self.peek() != Some(b']') {
                        open.push(false);
                        continue;
                    }
                    self.pos += 1;
                }
                Some(b'{') => {
                    self.pos += 1;
                    self.ws();
                    if self.peek() != Some(b'}') {
                        open.push(true);
                        self.key()?;
                        continue;
                    }
                    self.pos += 1;
                }
                Some(_) => return Err(self.error("expected value")),
            }
            // After a value: close what ends here, up to the next value.
            loop {
                let Some(&object) = open.last() else {
                    return Ok(());
                };
                self.ws();
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        self.ws();
                        if object {
                            if self.peek() == Some(b'}') {
                                return Err(self.error("trailing comma"));
                            }
                            self.key()?;
                        } else if self.peek() == Some(b']') {
                            return Err(self.error("trailing comma"));
                        }
                        break;
                    }
                    Some(b']') if !object => {
                        self.pos += 1;
                        open.pop();
                    }
                    Some(b'}') if object => {
                        self.pos += 1;
                        open.pop();
                    }
                    None if object => return Err(self.error("EOF while parsing an object")),
                    None => return Err(self.error("EOF while parsing a list")),
                    Some(_) if object => return Err(self.error("expected `,` or `}`")),
                    Some(_) => return Err(self.error("expected `,` or `]`")),
                }
            }
        }
    }

    /// An object member's key and its `:` (the cursor is on the key), checked.
    fn key(&mut self) -> Result<(), JsonError> {
        self.key_of(false).map(drop)
    }

    /// An object member's key and its `:`, read.
    fn key_built(&mut self) -> Result<Cow<'a, str>, JsonError> {
        self.key_of(true)
    }

    fn key_of(&mut self, build: bool) -> Result<Cow<'a, str>, JsonError> {
        match self.peek() {
            Some(b'"') => {}
            None => return Err(self.error("EOF while parsing an object")),
            Some(_) => return Err(self.error("key must be a string")),
        }
        let key = self.string(build)?;
        self.ws();
        match self.peek() {
            Some(b':') => {
                self.pos += 1;
                Ok(key)
            }
            None => Err(self.error("EOF while parsing an object")),
            Some(_) => Err(self.error("expected `:`")),
        }
    }

    fn enter(&mut self) -> Result<(), JsonError> {
        self.depth += 1;
        // serde_json counts down from 128 and refuses when it reaches 0: 127 levels.
        if self.depth >= MAX_DEPTH {
            return Err(self.error("recursion limit exceeded"));
        }
        self.pos += 1;
        Ok(())
    }

    /// An array at the cursor (on its `[`): `item` reads each element.
    pub(crate) fn array(
        &mut self,
        item: impl FnMut(&mut Parser<'a>) -> Result<(), JsonError>,
    ) -> Result<(), JsonError> {
        self.container(false, item)
    }

    /// An object at the cursor (on its `{`): `member` reads each member's value, given its
    /// key (the cursor is after the `:`).
    pub(crate) fn object(
        &mut self,
        mut member: impl FnMut(&mut Parser<'a>, &str) -> Result<(), JsonError>,
    ) -> Result<(), JsonError> {
        self.container(true, |p| {
            let key = p.key_built()?;
            member(p, &key)
        })
    }

    /// An array or an object at the cursor: `each` reads one element or member.
    fn container(
        &mut self,
        object: bool,
        mut each: impl FnMut(&mut Parser<'a>) -> Result<(), JsonError>,
    ) -> Result<(), JsonError> {
        let close = if object { b'}' } else { b']' };
        self.enter()?;
        self.ws();
        if self.peek() == Some(close) {
            self.pos += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            each(self)?;
            self.ws();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.ws();
                    if self.peek() == Some(close) {
                        return Err(self.error("trailing comma"));
                    }
                }
                Some(c) if c == close => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                None if object => return Err(self.error("EOF while parsing an object")),
                None => return Err(self.error("EOF while parsing a list")),
                Some(_) if object => return Err(self.error("expected `,` or `}`")),
                Some(_) => return Err(self.error("expected `,` or `]`")),
            }
        }
    }

    /// A string at the cursor (on its `"`): borrowed from the text when it has no escape.
    /// With `build` false only checked (an empty result).
    fn string(&mut self, build: bool) -> Result<Cow<'a, str>, JsonError> {
        self.pos += 1;
        let mut out = String::new();
        let mut escaped = false;
        let mut run = self.pos;
        loop {
            let Some(b) = self.peek() else {
                return Err(self.error("EOF while parsing a string"));
            };
            match b {
                b'"' => {
                    let end = self.pos;
                    self.pos += 1;
                    if !build {
                        return Ok(Cow::Borrowed(""));
                    }
                    let tail = self.slice(run, end);
                    if !escaped {
                        return Ok(Cow::Borrowed(tail));
                    }
                    out.push_str(tail);
                    return Ok(Cow::Owned(out));
                }
                b'\\' => {
                    escaped = true;
                    if build {
                        out.push_str(self.slice(run, self.pos));
                    }
                    self.pos += 1;
                    if build {
                        out.push(self.escape()?);
                    } else {
                        self.escape_syntax()?;
                    }
                    run = self.pos;
                }
                0..=0x1f => {
                    return Err(self
                        .error("control character (\\u0000-\\u001F) found while parsing a string"))
                }
                _ => self.pos += 1,
            }
        }
    }

    /// An escape checked for its syntax only (the cursor is after the `\`): a checked raw
    /// value may hold a lone surrogate escape, as serde_json's `RawValue` may (`JSON.parse`
    /// reads it; a `Value` cannot hold it).
    fn escape_syntax(&mut self) -> Result<(), JsonError> {
        match self.peek() {
            None => Err(self.error("EOF while parsing a string")),
            Some(b'u') => {
                self.pos += 1;
                self.hex4().map(drop)
            }
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                self.pos += 1;
                Ok(())
            }
            Some(_) => Err(self.error("invalid escape")),
        }
    }

    /// The character an escape stands for (the cursor is after the `\`).
    fn escape(&mut self) -> Result<char, JsonError> {
        let Some(b) = self.peek() else {
            return Err(self.error("EOF while parsing a string"));
        };
        self.pos += 1;
        Ok(match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = self.hex4()?;
                match hi {
                    0xD800..=0xDBFF => {
                        if self.peek() != Some(b'\\') || self.s.get(self.pos + 1) != Some(&b'u') {
                            return Err(self.error("lone leading surrogate in hex escape"));
                        }
                        self.pos += 2;
                        let lo = self.hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&lo) {
                            return Err(self.error("lone leading surrogate in hex escape"));
                        }
                        let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                        char::from_u32(c).ok_or_else(|| self.error("invalid unicode code point"))?
                    }
                    0xDC00..=0xDFFF => {
                        return Err(self.error("lone leading surrogate in hex escape"))
                    }
                    c => {
                        char::from_u32(c).ok_or_else(|| self.error("invalid unicode code point"))?
                    }
                }
            }
            _ => {
                self.pos -= 1;
                return Err(self.error("invalid escape"));
            }
        })
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let mut n = 0;
        for _ in 0..4 {
            let d = match self.peek() {
                None => return Err(self.error("EOF while parsing a string")),
                Some(b) => (b as char).to_digit(16),
            };
            let Some(d) = d else {
                return Err(self.error("invalid escape"));
            };
            n = n * 16 + d;
            self.pos += 1;
        }
        Ok(n)
    }
}
