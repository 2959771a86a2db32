//! Driving tasks (tasks extension, `ext-tasks/specification/draft/tasks.md`): polling
//! `tasks/get` at the server's `pollIntervalMs`, presenting `inputRequests` to the host
//! once per key for the task's whole life, sending answers with `tasks/update`, the TTL
//! backstop, and the terminal statuses.
//!
//! One [`Driver`] per task id, shared by everything that waits on that task (a
//! transparent `callTool`, `waitForTask`, `getTaskResult`): two waits on one task poll
//! once, and a key presented to one of them is never presented to the other. A driver
//! polls only while someone waits; its bookkeeping (presented, answered, acknowledged
//! keys) outlives the waits so that a later wait never asks the person again.
//!
//! The rule numbers in comments are those of the tasks issue ("Rules").

use crate::engine::actions::{Action, Ask, AskScope, OpId, TaskView, UrlFacts};
use crate::engine::call::{check_answer, check_declared, Call, CallInput, CallOutcome, CallPolicy};
use crate::engine::shared::{Owner, Shared};
use crate::engine::tools::OutputCheck;
use crate::error::json_object;
use crate::error::{sanitize, Error, ErrorKind, Result};
use crate::protocol::codes::{INTERNAL_ERROR, INVALID_PARAMS, MISSING_REQUIRED_CLIENT_CAPABILITY};
use crate::protocol::input::InputRequest;
use crate::protocol::tasks::{decode_detailed_task, DetailedTask, Task, TaskStatus};
use crate::time::Millis;
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::{Map, Value};
use std::collections::VecDeque;

/// Which exchange of a driver an owner names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Part {
    Poll,
    Update,
    /// 2025 tasks: the blocking `tasks/result` request.
    Result,
}

/// Default poll interval when the server gives none (rule 5).
pub const DEFAULT_POLL_MS: u64 = 1000;
/// Shortest poll interval, so `pollIntervalMs: 0` never busy-loops (rule 5).
pub const MIN_POLL_MS: u64 = 50;
/// Longest back-off after repeated transient poll failures.
const MAX_BACKOFF_MS: u64 = 30_000;

/// What a driver tells the waiters.
#[derive(Debug)]
pub enum Note {
    /// The task changed.
    Status(Vec<OpId>, TaskView),
    /// The waiters are done: the task is terminal (or gone), or the wait failed.
    Final(Vec<OpId>, Result<TaskView>),
}

struct Waiter {
    op: OpId,
    deadline: Option<Millis>,
}

/// The driver of one task.
pub struct Driver {
    id: String,
    last: Option<Task>,
    last_inputs: Option<Value>,
    /// The terminal outcome, once known (kept: terminal statuses never change).
    done: Option<Result<TaskView>>,
    check: OutputCheck,
    /// Keys presented to the host, ever (rule 7).
    presented: FxHashSet<String>,
    /// Answers not yet acknowledged by a `tasks/update` (rule 8).
    answered: Map<String, Value>,
    update_keys: Vec<String>,
    /// Keys whose answers the server acknowledged (or stopped asking for).
    acked: FxHashSet<String>,
    /// Keys whose last `tasks/update` ended without a definite answer (rule 8): not sent
    /// again until a poll started after that update ended still lists them. An older poll
    /// may have been answered before the server applied the update.
    unsettled: FxHashSet<String>,
    /// Polls started so far, the number of the one in flight, and the last poll started
    /// before the inconclusive update ended (its answer says nothing about that update).
    polls_started: u64,
    poll_number: u64,
    unsettled_before: u64,
    asking: FxHashMap<u64, String>,
    queued: VecDeque<(InputRequest, Option<UrlFacts>)>,
    outstanding: FxHashMap<String, InputRequest>,
    rounds: u32,
    waiters: Vec<Waiter>,
    poll: Option<Call>,
    next_poll: Option<Millis>,
    update: Option<Call>,
    transient_streak: u32,
    /// A 2025-11-25 task: polled with the 2025 shapes; input comes as server requests on
    /// the `tasks/result` stream, and the outcome from `tasks/result`.
    legacy: bool,
    result_call: Option<Call>,
}

/// All task drivers of a client.
#[derive(Default)]
pub struct TaskBook {
    drivers: FxHashMap<String, Driver>,
}

