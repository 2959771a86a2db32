//! Compile-time work for [`super::output::OutputSchema`]: walks a schema once, checks the
//! keyword values it relies on, finds the schema resources (`$id`), anchors (`$anchor`,
//! `$dynamicAnchor`) and references (`$ref`, `$dynamicRef`), and resolves every reference
//! to a JSON pointer inside the same document.
//!
//! References are resolved with RFC 3986 §5.2 against the base URI given by the nearest
//! enclosing `$id` (JSON Schema 2020-12 core §8.2). A reference whose target is not inside
//! the document (a "remote" reference) is never fetched: compiling fails, and the caller
//! reports the schema as not validatable.

use super::regex::Regex;
use crate::error::sanitize;
use crate::json::{Map, Value};

/// Base URI of a root schema without `$id`. Relative references resolve against it and so
/// stay distinguishable from network URIs.
const DEFAULT_BASE: &str = "mcp:output-schema";
/// Deepest schema nesting accepted at compile time.
const MAX_SCHEMA_DEPTH: usize = 200;

/// A schema resource: the root, or a subschema with `$id`.
#[derive(Debug)]
pub(crate) struct Resource {
    pub uri: String,
    pub ptr: String,
    /// Address of the `$id` value, to recognise the resource when evaluation enters it.
    pub id_addr: usize,
    /// `$dynamicAnchor` names with the pointer of the subschema that declares them.
    pub dyn_anchors: Vec<(String, String)>,
}

/// A resolved `$ref` or `$dynamicRef`.
#[derive(Debug)]
pub(crate) struct Ref {
    /// Address of the reference's string value (stable: the schema is boxed and immutable).
    pub addr: usize,
    pub target: String,
    /// The resource that contains the target (pushed on the dynamic scope).
    pub resource: usize,
    /// For a `$dynamicRef` whose static target is a `$dynamicAnchor` of the same name:
    /// that name, to be looked up in the dynamic scope at evaluation time.
    pub dynamic: Option<String>,
}

#[derive(Default, Debug)]
pub(crate) struct Index {
    pub resources: Vec<Resource>,
    /// Looked up linearly (schemas hold few; a sort would cost more wasm than it saves).
    pub refs: Vec<Ref>,
    /// Compiled patterns (`pattern` values and `patternProperties` keys), each once.
    pub patterns: Vec<(String, Regex)>,
    /// `uri#name` → pointer, and whether it is a `$dynamicAnchor`.
    anchors: Vec<(String, String, bool)>,
    /// `(base uri, pointer of the referencing schema, addr, reference text, dynamic)`.
    pending: Vec<(String, usize, String, bool)>,
    /// Addresses of every subschema already walked.
    seen: Vec<usize>,
}

/// Appends a JSON pointer token (RFC 6901 escaping).
pub(crate) fn push_token(ptr: &mut String, token: &str) {
    ptr.push('/');
    for c in token.chars() {
        match c {
            '~' => ptr.push_str("~0"),
            '/' => ptr.push_str("~1"),
            c => ptr.push(c),
        }
    }
}

struct Parts<'a> {
    scheme: Option<&'a str>,
    authority: Option<&'a str>,
    path: &'a str,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

fn parse(s: &str) -> Parts<'_> {
    let (s, fragment) = match crate::text::split_once(s, "#") {
        Some((a, f)) => (a, Some(f)),
        None => (s, None),
    };
    let (s, query) = match crate::text::split_once(s, "?") {
        Some((a, q)) => (a, Some(q)),
        None => (s, None),
    };
    // `split_once`/`split_at_checked` rather than `s[..i]`: a range index on a `str` links
    // core's panic formatting with its Unicode tables into the wasm.
    let (scheme, s) = match crate::text::split_once(s, ":") {
        Some((sc, rest))
            if sc.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
                && !sc.as_bytes().contains(&b'/') =>
        {
            (Some(sc), rest)
        }
        _ => (None, s),
    };
    let (authority, path) = match s.strip_prefix("//") {
        Some(rest) => {
            let (a, p) = rest
                .split_at_checked(crate::text::find(rest, "/").unwrap_or(rest.len()))
                .unwrap_or((rest, ""));
            (Some(a), p)
        }
        None => (None, s),
    };
    Parts {
        scheme,
        authority,
        path,
        query,
        fragment,
    }
}

