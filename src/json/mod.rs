//! Reading JSON text: into a `serde_json::Value`, or checked and kept as raw text
//! ([`RawJson`]), or member by member for the few objects the engine reads field by field
//! ([`fields`]). Printing stays serde_json's, and so does the `Value` type the engine works on.
//!
//! Why by hand, not `serde_json::from_str`: serde's `Deserializer` and its visitors, with
//! their error messages (whose `Display` pulls core's float formatting), were 35 KB of the
//! wasm, 14.4 KB gzip (`bench/tools/wasm-without.mjs`, BENCHMARKS.md); the engine needs only
//! "text to `Value`" and "check this text and keep it", which this module does in a few KB.
//! It accepts exactly what serde_json accepts (RFC 8259, nesting up to 128 levels, lone
//! surrogate escapes refused) and builds the same `Value`s: `tests.rs` and the `json` fuzz
//! target compare the two on every input. Numbers are read as serde_json reads them
//! without its `float_roundtrip` feature: integers as `u64` or `i64` where they fit,
//! everything else as the same `f64` ([`scale`]).

#[cfg(test)]
mod tests;

use serde_json::{Map, Number, Value};
use std::borrow::Cow;
use std::fmt;

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
            return f.write_str(self.what);
        }
        write!(
            f,
            "{} at line {} column {}",
            self.what, self.line, self.column
        )
    }
}

impl JsonError {
    /// An error about the shape, not the syntax (no position: the text parsed).
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

    /// Text this crate printed itself (serde_json's output) or already checked: not
    /// checked again.
    pub(crate) fn printed(text: String) -> RawJson {
        RawJson(text.into_boxed_str())
    }

