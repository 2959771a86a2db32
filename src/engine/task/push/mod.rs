//! Push-driven tasks (issue 14, target 3; rules 25 to 27): one `subscriptions/listen`
//! stream per client carries `notifications/tasks` for every task this context polls, and
//! `tasks/get` becomes a slow backstop for the tasks the server acknowledged.
//!
//! - **The filter** (rule 25) is the set of tasks someone waits on here and this context
//!   polls (not a follower's, `peers`; not a 2025 task). A listen filter cannot be changed
//!   in place (spec `basic/patterns/subscriptions.mdx`: a subscription is one request;
//!   "A client MAY have multiple active subscriptions concurrently"), so a changed filter
//!   is a new listen request, and the old stream is closed once the new one is
//!   acknowledged (make before break: no gap). Changes are batched: a new listen goes out
//!   50 ms after the first change and at least 1 s after the previous one, so a thousand
//!   waits starting together cost one listen request. The filter grows at once (after
//!   that delay); ids whose waits ended are dropped from it only when they outnumber the
//!   live ones, or when no wait is left (the stream then closes at once).
//! - **Acknowledgement** (rule 26): the tasks the server lists in `taskIds` of its
//!   `notifications/subscriptions/acknowledged` are *covered* from then on; until then
//!   the tasks a listen adds are not polled again (for at most `max(pollIntervalMs, 5 s)`). A
//!   covered task last polled or heard of after its coverage began is polled only as a
//!   backstop, at most once per `max(pollIntervalMs, 60 s)`, and more seldom when more
//!   than 300 tasks are covered: the backstops of all of them together average at most
//!   five polls a second (`backstop_period`); otherwise one more poll
//!   follows at the usual interval, since a change between its last poll and the
//!   subscription would otherwise go unseen for a minute. Tasks the
//!   server did not list are polled as before. A server whose acknowledgement lists no
//!   task (or lacks `taskIds`), or that refuses the listen, gets no more task listens from
//!   this client: it is polled as before.
//! - **Drops** (rule 27): a stream that drops (closes without its response, an error, a
//!   graceful end, `notifications/cancelled`) uncovers its tasks: each is polled at once
//!   when its last poll is older than its `pollIntervalMs`, then at that interval, and the
//!   client listens again after a back-off (`listenBackoffMs` doubling to
//!   `listenMaxBackoffMs`; offline, once online). Once acknowledged again, each task gets
//!   one more poll, then the backstop. After `listenMaxRetries` failures in a row the
//!   client polls for good.
//!
//! The streams' exchanges belong to `Owner::Push(n)` (n >= 1, one per listen request);
//! the book's one timer is `Owner::Push(0)`. Here: the filter, the listen requests, the
//! drivers' hooks; in `stream`: what each stream's events and messages do.

mod stream;

use super::{Driver, TaskBook};
use crate::engine::actions::Action;
use crate::engine::ids::ExchangeId;
use crate::engine::shared::{Era, Owner, Shared};
use crate::error::sanitize;
use crate::http::request::Params;
use crate::json::{Map, Value};
use crate::protocol::capabilities::server_tasks;
use crate::protocol::jsonrpc::RequestId;
use crate::protocol::tasks::TaskStatus;
use crate::sorted_map::SortedSet;
use crate::time::Millis;

/// The slowest backstop poll of a covered task: at most one per `max(pollIntervalMs, this)`.
pub(crate) const BACKSTOP_MS: u64 = 60_000;
/// The backstop polls of all covered tasks together: at most this many a second on
/// average (`backstop_period`).
const BACKSTOP_PER_S: u64 = 5;

