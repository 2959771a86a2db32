//! The shared task stream's events (issue 14, rules 26 and 27): the acknowledgement,
//! `notifications/tasks`, drops and refusals.

use super::{close, STABLE_MS};
use crate::engine::actions::Action;
use crate::engine::call::CallInput;
use crate::engine::shared::Shared;
use crate::engine::task::{Note, TaskBook};
use crate::error::{json_text, sanitize, ErrorKind};
use crate::http::request::META_SUBSCRIPTION_ID;
use crate::json::Value;
use crate::protocol::jsonrpc::RequestId;
use crate::protocol::tasks::decode_detailed_task;
use crate::sorted_map::SortedSet;

impl TaskBook {
    /// An event of stream `gen` (or, for `gen` 0, the book's timer). Returns the tasks
    /// whose timers moved.
    pub(crate) fn push_input(
        &mut self,
        sh: &mut Shared,
        gen: u64,
        input: CallInput,
    ) -> Vec<String> {
        if gen == 0 {
            return match input {
                CallInput::Timer => self.push_timer(sh),
                _ => Vec::new(),
            };
        }
        let Some(s) = self.push.stream(gen) else {
            return Vec::new();
        };
        let acked = s.acked_at.is_some();
        let reason = match input {
            CallInput::Response(_) => "the server ended the task stream".to_string(),
            CallInput::StreamClosed => {
                "the task stream closed without a final response".to_string()
            }
            CallInput::RpcError(e, _) if !acked => {
                // Refused (method unknown, capability missing...): polling as before.
                let msg = format!(
                    "the server refused the task stream (error {}: {}); polling tasks instead",
                    e.code,
                    sanitize(&e.message, 200)
                );
                return self.push_off(sh, Some(msg));
            }
            CallInput::RpcError(e, _) => format!("error {}: {}", e.code, sanitize(&e.message, 200)),
            CallInput::Failed(e)
                if !acked
                    && e.kind == ErrorKind::Http
                    && e.status
                        .is_some_and(|s| (400..500).contains(&s) && s != 408 && s != 429) =>
            {
                let msg = format!(
                    "the server refused the task stream ({}); polling tasks instead",
                    sanitize(&e.message, 200)
                );
                return self.push_off(sh, Some(msg));
            }
            CallInput::Failed(e) => e.message,
            CallInput::Timer | CallInput::Progress(_) | CallInput::Answer(..) => return Vec::new(),
        };
        self.push_dropped(sh, gen, &reason)
    }

    /// Stream `gen` ended without being asked to.
    fn push_dropped(&mut self, sh: &mut Shared, gen: u64, reason: &str) -> Vec<String> {
        if self.push.next.as_ref().is_some_and(|s| s.gen == gen) {
            // The replacement failed; the current stream (if any) goes on.
            close(sh, self.push.next.take());
            let touched = self.push_release(sh);
            let more = self.push_retry(sh, reason);
            return touched.into_iter().chain(more).collect();
        }
        let Some(s) = self.push.current.take() else {
            return Vec::new();
        };
        if s.acked_at
            .is_some_and(|t| sh.now.saturating_sub(t) >= STABLE_MS)
        {
            self.push.attempts = 0;
        }
        close(sh, Some(s));
        let touched = self.push_uncover(sh);
        let more = self.push_retry(sh, reason);
        touched.into_iter().chain(more).collect()
    }