fn owner(id: &str, part: Part) -> Owner {
    Owner::Task(id.to_string(), part)
}

fn inputs_value(reqs: &[InputRequest]) -> Value {
    let mut m = Map::new();
    for r in reqs {
        let mut e = Map::new();
        e.insert("method".into(), r.kind.method().into());
        e.insert("params".into(), Value::Object(r.params.clone()));
        m.insert(r.key.clone(), Value::Object(e));
    }
    Value::Object(m)
}

/// Maps an error of a `tasks/*` request (rule 14): `-32602` is "not found", or "expired"
/// when the TTL already passed; the code decides, not the message.
pub fn map_task_error(e: Error, task_id: &str, last: Option<&Task>, now: Millis) -> Error {
    if e.kind == ErrorKind::Mcp && e.code == Some(INVALID_PARAMS) {
        let expired = last
            .and_then(Task::expires_at_ms)
            .is_some_and(|t| (now as i64) >= t);
        let kind = if expired {
            ErrorKind::TaskExpired
        } else {
            ErrorKind::TaskNotFound
        };
        let what = if expired {
            "has expired"
        } else {
            "is not known to the server"
        };
        let msg = format!("task \"{}\" {what}: {}", sanitize(task_id, 100), e.message);
        let mut out = e.with_kind(kind);
        out.message = msg;
        return out;
    }
    e
}

impl Driver {
    fn new(id: String, seed: Option<Task>, check: OutputCheck) -> Driver {
        Driver {
            id,
            last: seed,
            last_inputs: None,
            done: None,
            check,
            presented: FxHashSet::default(),
            answered: Map::new(),
            update_keys: Vec::new(),
            acked: FxHashSet::default(),
            unsettled: FxHashSet::default(),
            polls_started: 0,
            poll_number: 0,
            unsettled_before: 0,
            asking: FxHashMap::default(),
            queued: VecDeque::new(),
            outstanding: FxHashMap::default(),
            rounds: 0,
            waiters: Vec::new(),
            poll: None,
            next_poll: None,
            update: None,
            transient_streak: 0,
            legacy: false,
            result_call: None,
        }
    }

    fn waiter_ops(&self) -> Vec<OpId> {
        self.waiters.iter().map(|w| w.op).collect()
    }

    fn view(&self) -> Option<TaskView> {
        self.last.as_ref().map(|t| TaskView {
            task: t.clone(),
            input_requests: self.last_inputs.clone(),
            result: None,
            error: None,
            local: false,
        })
    }

    /// Ends every wait with `r`; `terminal` keeps it for later waits.
    fn finish(
        &mut self,
        sh: &mut Shared,
        r: Result<TaskView>,
        terminal: bool,
        notes: &mut Vec<Note>,
    ) {
        let ops = self.waiter_ops();
        self.waiters.clear();
        self.stop_activity(sh);
        if terminal {
            // Nothing the host is still answering matters now.
            self.done = Some(clone_result(&r));
        }
        if !ops.is_empty() {
            notes.push(Note::Final(ops, r));
        }
    }

    /// Stops polling and withdraws open asks (their keys go back to "not presented",
    /// since the person never answered them).
    fn stop_activity(&mut self, sh: &mut Shared) {
        if let Some(mut c) = self.poll.take() {
            c.cancel(sh);
        }
        if let Some(mut c) = self.result_call.take() {
            c.cancel(sh);
        }
        self.next_poll = None;
        for (ask, key) in self.asking.drain() {
            sh.asks.remove(&ask);
            sh.push(Action::CancelAsk(ask));
            self.presented.remove(&key);
        }
        for (req, _) in self.queued.drain(..) {
            self.presented.remove(&req.key);
        }
    }

    /// The longest remaining wait budget, for each poll's own timeout (rule 15).
    fn poll_timeout(&self, sh: &Shared) -> u64 {
        let base = sh.cfg.request_timeout_ms;
        let longest = self
            .waiters
            .iter()
            .map(|w| w.deadline.map(|d| d.saturating_sub(sh.now)))
            .try_fold(0u64, |acc, d| d.map(|d| acc.max(d)));
        match longest {
            Some(rem) => base.min(rem.max(1)),
            None => base,
        }
    }

