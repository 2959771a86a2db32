//! HTTP events: bytes become messages; messages go to whoever they belong to.
//!
//! 2026-07-28: a request's stream carries its own notifications and its response only.
//! Legacy eras: any stream may carry any message (responses of other requests after a
//! resumption, server requests, notifications), so responses are routed by id.

use super::Core;
use crate::engine::actions::Action;
use crate::engine::call::CallInput;
use crate::engine::exchange::Output as XOut;
use crate::engine::ids::ExchangeId;
use crate::engine::session::{self, SessionPart};
use crate::engine::shared::{Era, Owner};
use crate::engine::task::Part;
use crate::error::json_object;
use crate::error::{sanitize, Error, ErrorKind};
use crate::http::response::is_success;
use crate::json::RawJson;
use crate::json::{Map, Value};
use crate::protocol::jsonrpc::{decode, Message, RequestId, RpcError};
use crate::protocol::legacy::{check_session_id, decode_legacy_task_value};
use crate::protocol::tasks::DetailedTask;
use crate::time::Millis;

/// Resumptions of one legacy response stream before it counts as lost.
const MAX_RESUMES: u32 = 5;

/// True for `application/json`, with parameters or none (what servers send): a narrower
/// test than `classify_content_type`'s, enough for [`Core::on_answer`], whose other answers
/// take the usual steps.
pub(super) fn plain_json(ct: Option<&str>) -> bool {
    let b = ct.map_or(&b""[..], str::as_bytes);
    b.get(..16)
        .is_some_and(|p| p.eq_ignore_ascii_case(b"application/json"))
        && matches!(b.get(16), None | Some(b';' | b' '))
}

impl Core {
    /// Exchange `wire` was handed to the platform (`fetch` called) at `now`. The engine
    /// starts a task's poll when its time comes, but the page may do other work (a
    /// collection, a compile) before the request actually leaves. A hidden task's next poll
    /// counts from this time, so that its polls are at least `hiddenPollIntervalMs` apart as
    /// the page and the server see them, not only by the engine's clock. Other exchanges
    /// are unaffected. Hosts that never report it keep the engine's start times.
    pub fn on_sent(&mut self, wire: u64, now: Millis) {
        let Some(x) = self.sh.xs.by_wire(wire) else {
            return;
        };
        if let Some(Owner::Task(id, Part::Poll)) = self.sh.xs.get(x).map(|s| s.owner()) {
            let id = id.clone();
            self.tasks.poll_sent(&id, now);
        }
    }

    /// The response head of exchange `xfer` arrived.
    pub fn on_head(&mut self, wire: u64, head: super::ResponseHead, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        self.unplain(wire);
        if self.auth_flow_head(wire, &head) {
            return;
        }
        if let Some(n) = head.dpop_nonce {
            self.auth_nonce_seen(wire, n);
        }
        let Some(xfer) = self.sh.xs.by_wire(wire) else {
            return;
        };
        if self.auth_on_head(xfer, &head) {
            return;
        }
        let Some(slot) = self.sh.xs.get_mut(xfer) else {
            return;
        };
        if let Some(ra) = head.retry_after.and_then(|s| crate::text::digits(s.trim())) {
            slot.retry_after_ms = Some(ra.saturating_mul(1000));
        }
        let owner = slot.owner().clone();
        if owner == session::owner(SessionPart::Init) {
            if let Some(sid) = head.session_id {
                match check_session_id(sid) {
                    Ok(()) => self.sh.session_id = Some(sid.to_string()),
                    Err(e) => {
                        self.exchange_failed(xfer, e);
                        return;
                    }
                }
            }
        }
        if owner == session::owner(SessionPart::GetStream) {
            #[cfg(feature = "legacy")]
            if head.status == 404 && self.get_stream_gone(xfer) {
                return;
            }
            self.session.on_get_status(&mut self.sh, head.status);
            if head.status == 405 {
                return;
            }
        }
        let mut outs = Vec::new();
        match self.sh.xs.get_mut(xfer) {
            Some(slot) => slot
                .exchange
                .on_head(head.status, head.content_type, &mut outs),
            None => return,
        }
        self.process(xfer, outs);
    }

