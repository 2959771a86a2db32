//! Shape checks on the host's answers to the server's `sampling/createMessage` and
//! `roots/list` input requests (schema.ts `CreateMessageResult`, `ListRootsResult`), so a
//! host mistake is reported to the host instead of being sent to the server.
//!
//! Unknown fields are kept (results are open objects); only the fields the spec defines are
//! checked.

use crate::error::{sanitize, Error, ErrorKind};
use crate::json::{Map, Value};

fn invalid(what: &str, path: &str, msg: &str) -> Error {
    let mut e = Map::new();
    e.insert("path".into(), Value::String(path.into()));
    e.insert("message".into(), Value::String(msg.into()));
    let mut data = Map::new();
    data.insert("errors".into(), Value::Array(vec![Value::Object(e)]));
    let at = if path.is_empty() {
        String::new()
    } else {
        format!(" at {path}")
    };
    Error::new(
        ErrorKind::InputValidation,
        format!("invalid {what}{at}: {msg}"),
    )
    .with_data(Value::Object(data))
}

fn is_str(v: Option<&Value>) -> bool {
    v.is_some_and(Value::is_string)
}

/// Checks one `SamplingMessageContentBlock`; `Err((path suffix, message))`.
fn check_block(b: &Value) -> Result<(), (&'static str, String)> {
    let b = b
        .as_object()
        .ok_or(("", "a content block must be an object".to_string()))?;
    let ty = b
        .get("type")
        .and_then(Value::as_str)
        .ok_or(("/type", "missing the string `type`".to_string()))?;
    let (field, ok) = match ty {
        "text" => ("/text", is_str(b.get("text"))),
        "image" | "audio" => match is_str(b.get("data")) {
            true => ("/mimeType", is_str(b.get("mimeType"))),
            false => ("/data", false),
        },
        "tool_use" => match (is_str(b.get("id")), is_str(b.get("name"))) {
            (true, true) => ("/input", b.get("input").is_some_and(Value::is_object)),
            (false, _) => ("/id", false),
            _ => ("/name", false),
        },
        "tool_result" => match is_str(b.get("toolUseId")) {
            true => ("/content", b.get("content").is_some_and(Value::is_array)),
            false => ("/toolUseId", false),
        },
        other => {
            let m = format!(
                "unknown content type '{}' (text, image, audio, tool_use, tool_result)",
                sanitize(other, 40)
            );
            return Err(("/type", m));
        }
    };
    let want = match field {
        "/input" => "an object",
        "/content" => "an array",
        _ => "a string",
    };
    if ok {
        Ok(())
    } else {
        Err((
            field,
            format!(
                "a {ty} block needs `{}` as {want}",
                field.trim_start_matches('/')
            ),
        ))
    }
}

/// `CreateMessageResult` from the host: `{role: "assistant"|"user", content: block or
/// array of blocks (text/image/audio/tool_use/tool_result), model: string,
/// stopReason?: string}`. Returns the value to send (unchanged). Errors are
/// [`ErrorKind::InputValidation`] naming the problem (`data.errors[0].path`).
pub fn check_sampling_result(v: &Value) -> Result<Value, Error> {
    const WHAT: &str = "sampling result";
    let obj = v
        .as_object()
        .ok_or_else(|| invalid(WHAT, "", "must be an object"))?;
    if !matches!(
        obj.get("role").and_then(Value::as_str),
        Some("assistant" | "user")
    ) {
        return Err(invalid(
            WHAT,
            "/role",
            "role must be \"assistant\" or \"user\"",
        ));
    }
    if !is_str(obj.get("model")) {
        return Err(invalid(
            WHAT,
            "/model",
            "model must be a string (the name of the model used)",
        ));
    }
    if obj.get("stopReason").is_some_and(|s| !s.is_string()) {
        return Err(invalid(WHAT, "/stopReason", "stopReason must be a string"));
    }
    match obj.get("content") {
        None => return Err(invalid(WHAT, "/content", "content is missing")),
        Some(Value::Array(blocks)) => {
            for (i, b) in blocks.iter().enumerate() {
                check_block(b).map_err(|(p, m)| invalid(WHAT, &format!("/content/{i}{p}"), &m))?;
            }
        }
        Some(b) => check_block(b).map_err(|(p, m)| invalid(WHAT, &format!("/content{p}"), &m))?,
    }
    Ok(v.clone())
}

