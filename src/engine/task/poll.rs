//! Polling a task: `tasks/get` at the server's `pollIntervalMs` with back-off and the
//! TTL backstop, each observation of the task (a poll's answer or `notifications/tasks`)
//! and its terminal statuses, and the 2025 blocking `tasks/result`.

use super::input::inputs_value;
use super::{
    map_task_error, owner, Driver, Note, Part, DEFAULT_POLL_MS, MAX_BACKOFF_MS, MIN_POLL_MS,
};
use crate::engine::actions::{Action, TaskView};
use crate::engine::call::{Call, CallInput, CallOutcome, CallPolicy};
use crate::engine::shared::Shared;
use crate::error::{sanitize, Error, ErrorKind, Result};
use crate::json::{Map, Value};
use crate::protocol::codes::{INTERNAL_ERROR, INVALID_PARAMS, MISSING_REQUIRED_CLIENT_CAPABILITY};
use crate::protocol::tasks::{decode_detailed_task, DetailedTask, Task, TaskStatus};
use crate::time::Millis;

impl Driver {
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

    pub(super) fn start_poll(&mut self, sh: &mut Shared) {
        self.next_poll = None;
        self.last_poll_at = Some(sh.now);
        self.polls_started += 1;
        self.poll_number = self.polls_started;
        let mut params = Map::new();
        params.insert("taskId".into(), self.id.clone().into());
        let policy = CallPolicy::internal(self.poll_timeout(sh), true);
        let mut c = Call::new("tasks/get", params, Vec::new(), policy);
        c.start(sh, &owner(&self.id, Part::Poll));
        self.poll = Some(Box::new(c));
    }

    /// Schedules the next poll at the latest `pollIntervalMs` (rule 5), backing off after
    /// transient failures, never past the TTL backstop.
    fn schedule_poll(&mut self, sh: &Shared, retry_after: Option<u64>) {
        if self.peer_follows() {
            // The leader polls; a follower keeps the TTL backstop only (`peers`).
            self.next_poll = self.peer_ttl(sh);
            return;
        }
        if self.waiters.is_empty() || self.poll.is_some() || self.done.is_some() {
            self.next_poll = None;
            return;
        }
        let interval = self.interval();
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
        // Covered by the task stream, only the backstop polls (rule 26, `push`).
        let mut at = self.push_due(sh, sh.now.saturating_add(delay));
        if let Some(exp) = self.last.as_ref().and_then(Task::expires_at_ms) {
            let exp = exp.max(0) as u64;
            if exp > sh.now {
                at = at.min(exp);
            }
        }
        // Hidden or offline, the context may poll later, or only at the TTL (`schedule`).
        self.set_due(sh, at);
    }

    /// The server's `pollIntervalMs` (rule 5), floored.
    pub(super) fn interval(&self) -> u64 {
        self.last
            .as_ref()
            .and_then(|t| t.poll_interval_ms)
            .unwrap_or(DEFAULT_POLL_MS)
            .max(MIN_POLL_MS)
    }

    /// An observation older than the state already taken, delivered after it: a poll
    /// answered before the server changed the task (an update applied, the next phase
    /// notified) can arrive after that change's `notifications/tasks`, since a poll and the
    /// stream are two connections. It is older by `lastUpdatedAt` (tasks extension, `Task`:
    /// "when the task was last updated") and, for a poll, started no later than the newer
    /// state was taken; a poll started after that is the server's word, even with an older
    /// timestamp (a clock set back). A terminal status is never stale, nor is a state
    /// whose `lastUpdatedAt` (or the one taken) has no UTC offset (rule 3): such times are
    /// not compared.
    fn is_stale(&self, dt: &DetailedTask, started: Option<Millis>) -> bool {
        let Some(prev) = &self.last else {
            return false;
        };
        let (Some(new), Some(old)) = (dt.task.last_updated_at_ms, prev.last_updated_at_ms) else {
            return false;
        };
        if dt.task.status.is_terminal() || new >= old {
            return false;
        }
        match (started, self.observed_at) {
            (Some(s), Some(taken)) => s <= taken,
            (Some(_), None) => false,
            (None, _) => true,
        }
    }

