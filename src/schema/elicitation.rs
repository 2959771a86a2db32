//! Checks on the host's answers to `elicitation/create` before they go to the server
//! (client/elicitation: "Clients SHOULD validate all responses against the provided
//! schema").
//!
//! Form mode: `requestedSchema` is the restricted subset of the spec (a flat object of
//! string, number/integer, boolean and enum properties). It is read here directly rather
//! than through [`super::output::OutputSchema`]: the subset is small, the messages can
//! speak about form fields, and formats are asserted (they are annotations elsewhere).
//! This checker is the one model of a form schema: the dialog's checks
//! (`src/web/package/dialog/checks.js`) follow it, and both are tested against the same
//! vectors (`tests/fixtures/elicitation-vectors.json`).
//!
//! Who is at fault decides the error kind: a bad answer from the host is
//! [`ErrorKind::InputValidation`]; a `requestedSchema` outside the subset, or a bad URL,
//! comes from the server and is [`ErrorKind::InvalidResult`].

use super::formats;
use super::output::json_eq;
use crate::error::{json_text, sanitize, Error, ErrorKind};
use crate::json::{Map, Number, Value};

pub use super::url::{check_url, UrlInfo};

/// Errors listed in `data.errors`.
const MAX_ERRORS: usize = 20;

fn schema_error(msg: String) -> Error {
    Error::invalid_result(format!(
        "requestedSchema is not a supported form schema: {msg}"
    ))
}

/// An [`ErrorKind::InputValidation`] error: the first problem as the message, all of them
/// (up to 20) in `data.errors` as `{path, message}`.
fn input_error(problems: Vec<(String, String)>) -> Error {
    let message = match problems.first() {
        Some((p, m)) if p.is_empty() => m.clone(),
        Some((p, m)) => format!("{}: {m}", sanitize(p, 100)),
        None => "invalid answer".to_string(),
    };
    let errors = problems
        .into_iter()
        .take(MAX_ERRORS)
        .map(|(p, m)| {
            let mut e = Map::new();
            e.insert("path".into(), Value::String(p));
            e.insert("message".into(), Value::String(m));
            Value::Object(e)
        })
        .collect();
    let mut data = Map::new();
    data.insert("errors".into(), Value::Array(errors));
    Error::new(
        ErrorKind::InputValidation,
        format!("invalid elicitation answer: {message}"),
    )
    .with_data(Value::Object(data))
}

fn ptr(name: &str) -> String {
    let mut p = String::new();
    super::index::push_token(&mut p, name);
    p
}

/// The action of an `ElicitResult`, and the result without content unless it is `accept`.
fn action_of(answer: &Value) -> Result<(&str, Map), Error> {
    let obj = answer
        .as_object()
        .ok_or_else(|| input_error(vec![(String::new(), "the answer must be an object".into())]))?;
    let action = match obj.get("action").and_then(Value::as_str) {
        Some(a @ ("accept" | "decline" | "cancel")) => a,
        _ => {
            let m = "action must be \"accept\", \"decline\" or \"cancel\"".to_string();
            return Err(input_error(vec![("/action".into(), m)]));
        }
    };
    let mut out = Map::new();
    out.insert("action".into(), Value::String(action.into()));
    if let Some(meta) = obj.get("_meta").filter(|m| m.is_object()) {
        out.insert("_meta".into(), meta.clone());
    }
    Ok((action, out))
}

/// Lower and upper bounds as the schema wrote them (numbers, checked). Kept as JSON
/// values so that messages print them as JSON text (`crate::json::text`) rather than with
/// core's float formatting.
type Bounds<'a> = (Option<&'a Value>, Option<&'a Value>);

fn outside(x: f64, (lo, hi): Bounds<'_>) -> bool {
    lo.and_then(Value::as_f64).is_some_and(|m| x < m)
        || hi.and_then(Value::as_f64).is_some_and(|m| x > m)
}

fn range((lo, hi): Bounds<'_>) -> String {
    let show = |b: Option<&Value>| b.map_or(String::new(), json_text);
    format!("{}..{}", show(lo), show(hi))
}