    fn start_poll(&mut self, sh: &mut Shared) {
        self.next_poll = None;
        self.polls_started += 1;
        self.poll_number = self.polls_started;
        let mut params = Map::new();
        params.insert("taskId".into(), self.id.clone().into());
        let policy = CallPolicy {
            allow_input: false,
            allow_task: false,
            timeout_ms: self.poll_timeout(sh),
            reset_on_progress: false,
            hard_deadline: None,
            progress: false,
            log_level: None,
            reissue_on_drop: true,
        };
        let mut c = Call::new("tasks/get", params, Vec::new(), policy);
        c.start(sh, &owner(&self.id, Part::Poll));
        self.poll = Some(c);
    }

    /// Schedules the next poll at the latest `pollIntervalMs` (rule 5), backing off after
    /// transient failures, never past the TTL backstop.
    fn schedule_poll(&mut self, sh: &Shared, retry_after: Option<u64>) {
        if self.waiters.is_empty() || self.poll.is_some() || self.done.is_some() {
            self.next_poll = None;
            return;
        }
        let interval = self
            .last
            .as_ref()
            .and_then(|t| t.poll_interval_ms)
            .unwrap_or(DEFAULT_POLL_MS)
            .max(MIN_POLL_MS);
        let mut delay = if self.transient_streak > 0 {
            let factor = 1u64 << self.transient_streak.min(10);
            interval
                .saturating_mul(factor)
                .min(MAX_BACKOFF_MS.max(interval))
        } else {
            interval
        };
        if let Some(ra) = retry_after {
            delay = delay.max(ra);
        }
        let mut at = sh.now.saturating_add(delay);
        if let Some(exp) = self.last.as_ref().and_then(Task::expires_at_ms) {
            let exp = exp.max(0) as u64;
            if exp > sh.now {
                at = at.min(exp);
            }
        }
        self.next_poll = Some(at);
    }

    fn deadline(&self, part: Part) -> Option<Millis> {
        match part {
            Part::Poll => match &self.poll {
                Some(c) => c.deadline(),
                None => self.next_poll,
            },
            Part::Update => self.update.as_ref().and_then(Call::deadline),
            Part::Result => self.result_call.as_ref().and_then(Call::deadline),
        }
    }

    /// A new observation of the task (a `tasks/get` answer or `notifications/tasks`).
    /// `fresh`: it comes from a poll started after the last inconclusive update ended.
    fn observe(&mut self, sh: &mut Shared, dt: DetailedTask, notes: &mut Vec<Note>, fresh: bool) {
        if self.done.is_some() {
            if !dt.task.status.is_terminal() {
                sh.push(Action::Warn {
                    message: format!(
                        "task \"{}\" went back to {} after a terminal status; ignored",
                        sanitize(&self.id, 100),
                        dt.task.status.as_str()
                    ),
                });
            }
            return;
        }
        // Rule 10: the TTL backstop is checked before any handler runs.
        if !dt.task.status.is_terminal() {
            if let Some(exp) = dt.task.expires_at_ms() {
                if (sh.now as i64) >= exp {
                    self.last = Some(dt.task.clone());
                    let e = ttl_expired(&self.id, &dt.task);
                    self.finish(sh, Err(e), true, notes);
                    return;
                }
            }
        }
        let inputs =
            (dt.task.status == TaskStatus::InputRequired).then(|| inputs_value(&dt.input_requests));
        let changed = match &self.last {
            None => true,
            Some(prev) => {
                prev.status != dt.task.status
                    || prev.status_message != dt.task.status_message
                    || prev.last_updated_at != dt.task.last_updated_at
                    || self.last_inputs != inputs
            }
        };
        self.last = Some(dt.task.clone());
        self.last_inputs = inputs;
        if changed {
            if let Some(v) = self.view() {
                let ops = self.waiter_ops();
                if !ops.is_empty() {
                    notes.push(Note::Status(ops, v));
                }
            }
        }
        if self.legacy {
            // 2025: input and the outcome come through `tasks/result` (it blocks until the
            // task is terminal; the server's requests for input arrive on its stream).
            match dt.task.status {
                TaskStatus::Cancelled => {}
                TaskStatus::InputRequired | TaskStatus::Completed | TaskStatus::Failed => {
                    self.start_result(sh);
                    self.schedule_poll(sh, None);
                    return;
                }
                TaskStatus::Working => {
                    self.schedule_poll(sh, None);
                    return;
                }
            }
        }
        match dt.task.status {
            TaskStatus::Completed => {
                let Some(result) = dt.result else { return };
                // Rule 11: checked against the outputSchema of the tool as it was when called.
                let outcome = match crate::engine::ops::check_tool_result(sh, &self.check, &result)
                {
                    Ok(()) => Ok(TaskView {
                        task: dt.task,
                        input_requests: None,
                        result: Some(result),
                        error: None,
                        local: false,
                    }),
                    Err(e) => Err(e),
                };
                self.finish(sh, outcome, true, notes);
            }
            TaskStatus::Failed => {
                // Rule 12: the task's JSON-RPC error, as an McpError.
                let e = dt.error.unwrap_or(crate::protocol::jsonrpc::RpcError {
                    code: INTERNAL_ERROR,
                    message: String::new(),
                    data: None,
                });
                let err = Error::rpc(e.code, &e.message, e.data);
                self.finish(sh, Err(err), true, notes);
            }
            TaskStatus::Cancelled => {
                // Rule 13.
                let err = Error::new(
                    ErrorKind::TaskCancelled,
                    format!("task \"{}\" was cancelled", sanitize(&self.id, 100)),
                )
                .with_data(Value::Object(dt.task.to_value()));
                self.finish(sh, Err(err), true, notes);
            }
            TaskStatus::InputRequired => {
                self.on_inputs(sh, dt.input_requests, notes, fresh);
                self.schedule_poll(sh, None);
            }
            TaskStatus::Working => {
                self.on_inputs(sh, Vec::new(), notes, fresh);
                self.schedule_poll(sh, None);
            }
        }
    }