/// The period of each covered task's backstop poll when `covered` tasks are covered:
/// `BACKSTOP_MS`, or longer when that many tasks would together poll more than
/// `BACKSTOP_PER_S` times a second (over 300 tasks). The backstop only catches a
/// notification the server lost while its stream stayed up (the spec's "Clients MAY continue
/// polling `tasks/get` in addition to subscribing ..., but need not do so", tasks extension,
/// "Task Status Notifications"); a drop is caught at once (rule 27). Without the bound,
/// a page waiting on thousands of tasks would spend a steady share of a core and load the
/// server with polls that push was meant to remove: 1,000 tasks at one a minute are 16.7
/// polls a second, ~2.5 ms of main-thread time each on a slow machine's Chromium
/// (BENCHMARKS.md, the sixteenth session).
pub(crate) fn backstop_period(covered: usize) -> u64 {
    let spread = (covered as u64).saturating_mul(1000) / BACKSTOP_PER_S;
    BACKSTOP_MS.max(spread)
}
/// Changes within this window go out in one listen request.
const COALESCE_MS: u64 = 50;
/// Shortest time between two listen requests.
const MIN_GAP_MS: u64 = 1_000;
/// Longest hold of a task's polls while its listen awaits the acknowledgement (or its
/// `pollIntervalMs`, when longer; never past the ack deadline).
const HOLD_MS: u64 = 5_000;
/// A stream that lived this long before it dropped counts as a success (the back-off resets).
const STABLE_MS: u64 = 60_000;

/// The owner of the book's one timer.
pub(crate) fn timer_owner() -> Owner {
    Owner::Push(0)
}

/// One listen request of the book.
struct Stream {
    gen: u64,
    xfer: Option<ExchangeId>,
    id: RequestId,
    /// The task ids it asked for.
    ids: SortedSet<String>,
    acked_at: Option<Millis>,
    ack_deadline: Millis,
}

/// The shared task stream of a client.
#[derive(Default)]
pub(crate) struct Push {
    /// No more task listens: the server refused them or pushes no task, or too many
    /// attempts failed.
    off: bool,
    /// The acknowledged stream.
    current: Option<Stream>,
    /// A listen waiting for its acknowledgement (it replaces `current` then).
    next: Option<Stream>,
    /// Tasks the current stream covers (since when: each driver's `pushed`, continuous
    /// across replacements).
    covered: SortedSet<String>,
    /// Tasks waited on and polled here (the filter wanted).
    needed: SortedSet<String>,
    /// When the filter is looked at again (a listen may go out then).
    due: Option<Millis>,
    /// No listen before this (back-off after a failure).
    not_before: Millis,
    /// A listen is due once the context is online again.
    waiting_online: bool,
    last_sent: Option<Millis>,
    /// Failed attempts in a row.
    attempts: u32,
    gens: u64,
}

impl Push {
    /// Nothing open, nothing scheduled.
    pub(super) fn is_idle(&self) -> bool {
        self.current.is_none() && self.next.is_none() && self.due.is_none()
    }

    fn deadline(&self) -> Option<Millis> {
        let ack = self.next.as_ref().map(|s| s.ack_deadline);
        let due = self.due.filter(|_| self.next.is_none());
        match (ack, due) {
            (Some(a), Some(d)) => Some(a.min(d)),
            (a, d) => a.or(d),
        }
    }

    /// A change of the filter: looked at after the batching delay.
    fn schedule(&mut self, now: Millis) {
        if self.due.is_some() || self.off {
            return;
        }
        let gap = self.last_sent.map_or(0, |t| t.saturating_add(MIN_GAP_MS));
        self.due = Some(
            now.saturating_add(COALESCE_MS)
                .max(gap)
                .max(self.not_before),
        );
    }

    fn stream(&self, gen: u64) -> Option<&Stream> {
        [self.current.as_ref(), self.next.as_ref()]
            .into_iter()
            .flatten()
            .find(|s| s.gen == gen)
    }
}

fn close(sh: &mut Shared, s: Option<Stream>) {
    if let Some(x) = s.and_then(|s| s.xfer) {
        sh.cancel_exchange(x);
    }
}

