//! `x-mcp-header`: tool parameters mirrored into `Mcp-Param-{Name}` headers (spec
//! `basic/transports/streamable-http.mdx`, "Custom Headers from Tool Parameters" and
//! "Client Behavior"; `server/tools.mdx`, "x-mcp-header").
//!
//! Two steps:
//!
//! 1. When `tools/list` arrives, [`header_params`] validates every annotation of a tool's
//!    `inputSchema`. A tool with an invalid annotation MUST be dropped from what the
//!    client exposes (and a warning SHOULD be logged with the returned reason).
//! 2. On each `tools/call`, [`param_headers`] reads the annotated values from the
//!    arguments and builds the headers, encoded with [`encode_header_value`].

// `Error`, the crate's one error type, is large (at least 128 bytes); boxing it is a
// crate-wide choice, not this module's.
#![allow(clippy::result_large_err)]

use crate::error::{sanitize, Error};
use crate::http::encoding::{encode_header_value, is_token};
use crate::json::{Map, Number, Value};

/// The annotation keyword.
const ANNOTATION: &str = "x-mcp-header";

/// How deep the walk goes into a schema (in JSON nesting levels) before giving up; a
/// schema nested deeper makes the tool invalid. Keeps a hostile schema from exhausting
/// the stack.
const MAX_DEPTH: usize = 64;

/// 2^53 − 1, the largest integer a JavaScript number holds exactly (spec: integer values
/// MUST be within −(2^53−1) … 2^53−1).
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// The longest peer string quoted in a message.
const QUOTE_MAX: usize = 120;

/// The JSON type an annotated property declares.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamType {
    /// `"type": "string"`.
    String,
    /// `"type": "integer"`.
    Integer,
    /// `"type": "boolean"`.
    Boolean,
}

/// One valid `x-mcp-header` annotation of a tool's `inputSchema`.
#[derive(Clone, Debug, PartialEq)]
pub struct HeaderParam {
    /// The annotation's value, e.g. `"Region"`: the header is `Mcp-Param-Region`.
    pub name: String,
    /// The chain of `properties` keys from the schema root to the annotated property.
    pub path: Vec<String>,
    /// The property's declared type.
    pub ty: ParamType,
}

/// Validates every x-mcp-header annotation of a tool's inputSchema. Ok(params) (possibly empty) or Err(reason) — the reason is a human sentence used in the warning when the tool is dropped.
///
/// An annotation is valid when its value is a non-empty RFC 9110 token without control
/// characters, unique case-insensitively within the schema, on a property whose `type`
/// is exactly `"string"`, `"integer"` or `"boolean"`, and the property is reachable from
/// the root through `properties` keys only. An annotation anywhere else (under `items`,
/// `oneOf`, `$defs`, `additionalProperties`, an unknown keyword, ...) makes the tool
/// invalid; so does a schema nested more than 64 levels deep.
///
/// Not annotations: a *property named* `x-mcp-header` (a key of `properties`, or of
/// another keyword whose keys are names, such as `$defs`), and keys inside instance
/// data (`const`, `enum`, `default`, `examples`).
///
/// The params come in schema order. Peer strings in the reason are sanitized.
pub fn header_params(input_schema: &Value) -> Result<Vec<HeaderParam>, String> {
    let mut walker = Walker {
        params: Vec::new(),
        loc: Vec::new(),
        names: Vec::new(),
    };
    walker.schema(input_schema, true, 0)?;
    Ok(walker.params)
}

