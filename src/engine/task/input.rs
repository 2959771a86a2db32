//! Input a task asks for: its `inputRequests` presented to the host once per key for
//! the task's whole life, the host's answers checked, and the answers sent with
//! `tasks/update` (and what an update's outcome does to them).

use super::{owner, Driver, Note, Part};
use crate::engine::actions::{Action, Ask, AskId, AskScope};
use crate::engine::call::{Call, CallInput, CallPolicy};
use crate::engine::input_requests::{check_answer, check_declared};
use crate::engine::shared::Shared;
use crate::error::json_object;
use crate::error::{sanitize, Error, ErrorKind, Result};
use crate::json::{Map, Value};
use crate::protocol::codes::{INTERNAL_ERROR, INVALID_PARAMS};
use crate::protocol::input::InputRequest;

pub(super) fn inputs_value(reqs: &[InputRequest]) -> Value {
    let mut m = Map::new();
    for r in reqs {
        let mut e = Map::new();
        e.insert("method".into(), r.kind.method().into());
        e.insert("params".into(), Value::Object(r.params.clone()));
        m.insert(r.key.clone(), Value::Object(e));
    }
    Value::Object(m)
}

impl Driver {
    pub(super) fn on_inputs(
        &mut self,
        sh: &mut Shared,
        reqs: Vec<InputRequest>,
        notes: &mut Vec<Note>,
        fresh: bool,
    ) {
        self.outstanding = reqs.iter().map(|r| (r.key.clone(), r.clone())).collect();
        // Asks whose keys the server no longer lists are moot.
        let moot: Vec<AskId> = self
            .asking
            .iter()
            .filter(|(_, k)| !self.outstanding.contains_key(*k))
            .map(|(a, _)| *a)
            .collect();
        // A key withdrawn before the person answered it was never answered: it goes back to
        // "not presented", so that the server listing it again presents it again (as for an
        // ask withdrawn when its wait ended, `stop`). Otherwise an observation that withdrew
        // it wrongly (a stale poll with the same `lastUpdatedAt`, `poll::is_stale`) would
        // leave the task waiting for input forever.
        for a in moot {
            if let Some(k) = self.asking.remove(&a) {
                self.presented.remove(&k);
            }
            sh.forget_ask(&a);
            sh.push(Action::CancelAsk(a));
        }
        let (outstanding, presented) = (&self.outstanding, &mut self.presented);
        self.queued.retain(|(r, _)| {
            let keep = outstanding.contains_key(&r.key);
            if !keep {
                presented.remove(&r.key);
            }
            keep
        });
        // Answers the server no longer asks for have arrived (a lost ack, rule 8).
        let delivered: Vec<String> = self
            .answered
            .keys()
            .filter(|k| !self.outstanding.contains_key(*k) && !self.update_keys.contains(k))
            .cloned()
            .collect();
        for k in delivered {
            self.answered.remove(k.as_str());
            self.unsettled.remove(&k);
            self.acked.insert(k);
        }
        // A poll started after an inconclusive update that still lists its keys: that
        // update was lost, and the answers go out again (without asking the host again).
        if fresh {
            // Before they go out again: an answer restored from the task store was not
            // checked as a handler's is (the store is shared with other pages and scripts);
            // one that does not fit the request listed now is dropped, and its key asked
            // again below (README: answers are checked before they are sent).
            let mut misfit = false;
            for k in std::mem::take(&mut self.unsettled) {
                let checked = match (self.outstanding.get(&k), self.answered.get(k.as_str())) {
                    (Some(r), Some(v)) => check_answer(r, v).ok(),
                    _ => continue,
                };
                match checked {
                    Some(v) => {
                        self.answered.insert(k, v);
                    }
                    None => {
                        self.answered.remove(k.as_str());
                        self.presented.remove(&k);
                        misfit = true;
                    }
                }
            }
            if misfit {
                sh.push(Action::Warn {
                    message: "a stored answer does not fit its request; it is asked again".into(),
                });
            }
        }
        // Rule 7: only keys never presented are presented.
        let new: Vec<InputRequest> = reqs
            .into_iter()
            .filter(|r| {
                !self.presented.contains(&r.key)
                    && !self.acked.contains(&r.key)
                    && !self.answered.contains_key(r.key.as_str())
                    && !self.peer_blocked(&r.key)
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
                self.queued.push((r, url));
            }
        }
        self.present(sh);
        if self.update.is_none() && !self.answered.is_empty() {
            self.send_update(sh);
        }
    }

