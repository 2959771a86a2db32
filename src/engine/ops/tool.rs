//! Tool calls ([`ToolOp`]): `x-mcp-header`, the `outputSchema` check
//! ([`check_tool_result`]), the `-32020` re-list, 2025 and transparent tasks, and the
//! local task of a synchronous `callToolAsTask` answer.

use super::pages::Pager;
use super::{policy_for, with_meta, Ctx, Listing, Purpose, Step};
use crate::engine::actions::{Action, OpId, OpOptions, Output, TaskView};
use crate::engine::arguments::ToolArguments;
use crate::engine::call::{Call, CallInput, CallOutcome};
use crate::engine::config::ValidateOutput;
use crate::engine::shared::{Era, Owner, Shared};
use crate::engine::tools::OutputCheck;
use crate::error::json_object;
use crate::error::{sanitize, Error, ErrorKind, Result};
use crate::http::x_mcp_header::param_headers;
use crate::json::RawJson;
use crate::json::{Map, Value};
use crate::protocol::codes::HEADER_MISMATCH;
use crate::protocol::legacy::{decode_legacy_create_task_result, InitializeResult};
use crate::protocol::tasks::{decode_create_task_result, Task, TaskStatus};
use crate::time::{format_rfc3339, Millis};

use super::{Aborted, OpInput, Operation};

/// Checks a tool result's `structuredContent` against the tool's `outputSchema`
/// (spec `server/tools.mdx` "Output Schema": clients SHOULD validate). Error results
/// (`isError: true`) are not checked.
pub(crate) fn check_tool_result(sh: &mut Shared, check: &OutputCheck, raw: &RawJson) -> Result<()> {
    let mode = sh.cfg.validate_output;
    if mode == ValidateOutput::Off {
        return Ok(());
    }
    let schema = match check {
        OutputCheck::None => return Ok(()),
        OutputCheck::Unusable(reason) => {
            sh.push(Action::Warn {
                message: format!("outputSchema not checked: {reason}"),
            });
            return Ok(());
        }
        OutputCheck::Schema(s) => s.clone(),
    };
    let v: Value = crate::json::parse(raw.get())
        .map_err(|_| Error::invalid_result("tool result is not JSON"))?;
    if v.get("isError").and_then(Value::as_bool) == Some(true) {
        return Ok(());
    }
    let outcome = match v.get("structuredContent") {
        None => Err(Error::new(
            ErrorKind::OutputValidation,
            "the tool declares an outputSchema but the result has no structuredContent",
        )
        .with_data(json_object(vec![("path", "".into())]))),
        Some(sc) => schema.validate(sc),
    };
    match (outcome, mode) {
        (Ok(()), _) => Ok(()),
        (Err(e), ValidateOutput::Warn) => {
            sh.push(Action::Warn {
                message: e.message.clone(),
            });
            Ok(())
        }
        (Err(e), _) => Err(e),
    }
}

/// A tool call: `callTool` (a task is driven to its result) or `callToolAsTask`.
pub(crate) struct ToolOp {
    name: String,
    /// The arguments as the host gave them (a JSON object's text): parsed only where the
    /// client reads them (`x-mcp-header` parameters, the legacy eras).
    args: Option<ToolArguments>,
    as_task: bool,
    opts: OpOptions,
    phase: ToolPhase,
    relisted: bool,
    check: OutputCheck,
    task_id: Option<String>,
    wait_deadline: Option<Millis>,
    /// 2025 era: the server accepts task-augmented `tools/call`.
    legacy_tasks: Option<bool>,
    /// 2025 era: this call asked for a task (`params.task`).
    asked_task: bool,
}

enum ToolPhase {
    /// Learning the tool's `x-mcp-header` parameters and `outputSchema` first.
    Listing(Pager),
    Calling(Call),
    /// After `-32020`: re-list, then retry once with corrected headers.
    Relisting(Pager),
    /// Driving the task the server created.
    Waiting,
    Over,
}

impl ToolOp {
    /// The context is back online: a retry held while offline goes out (`Call::on_online`).
    pub(crate) fn on_online(&mut self, sh: &mut Shared, op: OpId) -> bool {
        match &mut self.phase {
            ToolPhase::Calling(c) => c.on_online(sh, &Owner::Op(op)),
            _ => false,
        }
    }

