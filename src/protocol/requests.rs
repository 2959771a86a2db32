//! The params of the requests a host starts, built from the host's arguments (already
//! JSON): which fields a request has and what each must be; and what the client declares
//! about itself (`clientInfo`, `extensions`) from the host's options. The wasm shell
//! converts JS values and calls these; it chooses no field itself.

use crate::error::{Error, Result};
use crate::json::{Map, Value};

/// One page of a list (`PaginatedRequestParams`): of the host's `PageParams`, only `cursor`
/// and `_meta` are sent. Absent or `null`: no params.
pub(crate) fn page_params(params: Option<Value>) -> Result<Map> {
    let mut p = match params {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m,
        Some(_) => return Err(Error::config("params must be an object")),
    };
    p.retain(|k, _| k == "cursor" || k == "_meta");
    Ok(p)
}

/// The cursor of `tasks/list` (2025-11-25 `PaginatedRequest`), from the host's `PageParams`:
/// a string `cursor`, anything else is no cursor.
pub(crate) fn task_list_cursor(params: Option<&Value>) -> Option<String> {
    params?.get("cursor")?.as_str().map(str::to_string)
}

/// The filter of `subscriptions/listen` as the host gave it: none is `{}` (every
/// notification the filter's defaults allow); its fields are checked when it starts.
pub(crate) fn listen_filter(filter: Option<Value>) -> Value {
    filter.unwrap_or_else(|| Value::Object(Map::new()))
}

/// `resources/read` (`ReadResourceRequestParams`).
pub(crate) fn read_resource_params(uri: String) -> Map {
    let mut p = Map::new();
    p.insert("uri".into(), uri.into());
    p
}

/// `prompts/get` (`GetPromptRequestParams`): the arguments, when given, are an object.
pub(crate) fn get_prompt_params(name: String, arguments: Option<Value>) -> Result<Map> {
    let mut p = Map::new();
    p.insert("name".into(), name.into());
    match arguments {
        Some(Value::Object(a)) => {
            p.insert("arguments".into(), Value::Object(a));
        }
        None | Some(Value::Null) => {}
        Some(_) => return Err(Error::config("prompt arguments must be an object")),
    }
    Ok(p)
}

/// `completion/complete` (`CompleteRequestParams`): `ref` and `argument` are objects,
/// `context` an object when given. Each argument is the host's value as converted (a
/// conversion error is reported in field order, as a wrong type is).
pub(crate) fn complete_params(
    reference: Result<Option<Value>>,
    argument: Result<Option<Value>>,
    context: Result<Option<Value>>,
) -> Result<Map> {
    let mut p = Map::new();
    for (k, v) in [
        ("ref", reference),
        ("argument", argument),
        ("context", context),
    ] {
        match v? {
            Some(Value::Object(o)) => {
                p.insert(k.into(), Value::Object(o));
            }
            None | Some(Value::Null) if k == "context" => {}
            _ => return Err(Error::config(format!("complete: {k} must be an object"))),
        }
    }
    Ok(p)
}

// What the client declares about itself, from the host's options.

/// `clientInfo` (`Implementation`): `name` and `version` are strings.
pub(crate) fn client_info(info: Map) -> Result<Value> {
    if !info.get("name").is_some_and(Value::is_string)
        || !info.get("version").is_some_and(Value::is_string)
    {
        return Err(Error::config("clientInfo needs string name and version"));
    }
    Ok(Value::Object(info))
}

/// `extensions` given as identifiers (each an array element as a string, if it is one):
/// each is declared with empty settings (`ClientCapabilities.extensions`).
pub(crate) fn extension_ids(ids: impl IntoIterator<Item = Option<String>>) -> Result<Map> {
    let mut m = Map::new();
    for id in ids {
        let id = id.ok_or_else(|| Error::config("extensions must be strings"))?;
        m.insert(id, Value::Object(Map::new()));
    }
    Ok(m)
}

