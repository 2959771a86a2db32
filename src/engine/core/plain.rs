//! A plain tool call's short path (issue 14, target 1; BENCHMARKS.md, the thirty-first
//! session).
//!
//! Most tool calls are plain: a 2026-07-28 `tools/call` of a tool that declares no
//! `x-mcp-header` parameters and no `outputSchema`, without `asTask`, a progress callback,
//! a log level or `_meta` of its own, answered with a 200 of JSON holding a complete
//! result. The general path books an operation, a call state machine, an exchange and a
//! deadline for it, then takes them all down when the answer comes: on loopback, a call's
//! cost is mostly that code (the CPU caches refilled with it), not its work. A plain call
//! sends the same request and keeps only what it takes to pick it up again
//! ([`PlainCall`]); a complete result is handed to the host at once.
//!
//! Any other event of the call hands it over to the general path first ([`Core::unplain`]):
//! its operation, call state, exchange and deadline are booked as [`ToolOp::start`] would
//! have left them when it sent the request, and the event then takes the usual steps.
//! So an answer that asks for input, creates a task, is an error, a stream or a failure,
//! the deadline passing, an abort and `close` behave exactly as on the general path
//! (`engine::tests::plain_call` runs each both ways and compares what the host and the
//! server see).

use super::Core;
use crate::engine::actions::{Action, OpId, OpOptions, Output};
use crate::engine::arguments::ToolArguments;
use crate::engine::call::{Call, CallPolicy};
use crate::engine::ops::{policy_for, Op, Purpose, ToolOp};
use crate::engine::shared::{Era, Owner};
use crate::http::request::HttpRequest;
use crate::json::Map;
use crate::json::RawJson;
use crate::protocol::jsonrpc::{decode, Message, RequestId};
use crate::protocol::result::{peek_result_type, ResultType};
use crate::time::Millis;

/// Plain calls in flight at most; a call beyond takes the general path (whose deadlines
/// are a heap: this table is scanned).
const MAX_PLAIN: usize = 64;

/// A plain call whose request is out: what the general path needs to take it over.
pub(super) struct PlainCall {
    op: OpId,
    /// The HTTP request's id (the exchange's, once booked).
    wire: u64,
    rpc_id: i64,
    name: String,
    args: Option<ToolArguments>,
    opts: OpOptions,
    policy: CallPolicy,
    started: Millis,
    deadline: Option<Millis>,
}

impl Core {
    /// Starts tool call `name` on the short path when it is plain (see the module); gives
    /// the arguments back otherwise, untouched.
    pub(super) fn start_plain(
        &mut self,
        name: &str,
        args: Option<ToolArguments>,
        opts: &OpOptions,
        now: Millis,
    ) -> Result<OpId, Option<ToolArguments>> {
        let plain = self.session.is_ready()
            && self.sh.era == Era::Modern
            // OAuth keeps a copy of each request and may hold it (`Shared::open`).
            && self.sh.cfg.auth.is_none()
            && self.sh.dpop.is_none()
            && self.plain.len() < MAX_PLAIN
            && !opts.progress
            && opts.log_level.is_none()
            && opts.meta.is_none()
            && self.sh.tools.is_plain(name);
        #[cfg(test)]
        let plain = plain && !self.plain_off;
        if !plain {
            return Err(args);
        }
        let op = self.new_op(now);
        let policy = policy_for(&self.sh, &Purpose::CallTool, opts);
        let (rpc_id, req) = self
            .sh
            .tool_call_request(name, args.as_ref().map(|a| a.get()));
        let started = self.sh.now;
        self.plain.push(PlainCall {
            op,
            wire: req.id,
            rpc_id,
            name: name.to_string(),
            args,
            opts: opts.copy_plain(),
            deadline: Call::first_deadline(&policy, started),
            policy,
            started,
        });
        self.sh.push(Action::Send(req));
        Ok(op)
    }

    /// For [`Core::on_answer`]: true when exchange `wire` was a plain call's and this
    /// answer its complete result, now handed to the host. Otherwise the call (if plain) is
    /// handed to the general path, which then takes the answer.
    pub(super) fn plain_answer(
        &mut self,
        wire: u64,
        head: &super::ResponseHead,
        body: &[u8],
    ) -> bool {
        let Some(i) = self.plain.iter().position(|p| p.wire == wire) else {
            return false;
        };
        let own = self.plain[i].rpc_id;
        // What `own_answer` accepts, less the JSON-RPC errors, and a complete result only.
        let result = (head.status == 200
            && super::routing::plain_json(head.content_type)
            && body.len() <= self.sh.cfg.limits.max_body_bytes)
            .then(|| std::str::from_utf8(body).ok())
            .flatten()
            .and_then(|text| decode(text).ok())
            .and_then(|m| match m {
                Message::Response {
                    id: RequestId::Number(id),
                    result,
                } if id == own => Some(result),
                _ => None,
            })
            .filter(|r: &RawJson| matches!(peek_result_type(r), Ok(ResultType::Complete)));
        match result {
            Some(raw) => {
                let p = self.plain.swap_remove(i);
                self.sh.push(Action::Done {
                    op: p.op,
                    outcome: Ok(Output::Raw(raw)),
                });
                true
            }
            None => {
                self.take_over(i);
                false
            }
        }
    }