    pub(crate) fn start(
        cx: &mut Ctx,
        op: OpId,
        name: String,
        args: Option<ToolArguments>,
        as_task: bool,
        opts: OpOptions,
        legacy: Option<&InitializeResult>,
    ) -> (ToolOp, Option<Result<Output>>) {
        let mut t = ToolOp {
            name,
            args,
            as_task,
            opts,
            phase: ToolPhase::Over,
            relisted: false,
            check: OutputCheck::None,
            task_id: None,
            wait_deadline: None,
            legacy_tasks: legacy.map(InitializeResult::supports_tool_tasks),
            asked_task: false,
        };
        let owner = Owner::Op(op);
        // What the tool declares (x-mcp-header, outputSchema, 2025 taskSupport) is learned first.
        if !cx.sh.tools.filled && cx.sh.tools.get(&t.name).is_none() {
            let mut pager = Pager::new(
                Listing::Tools,
                OpOptions {
                    timeout_ms: t.opts.timeout_ms,
                    ..Default::default()
                },
            );
            match pager.request(cx.sh, cx.tasks, &owner, None) {
                None => {
                    t.phase = ToolPhase::Listing(pager);
                    return (t, None);
                }
                Some(_) => cx.sh.tools.filled = true,
            }
        }
        let r = t.call(cx, op);
        (t, r)
    }

    /// A modern tool call whose request `call` already sent (a plain call's short path,
    /// `engine::core::plain`): the state [`ToolOp::start`] leaves for a tool known to
    /// declare no `x-mcp-header` parameters and no `outputSchema`, called without
    /// `asTask`.
    pub(crate) fn calling(name: String, opts: OpOptions, call: Call) -> ToolOp {
        ToolOp {
            name,
            args: None,
            as_task: false,
            opts,
            phase: ToolPhase::Calling(call),
            relisted: false,
            check: OutputCheck::None,
            task_id: None,
            wait_deadline: None,
            legacy_tasks: None,
            asked_task: false,
        }
    }

    fn call(&mut self, cx: &mut Ctx, op: OpId) -> Option<Result<Output>> {
        // What the call needs of the tool's entry, borrowed: the entry holds the tool's
        // `outputSchema`, which a clone would copy on every call.
        let entry = cx.sh.tools.get(&self.name);
        let modern = cx.sh.era == Era::Modern;
        // The arguments become a `Value` only where the client reads them: a tool's
        // `x-mcp-header` parameters (most tools declare none), and the legacy eras, whose
        // requests are maps. Text a `Value` cannot read (a number beyond `f64`) is refused
        // there rather than sent as something else.
        let reads = !modern || entry.is_some_and(|e| !e.header_params.is_empty());
        let mut value: Option<Value> = None;
        if let (Some(a), true) = (&self.args, reads) {
            match a.to_value() {
                Ok(v) => value = Some(v),
                Err(e) => return Some(Err(e)),
            }
        }
        let mut headers = Vec::new();
        if let (Some(e), true) = (entry, modern) {
            match param_headers(&e.header_params, value.as_ref()) {
                Ok(h) => headers = h,
                Err(err) => return Some(Err(err)),
            }
        }
        let support = entry.and_then(|e| e.task_support.clone());
        // Rule 11: the outputSchema as it is when the tool is called.
        self.check = cx.sh.tools.output_check(&self.name);
        // Modern: the name goes outside the map (`Call::set_name_param`), which then stays
        // empty unless the host gave a `_meta`: no hash table is built for a call.
        let mut params = Map::new();
        if !modern {
            params.insert("name".into(), self.name.clone().into());
        }
        if let (Some(v), false) = (value, modern) {
            params.insert("arguments".into(), v);
            self.args = None;
        }
        // 2025-11-25 tasks: the client asks for a task (`params.task`) when the server and
        // the tool support it (2025 `basic/utilities/tasks.mdx` "Tool-Level Negotiation").
        // (`cfg!`: the modern-only build has no 2025 tasks; the branch folds away there.)
        if cfg!(feature = "legacy")
            && self.legacy_tasks == Some(true)
            && cx.sh.cfg.tasks_enabled()
            && matches!(support.as_deref(), Some("optional" | "required"))
        {
            let mut task = Map::new();
            if let Some(ttl) = self.opts.task_timeout_ms {
                task.insert("ttl".into(), ttl.into());
            }
            params.insert("task".into(), Value::Object(task));
            self.asked_task = true;
        }
        let policy = policy_for(cx.sh, &Purpose::CallTool, &self.opts);
        let mut call = Call::new("tools/call", with_meta(params, &self.opts), headers, policy);
        if modern {
            call.set_name_param(self.name.clone());
        }
        // Modern: the arguments move into the request as the host's JSON text (they may be
        // large); a retry after `-32020` takes them back (`Call::take_raw_param`).
        if let Some(a) = self.args.take() {
            call.set_raw_param("arguments", a);
        }
        // What goes to the host unread: no outputSchema to check, no task to make of it.
        call.host_result = !self.as_task
            && !self.asked_task
            && (cx.sh.cfg.validate_output == ValidateOutput::Off
                || !matches!(self.check, OutputCheck::Schema(_)));
        call.start(cx.sh, &Owner::Op(op));
        self.phase = ToolPhase::Calling(call);
        None
    }