    /// 2025: `tasks/result` (once at a time): blocks until the task is terminal and carries
    /// the server's input requests meanwhile.
    fn start_result(&mut self, sh: &mut Shared) {
        if self.result_call.is_some() || self.waiters.is_empty() {
            return;
        }
        let mut params = Map::new();
        params.insert("taskId".into(), self.id.clone().into());
        let policy = CallPolicy {
            allow_input: false,
            allow_task: false,
            // It blocks until the task ends: bounded by the longest wait, else a day.
            timeout_ms: self.result_timeout(sh),
            reset_on_progress: true,
            hard_deadline: None,
            progress: false,
            log_level: None,
            reissue_on_drop: true,
        };
        let mut c = Call::new("tasks/result", params, Vec::new(), policy);
        c.start(sh, &owner(&self.id, Part::Result));
        self.result_call = Some(c);
    }

    fn result_timeout(&self, sh: &Shared) -> u64 {
        let longest = self
            .waiters
            .iter()
            .map(|w| w.deadline.map(|d| d.saturating_sub(sh.now)))
            .try_fold(0u64, |acc, d| d.map(|d| acc.max(d)));
        longest.unwrap_or(86_400_000).max(1)
    }

    fn on_result(&mut self, sh: &mut Shared, input: CallInput, notes: &mut Vec<Note>) {
        let Some(call) = &mut self.result_call else {
            return;
        };
        let Some(outcome) = call.handle(sh, &owner(&self.id, Part::Result), input) else {
            return;
        };
        self.result_call = None;
        let task = self.last.clone();
        match outcome {
            Ok(CallOutcome::Complete(raw)) => {
                let outcome = crate::engine::ops::check_tool_result(sh, &self.check, &raw)
                    .and_then(|()| {
                        let mut t = task.ok_or_else(|| {
                            Error::invalid_result("tasks/result before any task state")
                        })?;
                        t.status = TaskStatus::Completed;
                        Ok(TaskView {
                            task: t,
                            input_requests: None,
                            result: Some(raw),
                            error: None,
                            local: false,
                        })
                    });
                self.finish(sh, outcome, true, notes);
            }
            Ok(CallOutcome::Task(_)) => self.finish(
                sh,
                Err(Error::invalid_result("tasks/result answered a task")),
                false,
                notes,
            ),
            Err(e) if e.kind == ErrorKind::Mcp && e.code != Some(INVALID_PARAMS) => {
                // The underlying request's JSON-RPC error: the task failed (rule 12).
                self.finish(sh, Err(e), true, notes);
            }
            Err(e) if e.is_transient() => {
                // Asked again after the next poll.
                self.schedule_poll(sh, None);
            }
            Err(e) => {
                let terminal = e.code == Some(INVALID_PARAMS);
                let e = map_task_error(e, &self.id, self.last.as_ref(), sh.now);
                self.finish(sh, Err(e), terminal, notes);
            }
        }
    }