    /// A message on stream `gen`. Returns the notes for the waiters and the tasks whose
    /// timers moved.
    pub(crate) fn push_notification(
        &mut self,
        sh: &mut Shared,
        gen: u64,
        method: &str,
        params: Value,
    ) -> (Vec<Note>, Vec<String>) {
        let mut notes = Vec::new();
        let Some(s) = self.push.stream(gen) else {
            return (notes, Vec::new());
        };
        let tag = params
            .get("_meta")
            .and_then(|m| m.get(META_SUBSCRIPTION_ID));
        if let Some(tag) = tag {
            if RequestId::from_value(tag).as_ref() != Some(&s.id) {
                sh.push(Action::Warn {
                    message: format!(
                        "dropped {} for another subscription ({}) on the task stream",
                        sanitize(method, 80),
                        sanitize(&json_text(tag), 60)
                    ),
                });
                return (notes, Vec::new());
            }
        }
        let acked = s.acked_at.is_some();
        match method {
            "notifications/subscriptions/acknowledged" if !acked => {
                return (notes, self.push_acknowledged(sh, gen, &params));
            }
            "notifications/cancelled" => {
                return (notes, self.push_dropped(sh, gen, "cancelled by the server"));
            }
            "notifications/tasks" if acked => {}
            _ => {
                sh.push(Action::Warn {
                    message: format!(
                        "dropped {} on the task stream{}",
                        sanitize(method, 80),
                        if acked {
                            ""
                        } else {
                            " before its acknowledgement"
                        }
                    ),
                });
                return (notes, Vec::new());
            }
        }
        let decoded = Some(decode_detailed_task(
            &crate::json::RawJson::of(&params),
            None,
            true,
        ));
        let dt = match decoded {
            Some(Ok(dt)) => dt,
            Some(Err(e)) => {
                sh.push(Action::Warn {
                    message: format!("dropped a malformed notifications/tasks: {}", e.message),
                });
                return (notes, Vec::new());
            }
            None => return (notes, Vec::new()),
        };
        let id = dt.task.task_id.clone();
        // Rule 22: an observation, for a task someone waits on here (others are ignored).
        let Some(d) = self.drivers.get_mut(&id) else {
            return (notes, Vec::new());
        };
        if d.waiters.is_empty() && d.done.is_none() {
            return (notes, Vec::new());
        }
        if d.done.is_none() {
            d.heard_at = Some(sh.now);
            // The leader shares what it heard with the other contexts (`peers`).
            let mut p = params;
            if let Value::Object(m) = &mut p {
                m.remove("_meta");
            }
            d.peer_observed(sh, &json_text(&p));
        }
        d.observe(sh, dt, &mut notes, false, None);
        (notes, vec![id])
    }

    /// Stream `gen` was acknowledged: it replaces the current one (rule 26).
    fn push_acknowledged(&mut self, sh: &mut Shared, gen: u64, params: &Value) -> Vec<String> {
        let Some(mut s) = self.push.next.take().filter(|s| s.gen == gen) else {
            return Vec::new();
        };
        let granted = params.get("notifications").and_then(|n| n.get("taskIds"));
        let granted: Option<SortedSet<String>> = match granted {
            None => None,
            Some(Value::Array(a)) if a.iter().all(Value::is_string) => Some(
                a.iter()
                    .filter_map(Value::as_str)
                    .filter(|id| s.ids.contains(*id))
                    .map(str::to_string)
                    .collect(),
            ),
            Some(other) => {
                sh.push(Action::Warn {
                    message: format!(
                        "the task stream's acknowledgement has a malformed taskIds ({}); polling tasks instead",
                        sanitize(&json_text(other), 60)
                    ),
                });
                None
            }
        };
        let Some(granted) = granted.filter(|g| !g.is_empty()) else {
            // The server pushes no task: polling as before, and no more task listens.
            close(sh, Some(s));
            return self.push_off(sh, None);
        };
        s.acked_at = Some(sh.now);
        close(sh, self.push.current.take());
        let mut touched = Vec::new();
        for (id, d) in self.drivers.iter_mut() {
            if granted.contains(id) && self.push.needed.contains(id) {
                // Coverage is continuous when the old stream covered the task until now.
                if !self.push.covered.contains(id) || d.pushed.is_none() {
                    d.pushed = Some(sh.now);
                }
                if d.push_hold.take().is_some() && d.poll.is_none() && d.poll_due.is_some() {
                    // Newly covered: one more poll at the interval, unless the stream tells
                    // about the task first.
                    d.set_due(sh, sh.now.saturating_add(d.interval()));
                    touched.push(id.clone());
                }
            } else if d.pushed.is_some() || d.push_hold.is_some() {
                d.push_lost(sh);
                touched.push(id.clone());
            }
        }
        self.push.covered = granted;
        self.push_count(sh);
        self.push.current = Some(s);
        // Waits that started meanwhile: another listen (batched).
        let missing = self.push.needed.iter().any(|id| {
            self.push
                .current
                .as_ref()
                .is_some_and(|s| !s.ids.contains(id))
        });
        if missing {
            self.push.schedule(sh.now);
        }
        touched
    }
}
