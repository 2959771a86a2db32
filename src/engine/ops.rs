//! The operations a host starts: single requests (with their post-processing: cache,
//! tool checks, task payloads), paginated listings, tool calls (with `x-mcp-header`,
//! output validation, the `-32020` re-list, and transparent tasks) and task waits.

use crate::engine::actions::{Action, OpId, OpOptions, Output, TaskView};
use crate::engine::cache::is_cacheable;
use crate::engine::call::{Call, CallInput, CallOutcome, CallPolicy};
use crate::engine::config::ValidateOutput;
use crate::engine::listen::ListenOp;
use crate::engine::shared::{Era, Owner, Shared};
use crate::engine::task::{map_task_error, Note, TaskBook};
use crate::engine::tools::OutputCheck;
use crate::error::json_object;
use crate::error::{sanitize, Error, ErrorKind, Result};
use crate::http::request::META_SERVER_INFO;
use crate::http::x_mcp_header::param_headers;
use crate::protocol::codes::{HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_CAPABILITY};
use crate::protocol::legacy::{
    decode_legacy_create_task_result, decode_legacy_task_value, InitializeResult,
};
use crate::protocol::tasks::{
    decode_create_task_result, decode_detailed_task, DetailedTask, Task, TaskStatus,
};
use crate::time::{format_rfc3339, Millis};
use rustc_hash::FxHashSet;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// What handling an input did to an operation.
pub enum Step {
    Pending,
    Done(Result<Output>),
}

/// What the operations can reach.
pub struct Ctx<'a> {
    pub sh: &'a mut Shared,
    pub tasks: &'a mut TaskBook,
    /// Notes from task drivers for the core to deliver to waiters.
    pub notes: Vec<Note>,
}

/// Why a single request was made: decides its post-processing.
#[derive(Clone, Debug)]
pub enum Purpose {
    Discover,
    ToolsList,
    /// `prompts/list`, `resources/list`, `resources/templates/list`.
    List,
    Read,
    Prompt,
    Complete,
    TaskGet(String),
    TaskUpdate(String),
    TaskCancel(String),
}

/// An operation in flight.
pub enum Op {
    Rpc(RpcOp),
    Pages(PagesOp),
    Tool(ToolOp),
    Wait(WaitOp),
    Listen(ListenOp),
}

/// The policy of a host-started request.
pub fn policy_for(sh: &Shared, method: &str, opts: &OpOptions) -> CallPolicy {
    CallPolicy {
        allow_input: matches!(method, "tools/call" | "prompts/get" | "resources/read"),
        allow_task: method == "tools/call" && sh.cfg.tasks_enabled() && sh.era == Era::Modern,
        timeout_ms: opts.timeout_ms.unwrap_or(sh.cfg.request_timeout_ms),
        reset_on_progress: opts.reset_timeout_on_progress,
        hard_deadline: opts
            .max_total_timeout_ms
            .or(sh.cfg.max_total_timeout_ms)
            .map(|ms| sh.now.saturating_add(ms)),
        progress: opts.progress,
        log_level: opts.log_level.clone(),
        reissue_on_drop: true,
    }
}

fn with_meta(mut params: Map<String, Value>, opts: &OpOptions) -> Map<String, Value> {
    if let Some(m) = &opts.meta {
        params.insert("_meta".into(), Value::Object(m.clone()));
    }
    params
}

/// The cache key of a request: the params that affect the result.
fn cache_key(method: &str, params: &Map<String, Value>) -> (String, Option<String>) {
    match method {
        "resources/read" => {
            let uri = params
                .get("uri")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            (uri.clone(), Some(uri))
        }
        _ => (
            params
                .get("cursor")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            None,
        ),
    }
}