    fn on_inputs(
        &mut self,
        sh: &mut Shared,
        reqs: Vec<InputRequest>,
        notes: &mut Vec<Note>,
        fresh: bool,
    ) {
        self.outstanding = reqs.iter().map(|r| (r.key.clone(), r.clone())).collect();
        // Asks whose keys the server no longer lists are moot.
        let moot: Vec<u64> = self
            .asking
            .iter()
            .filter(|(_, k)| !self.outstanding.contains_key(*k))
            .map(|(a, _)| *a)
            .collect();
        for a in moot {
            self.asking.remove(&a);
            sh.asks.remove(&a);
            sh.push(Action::CancelAsk(a));
        }
        self.queued
            .retain(|(r, _)| self.outstanding.contains_key(&r.key));
        // Answers the server no longer asks for have arrived (a lost ack, rule 8).
        let delivered: Vec<String> = self
            .answered
            .keys()
            .filter(|k| !self.outstanding.contains_key(*k) && !self.update_keys.contains(k))
            .cloned()
            .collect();
        for k in delivered {
            self.answered.remove(&k);
            self.unsettled.remove(&k);
            self.acked.insert(k);
        }
        // A poll started after an inconclusive update that still lists its keys: that
        // update was lost, and the answers go out again (without asking the host again).
        if fresh {
            self.unsettled.clear();
        }
        // Rule 7: only keys never presented are presented.
        let new: Vec<InputRequest> = reqs
            .into_iter()
            .filter(|r| {
                !self.presented.contains(&r.key)
                    && !self.acked.contains(&r.key)
                    && !self.answered.contains_key(&r.key)
            })
            .collect();
        if !new.is_empty() {
            if new.len() > sh.cfg.limits.max_input_requests {
                let e = Error::invalid_result(format!(
                    "task asked for {} inputs at once (limit {})",
                    new.len(),
                    sh.cfg.limits.max_input_requests
                ));
                self.finish(sh, Err(e), false, notes);
                return;
            }
            let mut checked = Vec::with_capacity(new.len());
            for r in new {
                match check_declared(&sh.cfg, &r) {
                    Ok(url) => checked.push((r, url)),
                    Err(e) => {
                        self.finish(sh, Err(e), false, notes);
                        return;
                    }
                }
            }
            // Rule 9.
            self.rounds += 1;
            let max = sh.cfg.limits.max_input_rounds;
            if self.rounds > max {
                let e = Error::new(
                    ErrorKind::InputRequired,
                    format!(
                        "task \"{}\" still asks for input after {max} rounds",
                        sanitize(&self.id, 100)
                    ),
                )
                .with_data(json_object(vec![
                    ("rounds", max.into()),
                    ("taskId", self.id.as_str().into()),
                ]));
                self.finish(sh, Err(e), false, notes);
                return;
            }
            for (r, url) in checked {
                self.presented.insert(r.key.clone());
                self.queued.push_back((r, url));
            }
        }
        self.present(sh);
        if self.update.is_none() && !self.answered.is_empty() {
            self.send_update(sh);
        }
    }

    fn present(&mut self, sh: &mut Shared) {
        if self.waiters.is_empty() {
            return;
        }
        let cap = sh.cfg.limits.max_concurrent_inputs;
        while self.asking.len() < cap {
            let Some((req, url)) = self.queued.pop_front() else {
                break;
            };
            let id = sh.next_id();
            self.asking.insert(id, req.key.clone());
            sh.asks.insert(id, owner(&self.id, Part::Poll));
            sh.push(Action::Ask(Ask {
                id,
                kind: req.kind,
                params: req.params,
                scope: AskScope::Task,
                task_id: Some(self.id.clone()),
                key: req.key,
                method: "tools/call".into(),
                url,
            }));
        }
    }

