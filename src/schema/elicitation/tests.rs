use super::*;
use crate::json;

fn fixture(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

/// A form with every kind of field the spec allows.
fn form() -> Value {
    let mut props = Map::new();
    for (name, text) in [
        ("color", include_str!("../../../tests/fixtures/spec/2026-07-28/examples/UntitledSingleSelectEnumSchema/color-select-schema.json")),
        ("hex", include_str!("../../../tests/fixtures/spec/2026-07-28/examples/TitledSingleSelectEnumSchema/titled-color-select-schema.json")),
        ("colors", include_str!("../../../tests/fixtures/spec/2026-07-28/examples/UntitledMultiSelectEnumSchema/color-multi-select-schema.json")),
        ("hexes", include_str!("../../../tests/fixtures/spec/2026-07-28/examples/TitledMultiSelectEnumSchema/titled-color-multi-select-schema.json")),
        ("email", include_str!("../../../tests/fixtures/spec/2026-07-28/examples/StringSchema/email-input-schema.json")),
        ("n", include_str!("../../../tests/fixtures/spec/2026-07-28/examples/NumberSchema/number-input-schema.json")),
        ("flag", include_str!("../../../tests/fixtures/spec/2026-07-28/examples/BooleanSchema/boolean-input-schema.json")),
    ] {
        props.insert(name.into(), fixture(text));
    }
    props.insert(
        "nick".into(),
        json!({"type": "string", "minLength": 2, "maxLength": 4}),
    );
    props.insert(
        "count".into(),
        json!({"type": "integer", "minimum": 1, "maximum": 10}),
    );
    props.insert("day".into(), json!({"type": "string", "format": "date"}));
    props.insert(
        "at".into(),
        json!({"type": "string", "format": "date-time"}),
    );
    props.insert("site".into(), json!({"type": "string", "format": "uri"}));
    props.insert(
        "legacy".into(),
        json!({"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]}),
    );
    json!({"type": "object", "properties": props, "required": ["nick"]})
}

fn accept(content: Value) -> Result<Value, Error> {
    check_form_answer(&form(), &json!({"action": "accept", "content": content}))
}

fn paths(e: &Error) -> Vec<String> {
    assert_eq!(e.kind, ErrorKind::InputValidation, "{e}");
    let errs = e.data.as_ref().unwrap()["errors"].as_array().unwrap();
    errs.iter()
        .map(|x| x["path"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn spec_examples_pass() {
    let multi = fixture(include_str!("../../../tests/fixtures/spec/2026-07-28/examples/ElicitRequestFormParams/elicit-multiple-fields.json"));
    let answer = fixture(include_str!(
        "../../../tests/fixtures/spec/2026-07-28/examples/ElicitResult/input-multiple-fields.json"
    ));
    assert_eq!(
        check_form_answer(&multi["requestedSchema"], &answer).unwrap(),
        answer
    );
    let single = fixture(include_str!("../../../tests/fixtures/spec/2026-07-28/examples/ElicitRequestFormParams/elicit-single-field.json"));
    let answer = fixture(include_str!(
        "../../../tests/fixtures/spec/2026-07-28/examples/ElicitResult/input-single-field.json"
    ));
    assert_eq!(
        check_form_answer(&single["requestedSchema"], &answer).unwrap(),
        answer
    );
    let url_answer = fixture(include_str!("../../../tests/fixtures/spec/2026-07-28/examples/ElicitResult/accept-url-mode-no-content.json"));
    assert_eq!(check_url_answer(&url_answer).unwrap(), url_answer);
    let url = fixture(include_str!("../../../tests/fixtures/spec/2026-07-28/examples/ElicitRequestURLParams/elicit-sensitive-data.json"));
    assert_eq!(
        check_url(url["url"].as_str().unwrap()).unwrap().host,
        "mcp.example.com"
    );
}

#[test]
fn a_full_valid_answer() {
    let content = json!({
        "color": "Red", "hex": "#00FF00", "colors": ["Red", "Blue"], "hexes": ["#FF0000"],
        "email": "a@b.co", "n": 50, "flag": true, "nick": "日本語", "count": 3,
        "day": "2024-02-29", "at": "2025-11-25T10:30:00Z", "site": "https://example.com/x", "legacy": "b"
    });
    let out = accept(content.clone()).unwrap();
    assert_eq!(out, json!({"action": "accept", "content": content}));
}

#[test]
fn invalid_values_per_rule() {
    let cases: Vec<(Value, &str)> = vec![
        (json!({"nick": "a"}), "/nick"),                 // too short
        (json!({"nick": "abcde"}), "/nick"),             // too long
        (json!({"nick": "💩💩💩💩💩"}), "/nick"),        // 5 code points
        (json!({"nick": 12}), "/nick"),                  // not a string
        (json!({"nick": "ab", "count": 1.5}), "/count"), // integer given as 1.5
        (json!({"nick": "ab", "count": "3"}), "/count"),
        (json!({"nick": "ab", "count": 11}), "/count"),
        (json!({"nick": "ab", "count": 0}), "/count"),
        (json!({"nick": "ab", "n": true}), "/n"),
        (json!({"nick": "ab", "n": 101}), "/n"),
        (json!({"nick": "ab", "flag": "true"}), "/flag"),
        (json!({"nick": "ab", "color": "Purple"}), "/color"),
        (json!({"nick": "ab", "color": ["Red"]}), "/color"),
        (json!({"nick": "ab", "hex": "Red"}), "/hex"), // the title, not the const
        (json!({"nick": "ab", "legacy": "A"}), "/legacy"),
        (json!({"nick": "ab", "colors": ["Red", "Red"]}), "/colors"), // duplicates
        (json!({"nick": "ab", "colors": []}), "/colors"),             // below minItems
        (
            json!({"nick": "ab", "colors": ["Red", "Green", "Blue"]}),
            "/colors",
        ), // above maxItems
        (json!({"nick": "ab", "colors": ["Pink"]}), "/colors"),
        (json!({"nick": "ab", "colors": "Red"}), "/colors"),
        (json!({"nick": "ab", "hexes": ["Red"]}), "/hexes"),
        (json!({"nick": "ab", "email": "not-an-email"}), "/email"),
        (json!({"nick": "ab", "day": "2023-02-29"}), "/day"),
        (json!({"nick": "ab", "at": "2025-11-25 10:30"}), "/at"),
        (json!({"nick": "ab", "site": "example.com"}), "/site"),
        (json!({"nick": "ab", "extra": 1}), "/extra"), // not in the schema
        (json!({"count": 2}), "/nick"),                // missing required
        (json!({"nick": null}), "/nick"),              // null for a required field
    ];
    for (content, path) in cases {
        let e = accept(content.clone()).unwrap_err();
        assert_eq!(paths(&e), [path], "{content}");
        assert!(
            e.message.starts_with("invalid elicitation answer: "),
            "{}",
            e.message
        );
    }
}

#[test]
fn several_problems_are_all_listed() {
    let e = accept(json!({"count": 1.5, "extra": 1, "flag": 1})).unwrap_err();
    assert_eq!(paths(&e), ["/count", "/extra", "/flag", "/nick"]);
    assert!(e.message.contains("/count"), "{}", e.message);
}

#[test]
fn normalization() {
    // An integral float for an integer field goes out as an integer; optional nulls are
    // dropped (fields with a default too: null is how an answer leaves them empty).
    let out = accept(
        json!({"nick": "ab", "count": 3.0, "email": null, "color": null,
        "hex": null, "colors": null, "hexes": null, "n": null, "flag": null}),
    )
    .unwrap();
    assert_eq!(
        out,
        json!({"action": "accept", "content": {"nick": "ab", "count": 3}})
    );
    assert!(out["content"]["count"].is_i64());
    // Unknown top-level fields are dropped; `_meta` is kept.
    let out = check_form_answer(
        &form(),
        &json!({"action": "accept", "content": {"nick": "ab", "email": null, "color": null,
            "hex": null, "colors": null, "hexes": null, "n": null, "flag": null}, "x": 1, "_meta": {"k": 1}}),
    )
    .unwrap();
    assert_eq!(
        out,
        json!({"action": "accept", "content": {"nick": "ab"}, "_meta": {"k": 1}})
    );
}

/// SEP-1034 (elicitation-sep1034-client-defaults): fields left out get their defaults.
#[test]
fn defaults_fill_fields_left_out() {
    let out = accept(json!({"nick": "ab", "email": null})).unwrap();
    assert_eq!(
        out["content"],
        json!({"nick": "ab", "color": "Red", "hex": "#FF0000", "colors": ["Red", "Green"],
               "hexes": ["#FF0000", "#00FF00"], "n": 50, "flag": false})
    );
    // An answered value wins over the default.
    assert_eq!(
        accept(json!({"nick": "ab", "n": 7})).unwrap()["content"]["n"],
        7
    );
    // The conformance scenario's schema, answered with an empty accept.
    let schema = json!({"type": "object", "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30.0},
        "score": {"type": "number", "default": 95.5},
        "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "default": true},
        "bad": {"type": "integer", "minimum": 1, "default": 0},
        "wrong": {"type": "string", "enum": ["a"], "default": "z"},
        "must": {"type": "string", "default": "given"}}, "required": ["must"]});
    for answer in [
        json!({"action": "accept", "content": {}}),
        json!({"action": "accept"}),
    ] {
        if answer.get("content").is_none() {
            // No content while something is required stays an error.
            assert!(check_form_answer(&schema, &answer).is_err());
            continue;
        }
        let out = check_form_answer(&schema, &answer).unwrap();
        assert_eq!(
            out["content"],
            json!({"name": "John Doe", "age": 30, "score": 95.5, "status": "active",
                   "verified": true, "must": "given"})
        );
        assert!(out["content"]["age"].is_i64());
    }
    // A required field answered null is still missing, default or not.
    let e = check_form_answer(
        &schema,
        &json!({"action": "accept", "content": {"must": null}}),
    )
    .unwrap_err();
    assert_eq!(paths(&e), ["/must"]);
}

#[test]
fn decline_and_cancel_drop_content() {
    for action in ["decline", "cancel"] {
        let out = check_form_answer(
            &form(),
            &json!({"action": action, "content": {"nick": 5, "junk": true}}),
        )
        .unwrap();
        assert_eq!(out, json!({"action": action}));
        assert_eq!(
            check_url_answer(&json!({"action": action, "content": {"a": 1}})).unwrap(),
            json!({"action": action})
        );
    }
    assert_eq!(
        check_url_answer(&json!({"action": "accept", "content": {"a": 1}})).unwrap(),
        json!({"action": "accept"})
    );
}

#[test]
fn bad_actions_and_content() {
    for answer in [
        json!(null),
        json!("accept"),
        json!({}),
        json!({"action": "ACCEPT"}),
        json!({"action": 1}),
    ] {
        let e = check_form_answer(&form(), &answer).unwrap_err();
        assert_eq!(e.kind, ErrorKind::InputValidation, "{answer}");
        assert_eq!(
            check_url_answer(&answer).unwrap_err().kind,
            ErrorKind::InputValidation
        );
    }
    let e = check_form_answer(&form(), &json!({"action": "accept"})).unwrap_err();
    assert_eq!(paths(&e), ["/content"]);
    let e =
        check_form_answer(&form(), &json!({"action": "accept", "content": ["ab"]})).unwrap_err();
    assert_eq!(paths(&e), ["/content"]);
    // Nothing required: accept without content is sent with an empty content.
    let schema = json!({"type": "object", "properties": {"a": {"type": "boolean"}}});
    assert_eq!(
        check_form_answer(&schema, &json!({"action": "accept"})).unwrap(),
        json!({"action": "accept", "content": {}})
    );
}

#[test]
fn nonsense_schemas_from_the_server_are_typed_errors() {
    let answer = json!({"action": "accept", "content": {}});
    for schema in [
        json!(5),
        json!(null),
        json!("object"),
        json!({"type": "array", "properties": {}}),
        json!({"type": "object", "properties": 5}),
        json!({"type": "object", "properties": []}),
        json!({"type": "object", "properties": {"a": 5}}),
        json!({"type": "object", "properties": {"a": {}}}),
        json!({"type": "object", "properties": {"a": {"type": "object"}}}),
        json!({"type": "object", "properties": {"a": {"type": "string", "minLength": "2"}}}),
        json!({"type": "object", "properties": {"a": {"type": "string", "enum": "x"}}}),
        json!({"type": "object", "properties": {"a": {"type": "string", "enum": [1, 2]}}}),
        json!({"type": "object", "properties": {"a": {"type": "string", "oneOf": [{"title": "no const"}]}}}),
        json!({"type": "object", "properties": {"a": {"type": "array"}}}),
        json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}}}),
        json!({"type": "object", "properties": {}, "required": "a"}),
        json!({"type": "object", "properties": {}, "required": ["a"]}),
    ] {
        let e = check_form_answer(&schema, &answer).unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidResult, "{schema}");
    }
    // A decline or cancel does not depend on the schema.
    assert_eq!(
        check_form_answer(&json!(5), &json!({"action": "decline"})).unwrap(),
        json!({"action": "decline"})
    );
}

