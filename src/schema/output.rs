//! Tool output validation: `structuredContent` against the tool's `outputSchema`
//! (server/tools "Output Schema": clients SHOULD validate structured results).
//!
//! ## Why a hand-written validator
//! Measured in `SIZE.md`: the `jsonschema` crate (no default features) adds ~650 KB gzip of
//! wasm and `boon` ~410 KB, against a whole-client target well under 88 KB. This module
//! implements the JSON Schema 2020-12 applicator, validation and unevaluated vocabularies
//! in a few KB and is checked against the official JSON-Schema-Test-Suite (`SIZE.md` gives
//! the figures; the vectors in the tests below mirror it).
//!
//! ## Behaviour
//! - Dialect: 2020-12 unless the root's `$schema` names draft-04/06/07, in which case
//!   `$ref` overrides its siblings. In every dialect `dependencies` is honoured, an
//!   array-valued `items` is a tuple and `additionalItems` then applies (2019-09 and
//!   earlier); in 2020-12 a schema-valued `items` applies after `prefixItems`.
//! - `$ref`/`$dynamicRef`/`$anchor`/`$dynamicAnchor`/`$defs`/embedded `$id` resolve inside
//!   the document only. **A reference to anything outside it is never fetched:**
//!   [`OutputSchema::compile`] fails, and the caller treats the tool's results as not
//!   validatable (a warning for the host, not an error for the call).
//! - `format`, `content*`, `title`, `description`, `default`, `examples` are annotations;
//!   unknown keywords are ignored.
//! - `pattern`/`patternProperties` use the small ECMA-262 subset in `super::regex`; a
//!   pattern outside it makes compiling fail (not validatable) rather than pass silently.
//!   A pattern that runs out of its work budget counts as matching.
//! - Evaluation depth is bounded (`MAX_DEPTH`): a reference loop or an absurdly deep
//!   instance is reported as a validation failure, never a stack overflow.

use super::index::{pointer, push_token, Index};
use crate::error::{json_text, sanitize, Error, ErrorKind};
use crate::json::{Map, Value};

/// Deepest evaluation (schema frames, including followed references).
pub(crate) const MAX_DEPTH: usize = 256;
/// Errors listed in `data.errors`.
const MAX_ERRORS: usize = 10;

/// A compiled outputSchema, reusable across calls.
#[derive(Debug)]
pub struct OutputSchema {
    /// Boxed and never mutated: [`Index`] identifies `$ref`/`$id` nodes by address.
    root: Box<Value>,
    ix: Index,
    legacy: bool,
}

#[derive(Clone, Copy)]
enum Seg<'a> {
    Key(&'a str),
    Idx(usize),
}

fn path_of(segs: &[Seg<'_>]) -> String {
    let mut s = String::new();
    for seg in segs {
        match seg {
            Seg::Key(k) => push_token(&mut s, k),
            Seg::Idx(i) => {
                s.push('/');
                s.push_str(&i.to_string());
            }
        }
    }
    s
}

/// Which properties (by index in the instance object) and items were evaluated
/// successfully, for `unevaluatedProperties`/`unevaluatedItems`.
#[derive(Default)]
struct Ann {
    props: Vec<bool>,
    items: Vec<bool>,
}

impl Ann {
    fn for_inst(inst: &Value) -> Ann {
        match inst {
            Value::Object(o) => Ann {
                props: vec![false; o.len()],
                items: Vec::new(),
            },
            Value::Array(a) => Ann {
                props: Vec::new(),
                items: vec![false; a.len()],
            },
            _ => Ann::default(),
        }
    }
    fn merge(&mut self, other: &Ann) {
        for (a, b) in self.props.iter_mut().zip(&other.props) {
            *a |= b;
        }
        for (a, b) in self.items.iter_mut().zip(&other.items) {
            *a |= b;
        }
    }
}

/// Records that item/property `i` was evaluated.
fn mark(seen: &mut [bool], i: usize) {
    if let Some(s) = seen.get_mut(i) {
        *s = true;
    }
}

/// JSON equality as JSON Schema defines it: numbers by value (`1 == 1.0`), objects
/// regardless of key order.
pub(crate) fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(p), Some(q), _, _) => p == q,
                (_, _, Some(p), Some(q)) => p == q,
                _ => x.as_f64() == y.as_f64(),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn has_type(v: &Value, t: &str) -> bool {
    match (t, v) {
        ("integer", Value::Number(n)) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => t == type_name(v),
    }
}

