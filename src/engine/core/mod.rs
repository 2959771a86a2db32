//! The client engine: one state machine per client, multiplexing every operation the
//! host started (the way quinn-proto's `Connection` multiplexes streams).
//!
//! Inputs: operations started by the host ([`start`]), HTTP events (`on_head`,
//! `on_chunk`, `on_end`, `on_fail`: [`routing`]), host answers (`answer`), the time
//! (`on_timer`), aborts. Outputs: actions, drained with `poll_action`, and one deadline,
//! `next_deadline`, for the driver's single timer. The engine never reads a clock and
//! never blocks.
//!
//! Operations started before the server's era is known wait ("parked") until the
//! session is ready: detection or initialization runs first ([`crate::engine::session`]).

mod auth;
mod parked;
mod peers;
mod plain;
mod presence;
mod push;
mod routing;
mod start;
mod store;

use crate::engine::actions::{Action, AskId, OpId, Output, TaskView};
use crate::engine::call::CallInput;
use crate::engine::config::{Config, VersionChoice};
use crate::engine::exchanges::Resume;
use crate::engine::ids::ResumeId;
use crate::engine::ops::{Ctx, Op, Step};
use crate::engine::server_requests::ServerRequests;
use crate::engine::session::{self, Outcome, Session, SessionPart};
use crate::engine::shared::{Era, Owner, Shared};
use crate::engine::task::{Note, Part, TaskBook};
use crate::error::{Error, Result};
use crate::json::Value;
use crate::protocol::is_modern_version;
use crate::protocol::jsonrpc::RequestId;
use crate::sorted_map::SortedMap;
use crate::time::Millis;

use crate::engine::listen::apply_notification;
use crate::engine::ops::{OpInput, Operation};

pub use crate::engine::task::store::RestoreSkip;
pub use start::TaskRef;

/// The response head, as much of it as the engine uses.
#[derive(Clone, Copy, Debug, Default)]
pub struct ResponseHead<'a> {
    pub status: u16,
    pub content_type: Option<&'a str>,
    /// `Mcp-Session-Id` (legacy era).
    pub session_id: Option<&'a str>,
    /// `Retry-After` (seconds or an HTTP date; only seconds are used).
    pub retry_after: Option<&'a str>,
    /// `WWW-Authenticate` (401 and 403 answers; OAuth, `crate::auth`).
    pub www_authenticate: Option<&'a str>,
    /// `DPoP-Nonce` (RFC 9449 §8, §9).
    pub dpop_nonce: Option<&'a str>,
}

impl<'a> ResponseHead<'a> {
    /// A head from the values of `http::response::RESPONSE_HEADERS`,
    /// in that order (`None`: absent or unreadable).
    pub fn read(status: u16, values: &'a [Option<String>; 5]) -> ResponseHead<'a> {
        let [content_type, session_id, retry_after, www_authenticate, dpop_nonce] = values;
        ResponseHead {
            status,
            content_type: content_type.as_deref(),
            session_id: session_id.as_deref(),
            retry_after: retry_after.as_deref(),
            www_authenticate: www_authenticate.as_deref(),
            dpop_nonce: dpop_nonce.as_deref(),
        }
    }
}

/// The engine of one client.
pub struct Core {
    sh: Shared,
    ops: SortedMap<OpId, Box<Op>>,
    tasks: TaskBook,
    session: Session,
    server_requests: ServerRequests,
    /// Operations waiting for the session.
    parked: Vec<(OpId, start::Start, Millis)>,
    /// OAuth, when configured ([`auth`]).
    auth: Option<auth::AuthLink>,
    /// Plain tool calls in flight on the short path ([`plain`]).
    plain: Vec<plain::PlainCall>,
    /// Tests: every tool call takes the general path (to compare the two).
    #[cfg(test)]
    pub(crate) plain_off: bool,
}

impl Core {
    /// A client engine. The configuration is checked here.
    pub fn new(cfg: Config, now: Millis) -> Result<Core> {
        cfg.validate()?;
        let modern_pinned =
            matches!(&cfg.version, VersionChoice::Pinned(v) if is_modern_version(v));
        let session = if modern_pinned {
            Session::ready_modern()
        } else {
            Session::new()
        };
        Ok(Core {
            auth: auth::AuthLink::new(&cfg),
            sh: Shared::new(cfg, now),
            ops: SortedMap::default(),
            tasks: TaskBook::default(),
            session,
            server_requests: ServerRequests::default(),
            parked: Vec::new(),
            plain: Vec::new(),
            #[cfg(test)]
            plain_off: false,
        })
    }