impl Driver {
    /// Rule 26: the backstop of a covered task last seen (polled or heard on the stream)
    /// after its coverage began: no poll before `max(pollIntervalMs, sh.backstop_ms)` after
    /// that (`backstop_period`: 60 s for up to 300 covered tasks); a
    /// task listed in a listen awaiting its acknowledgement is not polled before it comes
    /// (at most until the ack deadline).
    pub(super) fn push_due(&self, sh: &Shared, at: Millis) -> Millis {
        if let Some(h) = self.push_hold {
            return at.max(h);
        }
        // Input phases are polled as before: rule 8's decisions come from polls, and a
        // server may not notify when only `inputRequests` change.
        let asking = self.update.is_some()
            || !self.answered.is_empty()
            || !self.unsettled.is_empty()
            || self
                .last
                .as_ref()
                .is_some_and(|t| t.status == TaskStatus::InputRequired);
        if asking {
            return at;
        }
        let seen = self.last_poll_at.max(self.heard_at);
        match (self.pushed, seen) {
            (Some(since), Some(last)) if last >= since => {
                at.max(last.saturating_add(self.interval().max(sh.backstop_ms)))
            }
            _ => at,
        }
    }

    /// The scheduled poll follows `push_due` (a hold began).
    fn push_replan(&mut self, sh: &mut Shared) {
        if let Some(due) = self.poll_due.filter(|_| self.poll.is_none()) {
            self.set_due(sh, self.push_due(sh, due));
        }
    }

    /// Whether this context should have the task in its stream (rule 25).
    fn push_wanted(&self) -> bool {
        !self.waiters.is_empty() && self.done.is_none() && !self.legacy && !self.peer_follows()
    }

    /// Rule 27: the task is no longer covered: polled at its interval again, at once when
    /// its last poll is older than that.
    fn push_lost(&mut self, sh: &mut Shared) {
        let held = self.push_hold.take().is_some();
        if (self.pushed.take().is_none() && !held)
            || self.waiters.is_empty()
            || self.poll.is_some()
            || self.done.is_some()
            || self.peer_follows()
        {
            return;
        }
        let base = self
            .last_poll_at
            .map_or(sh.now, |l| l.saturating_add(self.interval()))
            .max(sh.now);
        let due = match self.poll_due {
            Some(d) if !held => d.min(base),
            _ => base,
        };
        if due <= sh.now && self.may_poll(sh) {
            self.start_poll(sh);
        } else {
            self.set_due(sh, due);
        }
    }
}

impl TaskBook {
    /// Whether this client may push tasks: configured, 2026-07-28, the extension declared
    /// by the host and (when known) by the server.
    fn push_enabled(&self, sh: &Shared) -> bool {
        !self.push.off
            && sh.cfg.push_tasks
            && sh.era == Era::Modern
            && sh.cfg.tasks_enabled()
            && sh
                .server_capabilities
                .as_ref()
                .is_none_or(|c| server_tasks(c, true).declared)
    }

    /// Task `id` changed (a wait started or ended, it finished, it changed leader): the
    /// filter follows (rule 25). The caller refreshes the book's timer.
    pub(crate) fn push_sync(&mut self, sh: &mut Shared, id: &str) {
        if !self.push_enabled(sh) && self.push.is_idle() {
            return;
        }
        self.push_filter(sh, id);
        self.push_count(sh);
    }

    /// The backstop's period follows the number of tasks covered and waited on here
    /// (`backstop_period`). A task's next backstop poll is planned with the period of
    /// when it was planned.
    fn push_count(&self, sh: &mut Shared) {
        let covered = self.push.covered.len().min(self.push.needed.len());
        sh.backstop_ms = backstop_period(covered);
    }