/// Builds the Mcp-Param-* headers for a call: `("Mcp-Param-<name>", encoded value)` per param whose argument value is present and non-null.
///
/// The value is read at the param's exact path in `arguments`; when any step is missing
/// (or not an object), or the value is `null`, the header is omitted (spec: "Client
/// Behavior"). Strings go as they are, integers as decimal text (`42.0` counts as `42`),
/// booleans as `true`/`false`, all through [`encode_header_value`]. The value's own JSON
/// type decides the conversion, so the header always mirrors the body the server will
/// compare it with.
///
/// Errors ([`ErrorKind::Config`](crate::error::ErrorKind::Config)): a value that cannot be
/// carried in a header (object, array, a number that is not an integer within
/// ±(2^53−1)), or a param whose name is not a token.
pub fn param_headers(
    params: &[HeaderParam],
    arguments: Option<&Value>,
) -> Result<Vec<(String, String)>, Error> {
    let mut headers = Vec::with_capacity(params.len());
    for param in params {
        if !is_token(&param.name) {
            return Err(Error::config(format!(
                "`{}` is not a valid x-mcp-header name",
                sanitize(&param.name, QUOTE_MAX)
            )));
        }
        let Some(value) = lookup(arguments, &param.path) else {
            continue;
        };
        let text = match value {
            Value::Null => continue,
            Value::String(s) => encode_header_value(s),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => integer_text(n).ok_or_else(|| {
                cannot_carry(param, "a number that is not an integer within ±(2^53−1)")
            })?,
            Value::Array(_) => return Err(cannot_carry(param, "an array")),
            Value::Object(_) => return Err(cannot_carry(param, "an object")),
        };
        headers.push((format!("Mcp-Param-{}", param.name), text));
    }
    Ok(headers)
}

/// The value at `path` in `arguments`, if every step exists.
fn lookup<'a>(arguments: Option<&'a Value>, path: &[String]) -> Option<&'a Value> {
    let mut current = arguments?;
    for key in path {
        current = current.as_object()?.get(key)?;
    }
    Some(current)
}

/// Decimal text of an integer within ±(2^53−1); a float with no fraction counts.
fn integer_text(n: &Number) -> Option<String> {
    if let Some(i) = n.as_i64() {
        return (i.unsigned_abs() <= MAX_SAFE_INTEGER).then(|| i.to_string());
    }
    if n.is_u64() {
        return None; // above i64::MAX
    }
    let f = n.as_f64()?;
    // `MAX_SAFE_INTEGER` is exact as an f64, and every f64 within it converts exactly.
    let in_range = f.is_finite() && f.fract() == 0.0 && f.abs() <= MAX_SAFE_INTEGER as f64;
    in_range.then(|| (f as i64).to_string())
}

fn cannot_carry(param: &HeaderParam, what: &str) -> Error {
    Error::config(format!(
        "argument `{}` (header Mcp-Param-{}) is {what}; only strings, booleans and integers \
         within ±(2^53−1) can be sent in a header",
        sanitize(
            &crate::text::join(param.path.iter().map(String::as_str), "."),
            QUOTE_MAX
        ),
        sanitize(&param.name, QUOTE_MAX),
    ))
}

/// One step of a location inside the schema (for messages).
#[derive(Clone, Copy)]
enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

/// The walk over a whole schema tree.
struct Walker<'a> {
    params: Vec<HeaderParam>,
    /// Where the walk is, from the root.
    loc: Vec<Seg<'a>>,
    /// The property names along the `properties` chain, while the walk is on it.
    names: Vec<&'a str>,
}

