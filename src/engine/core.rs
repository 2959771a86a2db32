//! The client engine: one state machine per client, multiplexing every operation the
//! host started (the way quinn-proto's `Connection` multiplexes streams).
//!
//! Inputs: operations started by the host, HTTP events (`on_head`, `on_chunk`, `on_end`,
//! `on_fail`), host answers (`answer`), the time (`on_timer`), aborts. Outputs: actions,
//! drained with `poll_action`, and one deadline, `next_deadline`, for the driver's single
//! timer. The engine never reads a clock and never blocks.

use crate::engine::actions::{Action, OpId, OpOptions, Output, TaskView};
use crate::engine::call::CallInput;
use crate::engine::config::Config;
use crate::engine::exchange::Output as XOut;
use crate::engine::listen::{apply_notification, check_filter, ListenOp};
use crate::engine::ops::{Ctx, Op, Pager, PagesOp, Purpose, RpcOp, Step, ToolOp, WaitOp, Want};
use crate::engine::shared::{Era, Owner, Shared};
use crate::engine::task::{Note, Part, TaskBook};
use crate::engine::tools::OutputCheck;
use crate::error::{sanitize, Error, ErrorKind, Result};
use crate::http::response::is_success;
use crate::protocol::jsonrpc::{Message, RequestId, RpcError};
use crate::protocol::TASKS_EXTENSION;
use crate::time::Millis;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// The response head, as much of it as the engine uses.
#[derive(Clone, Copy, Debug, Default)]
pub struct ResponseHead<'a> {
    pub status: u16,
    pub content_type: Option<&'a str>,
    /// `Mcp-Session-Id` (legacy era).
    pub session_id: Option<&'a str>,
    /// `Retry-After` (seconds or an HTTP date; only seconds are used).
    pub retry_after: Option<&'a str>,
}

/// The engine of one client.
pub struct Core {
    sh: Shared,
    ops: HashMap<OpId, Op>,
    tasks: TaskBook,
    retry_after: HashMap<u64, u64>,
}

/// A task an operation names: its id and, when the host has a handle, what it knows.
pub struct TaskRef {
    pub task_id: String,
    pub seed: Option<TaskView>,
}