    /// A whole answer of exchange `wire` at once: its head, its whole body and its end (the
    /// shell read a JSON body in one piece before telling the engine). The same as
    /// [`Core::on_head`], [`Core::on_body`] and [`Core::on_end`] one after the other.
    ///
    /// The common answer, a 200 of `application/json` holding the response (or the
    /// JSON-RPC error) to an operation's or a task's own request, goes straight to its
    /// owner: what those three would do with it, without the exchange's state machine, the
    /// routing of each output and the end of the stream (BENCHMARKS.md, the twenty-eighth
    /// session: a call's cost on loopback is mostly the code it runs). Anything else takes
    /// the three steps.
    pub fn on_answer(&mut self, wire: u64, head: super::ResponseHead, body: Vec<u8>, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        if let Some(n) = head.dpop_nonce {
            self.auth_nonce_seen(wire, n);
        }
        if !self.plain.is_empty() && self.plain_answer(wire, &head, &body) {
            return;
        }
        if let Some((xfer, owner, input)) = self.own_answer(wire, &head, &body) {
            // As `route_response` ends an exchange whose response came (not a stream).
            self.sh.xs.settle(xfer);
            self.sh.forget_exchange(xfer);
            self.deliver(&owner, input);
            return;
        }
        self.on_head(wire, head, now);
        if !body.is_empty() {
            self.on_body(wire, body, now);
        }
        self.on_end(wire, now);
    }

    /// For [`Core::on_answer`]: the exchange, its owner and the input for it when the answer
    /// is a 200 of JSON carrying the response (or error) to the exchange's own request, and
    /// the exchange is an operation's or a task's, untouched so far. On any other answer,
    /// `None`, and nothing has changed. Which answers qualify is what the three steps would
    /// make of them: `on_head` does nothing more for a 200 to such an owner than start a
    /// JSON body (a session's own exchanges, which read their heads, do not qualify), and
    /// `route_response` delivers the message to the owner and forgets the exchange.
    pub(crate) fn own_answer(
        &self,
        wire: u64,
        head: &super::ResponseHead,
        body: &[u8],
    ) -> Option<(ExchangeId, Owner, CallInput<'static>)> {
        if head.status != 200 || self.auth_owns(wire) {
            return None;
        }
        if !plain_json(head.content_type) {
            return None;
        }
        let xfer = self.sh.xs.by_wire(wire)?;
        let slot = self.sh.xs.get(xfer)?;
        let owner = slot.owner();
        if !matches!(owner, Owner::Op(_) | Owner::Task(..))
            || slot.settled
            || !slot.exchange.awaits_head()
            || body.len() > slot.exchange.max_body_bytes()
        {
            return None;
        }
        let own = slot.rpc_id()?;
        let input = match decode(std::str::from_utf8(body).ok()?).ok()? {
            Message::Response { id, result } if &id == own => CallInput::Response(result),
            Message::Error { id, error } if id.as_ref().is_none_or(|i| i == own) => {
                CallInput::RpcError(error, head.status)
            }
            _ => return None,
        };
        Some((xfer, owner.clone(), input))
    }

    /// A chunk of exchange `xfer`'s body arrived.
    pub fn on_chunk(&mut self, wire: u64, bytes: &[u8], now: Millis) {
        self.sh.now = self.sh.now.max(now);
        self.unplain(wire);
        if self.auth_on_chunk(wire, bytes) {
            return;
        }
        let Some(xfer) = self.sh.xs.by_wire(wire) else {
            return;
        };
        let mut outs = Vec::new();
        match self.sh.xs.get_mut(xfer) {
            Some(slot) => slot.exchange.on_chunk(bytes, &mut outs),
            None => return,
        }
        self.process(xfer, outs);
    }

    /// The most bytes exchange `wire`'s body may have when it is one JSON message (the
    /// shell may read it whole and hand it to [`Core::on_body`] in one piece); `None` when
    /// it is to be fed chunk by chunk (SSE, an error body, an OAuth flow's exchange).
    pub fn body_limit(&self, wire: u64) -> Option<usize> {
        // An OAuth flow's exchange is not booked in `xs`: `None`.
        let xfer = self.sh.xs.by_wire(wire)?;
        self.sh.xs.get(xfer)?.exchange.json_limit()
    }

