//! The `resultType` discriminator (spec `schema.ts` `ResultType`; tasks extension adds
//! `"task"`). An absent `resultType` (a pre-2026 server) means `"complete"`.

use crate::error::{sanitize, Error, Result};
use crate::json::RawJson;
use crate::protocol::fields::{self, field, Got, Kind, Shape};

/// What kind of result a response carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResultType {
    Complete,
    InputRequired,
    /// Tasks extension: a `CreateTaskResult`.
    Task,
    /// A value no declared extension defines: always invalid for this client.
    Other(String),
}

/// What `#[derive(Deserialize)] struct Peek { resultType: Option<Value> }` read (see
/// `protocol::fields`).
static PEEK: Shape = Shape {
    expecting: "struct Peek",
    with_len: "struct Peek with 1 element",
    // `Present`: `"resultType": null` is a value (refused below), not an absent member.
    fields: &[field("resultType", Kind::Present, true)],
};

fn parse_peek(text: &str) -> crate::json::JsonResult<Option<crate::json::Value>> {
    let mut g: [Got; 1] = Default::default();
    fields::parse(text, &PEEK, &mut g)?;
    Ok(g[0].value())
}

/// Reads `resultType` from a raw result without decoding the rest of it.
/// A result that is not a JSON object, or whose `resultType` is not a string, is invalid.
pub fn peek_result_type(raw: &RawJson) -> Result<ResultType> {
    // (JSON's whitespace is ASCII: no Unicode `trim_start`, whose tables a call would run.)
    let text = raw.get().trim_ascii_start();
    if !text.starts_with('{') {
        return Err(Error::invalid_result("result is not a JSON object"));
    }
    let result_type = parse_peek(raw.get()).map_err(|e| {
        Error::invalid_result(format!(
            "malformed result: {}",
            sanitize(&e.to_string(), 200)
        ))
    })?;
    Ok(match result_type {
        None => ResultType::Complete,
        Some(crate::json::Value::String(s)) => match s.as_str() {
            "complete" => ResultType::Complete,
            "input_required" => ResultType::InputRequired,
            "task" => ResultType::Task,
            _ => ResultType::Other(s),
        },
        Some(_) => return Err(Error::invalid_result("resultType is not a string")),
    })
}

/// True when the result names its `resultType`, as every 2026-07-28 result does (an absent
/// one is a pre-2026 server's: protocol notes "Every result has `resultType`").
pub(crate) fn declares_result_type(raw: &RawJson) -> bool {
    matches!(parse_peek(raw.get()), Ok(Some(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `Deserialize` derive `Peek` had.
    mod derived {
        use serde::Deserialize;

        fn present<'de, D: serde::Deserializer<'de>>(
            d: D,
        ) -> std::result::Result<Option<crate::json::Value>, D::Error> {
            crate::json::Value::deserialize(d).map(Some)
        }

        #[derive(Deserialize)]
        pub(super) struct Peek {
            #[serde(rename = "resultType", default, deserialize_with = "present")]
            pub result_type: Option<crate::json::Value>,
        }
    }

    #[test]
    fn peek_parse_matches_the_derive() {
        fields::assert_same_as_derive(
            &["resultType"],
            parse_peek,
            |p: derived::Peek| format!("{:?}", p.result_type),
            |p| format!("{p:?}"),
        );
    }

    fn raw(s: &str) -> RawJson {
        RawJson::from_string(s.to_string()).unwrap()
    }

    #[test]
    fn a_null_result_type_is_refused() {
        // schema.ts: `resultType?: ResultType` (a string when present); fuzz: results.
        for text in [
            r#"{"resultType":null}"#,
            r#"{"resultType":1}"#,
            r#"{"resultType":{}}"#,
        ] {
            let e = peek_result_type(&raw(text)).unwrap_err();
            assert_eq!(e.kind, crate::error::ErrorKind::InvalidResult, "{text}");
        }
    }

    #[test]
    fn dispatch() {
        assert_eq!(
            peek_result_type(&raw(r#"{"tools":[]}"#)).unwrap(),
            ResultType::Complete
        );
        assert_eq!(
            peek_result_type(&raw(r#"{"resultType":"complete"}"#)).unwrap(),
            ResultType::Complete
        );
        assert_eq!(
            peek_result_type(&raw(
                r#"{"resultType":"input_required","requestState":"x"}"#
            ))
            .unwrap(),
            ResultType::InputRequired
        );
        assert_eq!(
            peek_result_type(&raw(r#"{"resultType":"task"}"#)).unwrap(),
            ResultType::Task
        );
        assert_eq!(
            peek_result_type(&raw(r#"{"resultType":"stream"}"#)).unwrap(),
            ResultType::Other("stream".into())
        );
    }

    #[test]
    fn invalid_shapes() {
        assert!(peek_result_type(&raw("[]")).is_err());
        assert!(peek_result_type(&raw("7")).is_err());
        assert!(peek_result_type(&raw(r#"{"resultType":3}"#)).is_err());
    }
}