    /// `push_sync`'s filter (rule 25).
    fn push_filter(&mut self, sh: &mut Shared, id: &str) {
        let enabled = self.push_enabled(sh);
        let Some(d) = self.drivers.get_mut(id) else {
            self.push.needed.remove(id);
            self.push_maybe_close(sh);
            return;
        };
        if enabled && d.push_wanted() {
            self.push.needed.insert(id.to_string());
            if !self.push.covered.contains(id) {
                d.pushed = None;
            } else if d.pushed.is_none() {
                // Its notifications were ignored while nobody waited: covered from now on
                // (a wait's first poll goes out now, rule 4).
                d.pushed = Some(sh.now);
            }
            let listed = self
                .push
                .next
                .as_ref()
                .or(self.push.current.as_ref())
                .is_some_and(|s| s.ids.contains(id));
            if !listed {
                self.push.schedule(sh.now);
            }
        } else {
            d.pushed = None;
            d.push_hold = None;
            if self.push.needed.remove(id) {
                let listed = self.push.current.as_ref().map_or(0, |s| s.ids.len());
                // Ended waits leave the filter once they outnumber the live ones.
                if listed > 2 * self.push.needed.len() {
                    self.push.schedule(sh.now);
                }
            }
            self.push_maybe_close(sh);
        }
    }

    /// No task is waited on any more: the streams close at once.
    fn push_maybe_close(&mut self, sh: &mut Shared) {
        if self.push.needed.is_empty() {
            self.push_stop(sh);
        }
    }

    /// Closes the streams and forgets what they covered (drivers are left to the caller).
    fn push_stop(&mut self, sh: &mut Shared) {
        close(sh, self.push.current.take());
        close(sh, self.push.next.take());
        self.push.covered.clear();
        self.push.due = None;
        self.push.waiting_online = false;
        self.push_count(sh);
    }

    /// `client.close()`: everything closes, nothing is scheduled.
    pub(crate) fn push_close(&mut self, sh: &mut Shared) {
        self.push.needed.clear();
        self.push_stop(sh);
        for d in self.drivers.values_mut() {
            d.pushed = None;
        }
    }

    /// The book's timer.
    pub(crate) fn push_deadline(&self) -> Option<Millis> {
        self.push.deadline()
    }

    /// Back online: a listen that waited for the network goes out now.
    pub(crate) fn push_online(&mut self, sh: &mut Shared) {
        if std::mem::take(&mut self.push.waiting_online) {
            self.push.not_before = sh.now;
            self.push.attempts = 0;
            self.push.due = Some(sh.now);
        }
    }

    /// Uncovers every task (rule 27). Returns the tasks whose timers moved.
    fn push_uncover(&mut self, sh: &mut Shared) -> Vec<String> {
        self.push.covered.clear();
        self.push_count(sh);
        let mut touched = Vec::new();
        for (id, d) in self.drivers.iter_mut() {
            if d.pushed.is_some() || d.push_hold.is_some() {
                d.push_lost(sh);
                touched.push(id.clone());
            }
        }
        touched
    }

    /// The listen awaiting its acknowledgement failed: its tasks are polled as before.
    fn push_release(&mut self, sh: &mut Shared) -> Vec<String> {
        let mut touched = Vec::new();
        for (id, d) in self.drivers.iter_mut() {
            if d.push_hold.is_some() {
                d.push_lost(sh);
                touched.push(id.clone());
            }
        }
        touched
    }

    /// No more task listens for this client (rule 26): polling as before.
    fn push_off(&mut self, sh: &mut Shared, warn: Option<String>) -> Vec<String> {
        if let Some(message) = warn {
            sh.push(Action::Warn { message });
        }
        self.push.off = true;
        self.push_stop(sh);
        self.push_uncover(sh)
    }

