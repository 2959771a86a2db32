//! The messages between contexts: what a leader and a follower do with each one, and
//! the inputs of the book (this context's identity and visibility, lock grants, messages).
//! Peer input: anything malformed or out of place is ignored.

use super::{context_lock, lock, task_lock, unlock, MAX_ID, MAX_KEY, MAX_OTHERS, PROTOCOL};
use crate::engine::actions::Action;
use crate::engine::input_requests::check_answer;
use crate::engine::shared::Shared;
use crate::engine::task::{map_task_error, Driver, Note, TaskBook};
use crate::error::{sanitize, Error};
use crate::json::RawJson;
use crate::json::Value;
use crate::protocol::codes::INVALID_PARAMS;
use crate::protocol::tasks::decode_detailed_task;
use crate::sorted_map::SortedSet;

/// A message's common part: `(type, from, task)`, when it is one of ours.
fn header<'a>(m: &'a Value, me: &str) -> Option<(&'a str, &'a str, &'a str)> {
    if m.get("v").and_then(Value::as_u64) != Some(PROTOCOL) {
        return None;
    }
    let t = m.get("t").and_then(Value::as_str)?;
    let from = m.get("from").and_then(Value::as_str)?;
    if from.is_empty() || from.len() > MAX_ID || from == me {
        return None;
    }
    let task = m.get("task").and_then(Value::as_str).unwrap_or("");
    Some((t, from, task))
}

fn strings(v: Option<&Value>) -> impl Iterator<Item = &str> {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|k| k.len() <= MAX_KEY)
}

impl Driver {
    /// A message from another context about this task.
    fn peer_message(
        &mut self,
        sh: &mut Shared,
        t: &str,
        from: &str,
        m: &Value,
        notes: &mut Vec<Note>,
    ) {
        let was_hidden = self.hidden(sh);
        let Some(p) = self.peer.as_mut().filter(|p| p.joined) else {
            return;
        };
        match (t, p.leader) {
            ("hello", true) => {
                let visible = m.get("visible").and_then(Value::as_bool).unwrap_or(false);
                let polling = m.get("polling").and_then(Value::as_bool).unwrap_or(visible);
                if p.others.0.len() >= MAX_OTHERS && p.others.get(from).is_none() {
                    return; // a flood of made-up contexts
                }
                // A visible follower makes the task visible (`peer_visible_elsewhere`):
                // the next poll is planned again (`schedule`).
                p.others.insert(from.to_string(), (visible, polling));
                p.last_keys = None;
                self.post_obs(sh);
                self.replan(sh, was_hidden);
            }
            ("bye", true) => {
                p.others.remove(from);
                self.replan(sh, was_hidden);
            }
            ("bye", false) if p.heard.as_deref() == Some(from) => p.heard = None,
            ("answer", true) => self.peer_answer(sh, m),
            ("obs", true) => {
                // A former leader's last observation, posted before it let the lock go: a
                // lock grant and a channel message are not ordered, so it can arrive after
                // this context took over (`peer_promote` waits a grace for it). Applied only
                // when newer than any observation known here and no poll is out.
                let at = m.get("at").and_then(Value::as_u64);
                let newer = at.is_some_and(|a| p.last_obs_at.is_none_or(|l| a > l));
                if !newer || self.poll.is_some() {
                    return;
                }
                if !self.peer_apply_obs(sh, m, notes) {
                    return;
                }
                // Kept for newcomers, as the leader's own observations are.
                if let (Some(p), Some(obs)) = (
                    self.peer.as_mut().filter(|p| p.joined && p.leader),
                    m.get("obs").and_then(Value::as_str),
                ) {
                    p.last_obs = Some(obs.to_string());
                }
            }
            ("obs" | "keys" | "gone", false) => {
                if p.heard.as_deref() != Some(from) {
                    p.heard = Some(from.to_string());
                    self.hello(sh);
                }
                match t {
                    "obs" => {
                        self.peer_apply_obs(sh, m, notes);
                    }
                    "keys" => self.peer_apply_keys(sh, m),
                    _ => {
                        let msg = m.get("message").and_then(Value::as_str).unwrap_or("");
                        let e = Error::rpc(INVALID_PARAMS, msg, m.get("data").cloned());
                        let e = map_task_error(e, &self.id, self.last.as_ref(), sh.now);
                        self.finish(sh, Err(e), true, notes);
                    }
                }
            }
            _ => {}
        }
    }