    /// A value's text, printed by serde_json.
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
/// (`Err(Some(key))`; `Err(None)` with the error when the text is not an object).
pub(crate) fn parse_unique_object(text: &str) -> Result<Vec<(String, Value)>, UniqueError> {
    let mut p = Parser::new(text);
    p.ws();
    if p.peek() != Some(b'{') {
        p.value(false).map_err(UniqueError::Json)?;
        return Err(UniqueError::Json(JsonError::shape("expected an object")));
    }
    let mut out: Vec<(String, Value)> = Vec::new();
    let mut seen = crate::hash::FxHashSet::default();
    let mut dup = None;
    p.object(|p, key| {
        let v = p.value(true)?;
        if dup.is_none() {
            if !seen.insert(key.to_string()) {
                dup = Some(key.to_string());
            }
            out.push((key.to_string(), v));
        }
        Ok(())
    })
    .map_err(UniqueError::Json)?;
    p.end().map_err(UniqueError::Json)?;
    match dup {
        Some(k) => Err(UniqueError::Duplicate(k)),
        None => Ok(out),
    }
}

/// Why [`parse_unique_object`] refused a text.
#[derive(Debug)]
pub(crate) enum UniqueError {
    Json(JsonError),
    Duplicate(String),
}

/// A cursor over the text. `build` says whether a value is built or only checked (a raw
/// member, a skipped one): one walker for both keeps the code small.
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
                let mut map = Map::new();
                self.object(|p, key| {
                    let v = p.value(true)?;
                    map.insert(key.to_string(), v);
                    Ok(())
                })?;
                Ok(Value::Object(map))
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
        mut item: impl FnMut(&mut Parser<'a>) -> Result<(), JsonError>,
    ) -> Result<(), JsonError> {
        self.enter()?;
        self.ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            item(self)?;
            self.ws();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.ws();
                    if self.peek() == Some(b']') {
                        return Err(self.error("trailing comma"));
                    }
                }
                Some(b']') => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                None => return Err(self.error("EOF while parsing a list")),
                Some(_) => return Err(self.error("expected `,` or `]`")),
            }
        }
    }

    /// An object at the cursor (on its `{`): `member` reads each member's value, given its
    /// key (the cursor is after the `:`).
    pub(crate) fn object(
        &mut self,
        mut member: impl FnMut(&mut Parser<'a>, &str) -> Result<(), JsonError>,
    ) -> Result<(), JsonError> {
        self.enter()?;
        self.ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            let key = self.key_built()?;
            member(self, &key)?;
            self.ws();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.ws();
                    if self.peek() == Some(b'}') {
                        return Err(self.error("trailing comma"));
                    }
                }
                Some(b'}') => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                None => return Err(self.error("EOF while parsing an object")),
                Some(_) => return Err(self.error("expected `,` or `}`")),
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

    /// A number checked for its syntax only: a checked raw value may hold a number past
    /// `f64`'s range, as serde_json's `RawValue` may.
    fn number_syntax(&mut self) -> Result<(), JsonError> {
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(self.error("invalid number"));
                }
            }
            Some(b'1'..=b'9') => self.digits(),
            None => return Err(self.error("EOF while parsing a value")),
            Some(_) => return Err(self.error("invalid number")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            self.some_digits()?;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            self.some_digits()?;
        }
        Ok(())
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
    }

    /// One digit or more.
    fn some_digits(&mut self) -> Result<(), JsonError> {
        let start = self.pos;
        self.digits();
        if self.pos > start {
            return Ok(());
        }
        Err(self.error(match self.peek() {
            None => "EOF while parsing a value",
            Some(_) => "invalid number",
        }))
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

    /// A number at the cursor, kept as serde_json keeps it (see the module's comment).
    fn number(&mut self) -> Result<Number, JsonError> {
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
        }
        // The significand's digits while they fit a u64 (the rest are dropped, the integer
        // part's counted in the exponent), as serde_json keeps them.
        let mut sig: u64 = 0;
        let mut exp: i64 = 0;
        let mut integer_overflow = false;
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(self.error("invalid number"));
                }
            }
            Some(b'1'..=b'9') => {
                while let Some(d @ b'0'..=b'9') = self.peek() {
                    self.pos += 1;
                    match sig
                        .checked_mul(10)
                        .and_then(|s| s.checked_add(u64::from(d - b'0')))
                    {
                        Some(s) if !integer_overflow => sig = s,
                        _ => {
                            integer_overflow = true;
                            exp += 1;
                        }
                    }
                }
            }
            None => return Err(self.error("EOF while parsing a value")),
            Some(_) => return Err(self.error("invalid number")),
        }
        let mut float = false;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            float = true;
            let start = self.pos;
            self.some_digits()?;
            let mut overflow = integer_overflow;
            for &d in self.s.get(start..self.pos).unwrap_or_default() {
                match sig
                    .checked_mul(10)
                    .and_then(|s| s.checked_add(u64::from(d - b'0')))
                {
                    Some(s) if !overflow => {
                        sig = s;
                        exp -= 1;
                    }
                    _ => overflow = true,
                }
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            float = true;
            let neg_exp = match self.peek() {
                Some(b'-') => {
                    self.pos += 1;
                    true
                }
                Some(b'+') => {
                    self.pos += 1;
                    false
                }
                _ => false,
            };
            let start = self.pos;
            self.some_digits()?;
            let mut e: i64 = 0;
            for &d in self.s.get(start..self.pos).unwrap_or_default() {
                e = (e * 10 + i64::from(d - b'0')).min(1 << 40);
            }
            exp += if neg_exp { -e } else { e };
        }
        if !float && !integer_overflow {
            if !negative {
                return Ok(Number::from(sig));
            }
            if sig <= i64::MAX as u64 + 1 && sig != 0 {
                return Ok(Number::from((sig as i64).wrapping_neg()));
            }
        }
        let f = scale(sig, exp).ok_or_else(|| self.error("number out of range"))?;
        let f = if negative { -f } else { f };
        Number::from_f64(f).ok_or_else(|| self.error("number out of range"))
    }
}

/// `sig × 10^exp` as serde_json computes it without its `float_roundtrip` feature (one
/// multiplication or division by a power of ten from a table of correctly rounded ones, and
/// steps of 10^308 below that), so that both read every number to the same `f64`. `None`:
/// past `f64`'s range.
fn scale(sig: u64, exp: i64) -> Option<f64> {
    let mut f = sig as f64;
    let mut e = exp;
    loop {
        let p = usize::try_from(e.unsigned_abs())
            .ok()
            .and_then(|i| POW10.get(i));
        match p {
            Some(p) if e >= 0 => {
                f *= p;
                return f.is_finite().then_some(f);
            }
            Some(p) => return Some(f / p),
            None if f == 0.0 => return Some(0.0),
            None if e >= 0 => return None,
            None => {
                f /= 1e308;
                e += 308;
            }
        }
    }
}