    pub(crate) fn config(&self) -> &Config {
        &self.sh.cfg
    }

    /// The protocol version in use.
    pub(crate) fn protocol_version(&self) -> &str {
        &self.sh.version
    }

    pub(crate) fn era(&self) -> &Era {
        &self.sh.era
    }

    /// True once the era is known (after detection, or at once when pinned).
    pub(crate) fn era_known(&self) -> bool {
        self.session.era_known
    }

    /// Server capabilities, once known (`server/discover`, or `initialize` in legacy eras).
    pub(crate) fn server_capabilities(&self) -> Option<&Value> {
        self.sh.server_capabilities.as_ref()
    }

    /// The next action for the driver.
    pub fn poll_action(&mut self) -> Option<Action> {
        self.sh.actions.pop_front()
    }

    /// When the driver must call `on_timer` next (one timer for the whole client).
    pub fn next_deadline(&self) -> Option<Millis> {
        let d = self.sh.next_deadline();
        if self.plain.is_empty() {
            return d;
        }
        match (d, self.plain_deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Operations in flight (for tests and diagnostics).
    pub fn ops_in_flight(&self) -> usize {
        self.ops.len() + self.parked.len() + self.plain.len()
    }

    /// True when nothing is left in flight: no operation, exchange, JSON-RPC id routed,
    /// resumption, held request, ask, progress token, deadline, task driver, server
    /// request waiting for the host or authorization step. Holds after every sequence of
    /// operations that all ended (a legacy session's own GET stream aside), and after
    /// [`Core::close`] (for tests; the engine fuzz target checks [`Core::busy`] is empty).
    #[cfg(test)]
    pub(crate) fn is_quiet(&self) -> bool {
        self.busy().is_empty()
    }

    /// Plain calls' request templates framed so far (`Shared::tool_call_request`).
    #[cfg(test)]
    pub(crate) fn templates_framed(&self) -> usize {
        self.sh.templates_framed
    }

    /// The names of what `Core::is_quiet` finds still booked.
    pub fn busy(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        self.sh.busy(&mut out);
        let tables = [
            ("operations", self.ops.is_empty()),
            ("parked operations", self.parked.is_empty()),
            ("plain tool calls", self.plain.is_empty()),
            ("task drivers", self.tasks.is_idle()),
            ("server requests", self.server_requests.is_quiet()),
            (
                "re-initialization waiters",
                self.session.reinit_waiters.is_empty(),
            ),
            ("authorization", self.auth_is_quiet()),
        ];
        out.extend(tables.iter().filter(|(_, empty)| !empty).map(|(n, _)| *n));
        out
    }

    fn new_op(&mut self, now: Millis) -> OpId {
        self.sh.now = self.sh.now.max(now);
        OpId(self.sh.next_id())
    }

    fn done(&mut self, op: OpId, outcome: Result<Output>) {
        self.sh.set_deadline(&Owner::Op(op), None);
        self.drop_streams(&Owner::Op(op));
        self.sh.push(Action::Done { op, outcome });
    }

    /// Closes what an ended operation still owns: any exchange and scheduled resumption
    /// under its name. A `Call` that ends withdraws its own resumption
    /// (`Shared::abandon`); this is the owner-level net for an operation that ends
    /// without its call ending first. Without it, a legacy resumption GET stayed open
    /// after the operation ended and, when it dropped, was resumed for nobody (fuzz:
    /// engine).
    fn drop_streams(&mut self, owner: &Owner) {
        let (xfers, tokens) = self.sh.xs.drop_owner(owner);
        for x in xfers {
            self.sh.cancel_exchange(x);
        }
        for t in tokens {
            self.sh.set_deadline(&Owner::Resume(t), None);
        }
    }

    fn refresh(&mut self, owner: &Owner) {
        let d = match owner {
            Owner::Op(id) => self.ops.get(id).and_then(|o| o.deadline()),
            Owner::Task(id, part) => self.tasks.deadline(id, *part),
            Owner::Session(part) => self.session.deadline(*part),
            Owner::Resume(token) => self.sh.deadline_of(&Owner::Resume(*token)),
            Owner::Push(gen) => self.push_deadline(*gen),
            Owner::Auth => self.auth_deadline(),
        };
        self.sh.set_deadline(owner, d);
    }

    fn refresh_task(&mut self, id: &str) {
        self.refresh(&Owner::Task(id.to_string(), Part::Poll));
        self.refresh(&Owner::Task(id.to_string(), Part::Update));
        self.refresh(&Owner::Task(id.to_string(), Part::Result));
        // Durable tasks: write or forget its record when it changed (`task::store`).
        self.tasks.sync_store(&mut self.sh, id);
        // Push-driven tasks: the shared stream's filter follows (`task::push`).
        self.push_sync(id);
    }

    fn refresh_session(&mut self) {
        #[cfg(feature = "legacy")]
        let parts = [
            SessionPart::Probe,
            SessionPart::Init,
            SessionPart::Initialized,
            SessionPart::GetStream,
            SessionPart::SseStream,
        ];
        #[cfg(not(feature = "legacy"))]
        let parts = [SessionPart::Probe];
        for p in parts {
            self.refresh(&session::owner(p));
        }
    }

    /// The one settle path: puts an op back (pending) or finishes it, then delivers the
    /// task notes its step left.
    fn settle(&mut self, id: OpId, op: Box<Op>, step: Step, notes: Vec<Note>) {
        match step {
            Step::Pending => {
                self.ops.insert(id, op);
                self.refresh(&Owner::Op(id));
                self.deliver_notes(notes);
            }
            Step::Done(r) => self.finish(id, r, notes),
        }
    }

    /// Settles an operation that ended before it was put in the table (or as it left it).
    fn finish(&mut self, id: OpId, r: Result<Output>, notes: Vec<Note>) {
        self.done(id, r);
        self.deliver_notes(notes);
    }

    fn deliver_notes(&mut self, notes: Vec<Note>) {
        for note in notes {
            match note {
                Note::Status(ops, view) => {
                    for op in ops {
                        self.sh.push(Action::TaskStatus {
                            op,
                            task: view.clone(),
                        });
                    }
                }
                Note::Final(ops, r) => {
                    for op in ops {
                        let r: Result<TaskView> = match &r {
                            Ok(v) => Ok(v.clone()),
                            Err(e) => Err(e.clone()),
                        };
                        // The driver's timers are its caller's to refresh: it just moved.
                        self.handle_op(op, OpInput::TaskFinal(r));
                    }
                }
            }
        }
    }

    /// What the session's detection or initialization led to.
    fn session_outcome(&mut self, o: Outcome) {
        match o {
            Outcome::Pending => {}
            Outcome::Ready => {
                self.unpark_all();
                // Its operation was aborted while parked: the answer is no one's.
                self.sh.first_answer = None;
                let waiters = std::mem::take(&mut self.session.reinit_waiters);
                for w in waiters {
                    // Their requests failed on the ended session: re-issued on the new one.
                    self.deliver(&w, CallInput::StreamClosed);
                }
            }
            Outcome::Failed(e) => {
                self.sh.first_answer = None;
                // No session any more: a new one's server requests restart their ids (the
                // Python SDK counts from 0 each session), so an answer kept from this one
                // would go to another question (2025-11-25 `basic` "Requests": ids are
                // unique within a session only).
                self.server_requests.clear(&mut self.sh);
                #[cfg(feature = "legacy")]
                self.fail_accepted();
                let parked = std::mem::take(&mut self.parked);
                for (id, ..) in parked {
                    self.done(id, Err(e.clone()));
                }
                let waiters = std::mem::take(&mut self.session.reinit_waiters);
                for w in waiters {
                    self.deliver(&w, CallInput::Failed(e.clone()));
                }
            }
        }
        self.refresh_session();
    }

    #[cfg(feature = "legacy")]
    /// HTTP+SSE: the POSTs the server accepted (202) wait for their responses on the
    /// stream; once it is lost they can never come, so their calls fail now.
    fn fail_accepted(&mut self) {
        if self.sh.era != Era::HttpSse {
            return;
        }
        for x in self.sh.xs.ids() {
            let lost = self.sh.xs.get(x).is_some_and(|s| {
                s.accepted && !s.settled && matches!(s.owner(), Owner::Op(_) | Owner::Task(..))
            });
            if lost {
                let e = Error::network("the HTTP+SSE stream closed before the response");
                self.exchange_failed(x, e);
            }
        }
    }

    // ---- events ----

    /// A host answer to an `Ask` (`Err` when the handler threw).
    pub fn answer(&mut self, ask: AskId, answer: Result<Value>, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        let Some(owner) = self.sh.ask_owner(&ask).cloned() else {
            return;
        };
        if owner == session::owner(SessionPart::Requests) {
            self.server_requests
                .on_answer(&mut self.sh, &self.session, ask, answer);
            return;
        }
        self.deliver(&owner, CallInput::Answer(ask, answer));
    }

    /// The time is `now`: fires every deadline that passed.
    pub fn on_timer(&mut self, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        self.unplain_due(self.sh.now);
        let mut guard = 0;
        while guard <= 100_000 {
            let Some(owner) = self.sh.pop_due(self.sh.now) else {
                break;
            };
            guard += 1;
            self.timer_for(&owner);
        }
    }

    /// Hands operation `id` (if it still exists) one input and settles it. Returns the
    /// task the operation waits on, if any.
    fn handle_op(&mut self, id: OpId, input: OpInput) -> Option<String> {
        let mut op = self.ops.remove(&id)?;
        let mut cx = Ctx::new(&mut self.sh, &mut self.tasks);
        let step = op.handle(&mut cx, id, input);
        let notes = cx.notes;
        let task = op.task().map(str::to_string);
        self.settle(id, op, step, notes);
        task
    }

    /// Runs one step of operation `id` (if it still exists) and settles it; the deadlines of
    /// the task it drives or waits for are refreshed after.
    fn step_op(&mut self, id: OpId, input: OpInput) {
        if let Some(t) = self.handle_op(id, input) {
            self.refresh_task(&t);
        }
    }

    /// A notification on the stream of `owner`'s exchange: a subscription's own go to
    /// its operation; any other changes the client's state, and reaches the host.
    fn notify(&mut self, owner: Option<Owner>, method: &str, params: Value) {
        if let Some(Owner::Push(gen)) = owner {
            self.push_notify(gen, method, params);
            return;
        }
        if let Some(Owner::Op(id)) = owner {
            if self.ops.get(&id).is_some_and(|o| o.hears()) {
                self.step_op(id, OpInput::Notification(method, params));
                return;
            }
        }
        let mut cx = Ctx::new(&mut self.sh, &mut self.tasks);
        apply_notification(&mut cx, method, &params);
        let notes = cx.notes;
        self.sh.push(Action::Notify {
            method: method.to_string(),
            params,
        });
        self.deliver_notes(notes);
    }

    fn timer_for(&mut self, owner: &Owner) {
        match owner {
            #[cfg(feature = "legacy")]
            Owner::Resume(token) => self.resume_now(*token),
            Owner::Op(id) if self.is_parked(*id) => self.parked_due(*id),
            _ => self.deliver(owner, CallInput::Timer),
        }
    }

    /// Hands `owner` one input (`CallInput::Timer` only from `timer_for`).
    fn deliver(&mut self, owner: &Owner, input: CallInput) {
        match owner {
            Owner::Op(id) => self.step_op(*id, OpInput::Call(input)),
            Owner::Task(tid, part) => self.deliver_task(tid, *part, input),
            Owner::Session(part) => {
                let o = self.session.handle(&mut self.sh, *part, input);
                self.session_outcome(o);
            }
            Owner::Resume(_) => {}
            Owner::Push(gen) => self.push_deliver(*gen, input),
            Owner::Auth => self.auth_timer(),
        }
    }

    /// Hands a task's wait one input. Out of line, as `push_deliver` is: a client that
    /// waits on no task never compiles it (a wasm function is compiled whole on its first
    /// call; BENCHMARKS.md, "the first call's path").
    #[inline(never)]
    fn deliver_task(&mut self, tid: &str, part: crate::engine::task::Part, input: CallInput) {
        let notes = self.tasks.handle(&mut self.sh, tid, part, input);
        self.refresh_task(tid);
        self.deliver_notes(notes);
    }

    /// A legacy response stream dropped after events with ids: resume it with a GET and
    /// `Last-Event-ID` after the server's `retry` (2025-11-25 transports "Resumability").
    fn schedule_resume(
        &mut self,
        owner: Owner,
        rpc_id: RequestId,
        last_event_id: String,
        attempts: u32,
        retry_ms: Option<u64>,
    ) {
        let token = ResumeId(self.sh.next_id());
        let backoff = 250u64.saturating_mul(1 << attempts.min(8));
        let at = self.sh.now.saturating_add(retry_ms.unwrap_or(backoff));
        let r = Resume {
            owner,
            rpc_id,
            last_event_id,
            attempts,
        };
        self.sh.xs.schedule_resume(token, r);
        self.sh.set_deadline(&Owner::Resume(token), Some(at));
    }

    #[cfg(feature = "legacy")]
    fn resume_now(&mut self, token: ResumeId) {
        let Some(r) = self.sh.xs.take_resume(token) else {
            return; // its call ended meanwhile
        };
        if !self.session.is_ready() {
            self.sh.xs.end_resuming(&r.rpc_id);
            self.deliver(&r.owner, CallInput::StreamClosed);
            return;
        }
        let req = self.sh.legacy_stream_get(Some(&r.last_event_id));
        let x = self.sh.send_raw(r.owner.clone(), req);
        self.sh.xs.resumed_on(x, r);
    }

    /// Ends everything: every operation fails with `AbortError`; a legacy session is
    /// ended with `DELETE`.
    pub fn close(&mut self, now: Millis) {
        self.unplain_all();
        let open_before = self.sh.xs.ids();
        let ids: Vec<OpId> = self
            .ops
            .keys()
            .copied()
            .chain(self.parked.iter().map(|p| p.0))
            .collect();
        for id in ids {
            self.abort(id, Error::abort("the client was closed"), now);
        }
        self.session.cancel(&mut self.sh);
        self.session.close(&mut self.sh);
        self.server_requests.clear(&mut self.sh);
        self.tasks.close(&mut self.sh);
        self.push_close();
        for token in self.sh.xs.clear_resumes() {
            self.sh.set_deadline(&Owner::Resume(token), None);
        }
        // What no owner closed (a task poll's legacy resumption GET, which its call does
        // not track) closes too; what closing itself sent (DELETE, tasks/cancel,
        // notifications/cancelled) goes on (fuzz: engine).
        for x in open_before {
            self.sh.cancel_exchange(x);
        }
        self.auth_close();
        self.refresh_session();
    }
}
