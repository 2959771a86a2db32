use super::*;

/// Runs the official JSON-Schema-Test-Suite from a local checkout (not vendored: the
/// suite is fetched outside the repository). Usage:
/// `JSON_SCHEMA_TEST_SUITE=/path/to/tests/draft2020-12 cargo test --lib schema::output -- --ignored --nocapture`
#[test]
#[ignore]
fn official_test_suite() {
    let Ok(dir) = std::env::var("JSON_SCHEMA_TEST_SUITE") else {
        eprintln!("JSON_SCHEMA_TEST_SUITE not set: skipped");
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .collect();
    files.sort();
    let (mut pass, mut fail, mut uncompiled) = (0, 0, 0);
    for f in files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "json"))
    {
        let groups: Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        for g in groups.as_array().unwrap() {
            let tests = g["tests"].as_array().unwrap();
            let mut sch = g["schema"].clone();
            // JSON_SCHEMA_DIALECT=draft-07 runs a draft-07 directory, whose schemas omit `$schema`.
            if let (Some(d), Some(o)) = (
                std::env::var("JSON_SCHEMA_DIALECT")
                    .ok()
                    .filter(|d| !d.is_empty()),
                sch.as_object_mut(),
            ) {
                o.get_or_insert(
                    "$schema",
                    Value::String(format!("http://json-schema.org/{d}/schema#")),
                );
            }
            let schema = match OutputSchema::compile(&sch) {
                Ok(s) => s,
                Err(e) => {
                    uncompiled += tests.len();
                    println!("NOCOMPILE {name} / {}: {e}", g["description"]);
                    continue;
                }
            };
            for t in tests {
                let got = schema.validate(&t["data"]).is_ok();
                if got == t["valid"].as_bool().unwrap() {
                    pass += 1;
                } else {
                    fail += 1;
                    println!(
                        "FAIL {name} / {} / {}: expected {}",
                        g["description"], t["description"], t["valid"]
                    );
                }
            }
        }
    }
    println!("suite: {pass} passed, {fail} failed, {uncompiled} not compiled");
}

use crate::json;

fn ok(schema: Value, inst: Value) -> bool {
    OutputSchema::compile(&schema)
        .expect("schema compiles")
        .validate(&inst)
        .is_ok()
}

fn fail_at(schema: Value, inst: Value) -> (String, String, Vec<Value>) {
    let e = OutputSchema::compile(&schema)
        .unwrap()
        .validate(&inst)
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutputValidation);
    let d = e.data.unwrap();
    (
        d["path"].as_str().unwrap().to_string(),
        d["schemaPath"].as_str().unwrap().to_string(),
        d["errors"].as_array().unwrap().clone(),
    )
}

