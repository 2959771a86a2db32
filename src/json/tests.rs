//! What `crate::json` says and keeps. Against serde_json, on chosen and generated texts:
//! `tests/json_differential.rs` and the `json` fuzz target (`fuzz/src/json.rs`).

use super::*;

#[test]
fn keeps_member_order_and_the_last_of_a_repeated_key() {
    let v = parse(r#"{"b":1,"a":2,"b":3}"#).unwrap();
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["b", "a"]);
    assert_eq!(v["b"], 3);
}

#[test]
fn errors_say_what_and_where() {
    let e = |t: &str| parse(t).unwrap_err().to_string();
    assert_eq!(e(""), "EOF while parsing a value at line 1 column 1");
    assert_eq!(e("x"), "expected value at line 1 column 1");
    assert_eq!(e("[1,\n 2,]"), "trailing comma at line 2 column 4");
    assert_eq!(e("{\"a\" 1}"), "expected `:` at line 1 column 6");
    assert_eq!(e("{} x"), "trailing characters at line 1 column 4");
    assert_eq!(e("1e400"), "number out of range at line 1 column 6");
    assert_eq!(
        e("\"\\ud800\""),
        "lone leading surrogate in hex escape at line 1 column 8"
    );
    assert_eq!(
        e(&"[".repeat(200)),
        "recursion limit exceeded at line 1 column 128"
    );
    assert!(parse_bytes(b"\"\xff\"").is_err());
}

#[test]
fn raw_values_keep_the_text_without_the_surrounding_whitespace() {
    let r = RawJson::from_string(" {\"a\" : [1, 2]}\n".into()).unwrap();
    assert_eq!(r.get(), "{\"a\" : [1, 2]}");
    // What a `Value` cannot hold, a raw value may (the host's JSON.parse reads it).
    assert_eq!(
        RawJson::from_string("\"\\ud800\"".into()).unwrap().get(),
        "\"\\ud800\""
    );
    assert_eq!(RawJson::from_string("1e400".into()).unwrap().get(), "1e400");
    assert!(RawJson::from_string("{\"a\":}".into()).is_err());
    assert!(RawJson::from_string("1 2".into()).is_err());
}

#[test]
fn a_repeated_key_is_refused_where_asked() {
    let ok = parse_unique_object(r#"{"b":1,"a":{"x":1,"x":2}}"#).unwrap();
    let keys: Vec<&str> = ok.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["b", "a"], "members stay in the text's order");
    // Of several repeated keys, the one repeated first in the text is named (not the
    // first in key order).
    assert!(matches!(
        parse_unique_object(r#"{"z":1,"y":2,"z":3,"y":4}"#),
        Err(UniqueError::Duplicate(k)) if k == "z"
    ));
    assert!(matches!(
        parse_unique_object(r#"{"b":1,"a":2,"a":3,"b":4}"#),
        Err(UniqueError::Duplicate(k)) if k == "a"
    ));
    // Many keys: sorted once (inserted one by one into a sorted set, they would move
    // about 10^10 keys).
    let many: Vec<String> = (0..200_000)
        .map(|i| format!("\"k{}\":0", (i * 7_919) % 200_000))
        .collect();
    let text = format!("{{{}}}", many.join(","));
    assert_eq!(parse_unique_object(&text).unwrap().len(), 200_000);
    let repeated = format!("{{{},\"k17\":1}}", many.join(","));
    assert!(matches!(
        parse_unique_object(&repeated),
        Err(UniqueError::Duplicate(k)) if k == "k17"
    ));
    assert!(matches!(
        parse_unique_object(r#"{"a":1,"b":2,"a":3}"#),
        Err(UniqueError::Duplicate(k)) if k == "a"
    ));
    assert!(matches!(
        parse_unique_object("[]"),
        Err(UniqueError::Json(_))
    ));
    assert!(matches!(
        parse_unique_object("{\"a\":1,}"),
        Err(UniqueError::Json(_))
    ));
}

#[test]
fn shape_errors_say_what_was_expected() {
    let Err(UniqueError::Json(e)) = parse_unique_object("[1]") else {
        panic!("an array is not an object");
    };
    assert_eq!(e.to_string(), "expected an object");
    assert_eq!(
        crate::protocol::jsonrpc::decode("5").unwrap_err().message,
        "malformed JSON-RPC message: expected struct Envelope"
    );
}

#[test]
fn serde_jsons_private_marker_key_is_a_key_like_any_other() {
    // With its `raw_value` feature, serde_json's `Value` reads this object as the raw JSON
    // text inside the string (`[1]`); JSON has no such rule, and a peer's result may hold
    // the key (found by the `json` fuzz target, whose oracle now reads it as a key:
    // fuzz/src/oracle.rs).
    let text = r#"{"$serde_json::private::RawValue":"[1]"}"#;
    let v = parse(text).unwrap();
    assert_eq!(v["$serde_json::private::RawValue"], "[1]");
    assert!(parse(r#"{"$serde_json::private::RawValue":1}"#).is_ok());
    assert_eq!(RawJson::from_string(text.into()).unwrap().get(), text);
}
