//! The crate's `Value`, `json!` and conversions against serde_json's, whose API they follow.

use crate::json;
use crate::json::{Map, Value};

/// serde_json's value of the same text.
fn theirs(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap()
}

/// Ours written by serde_json's printer (through `Serialize`) is serde_json's own value.
fn as_theirs(v: &Value) -> serde_json::Value {
    serde_json::to_value(v).unwrap()
}

#[test]
fn json_builds_what_serde_jsons_json_builds() {
    let (s, n, list) = (String::from("s"), -3i64, vec!["a", "b"]);
    let key = "computed";
    let cases: Vec<(Value, serde_json::Value)> = vec![
        (json!(null), serde_json::json!(null)),
        (json!([]), serde_json::json!([])),
        (json!({}), serde_json::json!({})),
        (
            json!([1, -2, 3.5, true, false, null, "x",]),
            serde_json::json!([1, -2, 3.5, true, false, null, "x",]),
        ),
        (
            json!({"b": [1, {"c": null}], "a": {"d": [[], {}]}, "e": s, "f": n, "g": list,}),
            serde_json::json!({"b": [1, {"c": null}], "a": {"d": [[], {}]}, "e": s, "f": n, "g": list,}),
        ),
        (
            json!({key: s.len(), "x": u64::MAX, "y": i64::MIN, "z": (1, 2).1, "t": !s.is_empty()}),
            serde_json::json!({key: s.len(), "x": u64::MAX, "y": i64::MIN, "z": (1, 2).1, "t": !s.is_empty()}),
        ),
        (json!(Some("x")), serde_json::json!(Some("x"))),
        (json!(None::<u8>), serde_json::json!(None::<u8>)),
        (json!(f64::NAN), serde_json::json!(f64::NAN)),
        (json!({"k": 1, "k": 2}), serde_json::json!({"k": 1, "k": 2})),
    ];
    for (ours, theirs) in cases {
        assert_eq!(as_theirs(&ours), theirs);
        assert_eq!(ours.to_string(), theirs.to_string());
    }
    // Leaves are taken by reference: `s` and `list` are still here.
    assert_eq!(s.len() + list.len(), 3);
}

#[test]
fn reads_and_compares_as_serde_jsons_value_does() {
    let text = r#"{"a":[1,-1,1.5,18446744073709551615,-9223372036854775808],"s":"x","t":true,"n":null,"o":{"p/q":{"~r":[7]}},"~1":1,"~2":2,"~":3,"a~":4,"/0":5}"#;
    let (v, t) = (json::parse(text).unwrap(), theirs(text));
    for i in 0..6 {
        let (a, b) = (&v["a"][i], &t["a"][i]);
        assert_eq!(a.as_u64(), b.as_u64(), "{i}");
        assert_eq!(a.as_i64(), b.as_i64(), "{i}");
        assert_eq!(a.as_f64(), b.as_f64(), "{i}");
        assert_eq!(
            (a.is_u64(), a.is_i64(), a.is_f64()),
            (b.is_u64(), b.is_i64(), b.is_f64())
        );
        assert_eq!(a.is_null(), b.is_null());
    }
    for p in [
        "",
        "/s",
        "/a/0",
        "/a/4",
        "/a/5",
        "/a/01",
        "/a/+1",
        "/o/p~1q/~0r/0",
        "/o/p~1q/~0r/x",
        "/n/x",
        "s",
        "/~01",
        "/~2",
        "/~",
        "/a~",
        "/~10",
    ] {
        assert_eq!(v.pointer(p).map(as_theirs), t.pointer(p).cloned(), "{p}");
    }
    assert_eq!(v["s"], "x");
    assert_eq!(v["a"][1], -1);
    assert_eq!(v["a"][2], 1.5);
    assert_eq!(v["t"], true);
    // A number compares with a float by its value, and with another number by its kind too
    // (an integer is not a float), as in serde_json.
    assert_eq!(v["a"][0] == 1.0, t["a"][0] == 1.0);
    assert!(v["a"][0] == 1.0);
    assert_ne!(v["a"][0], json!(1.0));
    assert_ne!(t["a"][0], serde_json::json!(1.0));
    assert_eq!(v["missing"]["deeper"][3], Value::Null);
    assert!(v.get("o").and_then(|o| o.get("p/q")).is_some());
    assert_eq!(v.get(0), None);
    assert_eq!(v["a"].get(9), None);
}

#[test]
fn index_mut_inserts_as_serde_jsons_does() {
    let mut v = Value::Null;
    v["a"]["b"] = json!(1);
    v["a"]["c"] = json!([0, 0]);
    v["a"]["c"][1] = json!("x");
    v["z"] = json!(null);
    assert_eq!(v.to_string(), r#"{"a":{"b":1,"c":[0,"x"]},"z":null}"#);
    let mut m = Map::new();
    m.insert("x".into(), v.take());
    assert!(v.is_null());
    assert_eq!(Value::from(m)["x"]["a"]["b"], 1);
}

#[test]
fn serde_reads_and_writes_it() {
    let text = r#"{"b":[1,-2,2.5e-300,"\u00e9",{"c":null}],"a":{},"b2":false}"#;
    let v: Value = serde_json::from_str(text).unwrap();
    assert_eq!(v, json::parse(text).unwrap());
    assert_eq!(serde_json::to_string(&v).unwrap(), theirs(text).to_string());
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["b", "a", "b2"]);
    assert!(serde_json::from_str::<Map>("[1]").is_err());
}
