//! Starting operations. Each public method checks its arguments, then either starts the
//! operation or parks it until the session is ready.

use super::Core;
use crate::engine::actions::{OpId, OpOptions, Output, TaskView};
use crate::engine::arguments::ToolArguments;
use crate::engine::listen::{check_filter, ListenOp};
use crate::engine::ops::{
    Aborted, Ctx, Listing, Op, Operation, Pager, PagesOp, Purpose, RpcOp, Step, ToolOp, WaitOp,
    Want,
};
use crate::engine::session::{era_error, FirstRequest};
use crate::engine::shared::{Era, Owner};
use crate::engine::tools::OutputCheck;
use crate::error::{sanitize, Error, ErrorKind, Result};
use crate::json::{Map, Value};
use crate::protocol::capabilities::server_tasks;
use crate::protocol::jsonrpc::RequestId;
use crate::protocol::TASKS_EXTENSION;
use crate::time::Millis;

/// A task an operation names: its id and, when the host has a handle, what it knows.
#[derive(Clone, Debug)]
pub struct TaskRef {
    pub task_id: String,
    pub seed: Option<TaskView>,
}

/// An operation as started by the host, kept until it can run.
pub(super) enum Start {
    Discover(OpOptions),
    Request {
        purpose: Purpose,
        params: Map,
        opts: OpOptions,
    },
    ListAll {
        listing: Listing,
        opts: OpOptions,
    },
    CallTool {
        name: String,
        args: Option<ToolArguments>,
        as_task: bool,
        opts: OpOptions,
    },
    TaskRpc {
        t: TaskRef,
        purpose: Purpose,
        extra: Option<Value>,
        opts: OpOptions,
    },
    Wait {
        t: TaskRef,
        want: Want,
        deadline: Option<Millis>,
    },
    Listen {
        filter: Map,
    },
    ListTasks {
        cursor: Option<String>,
        opts: OpOptions,
    },
}

impl Core {
    /// Starts an operation now or parks it until the session is ready.
    fn begin(&mut self, s: Start, now: Millis) -> OpId {
        let id = self.new_op(now);
        if self.session.is_ready() {
            self.run(id, s);
        } else {
            // The operation that starts detection may be its probe (`session::detect`).
            let first = match (&s, self.session.is_idle()) {
                (
                    Start::Request {
                        purpose,
                        params,
                        opts,
                    },
                    true,
                ) => FirstRequest::of(id, purpose, params, opts),
                (Start::Discover(opts), true) => {
                    FirstRequest::of(id, &Purpose::Discover, &Map::new(), opts)
                }
                _ => None,
            };
            self.park(id, s);
            self.session.start(&mut self.sh, first);
            self.refresh_session();
        }
        id
    }

    fn fail_now(&mut self, e: Error, now: Millis) -> OpId {
        let id = self.new_op(now);
        self.done(id, Err(e));
        id
    }

