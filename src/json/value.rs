//! The JSON value the engine works on: the six kinds of RFC 8259 §3, numbers kept as
//! integers when they are (`u64` or `i64`, as serde_json keeps them) and objects as a
//! [`Map`] in the peer's order. Its API is serde_json's `Value`'s, the part the crate uses.
//!
//! Why not serde_json's `Value`: its objects keep their order through an `IndexMap` (see
//! `map.rs`), and the crate already reads and writes JSON text itself (`mod.rs`, `write.rs`);
//! serde_json's `Value` with its map was at most 10.1 KB of the gzipped wasm (BENCHMARKS.md,
//! the fiftieth session). `Serialize` and `Deserialize` are implemented, so that serde_json
//! (the tests' oracle) reads and writes these values too; the wasm does not link them.

use super::Map;
use std::fmt;

/// A JSON value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Value {
    /// `null`.
    #[default]
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Number(Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object.
    Object(Map),
}

/// A JSON number: an integer kept exactly when it fits `u64` or `i64`, else the nearest
/// finite `f64`.
#[derive(Clone, Copy, PartialEq)]
pub struct Number(N);

#[derive(Clone, Copy, PartialEq)]
enum N {
    /// Zero or more.
    Pos(u64),
    /// Less than zero.
    Neg(i64),
    /// Finite, never NaN.
    Float(f64),
}

// A `Number` is never NaN, so equality is an equivalence.
impl Eq for Number {}

impl Number {
    /// `f` as a number: `None` when it is NaN or infinite (JSON has no such numbers).
    pub fn from_f64(f: f64) -> Option<Number> {
        f.is_finite().then_some(Number(N::Float(f)))
    }

    /// The number as a `u64`, when it is an integer that fits.
    pub fn as_u64(&self) -> Option<u64> {
        match self.0 {
            N::Pos(u) => Some(u),
            _ => None,
        }
    }

    /// The number as an `i64`, when it is an integer that fits.
    pub fn as_i64(&self) -> Option<i64> {
        match self.0 {
            N::Pos(u) => i64::try_from(u).ok(),
            N::Neg(i) => Some(i),
            N::Float(_) => None,
        }
    }

    /// The number as an `f64` (an integer past 2^53 rounded).
    pub fn as_f64(&self) -> Option<f64> {
        Some(match self.0 {
            N::Pos(u) => u as f64,
            N::Neg(i) => i as f64,
            N::Float(f) => f,
        })
    }

    /// Whether it is an integer that fits a `u64`.
    pub fn is_u64(&self) -> bool {
        matches!(self.0, N::Pos(_))
    }

    /// Whether it is an integer that fits an `i64`.
    pub fn is_i64(&self) -> bool {
        self.as_i64().is_some()
    }

    /// Whether it was read or made as a float (not as an integer).
    pub fn is_f64(&self) -> bool {
        matches!(self.0, N::Float(_))
    }
}

impl From<u64> for Number {
    fn from(u: u64) -> Number {
        Number(N::Pos(u))
    }
}

impl From<i64> for Number {
    fn from(i: i64) -> Number {
        match u64::try_from(i) {
            Ok(u) => Number(N::Pos(u)),
            Err(_) => Number(N::Neg(i)),
        }
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&super::text(&Value::Number(*self)))
    }
}

/// The number's text: `Value::Number(1)` shows as `Number(1)`, as serde_json shows it.
impl fmt::Debug for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// `null`, for an index that finds nothing.
static NULL: Value = Value::Null;

impl Value {
    /// The member `key` of an object, or the item `i` of an array (`v.get("a")`,
    /// `v.get(0)`).
    pub fn get<I: Index>(&self, index: I) -> Option<&Value> {
        index.index_into(self)
    }

    /// [`Value::get`], to change.
    pub fn get_mut<I: Index>(&mut self, index: I) -> Option<&mut Value> {
        index.index_into_mut(self)
    }

    /// The object, if it is one.
    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    /// The object to change, if it is one.
    pub fn as_object_mut(&mut self) -> Option<&mut Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    /// The array, if it is one.
    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The array to change, if it is one.
    pub fn as_array_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The string, if it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The number, if it is one.
    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The number as a `u64` ([`Number::as_u64`]).
    pub fn as_u64(&self) -> Option<u64> {
        self.as_number()?.as_u64()
    }

    /// The number as an `i64` ([`Number::as_i64`]).
    pub fn as_i64(&self) -> Option<i64> {
        self.as_number()?.as_i64()
    }

    /// The number as an `f64` ([`Number::as_f64`]).
    pub fn as_f64(&self) -> Option<f64> {
        self.as_number()?.as_f64()
    }

    /// The boolean, if it is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// `Some(())` for `null`.
    pub fn as_null(&self) -> Option<()> {
        self.is_null().then_some(())
    }