/// One property of a form schema, as far as checking answers goes.
enum Field<'a> {
    Text(Bounds<'a>, Option<&'a str>),
    Number(bool, Bounds<'a>),
    Bool,
    /// Single select: the allowed values.
    One(Vec<&'a str>),
    /// Multi select: the allowed values, minItems/maxItems.
    Many(Vec<&'a str>, Bounds<'a>),
}

/// The `const` values of `oneOf`/`anyOf` options, or the strings of `enum`.
fn options<'a>(s: &'a Map, name: &str) -> Result<Option<Vec<&'a str>>, Error> {
    let bad = |what: &str| schema_error(format!("property '{}': {what}", sanitize(name, 60)));
    if let Some(e) = s.get("enum") {
        let vals = e.as_array().ok_or_else(|| bad("enum must be an array"))?;
        return vals
            .iter()
            .map(|v| v.as_str().ok_or_else(|| bad("enum values must be strings")))
            .collect::<Result<_, _>>()
            .map(Some);
    }
    for kw in ["oneOf", "anyOf"] {
        if let Some(o) = s.get(kw) {
            let opts = o
                .as_array()
                .ok_or_else(|| bad("oneOf/anyOf must be an array"))?;
            return opts
                .iter()
                .map(|opt| {
                    opt.get("const")
                        .and_then(Value::as_str)
                        .ok_or_else(|| bad("each option needs a string const"))
                })
                .collect::<Result<_, _>>()
                .map(Some);
        }
    }
    Ok(None)
}

fn field<'a>(name: &str, s: &'a Value) -> Result<Field<'a>, Error> {
    let bad = |what: &str| schema_error(format!("property '{}': {what}", sanitize(name, 60)));
    let s = s.as_object().ok_or_else(|| bad("not an object"))?;
    let num = |k: &str| -> Result<Option<&'a Value>, Error> {
        match s.get(k) {
            None => Ok(None),
            Some(v) if v.is_number() => Ok(Some(v)),
            Some(_) => Err(bad(&format!("{k} must be a number"))),
        }
    };
    Ok(match s.get("type").and_then(Value::as_str) {
        Some("string") => match options(s, name)? {
            Some(opts) => Field::One(opts),
            None => Field::Text(
                (num("minLength")?, num("maxLength")?),
                s.get("format").and_then(Value::as_str),
            ),
        },
        Some(t @ ("number" | "integer")) => {
            Field::Number(t == "integer", (num("minimum")?, num("maximum")?))
        }
        Some("boolean") => Field::Bool,
        Some("array") => {
            let items = s
                .get("items")
                .and_then(Value::as_object)
                .ok_or_else(|| bad("array without items"))?;
            let opts = options(items, name)?.ok_or_else(|| bad("array items must be an enum"))?;
            Field::Many(opts, (num("minItems")?, num("maxItems")?))
        }
        _ => {
            return Err(bad(
                "type must be string, number, integer, boolean or array",
            ))
        }
    })
}

/// Checks one answered value; pushes problems; returns the value to send.
fn check_value(
    name: &str,
    f: &Field<'_>,
    v: &Value,
    problems: &mut Vec<(String, String)>,
) -> Value {
    let mut fail = |m: String| problems.push((ptr(name), m));
    match (f, v) {
        (Field::Text(b, format), Value::String(s)) => {
            // Lengths count code points, as JSON Schema does.
            let n = s.chars().count();
            if outside(n as f64, *b) {
                fail(format!("length {n} is outside {}", range(*b)));
            }
            let good = match *format {
                Some("email") => formats::is_email(s),
                Some("uri") => formats::is_uri(s),
                Some("date") => formats::is_date(s),
                Some("date-time") => formats::is_date_time(s),
                _ => true,
            };
            if !good {
                fail(format!("not a valid {}", format.unwrap_or("")));
            }
        }
        (Field::Number(integer, b), Value::Number(n)) => {
            let x = n.as_f64().unwrap_or(0.0);
            if *integer && x.fract() != 0.0 {
                fail(format!("{} is not an integer", json_text(v)));
            } else if outside(x, *b) {
                fail(format!("{} is outside {}", json_text(v), range(*b)));
            } else if *integer && !(n.is_i64() || n.is_u64()) && x.abs() < 9_007_199_254_740_992.0 {
                // 3.0 for an integer field goes out as 3.
                return Value::Number(Number::from(x as i64));
            }
        }
        (Field::Bool, Value::Bool(_)) => {}
        (Field::One(opts), Value::String(s)) => {
            if !opts.contains(&s.as_str()) {
                fail(format!("'{}' is not one of the options", sanitize(s, 60)));
            }
        }
        (Field::Many(opts, b), Value::Array(items)) => {
            for (i, it) in items.iter().enumerate() {
                match it.as_str() {
                    Some(s) if opts.contains(&s) => {
                        if items.iter().take(i).any(|p| json_eq(p, it)) {
                            fail(format!("'{}' is selected twice", sanitize(s, 60)));
                        }
                    }
                    _ => fail(format!(
                        "{} is not one of the options",
                        sanitize(&json_text(it), 60)
                    )),
                }
            }
            let n = items.len();
            if outside(n as f64, *b) {
                fail(format!("{n} selected, allowed {}", range(*b)));
            }
        }
        (f, v) => {
            let want = match f {
                Field::Text(..) | Field::One(_) => "a string",
                Field::Number(true, _) => "an integer",
                Field::Number(..) => "a number",
                Field::Bool => "a boolean",
                Field::Many(..) => "an array of strings",
            };
            fail(format!(
                "expected {want}, got {}",
                sanitize(&json_text(v), 40)
            ));
        }
    }
    v.clone()
}