/// `extensions` given as `{ id: settings }`: each settings value is an object.
pub(crate) fn extension_settings(v: Option<Value>) -> Result<Map> {
    let Some(Value::Object(o)) = v else {
        return Err(Error::config(
            "extensions must be an array of identifiers or an object",
        ));
    };
    let mut m = Map::new();
    for (k, s) in o {
        if !s.is_object() {
            return Err(Error::config(format!(
                "extension {k} settings must be an object"
            )));
        }
        m.insert(k, s);
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::json;

    fn obj(v: Value) -> Map {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn task_list_cursor_and_listen_filter_defaults() {
        assert_eq!(task_list_cursor(None), None);
        assert_eq!(task_list_cursor(Some(&json!({"cursor": 3}))), None);
        assert_eq!(task_list_cursor(Some(&json!("c"))), None);
        let c = task_list_cursor(Some(&json!({"cursor": "c", "x": 1})));
        assert_eq!(c.as_deref(), Some("c"));
        assert_eq!(listen_filter(None), json!({}));
        assert_eq!(listen_filter(Some(Value::Null)), Value::Null);
        let f = json!({"taskIds": ["t"]});
        assert_eq!(listen_filter(Some(f.clone())), f);
    }

    #[test]
    fn pages_keep_cursor_and_meta_only() {
        assert_eq!(page_params(None).unwrap(), Map::new());
        assert_eq!(page_params(Some(Value::Null)).unwrap(), Map::new());
        let p = page_params(Some(json!({"cursor": "c", "_meta": {"a": 1}, "other": 2})));
        assert_eq!(p.unwrap(), obj(json!({"cursor": "c", "_meta": {"a": 1}})));
        let e = page_params(Some(json!([1]))).unwrap_err();
        assert_eq!(
            (e.kind, e.message.as_str()),
            (ErrorKind::Config, "params must be an object")
        );
    }

    #[test]
    fn read_and_prompt() {
        assert_eq!(
            read_resource_params("a://b".into()),
            obj(json!({"uri": "a://b"}))
        );
        assert_eq!(
            get_prompt_params("p".into(), None).unwrap(),
            obj(json!({"name": "p"}))
        );
        assert_eq!(
            get_prompt_params("p".into(), Some(Value::Null)).unwrap(),
            obj(json!({"name": "p"}))
        );
        assert_eq!(
            get_prompt_params("p".into(), Some(json!({"a": "1"}))).unwrap(),
            obj(json!({"name": "p", "arguments": {"a": "1"}}))
        );
        let e = get_prompt_params("p".into(), Some(json!("x"))).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Config);
        assert_eq!(e.message, "prompt arguments must be an object");
    }

    #[test]
    fn client_declarations() {
        let info = obj(json!({"name": "n", "version": "1", "title": "t"}));
        assert_eq!(client_info(info.clone()).unwrap(), Value::Object(info));
        for bad in [
            json!({"name": "n"}),
            json!({"name": 1, "version": "1"}),
            json!({}),
        ] {
            let e = client_info(obj(bad)).unwrap_err();
            assert_eq!(e.message, "clientInfo needs string name and version");
        }
        let ids = extension_ids([Some("a/b".to_string()), Some("c".to_string())]).unwrap();
        assert_eq!(Value::Object(ids), json!({"a/b": {}, "c": {}}));
        let e = extension_ids([Some("a".to_string()), None]).unwrap_err();
        assert_eq!(e.message, "extensions must be strings");
        let m = extension_settings(Some(json!({"a": {"x": 1}}))).unwrap();
        assert_eq!(Value::Object(m), json!({"a": {"x": 1}}));
        let e = extension_settings(Some(json!({"a": {}, "b": true}))).unwrap_err();
        assert_eq!(e.message, "extension b settings must be an object");
        for bad in [None, Some(json!(3)), Some(json!("a"))] {
            let e = extension_settings(bad).unwrap_err();
            assert_eq!(e.kind, ErrorKind::Config);
            assert_eq!(
                e.message,
                "extensions must be an array of identifiers or an object"
            );
        }
    }

    #[test]
    fn complete() {
        let r = || Ok(Some(json!({"type": "ref/prompt", "name": "p"})));
        let a = || Ok(Some(json!({"name": "x", "value": "y"})));
        assert_eq!(
            complete_params(r(), a(), Ok(None)).unwrap(),
            obj(
                json!({"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "x", "value": "y"}})
            )
        );
        let p = complete_params(r(), a(), Ok(Some(json!({"arguments": {}})))).unwrap();
        assert_eq!(p["context"], json!({"arguments": {}}));
        assert!(complete_params(r(), a(), Ok(Some(Value::Null)))
            .unwrap()
            .get("context")
            .is_none());
        let msg = |p: Result<Map>| p.unwrap_err().message;
        assert_eq!(
            msg(complete_params(Ok(None), a(), Ok(None))),
            "complete: ref must be an object"
        );
        assert_eq!(
            msg(complete_params(r(), Ok(Some(Value::Null)), Ok(None))),
            "complete: argument must be an object"
        );
        assert_eq!(
            msg(complete_params(r(), a(), Ok(Some(json!(1))))),
            "complete: context must be an object"
        );
        // The first field that fails decides, a conversion error or a wrong type alike.
        let bad = || Err(Error::config("value is not JSON"));
        assert_eq!(
            msg(complete_params(Ok(Some(json!(1))), bad(), Ok(None))),
            "complete: ref must be an object"
        );
        assert_eq!(
            msg(complete_params(r(), bad(), Ok(Some(json!(1))))),
            "value is not JSON"
        );
    }
}