/// RFC 3986 §5.2.4.
fn remove_dot_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segs: Vec<&str> = crate::text::split(path, "/").collect();
    for (i, seg) in segs.iter().enumerate() {
        let last = i + 1 == segs.len();
        match *seg {
            "." => {
                if last {
                    out.push("");
                }
            }
            ".." => {
                if out.len() > 1 {
                    out.pop();
                }
                if last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    crate::text::join(out, "/")
}

/// Resolves `reference` against `base` (RFC 3986 §5.2.2); the result keeps the fragment.
pub(crate) fn resolve(base: &str, reference: &str) -> String {
    let r = parse(reference);
    let b = parse(base);
    let (scheme, authority, path, query);
    if r.scheme.is_some() {
        (scheme, authority, path, query) =
            (r.scheme, r.authority, remove_dot_segments(r.path), r.query);
    } else {
        scheme = b.scheme;
        if r.authority.is_some() {
            (authority, path, query) = (r.authority, remove_dot_segments(r.path), r.query);
        } else {
            authority = b.authority;
            if r.path.is_empty() {
                path = b.path.to_string();
                query = r.query.or(b.query);
            } else {
                let merged = if r.path.starts_with('/') {
                    r.path.to_string()
                } else if b.authority.is_some() && b.path.is_empty() {
                    format!("/{}", r.path)
                } else {
                    let dir = crate::text::rsplit_once(b.path, "/").map_or("", |(d, _)| d);
                    let slash = if b.path.as_bytes().contains(&b'/') {
                        "/"
                    } else {
                        ""
                    };
                    format!("{dir}{slash}{}", r.path)
                };
                path = remove_dot_segments(&merged);
                query = r.query;
            }
        }
    }
    let mut out = String::new();
    if let Some(s) = scheme {
        out.push_str(s);
        out.push(':');
    }
    if let Some(a) = authority {
        out.push_str("//");
        out.push_str(a);
    }
    out.push_str(&path);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    if let Some(f) = r.fragment.filter(|f| !f.is_empty()) {
        out.push('#');
        out.push_str(f);
    }
    out
}

/// RFC 6901 pointer lookup. `Value::pointer` would do, but it links `str::replace` and
/// the substring searcher.
pub(crate) fn pointer<'v>(root: &'v Value, ptr: &str) -> Option<&'v Value> {
    let mut node = root;
    if ptr.is_empty() {
        return Some(node);
    }
    let rest = ptr.strip_prefix('/')?;
    for raw in crate::text::split(rest, "/") {
        let mut token = String::new();
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            token.push(match (c, c == '~') {
                (_, true) => match chars.next()? {
                    '0' => '~',
                    '1' => '/',
                    _ => return None,
                },
                (c, _) => c,
            });
        }
        node = match node {
            Value::Object(m) => m.get(&token)?,
            Value::Array(a) => {
                if token.starts_with('+') || (token.len() > 1 && token.starts_with('0')) {
                    return None;
                }
                a.get(usize::try_from(crate::text::digits(&token)?).ok()?)?
            }
            _ => return None,
        };
    }
    Some(node)
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let h = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(h, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn is_ptr_prefix(prefix: &str, ptr: &str) -> bool {
    ptr.strip_prefix(prefix)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

const SINGLE: [&str; 11] = [
    "additionalProperties",
    "additionalItems",
    "contains",
    "propertyNames",
    "if",
    "then",
    "else",
    "not",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
];
const ARRAYS: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];
const MAPS: [&str; 5] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
const COUNTS: [&str; 8] = [
    "maxLength",
    "minLength",
    "maxItems",
    "minItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
];
const NUMBERS: [&str; 5] = [
    "multipleOf",
    "maximum",
    "minimum",
    "exclusiveMaximum",
    "exclusiveMinimum",
];
const TYPES: [&str; 7] = [
    "null", "boolean", "object", "array", "number", "integer", "string",
];

fn bad(ptr: &str, what: &str) -> String {
    format!("invalid schema at '{}': {what}", sanitize(ptr, 200))
}

impl Index {
    /// Walks `root` and resolves its references.
    pub(crate) fn build(root: &Value, legacy: bool) -> Result<Index, String> {
        let mut ix = Index::default();
        let base = match root.get("$id").and_then(Value::as_str) {
            Some(id) => {
                let uri = resolve(DEFAULT_BASE, id);
                crate::text::split_once(&uri, "#")
                    .map_or(uri.as_str(), |(u, _)| u)
                    .to_string()
            }
            None => DEFAULT_BASE.to_string(),
        };
        ix.resources.push(Resource {
            uri: base.clone(),
            ptr: String::new(),
            id_addr: root.get("$id").map_or(0, |v| v as *const Value as usize),
            dyn_anchors: Vec::new(),
        });
        ix.walk(root, String::new(), &base, 0, legacy)?;
        // References into places the walk did not enter (e.g. an unknown keyword) are walked
        // from their target, then resolved in turn, until nothing new turns up.
        let mut refs = Vec::new();
        while let Some((base, addr, text, dynamic)) = ix.pending.pop() {
            let (target, resource, anchor) = ix.lookup(&base, &text)?;
            let node = pointer(root, &target)
                .ok_or_else(|| format!("unresolvable $ref '{}'", sanitize(&text, 200)))?;
            if !ix.seen.contains(&(node as *const Value as usize)) {
                let rbase = ix.resources[resource].uri.clone();
                ix.walk(node, target.clone(), &rbase, 0, legacy)?;
            }
            let dynamic = match anchor {
                Some((name, true)) if dynamic => Some(name),
                _ => None,
            };
            refs.push(Ref {
                addr,
                target,
                resource,
                dynamic,
            });
        }
        ix.refs = refs;
        Ok(ix)
    }

    /// Resolves a reference to (pointer, containing resource, anchor name and whether dynamic).
    #[allow(clippy::type_complexity)]
    fn lookup(
        &self,
        base: &str,
        text: &str,
    ) -> Result<(String, usize, Option<(String, bool)>), String> {
        let full = resolve(base, text);
        let (doc, frag) = crate::text::split_once(&full, "#").unwrap_or((&full, ""));
        let Some(res) = self.resources.iter().position(|r| r.uri == doc) else {
            return Err(format!(
                "$ref '{}' points outside the schema ({}); remote references are not fetched",
                sanitize(text, 200),
                sanitize(doc, 200)
            ));
        };
        let mut anchor = None;
        let target = if frag.is_empty() {
            self.resources[res].ptr.clone()
        } else if frag.starts_with('/') {
            let decoded = percent_decode(frag)
                .ok_or_else(|| format!("bad $ref '{}'", sanitize(text, 200)))?;
            format!("{}{}", self.resources[res].ptr, decoded)
        } else {
            let key = format!("{doc}#{frag}");
            let (_, ptr, dynamic) = self
                .anchors
                .iter()
                .find(|a| a.0 == key)
                .ok_or_else(|| format!("$ref '{}': no such anchor", sanitize(text, 200)))?;
            anchor = Some((frag.to_string(), *dynamic));
            ptr.clone()
        };
        // The innermost resource whose subtree holds the target.
        let resource = (0..self.resources.len())
            .filter(|&i| is_ptr_prefix(&self.resources[i].ptr, &target))
            .max_by_key(|&i| self.resources[i].ptr.len())
            .unwrap_or(res);
        Ok((target, resource, anchor))
    }

    fn walk(
        &mut self,
        node: &Value,
        ptr: String,
        base: &str,
        depth: usize,
        legacy: bool,
    ) -> Result<(), String> {
        let obj = match node {
            Value::Bool(_) => return Ok(()),
            Value::Object(o) => o,
            _ => return Err(bad(&ptr, "a schema must be an object or a boolean")),
        };
        if depth > MAX_SCHEMA_DEPTH {
            return Err(bad(&ptr, "nested too deeply"));
        }
        self.seen.push(node as *const Value as usize);
        let mut base = base.to_string();
        // Up to draft-07 a `$ref` hides its siblings, `$id` included.
        let id = obj
            .get("$id")
            .filter(|_| !(legacy && obj.contains_key("$ref")));
        if let Some(id) = id {
            let id = id
                .as_str()
                .ok_or_else(|| bad(&ptr, "$id must be a string"))?;
            let uri = resolve(&base, id);
            let uri = crate::text::split_once(&uri, "#")
                .map_or(uri.as_str(), |(u, _)| u)
                .to_string();
            let addr = obj.get("$id").map_or(0, |v| v as *const Value as usize);
            if !ptr.is_empty() {
                self.resources.push(Resource {
                    uri: uri.clone(),
                    ptr: ptr.clone(),
                    id_addr: addr,
                    dyn_anchors: Vec::new(),
                });
            }
            base = uri;
        }
        for (kw, dynamic) in [("$anchor", false), ("$dynamicAnchor", true)] {
            if let Some(a) = obj.get(kw) {
                let name = a
                    .as_str()
                    .ok_or_else(|| bad(&ptr, "anchors must be strings"))?;
                self.anchors
                    .push((format!("{base}#{name}"), ptr.clone(), dynamic));
                if dynamic {
                    let ptr = ptr.clone();
                    if let Some(r) = self.resources.iter_mut().rev().find(|r| r.uri == base) {
                        r.dyn_anchors.push((name.to_string(), ptr));
                    }
                }
            }
        }
        for (kw, dynamic) in [("$ref", false), ("$dynamicRef", true)] {
            if let Some(r) = obj.get(kw) {
                let text = r
                    .as_str()
                    .ok_or_else(|| bad(&ptr, "$ref must be a string"))?;
                self.pending.push((
                    base.clone(),
                    r as *const Value as usize,
                    text.to_string(),
                    dynamic,
                ));
            }
        }
        self.check_values(obj, &ptr)?;
        let sub = |ix: &mut Index, v: &Value, path: &[&str]| {
            let mut p = ptr.clone();
            for t in path {
                push_token(&mut p, t);
            }
            ix.walk(v, p, &base, depth + 1, legacy)
        };
        for (k, v) in obj {
            let k = k.as_str();
            if SINGLE.contains(&k) {
                sub(self, v, &[k])?;
            } else if ARRAYS.contains(&k) || k == "items" {
                match v {
                    Value::Array(a) if !a.is_empty() || k == "items" => {
                        for (i, s) in a.iter().enumerate() {
                            sub(self, s, &[k, &i.to_string()])?;
                        }
                    }
                    _ if k == "items" => sub(self, v, &[k])?,
                    _ => {
                        return Err(bad(
                            &ptr,
                            &format!("{k} must be a non-empty array of schemas"),
                        ))
                    }
                }
            } else if MAPS.contains(&k) || k == "dependencies" {
                let m = v
                    .as_object()
                    .ok_or_else(|| bad(&ptr, &format!("{k} must be an object")))?;
                for (name, s) in m {
                    if k == "patternProperties" {
                        self.add_pattern(name, &ptr)?;
                    }
                    if k == "dependencies" && s.is_array() {
                        continue;
                    }
                    sub(self, s, &[k, name])?;
                }
            }
        }
        Ok(())
    }

    fn add_pattern(&mut self, p: &str, ptr: &str) -> Result<(), String> {
        if self.patterns.iter().any(|(q, _)| q == p) {
            return Ok(());
        }
        let re = Regex::new(p).ok_or_else(|| {
            bad(
                ptr,
                &format!("pattern '{}' uses unsupported syntax", sanitize(p, 200)),
            )
        })?;
        self.patterns.push((p.to_string(), re));
        Ok(())
    }

    /// Checks the values of the assertion keywords, so that evaluation can rely on them.
    fn check_values(&mut self, obj: &Map, ptr: &str) -> Result<(), String> {
        for (k, v) in obj {
            let k = k.as_str();
            let ok = match k {
                "type" => match v {
                    Value::String(s) => TYPES.contains(&s.as_str()),
                    Value::Array(a) => a
                        .iter()
                        .all(|t| t.as_str().is_some_and(|t| TYPES.contains(&t))),
                    _ => false,
                },
                "enum" => v.is_array(),
                "required" => v.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
                "dependentRequired" => v.as_object().is_some_and(|m| {
                    m.values()
                        .all(|a| a.as_array().is_some_and(|a| a.iter().all(Value::is_string)))
                }),
                "uniqueItems" => v.is_boolean(),
                "pattern" => {
                    let p = v
                        .as_str()
                        .ok_or_else(|| bad(ptr, "pattern must be a string"))?;
                    self.add_pattern(p, ptr)?;
                    true
                }
                "multipleOf" => v.as_f64().is_some_and(|m| m > 0.0),
                // draft-04 spelled exclusiveMaximum/Minimum as booleans.
                "exclusiveMaximum" | "exclusiveMinimum" => v.is_number() || v.is_boolean(),
                k if NUMBERS.contains(&k) => v.is_number(),
                k if COUNTS.contains(&k) => {
                    v.as_f64().is_some_and(|n| n >= 0.0 && n.fract() == 0.0)
                }
                _ => true,
            };
            if !ok {
                return Err(bad(ptr, &format!("bad value for '{}'", sanitize(k, 100))));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::resolve;

    #[test]
    fn rfc3986_examples() {
        let b = "http://a/b/c/d;p?q";
        for (r, want) in [
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("#s", "http://a/b/c/d;p?q#s"),
            ("", "http://a/b/c/d;p?q"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../../g", "http://a/g"),
            ("g;x=1/../y", "http://a/b/c/y"),
            ("urn:x:y#z", "urn:x:y#z"),
        ] {
            assert_eq!(resolve(b, r), want, "{r}");
        }
        assert_eq!(
            resolve("mcp:output-schema", "#/$defs/a"),
            "mcp:output-schema#/$defs/a"
        );
        assert_eq!(resolve("mcp:output-schema", "other.json"), "mcp:other.json");
        assert_eq!(
            resolve("http://x.test/root.json", "#"),
            "http://x.test/root.json"
        );
    }
}