    pub(super) fn present(&mut self, sh: &mut Shared) {
        if self.waiters.is_empty() {
            return;
        }
        self.peer_prepare(sh);
        let cap = sh.cfg.limits.max_concurrent_inputs;
        while self.asking.len() < cap {
            // Coordinated, only the keys assigned to this context (`peers`).
            let Some(i) = self.queued.iter().position(|(r, _)| self.peer_mine(&r.key)) else {
                break;
            };
            let (req, url) = self.queued.remove(i);
            let id = sh.next_ask_id();
            self.asking.insert(id, req.key.clone());
            sh.track_ask(id, owner(&self.id, Part::Poll));
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
    /// Offline, nothing goes out: the answers wait in `answered` for `online` (issue 13).
    /// A follower's answers go out from the leader (`peers`), over the channel.
    pub(super) fn send_update(&mut self, sh: &mut Shared) {
        if self.peer_forward(sh) {
            return;
        }
        if !sh.presence.online {
            return;
        }
        let mut answers = self.answered.clone();
        answers.retain(|k, _| !self.unsettled.contains(k));
        if answers.is_empty() {
            return;
        }
        let mut params = Map::new();
        params.insert("taskId".into(), self.id.clone().into());
        self.update_keys = answers.keys().cloned().collect();
        params.insert("inputResponses".into(), Value::Object(answers));
        // Rule 8: a stream that broke before the acknowledgement is no definite answer (the
        // server may have applied the update): it is not re-issued blindly, the next poll
        // says whether the keys are still outstanding.
        let policy = CallPolicy::internal(sh.cfg.request_timeout_ms, false);
        let mut c = Call::new("tasks/update", params, Vec::new(), policy);
        c.start(sh, &owner(&self.id, Part::Update));
        self.update = Some(Box::new(c));
    }

    pub(super) fn on_answer(
        &mut self,
        sh: &mut Shared,
        ask: AskId,
        answer: Result<Value>,
        notes: &mut Vec<Note>,
    ) {
        let Some(key) = self.asking.remove(&ask) else {
            return;
        };
        sh.forget_ask(&ask);
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

    pub(super) fn on_update(&mut self, sh: &mut Shared, input: CallInput) {
        let Some(call) = &mut self.update else { return };
        let Some(outcome) = call.handle(sh, &owner(&self.id, Part::Update), input) else {
            return;
        };
        self.update = None;
        let keys = std::mem::take(&mut self.update_keys);
        match outcome {
            Ok(_) => {
                for k in &keys {
                    self.answered.remove(k.as_str());
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
                // Rule 8: a definite rejection gives the keys back; the next poll presents
                // them again if the server still lists them. Rule 14: so does `-32602`,
                // which on `tasks/update` may be about the `inputResponses` as well as the
                // task id (the spec makes it "not found" only on `tasks/get`): the next
                // poll, already scheduled, says whether the task still exists.
                for k in &keys {
                    self.answered.remove(k.as_str());
                    self.presented.remove(k);
                }
                // Coordinated: a follower that holds these answers asks again too.
                self.peer_rejected(&keys);
                let then = if e.kind == ErrorKind::Mcp && e.code == Some(INVALID_PARAMS) {
                    "the next tasks/get tells whether the task still exists; its inputs will be asked again if it still lists them"
                } else {
                    "its inputs will be asked again"
                };
                sh.push(Action::Warn {
                    message: format!(
                        "tasks/update for task \"{}\" was rejected ({}); {then}",
                        sanitize(&self.id, 100),
                        e.message
                    ),
                });
            }
        }
    }
}
