//! The context's visibility and network as inputs (issue 13, "Visibility and network"):
//! the shell reports `visibilitychange` and `online`/`offline`; the task drivers
//! reschedule their polls (`engine::task::schedule`); subscriptions whose stream dropped
//! while offline listen again once online (`engine::listen`), and so does a 2025
//! session's GET stream (`engine::session::get_stream`).

use super::Core;
use crate::engine::ops::{Ctx, Op};
use crate::engine::shared::Owner;
use crate::engine::task::Presence;
use crate::time::Millis;

impl Core {
    /// The context became hidden (`true`) or visible (`false`). While hidden, waited tasks
    /// are polled at most every `max(pollIntervalMs, hiddenPollIntervalMs)`; visible
    /// again, a task whose last poll is older than `pollIntervalMs` is polled at once.
    pub fn set_hidden(&mut self, hidden: bool, now: Millis) {
        let p = Presence {
            hidden,
            ..self.sh.presence
        };
        self.set_presence(p, now);
    }

    /// The context went online (`true`) or offline (`false`). Offline, nothing is polled
    /// and answers wait; online, every waited task is polled at once, back-offs reset and
    /// the waiting answers go out; a subscription whose stream dropped listens again, and an
    /// input round's retry that failed offline is sent again (`Call::on_online`).
    pub fn set_online(&mut self, online: bool, now: Millis) {
        let p = Presence {
            online,
            ..self.sh.presence
        };
        self.set_presence(p, now);
    }

    fn set_presence(&mut self, p: Presence, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        let was = self.sh.presence;
        if was == p {
            return;
        }
        self.sh.presence = p;
        for id in self.tasks.on_presence(&mut self.sh, was) {
            self.refresh_task(&id);
        }
        if p.online && !was.online {
            // Subscriptions whose stream dropped while offline listen again.
            let mut woken = Vec::new();
            let mut cx = Ctx::new(&mut self.sh, &mut self.tasks);
            for (id, op) in self.ops.iter_mut() {
                if let Op::Listen(l) = &mut **op {
                    if l.on_online(&mut cx, *id) {
                        woken.push(*id);
                    }
                }
            }
            // And a request's retry carrying answers, held while offline (`Call::on_online`).
            for (id, op) in self.ops.iter_mut() {
                let sent = match &mut **op {
                    Op::Rpc(r) => r.on_online(&mut self.sh, *id),
                    Op::Tool(t) => t.on_online(&mut self.sh, *id),
                    _ => false,
                };
                if sent {
                    woken.push(*id);
                }
            }
            for id in woken {
                self.refresh(&Owner::Op(id));
            }
            // And a 2025 session's GET stream that dropped reopens.
            self.session.on_online(&mut self.sh);
            // And the shared task stream (`task::push`).
            self.push_online();
            self.refresh_session();
        }
    }
}
