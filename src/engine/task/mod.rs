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
//!
//! The [`Driver`] is split by concern: `poll` holds the `tasks/get` polling, the
//! observations and the 2025 `tasks/result`; `input` holds the input requests, the
//! host's answers and `tasks/update`; `store` holds the durable-task record written to the
//! host's task store and restored from it (issue 13).

mod input;
pub(crate) mod peers;
mod poll;
pub(crate) mod push;
mod schedule;

pub(crate) use schedule::Presence;
pub(crate) mod store;

use crate::engine::actions::{Action, AskId, OpId, TaskView, UrlFacts};
use crate::engine::call::{Call, CallInput};
use crate::engine::shared::{Owner, Shared};
use crate::engine::small_map::SmallMap;
use crate::engine::tools::OutputCheck;
use crate::error::{sanitize, Error, ErrorKind, Result};
use crate::json::{Map, Value};
use crate::protocol::codes::INVALID_PARAMS;
use crate::protocol::input::InputRequest;
use crate::protocol::tasks::{DetailedTask, Task};
use crate::sorted_map::{SortedMap, SortedSet};
use crate::time::Millis;

/// Which exchange of a driver an owner names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Part {
    Poll,
    Update,
    /// 2025 tasks: the blocking `tasks/result` request.
    Result,
}

/// Default poll interval when the server gives none (rule 5).
pub(crate) const DEFAULT_POLL_MS: u64 = 1000;
/// Shortest poll interval, so `pollIntervalMs: 0` never busy-loops (rule 5).
pub(crate) const MIN_POLL_MS: u64 = 50;
/// Longest back-off after repeated transient poll failures.
const MAX_BACKOFF_MS: u64 = 30_000;

/// What a driver tells the waiters.
#[derive(Debug)]
pub(crate) enum Note {
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
pub(crate) struct Driver {
    id: String,
    last: Option<Task>,
    last_inputs: Option<Value>,
    /// The terminal outcome, once known (kept: terminal statuses never change).
    done: Option<Result<TaskView>>,
    check: OutputCheck,
    /// Keys presented to the host, ever (rule 7).
    presented: SortedSet<String>,
    /// Answers not yet acknowledged by a `tasks/update` (rule 8).
    answered: Map,
    update_keys: Vec<String>,
    /// Keys whose answers the server acknowledged (or stopped asking for).
    acked: SortedSet<String>,
    /// Keys whose last `tasks/update` ended without a definite answer (rule 8): not sent
    /// again until a poll started after that update ended still lists them. An older poll
    /// may have been answered before the server applied the update.
    unsettled: SortedSet<String>,
    /// Polls started so far, the number of the one in flight, and the last poll started
    /// before the inconclusive update ended (its answer says nothing about that update).
    polls_started: u64,
    poll_number: u64,
    unsettled_before: u64,
    asking: SmallMap<AskId, String>,
    queued: Vec<(InputRequest, Option<UrlFacts>)>,
    outstanding: SmallMap<String, InputRequest>,
    rounds: u32,
    waiters: Vec<Waiter>,
    poll: Option<Box<Call>>,
    next_poll: Option<Millis>,
    update: Option<Box<Call>>,
    transient_streak: u32,
    /// A 2025-11-25 task: polled with the 2025 shapes; input comes as server requests on
    /// the `tasks/result` stream, and the outcome from `tasks/result`.
    legacy: bool,
    result_call: Option<Box<Call>>,
    // Visibility and network (issue 13, `schedule`):
    /// When the last poll started.
    last_poll_at: Option<Millis>,
    /// When the next poll is due by `pollIntervalMs`, the back-off and the TTL alone.
    poll_due: Option<Millis>,
    // ---- durable store (issue 13, `store.rs`) ----
    /// The tool that created the task, for the stored record.
    tool: Option<String>,
    /// Kept in the task store: created by a tool call, handed to a wait, or restored.
    durable: bool,
    /// The record last written (nothing is written again while it is unchanged).
    stored: Option<Value>,
    // ---- coordination across contexts (issue 13; `peers`) ----
    /// This task's coordination with the other contexts; `None` when not coordinated.
    peer: Option<Box<peers::PeerTask>>,
    /// Covered by the shared task stream since then (issue 14, `push`; rule 26).
    pushed: Option<Millis>,
    /// Listed in a listen awaiting its acknowledgement: no poll but the first before this
    /// (the ack deadline; rule 26).
    push_hold: Option<Millis>,
    /// When the task stream last told about the task (rule 26).
    heard_at: Option<Millis>,
    /// When the last observation was taken (`poll::is_stale`).
    observed_at: Option<Millis>,
}

/// All task drivers of a client.
#[derive(Default)]
pub(crate) struct TaskBook {
    /// Boxed: a `Driver` is ~1.2 KB on a 64-bit host (2.8 KB before its optional `Call`s
    /// were boxed too), the sorted `Vec` moves the entries after each insert or remove, and
    /// it holds up to twice as many slots as drivers (`push::task_memory_probe`).
    drivers: SortedMap<String, Box<Driver>>,
    /// This context among the others (issue 13; `peers`).
    peers: peers::Peers,
    /// The shared task stream (issue 14, `push`).
    push: push::Push,
}

fn owner(id: &str, part: Part) -> Owner {
    Owner::Task(id.to_string(), part)
}

/// Whether what the client knows of the task says its TTL has passed (rule 10).
pub(crate) fn ttl_passed(last: Option<&Task>, now: Millis) -> bool {
    last.and_then(Task::expires_at_ms)
        .is_some_and(|t| (now as i64) >= t)
}

/// Maps an error of a `tasks/get` request (rule 14): `-32602` is "not found", or "expired"
/// when the TTL already passed; the code decides, not the message. (On `tasks/update` and
/// `tasks/cancel`, `-32602` is not conclusive: their callers decide.)
pub(crate) fn map_task_error(e: Error, task_id: &str, last: Option<&Task>, now: Millis) -> Error {
    if e.kind == ErrorKind::Mcp && e.code == Some(INVALID_PARAMS) {
        let expired = ttl_passed(last, now);
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
            presented: SortedSet::default(),
            answered: Map::new(),
            update_keys: Vec::new(),
            acked: SortedSet::default(),
            unsettled: SortedSet::default(),
            polls_started: 0,
            poll_number: 0,
            unsettled_before: 0,
            asking: SmallMap::default(),
            queued: Vec::new(),
            outstanding: SmallMap::default(),
            rounds: 0,
            waiters: Vec::new(),
            poll: None,
            next_poll: None,
            update: None,
            transient_streak: 0,
            legacy: false,
            result_call: None,
            last_poll_at: None,
            poll_due: None,
            tool: None,
            durable: false,
            stored: None,
            peer: None,
            pushed: None,
            push_hold: None,
            heard_at: None,
            observed_at: None,
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
            sh.forget_ask(&ask);
            sh.push(Action::CancelAsk(ask));
            self.presented.remove(&key);
        }
        for (req, _) in self.queued.drain(..) {
            self.presented.remove(&req.key);
        }
        if self.waiters.is_empty() {
            self.peer_leave(sh);
        }
    }