    /// A listen attempt failed or a stream dropped: listen again after the back-off, or
    /// give up after too many failures in a row (rule 27).
    fn push_retry(&mut self, sh: &mut Shared, reason: &str) -> Vec<String> {
        if !sh.presence.online {
            self.push.waiting_online = true;
            self.push.due = None;
            return Vec::new();
        }
        let limits = &sh.cfg.limits;
        if self.push.attempts >= limits.listen_max_retries {
            let msg = format!(
                "the task stream failed {} times ({}); polling tasks instead",
                self.push.attempts + 1,
                sanitize(reason, 200)
            );
            return self.push_off(sh, Some(msg));
        }
        self.push.attempts += 1;
        let exp = (self.push.attempts - 1).min(20);
        let delay = limits
            .listen_backoff_ms
            .saturating_mul(1u64 << exp)
            .min(limits.listen_max_backoff_ms);
        self.push.not_before = sh.now.saturating_add(delay);
        self.push.due = None;
        self.push.schedule(sh.now);
        Vec::new()
    }

    /// The book's timer fired: an acknowledgement that did not come, or the filter is due.
    fn push_timer(&mut self, sh: &mut Shared) -> Vec<String> {
        if let Some(n) = &self.push.next {
            if sh.now >= n.ack_deadline {
                close(sh, self.push.next.take());
                let touched = self.push_release(sh);
                let more = self.push_retry(sh, "no acknowledgement");
                return touched.into_iter().chain(more).collect();
            }
            return Vec::new();
        }
        if self.push.due.is_some_and(|d| d <= sh.now) {
            self.push.due = None;
            return self.push_evaluate(sh);
        }
        Vec::new()
    }

    /// Opens a listen for the tasks needed when the filter grew, shrank enough, or the
    /// stream is gone (rule 25).
    fn push_evaluate(&mut self, sh: &mut Shared) -> Vec<String> {
        if !self.push_enabled(sh) || self.push.next.is_some() {
            return Vec::new();
        }
        if self.push.needed.is_empty() {
            self.push_stop(sh);
            return Vec::new();
        }
        if !sh.presence.online {
            self.push.waiting_online = true;
            return Vec::new();
        }
        let listed = self.push.current.as_ref().map(|s| &s.ids);
        let open = match listed {
            None => true,
            Some(ids) => {
                self.push.needed.iter().any(|id| !ids.contains(id))
                    || ids.len() > 2 * self.push.needed.len()
            }
        };
        if open {
            return self.push_listen(sh);
        }
        Vec::new()
    }

    /// A listen for the tasks needed. The tasks it adds are not polled again until it is
    /// acknowledged (or fails), for at most `max(pollIntervalMs, 5 s)`: in a browser, polls
    /// queued ahead of it (six connections per HTTP/1.1 origin) would otherwise delay it
    /// past its ack deadline.
    fn push_listen(&mut self, sh: &mut Shared) -> Vec<String> {
        let mut ids: Vec<&String> = self.push.needed.iter().collect();
        ids.sort_unstable();
        let list: Vec<Value> = ids.iter().map(|s| Value::from(s.as_str())).collect();
        let mut filter = Map::new();
        filter.insert("taskIds".into(), Value::Array(list));
        let mut params = Map::new();
        params.insert("notifications".into(), Value::Object(filter));
        self.push.gens += 1;
        let gen = self.push.gens;
        let framed = sh.request(
            "subscriptions/listen",
            Params::of(&params),
            &[],
            None,
            None,
            None,
        );
        let (xfer, id) = sh.send_request(Owner::Push(gen), framed);
        self.push.last_sent = Some(sh.now);
        let ack_deadline = sh.now.saturating_add(sh.cfg.limits.listen_ack_timeout_ms);
        let mut touched = Vec::new();
        for id in &self.push.needed {
            if let Some(d) = self.drivers.get_mut(id).filter(|d| d.pushed.is_none()) {
                let hold = sh.now.saturating_add(d.interval().max(HOLD_MS));
                d.push_hold = Some(hold.min(ack_deadline));
                d.push_replan(sh);
                touched.push(id.clone());
            }
        }
        self.push.next = Some(Stream {
            gen,
            xfer: Some(xfer),
            id,
            ids: self.push.needed.clone(),
            acked_at: None,
            ack_deadline,
        });
        touched
    }
}
