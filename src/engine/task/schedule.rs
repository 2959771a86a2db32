//! When a task is polled, given the context's visibility and network (issue 13,
//! "Visibility and network"):
//!
//! - hidden: a waited task is polled at most every `max(pollIntervalMs,
//!   hiddenPollIntervalMs)`, measured between poll starts: from when the engine started
//!   the last poll, or from when its request left if the host reports a later time
//!   (`Core::on_sent`); `hiddenPollIntervalMs: Infinity` (`None`) pauses polling while
//!   hidden;
//! - visible again: a task whose last poll started more than `pollIntervalMs` ago is
//!   polled at once, the others when their poll is due;
//! - offline: nothing is polled and no `tasks/update` goes out (answers wait in the
//!   driver); a poll that fails meanwhile counts no back-off;
//! - online: every waited task is polled at once (unless paused while hidden), the
//!   back-off resets, and answers given meanwhile go out, once;
//! - the TTL backstop (rule 10) still applies: a task that cannot be polled ends its waits
//!   with `TaskExpiredError` at its TTL, without a request. Wait deadlines (`timeoutMs`)
//!   are the waiting operations' own and run as always.
//!
//! The poll a task is due by the server's interval, the back-off and the TTL is kept
//! (`poll_due`); the poll actually scheduled (`next_poll`) is derived from it and the
//! context's state, and derived again whenever that state changes.

use super::poll::ttl_expired;
use super::{Driver, Note, TaskBook};
use crate::engine::shared::Shared;
use crate::time::Millis;

/// The context's state as the host reports it. Hosts without a document (workers, Node,
/// edge runtimes) are always visible; hosts without `navigator.onLine` always online.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Presence {
    /// `document.visibilityState === 'hidden'`.
    pub hidden: bool,
    /// Not `navigator.onLine === false`.
    pub online: bool,
}

impl Default for Presence {
    fn default() -> Self {
        Presence {
            hidden: false,
            online: true,
        }
    }
}

impl TaskBook {
    /// Task `id`'s poll in flight left at `now` (`Core::on_sent`): it counts as started
    /// then, if that is later than when the engine started it.
    pub(crate) fn poll_sent(&mut self, id: &str, now: Millis) {
        if let Some(d) = self.drivers.get_mut(id).filter(|d| d.poll.is_some()) {
            d.last_poll_at = Some(d.last_poll_at.map_or(now, |t| t.max(now)));
        }
    }
}

impl Driver {
    /// Whether this task counts as hidden: the context is hidden and, with coordination
    /// across contexts, no visible context waits on it (`peers`: "while every context
    /// waiting on a task is hidden").
    pub(super) fn hidden(&self, sh: &Shared) -> bool {
        sh.presence.hidden && !self.peer_visible_elsewhere()
    }

    /// The last poll started more than `pollIntervalMs` ago (or never): a context that
    /// becomes visible polls such a task at once.
    fn stale(&self, sh: &Shared) -> bool {
        self.last_poll_at
            .is_none_or(|t| sh.now.saturating_sub(t) > self.interval())
    }

    /// Whether a poll may start now: online, and not paused while hidden.
    pub(super) fn may_poll(&self, sh: &Shared) -> bool {
        sh.presence.online && !(self.hidden(sh) && sh.cfg.hidden_poll_interval_ms.is_none())
    }

    /// The TTL backstop (rule 10), in epoch ms.
    fn expiry(&self) -> Option<Millis> {
        self.last
            .as_ref()
            .and_then(|t| t.expires_at_ms())
            .map(|e| e.max(0) as Millis)
    }

    /// A wait joins this idle driver (rules 4 and 5). The task's first poll goes out at
    /// once, and so does one whose last poll started `pollIntervalMs` ago or more (or
    /// whose TTL has passed: the poll decides, rule 10). Otherwise the poll is due at the
    /// interval after the last one (no sooner than a back-off still running): back-to-back
    /// waits do not poll back to back (§ Task Polling: "Clients SHOULD respect the
    /// `pollIntervalMs`").
    pub(super) fn poll_on_join(&mut self, sh: &mut Shared) {
        let Some(last) = self.last_poll_at else {
            self.poll_now(sh);
            return;
        };
        let mut due = last.saturating_add(self.interval());
        if self.transient_streak > 0 {
            due = due.max(self.poll_due.unwrap_or(0));
        }
        if let Some(exp) = self.expiry() {
            due = due.min(exp);
        }
        if due <= sh.now {
            self.poll_now(sh);
        } else {
            self.set_due(sh, due);
        }
    }

