//! A tool call's `arguments` as the host's JSON text (UTF-8 bytes), kept as such from the
//! host to the request: they may be large (a file's content, for agents' write and edit tools), and
//! the client reads them only for `x-mcp-header` parameters and the legacy eras
//! (`ops::tool::ToolOp::call`, which parses them there).

use crate::error::{Error, Result};
use crate::json::RawJson;
use crate::json::Value;

/// The JSON text of a tool's `arguments` object (UTF-8), checked to be one.
pub struct ToolArguments(Vec<u8>);

impl ToolArguments {
    /// Arguments from any JSON text: `None` for `null`; an object, or a `Config` error.
    /// A string holding a lone UTF-16 surrogate (`JSON.stringify` writes it as a `\udXXX`
    /// escape) is refused as a `Value` would refuse it: the request is UTF-8 text, which
    /// cannot carry it. Other valid JSON is kept as written, also what a `Value` cannot
    /// hold (a number beyond `f64`, which only a Rust caller can write); where the client
    /// reads the arguments (`x-mcp-header`, the legacy eras) such text is refused
    /// (`ToolOp::call`).
    pub fn parse(text: String) -> Result<Option<ToolArguments>> {
        let not_json = |e: crate::json::JsonError| Error::config(format!("value is not JSON: {e}"));
        let raw = RawJson::from_string(text).map_err(not_json)?;
        let t = raw.get();
        if t == "null" {
            return Ok(None);
        }
        if !t.starts_with('{') {
            return Err(not_an_object());
        }
        // Only text with a `\ud…` escape can hold a lone surrogate: that (rare) text is read
        // whole, as serde_json's `Value` reads strings (a pair is accepted, a lone half is not).
        if t.as_bytes()
            .windows(3)
            .any(|w| w[0] == b'\\' && w[1] == b'u' && w[2].eq_ignore_ascii_case(&b'd'))
        {
            crate::json::parse(t).map_err(not_json)?;
        }
        Ok(Some(ToolArguments(raw.into_string().into_bytes())))
    }

    /// Arguments from what `JSON.stringify` wrote for the host's value, in which the caller
    /// found no `\ud` (the lowercase escape it writes for a lone surrogate, ECMA-262
    /// `QuoteJSONString`; text with one goes through [`ToolArguments::parse`]). Such text
    /// is JSON by construction, so only its kind is checked: `None` for `null`, an object,
    /// or a `Config` error. This skips [`ToolArguments::parse`]'s reading of the whole text,
    /// most of what large arguments cost in the wasm. Text that is not JSON after all (a
    /// replaced `JSON.stringify`) reaches the server as written, which refuses it (a
    /// JSON-RPC parse error), or the client's own parse refuses it where it reads the
    /// arguments.
    pub fn from_stringify(text: String) -> Result<Option<ToolArguments>> {
        Self::from_stringify_utf8(text.into_bytes())
    }

    /// [`ToolArguments::from_stringify`] with the text already UTF-8 bytes (the shell has
    /// them from `TextEncoder`, which always writes UTF-8: a JS string crosses into the wasm
    /// faster that way than as a `String`, whose glue copies ASCII one character at a time
    /// in JS). Bytes that are not UTF-8 would go into the request as they are.
    pub(crate) fn from_stringify_utf8(bytes: Vec<u8>) -> Result<Option<ToolArguments>> {
        match bytes.first() {
            _ if bytes == b"null" => Ok(None),
            Some(b'{') => Ok(Some(ToolArguments(bytes))),
            _ => Err(not_an_object()),
        }
    }

    /// The JSON text, as UTF-8 bytes.
    pub fn get(&self) -> &[u8] {
        &self.0
    }

    /// The arguments as a `Value`, where the client reads them (`x-mcp-header`, the legacy
    /// eras): a `Config` error for text a `Value` cannot hold.
    pub(crate) fn to_value(&self) -> Result<Value> {
        let t = std::str::from_utf8(&self.0)
            .map_err(|_| Error::config("value is not JSON: not UTF-8"))?;
        crate::json::parse(t).map_err(|e| Error::config(format!("value is not JSON: {e}")))
    }
}

fn not_an_object() -> Error {
    Error::config("tool arguments must be an object")
}

#[cfg(test)]
mod tests {
    use super::ToolArguments;

    fn parsed(t: &str) -> Result<Option<String>, String> {
        ToolArguments::parse(t.to_string())
            .map(|a| a.map(|a| String::from_utf8_lossy(a.get()).into_owned()))
            .map_err(|e| e.message)
    }

    fn stringified(t: &str) -> Result<Option<String>, String> {
        ToolArguments::from_stringify(t.to_string())
            .map(|a| a.map(|a| String::from_utf8_lossy(a.get()).into_owned()))
            .map_err(|e| e.message)
    }

    #[test]
    fn stringify_output_keeps_its_text_and_is_checked_for_its_kind_only() {
        let t = r#"{"b":1,"a":"\"x\"\n\u001f","e":1e+21}"#;
        assert_eq!(stringified(t), Ok(Some(t.to_string())));
        assert_eq!(stringified("{}"), Ok(Some("{}".to_string())));
        assert_eq!(stringified("null"), Ok(None));
        for bad in ["[1]", "\"s\"", "1", "true", ""] {
            assert_eq!(
                stringified(bad),
                Err("tool arguments must be an object".to_string()),
                "{bad:?}"
            );
        }
        // What both constructors accept, they keep alike.
        for t in [r#"{"a":[1,{"b":null}]}"#, "{}", "null"] {
            assert_eq!(stringified(t), parsed(t), "{t}");
        }
    }

    #[test]
    fn parse_reads_the_whole_text() {
        assert!(parsed(r#"{"a":1"#)
            .unwrap_err()
            .starts_with("value is not JSON"));
        assert!(parsed(r#"{"a":"\ud800"}"#)
            .unwrap_err()
            .starts_with("value is not JSON"));
        assert_eq!(
            parsed(r#"{"a":"\ud83c\udf89"}"#),
            Ok(Some(r#"{"a":"\ud83c\udf89"}"#.to_string()))
        );
        assert_eq!(
            parsed("[]"),
            Err("tool arguments must be an object".to_string())
        );
    }
}
