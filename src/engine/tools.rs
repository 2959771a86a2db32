//! What the client remembers of the server's tools: the `x-mcp-header` parameters to
//! mirror into `Mcp-Param-*` headers, and the `outputSchema` to check results against.
//!
//! Tools from `tools/list` are checked here: a tool that is not an object with a string
//! `name` and an object `inputSchema`, or whose `x-mcp-header` annotations break the
//! spec's rules, is dropped from what the host sees, with a warning (spec
//! `basic/transports/streamable-http.mdx` "Custom Headers from Tool Parameters": clients
//! MUST exclude such tools).

use crate::error::{sanitize, Error, Result};
use crate::http::x_mcp_header::{header_params, HeaderParam};
use crate::json::RawJson;
use crate::json::Value;
use crate::schema::output::OutputSchema;
use crate::sorted_map::SortedMap;
use std::rc::Rc;

/// A compiled output schema, shared by the calls and tasks that use it.
#[derive(Clone)]
pub(crate) enum OutputCheck {
    None,
    Schema(Rc<OutputSchema>),
    /// The schema could not be compiled (reason); results are not checked.
    Unusable(Rc<str>),
}

/// One remembered tool.
pub(crate) struct ToolEntry {
    pub name: String,
    pub header_params: Vec<HeaderParam>,
    output_schema: Option<Value>,
    compiled: Option<OutputCheck>,
    /// 2025-11-25: `execution.taskSupport` (`forbidden` | `optional` | `required`).
    pub task_support: Option<String>,
}

/// The registry of one client.
#[derive(Default)]
pub struct ToolRegistry {
    tools: SortedMap<String, ToolEntry>,
    /// True once a listing filled the registry (and nothing invalidated it since).
    pub filled: bool,
}

/// Checks one tool of a `tools/list` page. `Ok(entry)` or `Err(reason)` to drop it.
fn check_tool(tool: &Value, check_headers: bool) -> std::result::Result<ToolEntry, String> {
    let Value::Object(t) = tool else {
        return Err("a tool is not an object".into());
    };
    let name = match t.get("name") {
        Some(Value::String(n)) if !n.is_empty() => n.clone(),
        _ => return Err("a tool has no name".into()),
    };
    let shown = sanitize(&name, 100);
    let schema = match t.get("inputSchema") {
        Some(s @ Value::Object(_)) => s,
        _ => return Err(format!("tool \"{shown}\" has no inputSchema object")),
    };
    let header_params = if check_headers {
        header_params(schema).map_err(|reason| format!("tool \"{shown}\": {reason}"))?
    } else {
        Vec::new()
    };
    let output_schema = match t.get("outputSchema") {
        None | Some(Value::Null) => None,
        Some(s @ (Value::Object(_) | Value::Bool(_))) => Some(s.clone()),
        Some(_) => {
            return Err(format!(
                "tool \"{shown}\" has an outputSchema that is not a schema"
            ))
        }
    };
    let task_support = t
        .get("execution")
        .and_then(|e| e.get("taskSupport"))
        .and_then(Value::as_str)
        .map(str::to_string);
    Ok(ToolEntry {
        name,
        header_params,
        output_schema,
        compiled: None,
        task_support,
    })
}

impl ToolRegistry {
    /// Checks a `tools/list` result page: records the valid tools, drops the others
    /// (their reasons are pushed to `warnings`), and returns the page as the host sees it.
    /// `check_headers` is false outside Streamable HTTP's modern era.
    pub fn ingest_page(
        &mut self,
        raw: &RawJson,
        check_headers: bool,
        warnings: &mut Vec<String>,
    ) -> Result<Value> {
        // Parsed as a Value (one deserializer for the crate), not straight into a Map.
        let Ok(Value::Object(mut page)) = crate::json::parse(raw.get()) else {
            return Err(Error::invalid_result(
                "tools/list result is not a JSON object",
            ));
        };
        let tools = match page.remove("tools") {
            Some(Value::Array(a)) => a,
            _ => {
                return Err(Error::invalid_result(
                    "tools/list result has no tools array",
                ))
            }
        };
        let mut kept = Vec::with_capacity(tools.len());
        let mut entries = Vec::with_capacity(tools.len());
        for tool in tools {
            match check_tool(&tool, check_headers) {
                Ok(entry) => {
                    entries.push((entry.name.clone(), entry));
                    kept.push(tool);
                }
                Err(reason) => warnings.push(format!("dropped a tool from tools/list: {reason}")),
            }
        }
        // In one go: a page of many tools is sorted once, not inserted one by one.
        self.tools.extend(entries);
        page.insert("tools".into(), Value::Array(kept));
        Ok(Value::Object(page))
    }

    pub(crate) fn get(&self, name: &str) -> Option<&ToolEntry> {
        self.tools.get(name)
    }

    /// The output check of a tool, compiling its schema on first use.
    pub(crate) fn output_check(&mut self, name: &str) -> OutputCheck {
        let Some(entry) = self.tools.get_mut(name) else {
            return OutputCheck::None;
        };
        if let Some(c) = &entry.compiled {
            return c.clone();
        }
        let check = match &entry.output_schema {
            None => OutputCheck::None,
            Some(s) => match OutputSchema::compile(s) {
                Ok(c) => OutputCheck::Schema(Rc::new(c)),
                Err(reason) => OutputCheck::Unusable(Rc::from(reason.as_str())),
            },
        };
        entry.compiled = Some(check.clone());
        check
    }

    /// True when a modern call of tool `name` needs nothing of what tools declare: the tool
    /// is known to declare no `x-mcp-header` parameters and no `outputSchema`, or a listing
    /// filled the registry without it (`ToolOp::start` would call it at once, with no
    /// header and nothing to check). A plain call's short path (`engine::core::plain`).
    pub(crate) fn is_plain(&self, name: &str) -> bool {
        match self.tools.get(name) {
            Some(e) => e.header_params.is_empty() && e.output_schema.is_none(),
            None => self.filled,
        }
    }

    /// Forgets everything (the server's tool list changed).
    pub(crate) fn invalidate(&mut self) {
        self.tools.clear();
        self.filled = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn malformed_tools_are_dropped_with_warnings() {
        let mut r = ToolRegistry::default();
        let page = json!({"tools":[
            {"name":"ok","inputSchema":{"type":"object"}},
            {"name":"","inputSchema":{"type":"object"}},
            {"inputSchema":{"type":"object"}},
            {"name":"noschema"},
            "junk",
            {"name":"badout","inputSchema":{"type":"object"},"outputSchema":5}
        ],"nextCursor":"c"});
        let raw = RawJson::from_string(page.to_string()).unwrap();
        let mut w = Vec::new();
        let out = r.ingest_page(&raw, true, &mut w).unwrap();
        assert_eq!(out["tools"].as_array().unwrap().len(), 1);
        assert_eq!(out["nextCursor"], "c");
        assert_eq!(w.len(), 5);
        assert!(r.get("ok").is_some());
    }

    #[test]
    fn a_page_without_tools_is_invalid() {
        let mut r = ToolRegistry::default();
        for p in [r#"{"tools":{}}"#, r#"{}"#, r#"[]"#] {
            let raw = RawJson::from_string(p.into()).unwrap();
            assert!(r.ingest_page(&raw, true, &mut Vec::new()).is_err(), "{p}");
        }
    }
}