    /// Rule 6: answers go out in `tasks/update {taskId, inputResponses}` (never a requestState).
    fn send_update(&mut self, sh: &mut Shared) {
        let mut answers = self.answered.clone();
        answers.retain(|k, _| !self.unsettled.contains(k));
        if answers.is_empty() {
            return;
        }
        let mut params = Map::new();
        params.insert("taskId".into(), self.id.clone().into());
        self.update_keys = answers.keys().cloned().collect();
        params.insert("inputResponses".into(), Value::Object(answers));
        let policy = CallPolicy {
            allow_input: false,
            allow_task: false,
            timeout_ms: sh.cfg.request_timeout_ms,
            reset_on_progress: false,
            hard_deadline: None,
            progress: false,
            log_level: None,
            // Rule 8: a stream that broke before the acknowledgement is no definite answer
            // (the server may have applied the update): it is not re-issued blindly, the
            // next poll says whether the keys are still outstanding.
            reissue_on_drop: false,
        };
        let mut c = Call::new("tasks/update", params, Vec::new(), policy);
        c.start(sh, &owner(&self.id, Part::Update));
        self.update = Some(c);
    }

    fn on_answer(
        &mut self,
        sh: &mut Shared,
        ask: u64,
        answer: Result<Value>,
        notes: &mut Vec<Note>,
    ) {
        let Some(key) = self.asking.remove(&ask) else {
            return;
        };
        sh.asks.remove(&ask);
        let checked = answer.and_then(|v| match self.outstanding.get(&key) {
            Some(req) => check_answer(req, &v).map(Some),
            // The server stopped asking meanwhile: nothing to send.
            None => Ok(None),
        });
        match checked {
            Err(e) => {
                self.presented.remove(&key);
                self.finish(sh, Err(e), false, notes);
            }
            Ok(None) => self.present(sh),
            Ok(Some(v)) => {
                self.answered.insert(key, v);
                self.present(sh);
                if self.update.is_none() {
                    self.send_update(sh);
                }
            }
        }
    }

    fn on_poll(&mut self, sh: &mut Shared, input: CallInput, notes: &mut Vec<Note>) {
        let Some(call) = &mut self.poll else { return };
        let Some(outcome) = call.handle(sh, &owner(&self.id, Part::Poll), input) else {
            return;
        };
        self.poll = None;
        match outcome {
            Ok(CallOutcome::Complete(raw)) => {
                let decoded = if self.legacy {
                    decode_legacy_detailed(&raw, &self.id)
                } else {
                    decode_detailed_task(&raw, Some(&self.id), false)
                };
                match decoded {
                    Ok(dt) => {
                        self.transient_streak = 0;
                        let fresh = self.poll_number > self.unsettled_before;
                        self.observe(sh, dt, notes, fresh);
                    }
                    Err(e) => self.finish(sh, Err(e), false, notes),
                }
            }
            Ok(CallOutcome::Task(_)) => self.finish(
                sh,
                Err(Error::invalid_result("tasks/get answered a new task")),
                false,
                notes,
            ),
            Err(e) => self.on_poll_error(sh, e, notes),
        }
    }

    fn on_poll_error(&mut self, sh: &mut Shared, e: Error, notes: &mut Vec<Note>) {
        let transient =
            e.is_transient() || (e.kind == ErrorKind::Mcp && e.code == Some(INTERNAL_ERROR));
        if transient {
            // Rule 10: past the TTL backstop, a poll without an answer ends the wait.
            if let Some(t) = self
                .last
                .as_ref()
                .filter(|t| t.expires_at_ms().is_some_and(|x| sh.now as i64 >= x))
            {
                let e = ttl_expired(&self.id, t);
                self.finish(sh, Err(e), true, notes);
                return;
            }
            // Rule 15: a lost poll is not fatal.
            self.transient_streak = self.transient_streak.saturating_add(1);
            let retry_after = if e.status == Some(429) || e.status == Some(503) {
                e.data
                    .as_ref()
                    .and_then(|d| d.get("retryAfterMs"))
                    .and_then(Value::as_u64)
            } else {
                None
            };
            self.schedule_poll(sh, retry_after);
            return;
        }
        let terminal = e.code == Some(INVALID_PARAMS) && e.kind == ErrorKind::Mcp;
        let e = map_task_error(e, &self.id, self.last.as_ref(), sh.now);
        let e = if e.code == Some(MISSING_REQUIRED_CLIENT_CAPABILITY) {
            e.with_kind(ErrorKind::MissingRequiredClientCapability)
        } else {
            e
        };
        self.finish(sh, Err(e), terminal, notes);
    }

