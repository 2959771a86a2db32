//! Conversions between the engine's JSON and JS values, and of the crate's `Error` to JS
//! error objects. JSON crosses the boundary as text (`JSON.parse` / `JSON.stringify`):
//! for results this is the fastest path and keeps the server's key order.

use crate::engine::actions::{Output, TaskView};
use crate::engine::ToolArguments;
use crate::error::{json_text, Error, ErrorKind};
use crate::json::Value;
use crate::web::js::{args_into, args_kept, args_text, json_parse, json_stringify, make_error};
use wasm_bindgen::prelude::*;

/// A JSON value as a JS value.
pub(super) fn to_js(v: &Value) -> JsValue {
    match v {
        Value::Null => JsValue::NULL,
        Value::Bool(b) => JsValue::from_bool(*b),
        Value::String(s) => JsValue::from_str(s),
        _ => json_parse(&json_text(v)).unwrap_or(JsValue::NULL),
    }
}

/// Raw JSON text as a JS value.
pub(super) fn raw_to_js(text: &str) -> JsValue {
    json_parse(text).unwrap_or(JsValue::NULL)
}

/// A JS value as JSON text (`JSON.stringify`; `undefined`, or what stringifies to nothing,
/// → `None`). Cycles and BigInts are refused.
pub(super) fn stringify(v: &JsValue) -> Result<Option<String>, Error> {
    if v.is_undefined() {
        return Ok(None);
    }
    let text = json_stringify(v)
        .map_err(|e| Error::config(format!("value is not JSON-serializable: {}", describe(&e))))?;
    Ok(text.as_string())
}

thread_local! {
    /// The wasm's memory, for `args_into` (the same object for the module's life; asked
    /// for once, not on every call).
    static MEMORY: JsValue = wasm_bindgen::memory();
}

/// A tool's arguments as `JSON.stringify` writes them (`undefined`, or what stringifies to
/// nothing, → `None`), in two calls into JS (src/web/js/bodies.js `argsText`, `argsInto`).
/// The text is JSON by construction, so the engine only checks its kind
/// (`ToolArguments::from_stringify`), unless it may hold a lone surrogate: that text (or
/// text that looks like it, such as an escaped backslash before `ud8`) is read whole
/// (`ToolArguments::parse`), which refuses a lone surrogate. The test runs on the JS
/// string, before it is copied into the wasm, which the platform's `TextEncoder` does
/// (JSON text is mostly ASCII, which a `String` argument's glue copies one character at
/// a time).
pub(super) fn tool_arguments(v: &JsValue) -> Result<Option<ToolArguments>, Error> {
    if v.is_undefined() {
        return Ok(None);
    }
    let units = match args_text(v) {
        -1 => return Ok(None),
        -2 => {
            return Err(Error::config(format!(
                "value is not JSON-serializable: {}",
                describe(&args_kept())
            )));
        }
        -3 => return ToolArguments::parse(args_kept().as_string().unwrap_or_default()),
        n => usize::try_from(n).unwrap_or(0),
    };
    // UTF-8 takes at most 3 bytes per UTF-16 unit; the buffer is written by
    // `TextEncoder.encodeInto` in place (as a `String` argument's glue writes it), then cut
    // to what was written.
    let cap = units.saturating_mul(3);
    let Ok(cap32) = u32::try_from(cap) else {
        args_kept(); // lets go of the text
        return Err(Error::config("tool arguments are too large"));
    };
    let mut buf = vec![0u8; cap];
    let n = MEMORY.with(|m| args_into(m, buf.as_mut_ptr() as usize as u32, cap32));
    buf.truncate(n as usize);
    buf.shrink_to_fit();
    ToolArguments::from_stringify_utf8(buf)
}

/// A JS value as JSON (`undefined` → `None`). Functions, symbols and cycles are refused.
pub(super) fn from_js(v: &JsValue) -> Result<Option<Value>, Error> {
    let Some(text) = stringify(v)? else {
        return Ok(None);
    };
    from_text(&text).map(Some)
}

/// `JSON.stringify`'s text as a [`Value`].
pub(super) fn from_text(text: &str) -> Result<Value, Error> {
    crate::json::parse(text).map_err(|e| Error::config(format!("value is not JSON: {e}")))
}

/// A short description of a thrown JS value.
pub(super) fn describe(v: &JsValue) -> String {
    if let Some(s) = v.as_string() {
        return s;
    }
    if let Ok(m) = js_sys::Reflect::get(v, &JsValue::from_str("message")) {
        if let Some(s) = m.as_string() {
            return s;
        }
    }
    String::from("(non-error value)")
}

/// The JS error for a crate error (a host error is returned unchanged by the caller).
pub(super) fn error_to_js(e: &Error, cause: JsValue) -> JsValue {
    let code = e
        .code
        .map(|c| JsValue::from_f64(c as f64))
        .unwrap_or(JsValue::UNDEFINED);
    let data = e.data.as_ref().map(to_js).unwrap_or(JsValue::UNDEFINED);
    let status = e
        .status
        .map(|s| JsValue::from_f64(s as f64))
        .unwrap_or(JsValue::UNDEFINED);
    make_error(e.kind.js_name(), &e.message, code, data, status, cause)
}

/// The JS value of a finished operation.
pub(super) fn output_to_js(o: Output, server_url: &str) -> JsValue {
    match o {
        Output::Raw(r) => raw_to_js(r.get()),
        Output::Value(v) => to_js(&v),
        Output::Task(t) => crate::web::task::Task::from_view(t, server_url).into(),
        Output::Empty => JsValue::UNDEFINED,
    }
}

/// The JS value of a task view for callbacks (`onTaskStatus`).
pub(super) fn task_to_js(t: TaskView, server_url: &str) -> JsValue {
    crate::web::task::Task::from_view(t, server_url).into()
}

/// The error for a host value that is not what the API expects.
pub(super) fn bad_arg(msg: impl Into<String>) -> JsValue {
    error_to_js(&Error::new(ErrorKind::Config, msg), JsValue::UNDEFINED)
}
