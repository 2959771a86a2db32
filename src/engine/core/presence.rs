//! The context's visibility and network as inputs (issue 13, "Visibility and network"):
//! the shell reports `visibilitychange` and `online`/`offline`; the task drivers
//! reschedule their polls (`engine::task::schedule`).

use super::Core;
use crate::time::Millis;

impl Core {
    /// The context became hidden (`true`) or visible (`false`). While hidden, waited tasks
    /// are polled at most every `max(pollIntervalMs, hiddenPollIntervalMs)`; visible
    /// again, a task whose last poll is older than `pollIntervalMs` is polled at once.
    pub fn set_hidden(&mut self, hidden: bool, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        if self.sh.presence.hidden == hidden {
            return;
        }
        self.sh.presence.hidden = hidden;
        let ids = self.tasks.set_hidden(&mut self.sh, hidden);
        for id in ids {
            self.refresh_task(&id);
        }
    }

    /// The context went online (`true`) or offline (`false`). Offline, nothing is polled
    /// and answers wait; online, every waited task is polled at once, back-offs reset and
    /// the waiting answers go out.
    pub fn set_online(&mut self, online: bool, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        if self.sh.presence.online == online {
            return;
        }
        self.sh.presence.online = online;
        let ids = self.tasks.set_online(&mut self.sh, online);
        for id in ids {
            self.refresh_task(&id);
        }
    }
}