/// `ListRootsResult`: `{roots: [{uri: "file://…", name?: string}]}`. A bare array (the
/// host gave the `roots` list itself) is accepted and wrapped. Returns the value to send.
pub fn check_roots_result(v: &Value) -> Result<Value, Error> {
    const WHAT: &str = "roots result";
    let wrapped;
    let obj = match v {
        Value::Array(_) => {
            let mut m = Map::new();
            m.insert("roots".into(), v.clone());
            wrapped = m;
            &wrapped
        }
        Value::Object(o) => o,
        _ => {
            return Err(invalid(
                WHAT,
                "",
                "must be an object {roots: [...]} or an array of roots",
            ))
        }
    };
    let roots = obj
        .get("roots")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid(WHAT, "/roots", "roots must be an array"))?;
    for (i, r) in roots.iter().enumerate() {
        let at = |f: &str| format!("/roots/{i}{f}");
        let r = r
            .as_object()
            .ok_or_else(|| invalid(WHAT, &at(""), "a root must be an object"))?;
        // schema.ts Root.uri: "This *must* start with `file://` for now."
        if !r
            .get("uri")
            .and_then(Value::as_str)
            .is_some_and(|u| u.starts_with("file://"))
        {
            return Err(invalid(
                WHAT,
                &at("/uri"),
                "uri must be a string starting with file://",
            ));
        }
        if r.get("name").is_some_and(|n| !n.is_string()) {
            return Err(invalid(WHAT, &at("/name"), "name must be a string"));
        }
    }
    Ok(Value::Object(obj.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn fixture(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    fn path_of(e: &Error) -> String {
        assert_eq!(e.kind, ErrorKind::InputValidation);
        e.data.as_ref().unwrap()["errors"][0]["path"]
            .as_str()
            .unwrap()
            .to_string()
    }

    #[test]
    fn spec_examples_pass() {
        for text in [
            include_str!("../../tests/fixtures/spec/2026-07-28/examples/CreateMessageResult/final-response.json"),
            include_str!("../../tests/fixtures/spec/2026-07-28/examples/CreateMessageResult/text-response.json"),
            include_str!("../../tests/fixtures/spec/2026-07-28/examples/CreateMessageResult/tool-use-response.json"),
        ] {
            let v = fixture(text);
            assert_eq!(check_sampling_result(&v).unwrap(), v);
        }
        for text in [
            include_str!("../../tests/fixtures/spec/2026-07-28/examples/ListRootsResult/multiple-root-directories.json"),
            include_str!("../../tests/fixtures/spec/2026-07-28/examples/ListRootsResult/single-root-directory.json"),
        ] {
            let v = fixture(text);
            assert_eq!(check_roots_result(&v).unwrap(), v);
            assert_eq!(check_roots_result(&v["roots"]).unwrap(), v);
        }
    }

    #[test]
    fn sampling_blocks() {
        let ok = |content: Value| {
            check_sampling_result(&json!({"role": "assistant", "model": "m", "content": content}))
        };
        assert!(ok(json!({"type": "image", "data": "aGk=", "mimeType": "image/png"})).is_ok());
        assert!(ok(json!({"type": "audio", "data": "aGk=", "mimeType": "audio/wav"})).is_ok());
        assert!(ok(json!([{"type": "tool_result", "toolUseId": "1", "content": []}, {"type": "text", "text": ""}])).is_ok());
        assert!(ok(json!([])).is_ok());
        for (content, path) in [
            (json!({"type": "text"}), "/content/text"),
            (json!({"type": "text", "text": 5}), "/content/text"),
            (json!({"text": "hi"}), "/content/type"),
            (json!({"type": "video", "data": "x"}), "/content/type"),
            (
                json!({"type": "image", "mimeType": "image/png"}),
                "/content/data",
            ),
            (json!({"type": "image", "data": "x"}), "/content/mimeType"),
            (
                json!({"type": "tool_use", "name": "t", "input": {}}),
                "/content/id",
            ),
            (
                json!({"type": "tool_use", "id": "1", "input": {}}),
                "/content/name",
            ),
            (
                json!({"type": "tool_use", "id": "1", "name": "t", "input": "x"}),
                "/content/input",
            ),
            (
                json!({"type": "tool_result", "content": []}),
                "/content/toolUseId",
            ),
            (
                json!({"type": "tool_result", "toolUseId": "1"}),
                "/content/content",
            ),
            (json!([{"type": "text", "text": "a"}, "b"]), "/content/1"),
            (json!("just text"), "/content"),
        ] {
            assert_eq!(
                path_of(&ok(content.clone()).unwrap_err()),
                path,
                "{content}"
            );
        }
    }

    #[test]
    fn sampling_envelope() {
        let text = json!({"type": "text", "text": "hi"});
        for (v, path) in [
            (json!(null), ""),
            (json!([]), ""),
            (json!({"model": "m", "content": text}), "/role"),
            (
                json!({"role": "system", "model": "m", "content": text}),
                "/role",
            ),
            (json!({"role": "user", "content": text}), "/model"),
            (
                json!({"role": "user", "model": 1, "content": text}),
                "/model",
            ),
            (json!({"role": "user", "model": "m"}), "/content"),
            (
                json!({"role": "user", "model": "m", "content": text, "stopReason": 1}),
                "/stopReason",
            ),
        ] {
            assert_eq!(
                path_of(&check_sampling_result(&v).unwrap_err()),
                path,
                "{v}"
            );
        }
        let e = check_sampling_result(
            &json!({"role": "assistant", "model": "m", "content": {"type": "\u{1b}[31m"}}),
        )
        .unwrap_err();
        assert!(!e.message.contains('\u{1b}'), "{}", e.message);
    }

    #[test]
    fn roots() {
        assert_eq!(
            check_roots_result(&json!([])).unwrap(),
            json!({"roots": []})
        );
        let with_meta = json!({"roots": [{"uri": "file:///a", "_meta": {"x": 1}}], "_meta": {}});
        assert_eq!(check_roots_result(&with_meta).unwrap(), with_meta);
        for (v, path) in [
            (json!("file:///a"), ""),
            (json!({}), "/roots"),
            (json!({"roots": {}}), "/roots"),
            (json!([5]), "/roots/0"),
            (json!([{"name": "x"}]), "/roots/0/uri"),
            (json!([{"uri": "https://example.com"}]), "/roots/0/uri"),
            (json!([{"uri": "/home/me"}]), "/roots/0/uri"),
            (
                json!([{"uri": "file:///a"}, {"uri": "file:///b", "name": 3}]),
                "/roots/1/name",
            ),
        ] {
            assert_eq!(path_of(&check_roots_result(&v).unwrap_err()), path, "{v}");
        }
    }
}