/// (schema, [(instance, valid)]) vectors per keyword, in the style of the official suite.
#[test]
fn keyword_vectors() {
    let cases: Vec<(Value, Vec<(Value, bool)>)> = vec![
        (
            json!({"type": "integer"}),
            vec![
                (json!(1), true),
                (json!(1.0), true),
                (json!(1.5), false),
                (json!("1"), false),
            ],
        ),
        (
            json!({"type": ["string", "null"]}),
            vec![(json!(null), true), (json!("a"), true), (json!(0), false)],
        ),
        (
            json!({"type": "number"}),
            vec![(json!(1), true), (json!(2.5), true), (json!(true), false)],
        ),
        (
            json!({"type": "object"}),
            vec![(json!({}), true), (json!([]), false)],
        ),
        (
            json!({"enum": [1, "a", {"b": [1]}]}),
            vec![
                (json!(1.0), true),
                (json!("a"), true),
                (json!({"b": [1.0]}), true),
                (json!(2), false),
            ],
        ),
        (
            json!({"const": {"a": [1, 2]}}),
            vec![(json!({"a": [1, 2]}), true), (json!({"a": [2, 1]}), false)],
        ),
        (
            json!({"multipleOf": 0.01}),
            vec![
                (json!(19.99), true),
                (json!(0.075), false),
                (json!(5), true),
            ],
        ),
        (
            json!({"multipleOf": 2}),
            vec![(json!(4), true), (json!(5), false), (json!("x"), true)],
        ),
        (
            json!({"minimum": 1, "exclusiveMaximum": 3}),
            vec![
                (json!(1), true),
                (json!(2.9), true),
                (json!(3), false),
                (json!(0.9), false),
            ],
        ),
        (
            json!({"exclusiveMinimum": 0, "maximum": 10}),
            vec![(json!(0), false), (json!(10), true), (json!(10.5), false)],
        ),
        (
            json!({"minLength": 2, "maxLength": 3}),
            vec![
                (json!("ab"), true),
                (json!("a"), false),
                (json!("abcd"), false),
                (json!("日本"), true),
                (json!("💩"), false),
                (json!("💩💩"), true),
            ],
        ),
        (
            json!({"pattern": "^[a-z]+-\\d+$"}),
            vec![
                (json!("abc-12"), true),
                (json!("ABC-12"), false),
                (json!(12), true),
            ],
        ),
        (
            json!({"pattern": "c"}),
            vec![(json!("abcd"), true), (json!("abd"), false)],
        ),
        (
            json!({"prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false}),
            vec![
                (json!(["a", 1]), true),
                (json!(["a"]), true),
                (json!(["a", 1, 2]), false),
                (json!([1, 1]), false),
            ],
        ),
        (
            json!({"items": {"type": "integer"}}),
            vec![
                (json!([1, 2]), true),
                (json!([1, "x"]), false),
                (json!([]), true),
            ],
        ),
        (
            json!({"items": [{"type": "string"}], "additionalItems": {"type": "integer"}}),
            vec![(json!(["a", 1]), true), (json!(["a", "b"]), false)],
        ),
        (
            json!({"contains": {"const": 1}, "minContains": 2, "maxContains": 3}),
            vec![
                (json!([1, 1]), true),
                (json!([1]), false),
                (json!([1, 1, 1, 1]), false),
                (json!({}), true),
            ],
        ),
        (
            json!({"contains": {"type": "string"}}),
            vec![
                (json!([1, "a"]), true),
                (json!([1]), false),
                (json!([]), false),
            ],
        ),
        (
            json!({"minItems": 1, "maxItems": 2}),
            vec![
                (json!([1]), true),
                (json!([]), false),
                (json!([1, 2, 3]), false),
            ],
        ),
        (
            json!({"uniqueItems": true}),
            vec![
                (json!([1, 2]), true),
                (json!([1, 1.0]), false),
                (json!([{"a": 1, "b": 2}, {"b": 2, "a": 1}]), false),
                (json!([[1], [true]]), true),
            ],
        ),
        (
            json!({"properties": {"a": {"type": "string"}}, "patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": false}),
            vec![
                (json!({"a": "s", "x-n": 1}), true),
                (json!({"b": 1}), false),
                (json!({"x-n": "s"}), false),
            ],
        ),
        (
            json!({"additionalProperties": {"type": "boolean"}}),
            vec![(json!({"a": true}), true), (json!({"a": 1}), false)],
        ),
        (
            json!({"required": ["a", "b"]}),
            vec![
                (json!({"a": 1, "b": 2}), true),
                (json!({"a": 1}), false),
                (json!([]), true),
            ],
        ),
        (
            json!({"dependentRequired": {"card": ["billing"]}}),
            vec![
                (json!({"card": 1, "billing": 2}), true),
                (json!({"card": 1}), false),
                (json!({"billing": 1}), true),
            ],
        ),
        (
            json!({"dependentSchemas": {"card": {"required": ["cvv"]}}}),
            vec![
                (json!({"card": 1, "cvv": 2}), true),
                (json!({"card": 1}), false),
            ],
        ),
        (
            json!({"propertyNames": {"maxLength": 3}}),
            vec![(json!({"abc": 1}), true), (json!({"abcd": 1}), false)],
        ),
        (
            json!({"minProperties": 1, "maxProperties": 2}),
            vec![
                (json!({"a": 1}), true),
                (json!({}), false),
                (json!({"a": 1, "b": 2, "c": 3}), false),
            ],
        ),
        (
            json!({"allOf": [{"type": "integer"}, {"minimum": 2}]}),
            vec![(json!(2), true), (json!(1), false)],
        ),
        (
            json!({"anyOf": [{"type": "integer"}, {"minLength": 2}]}),
            vec![(json!(1), true), (json!("ab"), true), (json!("a"), false)],
        ),
        (
            json!({"oneOf": [{"type": "integer"}, {"minimum": 2}]}),
            vec![
                (json!(1), true),
                (json!(2.5), true),
                (json!(3), false),
                (json!(1.5), false),
            ],
        ),
        (
            json!({"not": {"type": "string"}}),
            vec![(json!(1), true), (json!("a"), false)],
        ),
        (
            json!({"if": {"minimum": 10}, "then": {"multipleOf": 5}, "else": {"maximum": 3}}),
            vec![
                (json!(15), true),
                (json!(12), false),
                (json!(2), true),
                (json!(5), false),
            ],
        ),
        (
            json!({"format": "email", "contentMediaType": "application/json", "x-vendor": {"$ref": "http://nowhere.test/x"}}),
            vec![(json!("not an email"), true)],
        ),
        (json!(true), vec![(json!({"anything": 1}), true)]),
        (json!(false), vec![(json!(null), false)]),
        (
            json!({"properties": {"a": false}}),
            vec![(json!({}), true), (json!({"a": 1}), false)],
        ),
        (
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"s": {"type": "string"}}, "properties": {"a": {"$ref": "#/definitions/s", "maxLength": 1}}}),
            vec![(json!({"a": "long"}), true), (json!({"a": 1}), false)],
        ),
        (
            json!({"dependencies": {"a": ["b"]}}),
            vec![(json!({"a": 1}), false), (json!({"a": 1, "b": 1}), true)],
        ),
    ];
    for (schema, insts) in cases {
        let s = OutputSchema::compile(&schema).unwrap_or_else(|e| panic!("{schema}: {e}"));
        for (inst, valid) in insts {
            assert_eq!(
                s.validate(&inst).is_ok(),
                valid,
                "schema {schema} instance {inst}"
            );
        }
    }
}