    fn deadline(&self, part: Part) -> Option<Millis> {
        match part {
            Part::Poll => match &self.poll {
                Some(c) => c.deadline(),
                None => self.next_poll,
            },
            Part::Update => self.update.as_deref().and_then(Call::deadline),
            Part::Result => self.result_call.as_deref().and_then(Call::deadline),
        }
    }
}

fn clone_result(r: &Result<TaskView>) -> Result<TaskView> {
    match r {
        Ok(v) => Ok(v.clone()),
        Err(e) => Err(e.clone()),
    }
}

impl TaskBook {
    /// Records a task the server created (the seed is not trusted: rule 4).
    pub(crate) fn register(&mut self, task: &Task, check: OutputCheck, legacy: bool) {
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
        let d = self.drivers.get_or_insert_with(task.task_id.clone(), || {
            Box::new(Driver::new(
                task.task_id.clone(),
                Some(task.clone()),
                check.clone(),
            ))
        });
        if d.last.is_none() {
            d.last = Some(task.clone());
        }
        d.legacy = legacy;
    }

    pub(crate) fn last(&self, id: &str) -> Option<&Task> {
        self.drivers.get(id).and_then(|d| d.last.as_ref())
    }

    /// A wait starts. The task's first poll goes out at once (rule 4) unless one is in
    /// flight; a later wait polls at once only when the last poll is older than the
    /// interval (rule 5, `Driver::poll_on_join`).
    pub(crate) fn attach(
        &mut self,
        sh: &mut Shared,
        seed: Option<&Task>,
        id: &str,
        op: OpId,
        deadline: Option<Millis>,
        legacy: bool,
    ) -> Vec<Note> {
        let d = self.drivers.get_or_insert_with(id.to_string(), || {
            let mut d = Driver::new(id.to_string(), seed.cloned(), OutputCheck::None);
            d.legacy = legacy;
            Box::new(d)
        });
        if let Some(done) = &d.done {
            return vec![Note::Final(vec![op], clone_result(done))];
        }
        d.waiters.push(Waiter { op, deadline });
        // Durable tasks: a task handed to a wait is stored (`store.rs`).
        d.durable = true;
        // Rules 5 and 24: a wait joining a task already polled shares its polls (and
        // their pollIntervalMs); an idle driver polls at once unless its last poll is
        // more recent than the interval. Coordinated, it polls once it holds the task's
        // lock (`peers`).
        if !d.peer_join(sh, &self.peers) && d.poll.is_none() && d.next_poll.is_none() {
            d.poll_on_join(sh);
        }
        self.peer_after(sh, id);
        // Inputs withdrawn when the last wait left are presented again by the next poll.
        Vec::new()
    }