    /// True when exchange `wire`'s result goes to the host unread (see `Exchange::host_result`).
    pub fn host_result(&self, wire: u64) -> bool {
        self.is_plain_wire(wire)
            || self
                .sh
                .xs
                .by_wire(wire)
                .and_then(|x| self.sh.xs.get(x))
                .is_some_and(|s| s.exchange.host_result)
    }

    /// A piece of exchange `wire`'s body arrived, owned (a body read whole: no copy).
    pub fn on_body(&mut self, wire: u64, bytes: Vec<u8>, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        self.unplain(wire);
        if self.auth_on_chunk(wire, &bytes) {
            return;
        }
        let Some(xfer) = self.sh.xs.by_wire(wire) else {
            return;
        };
        let mut outs = Vec::new();
        match self.sh.xs.get_mut(xfer) {
            Some(slot) => slot.exchange.on_chunk_owned(bytes, &mut outs),
            None => return,
        }
        self.process(xfer, outs);
    }

    /// Exchange `xfer`'s body ended.
    pub fn on_end(&mut self, wire: u64, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        self.unplain(wire);
        if self.auth_owns(wire) {
            return self.auth_on_end(None);
        }
        let Some(xfer) = self.sh.xs.by_wire(wire) else {
            return;
        };
        let mut outs = Vec::new();
        match self.sh.xs.get_mut(xfer) {
            Some(slot) => slot.exchange.on_end(&mut outs),
            None => return,
        }
        self.process(xfer, outs);
        self.stream_ended(xfer, None);
    }

    /// Exchange `xfer` failed (network error, CORS, aborted by the platform).
    pub fn on_fail(&mut self, wire: u64, err: Error, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        self.unplain(wire);
        if self.auth_owns(wire) {
            return self.auth_on_end(Some(err));
        }
        let Some(xfer) = self.sh.xs.by_wire(wire) else {
            return;
        };
        self.stream_ended(xfer, Some(err));
    }

    /// What happens when an exchange ends without (or before) its response.
    fn stream_ended(&mut self, xfer: ExchangeId, err: Option<Error>) {
        let Some(slot) = self.sh.xs.get(xfer) else {
            return;
        };
        let owner = slot.owner().clone();
        let settled = slot.settled;
        let status = slot.exchange.status();
        let streamed = is_success(status) && slot.exchange.is_stream();
        let rpc_id = slot.rpc_id().cloned();
        let last_event_id = slot.last_event_id.clone();
        let retry_ms = slot.retry_ms;
        let resumes = slot.resumes;
        // HTTP+SSE: a POST is accepted (202); its response comes on the SSE stream.
        if self.sh.era.is_http_sse()
            && err.is_none()
            && !settled
            && is_success(status)
            && !streamed
            && rpc_id.is_some()
        {
            if let Some(s) = self.sh.xs.get_mut(xfer) {
                s.accepted = true;
            }
            return;
        }
        self.sh.forget_exchange(xfer);
        if let Owner::Session(p @ (SessionPart::GetStream | SessionPart::SseStream)) = owner {
            let o = self.session.on_stream_end(&mut self.sh, p, err);
            self.session_outcome(o);
            return;
        }
        if owner == session::owner(SessionPart::Initialized) {
            // A refusal's JSON-RPC error names no request (id null): the status tells.
            let err = err.or_else(|| {
                (!is_success(status)).then(|| Error::http(status, format!("HTTP {status}")))
            });
            let o = self.session.on_initialized_ack(&mut self.sh, err.as_ref());
            self.session_outcome(o);
            return;
        }
        if settled || rpc_id.is_none() {
            return;
        }
        let Some(rpc_id) = rpc_id else { return };
        // 2025: a dropped stream with event ids is resumed, not re-sent.
        if self.sh.era.is_legacy() && (streamed || err.is_none()) {
            if let Some(last) = last_event_id {
                if resumes < MAX_RESUMES {
                    self.schedule_resume(owner, rpc_id, last, resumes + 1, retry_ms);
                    return;
                }
            }
        }
        // Not resumed (any more): the call decides what comes next.
        self.sh.xs.end_resuming(&rpc_id);
        // A stream that broke after it opened is a dropped stream (re-issued); a request
        // that never got an answer head failed.
        let input = match err {
            Some(e) if !streamed => CallInput::Failed(e),
            _ => CallInput::StreamClosed,
        };
        self.deliver(&owner, input);
    }