    fn on_update(&mut self, sh: &mut Shared, input: CallInput, notes: &mut Vec<Note>) {
        let Some(call) = &mut self.update else { return };
        let Some(outcome) = call.handle(sh, &owner(&self.id, Part::Update), input) else {
            return;
        };
        self.update = None;
        let keys = std::mem::take(&mut self.update_keys);
        match outcome {
            Ok(_) => {
                for k in &keys {
                    self.answered.remove(k);
                    self.acked.insert(k.clone());
                }
                // Answers that came in while this update was in flight go out now.
                if !self.answered.is_empty() {
                    self.send_update(sh);
                }
            }
            Err(e)
                if e.is_transient()
                    || (e.kind == ErrorKind::Mcp && e.code == Some(INTERNAL_ERROR)) =>
            {
                // Rule 8: no definite answer; the answers stay pending and go out again
                // once a poll started from now on still lists their keys (an earlier poll
                // may predate the update), without asking the host again.
                for k in keys {
                    self.unsettled.insert(k);
                }
                self.unsettled_before = self.polls_started;
                // Answers that came in while this update was in flight go out now.
                self.send_update(sh);
            }
            Err(e) => {
                if e.kind == ErrorKind::Mcp && e.code == Some(INVALID_PARAMS) {
                    let e = map_task_error(e, &self.id, self.last.as_ref(), sh.now);
                    self.finish(sh, Err(e), true, notes);
                    return;
                }
                // Rule 8: a definite rejection gives the keys back.
                for k in &keys {
                    self.answered.remove(k);
                    self.presented.remove(k);
                }
                sh.push(Action::Warn {
                    message: format!(
                        "tasks/update for task \"{}\" was rejected ({}); its inputs will be asked again",
                        sanitize(&self.id, 100),
                        e.message
                    ),
                });
            }
        }
    }
}

/// Rule 10: the TTL backstop passed without a terminal status.
fn ttl_expired(id: &str, task: &Task) -> Error {
    Error::new(
        ErrorKind::TaskExpired,
        format!(
            "task \"{}\" passed its TTL without finishing",
            sanitize(id, 100)
        ),
    )
    .with_data(Value::Object(task.to_value()))
}

/// A 2025 `tasks/get` answer (`Task` with `ttl`/`pollInterval`) as a DetailedTask.
fn decode_legacy_detailed(raw: &serde_json::value::RawValue, id: &str) -> Result<DetailedTask> {
    let v: Value = serde_json::from_str(raw.get())
        .map_err(|_| Error::invalid_result("tasks/get result is not JSON"))?;
    let task = crate::protocol::legacy::decode_legacy_task_value(&v)?;
    if task.task_id != id {
        return Err(Error::invalid_result(format!(
            "tasks/get for \"{}\" answered task \"{}\"",
            sanitize(id, 100),
            sanitize(&task.task_id, 100)
        )));
    }
    Ok(DetailedTask {
        task,
        input_requests: Vec::new(),
        result: None,
        error: None,
    })
}

fn clone_result(r: &Result<TaskView>) -> Result<TaskView> {
    match r {
        Ok(v) => Ok(v.clone()),
        Err(e) => Err(e.clone()),
    }
}

impl TaskBook {
    /// Records a task the server created (the seed is not trusted: rule 4).
    pub fn register(&mut self, task: &Task, check: OutputCheck, legacy: bool) {
        // A CreateTaskResult always names a new task. A driver left with this id by an
        // earlier task (a server that reuses ids) is not this task's: its terminal outcome
        // and the keys it presented and answered belong to the old one. Kept, it answered
        // the new call with the old result and never presented the new task's inputs. A
        // driver someone still waits on is left alone (its waits follow the id).
        if self
            .drivers
            .get(&task.task_id)
            .is_some_and(|d| d.done.is_some() || d.waiters.is_empty())
        {
            self.drivers.remove(&task.task_id);
        }
        let d = self.drivers.entry(task.task_id.clone()).or_insert_with(|| {
            Driver::new(task.task_id.clone(), Some(task.clone()), check.clone())
        });
        if d.last.is_none() {
            d.last = Some(task.clone());
        }
        d.legacy = legacy;
    }

    pub fn last(&self, id: &str) -> Option<&Task> {
        self.drivers.get(id).and_then(|d| d.last.as_ref())
    }

