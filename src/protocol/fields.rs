//! The few JSON objects the engine reads field by field (the JSON-RPC envelope, tasks,
//! `input_required` results, the `resultType` peek, cache hints), read from the text in one
//! pass by `crate::json`'s walker and a table of the members wanted: each was once a
//! `#[derive(Deserialize)]` struct of optional fields, and this reads what those derives
//! read (tests compare the two): unknown members checked and skipped, a repeated member
//! refused, and a JSON array read positionally (too short for a field without a default is
//! an error), as serde reads a struct from an array.

use crate::json::Value;
use crate::json::{JsonError, Parser, RawJson};

/// How a member is read (the type the derived struct's field had).
#[derive(Clone, Copy)]
pub(crate) enum Kind {
    /// `Option<Value>`: `null` and absent are both `None`.
    Opt,
    /// `Option<Value>` read with `Value::deserialize(..).map(Some)`: `null` is `Some(Null)`.
    Present,
    /// `Option<Box<RawValue>>` once: kept as checked raw text (`RawJson`); `null` is `None`.
    Raw,
}

/// A member: its name, how it is read, and whether it had `#[serde(default)]` (only matters
/// for the array form).
pub(crate) struct Field {
    pub name: &'static str,
    pub kind: Kind,
    pub default: bool,
}

pub(crate) const fn field(name: &'static str, kind: Kind, default: bool) -> Field {
    Field {
        name,
        kind,
        default,
    }
}

/// The object's shape: `expecting` names it in errors (`"struct Name"`).
pub(crate) struct Shape {
    pub expecting: &'static str,
    pub with_len: &'static str,
    pub fields: &'static [Field],
}

/// What a member held.
#[derive(Default, Debug)]
pub(crate) enum Got {
    #[default]
    None,
    Value(Value),
    Raw(RawJson),
}

impl Got {
    pub(crate) fn value(&mut self) -> Option<Value> {
        match std::mem::take(self) {
            Got::Value(v) => Some(v),
            _ => None,
        }
    }

    pub(crate) fn raw(&mut self) -> Option<RawJson> {
        match std::mem::take(self) {
            Got::Raw(r) => Some(r),
            _ => None,
        }
    }
}

/// One member's value at the cursor, read as `kind` says.
fn member(p: &mut Parser<'_>, kind: Kind) -> Result<Got, JsonError> {
    p.ws();
    let start = p.pos;
    Ok(match kind {
        Kind::Raw => {
            p.value(false)?;
            match p.slice(start, p.pos) {
                "null" => Got::None,
                text => Got::Raw(RawJson::printed(text.to_string())),
            }
        }
        Kind::Opt => match p.value(true)? {
            Value::Null => Got::None,
            v => Got::Value(v),
        },
        Kind::Present => Got::Value(p.value(true)?),
    })
}

/// Parses `text` (what `serde_json::from_str` of the derived struct accepted) into `out`,
/// one slot per field of `shape`.
pub(crate) fn parse(text: &str, shape: &'static Shape, out: &mut [Got]) -> Result<(), JsonError> {
    let fields = shape.fields;
    let mut p = Parser::new(text);
    p.ws();
    match p.peek() {
        Some(b'{') => {
            let mut seen = 0u32;
            p.object(|p, key| match fields.iter().position(|f| f.name == key) {
                Some(i) => {
                    if seen & (1 << i) != 0 {
                        return Err(p.error("duplicate field"));
                    }
                    seen |= 1 << i;
                    if let (Some(slot), Some(f)) = (out.get_mut(i), fields.get(i)) {
                        *slot = member(p, f.kind)?;
                    }
                    Ok(())
                }
                None => p.value(false).map(drop),
            })?;
        }
        Some(b'[') => {
            let mut i = 0;
            p.array(|p| {
                let (Some(slot), Some(f)) = (out.get_mut(i), fields.get(i)) else {
                    return Err(p.error("trailing characters"));
                };
                *slot = member(p, f.kind)?;
                i += 1;
                Ok(())
            })?;
            if fields
                .get(i..)
                .unwrap_or_default()
                .iter()
                .any(|f| !f.default)
            {
                return Err(JsonError::shape(shape.with_len));
            }
        }
        None => return Err(p.error("EOF while parsing a value")),
        Some(_) => {
            p.value(false)?;
            return Err(JsonError::shape(shape.expecting));
        }
    }
    p.end()
}