/// Checks a tool result's `structuredContent` against the tool's `outputSchema`
/// (spec `server/tools.mdx` "Output Schema": clients SHOULD validate). Error results
/// (`isError: true`) are not checked.
pub fn check_tool_result(sh: &mut Shared, check: &OutputCheck, raw: &RawValue) -> Result<()> {
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
    let v: Value = serde_json::from_str(raw.get())
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

/// Post-processing of a complete result.
fn finish_rpc(
    sh: &mut Shared,
    tasks: &mut TaskBook,
    purpose: &Purpose,
    raw: Box<RawValue>,
) -> Result<Output> {
    match purpose {
        Purpose::Discover => {
            let Ok(Value::Object(mut m)) = serde_json::from_str::<Value>(raw.get()) else {
                return Err(Error::invalid_result(
                    "server/discover result is not an object",
                ));
            };
            match m.get("supportedVersions") {
                Some(Value::Array(a)) if a.iter().all(Value::is_string) => {}
                _ => {
                    return Err(Error::invalid_result(
                        "server/discover result has no supportedVersions list",
                    ))
                }
            }
            match m.get("capabilities") {
                Some(c @ Value::Object(_)) => sh.server_capabilities = Some(c.clone()),
                _ => {
                    return Err(Error::invalid_result(
                        "server/discover result has no capabilities object",
                    ))
                }
            }
            if let Some(info) = m
                .get("_meta")
                .and_then(|x| x.get(META_SERVER_INFO))
                .cloned()
            {
                m.entry("serverInfo").or_insert(info);
            }
            Ok(Output::Value(Value::Object(m)))
        }
        Purpose::ToolsList => {
            let mut warnings = Vec::new();
            let page = sh
                .tools
                .ingest_page(&raw, sh.era == Era::Modern, &mut warnings)?;
            for w in warnings {
                sh.push(Action::Warn { message: w });
            }
            Ok(Output::Value(page))
        }
        Purpose::List | Purpose::Read | Purpose::Prompt | Purpose::Complete => {
            if !raw.get().trim_start().starts_with('{') {
                return Err(Error::invalid_result("result is not a JSON object"));
            }
            Ok(Output::Raw(raw))
        }
        Purpose::TaskGet(id) => {
            let dt = if sh.era == Era::Modern {
                decode_detailed_task(&raw, Some(id), false)?
            } else {
                let v: Value = serde_json::from_str(raw.get())
                    .map_err(|_| Error::invalid_result("tasks/get result is not JSON"))?;
                let task = decode_legacy_task_value(&v)?;
                if &task.task_id != id {
                    return Err(Error::invalid_result("tasks/get answered another task"));
                }
                DetailedTask {
                    task,
                    input_requests: Vec::new(),
                    result: None,
                    error: None,
                }
            };
            let input_requests = (dt.task.status == TaskStatus::InputRequired).then(|| {
                let v: Value = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
                v.get("inputRequests").cloned().unwrap_or(Value::Null)
            });
            let _ = tasks;
            Ok(Output::Task(TaskView {
                task: dt.task,
                input_requests,
                result: dt.result,
                error: dt.error,
                local: false,
            }))
        }
        Purpose::TaskUpdate(_) | Purpose::TaskCancel(_) => Ok(Output::Empty),
    }
}

/// A single request.
pub struct RpcOp {
    purpose: Purpose,
    call: Call,
    cache: Option<(String, Option<String>)>,
}

impl RpcOp {
    /// Starts a request; answers from the cache at once when it can.
    pub fn start(
        cx: &mut Ctx,
        op: OpId,
        purpose: Purpose,
        method: &str,
        params: Map<String, Value>,
        extra_headers: Vec<(String, String)>,
        opts: &OpOptions,
    ) -> (Option<RpcOp>, Option<Result<Output>>) {
        let cache = is_cacheable(method).then(|| cache_key(method, &params));
        if let (Some((key, _)), false) = (&cache, opts.no_cache) {
            let auth = cx.sh.cfg.authorization().map(str::to_string);
            if let Some(raw) = cx.sh.cache.get(method, key, auth.as_deref(), cx.sh.now) {
                return (None, Some(finish_rpc(cx.sh, cx.tasks, &purpose, raw)));
            }
        }
        let policy = policy_for(cx.sh, method, opts);
        let mut call = Call::new(method, with_meta(params, opts), extra_headers, policy);
        call.start(cx.sh, &Owner::Op(op));
        (
            Some(RpcOp {
                purpose,
                call,
                cache,
            }),
            None,
        )
    }

    pub fn deadline(&self) -> Option<Millis> {
        self.call.deadline()
    }

    pub fn handle(&mut self, cx: &mut Ctx, op: OpId, input: CallInput) -> Step {
        let Some(outcome) = self.call.handle(cx.sh, &Owner::Op(op), input) else {
            return Step::Pending;
        };
        Step::Done(match outcome {
            Ok(CallOutcome::Complete(raw)) => {
                if let Some((key, uri)) = &self.cache {
                    let auth = cx.sh.cfg.authorization().map(str::to_string);
                    let now = cx.sh.now;
                    // MRTR retries are not cacheable (their answers depend on the input given).
                    if self.call.params().get("inputResponses").is_none() {
                        cx.sh.cache.put(
                            &self.call.method,
                            key,
                            uri.as_deref(),
                            auth.as_deref(),
                            &raw,
                            now,
                        );
                    }
                }
                finish_rpc(cx.sh, cx.tasks, &self.purpose, raw)
            }
            Ok(CallOutcome::Task(_)) => Err(Error::invalid_result("unexpected task result")),
            Err(e) => Err(match &self.purpose {
                Purpose::TaskGet(id) | Purpose::TaskUpdate(id) | Purpose::TaskCancel(id) => {
                    let e = map_task_error(e, id, cx.tasks.last(id), cx.sh.now);
                    if e.code == Some(MISSING_REQUIRED_CLIENT_CAPABILITY) {
                        e.with_kind(ErrorKind::MissingRequiredClientCapability)
                    } else {
                        e
                    }
                }
                _ => e,
            }),
        })
    }

    pub fn cancel(&mut self, cx: &mut Ctx) {
        self.call.cancel(cx.sh);
    }
}

/// Follows `nextCursor` through every page of a list.
pub struct Pager {
    method: String,
    key: &'static str,
    items: Vec<Value>,
    seen: FxHashSet<String>,
    call: Option<Call>,
    opts: OpOptions,
    pages: u32,
}

/// Pages followed at most by one listing.
const MAX_PAGES: u32 = 10_000;

impl Pager {
    pub fn new(method: &str, opts: OpOptions) -> Pager {
        let key = match method {
            "tools/list" => "tools",
            "prompts/list" => "prompts",
            "resources/list" => "resources",
            "resources/templates/list" => "resourceTemplates",
            _ => "items",
        };
        Pager {
            method: method.to_string(),
            key,
            items: Vec::new(),
            seen: FxHashSet::default(),
            call: None,
            opts,
            pages: 0,
        }
    }

    fn purpose(&self) -> Purpose {
        if self.method == "tools/list" {
            Purpose::ToolsList
        } else {
            Purpose::List
        }
    }

    /// Takes one page; returns the cursor of the next one, or `None` at the end.
    fn take_page(&mut self, out: Output) -> Result<Option<String>> {
        let v = out.to_value();
        let Some(Value::Array(items)) = v.get(self.key) else {
            return Err(Error::invalid_result(format!(
                "{} result has no {} array",
                self.method, self.key
            )));
        };
        self.items.extend(items.iter().cloned());
        self.pages += 1;
        match v.get("nextCursor") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(c)) => {
                if !self.seen.insert(c.clone()) || self.pages >= MAX_PAGES {
                    return Err(Error::invalid_result(format!(
                        "{} pagination does not end (cursor \"{}\" seen again)",
                        self.method,
                        sanitize(c, 60)
                    )));
                }
                Ok(Some(c.clone()))
            }
            Some(_) => Err(Error::invalid_result("nextCursor is not a string")),
        }
    }

    /// Requests pages starting at `cursor`, serving cached pages at once.
    pub fn request(
        &mut self,
        sh: &mut Shared,
        tasks: &mut TaskBook,
        owner: &Owner,
        mut cursor: Option<String>,
    ) -> Option<Result<Vec<Value>>> {
        loop {
            let mut params = Map::new();
            if let Some(c) = &cursor {
                params.insert("cursor".into(), c.clone().into());
            }
            if !self.opts.no_cache {
                let auth = sh.cfg.authorization().map(str::to_string);
                let key = cursor.clone().unwrap_or_default();
                if let Some(raw) = sh.cache.get(&self.method, &key, auth.as_deref(), sh.now) {
                    let purpose = self.purpose();
                    match finish_rpc(sh, tasks, &purpose, raw).and_then(|o| self.take_page(o)) {
                        Ok(Some(next)) => {
                            cursor = Some(next);
                            continue;
                        }
                        Ok(None) => return Some(Ok(std::mem::take(&mut self.items))),
                        Err(e) => return Some(Err(e)),
                    }
                }
            }
            let policy = policy_for(sh, &self.method, &self.opts);
            let mut call = Call::new(
                &self.method,
                with_meta(params, &self.opts),
                Vec::new(),
                policy,
            );
            call.start(sh, owner);
            self.call = Some(call);
            return None;
        }
    }

    pub fn handle(
        &mut self,
        sh: &mut Shared,
        tasks: &mut TaskBook,
        owner: &Owner,
        input: CallInput,
    ) -> Option<Result<Vec<Value>>> {
        let call = self.call.as_mut()?;
        let outcome = call.handle(sh, owner, input)?;
        let call = self.call.take()?;
        let raw = match outcome {
            Ok(CallOutcome::Complete(raw)) => raw,
            Ok(CallOutcome::Task(_)) => {
                return Some(Err(Error::invalid_result("unexpected task result")))
            }
            Err(e) => return Some(Err(e)),
        };
        let key = call
            .params()
            .get("cursor")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let auth = sh.cfg.authorization().map(str::to_string);
        let now = sh.now;
        sh.cache
            .put(&self.method, &key, None, auth.as_deref(), &raw, now);
        let purpose = self.purpose();
        match finish_rpc(sh, tasks, &purpose, raw).and_then(|o| self.take_page(o)) {
            Ok(Some(next)) => self.request(sh, tasks, owner, Some(next)),
            Ok(None) => Some(Ok(std::mem::take(&mut self.items))),
            Err(e) => Some(Err(e)),
        }
    }

    pub fn deadline(&self) -> Option<Millis> {
        self.call.as_ref().and_then(Call::deadline)
    }

    pub fn cancel(&mut self, sh: &mut Shared) {
        if let Some(mut c) = self.call.take() {
            c.cancel(sh);
        }
    }
}