impl Core {
    /// A client engine. The configuration is checked here.
    pub fn new(cfg: Config, now: Millis) -> Result<Core> {
        cfg.validate()?;
        Ok(Core {
            sh: Shared::new(cfg, now),
            ops: HashMap::new(),
            tasks: TaskBook::default(),
            retry_after: HashMap::new(),
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

    /// `server/discover` capabilities, once known.
    pub fn server_capabilities(&self) -> Option<&Value> {
        self.sh.server_capabilities.as_ref()
    }

    /// The next action for the driver.
    pub fn poll_action(&mut self) -> Option<Action> {
        self.sh.actions.pop_front()
    }

    /// When the driver must call `on_timer` next (one timer for the whole client).
    pub fn next_deadline(&self) -> Option<Millis> {
        self.sh.timers.iter().next().map(|(t, _)| *t)
    }

    /// Operations in flight (for tests and diagnostics).
    pub fn ops_in_flight(&self) -> usize {
        self.ops.len()
    }

    fn new_op(&mut self, now: Millis) -> OpId {
        self.sh.now = self.sh.now.max(now);
        self.sh.next_id()
    }

    fn done(&mut self, op: OpId, outcome: Result<Output>) {
        self.sh.set_deadline(&Owner::Op(op), None);
        self.sh.push(Action::Done { op, outcome });
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
        };
        self.sh.set_deadline(owner, d);
    }

    fn refresh_task(&mut self, id: &str) {
        self.refresh(&Owner::Task(id.to_string(), Part::Poll));
        self.refresh(&Owner::Task(id.to_string(), Part::Update));
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
                        let r = match &r {
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

    // ---- starting operations ----

    fn start_rpc(
        &mut self,
        purpose: Purpose,
        method: &str,
        params: Map<String, Value>,
        headers: Vec<(String, String)>,
        opts: &OpOptions,
        now: Millis,
    ) -> OpId {
        let id = self.new_op(now);
        let mut cx = Ctx {
            sh: &mut self.sh,
            tasks: &mut self.tasks,
            notes: Vec::new(),
        };
        let (op, immediate) = RpcOp::start(&mut cx, id, purpose, method, params, headers, opts);
        let notes = cx.notes;
        match (op, immediate) {
            (_, Some(r)) => {
                self.done(id, r);
                self.deliver_notes(notes);
            }
            (Some(op), None) => self.settle(id, Op::Rpc(op), Step::Pending, notes),
            (None, None) => self.done(id, Err(Error::invalid_result("request could not start"))),
        }
        id
    }

    fn fail_now(&mut self, e: Error, now: Millis) -> OpId {
        let id = self.new_op(now);
        self.done(id, Err(e));
        id
    }

    /// `server/discover`.
    pub fn discover(&mut self, opts: &OpOptions, now: Millis) -> OpId {
        self.start_rpc(
            Purpose::Discover,
            "server/discover",
            Map::new(),
            Vec::new(),
            opts,
            now,
        )
    }

    /// A single request: `tools/list`, `prompts/list`, `resources/list`,
    /// `resources/templates/list`, `resources/read`, `prompts/get`, `completion/complete`.
    pub fn request(
        &mut self,
        method: &str,
        params: Map<String, Value>,
        opts: &OpOptions,
        now: Millis,
    ) -> OpId {
        let purpose = match method {
            "tools/list" => Purpose::ToolsList,
            "prompts/list" | "resources/list" | "resources/templates/list" => Purpose::List,
            "resources/read" => Purpose::Read,
            "prompts/get" => Purpose::Prompt,
            "completion/complete" => Purpose::Complete,
            _ => {
                return self.fail_now(
                    Error::config(format!("unsupported method {}", sanitize(method, 60))),
                    now,
                )
            }
        };
        self.start_rpc(purpose, method, params, Vec::new(), opts, now)
    }

    /// Every page of a list method, items concatenated.
    pub fn list_all(&mut self, method: &str, opts: &OpOptions, now: Millis) -> OpId {
        if !matches!(
            method,
            "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list"
        ) {
            return self.fail_now(
                Error::config(format!("{} is not a list method", sanitize(method, 60))),
                now,
            );
        }
        let id = self.new_op(now);
        let mut pager = Pager::new(method, opts.clone());
        match pager.request(&mut self.sh, &mut self.tasks, &Owner::Op(id), None) {
            Some(r) => self.done(id, r.map(|items| Output::Value(Value::Array(items)))),
            None => self.settle(id, Op::Pages(PagesOp { pager }), Step::Pending, Vec::new()),
        }
        id
    }

    /// `tools/call`. With `as_task`, the result is the task (or a local completed task
    /// when the server answered at once); otherwise a task is driven to its result.
    pub fn call_tool(
        &mut self,
        name: &str,
        args: Option<Value>,
        as_task: bool,
        opts: &OpOptions,
        now: Millis,
    ) -> OpId {
        if name.is_empty() {
            return self.fail_now(Error::config("tool name must not be empty"), now);
        }
        if let Some(a) = &args {
            if !a.is_object() {
                return self.fail_now(Error::config("tool arguments must be an object"), now);
            }
        }
        if as_task {
            if let Err(e) = self.tasks_available(false) {
                return self.fail_now(e, now);
            }
        }
        let id = self.new_op(now);
        let mut cx = Ctx {
            sh: &mut self.sh,
            tasks: &mut self.tasks,
            notes: Vec::new(),
        };
        let (op, immediate) =
            ToolOp::start(&mut cx, id, name.to_string(), args, as_task, opts.clone());
        let notes = cx.notes;
        let step = match immediate {
            Some(r) => Step::Done(r),
            None => Step::Pending,
        };
        self.settle(id, Op::Tool(op), step, notes);
        id
    }

    /// Rule 19: task operations need the declared extension, and a server that did not
    /// say (in `server/discover`) that it lacks it.
    fn tasks_available(&self, check_server: bool) -> Result<()> {
        if !self.sh.cfg.tasks_enabled() {
            return Err(Error::new(
                ErrorKind::Capability,
                format!("the {TASKS_EXTENSION} extension is not declared (set extensions: ['{TASKS_EXTENSION}'])"),
            ));
        }
        if check_server && self.sh.era == Era::Modern {
            if let Some(caps) = &self.sh.server_capabilities {
                if caps
                    .get("extensions")
                    .and_then(|e| e.get(TASKS_EXTENSION))
                    .is_none()
                {
                    return Err(Error::new(
                        ErrorKind::Capability,
                        format!("the server does not support the {TASKS_EXTENSION} extension (server/discover)"),
                    ));
                }
            }
        }
        Ok(())
    }

    fn task_preflight(&self, t: &TaskRef) -> Result<()> {
        if t.seed.as_ref().is_some_and(|s| s.local) {
            return Err(Error::new(
                ErrorKind::Task,
                format!(
                    "task {:?} is local: the server answered at once, there is nothing to ask it",
                    sanitize(&t.task_id, 100)
                ),
            ));
        }
        if t.task_id.is_empty() {
            return Err(Error::config("task id must not be empty"));
        }
        self.tasks_available(true)
    }

    fn task_rpc(
        &mut self,
        t: &TaskRef,
        method: &str,
        purpose: Purpose,
        extra: Option<(&str, Value)>,
        opts: &OpOptions,
        now: Millis,
    ) -> OpId {
        if let Err(e) = self.task_preflight(t) {
            return self.fail_now(e, now);
        }
        // What the host's handle knows (createdAt, ttlMs) tells "expired" from "not found"
        // when the server answers -32602 (rule 14).
        if let Some(seed) = t.seed.as_ref().filter(|s| s.task.task_id == t.task_id) {
            self.tasks.register(&seed.task, OutputCheck::None);
        }
        let mut params = Map::new();
        params.insert("taskId".into(), t.task_id.clone().into());
        if let Some((k, v)) = extra {
            params.insert(k.into(), v);
        }
        self.start_rpc(purpose, method, params, Vec::new(), opts, now)
    }

    /// `tasks/get`: the task's current DetailedTask.
    pub fn get_task(&mut self, t: &TaskRef, opts: &OpOptions, now: Millis) -> OpId {
        self.task_rpc(
            t,
            "tasks/get",
            Purpose::TaskGet(t.task_id.clone()),
            None,
            opts,
            now,
        )
    }

    /// `tasks/update`: answers for a task's input requests.
    pub fn update_task(
        &mut self,
        t: &TaskRef,
        responses: Map<String, Value>,
        opts: &OpOptions,
        now: Millis,
    ) -> OpId {
        self.task_rpc(
            t,
            "tasks/update",
            Purpose::TaskUpdate(t.task_id.clone()),
            Some(("inputResponses", Value::Object(responses))),
            opts,
            now,
        )
    }

    /// `tasks/cancel` (an acknowledgement only; never `notifications/cancelled`: rule 17).
    pub fn cancel_task(&mut self, t: &TaskRef, opts: &OpOptions, now: Millis) -> OpId {
        self.task_rpc(
            t,
            "tasks/cancel",
            Purpose::TaskCancel(t.task_id.clone()),
            None,
            opts,
            now,
        )
    }

    /// `waitForTask` (`Want::Task`) or `getTaskResult` (`Want::Result`). `opts.timeout_ms`
    /// is the wait's budget; an elapsed budget sends nothing (rule 16).
    pub fn wait_task(&mut self, t: TaskRef, want: Want, opts: &OpOptions, now: Millis) -> OpId {
        if let Some(seed) = t.seed.as_ref().filter(|s| s.local) {
            // Rule 21: a local task is returned as is.
            let w = WaitOp {
                task_id: t.task_id.clone(),
                want,
                deadline: None,
            };
            let r = w.on_final(Ok(seed.clone()));
            let id = self.new_op(now);
            self.done(id, r);
            return id;
        }
        if let Err(e) = self.task_preflight(&t) {
            return self.fail_now(e, now);
        }
        let id = self.new_op(now);
        let mut deadline = opts.timeout_ms.map(|ms| self.sh.now.saturating_add(ms));
        if let Some(ms) = opts.max_total_timeout_ms {
            let hard = self.sh.now.saturating_add(ms);
            deadline = Some(deadline.map_or(hard, |d| d.min(hard)));
        }
        let w = WaitOp {
            task_id: t.task_id.clone(),
            want,
            deadline,
        };
        if deadline.is_some_and(|d| d <= self.sh.now) {
            let e = w.timeout_error(&self.tasks);
            self.done(id, Err(e));
            return id;
        }
        let seed = t.seed.as_ref().map(|s| s.task.clone());
        self.ops.insert(id, Op::Wait(w));
        self.refresh(&Owner::Op(id));
        let notes = self
            .tasks
            .attach(&mut self.sh, seed.as_ref(), &t.task_id, id, deadline);
        self.refresh_task(&t.task_id);
        self.deliver_notes(notes);
        id
    }

    /// `subscriptions/listen`.
    pub fn listen(&mut self, filter: &Value, now: Millis) -> OpId {
        let filter = match check_filter(filter, self.sh.cfg.tasks_enabled()) {
            Ok(f) => f,
            Err(e) => return self.fail_now(e, now),
        };
        let id = self.new_op(now);
        let mut cx = Ctx {
            sh: &mut self.sh,
            tasks: &mut self.tasks,
            notes: Vec::new(),
        };
        let l = ListenOp::start(&mut cx, id, filter);
        let notes = cx.notes;
        self.settle(id, Op::Listen(l), Step::Pending, notes);
        id
    }

    /// The host aborted an operation (its signal fired). Aborting a transparent task
    /// call cancels the task (`tasks/cancel`), as closing a stream cancels a request.
    pub fn abort(&mut self, op: OpId, reason: Error, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        let Some(o) = self.ops.remove(&op) else {
            return;
        };
        let mut cx = Ctx {
            sh: &mut self.sh,
            tasks: &mut self.tasks,
            notes: Vec::new(),
        };
        let mut cancel_task = None;
        let mut detached = None;
        match o {
            Op::Rpc(mut r) => r.cancel(&mut cx),
            Op::Pages(mut p) => p.pager.cancel(cx.sh),
            Op::Tool(mut t) => cancel_task = t.cancel(&mut cx, op),
            Op::Wait(w) => {
                cx.tasks.detach(cx.sh, &w.task_id, op);
                detached = Some(w.task_id);
            }
            Op::Listen(mut l) => l.cancel(&mut cx),
        }
        let notes = cx.notes;
        self.done(op, Err(reason));
        self.deliver_notes(notes);
        if let Some(task_id) = detached {
            // The driver may have stopped polling: drop its timer (rule 24).
            self.refresh_task(&task_id);
        }
        if let Some(task_id) = cancel_task {
            self.refresh_task(&task_id);
            let t = TaskRef {
                task_id,
                seed: None,
            };
            self.cancel_task(&t, &OpOptions::default(), now);
        }
    }

    /// Ends everything: every operation fails with `AbortError`.
    pub fn close(&mut self, now: Millis) {
        let ids: Vec<OpId> = self.ops.keys().copied().collect();
        for id in ids {
            self.abort(id, Error::abort("the client was closed"), now);
        }
    }

    // ---- events ----

    /// A host answer to an `Ask` (`Err` when the handler threw).
    pub fn answer(&mut self, ask: u64, answer: Result<Value>, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        let Some(owner) = self.sh.asks.get(&ask).cloned() else {
            return;
        };
        self.deliver(&owner, CallInput::Answer(ask, answer));
    }

    /// The time is `now`: fires every deadline that passed.
    pub fn on_timer(&mut self, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        let mut guard = 0;
        while let Some((t, owner)) = self.sh.timers.iter().next().cloned() {
            if t > self.sh.now || guard > 100_000 {
                break;
            }
            guard += 1;
            self.sh.set_deadline(&owner, None);
            self.timer_for(&owner);
        }
    }

    fn timer_for(&mut self, owner: &Owner) {
        match owner {
            Owner::Op(id) => {
                let id = *id;
                let Some(mut op) = self.ops.remove(&id) else {
                    return;
                };
                let mut cx = Ctx {
                    sh: &mut self.sh,
                    tasks: &mut self.tasks,
                    notes: Vec::new(),
                };
                let step = match &mut op {
                    Op::Rpc(r) => r.handle(&mut cx, id, CallInput::Timer),
                    Op::Pages(p) => {
                        match p
                            .pager
                            .handle(cx.sh, cx.tasks, &Owner::Op(id), CallInput::Timer)
                        {
                            None => Step::Pending,
                            Some(r) => {
                                Step::Done(r.map(|items| Output::Value(Value::Array(items))))
                            }
                        }
                    }
                    Op::Tool(t) => t.on_timer(&mut cx, id),
                    Op::Wait(w) => {
                        if w.deadline.is_some_and(|d| cx.sh.now >= d) {
                            cx.tasks.detach(cx.sh, &w.task_id, id);
                            Step::Done(Err(w.timeout_error(cx.tasks)))
                        } else {
                            Step::Pending
                        }
                    }
                    Op::Listen(l) => l.on_timer(&mut cx, id),
                };
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
            Owner::Task(tid, part) => {
                let notes = self.tasks.on_timer(&mut self.sh, tid, *part);
                self.refresh_task(tid);
                self.deliver_notes(notes);
            }
        }
    }

    fn deliver(&mut self, owner: &Owner, input: CallInput) {
        match owner {
            Owner::Op(id) => {
                let id = *id;
                let Some(mut op) = self.ops.remove(&id) else {
                    return;
                };
                let mut cx = Ctx {
                    sh: &mut self.sh,
                    tasks: &mut self.tasks,
                    notes: Vec::new(),
                };
                let step = match &mut op {
                    Op::Rpc(r) => r.handle(&mut cx, id, input),
                    Op::Pages(p) => match p.pager.handle(cx.sh, cx.tasks, &Owner::Op(id), input) {
                        None => Step::Pending,
                        Some(r) => Step::Done(r.map(|items| Output::Value(Value::Array(items)))),
                    },
                    Op::Tool(t) => t.handle(&mut cx, id, input),
                    Op::Wait(_) => Step::Pending,
                    Op::Listen(l) => match input {
                        CallInput::Response(raw) => l.on_response(&mut cx, raw),
                        CallInput::RpcError(e, status) => l.on_error(&mut cx, id, e, status),
                        CallInput::Failed(e) => l.on_failed(&mut cx, id, e),
                        CallInput::StreamClosed => l.on_stream_closed(&mut cx, id),
                        CallInput::Timer => l.on_timer(&mut cx, id),
                        CallInput::Progress(_) | CallInput::Answer(..) => Step::Pending,
                    },
                };
                let notes = cx.notes;
                let task = match &op {
                    Op::Tool(t) => t.task_id().map(str::to_string),
                    _ => None,
                };
                self.settle(id, op, step, notes);
                if let Some(t) = task {
                    self.refresh_task(&t);
                }
            }
            Owner::Task(tid, part) => {
                let notes = match input {
                    CallInput::Answer(ask, a) => self.tasks.on_answer(&mut self.sh, tid, ask, a),
                    other => self.tasks.on_call(&mut self.sh, tid, *part, other),
                };
                self.refresh_task(tid);
                self.deliver_notes(notes);
            }
        }
    }

    /// The response head of exchange `xfer` arrived.
    pub fn on_head(&mut self, xfer: u64, head: ResponseHead, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        if let Some(ra) = head.retry_after.and_then(|s| s.trim().parse::<u64>().ok()) {
            self.retry_after.insert(xfer, ra.saturating_mul(1000));
        }
        let mut outs = Vec::new();
        match self.sh.slots.get_mut(&xfer) {
            Some(slot) => slot
                .exchange
                .on_head(head.status, head.content_type, &mut outs),
            None => return,
        }
        self.process(xfer, outs);
    }

    /// A chunk of exchange `xfer`'s body arrived.
    pub fn on_chunk(&mut self, xfer: u64, bytes: &[u8], now: Millis) {
        self.sh.now = self.sh.now.max(now);
        let mut outs = Vec::new();
        match self.sh.slots.get_mut(&xfer) {
            Some(slot) => slot.exchange.on_chunk(bytes, &mut outs),
            None => return,
        }
        self.process(xfer, outs);
    }

    /// Exchange `xfer`'s body ended.
    pub fn on_end(&mut self, xfer: u64, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        let mut outs = Vec::new();
        match self.sh.slots.get_mut(&xfer) {
            Some(slot) => slot.exchange.on_end(&mut outs),
            None => return,
        }
        self.process(xfer, outs);
        if let Some(slot) = self.sh.slots.get(&xfer) {
            let unanswered = !slot.settled && slot.rpc_id.is_some();
            let owner = slot.owner.clone();
            self.sh.forget_exchange(xfer);
            self.retry_after.remove(&xfer);
            if unanswered {
                self.deliver(&owner, CallInput::StreamClosed);
            }
        }
    }

    /// Exchange `xfer` failed (network error, CORS, aborted by the platform).
    pub fn on_fail(&mut self, xfer: u64, err: Error, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        let Some(slot) = self.sh.slots.get(&xfer) else {
            return;
        };
        let (owner, settled) = (slot.owner.clone(), slot.settled);
        let streamed = is_success(slot.exchange.status()) && slot.exchange.is_stream();
        self.sh.forget_exchange(xfer);
        self.retry_after.remove(&xfer);
        if settled {
            return;
        }
        // A stream that broke after it opened is a dropped stream (re-issued); a request
        // that never got an answer head failed.
        self.deliver(
            &owner,
            if streamed {
                CallInput::StreamClosed
            } else {
                CallInput::Failed(err)
            },
        );
    }

    fn process(&mut self, xfer: u64, outs: Vec<XOut>) {
        for out in outs {
            match out {
                XOut::Message(m, status) => self.route_message(xfer, m, status),
                XOut::Failed(e) => self.exchange_failed(xfer, e),
                XOut::SseMeta { .. } => {}
            }
        }
    }

    fn exchange_failed(&mut self, xfer: u64, mut e: Error) {
        let Some(slot) = self.sh.slots.get_mut(&xfer) else {
            return;
        };
        if slot.settled {
            return;
        }
        slot.settled = true;
        let owner = slot.owner.clone();
        if e.kind == ErrorKind::Http {
            if let Some(ms) = self.retry_after.get(&xfer) {
                e.data = Some(json!({"retryAfterMs": ms}));
            }
        }
        self.sh.cancel_exchange(xfer);
        self.retry_after.remove(&xfer);
        self.deliver(&owner, CallInput::Failed(e));
    }

    fn route_message(&mut self, xfer: u64, m: Message, status: u16) {
        match m {
            Message::Response { id, result } => {
                self.route_response(xfer, Some(id), Ok(result), status)
            }
            Message::Error { id, error } => self.route_response(xfer, id, Err(error), status),
            Message::Notification { method, params } => {
                let params = params.unwrap_or_else(|| Value::Object(Map::new()));
                self.route_notification(xfer, &method, params);
            }
            Message::Request { method, .. } => {
                self.sh.push(Action::Warn {
                    message: format!(
                        "dropped a server request ({}): servers send no requests in {}",
                        sanitize(&method, 80),
                        self.sh.version
                    ),
                });
            }
        }
    }

    fn route_response(
        &mut self,
        xfer: u64,
        id: Option<RequestId>,
        res: std::result::Result<Box<RawValue>, RpcError>,
        status: u16,
    ) {
        let Some(slot) = self.sh.slots.get(&xfer) else {
            return;
        };
        let own_id = slot.rpc_id.clone();
        let owner = slot.owner.clone();
        let settled = slot.settled;
        let is_stream = slot.exchange.is_stream();
        let id = match id.or_else(|| own_id.clone()) {
            Some(id) => id,
            None => return,
        };
        if settled {
            return; // a duplicate after the response: ignored
        }
        if Some(&id) != own_id.as_ref() {
            // Each 2026-07-28 stream carries only its own request's response.
            let e = Error::invalid_result(format!(
                "the response names request {id}, not {}",
                own_id
                    .map(|i| i.to_string())
                    .unwrap_or_else(|| "this one".into())
            ));
            self.exchange_failed(xfer, e);
            return;
        }
        if let Some(slot) = self.sh.slots.get_mut(&xfer) {
            slot.settled = true;
        }
        self.sh.pending.remove(&id);
        // The final response ends the request; stop reading a stream that stays open.
        if is_stream {
            self.sh.cancel_exchange(xfer);
        } else {
            self.sh.forget_exchange(xfer);
        }
        self.retry_after.remove(&xfer);
        let input = match res {
            Ok(raw) => CallInput::Response(raw),
            Err(e) => CallInput::RpcError(e, status),
        };
        self.deliver(&owner, input);
    }

    fn route_notification(&mut self, xfer: u64, method: &str, params: Value) {
        let owner = self.sh.slots.get(&xfer).map(|s| s.owner.clone());
        match method {
            "notifications/progress" => {
                let by_token = params
                    .get("progressToken")
                    .and_then(Value::as_str)
                    .and_then(|t| self.sh.progress.get(t).cloned());
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
            _ => {
                // notifications/tasks may move a task driver: its timer follows (rule 24).
                let task_id = (method == "notifications/tasks")
                    .then(|| params.get("taskId").and_then(Value::as_str))
                    .flatten()
                    .map(str::to_string);
                // A listen stream's own notifications go to its op; any other op whose
                // stream carries a notification stays in place.
                let listen = match owner {
                    Some(Owner::Op(id)) => match self.ops.remove(&id) {
                        Some(Op::Listen(l)) => Some((id, l)),
                        Some(other) => {
                            self.ops.insert(id, other);
                            None
                        }
                        None => None,
                    },
                    _ => None,
                };
                if let Some((id, mut l)) = listen {
                    let mut cx = Ctx {
                        sh: &mut self.sh,
                        tasks: &mut self.tasks,
                        notes: Vec::new(),
                    };
                    let step = l.on_notification(&mut cx, id, method, params);
                    let notes = cx.notes;
                    self.settle(id, Op::Listen(l), step, notes);
                } else {
                    let mut cx = Ctx {
                        sh: &mut self.sh,
                        tasks: &mut self.tasks,
                        notes: Vec::new(),
                    };
                    apply_notification(&mut cx, method, &params);
                    let notes = cx.notes;
                    self.sh.push(Action::Notify {
                        method: method.to_string(),
                        params,
                    });
                    self.deliver_notes(notes);
                }
                if let Some(t) = task_id {
                    self.refresh_task(&t);
                }
            }
        }
    }
}