    fn on_call(&mut self, cx: &mut Ctx, op: OpId, input: CallInput) -> Step {
        let owner = Owner::Op(op);
        match &mut self.phase {
            ToolPhase::Listing(p) => match p.handle(cx.sh, cx.tasks, &owner, input) {
                None => Step::Pending,
                Some(r) => {
                    // A failed listing is not fatal: the call goes out without what it would have told.
                    match r {
                        Ok(_) => cx.sh.tools.filled = true,
                        Err(e) => cx.sh.push(Action::Warn {
                            message: format!("tools/list failed: {}", e.message),
                        }),
                    }
                    to_step(self.call(cx, op))
                }
            },
            ToolPhase::Relisting(p) => match p.handle(cx.sh, cx.tasks, &owner, input) {
                None => Step::Pending,
                Some(_) => to_step(self.call(cx, op)),
            },
            ToolPhase::Calling(c) => {
                let Some(outcome) = c.handle(cx.sh, &owner, input) else {
                    return Step::Pending;
                };
                match outcome {
                    Ok(CallOutcome::Complete(raw))
                        if cfg!(feature = "legacy") && self.asked_task =>
                    {
                        // 2025: `{task: {...}}`, or a plain result if the server ignored the ask.
                        let v: Value = crate::json::parse(raw.get()).unwrap_or(Value::Null);
                        if v.get("task").is_some() {
                            return match decode_legacy_create_task_result(&raw) {
                                Ok(task) => self.on_task(cx, op, task),
                                Err(e) => {
                                    self.phase = ToolPhase::Over;
                                    Step::Done(Err(e))
                                }
                            };
                        }
                        self.asked_task = false;
                        if v.get("content").is_none() {
                            self.phase = ToolPhase::Over;
                            return Step::Done(Err(Error::invalid_result(
                                "a 2025 CreateTaskResult must carry a task object",
                            )));
                        }
                        self.on_call(cx, op, CallInput::Response(raw))
                    }
                    Ok(CallOutcome::Complete(raw)) => {
                        self.phase = ToolPhase::Over;
                        if let Err(e) = check_tool_result(cx.sh, &self.check, &raw) {
                            return Step::Done(Err(e));
                        }
                        if self.as_task {
                            return Step::Done(Ok(Output::Task(local_task(cx.sh, raw))));
                        }
                        Step::Done(Ok(Output::Raw(raw)))
                    }
                    Ok(CallOutcome::Task(raw)) => match decode_create_task_result(&raw) {
                        Err(e) => {
                            self.phase = ToolPhase::Over;
                            Step::Done(Err(e))
                        }
                        Ok(task) => self.on_task(cx, op, task),
                    },
                    Err(e)
                        if e.code == Some(HEADER_MISMATCH)
                            && !self.relisted
                            && cx.sh.era == Era::Modern =>
                    {
                        // Spec "Client Behavior": on HeaderMismatch re-fetch tools/list and retry.
                        self.relisted = true;
                        self.args = c.take_raw_param();
                        let mut pager = Pager::new(
                            Listing::Tools,
                            OpOptions {
                                no_cache: true,
                                ..Default::default()
                            },
                        );
                        match pager.request(cx.sh, cx.tasks, &owner, None) {
                            None => {
                                self.phase = ToolPhase::Relisting(pager);
                                Step::Pending
                            }
                            Some(_) => to_step(self.call(cx, op)),
                        }
                    }
                    Err(e) => {
                        self.phase = ToolPhase::Over;
                        Step::Done(Err(e))
                    }
                }
            }
            ToolPhase::Waiting | ToolPhase::Over => Step::Pending,
        }
    }

    fn on_task(&mut self, cx: &mut Ctx, op: OpId, task: Task) -> Step {
        let legacy = self.asked_task;
        cx.tasks.register(&task, self.check.clone(), legacy);
        cx.tasks.created(cx.sh, &task.task_id, &self.name);
        if self.as_task {
            self.phase = ToolPhase::Over;
            return Step::Done(Ok(Output::Task(TaskView {
                task,
                input_requests: None,
                result: None,
                error: None,
                local: false,
            })));
        }
        self.task_id = Some(task.task_id.clone());
        self.phase = ToolPhase::Waiting;
        self.wait_deadline = self
            .opts
            .task_timeout_ms
            .map(|ms| cx.sh.now.saturating_add(ms));
        if let Some(ms) = self
            .opts
            .max_total_timeout_ms
            .or(cx.sh.cfg.max_total_timeout_ms)
        {
            let hard = cx.sh.now.saturating_add(ms);
            self.wait_deadline = Some(self.wait_deadline.map_or(hard, |d| d.min(hard)));
        }
        let notes = cx.tasks.attach(
            cx.sh,
            Some(&task),
            &task.task_id,
            op,
            self.wait_deadline,
            legacy,
        );
        cx.notes.extend(notes);
        Step::Pending
    }