/// 10^0 to 10^308, each correctly rounded (Rust's float literals are).
#[rustfmt::skip]
static POW10: [f64; 309] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29,
    1e30, 1e31, 1e32, 1e33, 1e34, 1e35, 1e36, 1e37, 1e38, 1e39, 1e40, 1e41, 1e42, 1e43,
    1e44, 1e45, 1e46, 1e47, 1e48, 1e49, 1e50, 1e51, 1e52, 1e53, 1e54, 1e55, 1e56, 1e57,
    1e58, 1e59, 1e60, 1e61, 1e62, 1e63, 1e64, 1e65, 1e66, 1e67, 1e68, 1e69, 1e70, 1e71,
    1e72, 1e73, 1e74, 1e75, 1e76, 1e77, 1e78, 1e79, 1e80, 1e81, 1e82, 1e83, 1e84, 1e85,
    1e86, 1e87, 1e88, 1e89, 1e90, 1e91, 1e92, 1e93, 1e94, 1e95, 1e96, 1e97, 1e98, 1e99,
    1e100, 1e101, 1e102, 1e103, 1e104, 1e105, 1e106, 1e107, 1e108, 1e109, 1e110, 1e111,
    1e112, 1e113, 1e114, 1e115, 1e116, 1e117, 1e118, 1e119, 1e120, 1e121, 1e122, 1e123,
    1e124, 1e125, 1e126, 1e127, 1e128, 1e129, 1e130, 1e131, 1e132, 1e133, 1e134, 1e135,
    1e136, 1e137, 1e138, 1e139, 1e140, 1e141, 1e142, 1e143, 1e144, 1e145, 1e146, 1e147,
    1e148, 1e149, 1e150, 1e151, 1e152, 1e153, 1e154, 1e155, 1e156, 1e157, 1e158, 1e159,
    1e160, 1e161, 1e162, 1e163, 1e164, 1e165, 1e166, 1e167, 1e168, 1e169, 1e170, 1e171,
    1e172, 1e173, 1e174, 1e175, 1e176, 1e177, 1e178, 1e179, 1e180, 1e181, 1e182, 1e183,
    1e184, 1e185, 1e186, 1e187, 1e188, 1e189, 1e190, 1e191, 1e192, 1e193, 1e194, 1e195,
    1e196, 1e197, 1e198, 1e199, 1e200, 1e201, 1e202, 1e203, 1e204, 1e205, 1e206, 1e207,
    1e208, 1e209, 1e210, 1e211, 1e212, 1e213, 1e214, 1e215, 1e216, 1e217, 1e218, 1e219,
    1e220, 1e221, 1e222, 1e223, 1e224, 1e225, 1e226, 1e227, 1e228, 1e229, 1e230, 1e231,
    1e232, 1e233, 1e234, 1e235, 1e236, 1e237, 1e238, 1e239, 1e240, 1e241, 1e242, 1e243,
    1e244, 1e245, 1e246, 1e247, 1e248, 1e249, 1e250, 1e251, 1e252, 1e253, 1e254, 1e255,
    1e256, 1e257, 1e258, 1e259, 1e260, 1e261, 1e262, 1e263, 1e264, 1e265, 1e266, 1e267,
    1e268, 1e269, 1e270, 1e271, 1e272, 1e273, 1e274, 1e275, 1e276, 1e277, 1e278, 1e279,
    1e280, 1e281, 1e282, 1e283, 1e284, 1e285, 1e286, 1e287, 1e288, 1e289, 1e290, 1e291,
    1e292, 1e293, 1e294, 1e295, 1e296, 1e297, 1e298, 1e299, 1e300, 1e301, 1e302, 1e303,
    1e304, 1e305, 1e306, 1e307, 1e308
];
