//! Operations parked until the session is ready (detection, `initialize`). A parked
//! operation keeps its own call policy's deadlines: a `timeoutMs` of its own and its
//! `maxTotalTimeoutMs` (or the client's) run from its start, not from when the session
//! lets its request leave; the time spent parked counts toward the latter. Without them
//! it waits as long as the session's own steps may (each has `requestTimeoutMs`).

use super::start::Start;
use super::Core;
use crate::engine::actions::{OpId, OpOptions};
use crate::engine::ops::WaitOp;
use crate::engine::shared::Owner;
use crate::error::Error;
use crate::time::Millis;

impl Start {
    fn opts(&self) -> Option<&OpOptions> {
        match self {
            Start::Discover(o)
            | Start::Request { opts: o, .. }
            | Start::ListAll { opts: o, .. }
            | Start::CallTool { opts: o, .. }
            | Start::TaskRpc { opts: o, .. }
            | Start::ListTasks { opts: o, .. } => Some(o),
            Start::Wait { .. } | Start::Listen { .. } => None,
        }
    }

    fn opts_mut(&mut self) -> Option<&mut OpOptions> {
        match self {
            Start::Discover(o)
            | Start::Request { opts: o, .. }
            | Start::ListAll { opts: o, .. }
            | Start::CallTool { opts: o, .. }
            | Start::TaskRpc { opts: o, .. }
            | Start::ListTasks { opts: o, .. } => Some(o),
            Start::Wait { .. } | Start::Listen { .. } => None,
        }
    }
}

impl Core {
    /// When parked operation `s`, parked at `at`, gives up.
    fn parked_deadline(&self, s: &Start, at: Millis) -> Option<Millis> {
        if let Start::Wait { deadline, .. } = s {
            return *deadline;
        }
        let opts = s.opts()?;
        let soft = opts.timeout_ms.map(|ms| at.saturating_add(ms));
        let hard = (opts.max_total_timeout_ms)
            .or(self.sh.cfg.max_total_timeout_ms)
            .map(|ms| at.saturating_add(ms));
        match (soft, hard) {
            (Some(s), Some(h)) => Some(s.min(h)),
            (s, h) => s.or(h),
        }
    }

    /// Parks operation `id` until the session is ready, with its own deadline.
    pub(super) fn park(&mut self, id: OpId, s: Start) {
        let at = self.sh.now;
        let d = self.parked_deadline(&s, at);
        self.sh.set_deadline(&Owner::Op(id), d);
        self.parked.push((id, s, at));
    }

    /// True when operation `id` is parked.
    pub(super) fn is_parked(&self, id: OpId) -> bool {
        self.parked.iter().any(|p| p.0 == id)
    }

    /// Parked operation `id`'s deadline passed: it fails with a `TimeoutError`.
    pub(super) fn parked_due(&mut self, id: OpId) {
        let Some(i) = self.parked.iter().position(|p| p.0 == id) else {
            return;
        };
        let (_, s, _) = self.parked.remove(i);
        let e = match s {
            Start::Wait { t, want, deadline } => WaitOp {
                task_id: t.task_id,
                want,
                deadline,
            }
            .timeout_error(&self.tasks),
            _ => Error::timeout("the call's time ran out while it waited for the session"),
        };
        self.done(id, Err(e));
    }

    /// The session is ready: the parked operations start, the time they spent parked
    /// taken from their `maxTotalTimeoutMs` (the client's, when they have none).
    pub(super) fn unpark_all(&mut self) {
        for (id, mut s, at) in std::mem::take(&mut self.parked) {
            let spent = self.sh.now.saturating_sub(at);
            let cfg_total = self.sh.cfg.max_total_timeout_ms;
            if let Some(o) = s.opts_mut().filter(|_| spent > 0) {
                if let Some(ms) = o.max_total_timeout_ms.or(cfg_total) {
                    o.max_total_timeout_ms = Some(ms.saturating_sub(spent).max(1));
                }
            }
            self.run(id, s);
        }
    }
}