    /// Whether it is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// Whether it is `true` or `false`.
    pub fn is_boolean(&self) -> bool {
        matches!(self, Value::Bool(_))
    }

    /// Whether it is a number.
    pub fn is_number(&self) -> bool {
        matches!(self, Value::Number(_))
    }

    /// Whether it is an integer that fits a `u64`.
    pub fn is_u64(&self) -> bool {
        self.as_number().is_some_and(Number::is_u64)
    }

    /// Whether it is an integer that fits an `i64`.
    pub fn is_i64(&self) -> bool {
        self.as_number().is_some_and(Number::is_i64)
    }

    /// Whether it is a number read or made as a float.
    pub fn is_f64(&self) -> bool {
        self.as_number().is_some_and(Number::is_f64)
    }

    /// Whether it is a string.
    pub fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }

    /// Whether it is an array.
    pub fn is_array(&self) -> bool {
        matches!(self, Value::Array(_))
    }

    /// Whether it is an object.
    pub fn is_object(&self) -> bool {
        matches!(self, Value::Object(_))
    }

    /// The value at a JSON Pointer (RFC 6901: `""` is the whole value, `/a/0` the first
    /// item of member `a`).
    pub fn pointer(&self, pointer: &str) -> Option<&Value> {
        if pointer.is_empty() {
            return Some(self);
        }
        let rest = pointer.strip_prefix('/')?;
        let mut v = self;
        for token in crate::text::split(rest, "/") {
            let token = token.replace("~1", "/").replace("~0", "~");
            v = match v {
                Value::Object(m) => m.get(&token)?,
                Value::Array(a) => a.get(array_index(&token)?)?,
                _ => return None,
            };
        }
        Some(v)
    }

    /// The value, leaving `null` in its place.
    pub fn take(&mut self) -> Value {
        std::mem::take(self)
    }
}

/// An array index in a JSON Pointer: digits, no leading zero (RFC 6901 §4).
fn array_index(token: &str) -> Option<usize> {
    if token.len() > 1 && token.starts_with('0') || token.starts_with('+') {
        return None;
    }
    token.parse().ok()
}

/// What indexes a [`Value`]: a key (`&str`, `String`) for an object's member, a `usize` for
/// an array's item.
pub trait Index: private::Sealed {
    #[doc(hidden)]
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value>;
    #[doc(hidden)]
    fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value>;
    #[doc(hidden)]
    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value;
}

mod private {
    pub trait Sealed {}
    impl Sealed for usize {}
    impl Sealed for str {}
    impl Sealed for String {}
    impl<T: Sealed + ?Sized> Sealed for &T {}
}

impl Index for usize {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        v.as_array()?.get(*self)
    }
    fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value> {
        v.as_array_mut()?.get_mut(*self)
    }
    /// Panics past the array's end or on a value that is not an array (as serde_json's
    /// `v[i] = ..` does): for tests.
    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value {
        match v.as_array_mut().and_then(|a| a.get_mut(*self)) {
            Some(x) => x,
            None => panic!("cannot index with {self}"),
        }
    }
}

impl Index for str {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        v.as_object()?.get(self)
    }
    fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value> {
        v.as_object_mut()?.get_mut(self)
    }
    /// `null` becomes an object and a missing member `null` (as serde_json's
    /// `v["k"] = ..` does); panics on any other kind of value: for tests.
    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value {
        if v.is_null() {
            *v = Value::Object(Map::new());
        }
        match v {
            Value::Object(m) => m.get_or_insert(self, Value::Null),
            _ => panic!("cannot index a non-object with {self:?}"),
        }
    }
}

impl Index for String {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        self.as_str().index_into(v)
    }
    fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value> {
        self.as_str().index_into_mut(v)
    }
    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value {
        self.as_str().index_or_insert(v)
    }
}

impl<T: Index + ?Sized> Index for &T {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        (**self).index_into(v)
    }
    fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value> {
        (**self).index_into_mut(v)
    }
    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value {
        (**self).index_or_insert(v)
    }
}

/// `v["key"]`, `v[0]`: `null` when there is no such member or item.
impl<I: Index> std::ops::Index<I> for Value {
    type Output = Value;
    fn index(&self, index: I) -> &Value {
        index.index_into(self).unwrap_or(&NULL)
    }
}

/// `v["key"] = ..`: see [`Index`]'s implementations.
impl<I: Index> std::ops::IndexMut<I> for Value {
    fn index_mut(&mut self, index: I) -> &mut Value {
        index.index_or_insert(self)
    }
}

/// Compact JSON text (`to_string()`, `{}`), as [`super::text`] writes it.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&super::text(self))
    }
}

impl std::str::FromStr for Value {
    type Err = super::JsonError;
    fn from_str(s: &str) -> Result<Value, super::JsonError> {
        super::parse(s)
    }
}