    /// A new observation of the task (a `tasks/get` answer or `notifications/tasks`).
    /// `fresh`: it comes from a poll started after the last inconclusive update ended.
    /// `started`: when its poll started (`None`: heard on a stream or from another context).
    pub(super) fn observe(
        &mut self,
        sh: &mut Shared,
        dt: DetailedTask,
        notes: &mut Vec<Note>,
        fresh: bool,
        started: Option<Millis>,
    ) {
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
        if self.is_stale(&dt, started) {
            self.schedule_poll(sh, None);
            return;
        }
        self.observed_at = Some(sh.now);
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
        // (`cfg!`: no 2025 tasks in the modern-only build; the branch folds away there.)
        if cfg!(feature = "legacy") && self.legacy {
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
        // It blocks until the task ends: bounded by the longest wait, else a day.
        let policy = CallPolicy {
            reset_on_progress: true,
            ..CallPolicy::internal(self.result_timeout(sh), true)
        };
        let mut c = Call::new("tasks/result", params, Vec::new(), policy);
        c.start(sh, &owner(&self.id, Part::Result));
        self.result_call = Some(Box::new(c));
    }

    fn result_timeout(&self, sh: &Shared) -> u64 {
        let longest = self
            .waiters
            .iter()
            .map(|w| w.deadline.map(|d| d.saturating_sub(sh.now)))
            .try_fold(0u64, |acc, d| d.map(|d| acc.max(d)));
        longest.unwrap_or(86_400_000).max(1)
    }

    pub(super) fn on_result(&mut self, sh: &mut Shared, input: CallInput, notes: &mut Vec<Note>) {
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

    pub(super) fn on_poll(&mut self, sh: &mut Shared, input: CallInput, notes: &mut Vec<Note>) {
        // A poll whose stream broke is re-issued at once only when a poll may start now:
        // offline (or paused while hidden) it is a lost poll, asked again when the context
        // may poll (issue 13: nothing is polled offline; fuzz: engine).
        let input = match input {
            CallInput::StreamClosed if !self.may_poll(sh) => CallInput::Failed(Error::network(
                "the response stream of tasks/get closed before its response (offline: not re-issued)",
            )),
            other => other,
        };
        let Some(call) = &mut self.poll else { return };
        let Some(outcome) = call.handle(sh, &owner(&self.id, Part::Poll), input) else {
            return;
        };
        self.poll = None;
        match outcome {
            Ok(CallOutcome::Complete(raw)) => {
                let decoded = if cfg!(feature = "legacy") && self.legacy {
                    decode_legacy_detailed(&raw, &self.id)
                } else {
                    decode_detailed_task(&raw, Some(&self.id), false)
                };
                match decoded {
                    Ok(dt) => {
                        self.peer_observed(sh, raw.get());
                        self.transient_streak = 0;
                        let fresh = self.poll_number > self.unsettled_before;
                        let started = self.last_poll_at;
                        self.observe(sh, dt, notes, fresh, started);
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
            // Rule 15: a lost poll is not fatal. Offline, it is no failure streak either
            // (issue 13: no back-off is counted while offline).
            if sh.presence.online {
                self.transient_streak = self.transient_streak.saturating_add(1);
            }
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
        self.peer_failed(sh, &e);
        let e = map_task_error(e, &self.id, self.last.as_ref(), sh.now);
        let e = if e.code == Some(MISSING_REQUIRED_CLIENT_CAPABILITY) {
            e.with_kind(ErrorKind::MissingRequiredClientCapability)
        } else {
            e
        };
        self.finish(sh, Err(e), terminal, notes);
    }
}

/// Rule 10: the TTL backstop passed without a terminal status.
pub(super) fn ttl_expired(id: &str, task: &Task) -> Error {
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
fn decode_legacy_detailed(raw: &crate::json::RawJson, id: &str) -> Result<DetailedTask> {
    let v: Value = crate::json::parse(raw.get())
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
