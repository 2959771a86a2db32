//! The context's visibility and network as inputs (issue 13, "Visibility and network"):
//! the shell reports `visibilitychange` and `online`/`offline`; the task drivers
//! reschedule their polls (`engine::task::schedule`); subscriptions whose stream dropped
//! while offline listen again once online (`engine::listen`).

use super::Core;
use crate::engine::actions::OpId;
use crate::engine::ops::{Ctx, Op, Step};
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
        if online {
            self.wake_listens();
        }
    }

    /// Subscriptions whose stream dropped while offline listen again
    /// (`ListenOp::on_online`).
    fn wake_listens(&mut self) {
        let ids: Vec<OpId> = self
            .ops
            .iter()
            .filter(|(_, o)| matches!(o, Op::Listen(_)))
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            let Some(mut op) = self.ops.remove(&id) else {
                continue;
            };
            let mut cx = Ctx::new(&mut self.sh, &mut self.tasks);
            if let Op::Listen(l) = &mut op {
                l.on_online(&mut cx, id);
            }
            let notes = cx.notes;
            self.settle(id, op, Step::Pending, notes);
        }
    }
}