    /// A poll now (a wait starts, rule 4), or as soon as the context allows it.
    pub(super) fn poll_now(&mut self, sh: &mut Shared) {
        if self.may_poll(sh) {
            self.start_poll(sh);
        } else {
            self.set_due(sh, sh.now);
        }
    }

    /// The next poll is due at `due` (by the interval, the back-off and the TTL): the one
    /// scheduled follows from the context's state.
    pub(super) fn set_due(&mut self, sh: &Shared, due: Millis) {
        self.poll_due = Some(due);
        self.next_poll = self.next_for(sh);
    }

    fn next_for(&self, sh: &Shared) -> Option<Millis> {
        let due = self.poll_due?;
        let expiry = self.expiry();
        if !self.may_poll(sh) {
            // Only the backstop runs.
            return expiry;
        }
        let mut at = due;
        if self.hidden(sh) {
            if let (Some(h), Some(last)) = (sh.cfg.hidden_poll_interval_ms, self.last_poll_at) {
                at = at.max(last.saturating_add(h.max(self.interval())));
                if let Some(exp) = expiry.filter(|e| *e > sh.now) {
                    at = at.min(exp);
                }
            }
        }
        Some(at)
    }

    /// The scheduled poll's time came: it starts if the context allows it; otherwise the
    /// TTL backstop ends the waits once the TTL has passed (rule 10), without a request.
    pub(super) fn on_poll_due(&mut self, sh: &mut Shared, notes: &mut Vec<Note>) {
        if self.may_poll(sh) {
            self.start_poll(sh);
            return;
        }
        if self.expiry().is_some_and(|e| sh.now >= e) {
            if let Some(t) = self.last.clone() {
                let e = ttl_expired(&self.id, &t);
                self.finish(sh, Err(e), true, notes);
                return;
            }
        }
        self.next_poll = self.next_for(sh);
    }

    /// The context's state changed from `was` to `sh.presence`: the next poll follows.
    /// Online again, the back-off resets, answers given meanwhile go out (whether or not
    /// someone still waits: they are never lost) and a waited task is polled at once;
    /// visible again, a task whose last poll started more than `pollIntervalMs` ago is.
    fn on_presence(&mut self, sh: &mut Shared, was: Presence) {
        let now_online = sh.presence.online && !was.online;
        if now_online {
            self.transient_streak = 0;
            if self.update.is_none() && !self.answered.is_empty() {
                self.send_update(sh);
            }
        }
        // A follower does not poll (`peers`): the leader's context decides.
        if self.waiters.is_empty() || self.poll.is_some() || self.peer_follows() {
            return;
        }
        let stale = self.stale(sh);
        let now_visible = was.hidden && !self.hidden(sh);
        self.next_poll = self.next_for(sh);
        let due = self.next_poll.is_some_and(|t| t <= sh.now);
        if self.may_poll(sh)
            && (now_online || due || (now_visible && stale && self.transient_streak == 0))
        {
            self.start_poll(sh);
        }
    }
}

impl Driver {
    /// Whether the task counts as hidden may have changed (a waiting context elsewhere
    /// showed or hid itself, `peers`): the next poll follows, and a task that became
    /// visible is polled at once when its last poll is older than `pollIntervalMs`.
    pub(super) fn replan(&mut self, sh: &mut Shared, was_hidden: bool) {
        if self.waiters.is_empty()
            || self.poll.is_some()
            || self.peer_follows()
            || self.poll_due.is_none()
        {
            return;
        }
        let stale = self.stale(sh);
        self.next_poll = self.next_for(sh);
        if was_hidden
            && !self.hidden(sh)
            && stale
            && self.transient_streak == 0
            && self.may_poll(sh)
        {
            self.start_poll(sh);
        }
    }
}

impl TaskBook {
    /// The context's state changed from `was` (now in `sh.presence`). Returns the tasks
    /// whose timers may have moved (their deadlines are the caller's to refresh).
    pub(crate) fn on_presence(&mut self, sh: &mut Shared, was: Presence) -> Vec<String> {
        let mut ids = Vec::new();
        for (id, d) in self.drivers.iter_mut() {
            if d.done.is_none() {
                d.on_presence(sh, was);
                ids.push(id.clone());
            }
        }
        ids
    }
}