    /// Runs a started operation (the session is ready).
    pub(super) fn run(&mut self, id: OpId, s: Start) {
        match s {
            Start::Discover(opts) => {
                if let Some(init) = self
                    .session
                    .init
                    .as_ref()
                    .filter(|_| self.sh.era != Era::Modern)
                {
                    // Legacy eras have no server/discover: `initialize` said it all.
                    let v = init.as_discover();
                    self.done(id, Ok(Output::Value(v)));
                    return;
                }
                self.start_rpc(id, Purpose::Discover, Map::new(), &opts)
            }
            Start::Request {
                purpose,
                params,
                opts,
            } => self.start_rpc(id, purpose, params, &opts),
            Start::ListAll { listing, opts } => {
                let mut pager = Pager::new(listing, opts);
                match pager.request(&mut self.sh, &mut self.tasks, &Owner::Op(id), None) {
                    Some(r) => self.done(id, r.map(|items| Output::Value(Value::Array(items)))),
                    None => self.settle(
                        id,
                        Box::new(Op::Pages(PagesOp { pager })),
                        Step::Pending,
                        Vec::new(),
                    ),
                }
            }
            Start::CallTool {
                name,
                args,
                as_task,
                opts,
            } => {
                let mut cx = Ctx::new(&mut self.sh, &mut self.tasks);
                let legacy = self
                    .session
                    .init
                    .as_ref()
                    .filter(|_| cx.sh.era != Era::Modern);
                let (op, immediate) = ToolOp::start(&mut cx, id, name, args, as_task, opts, legacy);
                let notes = cx.notes;
                let step = match immediate {
                    Some(r) => Step::Done(r),
                    None => Step::Pending,
                };
                self.settle(id, Box::new(Op::Tool(op)), step, notes);
            }
            Start::TaskRpc {
                t,
                purpose,
                extra,
                opts,
            } => {
                if let Err(e) = self.task_preflight(&t) {
                    self.done(id, Err(e));
                    return;
                }
                if matches!(purpose, Purpose::TaskUpdate(_)) && self.sh.era != Era::Modern {
                    self.done(id, Err(era_error("tasks/update exists only with the 2026-07-28 tasks extension; 2025 tasks take input through server requests")));
                    return;
                }
                // What the host's handle knows (createdAt, ttlMs) tells "expired" from
                // "not found" when the server answers -32602 (rule 14).
                if let Some(seed) = t.seed.as_ref().filter(|s| s.task.task_id == t.task_id) {
                    self.tasks
                        .register(&seed.task, OutputCheck::None, self.sh.era != Era::Modern);
                }
                let mut params = Map::new();
                params.insert("taskId".into(), t.task_id.clone().into());
                if let Some(v) = extra {
                    params.insert("inputResponses".into(), v);
                }
                self.start_rpc(id, purpose, params, &opts)
            }
            Start::Wait { t, want, deadline } => {
                if let Err(e) = self.task_preflight(&t) {
                    self.done(id, Err(e));
                    return;
                }
                let w = WaitOp {
                    task_id: t.task_id.clone(),
                    want,
                    deadline,
                };
                if deadline.is_some_and(|d| d <= self.sh.now) {
                    let e = w.timeout_error(&self.tasks);
                    self.done(id, Err(e));
                    return;
                }
                let seed = t.seed.as_ref().map(|s| &s.task);
                let mut cx = Ctx::new(&mut self.sh, &mut self.tasks);
                w.attach(&mut cx, id, seed);
                let notes = cx.notes;
                self.settle(id, Box::new(Op::Wait(w)), Step::Pending, notes);
                self.refresh_task(&t.task_id);
            }
            Start::Listen { filter } => {
                if self.sh.era != Era::Modern {
                    self.done(
                        id,
                        Err(era_error(
                            "subscriptions/listen exists only in 2026-07-28; this server's notifications reach onNotification",
                        )),
                    );
                    return;
                }
                let mut cx = Ctx::new(&mut self.sh, &mut self.tasks);
                let l = ListenOp::start(&mut cx, id, filter);
                let notes = cx.notes;
                self.settle(id, Box::new(Op::Listen(l)), Step::Pending, notes);
            }
            Start::ListTasks { cursor, opts } => {
                if self.sh.era == Era::Modern {
                    self.done(
                        id,
                        Err(era_error(
                            "tasks/list does not exist in 2026-07-28 (tasks cannot be enumerated)",
                        )),
                    );
                    return;
                }
                let mut p = Map::new();
                if let Some(c) = cursor {
                    p.insert("cursor".into(), c.into());
                }
                self.start_rpc(id, Purpose::TaskList, p, &opts)
            }
        }
    }

    fn start_rpc(&mut self, id: OpId, purpose: Purpose, params: Map, opts: &OpOptions) {
        let mut cx = Ctx::new(&mut self.sh, &mut self.tasks);
        let (op, immediate) = RpcOp::start(&mut cx, id, purpose, params, Vec::new(), opts);
        let notes = cx.notes;
        match (op, immediate) {
            (_, Some(r)) => self.finish(id, r, notes),
            (Some(op), None) => self.settle(id, Box::new(Op::Rpc(op)), Step::Pending, notes),
            (None, None) => self.finish(
                id,
                Err(Error::invalid_result("request could not start")),
                notes,
            ),
        }
    }

    /// `server/discover` (legacy eras: what `initialize` said, in the same shape).
    pub fn discover(&mut self, opts: &OpOptions, now: Millis) -> OpId {
        self.begin(Start::Discover(opts.clone()), now)
    }