    /// A wait starts. The first poll goes out at once (rule 4) unless one is in flight.
    pub fn attach(
        &mut self,
        sh: &mut Shared,
        seed: Option<&Task>,
        id: &str,
        op: OpId,
        deadline: Option<Millis>,
        legacy: bool,
    ) -> Vec<Note> {
        let d = self.drivers.entry(id.to_string()).or_insert_with(|| {
            let mut d = Driver::new(id.to_string(), seed.cloned(), OutputCheck::None);
            d.legacy = legacy;
            d
        });
        if let Some(done) = &d.done {
            return vec![Note::Final(vec![op], clone_result(done))];
        }
        d.waiters.push(Waiter { op, deadline });
        // Rules 5 and 24: a wait joining a task already polled shares its polls (and
        // their pollIntervalMs); only an idle driver polls at once.
        if d.poll.is_none() && d.next_poll.is_none() {
            d.start_poll(sh);
        }
        // Inputs withdrawn when the last wait left are presented again by the next poll.
        Vec::new()
    }

    /// A wait ended (timed out, aborted, or finished). The task keeps running (rule 16).
    pub fn detach(&mut self, sh: &mut Shared, id: &str, op: OpId) {
        let Some(d) = self.drivers.get_mut(id) else {
            return;
        };
        d.waiters.retain(|w| w.op != op);
        if d.waiters.is_empty() {
            d.stop_activity(sh);
        }
    }

    /// An exchange event of a driver.
    pub fn on_call(
        &mut self,
        sh: &mut Shared,
        id: &str,
        part: Part,
        input: CallInput,
    ) -> Vec<Note> {
        let mut notes = Vec::new();
        if let Some(d) = self.drivers.get_mut(id) {
            match part {
                Part::Poll => d.on_poll(sh, input, &mut notes),
                Part::Update => d.on_update(sh, input, &mut notes),
                Part::Result => d.on_result(sh, input, &mut notes),
            }
        }
        notes
    }

    /// A host answer for one of a driver's asks.
    pub fn on_answer(
        &mut self,
        sh: &mut Shared,
        id: &str,
        ask: u64,
        answer: Result<Value>,
    ) -> Vec<Note> {
        let mut notes = Vec::new();
        if let Some(d) = self.drivers.get_mut(id) {
            d.on_answer(sh, ask, answer, &mut notes);
        }
        notes
    }

    /// A timer event: a scheduled poll, or a poll/update timeout.
    pub fn on_timer(&mut self, sh: &mut Shared, id: &str, part: Part) -> Vec<Note> {
        let mut notes = Vec::new();
        let Some(d) = self.drivers.get_mut(id) else {
            return notes;
        };
        match part {
            Part::Poll => {
                if d.poll.is_some() {
                    d.on_poll(sh, CallInput::Timer, &mut notes);
                } else if d.next_poll.is_some_and(|t| t <= sh.now) && !d.waiters.is_empty() {
                    d.start_poll(sh);
                }
            }
            Part::Update => d.on_update(sh, CallInput::Timer, &mut notes),
            Part::Result => d.on_result(sh, CallInput::Timer, &mut notes),
        }
        notes
    }

    /// `notifications/tasks` for a task someone waits on (rule 22): used as an observation.
    /// For a task already terminal it only warns about a regression (the outcome stays).
    pub fn on_notification(&mut self, sh: &mut Shared, dt: DetailedTask) -> Vec<Note> {
        let mut notes = Vec::new();
        if let Some(d) = self.drivers.get_mut(&dt.task.task_id) {
            if !d.waiters.is_empty() || d.done.is_some() {
                d.observe(sh, dt, &mut notes, false);
            }
        }
        notes
    }

    pub fn deadline(&self, id: &str, part: Part) -> Option<Millis> {
        self.drivers.get(id).and_then(|d| d.deadline(part))
    }

    /// Drops all task bookkeeping (a legacy session ended: its task ids mean nothing now).
    pub fn clear(&mut self, sh: &mut Shared) -> Vec<Note> {
        let mut notes = Vec::new();
        for (_, mut d) in self.drivers.drain() {
            let e = Error::new(
                ErrorKind::TaskNotFound,
                format!("task \"{}\" ended with its session", sanitize(&d.id, 100)),
            );
            if let Some(mut u) = d.update.take() {
                u.cancel(sh);
            }
            d.finish(sh, Err(e), false, &mut notes);
        }
        notes
    }
}