impl<'a> Walker<'a> {
    /// `value` in a schema position. `on_chain`: reached from the root through
    /// `properties` keys only.
    fn schema(&mut self, value: &'a Value, on_chain: bool, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(self.too_deep());
        }
        match value {
            Value::Object(map) => {
                for (key, sub) in map {
                    self.loc.push(Seg::Key(key));
                    let result = self.keyword(map, key, sub, on_chain, depth + 1);
                    self.loc.pop();
                    result?;
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    self.loc.push(Seg::Index(i));
                    let result = self.schema(item, false, depth + 1);
                    self.loc.pop();
                    result?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The keyword `key` of the schema object `schema`, with value `value`.
    fn keyword(
        &mut self,
        schema: &'a Map,
        key: &'a str,
        value: &'a Value,
        on_chain: bool,
        depth: usize,
    ) -> Result<(), String> {
        match key {
            ANNOTATION => self.annotation(schema, value, on_chain),
            // The only step that keeps the walk on the chain.
            "properties" => self.name_map(value, on_chain, depth),
            // Keys are names (not keywords), values are schemas (or name lists): off the chain.
            "$defs" | "definitions" | "patternProperties" | "dependentSchemas"
            | "dependentRequired" | "dependencies" => self.name_map(value, false, depth),
            // Instance data, not schemas: keys inside are not annotations.
            "const" | "enum" | "default" | "examples" => Ok(()),
            // Everything else (items, prefixItems, additionalProperties, oneOf, anyOf,
            // allOf, not, if/then/else, contains, propertyNames, unknown keywords, ...)
            // leaves the chain; annotations below it are invalid.
            _ => self.schema(value, false, depth),
        }
    }

    /// A keyword whose value maps names to schemas.
    fn name_map(&mut self, value: &'a Value, on_chain: bool, depth: usize) -> Result<(), String> {
        let Value::Object(map) = value else {
            return self.schema(value, false, depth);
        };
        if depth > MAX_DEPTH {
            return Err(self.too_deep());
        }
        for (name, sub) in map {
            self.loc.push(Seg::Key(name));
            if on_chain {
                self.names.push(name);
            }
            let result = self.schema(sub, on_chain, depth + 1);
            if on_chain {
                self.names.pop();
            }
            self.loc.pop();
            result?;
        }
        Ok(())
    }

    /// An `x-mcp-header` keyword on `schema`.
    fn annotation(&mut self, schema: &Map, value: &Value, on_chain: bool) -> Result<(), String> {
        if !on_chain {
            return Err(format!(
                "x-mcp-header at {} is not on a property reachable from the schema root \
                 through `properties` only",
                self.pointer()
            ));
        }
        if self.names.is_empty() {
            return Err(
                "x-mcp-header is on the schema root; it may only annotate a property".to_owned(),
            );
        }
        let prop = sanitize(
            &crate::text::join(self.names.iter().copied(), "."),
            QUOTE_MAX,
        );
        let Value::String(name) = value else {
            return Err(format!("x-mcp-header of property `{prop}` is not a string"));
        };
        if name.is_empty() {
            return Err(format!("x-mcp-header of property `{prop}` is empty"));
        }
        let quoted = sanitize(name, QUOTE_MAX);
        if name.chars().any(char::is_control) {
            return Err(format!(
                "x-mcp-header `{quoted}` of property `{prop}` contains control characters"
            ));
        }
        if !is_token(name) {
            return Err(format!(
                "x-mcp-header `{quoted}` of property `{prop}` is not an HTTP token \
                 (RFC 9110 tchar)"
            ));
        }
        let ty = match schema.get("type") {
            Some(Value::String(t)) if t == "string" => ParamType::String,
            Some(Value::String(t)) if t == "integer" => ParamType::Integer,
            Some(Value::String(t)) if t == "boolean" => ParamType::Boolean,
            Some(Value::String(t)) => {
                return Err(format!(
                    "property `{prop}` with x-mcp-header `{quoted}` has type `{}`; only \
                     string, integer and boolean are allowed",
                    sanitize(t, QUOTE_MAX)
                ))
            }
            Some(_) => {
                return Err(format!(
                    "property `{prop}` with x-mcp-header `{quoted}` does not declare a single \
                     type (string, integer or boolean)"
                ))
            }
            None => {
                return Err(format!(
                    "property `{prop}` with x-mcp-header `{quoted}` declares no type \
                     (string, integer or boolean)"
                ))
            }
        };
        // Header names are case-insensitive (RFC 9110), so the values must be too.
        if self
            .params
            .iter()
            .any(|p| p.name.eq_ignore_ascii_case(name))
        {
            return Err(format!(
                "x-mcp-header `{quoted}` is used more than once (compared case-insensitively)"
            ));
        }
        self.params.push(HeaderParam {
            name: name.clone(),
            path: self.names.iter().map(|n| (*n).to_owned()).collect(),
            ty,
        });
        Ok(())
    }

    fn too_deep(&self) -> String {
        format!(
            "the inputSchema is nested more than {MAX_DEPTH} levels deep (at {})",
            self.pointer()
        )
    }

    /// The current location as a JSON Pointer (RFC 6901), sanitized and cut short.
    fn pointer(&self) -> String {
        let mut p = String::new();
        for seg in &self.loc {
            p.push('/');
            match seg {
                // RFC 6901 §3: `~` as `~0`, `/` as `~1`.
                Seg::Key(k) => {
                    for c in k.chars() {
                        match c {
                            '~' => p.push_str("~0"),
                            '/' => p.push_str("~1"),
                            c => p.push(c),
                        }
                    }
                }
                Seg::Index(i) => p.push_str(&i.to_string()),
            }
        }
        if p.is_empty() {
            p.push('/');
        }
        format!("`{}`", sanitize(&p, 2 * QUOTE_MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::json;

    fn param(name: &str, path: &[&str], ty: ParamType) -> HeaderParam {
        HeaderParam {
            name: name.to_owned(),
            path: path.iter().map(|s| (*s).to_owned()).collect(),
            ty,
        }
    }

    fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect()
    }

    /// A root schema with one property `p` holding `prop`.
    fn with_prop(prop: Value) -> Value {
        json!({"type": "object", "properties": {"p": prop}})
    }

    fn rejected(schema: &Value) -> String {
        match header_params(schema) {
            Ok(p) => panic!("accepted {schema}: {p:?}"),
            Err(reason) => reason,
        }
    }

    #[test]
    fn spec_execute_sql_example() {
        let schema = json!({
            "type": "object",
            "properties": {
                "region": {
                    "type": "string",
                    "description": "The region to execute the query in",
                    "x-mcp-header": "Region"
                },
                "query": {"type": "string", "description": "The SQL query to execute"}
            },
            "required": ["region", "query"]
        });
        let params = header_params(&schema).unwrap();
        assert_eq!(params, [param("Region", &["region"], ParamType::String)]);
        let args = json!({"region": "us-west1", "query": "SELECT * FROM users"});
        assert_eq!(
            param_headers(&params, Some(&args)).unwrap(),
            headers(&[("Mcp-Param-Region", "us-west1")])
        );
    }

    #[test]
    fn no_annotations_no_params() {
        assert_eq!(header_params(&json!({"type": "object"})).unwrap(), []);
        assert_eq!(header_params(&json!({})).unwrap(), []);
        assert_eq!(header_params(&json!(true)).unwrap(), []);
        assert_eq!(param_headers(&[], None).unwrap(), []);
    }

    #[test]
    fn nested_properties_chain() {
        let schema = json!({
            "type": "object",
            "properties": {
                "db": {
                    "type": "object",
                    "properties": {
                        "region": {"type": "string", "x-mcp-header": "Region"},
                        "shard": {"type": "integer", "x-mcp-header": "Shard"}
                    }
                },
                "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"}
            }
        });
        let params = header_params(&schema).unwrap();
        assert_eq!(
            params,
            [
                param("Region", &["db", "region"], ParamType::String),
                param("Shard", &["db", "shard"], ParamType::Integer),
                param("Dry-Run", &["dry"], ParamType::Boolean),
            ]
        );
        let args = json!({"db": {"region": "eu", "shard": 7}, "dry": false});
        assert_eq!(
            param_headers(&params, Some(&args)).unwrap(),
            headers(&[
                ("Mcp-Param-Region", "eu"),
                ("Mcp-Param-Shard", "7"),
                ("Mcp-Param-Dry-Run", "false"),
            ])
        );
        // A missing or non-object step omits the header.
        let args = json!({"db": "flat", "dry": true});
        assert_eq!(
            param_headers(&params, Some(&args)).unwrap(),
            headers(&[("Mcp-Param-Dry-Run", "true")])
        );
        let args = json!({"db": null});
        assert_eq!(param_headers(&params, Some(&args)).unwrap(), []);
    }

    #[test]
    fn invalid_annotation_values() {
        for (bad, why) in [
            (json!(42), "not a string"),
            (json!(null), "not a string"),
            (json!(true), "not a string"),
            (json!({"name": "Region"}), "not a string"),
            (json!(["Region"]), "not a string"),
            (json!(""), "empty"),
            (json!("Reg\r\nion"), "control"),
            (json!("Reg\u{7}ion"), "control"),
            (json!("Region\u{0}"), "control"),
            (json!("Reg\tion"), "control"),
            (json!("Reg ion"), "token"),
            (json!("Région"), "token"),
            (json!("Mcp:Param"), "token"),
            (json!("a/b"), "token"),
            (json!("(x)"), "token"),
        ] {
            let reason = rejected(&with_prop(json!({"type": "string", "x-mcp-header": bad})));
            assert!(reason.contains(why), "{bad}: {reason}");
            assert!(
                !reason.contains('\r') && !reason.contains('\n'),
                "{reason:?}"
            );
        }
    }

    #[test]
    fn types_must_be_exactly_string_integer_or_boolean() {
        for ty in ["string", "integer", "boolean"] {
            assert!(header_params(&with_prop(json!({"type": ty, "x-mcp-header": "X"}))).is_ok());
        }
        for bad in [
            json!({"type": "number", "x-mcp-header": "X"}),
            json!({"type": "object", "x-mcp-header": "X"}),
            json!({"type": "array", "x-mcp-header": "X"}),
            json!({"type": "null", "x-mcp-header": "X"}),
            json!({"type": "String", "x-mcp-header": "X"}),
            json!({"type": ["string", "null"], "x-mcp-header": "X"}),
            json!({"type": ["string"], "x-mcp-header": "X"}),
            json!({"x-mcp-header": "X"}),
            json!({"enum": ["a", "b"], "x-mcp-header": "X"}),
        ] {
            let reason = rejected(&with_prop(bad.clone()));
            assert!(reason.contains("type"), "{bad}: {reason}");
        }
    }

    #[test]
    fn duplicates_are_case_insensitive() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "string", "x-mcp-header": "Region"},
                "b": {"type": "object", "properties": {
                    "c": {"type": "string", "x-mcp-header": "REGION"}
                }}
            }
        });
        assert!(rejected(&schema).contains("more than once"));
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "string", "x-mcp-header": "Region"},
                "b": {"type": "string", "x-mcp-header": "Region2"}
            }
        });
        assert_eq!(header_params(&schema).unwrap().len(), 2);
    }

    #[test]
    fn annotations_off_the_properties_chain_are_rejected() {
        let leaf = json!({"type": "string", "x-mcp-header": "X"});
        let obj = json!({"type": "object", "properties": {"x": leaf}});
        let cases = [
            json!({"type": "object", "x-mcp-header": "X"}),
            json!({"type": "array", "items": leaf}),
            json!({"type": "array", "items": obj}),
            json!({"type": "array", "items": [leaf]}),
            json!({"type": "array", "prefixItems": [leaf]}),
            json!({"type": "array", "contains": leaf}),
            json!({"type": "object", "additionalProperties": leaf}),
            json!({"type": "object", "unevaluatedProperties": leaf}),
            json!({"type": "object", "propertyNames": leaf}),
            json!({"type": "object", "patternProperties": {"^x": leaf}}),
            json!({"type": "object", "dependentSchemas": {"a": obj}}),
            json!({"oneOf": [obj]}),
            json!({"anyOf": [obj]}),
            json!({"allOf": [obj]}),
            json!({"not": obj}),
            json!({"if": obj}),
            json!({"if": {}, "then": obj}),
            json!({"if": {}, "else": obj}),
            json!({"$defs": {"D": leaf}, "properties": {"p": {"$ref": "#/$defs/D"}}}),
            json!({"definitions": {"D": obj}}),
            json!({"x-vendor": obj}),
            // Nested: the chain leaves `properties` somewhere below the root.
            json!({"properties": {"a": {"type": "object", "properties": {
                "b": {"type": "array", "items": leaf}
            }}}}),
            json!({"properties": {"a": {"anyOf": [{"properties": {"b": leaf}}]}}}),
        ];
        for schema in cases {
            let reason = rejected(&schema);
            assert!(
                reason.contains("reachable") || reason.contains("root"),
                "{schema}: {reason}"
            );
        }
        // The reason points at the annotation.
        let reason =
            rejected(&json!({"properties": {"a": {"items": {"properties": {"b/c~": leaf}}}}}));
        assert!(
            reason.contains("`/properties/a/items/properties/b~1c~0/x-mcp-header`"),
            "{reason}"
        );
    }

    #[test]
    fn a_property_named_x_mcp_header_is_not_an_annotation() {
        let schema = json!({"type": "object", "properties": {"x-mcp-header": {"type": "object"}}});
        assert_eq!(header_params(&schema).unwrap(), []);
        let schema = json!({"type": "object", "properties": {
            "x-mcp-header": {"type": "string", "x-mcp-header": "Odd"}
        }});
        let params = header_params(&schema).unwrap();
        assert_eq!(params, [param("Odd", &["x-mcp-header"], ParamType::String)]);
        let args = json!({"x-mcp-header": "v"});
        assert_eq!(
            param_headers(&params, Some(&args)).unwrap(),
            headers(&[("Mcp-Param-Odd", "v")])
        );
        let schema = json!({"type": "object", "properties": {
            "x-mcp-header": {"type": "object", "properties": {
                "a": {"type": "string", "x-mcp-header": "A"}
            }}
        }});
        assert_eq!(
            header_params(&schema).unwrap(),
            [param("A", &["x-mcp-header", "a"], ParamType::String)]
        );
        // Names in other name maps, and keys in instance data, are not annotations either.
        let schema = json!({
            "type": "object",
            "$defs": {"x-mcp-header": {"type": "string"}},
            "patternProperties": {"x-mcp-header": {}},
            "dependentRequired": {"x-mcp-header": ["a"]},
            "properties": {"a": {
                "type": "object",
                "default": {"x-mcp-header": "A"},
                "examples": [{"x-mcp-header": "B"}],
                "const": {"x-mcp-header": "C"},
                "enum": [{"x-mcp-header": "D"}]
            }},
            "required": ["x-mcp-header"]
        });
        assert_eq!(header_params(&schema).unwrap(), []);
        // But an annotation inside a named definition is still off the chain.
        let schema = json!({"$defs": {"x-mcp-header": {"type": "string", "x-mcp-header": "X"}}});
        assert!(rejected(&schema).contains("reachable"));
    }

    #[test]
    fn deep_schemas_are_bounded() {
        // Properties nested 1000 deep: refused, without exhausting the stack.
        let mut schema = json!({"type": "string", "x-mcp-header": "Deep"});
        for _ in 0..1000 {
            schema = json!({"type": "object", "properties": {"a": schema}});
        }
        assert!(rejected(&schema).contains("levels"));
        let mut schema = json!({});
        for _ in 0..1000 {
            schema = json!({"allOf": [schema]});
        }
        assert!(rejected(&schema).contains("levels"));
        // A reasonable depth is fine.
        let mut schema = json!({"type": "string", "x-mcp-header": "Deep"});
        for _ in 0..20 {
            schema = json!({"type": "object", "properties": {"a": schema}});
        }
        assert_eq!(header_params(&schema).unwrap()[0].path.len(), 20);
    }

    #[test]
    fn integers_and_their_bounds() {
        let params = [param("N", &["n"], ParamType::Integer)];
        let max = (1_i64 << 53) - 1;
        for (value, text) in [
            (json!(42), "42"),
            (json!(-7), "-7"),
            (json!(0), "0"),
            (json!(max), "9007199254740991"),
            (json!(-max), "-9007199254740991"),
            (json!(42.0), "42"),
            (json!(-0.0), "0"),
            (json!(9007199254740991.0), "9007199254740991"),
        ] {
            let args = json!({ "n": value });
            assert_eq!(
                param_headers(&params, Some(&args)).unwrap(),
                headers(&[("Mcp-Param-N", text)]),
                "{value}"
            );
        }
        for value in [
            json!(max + 1),
            json!(-max - 1),
            json!(i64::MIN),
            json!(u64::MAX),
            json!(42.5),
            json!(9007199254740992.0),
            json!(1e300),
        ] {
            let args = json!({ "n": value });
            let e = param_headers(&params, Some(&args)).unwrap_err();
            assert_eq!(e.kind, ErrorKind::Config, "{value}");
            assert!(e.message.contains("Mcp-Param-N"), "{}", e.message);
        }
    }

    #[test]
    fn strings_booleans_and_unicode() {
        let params = [
            param("S", &["s"], ParamType::String),
            param("B", &["b"], ParamType::Boolean),
        ];
        let args = json!({"s": "Hello, 世界", "b": true});
        assert_eq!(
            param_headers(&params, Some(&args)).unwrap(),
            headers(&[
                ("Mcp-Param-S", "=?base64?SGVsbG8sIOS4lueVjA==?="),
                ("Mcp-Param-B", "true"),
            ])
        );
        let args = json!({"s": "a\r\nX-Evil: 1", "b": false});
        let out = param_headers(&params, Some(&args)).unwrap();
        assert_eq!(out[0].1, "=?base64?YQ0KWC1FdmlsOiAx?=");
        assert_eq!(out[1].1, "false");
        let args = json!({"s": ""});
        assert_eq!(
            param_headers(&params, Some(&args)).unwrap(),
            headers(&[("Mcp-Param-S", "")])
        );
    }

    #[test]
    fn null_and_absent_values_are_omitted() {
        let params = [
            param("A", &["a"], ParamType::String),
            param("B", &["b"], ParamType::Integer),
        ];
        assert_eq!(param_headers(&params, None).unwrap(), []);
        assert_eq!(param_headers(&params, Some(&json!({}))).unwrap(), []);
        assert_eq!(param_headers(&params, Some(&json!(null))).unwrap(), []);
        assert_eq!(param_headers(&params, Some(&json!([1, 2]))).unwrap(), []);
        let args = json!({"a": null, "b": 3});
        assert_eq!(
            param_headers(&params, Some(&args)).unwrap(),
            headers(&[("Mcp-Param-B", "3")])
        );
    }

    #[test]
    fn uncarriable_values_are_config_errors_naming_the_parameter() {
        let params = [param("Tag", &["meta", "tag\n"], ParamType::String)];
        for value in [json!({"k": 1}), json!([1]), json!(1.5)] {
            let args = json!({"meta": {"tag\n": value}});
            let e = param_headers(&params, Some(&args)).unwrap_err();
            assert_eq!(e.kind, ErrorKind::Config);
            assert!(e.message.contains("Mcp-Param-Tag"), "{}", e.message);
            assert!(e.message.contains("meta.tag\\u{a}"), "{}", e.message);
        }
        // A hand-built param with a bad name is refused, sanitized.
        let bad = [param("X\r\nEvil", &["x"], ParamType::String)];
        let e = param_headers(&bad, Some(&json!({"x": "v"}))).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Config);
        assert!(!e.message.contains('\r') && !e.message.contains('\n'));
    }
}
