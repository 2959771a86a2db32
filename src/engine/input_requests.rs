//! Input requests (spec `basic/patterns/mrtr.mdx`) as every path meets them, whether they
//! arrive in a call's `input_required` result, a task's `input_required` status, a peer
//! context's message or a 2025-era server request: is the kind one this client declared,
//! and is the host's answer valid before it is sent.

use crate::engine::actions::UrlFacts;
use crate::engine::config::Config;
use crate::error::{json_object, json_text};
use crate::error::{sanitize, Error, ErrorKind, Result};
use crate::json::Value;
use crate::protocol::input::{InputKind, InputRequest};
use crate::schema::{answers, elicitation};

/// Checks that an input request is of a kind the client declared (spec mrtr.mdx: servers
/// MUST NOT send undeclared kinds; the client refuses them and calls no handler).
pub(crate) fn check_declared(cfg: &Config, req: &InputRequest) -> Result<Option<UrlFacts>> {
    let undeclared = |what: &str| {
        Error::new(
            ErrorKind::InputRequired,
            format!("the server asked for {what}, which this client did not declare"),
        )
        .with_data(json_object(vec![
            ("key", req.key.as_str().into()),
            ("method", req.kind.method().into()),
            ("reason", "undeclared".into()),
        ]))
    };
    match req.kind {
        InputKind::Elicitation => {
            let Some(modes) = cfg.elicitation else {
                return Err(undeclared("elicitation"));
            };
            match req.params.get("mode") {
                None | Some(Value::Null) => {
                    if !modes.form {
                        return Err(undeclared("form-mode elicitation"));
                    }
                    Ok(None)
                }
                Some(Value::String(m)) if m == "form" => {
                    if !modes.form {
                        return Err(undeclared("form-mode elicitation"));
                    }
                    Ok(None)
                }
                Some(Value::String(m)) if m == "url" => {
                    if !modes.url {
                        return Err(undeclared("URL-mode elicitation"));
                    }
                    let url = req
                        .params
                        .get("url")
                        .and_then(Value::as_str)
                        .ok_or_else(|| {
                            Error::invalid_result("URL-mode elicitation without a url")
                        })?;
                    let info = elicitation::check_url(url)?;
                    Ok(Some(UrlFacts {
                        url: info.url,
                        origin: info.origin,
                        host: info.host,
                        is_punycode: info.is_punycode,
                    }))
                }
                Some(other) => Err(Error::invalid_result(format!(
                    "unknown elicitation mode {}",
                    sanitize(&json_text(other), 40)
                ))),
            }
        }
        InputKind::Sampling => {
            let Some(s) = cfg.sampling else {
                return Err(undeclared("sampling"));
            };
            let has_tools =
                matches!(req.params.get("tools"), Some(Value::Array(a)) if !a.is_empty());
            if has_tools && !s.tools {
                return Err(undeclared("sampling with tools"));
            }
            let ctx = req.params.get("includeContext").and_then(Value::as_str);
            if matches!(ctx, Some("thisServer" | "allServers")) && !s.context {
                return Err(undeclared("sampling with includeContext"));
            }
            Ok(None)
        }
        InputKind::Roots => {
            if !cfg.roots {
                return Err(undeclared("roots"));
            }
            Ok(None)
        }
    }
}

/// Checks a host's answer to an input request before it is sent (elicitation answers
/// against `requestedSchema`, sampling and roots results for shape).
pub(crate) fn check_answer(req: &InputRequest, answer: &Value) -> Result<Value> {
    match req.kind {
        InputKind::Elicitation => {
            if req.params.get("mode").and_then(Value::as_str) == Some("url") {
                elicitation::check_url_answer(answer)
            } else {
                let schema = req
                    .params
                    .get("requestedSchema")
                    .cloned()
                    .unwrap_or(Value::Null);
                elicitation::check_form_answer(&schema, answer)
            }
        }
        InputKind::Sampling => answers::check_sampling_result(answer),
        InputKind::Roots => answers::check_roots_result(answer),
    }
}