    fn process(&mut self, xfer: ExchangeId, outs: Vec<XOut>) {
        for out in outs {
            match out {
                XOut::Message(m, status) => self.route_message(xfer, m, status),
                XOut::Failed(e) => self.exchange_failed(xfer, e),
                // Seldom on a call's path (SSE event ids, HTTP+SSE's `endpoint` event): out of
                // line, so a plain call never compiles them.
                out => self.stream_meta(xfer, out),
            }
        }
    }

    /// An SSE stream's event id or retry hint, or a named event (HTTP+SSE's `endpoint`).
    #[inline(never)]
    fn stream_meta(&mut self, xfer: ExchangeId, out: XOut) {
        match out {
            XOut::SseMeta { id, retry } => {
                if let Some(slot) = self.sh.xs.get_mut(xfer) {
                    // The stream's id as of this event (`None`: reset, or not
                    // resumable): an older one would replay events already seen.
                    slot.last_event_id = id.clone();
                    if retry.is_some() {
                        slot.retry_ms = retry;
                    }
                    if slot.owner() == &session::owner(SessionPart::GetStream) {
                        self.session.get_last_event_id = id;
                        if retry.is_some() {
                            self.session.get_retry_ms = retry;
                        }
                    }
                }
            }
            XOut::Event { event, data } => {
                let owner = self.sh.xs.get(xfer).map(|s| s.owner().clone());
                if owner == Some(session::owner(SessionPart::SseStream)) {
                    let o = match event.as_str() {
                        "endpoint" => self.session.on_endpoint(&mut self.sh, &data),
                        _ => self.session.not_endpoint(&mut self.sh),
                    };
                    self.session_outcome(o);
                }
            }
            XOut::Message(..) | XOut::Failed(_) => {}
        }
    }

    /// True when an HTTP 404 to a request sent in session `session` means that legacy
    /// session ended (2025-11-25 `basic/transports` "Session Management" 4): it carried a
    /// session id (the current one's, or one that already ended).
    fn session_gone(&self, status: u16, session: u32) -> bool {
        status == 404
            && self.sh.era.is_legacy()
            && (self.sh.session_id.is_some() || session != self.sh.xs.session)
    }

    /// An HTTP 404 to a request of session `session` (with its id) that `owner` made
    /// (`None`: the session's GET stream). The session ended when it is the current one:
    /// a new one starts and `owner`'s request is sent again in it. A late 404 about a
    /// session that already ended says nothing of this one: the request is sent again.
    fn expire_session(&mut self, owner: Option<Owner>, session: u32) {
        let ready = self.session.is_ready();
        if session != self.sh.xs.session && ready {
            if let Some(o) = owner {
                self.deliver(&o, CallInput::StreamClosed);
            }
            return;
        }
        let first = self.session.reinit_waiters.is_empty() && ready;
        self.session.reinit_waiters.extend(owner);
        if first {
            self.sh.xs.session = self.sh.xs.session.wrapping_add(1);
            // Task ids of the ended session name nothing in the new one.
            let notes = self.tasks.clear(&mut self.sh);
            self.server_requests.clear(&mut self.sh);
            self.session.expire(&mut self.sh);
            self.deliver_notes(notes);
            self.refresh_session();
        }
    }