    /// A single request: one page of a list, `resources/read`, `prompts/get`,
    /// `completion/complete` ([`Purpose::is_single_request`]; the other purposes have their
    /// own start functions and are refused here). `crate::protocol::requests` builds the
    /// params from the host's arguments.
    pub fn request(
        &mut self,
        purpose: Purpose,
        params: Map,
        opts: &OpOptions,
        now: Millis,
    ) -> OpId {
        if !purpose.is_single_request() {
            return self.fail_now(
                Error::config(format!("unsupported method {}", purpose.method())),
                now,
            );
        }
        self.begin(
            Start::Request {
                purpose,
                params,
                opts: opts.clone(),
            },
            now,
        )
    }

    /// Every page of a list, items concatenated.
    pub fn list_all(&mut self, listing: Listing, opts: &OpOptions, now: Millis) -> OpId {
        self.begin(
            Start::ListAll {
                listing,
                opts: opts.clone(),
            },
            now,
        )
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
        self.call_tool_json(name, args.map(|a| a.to_string()), as_task, opts, now)
    }

    /// [`Core::call_tool`] with the arguments as JSON text (`null`: none), as a host gives
    /// them (`JSON.stringify`): they go into the request as they are (the text itself, not
    /// a copy), without becoming a `Value` and back, except where the client reads them
    /// (`x-mcp-header` parameters, the legacy eras: `ToolOp::call`).
    pub fn call_tool_json(
        &mut self,
        name: &str,
        args: Option<String>,
        as_task: bool,
        opts: &OpOptions,
        now: Millis,
    ) -> OpId {
        match args.map(ToolArguments::parse).transpose() {
            Ok(a) => self.call_tool_args(name, a.flatten(), as_task, opts, now),
            Err(e) => self.fail_now(e, now),
        }
    }

    /// [`Core::call_tool_json`] with the arguments' text already checked ([`ToolArguments`]).
    pub fn call_tool_args(
        &mut self,
        name: &str,
        args: Option<ToolArguments>,
        as_task: bool,
        opts: &OpOptions,
        now: Millis,
    ) -> OpId {
        if name.is_empty() {
            return self.fail_now(Error::config("tool name must not be empty"), now);
        }
        let args = if as_task {
            if let Err(e) = self.tasks_available(false) {
                return self.fail_now(e, now);
            }
            args
        } else {
            match self.start_plain(name, args, opts, now) {
                Ok(op) => return op,
                Err(args) => args,
            }
        };
        self.begin(
            Start::CallTool {
                name: name.to_string(),
                args,
                as_task,
                opts: opts.clone(),
            },
            now,
        )
    }