    /// Applies another context's observation; false when it does not decode.
    fn peer_apply_obs(&mut self, sh: &mut Shared, m: &Value, notes: &mut Vec<Note>) -> bool {
        let Some(obs) = m.get("obs").and_then(Value::as_str) else {
            return false;
        };
        let Ok(raw) = RawJson::from_string(obs.to_string()) else {
            return false;
        };
        let Ok(dt) = decode_detailed_task(&raw, Some(&self.id), false) else {
            sh.push(Action::Warn {
                message: "another context sent a task state that does not decode; ignored".into(),
            });
            return false;
        };
        let at = m.get("at").and_then(Value::as_u64).unwrap_or(sh.now);
        if let Some(p) = self.peer.as_mut() {
            p.last_obs_at = Some(at.min(sh.now));
        }
        self.observe(sh, dt, notes, true, None);
        true
    }

    fn peer_apply_keys(&mut self, sh: &mut Shared, m: &Value) {
        let Some(p) = self.peer.as_mut() else { return };
        // Only keys this context knows are recorded: a message cannot grow the sets.
        for k in strings(m.get("acked")) {
            if !self.outstanding.contains_key(k) && !self.answered.contains_key(k) {
                continue;
            }
            self.answered.remove(k);
            p.elsewhere.remove(k);
            p.leader_has.remove(k);
            self.acked.insert(k.to_string());
        }
        // Rule 8: an answer the server rejected goes back; the key is presented again
        // when a poll still lists it (not handed to the leader again: audit r1's loop).
        for k in strings(m.get("rejected")) {
            if self.answered.remove(k).is_some() {
                self.presented.remove(k);
            }
        }
        // The leader's answers (checked: peer input), held as the leader's (`leader_has`):
        // should it go with its update in flight, the next leader has them (rule 8).
        if let Some(answers) = m.get("answers").and_then(Value::as_object) {
            for (k, v) in answers {
                if self.answered.contains_key(k) || self.acked.contains(k) {
                    continue;
                }
                if let Some(Ok(v)) = self.outstanding.get(k).map(|r| check_answer(r, v)) {
                    self.answered.insert(k.clone(), v);
                }
            }
        }
        p.leader_has.clear();
        p.elsewhere.clear();
        for k in strings(m.get("pending")) {
            if self.answered.contains_key(k) {
                p.leader_has.insert(k.to_string());
            } else if self.outstanding.contains_key(k) {
                p.elsewhere.insert(k.to_string());
            }
        }
        p.presenters.0.clear();
        if let Some(pr) = m.get("presenters").and_then(Value::as_object) {
            for (k, c) in pr {
                if let (true, Some(c)) = (self.outstanding.contains_key(k), c.as_str()) {
                    p.presenters.0.push((k.clone(), c.to_string()));
                }
            }
        }
        self.present(sh);
        if !self.answered.is_empty() {
            self.peer_forward(sh);
        }
    }

    /// Leader: a follower's answer, checked again (it is peer input), sent once.
    fn peer_answer(&mut self, sh: &mut Shared, m: &Value) {
        let (Some(key), Some(value)) = (m.get("key").and_then(Value::as_str), m.get("value"))
        else {
            return;
        };
        if self.answered.contains_key(key) || self.acked.contains(key) {
            return;
        }
        let Some(Ok(v)) = self.outstanding.get(key).map(|r| check_answer(r, value)) else {
            return;
        };
        self.answered.insert(key.to_string(), v);
        if self.peer.as_mut().is_some_and(|p| p.elsewhere.remove(key)) {
            // Held by a former leader: maybe sent already; the next poll decides (rule 8).
            self.unsettled.insert(key.to_string());
            self.unsettled_before = self.polls_started;
        }
        if self.update.is_none() {
            self.send_update(sh);
        }
    }
}

impl TaskBook {
    /// Whether this context follows task `id` (another context polls it).
    pub(crate) fn polled_elsewhere(&self, id: &str) -> bool {
        self.drivers.get(id).is_some_and(|d| d.peer_follows())
    }

    /// Coordination starts: this context's id (unique among the origin's contexts) and
    /// whether it is visible. Its own lock is taken, so others learn when it is gone.
    pub(crate) fn peer_setup(&mut self, sh: &mut Shared, me: &str, visible: bool) {
        if !sh.cfg.coordinated || me.is_empty() || me.len() > MAX_ID || self.peers.me.is_some() {
            return;
        }
        self.peers.me = Some(me.to_string());
        self.peers.visible = visible;
        lock(sh, context_lock(me));
    }

