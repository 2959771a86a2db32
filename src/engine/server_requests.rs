//! Requests a legacy-era server sends to the client (2025-11-25 and 2024-11-05 only;
//! 2026-07-28 servers never send requests): `elicitation/create`,
//! `sampling/createMessage` and `roots/list` go to the same host handlers as MRTR input
//! requests (ctx.scope `request`, or `task` when tagged with
//! `io.modelcontextprotocol/related-task`); `ping` is answered at once; anything else gets
//! `-32601`. The answer is POSTed back as a JSON-RPC response. A request id seen again
//! (a resumed stream replaying it) is never asked twice: its answer is re-sent.

use crate::engine::actions::{Action, Ask, AskId, AskScope};
use crate::engine::input_requests::{check_answer, check_declared};
use crate::engine::session::{owner, Session, SessionPart};
use crate::engine::shared::Shared;
use crate::engine::small_map::SmallMap;
use crate::error::{sanitize, Error};
use crate::http::request::META_RELATED_TASK;
use crate::json;
use crate::json::{Map, Value};
use crate::protocol::codes::{INTERNAL_ERROR, METHOD_NOT_FOUND};
use crate::protocol::input::{InputKind, InputRequest};
use crate::protocol::jsonrpc::{encode_response, RequestId, RpcError};
use crate::sorted_map::SortedMap;

enum Entry {
    Asking { ask: AskId, req: InputRequest },
    Answered(String),
}

/// Server requests in flight and answered.
#[derive(Default)]
pub(crate) struct ServerRequests {
    entries: SortedMap<RequestId, Entry>,
    asks: SmallMap<AskId, RequestId>,
}

/// Requests remembered at most (answered ones are forgotten first).
const MAX_REMEMBERED: usize = 1024;

impl ServerRequests {
    /// A request from the server. `context_method` is the client request whose stream
    /// carried it, when known.
    pub(crate) fn on_request(
        &mut self,
        sh: &mut Shared,
        session: &Session,
        id: RequestId,
        method: &str,
        params: Option<Value>,
        context_method: Option<String>,
    ) {
        match self.entries.get(&id) {
            Some(Entry::Answered(body)) => {
                let body = body.clone();
                session.post_raw(sh, body);
                return;
            }
            Some(Entry::Asking { .. }) => return,
            None => {}
        }
        if method == "ping" {
            self.respond(sh, session, id, Ok(json!({})));
            return;
        }
        let Some(kind) = InputKind::from_method(method) else {
            let e = RpcError {
                code: METHOD_NOT_FOUND,
                message: format!(
                    "method not supported by this client: {}",
                    sanitize(method, 80)
                ),
                data: None,
            };
            self.respond(sh, session, id, Err(e));
            return;
        };
        let params = match params {
            Some(Value::Object(m)) => m,
            None | Some(Value::Null) => Map::new(),
            Some(_) => {
                let e = RpcError {
                    code: -32602,
                    message: "params must be an object".into(),
                    data: None,
                };
                self.respond(sh, session, id, Err(e));
                return;
            }
        };
        let task_id = params
            .get("_meta")
            .and_then(|m| m.get(META_RELATED_TASK))
            .and_then(|t| t.get("taskId"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let key = match &id {
            RequestId::Number(n) => n.to_string(),
            RequestId::String(s) => s.clone(),
        };
        let req = InputRequest {
            key: key.clone(),
            kind,
            params,
        };
        let url = match check_declared(&sh.cfg, &req) {
            Ok(u) => u,
            Err(e) => {
                let err = RpcError {
                    code: METHOD_NOT_FOUND,
                    message: e.message,
                    data: None,
                };
                self.respond(sh, session, id, Err(err));
                return;
            }
        };
        // Each request waits for the host as one ask: at most `limits.maxInputRequests` at
        // once. A server that sends more is answered with an error, so that it cannot pile
        // up dialogs (nor grow the ask tables, which are lists) without bound.
        let max = sh.cfg.limits.max_input_requests;
        if self.asks.len() >= max {
            let e = RpcError {
                code: INTERNAL_ERROR,
                message: format!(
                    "too many requests are waiting for the client's answer (limit {max})"
                ),
                data: None,
            };
            self.respond(sh, session, id, Err(e));
            return;
        }
        let ask = sh.next_ask_id();
        sh.track_ask(ask, owner(SessionPart::Requests));
        self.asks.insert(ask, id.clone());
        let scope = if task_id.is_some() {
            AskScope::Task
        } else {
            AskScope::Request
        };
        let method_ctx = if task_id.is_some() {
            "tools/call".to_string()
        } else {
            context_method.unwrap_or_else(|| method.to_string())
        };
        sh.push(Action::Ask(Ask {
            id: ask,
            kind,
            params: req.params.clone(),
            scope,
            task_id,
            key,
            method: method_ctx,
            url,
        }));
        self.entries.insert(id, Entry::Asking { ask, req });
    }

    /// The host answered (or its handler threw).
    pub(crate) fn on_answer(
        &mut self,
        sh: &mut Shared,
        session: &Session,
        ask: AskId,
        answer: Result<Value, Error>,
    ) {
        let Some(id) = self.asks.remove(&ask) else {
            return;
        };
        sh.forget_ask(&ask);
        let Some(Entry::Asking { req, .. }) = self.entries.get(&id) else {
            return;
        };
        let outcome = answer.and_then(|v| check_answer(req, &v));
        let response = match outcome {
            Ok(v) => Ok(v),
            Err(e) => {
                sh.push(Action::Warn {
                    message: format!(
                        "answering the server's {} failed: {}",
                        req.kind.method(),
                        e.message
                    ),
                });
                Err(RpcError {
                    code: INTERNAL_ERROR,
                    message: format!("the client could not answer: {}", e.message),
                    data: None,
                })
            }
        };
        self.respond(sh, session, id, response);
    }

    /// The server withdrew a request (`notifications/cancelled`): its ask's signal fires.
    pub(crate) fn on_cancelled(&mut self, sh: &mut Shared, request_id: &Value) {
        let Some(id) = RequestId::from_value(request_id) else {
            return;
        };
        if let Some(Entry::Asking { ask, .. }) = self.entries.remove(&id) {
            self.asks.remove(&ask);
            sh.forget_ask(&ask);
            sh.push(Action::CancelAsk(ask));
        }
    }

    fn respond(
        &mut self,
        sh: &mut Shared,
        session: &Session,
        id: RequestId,
        outcome: Result<Value, RpcError>,
    ) {
        let body = encode_response(&id, outcome);
        session.post_raw(sh, body.clone());
        if self.entries.len() >= MAX_REMEMBERED {
            self.entries
                .retain(|_, e| matches!(e, Entry::Asking { .. }));
        }
        self.entries.insert(id, Entry::Answered(body));
    }

    /// Forgets everything (the session ended).
    /// True when no server request waits for the host (answered ones may be remembered).
    pub(crate) fn is_quiet(&self) -> bool {
        // (Nothing is ever asked in the modern-only build: folds away there.)
        !cfg!(feature = "legacy") || self.asks.is_empty()
    }

    pub(crate) fn clear(&mut self, sh: &mut Shared) {
        if !cfg!(feature = "legacy") {
            return;
        }
        for (ask, _) in self.asks.drain() {
            sh.forget_ask(&ask);
            sh.push(Action::CancelAsk(ask));
        }
        self.entries.clear();
    }
}
