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
mod routing;
mod start;

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
use crate::protocol::is_modern_version;
use crate::protocol::jsonrpc::RequestId;
use crate::time::Millis;
use rustc_hash::FxHashMap;
use serde_json::Value;

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
    /// `WWW-Authenticate` (401 and 403 answers; OAuth, [`auth`]).
    pub www_authenticate: Option<&'a str>,
}

/// The engine of one client.
pub struct Core {
    sh: Shared,
    ops: FxHashMap<OpId, Op>,
    tasks: TaskBook,
    session: Session,
    server_requests: ServerRequests,
    /// Operations waiting for the session.
    parked: Vec<(OpId, start::Start)>,
    /// OAuth, when configured ([`auth`]).
    auth: Option<auth::AuthLink>,
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
            ops: FxHashMap::default(),
            tasks: TaskBook::default(),
            session,
            server_requests: ServerRequests::default(),
            parked: Vec::new(),
        })
    }

    pub fn config(&self) -> &Config {
        &self.sh.cfg
    }

    /// The protocol version in use.
    pub fn protocol_version(&self) -> &str {
        &self.sh.version
    }

    pub fn era(&self) -> &Era {
        &self.sh.era
    }

    /// True once the era is known (after detection, or at once when pinned).
    pub fn era_known(&self) -> bool {
        self.session.era_known
    }

    /// Server capabilities, once known (`server/discover`, or `initialize` in legacy eras).
    pub fn server_capabilities(&self) -> Option<&Value> {
        self.sh.server_capabilities.as_ref()
    }

    /// The next action for the driver.
    pub fn poll_action(&mut self) -> Option<Action> {
        self.sh.actions.pop_front()
    }

    /// When the driver must call `on_timer` next (one timer for the whole client).
    pub fn next_deadline(&self) -> Option<Millis> {
        self.sh.timers.next()
    }

    /// Operations in flight (for tests and diagnostics).
    pub fn ops_in_flight(&self) -> usize {
        self.ops.len() + self.parked.len()
    }

    /// True when nothing is left in flight: no operation, exchange, JSON-RPC id routed,
    /// resumption, held request, ask, progress token, deadline, task driver, server
    /// request waiting for the host or authorization step. Holds after every sequence of
    /// operations that all ended (a legacy session's own GET stream aside), and after
    /// [`Core::close`] (for tests, the fuzz targets and diagnostics).
    pub fn is_quiet(&self) -> bool {
        self.busy().is_empty()
    }

    /// The names of what [`Core::is_quiet`] finds still booked.
    pub fn busy(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        self.sh.busy(&mut out);
        let tables = [
            ("operations", self.ops.is_empty()),
            ("parked operations", self.parked.is_empty()),
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
            Owner::Op(id) => self.ops.get(id).and_then(|op| match op {
                Op::Rpc(r) => r.deadline(),
                Op::Pages(p) => p.pager.deadline(),
                Op::Tool(t) => t.deadline(),
                Op::Wait(w) => w.deadline,
                Op::Listen(l) => l.deadline(),
            }),
            Owner::Task(id, part) => self.tasks.deadline(id, *part),
            Owner::Session(part) => self.session.deadline(*part),
            Owner::Resume(token) => self.sh.timers.get(&Owner::Resume(*token)),
        };
        self.sh.set_deadline(owner, d);
    }

    fn refresh_task(&mut self, id: &str) {
        self.refresh(&Owner::Task(id.to_string(), Part::Poll));
        self.refresh(&Owner::Task(id.to_string(), Part::Update));
        self.refresh(&Owner::Task(id.to_string(), Part::Result));
    }

    fn refresh_session(&mut self) {
        for p in [
            SessionPart::Probe,
            SessionPart::Init,
            SessionPart::Initialized,
            SessionPart::GetStream,
        ] {
            self.refresh(&session::owner(p));
        }
    }

    /// Puts an op back (pending) or finishes it.
    fn settle(&mut self, id: OpId, op: Op, step: Step, notes: Vec<Note>) {
        match step {
            Step::Pending => {
                self.ops.insert(id, op);
                self.refresh(&Owner::Op(id));
            }
            Step::Done(r) => self.done(id, r),
        }
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
                        match self.ops.remove(&op) {
                            Some(Op::Tool(mut t)) => {
                                let out = t.on_task_final(r);
                                self.done(op, out);
                            }
                            Some(Op::Wait(w)) => {
                                let out = w.on_final(r);
                                self.done(op, out);
                            }
                            Some(other) => {
                                self.ops.insert(op, other);
                            }
                            None => {}
                        }
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
                let parked = std::mem::take(&mut self.parked);
                for (id, s) in parked {
                    self.run(id, s);
                }
                let waiters = std::mem::take(&mut self.session.reinit_waiters);
                for w in waiters {
                    // Their requests failed on the ended session: re-issued on the new one.
                    self.deliver(&w, CallInput::StreamClosed);
                }
            }
            Outcome::Failed(e) => {
                let parked = std::mem::take(&mut self.parked);
                for (id, _) in parked {
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

    // ---- events ----

    /// A host answer to an `Ask` (`Err` when the handler threw).
    pub fn answer(&mut self, ask: AskId, answer: Result<Value>, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        let Some(owner) = self.sh.asks.get(&ask).cloned() else {
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
        let mut guard = 0;
        while guard <= 100_000 {
            let Some(owner) = self.sh.timers.pop_due(self.sh.now) else {
                break;
            };
            guard += 1;
            self.timer_for(&owner);
        }
    }

    /// Runs one step of operation `id` (if it still exists) and settles it; the deadlines of
    /// the task it drives or waits for are refreshed after.
    fn step_op(&mut self, id: OpId, f: impl FnOnce(&mut Op, &mut Ctx, OpId) -> Step) {
        let Some(mut op) = self.ops.remove(&id) else {
            return;
        };
        let mut cx = Ctx {
            sh: &mut self.sh,
            tasks: &mut self.tasks,
            notes: Vec::new(),
        };
        let step = f(&mut op, &mut cx, id);
        let notes = cx.notes;
        let task = match &op {
            Op::Wait(w) => Some(w.task_id.clone()),
            Op::Tool(t) => t.task_id().map(str::to_string),
            _ => None,
        };
        self.settle(id, op, step, notes);
        if let Some(t) = task {
            self.refresh_task(&t);
        }
    }

    fn timer_for(&mut self, owner: &Owner) {
        match owner {
            Owner::Op(id) => self.step_op(*id, |op, cx, id| match op {
                Op::Rpc(r) => r.handle(cx, id, CallInput::Timer),
                Op::Pages(p) => {
                    pages_step(
                        p.pager
                            .handle(cx.sh, cx.tasks, &Owner::Op(id), CallInput::Timer),
                    )
                }
                Op::Tool(t) => t.on_timer(cx, id),
                Op::Wait(w) => {
                    if w.deadline.is_some_and(|d| cx.sh.now >= d) {
                        cx.tasks.detach(cx.sh, &w.task_id, id);
                        Step::Done(Err(w.timeout_error(cx.tasks)))
                    } else {
                        Step::Pending
                    }
                }
                Op::Listen(l) => l.on_timer(cx, id),
            }),
            Owner::Task(tid, part) => {
                let notes = self.tasks.on_timer(&mut self.sh, tid, *part);
                self.refresh_task(tid);
                self.deliver_notes(notes);
            }
            Owner::Session(part) => {
                let o = self.session.on_timer(&mut self.sh, *part);
                self.session_outcome(o);
            }
            Owner::Resume(token) => self.resume_now(*token),
        }
    }

    fn deliver(&mut self, owner: &Owner, input: CallInput) {
        match owner {
            Owner::Op(id) => self.step_op(*id, |op, cx, id| match op {
                Op::Rpc(r) => r.handle(cx, id, input),
                Op::Pages(p) => pages_step(p.pager.handle(cx.sh, cx.tasks, &Owner::Op(id), input)),
                Op::Tool(t) => t.handle(cx, id, input),
                Op::Wait(_) => Step::Pending,
                Op::Listen(l) => match input {
                    CallInput::Response(_) => l.on_response(cx),
                    CallInput::RpcError(e, status) => l.on_error(cx, id, e, status),
                    CallInput::Failed(e) => l.on_failed(cx, id, e),
                    CallInput::StreamClosed => l.on_stream_closed(cx, id),
                    CallInput::Timer => l.on_timer(cx, id),
                    CallInput::Progress(_) | CallInput::Answer(..) => Step::Pending,
                },
            }),
            Owner::Task(tid, part) => {
                let notes = match input {
                    CallInput::Answer(ask, a) => self.tasks.on_answer(&mut self.sh, tid, ask, a),
                    other => self.tasks.on_call(&mut self.sh, tid, *part, other),
                };
                self.refresh_task(tid);
                self.deliver_notes(notes);
            }
            Owner::Session(part) => {
                let o = match part {
                    SessionPart::Probe | SessionPart::Init => {
                        self.session.on_call(&mut self.sh, *part, input)
                    }
                    SessionPart::GetStream | SessionPart::SseStream => match input {
                        CallInput::StreamClosed => {
                            self.session.on_stream_end(&mut self.sh, *part, None)
                        }
                        CallInput::Failed(e) => {
                            self.session.on_stream_end(&mut self.sh, *part, Some(e))
                        }
                        _ => Outcome::Pending,
                    },
                    SessionPart::Initialized => match input {
                        CallInput::Failed(e) => {
                            self.session.on_initialized_ack(&mut self.sh, Some(&e))
                        }
                        _ => self.session.on_initialized_ack(&mut self.sh, None),
                    },
                    SessionPart::Aux | SessionPart::Requests => Outcome::Pending,
                };
                self.session_outcome(o);
            }
            Owner::Resume(_) => {}
        }
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
        let open_before = self.sh.xs.ids();
        let ids: Vec<OpId> = self
            .ops
            .keys()
            .copied()
            .chain(self.parked.iter().map(|(i, _)| *i))
            .collect();
        for id in ids {
            self.abort(id, Error::abort("the client was closed"), now);
        }
        self.session.cancel(&mut self.sh);
        self.session.close(&mut self.sh);
        self.server_requests.clear(&mut self.sh);
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

/// A page walk's step: pending until it has every page.
fn pages_step(r: Option<Result<Vec<Value>>>) -> Step {
    match r {
        None => Step::Pending,
        Some(r) => Step::Done(r.map(|items| Output::Value(Value::Array(items)))),
    }
}