    /// A lock request was refused (`Core::on_peer_refused`): coordination is off for the
    /// client's life, and the tasks that waited for their lock are polled here. Returns
    /// the tasks touched.
    pub(crate) fn peer_refused(&mut self, sh: &mut Shared, why: &str) -> Vec<String> {
        if self.peers.me.take().is_none() {
            return Vec::new();
        }
        sh.cfg.coordinated = false;
        self.peers.watched.clear();
        sh.push(Action::Warn {
            message: format!(
                "Web Locks refused a request ({}): tasks are not coordinated with other tabs or workers; this client polls its own",
                sanitize(why, 200)
            ),
        });
        let mut touched = Vec::new();
        for d in self.drivers.values_mut() {
            let Some(p) = d.peer.take() else { continue };
            if p.joined && !p.leader && !d.waiters.is_empty() && d.poll.is_none() {
                // A follower's only timer was the TTL backstop: it polls now.
                d.next_poll = None;
                d.poll_on_join(sh);
            }
            touched.push(d.id.clone());
        }
        touched
    }

    /// After any input touching task `id`: the leader's assignment goes out when it
    /// changed, and the locks of the contexts it leads are watched.
    pub(in crate::engine::task) fn peer_after(&mut self, sh: &mut Shared, id: &str) {
        if self.peers.me.is_none() {
            return;
        }
        if let Some(d) = self.drivers.get_mut(id) {
            d.peer_flush(sh);
        }
        let mut want = SortedSet::default();
        for d in self.drivers.values() {
            if let Some(p) = d.peer.as_ref().filter(|p| p.joined && p.leader) {
                want.extend(p.others.0.iter().map(|(c, _)| c.clone()));
            }
        }
        let gone: Vec<String> = self.peers.watched.difference(&want).cloned().collect();
        for c in gone {
            self.peers.watched.remove(&c);
            unlock(sh, context_lock(&c));
        }
        for c in want {
            if self.peers.watched.insert(c.clone()) {
                lock(sh, context_lock(&c));
            }
        }
    }

    /// A Web Lock was granted: a task's (this context leads it now), or another context's
    /// (that context is gone). Returns the tasks touched (their timers move).
    pub(crate) fn on_peer_lock(&mut self, sh: &mut Shared, name: &str) -> Vec<String> {
        let mut touched = Vec::new();
        if self.peers.me.is_none() {
            return touched;
        }
        let ctx_prefix = context_lock("");
        if let Some(ctx) = name.strip_prefix(&ctx_prefix) {
            if self.peers.me.as_deref() == Some(ctx) {
                return touched;
            }
            unlock(sh, name.to_string());
            self.peers.watched.remove(ctx);
            for d in self.drivers.values_mut() {
                if let Some(p) = d.peer.as_mut() {
                    if p.others.remove(ctx) || p.heard.as_deref() == Some(ctx) {
                        if p.heard.as_deref() == Some(ctx) {
                            p.heard = None;
                        }
                        touched.push(d.id.clone());
                    }
                }
            }
        } else if let Some(id) = name.strip_prefix(&task_lock(&sh.cfg.task_space(), "")) {
            match self.drivers.get_mut(id) {
                Some(d) => {
                    d.peer_promote(sh);
                    touched.push(id.to_string());
                }
                // A lock for a task this client no longer knows: nobody here needs it.
                None => unlock(sh, name.to_string()),
            }
        }
        for id in &touched {
            self.peer_after(sh, id);
        }
        touched
    }

    /// A message from another context (JSON text). Anything that is not a well-formed
    /// message of this protocol about a task waited on here is ignored.
    pub(crate) fn on_peer_message(
        &mut self,
        sh: &mut Shared,
        text: &str,
    ) -> (Vec<Note>, Option<String>) {
        let mut notes = Vec::new();
        let Some(me) = self.peers.me.clone() else {
            return (notes, None);
        };
        if text.len() > sh.cfg.limits.max_body_bytes {
            return (notes, None);
        }
        let Ok(m) = crate::json::parse(text) else {
            return (notes, None);
        };
        let Some((t, from, task)) = header(&m, &me) else {
            return (notes, None);
        };
        let Some(d) = self.drivers.get_mut(task) else {
            return (notes, None);
        };
        d.peer_message(sh, t, from, &m, &mut notes);
        let task = task.to_string();
        self.peer_after(sh, &task);
        (notes, Some(task))
    }

    /// This context became visible or hidden: the leaders reassign, followers tell theirs.
    /// Returns the tasks touched.
    pub(crate) fn set_peer_visible(&mut self, sh: &mut Shared, visible: bool) -> Vec<String> {
        if self.peers.me.is_none() || self.peers.visible == visible {
            return Vec::new();
        }
        self.peers.visible = visible;
        let mut touched = Vec::new();
        for d in self.drivers.values_mut() {
            let Some(p) = d.peer.as_mut().filter(|p| p.joined) else {
                continue;
            };
            p.visible = visible;
            if !p.leader {
                d.hello(sh);
            }
            touched.push(d.id.clone());
        }
        for id in &touched {
            self.peer_after(sh, id);
        }
        touched
    }
}