#[test]
fn typical_tool_output_object() {
    let schema = json!({
        "type": "object",
        "properties": {
            "temperature": {"type": "number", "description": "Temperature in celsius"},
            "conditions": {"type": "string", "enum": ["sunny", "cloudy", "rainy"]},
            "humidity": {"type": "number", "minimum": 0, "maximum": 100}
        },
        "required": ["temperature", "conditions", "humidity"]
    });
    assert!(ok(
        schema.clone(),
        json!({"temperature": 22.5, "conditions": "cloudy", "humidity": 65})
    ));
    let (path, spath, errors) = fail_at(
        schema.clone(),
        json!({"temperature": "hot", "conditions": "foggy"}),
    );
    assert_eq!(path, "/temperature");
    assert_eq!(spath, "/properties/temperature/type");
    let paths: Vec<_> = errors.iter().map(|e| e["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["/temperature", "/conditions", ""]);
    assert!(errors[2]["message"].as_str().unwrap().contains("humidity"));
}

#[test]
fn array_output_and_nested_refs() {
    let schema = json!({
        "type": "array",
        "items": {"$ref": "#/$defs/user"},
        "$defs": {
            "user": {"type": "object", "properties": {"id": {"type": "integer"}, "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}}}, "required": ["id"]},
            "tag": {"type": "string", "minLength": 1}
        }
    });
    assert!(ok(
        schema.clone(),
        json!([{"id": 1, "tags": ["a"]}, {"id": 2}])
    ));
    let (path, spath, _) = fail_at(
        schema.clone(),
        json!([{"id": 1}, {"id": 2, "tags": ["ok", ""]}]),
    );
    assert_eq!(path, "/1/tags/1");
    assert_eq!(spath, "/items/$ref/properties/tags/items/$ref/minLength");
    let (path, _, _) = fail_at(schema, json!([{"name": "x"}]));
    assert_eq!(path, "/0");
}

#[test]
fn pointer_escaping_in_paths() {
    let (path, spath, _) = fail_at(
        json!({"properties": {"a/b~c": {"type": "string"}}}),
        json!({"a/b~c": 1}),
    );
    assert_eq!(path, "/a~1b~0c");
    assert_eq!(spath, "/properties/a~1b~0c/type");
}

#[test]
fn at_most_ten_errors() {
    let schema = json!({"items": {"type": "string"}});
    let (_, _, errors) = fail_at(schema, json!((0..50).collect::<Vec<_>>()));
    assert_eq!(errors.len(), 10);
}

#[test]
fn anchors_ids_and_recursion() {
    let tree = json!({
        "$id": "https://example.test/tree",
        "type": "object",
        "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#"}}},
        "additionalProperties": false
    });
    assert!(ok(
        tree.clone(),
        json!({"value": 1, "children": [{"value": 2, "children": []}]})
    ));
    assert!(!ok(tree, json!({"value": 1, "children": [{"value": "x"}]})));
    let anchored = json!({"$defs": {"n": {"$anchor": "num", "type": "number"}}, "properties": {"a": {"$ref": "#num"}}});
    assert!(ok(anchored.clone(), json!({"a": 1})));
    assert!(!ok(anchored, json!({"a": "1"})));
    let embedded = json!({
        "$id": "https://example.test/root.json",
        "properties": {"a": {"$ref": "item.json"}},
        "$defs": {"item": {"$id": "item.json", "type": "string"}}
    });
    assert!(ok(embedded.clone(), json!({"a": "x"})));
    assert!(!ok(embedded, json!({"a": 1})));
    let percent = json!({"$defs": {"a b": {"type": "string"}}, "$ref": "#/$defs/a%20b"});
    assert!(!ok(percent, json!(1)));
}

#[test]
fn dynamic_ref_uses_the_outermost_anchor() {
    let schema = json!({
        "$id": "https://example.test/strict-list",
        "$ref": "list",
        "$defs": {
            "item": {"$dynamicAnchor": "item", "type": "string"},
            "list": {"$id": "list", "type": "array", "items": {"$dynamicRef": "#item"},
                     "$defs": {"item": {"$dynamicAnchor": "item"}}}
        }
    });
    assert!(ok(schema.clone(), json!(["a"])));
    assert!(!ok(schema, json!([1])));
}

#[test]
fn unevaluated_keywords() {
    let props = json!({
        "properties": {"a": true},
        "allOf": [{"properties": {"b": true}}],
        "anyOf": [{"properties": {"c": true}, "required": ["c"]}, {"properties": {"d": true}, "required": ["d"]}],
        "unevaluatedProperties": false
    });
    assert!(ok(props.clone(), json!({"a": 1, "b": 1, "c": 1})));
    assert!(ok(props.clone(), json!({"b": 1, "d": 1})));
    // `e` is evaluated by nothing; `c` only by an anyOf branch that failed.
    let (path, spath, _) = fail_at(props.clone(), json!({"d": 1, "e": 1}));
    assert_eq!(
        (path.as_str(), spath.as_str()),
        ("", "/unevaluatedProperties")
    );
    let branch = json!({
        "anyOf": [{"properties": {"c": {"type": "string"}}, "required": ["c"]}, {"properties": {"d": true}, "required": ["d"]}],
        "unevaluatedProperties": false
    });
    assert!(ok(branch.clone(), json!({"d": 1, "c": "x"})));
    assert!(!ok(branch, json!({"d": 1, "c": 5})));
    let cond = json!({"if": {"properties": {"kind": {"const": "a"}}}, "then": {"properties": {"x": true}}, "properties": {"kind": true}, "unevaluatedProperties": false});
    assert!(ok(cond.clone(), json!({"kind": "a", "x": 1})));
    assert!(!ok(cond, json!({"kind": "b", "x": 1})));
    let items =
        json!({"prefixItems": [true], "contains": {"type": "string"}, "unevaluatedItems": false});
    assert!(ok(items.clone(), json!([1, "a", "b"])));
    assert!(!ok(items, json!([1, "a", 2])));
    let via_ref = json!({"$ref": "#/$defs/base", "$defs": {"base": {"properties": {"a": true}}}, "unevaluatedProperties": false});
    assert!(ok(via_ref.clone(), json!({"a": 1})));
    assert!(!ok(via_ref, json!({"a": 1, "b": 2})));
}

#[test]
fn remote_refs_are_not_fetched() {
    for schema in [
        json!({"$ref": "https://example.com/schemas/thing.json"}),
        json!({"properties": {"a": {"$ref": "other.json#/x"}}}),
        json!({"$id": "https://example.com/root", "$ref": "https://example.com/elsewhere"}),
        json!({"$ref": "https://json-schema.org/draft/2020-12/schema"}),
    ] {
        let e = OutputSchema::compile(&schema).unwrap_err();
        assert!(e.contains("not fetched"), "{e}");
    }
    // A reference to the document's own $id is local.
    assert!(ok(
        json!({"$id": "https://example.com/root", "$defs": {"s": {"type": "string"}}, "properties": {"a": {"$ref": "https://example.com/root#/$defs/s"}}}),
        json!({"a": "x"})
    ));
}

#[test]
fn invalid_schemas_do_not_compile() {
    for schema in [
        json!(5),
        json!("object"),
        json!({"type": "strng"}),
        json!({"type": 5}),
        json!({"required": "a"}),
        json!({"minLength": -1}),
        json!({"minimum": "1"}),
        json!({"multipleOf": 0}),
        json!({"properties": []}),
        json!({"properties": {"a": 5}}),
        json!({"anyOf": []}),
        json!({"allOf": {}}),
        json!({"$ref": 5}),
        json!({"$ref": "#/$defs/missing"}),
        json!({"$ref": "#nosuchanchor"}),
        json!({"pattern": "\\p{L}+"}),
        json!({"patternProperties": {"(": {}}}),
    ] {
        assert!(OutputSchema::compile(&schema).is_err(), "{schema}");
    }
}

#[test]
fn reference_loops_and_deep_values_do_not_overflow() {
    let lp = json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"});
    let e = OutputSchema::compile(&lp)
        .unwrap()
        .validate(&json!(1))
        .unwrap_err();
    assert!(e.message.contains("nested deeper"), "{}", e.message);
    let mut deep = json!(1);
    for _ in 0..2000 {
        deep = Value::Array(vec![deep]);
    }
    let s = OutputSchema::compile(&json!({"items": {"$ref": "#"}})).unwrap();
    assert!(s.validate(&deep).is_err());
    // Dropping a 2000-deep value recursively is fine on a test thread; leak it anyway.
    std::mem::forget(deep);
    let mut deep_schema = json!({});
    for _ in 0..500 {
        deep_schema = json!({"items": deep_schema});
    }
    assert!(OutputSchema::compile(&deep_schema).is_err());
}

#[test]
fn messages_are_sanitized() {
    let e = OutputSchema::compile(&json!({"required": ["a\u{1b}[31m\n"]}))
        .unwrap()
        .validate(&json!({}))
        .unwrap_err();
    assert!(
        !e.message.contains('\u{1b}') && !e.message.contains('\n'),
        "{}",
        e.message
    );
    let e = OutputSchema::compile(&json!({"$ref": "https://evil.test/\u{202e}x"})).unwrap_err();
    assert!(!e.contains('\u{202e}'));
}

#[test]
fn regex_budget_and_catastrophic_patterns() {
    let s = OutputSchema::compile(&json!({"pattern": "^(a+)+$"})).unwrap();
    assert!(s
        .validate(&json!(format!("{}!", "a".repeat(10_000))))
        .is_err());
    assert!(s.validate(&json!("aaaa")).is_ok());
}