    /// A wait ended (timed out, aborted, or finished). The task keeps running (rule 16).
    pub(crate) fn detach(&mut self, sh: &mut Shared, id: &str, op: OpId) {
        let Some(d) = self.drivers.get_mut(id) else {
            return;
        };
        d.waiters.retain(|w| w.op != op);
        if d.waiters.is_empty() {
            d.stop_activity(sh);
        }
        self.peer_after(sh, id);
    }

    /// An exchange event of a driver.
    pub(crate) fn on_call(
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
                Part::Update => d.on_update(sh, input),
                Part::Result => d.on_result(sh, input, &mut notes),
            }
        }
        notes
    }

    /// A host answer for one of a driver's asks.
    pub(crate) fn on_answer(
        &mut self,
        sh: &mut Shared,
        id: &str,
        ask: AskId,
        answer: Result<Value>,
    ) -> Vec<Note> {
        let mut notes = Vec::new();
        if let Some(d) = self.drivers.get_mut(id) {
            d.on_answer(sh, ask, answer, &mut notes);
        }
        notes
    }

    /// One input for a driver's part: an exchange event, a host answer for one of its
    /// asks, or its timer (the shape every operation has: `ops::Operation::handle`).
    pub(crate) fn handle(
        &mut self,
        sh: &mut Shared,
        id: &str,
        part: Part,
        input: CallInput,
    ) -> Vec<Note> {
        let notes = match input {
            CallInput::Timer => self.on_timer(sh, id, part),
            CallInput::Answer(ask, answer) => self.on_answer(sh, id, ask, answer),
            other => self.on_call(sh, id, part, other),
        };
        self.peer_after(sh, id);
        notes
    }

    /// A timer event: a scheduled poll, or a poll/update timeout.
    pub(crate) fn on_timer(&mut self, sh: &mut Shared, id: &str, part: Part) -> Vec<Note> {
        let mut notes = Vec::new();
        let Some(d) = self.drivers.get_mut(id) else {
            return notes;
        };
        match part {
            Part::Poll => {
                if d.poll.is_some() {
                    d.on_poll(sh, CallInput::Timer, &mut notes);
                } else if d.peer_follows() {
                    d.peer_timer(sh, &mut notes);
                } else if d.next_poll.is_some_and(|t| t <= sh.now) && !d.waiters.is_empty() {
                    d.on_poll_due(sh, &mut notes);
                }
            }
            Part::Update => d.on_update(sh, CallInput::Timer),
            Part::Result => d.on_result(sh, CallInput::Timer, &mut notes),
        }
        notes
    }

    /// `notifications/tasks` for a task someone waits on (rule 22): used as an observation.
    /// For a task already terminal it only warns about a regression (the outcome stays).
    pub(crate) fn on_notification(&mut self, sh: &mut Shared, dt: DetailedTask) -> Vec<Note> {
        let mut notes = Vec::new();
        if let Some(d) = self.drivers.get_mut(&dt.task.task_id) {
            if !d.waiters.is_empty() || d.done.is_some() {
                d.observe(sh, dt, &mut notes, false, None);
            }
        }
        notes
    }

    pub(crate) fn deadline(&self, id: &str, part: Part) -> Option<Millis> {
        self.drivers.get(id).and_then(|d| d.deadline(part))
    }

    /// Drops all task bookkeeping (a legacy session ended: its task ids mean nothing now).
    /// True when no task is driven: nobody waits, nothing is in flight or scheduled
    /// (drivers of tasks seen stay, with their outcome and the keys presented).
    pub(crate) fn is_idle(&self) -> bool {
        self.drivers.values().all(|d| {
            d.waiters.is_empty()
                && d.poll.is_none()
                && d.update.is_none()
                && d.result_call.is_none()
                && d.asking.is_empty()
                && d.next_poll.is_none()
        }) && self.push.is_idle()
    }

    /// `close()`: every driver stops, an update in flight included, and no timer of a
    /// driver stays (after `close()` nothing is sent but what closing itself sends: a
    /// driver's update timing out a minute later re-sent its answers). The answers of a
    /// dropped update stay in the task's store record with `storeAnswers`, for the next page.
    pub(crate) fn close(&mut self, sh: &mut Shared) {
        for d in self.drivers.values_mut() {
            d.stop_activity(sh);
            if let Some(mut u) = d.update.take() {
                u.cancel(sh);
            }
            for part in [Part::Poll, Part::Update, Part::Result] {
                sh.set_deadline(&owner(&d.id, part), None);
            }
        }
    }

    pub(crate) fn clear(&mut self, sh: &mut Shared) -> Vec<Note> {
        let mut notes = Vec::new();
        for (_, mut d) in self.drivers.drain() {
            // The class's code (an McpError): what the server says of a task it does not
            // know (rule 14), which a session's end makes of its tasks.
            let e = Error::new(
                ErrorKind::TaskNotFound,
                format!("task \"{}\" ended with its session", sanitize(&d.id, 100)),
            )
            .with_code(INVALID_PARAMS);
            if let Some(mut u) = d.update.take() {
                u.cancel(sh);
            }
            d.finish(sh, Err(e), false, &mut notes);
        }
        notes
    }
}