/// `listAll*`.
pub struct PagesOp {
    pub pager: Pager,
}

/// A tool call: `callTool` (a task is driven to its result) or `callToolAsTask`.
pub struct ToolOp {
    name: String,
    args: Option<Value>,
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
    pub fn start(
        cx: &mut Ctx,
        op: OpId,
        name: String,
        args: Option<Value>,
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
                "tools/list",
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

    fn call(&mut self, cx: &mut Ctx, op: OpId) -> Option<Result<Output>> {
        let entry = cx.sh.tools.get(&self.name).cloned();
        let mut headers = Vec::new();
        if let (Some(e), Era::Modern) = (&entry, &cx.sh.era) {
            match param_headers(&e.header_params, self.args.as_ref()) {
                Ok(h) => headers = h,
                Err(err) => return Some(Err(err)),
            }
        }
        // Rule 11: the outputSchema as it is when the tool is called.
        self.check = cx.sh.tools.output_check(&self.name);
        let mut params = Map::new();
        params.insert("name".into(), self.name.clone().into());
        if let Some(a) = &self.args {
            params.insert("arguments".into(), a.clone());
        }
        // 2025-11-25 tasks: the client asks for a task (`params.task`) when the server and
        // the tool support it (2025 `basic/utilities/tasks.mdx` "Tool-Level Negotiation").
        let support = entry.as_ref().and_then(|e| e.task_support.clone());
        if self.legacy_tasks == Some(true)
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
        let policy = policy_for(cx.sh, "tools/call", &self.opts);
        let mut call = Call::new("tools/call", with_meta(params, &self.opts), headers, policy);
        call.start(cx.sh, &Owner::Op(op));
        self.phase = ToolPhase::Calling(call);
        None
    }

    pub fn deadline(&self) -> Option<Millis> {
        match &self.phase {
            ToolPhase::Listing(p) | ToolPhase::Relisting(p) => p.deadline(),
            ToolPhase::Calling(c) => c.deadline(),
            ToolPhase::Waiting => self.wait_deadline,
            ToolPhase::Over => None,
        }
    }

    pub fn handle(&mut self, cx: &mut Ctx, op: OpId, input: CallInput) -> Step {
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
                    Ok(CallOutcome::Complete(raw)) if self.asked_task => {
                        // 2025: `{task: {...}}`, or a plain result if the server ignored the ask.
                        let v: Value = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
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
                        self.handle(cx, op, CallInput::Response(raw))
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
                        let mut pager = Pager::new(
                            "tools/list",
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

    /// The task this call waits on, if any.
    pub fn task_id(&self) -> Option<&str> {
        self.task_id.as_deref()
    }

    /// The outcome of the task, for a transparent call: the `CallToolResult`.
    pub fn on_task_final(&mut self, r: Result<TaskView>) -> Result<Output> {
        self.phase = ToolPhase::Over;
        let v = r?;
        match v.result {
            Some(raw) => Ok(Output::Raw(raw)),
            None => Err(Error::invalid_result("task completed without a result")),
        }
    }

    pub fn on_timer(&mut self, cx: &mut Ctx, op: OpId) -> Step {
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
            _ => self.handle(cx, op, CallInput::Timer),
        }
    }

    /// Aborts the call. Aborting is cancelling (as closing the stream cancels a request):
    /// a task this call created is cancelled with `tasks/cancel`.
    pub fn cancel(&mut self, cx: &mut Ctx, op: OpId) -> Option<String> {
        let phase = std::mem::replace(&mut self.phase, ToolPhase::Over);
        match phase {
            ToolPhase::Listing(mut p) | ToolPhase::Relisting(mut p) => p.cancel(cx.sh),
            ToolPhase::Calling(mut c) => c.cancel(cx.sh),
            ToolPhase::Waiting => {
                if let Some(id) = &self.task_id {
                    cx.tasks.detach(cx.sh, id, op);
                    return Some(id.clone());
                }
            }
            ToolPhase::Over => {}
        }
        None
    }
}

fn to_step(r: Option<Result<Output>>) -> Step {
    match r {
        None => Step::Pending,
        Some(r) => Step::Done(r),
    }
}

/// A task made locally from a synchronous answer to `callToolAsTask` (rule 21).
fn local_task(sh: &mut Shared, raw: Box<RawValue>) -> TaskView {
    let now = format_rfc3339(sh.now as i64);
    let id = sh.next_id();
    TaskView {
        task: Task {
            task_id: format!("local-{id}"),
            status: TaskStatus::Completed,
            status_message: None,
            created_at: now.clone(),
            created_at_ms: sh.now as i64,
            last_updated_at: now,
            last_updated_at_ms: sh.now as i64,
            ttl_ms: None,
            poll_interval_ms: None,
        },
        input_requests: None,
        result: Some(raw),
        error: None,
        local: true,
    }
}

/// What a wait returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    /// The completed task (`waitForTask`).
    Task,
    /// The task's result (`getTaskResult`).
    Result,
}

/// `waitForTask` / `getTaskResult`.
pub struct WaitOp {
    pub task_id: String,
    pub want: Want,
    pub deadline: Option<Millis>,
}

impl WaitOp {
    pub fn on_final(&self, r: Result<TaskView>) -> Result<Output> {
        let v = r?;
        match self.want {
            Want::Task => Ok(Output::Task(v)),
            Want::Result => match v.result {
                Some(raw) => Ok(Output::Raw(raw)),
                None => Err(Error::invalid_result("task completed without a result")),
            },
        }
    }

    pub fn timeout_error(&self, tasks: &TaskBook) -> Error {
        let mut data = vec![("taskId", Value::from(self.task_id.as_str()))];
        if let Some(t) = tasks.last(&self.task_id) {
            data.push(("task", Value::Object(t.to_value())));
        }
        let data = json_object(data);
        Error::new(
            ErrorKind::TaskTimeout,
            format!(
                "waiting for task \"{}\" timed out; the task keeps running",
                sanitize(&self.task_id, 100)
            ),
        )
        .with_data(data)
    }
}