    /// The request of plain call `op`, taken out of the queue, when sending it is the
    /// engine's only action: the shell's direct path then performs it and may read the
    /// answer itself ([`Core::on_result_read`]; `web::client`, BENCHMARKS.md, the
    /// thirty-third and thirty-fourth sessions). With
    /// anything else queued (a call started before the session is ready, a general-path
    /// call), `None`, and the queue is untouched.
    pub fn take_plain_send(&mut self, op: OpId) -> Option<HttpRequest> {
        // (`start_plain` books a call last.)
        let q = &self.sh.actions;
        let ours = q.len() == 1
            && matches!((q.front(), self.plain.last()), (Some(Action::Send(r)), Some(p))
                if p.op == op && p.wire == r.id);
        if !ours {
            return None;
        }
        match self.sh.actions.pop_front() {
            Some(Action::Send(req)) => Some(req),
            _ => None, // not reached: the only action was that `Send`
        }
    }

    /// The direct path's answer read by the runner itself (`readAnswer` in
    /// `web/js/fetch.js`): exchange `wire` was answered with a 200 of `application/json`
    /// exactly, whose `len` bytes are the JSON-RPC response with id `rpc_id` and a result
    /// that is a JSON object whose `resultType` is absent or `"complete"`, its members
    /// `jsonrpc` (`"2.0"`), `id` and `result` each once. That is an answer
    /// `Core::plain_answer` hands to the host as it is, so the runner hands the result
    /// over without the engine reading it again: true, and the call is over, when the
    /// answer is plain call `op`'s (its request's id, within the body limit) and the
    /// engine has nothing queued (the result would have been its only action). Otherwise
    /// false, nothing has changed, and the runner hands the answer over whole
    /// ([`Core::on_answer`]).
    pub fn on_result_read(&mut self, wire: u64, op: OpId, rpc_id: i64, len: usize) -> bool {
        let Some(i) = self.plain.iter().position(|p| p.wire == wire) else {
            return false;
        };
        let p = &self.plain[i];
        if p.op != op
            || p.rpc_id != rpc_id
            || len > self.sh.cfg.limits.max_body_bytes
            || !self.sh.actions.is_empty()
        {
            return false;
        }
        self.plain.swap_remove(i);
        true
    }

    /// Hands exchange `wire`'s plain call, if it is one, to the general path.
    pub(super) fn unplain(&mut self, wire: u64) {
        if let Some(i) = self.plain.iter().position(|p| p.wire == wire) {
            self.take_over(i);
        }
    }

    /// Hands operation `op`'s plain call, if it is one, to the general path.
    pub(super) fn unplain_op(&mut self, op: OpId) {
        if let Some(i) = self.plain.iter().position(|p| p.op == op) {
            self.take_over(i);
        }
    }

    /// Hands every plain call whose deadline is at or before `now` to the general path
    /// (whose timer then fires for it).
    pub(super) fn unplain_due(&mut self, now: Millis) {
        while let Some(i) = self
            .plain
            .iter()
            .position(|p| p.deadline.is_some_and(|d| d <= now))
        {
            self.take_over(i);
        }
    }

    /// Hands every plain call to the general path.
    pub(super) fn unplain_all(&mut self) {
        while !self.plain.is_empty() {
            self.take_over(self.plain.len() - 1);
        }
    }

    /// The earliest deadline of the plain calls.
    pub(super) fn plain_deadline(&self) -> Option<Millis> {
        self.plain.iter().filter_map(|p| p.deadline).min()
    }

    /// True when exchange `wire` is a plain call's (its result goes to the host unread).
    pub(super) fn is_plain_wire(&self, wire: u64) -> bool {
        self.plain.iter().any(|p| p.wire == wire)
    }

    /// Books plain call `i` as [`ToolOp::start`] leaves a call it sent: the operation in the
    /// table, its call state, its exchange and its deadline. Out of line: a call answered
    /// with a complete result never compiles it.
    #[inline(never)]
    fn take_over(&mut self, i: usize) {
        let p = self.plain.swap_remove(i);
        let owner = Owner::Op(p.op);
        let rpc_id = RequestId::Number(p.rpc_id);
        let xfer = self
            .sh
            .book_sent(p.wire, owner.clone(), rpc_id.clone(), true);
        let mut call = Call::new("tools/call", Map::new(), Vec::new(), p.policy);
        call.set_name_param(p.name.clone());
        if let Some(a) = p.args {
            call.set_raw_param("arguments", a);
        }
        call.host_result = true;
        call.sent(xfer, rpc_id, p.started);
        let op = ToolOp::calling(p.name, p.opts, call);
        self.ops.insert(p.op, Box::new(Op::Tool(op)));
        self.refresh(&owner);
    }
}