/// Inputs that exercise every path of a shape's parse (tests of the modules that use it
/// compare `parse` with the derive it replaced on each of them).
#[cfg(test)]
pub(crate) fn tricky_inputs(names: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = [
        "{}",
        "[]",
        "null",
        "5",
        "-1.5",
        "\"x\"",
        "true",
        "",
        " ",
        "{",
        "[1",
        "{} x",
        " {} ",
        "{\"zzz\": [1, {\"b\": 2}], \"q\": null}",
        "{\"a\":1,}",
        "{,}",
        "{\"\\ud800\": 1}",
        "[null, null, null, null, null, null, null, null, null, null, null, null, null]",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    for n in 0..=names.len() + 1 {
        v.push(format!("[{}]", vec!["1"; n].join(",")));
        v.push(format!("[{}]", vec!["null"; n].join(",")));
        v.push(format!("[{}]", vec!["\"2.0\""; n].join(",")));
        v.push(format!("[{}]", vec!["{\"k\":[1]}"; n].join(",")));
    }
    for f in names {
        let esc: String = f.chars().map(|c| format!("\\u{:04x}", c as u32)).collect();
        for val in [
            "null",
            "1",
            "-7",
            "1.5",
            "\"s\"",
            "\"2.0\"",
            "{\"a\":[1,2]}",
            "[]",
            "true",
            "[1,]",
            "1e999",
            "\"\\ud800\"",
            "tru",
            "\"\\q\"",
            &deep,
        ] {
            v.push(format!("{{\"{f}\": {val}}}"));
            v.push(format!("{{\"x\": 0, \"{f}\": {val}, \"y\": [{{}}]}}"));
        }
        v.push(format!("{{\"{f}\": 1, \"{f}\": 2}}"));
        v.push(format!("{{\"{f}\": null, \"{f}\": null}}"));
        v.push(format!("{{\"{f}\": 1, \"zz\": 0, \"{esc}\": 2}}"));
        v.push(format!("{{\"{esc}\": \"e\"}}"));
        v.push(format!("{{\"{f} \": 1}}"));
        v.push(format!("{{\"{}\": 1}}", f.to_uppercase()));
    }
    let all: Vec<String> = names.iter().map(|f| format!("\"{f}\": \"v\"")).collect();
    v.push(format!("{{{}}}", all.join(",")));
    let all: Vec<String> = names
        .iter()
        .map(|f| format!("\"{f}\": {{\"n\": 1}}"))
        .collect();
    v.push(format!("{{{}}}", all.join(",")));
    v
}

/// Asserts that `ours` reads every [`tricky_inputs`] text exactly as the derive `T` did
/// (`show` renders both results alike). Both refuse the same texts; the messages are
/// `crate::json`'s own, not serde's (`crate::json`'s tests check those).
#[cfg(test)]
pub(crate) fn assert_same_as_derive<T: serde::de::DeserializeOwned, U>(
    names: &[&str],
    ours: impl Fn(&str) -> Result<U, JsonError>,
    show_derived: impl Fn(T) -> String,
    show_ours: impl Fn(U) -> String,
) {
    for text in tricky_inputs(names) {
        let d = serde_json::from_str::<T>(&text).map(&show_derived);
        let o = ours(&text).map(&show_ours);
        assert_eq!(o.map_err(|_| "refused"), d.map_err(|_| "refused"), "{text}");
    }
}