    /// A 404 to the GET stream `xfer`, which carries the session id, ends the session as
    /// a request's does (2025-11-25 `basic/transports` "Session Management" 4): true when
    /// it did, and a new session with its own GET stream starts.
    #[cfg(feature = "legacy")]
    #[inline(never)]
    fn get_stream_gone(&mut self, xfer: ExchangeId) -> bool {
        let Some(sent_in) = self.sh.xs.get(xfer).map(|s| s.session) else {
            return false;
        };
        let current = sent_in == self.sh.xs.session && self.session.is_ready();
        // Three new sessions whose GET was refused at once: the server refuses GET streams
        // with 404 (not 405); the stream is given up, as before, and a request's 404 still
        // starts a new session.
        if !current || !self.session_gone(404, sent_in) || self.session.get_gone >= 3 {
            return false;
        }
        self.session.get_gone += 1;
        self.sh.cancel_exchange(xfer);
        self.expire_session(None, sent_in);
        true
    }

    pub(super) fn exchange_failed(&mut self, xfer: ExchangeId, mut e: Error) {
        let Some(slot) = self.sh.xs.get_mut(xfer) else {
            return;
        };
        if slot.settled {
            return;
        }
        slot.settled = true;
        let owner = slot.owner().clone();
        let is_request = slot.rpc_id().is_some();
        if let Some(id) = slot.rpc_id().cloned() {
            self.sh.xs.end_resuming(&id);
        }
        let Some(slot) = self.sh.xs.get(xfer) else {
            return;
        };
        if e.kind == ErrorKind::Http {
            if let Some(ms) = slot.retry_after_ms {
                e.data = Some(json_object(vec![("retryAfterMs", ms.into())]));
            }
            // A 401/403's challenge, for hosts without the auth option (or after its retries).
            if let Some(w) = slot
                .www_authenticate
                .as_deref()
                .and_then(crate::auth::challenge::to_data)
            {
                let mut d = match e.data.take() {
                    Some(Value::Object(m)) => m,
                    _ => Map::new(),
                };
                d.insert("wwwAuthenticate".into(), w);
                e.data = Some(Value::Object(d));
            }
        }
        let sent_in = slot.session;
        self.sh.cancel_exchange(xfer);
        if is_request
            && e.status.is_some_and(|s| self.session_gone(s, sent_in))
            && matches!(owner, Owner::Op(_) | Owner::Task(..))
        {
            self.expire_session(Some(owner), sent_in);
            return;
        }
        self.deliver(&owner, CallInput::Failed(e));
    }

    fn route_message(&mut self, xfer: ExchangeId, m: Message, status: u16) {
        if let Some(slot) = self.sh.xs.get(xfer) {
            if slot.owner() == &session::owner(SessionPart::GetStream) {
                self.session.on_get_activity();
            } else if slot.owner() == &session::owner(SessionPart::SseStream) {
                // A message before the `endpoint` event ends the opening.
                let o = self.session.not_endpoint(&mut self.sh);
                if !matches!(o, session::Outcome::Pending) {
                    return self.session_outcome(o);
                }
            }
        }
        match m {
            Message::Response { id, result } => {
                self.route_response(xfer, Some(id), Ok(result), status)
            }
            Message::Error { id, error } => self.route_response(xfer, id, Err(error), status),
            Message::Notification { method, params } => {
                let params = params.unwrap_or_else(|| Value::Object(Map::new()));
                self.route_notification(xfer, &method, params);
            }
            Message::Request { id, method, params } => self.route_request(id, &method, params),
        }
    }

    /// A request from the server (2025 eras; dropped with a warning in 2026-07-28).
    #[inline(never)]
    fn route_request(&mut self, id: RequestId, method: &str, params: Option<Value>) {
        if self.sh.era == Era::Modern {
            self.sh.push(Action::Warn {
                message: format!(
                    "dropped a server request ({}): servers send no requests in {}",
                    sanitize(method, 80),
                    self.sh.version
                ),
            });
            return;
        }
        self.server_requests
            .on_request(&mut self.sh, &self.session, id, method, params, None);
    }