    /// Rule 19: task operations need the declared extension, and a server that did not
    /// say (in `server/discover`, or `initialize` for 2025 servers) that it lacks it.
    fn tasks_available(&self, check_server: bool) -> Result<()> {
        if !self.sh.cfg.tasks_enabled() {
            return Err(Error::new(
                ErrorKind::Capability,
                format!("the {TASKS_EXTENSION} extension is not declared (set extensions: ['{TASKS_EXTENSION}'])"),
            ));
        }
        if check_server {
            if let Some(caps) = &self.sh.server_capabilities {
                if !server_tasks(caps, self.sh.era == Era::Modern).declared {
                    return Err(Error::new(
                        ErrorKind::Capability,
                        "the server does not support tasks (its capabilities say so)".to_string(),
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
                    "task \"{}\" is local: the server answered at once, there is nothing to ask it",
                    sanitize(&t.task_id, 100)
                ),
            ));
        }
        if t.task_id.is_empty() {
            return Err(Error::config("task id must not be empty"));
        }
        self.tasks_available(true)
    }

    fn task_op(
        &mut self,
        t: &TaskRef,
        purpose: Purpose,
        extra: Option<Value>,
        opts: &OpOptions,
        now: Millis,
    ) -> OpId {
        // Checks that do not depend on the server run at once, sending nothing.
        if t.seed.as_ref().is_some_and(|s| s.local)
            || t.task_id.is_empty()
            || !self.sh.cfg.tasks_enabled()
        {
            if let Err(e) = self.task_preflight(t) {
                return self.fail_now(e, now);
            }
        }
        self.begin(
            Start::TaskRpc {
                t: t.clone(),
                purpose,
                extra,
                opts: opts.clone(),
            },
            now,
        )
    }

    /// `tasks/get`: the task's current DetailedTask.
    pub fn get_task(&mut self, t: &TaskRef, opts: &OpOptions, now: Millis) -> OpId {
        self.task_op(t, Purpose::TaskGet(t.task_id.clone()), None, opts, now)
    }

    /// `tasks/update`: answers for a task's input requests.
    pub fn update_task(
        &mut self,
        t: &TaskRef,
        responses: Map,
        opts: &OpOptions,
        now: Millis,
    ) -> OpId {
        self.task_op(
            t,
            Purpose::TaskUpdate(t.task_id.clone()),
            Some(Value::Object(responses)),
            opts,
            now,
        )
    }

    /// `tasks/cancel` (an acknowledgement only; never `notifications/cancelled`: rule 17).
    pub fn cancel_task(&mut self, t: &TaskRef, opts: &OpOptions, now: Millis) -> OpId {
        self.task_op(t, Purpose::TaskCancel(t.task_id.clone()), None, opts, now)
    }

    /// `tasks/list` (2025-11-25 servers only; 2026-07-28 has no way to enumerate tasks).
    pub fn list_tasks(&mut self, cursor: Option<String>, opts: &OpOptions, now: Millis) -> OpId {
        self.begin(
            Start::ListTasks {
                cursor,
                opts: opts.clone(),
            },
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
        if t.task_id.is_empty() || !self.sh.cfg.tasks_enabled() {
            if let Err(e) = self.task_preflight(&t) {
                return self.fail_now(e, now);
            }
        }
        self.sh.now = self.sh.now.max(now);
        let mut deadline = opts.timeout_ms.map(|ms| self.sh.now.saturating_add(ms));
        if let Some(ms) = opts.max_total_timeout_ms {
            let hard = self.sh.now.saturating_add(ms);
            deadline = Some(deadline.map_or(hard, |d| d.min(hard)));
        }
        if deadline.is_some_and(|d| d <= self.sh.now) {
            let w = WaitOp {
                task_id: t.task_id.clone(),
                want,
                deadline,
            };
            let e = w.timeout_error(&self.tasks);
            return self.fail_now(e, now);
        }
        self.begin(Start::Wait { t, want, deadline }, now)
    }

    /// `subscriptions/listen` (2026-07-28 only).
    pub fn listen(&mut self, filter: &Value, now: Millis) -> OpId {
        let filter = match check_filter(filter, self.sh.cfg.tasks_enabled()) {
            Ok(f) => f,
            Err(e) => return self.fail_now(e, now),
        };
        self.begin(Start::Listen { filter }, now)
    }

    /// The host aborted an operation (its signal fired). Aborting a transparent task
    /// call cancels the task (`tasks/cancel`), as closing a stream cancels a request. In
    /// legacy eras an in-flight request gets `notifications/cancelled`.
    pub fn abort(&mut self, op: OpId, reason: Error, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        self.unplain_op(op);
        if let Some(i) = self.parked.iter().position(|p| p.0 == op) {
            self.parked.remove(i);
            self.done(op, Err(reason));
            return;
        }
        let Some(mut o) = self.ops.remove(&op) else {
            return;
        };
        if self.sh.era != Era::Modern {
            self.notify_cancelled(&Owner::Op(op), &reason.message);
        }
        let mut cx = Ctx::new(&mut self.sh, &mut self.tasks);
        let aborted = o.abort(&mut cx, op);
        let notes = cx.notes;
        self.settle(op, o, Step::Done(Err(reason)), notes);
        match aborted {
            Aborted::Quiet => {}
            // The driver may have stopped polling: drop its timer (rule 24).
            Aborted::Detached(task_id) => self.refresh_task(&task_id),
            Aborted::CancelTask(task_id) => {
                self.refresh_task(&task_id);
                let t = TaskRef {
                    task_id,
                    seed: None,
                };
                self.cancel_task(&t, &OpOptions::default(), now);
            }
        }
    }

    /// Legacy eras: `notifications/cancelled` for the requests `owner` has in flight
    /// (2025-11-25 `basic/utilities/cancellation`); 2026-07-28 cancels by closing the stream.
    fn notify_cancelled(&mut self, owner: &Owner, reason: &str) {
        let ids: Vec<RequestId> = self.sh.xs.unanswered(owner);
        for id in ids {
            let mut p = Map::new();
            p.insert("requestId".into(), id.to_value());
            p.insert("reason".into(), sanitize(reason, 200).into());
            self.session
                .send_notification(&mut self.sh, "notifications/cancelled", Some(&p));
        }
    }
}