fn short(v: &Value) -> String {
    sanitize(&json_text(v), 60)
}

struct Run<'a> {
    s: &'a OutputSchema,
    errors: Vec<(String, String, String)>,
    ipath: Vec<Seg<'a>>,
    spath: Vec<Seg<'a>>,
    scope: Vec<usize>,
    depth: usize,
    too_deep: bool,
}

impl<'a> Run<'a> {
    fn err(&mut self, kw: &'a str, msg: String) {
        if self.errors.len() < MAX_ERRORS {
            let mut sp = path_of(&self.spath);
            if !kw.is_empty() {
                push_token(&mut sp, kw);
            }
            self.errors.push((path_of(&self.ipath), sp, msg));
        }
    }

    /// Evaluates `sub` (found at schema path `seg`) against `inst` (at instance path
    /// `iseg`); on success its annotations go into `ann` when given.
    fn sub(
        &mut self,
        sub: &'a Value,
        seg: &[Seg<'a>],
        inst: &'a Value,
        iseg: Option<Seg<'a>>,
        collect: bool,
        ann: Option<&mut Ann>,
    ) -> bool {
        let (sl, il) = (self.spath.len(), self.ipath.len());
        self.spath.extend_from_slice(seg);
        self.ipath.extend(iseg);
        let mut mine = Ann::for_inst(inst);
        let ok = self.eval(sub, inst, collect, &mut mine);
        if ok {
            if let Some(a) = ann {
                a.merge(&mine);
            }
        }
        self.spath.truncate(sl);
        self.ipath.truncate(il);
        ok
    }

    fn follow(
        &mut self,
        r: &'a Value,
        kw: &'a str,
        inst: &'a Value,
        collect: bool,
        ann: &mut Ann,
    ) -> bool {
        let addr = r as *const Value as usize;
        let ix = &self.s.ix;
        let Some(rf) = ix.refs.iter().find(|r| r.addr == addr) else {
            return true; // not a reference compile() saw: cannot happen for a compiled schema
        };
        let (mut target, mut resource) = (rf.target.as_str(), rf.resource);
        if let Some(name) = &rf.dynamic {
            // 2020-12 core §8.2.3.2: the outermost resource in the dynamic scope that
            // declares a `$dynamicAnchor` of this name.
            if let Some((i, p)) = self.scope.iter().find_map(|&i| {
                ix.resources[i]
                    .dyn_anchors
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, p)| (i, p))
            }) {
                (target, resource) = (p.as_str(), i);
            }
        }
        let Some(node) = pointer(&self.s.root, target) else {
            return true;
        };
        let pushed = self.scope.last() != Some(&resource);
        if pushed {
            self.scope.push(resource);
        }
        let ok = self.sub(node, &[Seg::Key(kw)], inst, None, collect, Some(ann));
        if pushed {
            self.scope.pop();
        }
        ok
    }

    /// Evaluates `schema` against `inst`. `collect`: record errors (else stop at the first
    /// failure). `ann` receives the annotations of this schema.
    fn eval(&mut self, schema: &'a Value, inst: &'a Value, collect: bool, ann: &mut Ann) -> bool {
        let obj = match schema {
            Value::Bool(true) => return true,
            Value::Object(o) => o,
            _ => {
                if collect {
                    self.err("", "no value is allowed here (schema false)".into());
                }
                return false;
            }
        };
        if self.depth >= MAX_DEPTH || self.too_deep {
            if !self.too_deep && collect {
                self.err(
                    "",
                    format!("schema or value nested deeper than {MAX_DEPTH} levels"),
                );
            }
            self.too_deep = true;
            return false;
        }
        self.depth += 1;
        let pushed = match obj.get("$id") {
            Some(id) => {
                let addr = id as *const Value as usize;
                match self.s.ix.resources.iter().position(|r| r.id_addr == addr) {
                    Some(i) if self.scope.last() != Some(&i) => {
                        self.scope.push(i);
                        true
                    }
                    _ => false,
                }
            }
            None => false,
        };
        let ok = self.keywords(obj, inst, collect, ann);
        if pushed {
            self.scope.pop();
        }
        self.depth -= 1;
        ok
    }

    fn keywords(&mut self, obj: &'a Map, inst: &'a Value, collect: bool, ann: &mut Ann) -> bool {
        let mut ok = true;
        macro_rules! fail {
            ($kw:expr, $($msg:tt)+) => {{
                ok = false;
                if !collect { return false; }
                self.err($kw, format!($($msg)+));
            }};
        }
        if self.s.legacy {
            if let Some(r) = obj.get("$ref") {
                return self.follow(r, "$ref", inst, collect, ann);
            }
        }
        for (kw, v) in obj {
            let kw = kw.as_str();
            let step = match kw {
                "$ref" | "$dynamicRef" => self.follow(v, kw, inst, collect, ann),
                "type" => {
                    let good = match v {
                        Value::String(t) => has_type(inst, t),
                        Value::Array(ts) => ts
                            .iter()
                            .any(|t| t.as_str().is_some_and(|t| has_type(inst, t))),
                        _ => true,
                    };
                    if !good {
                        let want = match v {
                            Value::String(t) => sanitize(t, 40),
                            _ => short(v),
                        };
                        fail!(kw, "expected {want}, got {}", type_name(inst));
                    }
                    true
                }
                "enum" => {
                    if !v
                        .as_array()
                        .is_none_or(|a| a.iter().any(|e| json_eq(e, inst)))
                    {
                        fail!(kw, "{} is not one of the allowed values", short(inst));
                    }
                    true
                }
                "const" => {
                    if !json_eq(v, inst) {
                        fail!(kw, "{} is not the required value {}", short(inst), short(v));
                    }
                    true
                }
                "allOf" | "anyOf" | "oneOf" => self.combine(kw, v, inst, collect, ann),
                "not" => {
                    if self.sub(v, &[Seg::Key(kw)], inst, None, false, None) {
                        fail!(kw, "value must not match the 'not' schema");
                    }
                    true
                }
                "if" => {
                    let (sub, key) = if self.sub(v, &[Seg::Key(kw)], inst, None, false, Some(ann)) {
                        (obj.get("then"), "then")
                    } else {
                        (obj.get("else"), "else")
                    };
                    sub.is_none_or(|s| {
                        self.sub(s, &[Seg::Key(key)], inst, None, collect, Some(ann))
                    })
                }
                // `dependencies` (draft-07) is honoured in every dialect, as the suite's
                // optional compatibility tests ask.
                "dependentSchemas" | "dependencies" if inst.is_object() => {
                    let mut good = true;
                    for (name, s) in v.as_object().into_iter().flatten() {
                        if inst.get(name).is_none() {
                            continue;
                        }
                        if let Value::Array(req) = s {
                            for r in req.iter().filter_map(Value::as_str) {
                                if inst.get(r).is_none() {
                                    fail!(
                                        kw,
                                        "property '{}' is required when '{}' is present",
                                        sanitize(r, 60),
                                        sanitize(name, 60)
                                    );
                                }
                            }
                        } else if !self.sub(
                            s,
                            &[Seg::Key(kw), Seg::Key(name)],
                            inst,
                            None,
                            collect,
                            Some(ann),
                        ) {
                            good = false;
                            if !collect {
                                return false;
                            }
                        }
                    }
                    good
                }
                _ => match inst {
                    Value::Number(n) => {
                        self.number(kw, v, inst, n.as_f64().unwrap_or(0.0), collect)
                    }
                    Value::String(s) => self.string(kw, v, s, collect),
                    Value::Array(a) => self.array(obj, kw, v, a, collect, ann),
                    Value::Object(o) => self.object(obj, kw, v, o, collect, ann),
                    _ => true,
                },
            };
            if !step {
                ok = false;
                if !collect {
                    return false;
                }
            }
        }
        // Unevaluated keywords see the annotations of everything else (core §11).
        if let (Some(u), Value::Object(o)) = (obj.get("unevaluatedProperties"), inst) {
            for (i, (k, val)) in o.iter().enumerate() {
                if ann.props.get(i) == Some(&false) {
                    if self.sub(
                        u,
                        &[Seg::Key("unevaluatedProperties")],
                        val,
                        Some(Seg::Key(k)),
                        false,
                        None,
                    ) {
                        mark(&mut ann.props, i);
                    } else {
                        fail!(
                            "unevaluatedProperties",
                            "property '{}' is not allowed (unevaluated)",
                            sanitize(k, 60)
                        );
                    }
                }
            }
        }
        if let (Some(u), Value::Array(a)) = (obj.get("unevaluatedItems"), inst) {
            for (i, val) in a.iter().enumerate() {
                if ann.items.get(i) == Some(&false) {
                    if self.sub(
                        u,
                        &[Seg::Key("unevaluatedItems")],
                        val,
                        Some(Seg::Idx(i)),
                        collect,
                        None,
                    ) {
                        mark(&mut ann.items, i);
                    } else if !collect {
                        return false;
                    } else {
                        ok = false;
                    }
                }
            }
        }
        ok
    }

    fn combine(
        &mut self,
        kw: &'a str,
        v: &'a Value,
        inst: &'a Value,
        collect: bool,
        ann: &mut Ann,
    ) -> bool {
        let Some(subs) = v.as_array() else {
            return true;
        };
        let mut passed = 0;
        let mut good = true;
        for (i, s) in subs.iter().enumerate() {
            // allOf reports the sub-errors; anyOf/oneOf report one error of their own.
            let c = collect && kw == "allOf";
            if self.sub(s, &[Seg::Key(kw), Seg::Idx(i)], inst, None, c, Some(ann)) {
                passed += 1;
            } else if kw == "allOf" {
                good = false;
                if !collect {
                    return false;
                }
            }
        }
        if kw == "anyOf" && passed == 0 {
            if collect {
                self.err(kw, "value does not match any schema in anyOf".into());
            }
            return false;
        }
        if kw == "oneOf" && passed != 1 {
            if collect {
                self.err(
                    kw,
                    format!("value matches {passed} schemas in oneOf, expected exactly 1"),
                );
            }
            return false;
        }
        good
    }
}