    fn route_response(
        &mut self,
        xfer: ExchangeId,
        id: Option<RequestId>,
        res: std::result::Result<RawJson, RpcError>,
        status: u16,
    ) {
        let Some(slot) = self.sh.xs.get(xfer) else {
            return;
        };
        let own_id = slot.rpc_id().cloned();
        let settled = slot.settled;
        let Some(id) = id.or_else(|| own_id.clone()) else {
            return;
        };
        let target = if Some(&id) == own_id.as_ref() {
            if settled {
                return; // a duplicate after the response: ignored
            }
            Some(xfer)
        } else if self.sh.era != Era::Modern {
            // Legacy eras: a response may come on any stream (a resumed or the GET stream).
            match self.sh.xs.route(&id) {
                Some(x) => Some(x),
                None => return, // a stray or duplicate response: ignored
            }
        } else if settled || own_id.is_none() {
            return;
        } else {
            // Each 2026-07-28 stream carries only its own request's response.
            let e = Error::invalid_result(format!(
                "the response names request {id}, not {}",
                own_id
                    .map(|i| i.to_string())
                    .unwrap_or_else(|| "this one".into())
            ));
            self.exchange_failed(xfer, e);
            return;
        };
        let Some(target) = target else { return };
        let Some(tslot) = self.sh.xs.get(target) else {
            return;
        };
        if tslot.settled {
            return;
        }
        let owner = tslot.owner().clone();
        let is_stream = tslot.exchange.is_stream();
        let accepted = tslot.accepted;
        let tsession = tslot.session;
        self.sh.xs.settle(target);
        // The final response ends the request; stop reading a stream that stays open.
        if is_stream && !accepted {
            self.sh.cancel_exchange(target);
        } else {
            self.sh.forget_exchange(target);
        }
        if res.is_err()
            && self.session_gone(status, tsession)
            && matches!(owner, Owner::Op(_) | Owner::Task(..))
        {
            self.expire_session(Some(owner), tsession);
            return;
        }
        let input = match res {
            Ok(raw) => CallInput::Response(raw),
            Err(e) => CallInput::RpcError(e, status),
        };
        self.deliver(&owner, input);
    }

    #[inline(never)]
    fn route_notification(&mut self, xfer: ExchangeId, method: &str, params: Value) {
        let owner = self.sh.xs.get(xfer).map(|s| s.owner().clone());
        match method {
            "notifications/progress" => {
                let by_token = params
                    .get("progressToken")
                    .and_then(Value::as_str)
                    .and_then(|t| self.sh.progress_owner(t).cloned());
                if let (Some(target), Value::Object(p)) = (by_token.or(owner), &params) {
                    let p = p.clone();
                    self.deliver(&target, CallInput::Progress(&p));
                }
            }
            "notifications/message" => {
                let op = match owner {
                    Some(Owner::Op(id)) => Some(id),
                    _ => None,
                };
                self.sh.push(Action::Log { op, params });
            }
            "notifications/cancelled" if self.sh.era != Era::Modern => {
                // A legacy server withdrew one of its requests.
                if let Some(id) = params.get("requestId") {
                    self.server_requests.on_cancelled(&mut self.sh, id);
                }
            }
            "notifications/tasks/status" if self.sh.era != Era::Modern => {
                // 2025 tasks: a Task (ttl, pollInterval) used as an observation.
                match decode_legacy_task_value(&params) {
                    Ok(task) => {
                        let id = task.task_id.clone();
                        let dt = DetailedTask {
                            task,
                            input_requests: Vec::new(),
                            result: None,
                            error: None,
                        };
                        let notes = self.tasks.on_notification(&mut self.sh, dt);
                        self.refresh_task(&id);
                        self.deliver_notes(notes);
                    }
                    Err(e) => self.sh.push(Action::Warn {
                        message: format!(
                            "dropped a malformed notifications/tasks/status: {}",
                            e.message
                        ),
                    }),
                }
                self.sh.push(Action::Notify {
                    method: method.to_string(),
                    params,
                });
            }
            _ => {
                // notifications/tasks may move a task driver: its timer follows (rule 24).
                let task_id = (method == "notifications/tasks")
                    .then(|| params.get("taskId").and_then(Value::as_str))
                    .flatten()
                    .map(str::to_string);
                self.notify(owner, method, params);
                if let Some(t) = task_id {
                    self.refresh_task(&t);
                }
            }
        }
    }
}