#[test]
fn messages_are_sanitized() {
    let e = accept(json!({"nick": "ab", "a\u{1b}[2J\u{202e}": 1})).unwrap_err();
    assert!(
        !e.message.contains('\u{1b}') && !e.message.contains('\u{202e}'),
        "{}",
        e.message
    );
}

/// The vectors the dialog's checks are tested against too (tests/e2e/dialog-checks.mjs):
/// the two must agree on every one.
#[test]
fn shared_vectors() {
    let file = fixture(include_str!(
        "../../../tests/fixtures/elicitation-vectors.json"
    ));
    let vectors = file["vectors"].as_array().unwrap();
    assert!(vectors.len() >= 100, "{} vectors", vectors.len());
    let mut failures = Vec::new();
    for v in vectors {
        let name = v["name"].as_str().unwrap();
        let answer = json!({"action": "accept", "content": v["content"]});
        let want: Vec<String> = v["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| ptr(f.as_str().unwrap()))
            .collect();
        let got = match check_form_answer(&v["schema"], &answer) {
            Ok(_) => Vec::new(),
            Err(e) if e.kind == ErrorKind::InputValidation => {
                let mut p = paths(&e);
                p.dedup();
                p
            }
            Err(e) => vec![format!("schema refused: {e}")],
        };
        let mut sorted = got.clone();
        sorted.sort();
        let mut want_sorted = want.clone();
        want_sorted.sort();
        if sorted != want_sorted {
            failures.push(format!(
                "{name}: fields at fault {got:?}, expected {want:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