impl OutputSchema {
    /// Compiles a schema; `Err(reason)` when it cannot be used (a remote `$ref`, a
    /// pattern outside the supported subset, an invalid schema). The reason is sanitized.
    pub fn compile(schema: &Value) -> Result<OutputSchema, String> {
        let legacy = schema
            .get("$schema")
            .and_then(Value::as_str)
            .is_some_and(|s| {
                s.as_bytes()
                    .windows(8)
                    .any(|w| matches!(w, b"draft-04" | b"draft-06" | b"draft-07"))
            });
        let root = Box::new(schema.clone());
        let ix = Index::build(&root, legacy)?;
        Ok(OutputSchema { root, ix, legacy })
    }

    /// `Ok(())`, or an [`ErrorKind::OutputValidation`] error whose `data` is
    /// `{"path": <JSON pointer of the first failure>, "schemaPath": <keyword location>,
    /// "errors": [{"path", "message"}, …]}` (at most 10 errors).
    pub fn validate(&self, instance: &Value) -> Result<(), Error> {
        let mut run = Run {
            s: self,
            errors: Vec::new(),
            ipath: Vec::new(),
            spath: Vec::new(),
            scope: vec![0],
            depth: 0,
            too_deep: false,
        };
        let mut ann = Ann::for_inst(instance);
        if run.eval(&self.root, instance, true, &mut ann) {
            return Ok(());
        }
        if run.errors.is_empty() {
            run.errors.push((
                String::new(),
                String::new(),
                "value does not match the schema".into(),
            ));
        }
        let (path, schema_path, msg) = &run.errors[0];
        let at = if path.is_empty() {
            "the root".to_string()
        } else {
            format!("'{}'", sanitize(path, 200))
        };
        // Maps by hand: the strings move in (`json!` takes its leaves by reference and
        // clones them).
        let entry = |p: &str, m: &str| {
            let mut e = Map::new();
            e.insert("path".into(), Value::String(p.into()));
            e.insert("message".into(), Value::String(m.into()));
            Value::Object(e)
        };
        let errors = run.errors.iter().map(|(p, _, m)| entry(p, m)).collect();
        let mut data = Map::new();
        data.insert("path".into(), Value::String(path.clone()));
        data.insert("schemaPath".into(), Value::String(schema_path.clone()));
        data.insert("errors".into(), Value::Array(errors));
        let message =
            format!("structuredContent does not match the tool's outputSchema at {at}: {msg}");
        Err(Error::new(ErrorKind::OutputValidation, message).with_data(Value::Object(data)))
    }
}

mod typed;

#[cfg(test)]
mod tests;