/// Checks a host's `ElicitResult` for a FORM request before it is sent to the server.
///
/// `accept`: `content` must be an object that satisfies `requestedSchema` (types,
/// `required`, single and multi-select enums, min/max, lengths in code points, the
/// formats email/uri/date/date-time, integer vs number, no properties outside the
/// schema). An optional field answered `null` is dropped, and an integral number for an
/// `integer` field is sent as an integer. A field left out of `content` (absent, not
/// `null`) gets the property's `default` when it has a valid one (SEP-1034: the defaults
/// a form pre-fills; answer `null` to leave such a field empty). `content` may be missing only when nothing is
/// required (it is then sent as `{}`).
///
/// `decline`/`cancel`: no content is needed; **content, if present, is dropped** from the
/// returned value, and `requestedSchema` is not looked at. `_meta` (an object) is kept in
/// every case; other fields are dropped.
///
/// Returns the `ElicitResult` to send. Errors: [`ErrorKind::InputValidation`] for the
/// answer (message: the first problem; `data.errors`: `[{path, message}]`), or
/// [`ErrorKind::InvalidResult`] when `requestedSchema` is not a form schema.
pub fn check_form_answer(requested_schema: &Value, answer: &Value) -> Result<Value, Error> {
    // The action first: a decline or cancel goes out whatever the schema looks like.
    let (action, mut out) = action_of(answer)?;
    if action != "accept" {
        return Ok(Value::Object(out));
    }
    let schema = requested_schema
        .as_object()
        .ok_or_else(|| schema_error("not an object".into()))?;
    if schema.get("type").is_some_and(|t| t != "object") {
        return Err(schema_error("type must be \"object\"".into()));
    }
    let props = match schema.get("properties") {
        Some(p) => p
            .as_object()
            .ok_or_else(|| schema_error("properties must be an object".into()))?,
        None => &Map::new(),
    };
    let fields = props
        .iter()
        .map(|(k, s)| Ok((k.as_str(), field(k, s)?)))
        .collect::<Result<Vec<_>, Error>>()?;
    let required = match schema.get("required") {
        None => Vec::new(),
        Some(r) => r
            .as_array()
            .and_then(|a| a.iter().map(Value::as_str).collect::<Option<Vec<_>>>())
            .ok_or_else(|| schema_error("required must be an array of strings".into()))?,
    };
    if let Some(r) = required.iter().find(|r| !props.contains_key(r)) {
        return Err(schema_error(format!(
            "required property '{}' is not defined",
            sanitize(r, 60)
        )));
    }

    let empty = Map::new();
    let content = match answer.get("content") {
        Some(Value::Object(c)) => c,
        None if required.is_empty() => &empty,
        Some(_) => {
            return Err(input_error(vec![(
                "/content".into(),
                "content must be an object".into(),
            )]))
        }
        None => {
            return Err(input_error(vec![(
                "/content".into(),
                "accept needs content".into(),
            )]))
        }
    };
    let mut problems = Vec::new();
    let mut sent = Map::new();
    for (k, v) in content {
        match fields.iter().find(|(n, _)| n == k) {
            None => problems.push((
                ptr(k),
                format!("'{}' is not a field of the form", sanitize(k, 60)),
            )),
            // null: an optional field left empty is dropped; a required one is reported below.
            Some(_) if v.is_null() => {}
            Some((name, f)) => {
                sent.insert(k.clone(), check_value(name, f, v, &mut problems));
            }
        }
    }
    // SEP-1034: a field the answer leaves out (absent, not `null`) gets the schema's
    // `default`, as a pre-filled form would have sent it. A default that does not satisfy
    // its own property is the server's mistake: it is not sent.
    for ((name, f), (_, prop)) in fields.iter().zip(props.iter()) {
        if content.contains_key(name) {
            continue;
        }
        if let Some(d) = prop.get("default").filter(|d| !d.is_null()) {
            let mut bad = Vec::new();
            let v = check_value(name, f, d, &mut bad);
            if bad.is_empty() {
                sent.insert((*name).to_string(), v);
            }
        }
    }
    for r in &required {
        if !sent.contains_key(r) {
            problems.push((ptr(r), "required".into()));
        }
    }
    if !problems.is_empty() {
        return Err(input_error(problems));
    }
    out.insert("content".into(), Value::Object(sent));
    Ok(Value::Object(out))
}

/// URL-mode answer: `accept` (no content: the interaction happens out of band; content,
/// if present, is dropped), `decline` or `cancel`. Returns the `ElicitResult` to send.
pub fn check_url_answer(answer: &Value) -> Result<Value, Error> {
    action_of(answer).map(|(_, out)| Value::Object(out))
}

#[cfg(test)]
mod tests;