    /// The outcome of the task, for a transparent call: the `CallToolResult`.
    fn on_task_final(&mut self, r: Result<TaskView>) -> Result<Output> {
        self.phase = ToolPhase::Over;
        let v = r?;
        match v.result {
            Some(raw) => Ok(Output::Raw(raw)),
            None => Err(Error::invalid_result("task completed without a result")),
        }
    }

    fn on_timer(&mut self, cx: &mut Ctx, op: OpId) -> Step {
        match &self.phase {
            ToolPhase::Waiting => {
                if self.wait_deadline.is_some_and(|d| cx.sh.now >= d) {
                    let id = self.task_id.clone().unwrap_or_default();
                    cx.tasks.detach(cx.sh, &id, op);
                    self.phase = ToolPhase::Over;
                    // The task keeps running; the error names it so the host can resume.
                    let mut data = vec![("taskId", Value::from(id.as_str()))];
                    if let Some(t) = cx.tasks.last(&id) {
                        data.push(("task", Value::Object(t.to_value())));
                    }
                    let data = json_object(data);
                    return Step::Done(Err(Error::timeout(format!(
                        "tool \"{}\" did not finish in time; its task \"{}\" keeps running",
                        sanitize(&self.name, 100),
                        sanitize(&id, 100)
                    ))
                    .with_data(data)));
                }
                Step::Pending
            }
            _ => self.on_call(cx, op, CallInput::Timer),
        }
    }
}

impl Operation for ToolOp {
    fn handle(&mut self, cx: &mut Ctx, id: OpId, input: OpInput) -> Step {
        match input {
            OpInput::Call(CallInput::Timer) => self.on_timer(cx, id),
            OpInput::Call(input) => self.on_call(cx, id, input),
            OpInput::TaskFinal(r) => Step::Done(self.on_task_final(r)),
            OpInput::Notification(..) | OpInput::Authorized(_) => Step::Pending,
        }
    }

    fn deadline(&self) -> Option<Millis> {
        match &self.phase {
            ToolPhase::Listing(p) | ToolPhase::Relisting(p) => p.deadline(),
            ToolPhase::Calling(c) => c.deadline(),
            ToolPhase::Waiting => self.wait_deadline,
            ToolPhase::Over => None,
        }
    }

    /// Aborting is cancelling (as closing the stream cancels a request): a task this
    /// call created is cancelled with `tasks/cancel`.
    fn abort(&mut self, cx: &mut Ctx, id: OpId) -> Aborted {
        let phase = std::mem::replace(&mut self.phase, ToolPhase::Over);
        match phase {
            ToolPhase::Listing(mut p) | ToolPhase::Relisting(mut p) => p.cancel(cx.sh),
            ToolPhase::Calling(mut c) => c.cancel(cx.sh),
            ToolPhase::Waiting => {
                if let Some(task) = &self.task_id {
                    cx.tasks.detach(cx.sh, task, id);
                    return Aborted::CancelTask(task.clone());
                }
            }
            ToolPhase::Over => {}
        }
        Aborted::Quiet
    }

    /// The task this call waits on, if any.
    fn task(&self) -> Option<&str> {
        self.task_id.as_deref()
    }
}

fn to_step(r: Option<Result<Output>>) -> Step {
    match r {
        None => Step::Pending,
        Some(r) => Step::Done(r),
    }
}

/// A task made locally from a synchronous answer to `callToolAsTask` (rule 21).
fn local_task(sh: &mut Shared, raw: RawJson) -> TaskView {
    let now = format_rfc3339(sh.now as i64);
    let id = sh.next_id();
    TaskView {
        task: Task {
            task_id: format!("local-{id}"),
            status: TaskStatus::Completed,
            status_message: None,
            created_at: now.clone(),
            created_at_ms: Some(sh.now as i64),
            last_updated_at: now,
            last_updated_at_ms: Some(sh.now as i64),
            ttl_ms: None,
            poll_interval_ms: None,
        },
        input_requests: None,
        result: Some(raw),
        error: None,
        local: true,
    }
}
