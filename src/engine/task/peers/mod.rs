//! One poller and one dialog per question across contexts (issue 13, "One poller across
//! contexts" and "One dialog per question across contexts").
//!
//! With `Config::coordinated`, the contexts of an origin (tabs, workers) that wait on one
//! task share it. The shell performs two primitives only ([`PeerAction`]): exclusive Web
//! Locks, and a BroadcastChannel per server URL carrying JSON texts. The protocol is here:
//!
//! - **Leader.** A driver that gains its first waiter asks for the task's lock
//!   ([`task_lock`]); until it is granted the driver is a *follower*: it sends no
//!   `tasks/get` and no `tasks/update` of its own, applies the observations the leader
//!   posts (as if its own poll had answered: `onTaskStatus`, the outcome, input) and keeps
//!   only its wait deadlines and the TTL backstop (rule 10) as timers. The lock holder is
//!   the *leader*: it polls and posts every observation (`obs`). When it goes away (closed
//!   tab, crash, `client.close()`, its last waiter left) the lock passes to the next
//!   waiting context, which polls at `max(now + 100 ms, last observation + pollIntervalMs)`
//!   (the grace: the former leader's last `obs` may arrive after the grant, and a leader
//!   applies an `obs` newer than its own): the poll rate stays one context's, with no gap
//!   beyond the interval.
//! - **Newcomers.** BroadcastChannel queues nothing, so a follower says `hello` (with its
//!   visibility for dialogs and for polling: a worker has the second only) when it joins and whenever it hears a leader it has not greeted; the
//!   leader answers with its last observation and the key assignment.
//! - **Dialogs.** The leader assigns each outstanding input key to one *presenter* among
//!   the waiting contexts: the current one while it still waits and is visible (or none
//!   is), else itself when visible, else a visible follower, else itself (`keys`). A
//!   context presents only the keys assigned to it and withdraws (`CancelAsk`: the
//!   handler's `ctx.signal` fires) those assigned elsewhere or answered anywhere.
//! - **Answers** go out once, from the leader: a follower's answer is handed to the leader
//!   (`answer`), which sends `tasks/update` and lists the key as answered, so every
//!   context withdraws it and never presents it again. The leader alone keeps rule 8's
//!   bookkeeping (one update in flight, re-sends decided by its polls): two contexts
//!   sending updates would each keep half of it. A follower keeps its answer until the
//!   leader reports it acknowledged, and hands it to a new leader, so an answer survives a
//!   leader that went away before sending it. The leader's `keys` carry the answers it
//!   holds, so one in flight when it goes is not asked again either (rule 8). An answer the server rejected is listed as
//!   such (`keys`: `rejected`): its holder asks again rather than hand it over again (rule 8).
//! - **Liveness.** Each context holds a lock of its own for its whole life
//!   ([`context_lock`]); the leader waits for the lock of each follower it knows, and
//!   getting it means that follower is gone (closed without a `bye`, or crashed).
//!
//! Messages carry the protocol version (`v`), the sender (`from`) and the task. A message
//! that is malformed, of another version, about a task not waited on here, or otherwise
//! out of place is ignored: other contexts are peers, and peer input never panics.
//!
//! Here: the names, each task's coordination state and the driver's hooks; in `messages`:
//! what each message does, and the inputs of the book.

mod messages;

use super::{Driver, Note};
use crate::engine::actions::{Action, PeerAction};
use crate::engine::input_requests::check_declared;
use crate::engine::shared::Shared;
use crate::error::{json_text, Error, ErrorKind};
use crate::json::{Map, Value};
use crate::protocol::codes::INVALID_PARAMS;
use crate::sorted_map::SortedSet;
use crate::time::Millis;

/// The version of the messages between contexts; messages of another version are ignored.
pub(crate) const PROTOCOL: u64 = 1;
const PREFIX: &str = "mcp-wasm-client/peers/1";
/// Longest context id and input key a message may carry.
const MAX_ID: usize = 200;
const MAX_KEY: usize = 1000;
/// Most other contexts a leader keeps track of for one task.
const MAX_OTHERS: usize = 64;
/// How long a new leader that has heard a former one waits before its first poll, at
/// least: the former leader posts its last observation before it lets the lock go, but a
/// lock grant and a BroadcastChannel message are not ordered, so that observation (maybe a
/// terminal status that makes the poll needless) can arrive just after the grant.
const TAKEOVER_GRACE_MS: Millis = 100;

/// The BroadcastChannel of the clients of one server (`space`: `Config::task_space`, the
/// URL or, with a `taskScope`, the scope and the URL).
pub(crate) fn channel_name(url: &str) -> String {
    format!("{PREFIX} channel {url}")
}

/// The Web Lock of one task of one server: its holder polls it.
fn task_lock(url: &str, task: &str) -> String {
    format!("{PREFIX} task {} {url} {task}", url.len())
}

/// The Web Lock a context holds while it lives.
fn context_lock(ctx: &str) -> String {
    format!("{PREFIX} context {ctx}")
}

fn lock(sh: &mut Shared, name: String) {
    sh.push(Action::Peer(PeerAction::Lock { name }));
}

fn unlock(sh: &mut Shared, name: String) {
    sh.push(Action::Peer(PeerAction::Unlock { name }));
}

/// A small map kept as a list: a handful of contexts or keys (and no new map code in
/// the wasm build).
pub(super) struct List<V>(Vec<(String, V)>);

impl<V> List<V> {
    fn new() -> List<V> {
        List(Vec::new())
    }

    fn get(&self, k: &str) -> Option<&V> {
        self.0.iter().find(|(x, _)| x == k).map(|(_, v)| v)
    }

    fn insert(&mut self, k: String, v: V) {
        match self.0.iter_mut().find(|(x, _)| *x == k) {
            Some(e) => e.1 = v,
            None => self.0.push((k, v)),
        }
    }

    fn remove(&mut self, k: &str) -> bool {
        let n = self.0.len();
        self.0.retain(|(x, _)| x != k);
        n != self.0.len()
    }
}

/// This context, as the others know it.
#[derive(Default)]
pub(crate) struct Peers {
    /// Set by [`TaskBook::peer_setup`]; coordination is off until then.
    me: Option<String>,
    visible: bool,
    /// Contexts whose lock this context waits for (followers of the tasks it leads).
    watched: SortedSet<String>,
}

/// One task's coordination, kept by its driver.
pub(super) struct PeerTask {
    me: String,
    visible: bool,
    /// A waiter is here: the task's lock is requested or held.
    joined: bool,
    /// The task's lock is held: this context polls.
    leader: bool,
    /// Follower: the context whose messages it last applied (greeted with `hello`).
    heard: Option<String>,
    /// Leader: the other waiting contexts and, for each, whether it is visible for dialogs
    /// and whether for polling (a dedicated worker is the second only: it has no document,
    /// and its waits count as someone watching).
    others: List<(bool, bool)>,
    /// Who presents each outstanding key.
    presenters: List<String>,
    /// Keys answered in another context and not yet acknowledged: never presented here.
    elsewhere: SortedSet<String>,
    /// Follower: the keys the leader holds an answer for (not handed to it again).
    leader_has: SortedSet<String>,
    /// Leader: keys whose answer the server rejected (rule 8), listed in `keys` until
    /// answered again, so a follower holding that answer asks again instead of handing it
    /// over again (which the leader, no longer holding it, would send again: a loop).
    rejected: Vec<String>,
    /// When the task was last observed, by any context.
    last_obs_at: Option<Millis>,
    /// Leader: the last observation (its JSON text, for newcomers) and the last `keys`
    /// message sent (its text).
    last_obs: Option<String>,
    last_keys: Option<String>,
}

impl PeerTask {
    fn new(me: String, visible: bool) -> PeerTask {
        PeerTask {
            me,
            visible,
            joined: false,
            leader: false,
            heard: None,
            others: List::new(),
            presenters: List::new(),
            elsewhere: SortedSet::default(),
            leader_has: SortedSet::default(),
            rejected: Vec::new(),
            last_obs_at: None,
            last_obs: None,
            last_keys: None,
        }
    }

    fn mine(&self, key: &str) -> bool {
        self.presenters.get(key).is_some_and(|c| *c == self.me) && !self.elsewhere.contains(key)
    }

    fn visible_of(&self, ctx: &str) -> Option<bool> {
        if ctx == self.me {
            Some(self.visible)
        } else {
            self.others.get(ctx).map(|v| v.0)
        }
    }

    /// Leader: the presenter of a key, keeping the current one while it still waits and
    /// is visible, or while no waiting context is visible.
    fn choose(&self, current: Option<&String>) -> String {
        let any_visible = self.visible || self.others.0.iter().any(|(_, v)| v.0);
        if let Some(c) = current {
            if let Some(vis) = self.visible_of(c) {
                if vis || !any_visible {
                    return c.clone();
                }
            }
        }
        if self.visible {
            return self.me.clone();
        }
        // The smallest id: the same choice whatever the order contexts arrived in.
        self.others
            .0
            .iter()
            .filter(|(_, v)| v.0)
            .map(|(c, _)| c)
            .min()
            .cloned()
            .unwrap_or_else(|| self.me.clone())
    }
}

impl Driver {
    fn post(&self, sh: &mut Shared, t: &str, mut body: Map) {
        let Some(p) = &self.peer else { return };
        body.insert("v".into(), PROTOCOL.into());
        body.insert("t".into(), t.into());
        body.insert("from".into(), p.me.as_str().into());
        body.insert("task".into(), self.id.as_str().into());
        sh.push(Action::Peer(PeerAction::Post {
            text: json_text(&Value::Object(body)),
        }));
    }

    fn hello(&self, sh: &mut Shared) {
        let visible = self.peer.as_ref().is_some_and(|p| p.visible);
        let mut m = Map::new();
        m.insert("visible".into(), visible.into());
        // For polling (`peer_visible_elsewhere`): not hidden, a worker included.
        m.insert("polling".into(), (!sh.presence.hidden).into());
        self.post(sh, "hello", m);
    }

    /// A wait joins (rule 24's shared driver, across contexts). True when coordinated:
    /// the driver then polls only once it holds the task's lock.
    pub(super) fn peer_join(&mut self, sh: &mut Shared, peers: &Peers) -> bool {
        let Some(me) = peers
            .me
            .as_ref()
            .filter(|_| sh.cfg.coordinated && !self.legacy)
        else {
            return false;
        };
        let p = self
            .peer
            .get_or_insert_with(|| Box::new(PeerTask::new(me.clone(), peers.visible)));
        if p.joined {
            return true;
        }
        p.joined = true;
        p.leader = false;
        p.heard = None;
        p.visible = peers.visible;
        lock(sh, task_lock(&sh.cfg.task_space(), &self.id));
        self.hello(sh);
        self.next_poll = self.peer_ttl(sh);
        true
    }

    /// The last waiter left (or the waits ended): the lock goes to another waiting context.
    pub(super) fn peer_leave(&mut self, sh: &mut Shared) {
        let Some(p) = self.peer.as_mut().filter(|p| p.joined) else {
            return;
        };
        p.joined = false;
        p.leader = false;
        p.rejected.clear();
        p.others.0.clear();
        p.last_keys = None;
        unlock(sh, task_lock(&sh.cfg.task_space(), &self.id));
        self.post(sh, "bye", Map::new());
    }

    /// The leader knows another waiting context that is visible. For the visibility rule
    /// ("while every context waiting on a task is hidden"): `Driver::hidden` (the visible
    /// work) is "this context is hidden and not `peer_visible_elsewhere`"; a follower does
    /// not poll, so only the leader's answer matters.
    pub(super) fn peer_visible_elsewhere(&self) -> bool {
        self.peer
            .as_ref()
            .is_some_and(|p| p.joined && p.leader && p.others.0.iter().any(|(_, v)| v.1))
    }

    /// A follower: coordinated and not holding the lock (polls and updates are the leader's).
    pub(super) fn peer_follows(&self) -> bool {
        self.peer.as_ref().is_some_and(|p| p.joined && !p.leader)
    }

    /// A follower's only timer: the TTL backstop (rule 10).
    pub(super) fn peer_ttl(&self, sh: &Shared) -> Option<Millis> {
        let exp = self.last.as_ref().and_then(|t| t.expires_at_ms())?;
        (exp > sh.now as i64).then_some(exp as Millis)
    }

    /// A follower's timer: past the TTL without a terminal status, the wait ends (rule 10).
    pub(super) fn peer_timer(&mut self, sh: &mut Shared, notes: &mut Vec<Note>) {
        self.next_poll = self.peer_ttl(sh);
        let expired = self.last.as_ref().and_then(|t| t.expires_at_ms());
        if expired.is_some_and(|t| sh.now as i64 >= t) && !self.waiters.is_empty() {
            if let Some(t) = self.last.clone() {
                let e = super::poll::ttl_expired(&self.id, &t);
                self.finish(sh, Err(e), true, notes);
            }
        }
    }

    /// The leader's poll answered: every context gets the observation.
    pub(super) fn peer_observed(&mut self, sh: &mut Shared, raw: &str) {
        let Some(p) = self.peer.as_mut().filter(|p| p.joined && p.leader) else {
            return;
        };
        p.last_obs_at = Some(sh.now);
        // Answers a former leader held were handed over by now (their contexts answer a
        // new leader's first message at once): the keys left are asked again.
        p.elsewhere.clear();
        p.last_obs = Some(raw.to_string());
        self.post_obs(sh);
    }

    /// Posts the last observation: the poll's answer as its JSON text, and when it came.
    fn post_obs(&self, sh: &mut Shared) {
        let Some(p) = &self.peer else { return };
        let Some(obs) = &p.last_obs else { return };
        let mut m = Map::new();
        m.insert("at".into(), p.last_obs_at.unwrap_or(sh.now).into());
        m.insert("obs".into(), obs.as_str().into());
        self.post(sh, "obs", m);
    }

    /// The leader's poll ended in "not found" (rule 14): the other contexts end too.
    pub(super) fn peer_failed(&mut self, sh: &mut Shared, e: &Error) {
        if !self.peer.as_ref().is_some_and(|p| p.joined && p.leader)
            || e.kind != ErrorKind::Mcp
            || e.code != Some(INVALID_PARAMS)
        {
            return;
        }
        let mut m = Map::new();
        m.insert("code".into(), INVALID_PARAMS.into());
        m.insert("message".into(), e.message.as_str().into());
        if let Some(d) = &e.data {
            m.insert("data".into(), d.clone());
        }
        self.post(sh, "gone", m);
    }

    /// Leader: the server rejected these keys' answers (rule 8); the followers are told.
    pub(super) fn peer_rejected(&mut self, keys: &[String]) {
        if let Some(p) = self.peer.as_mut().filter(|p| p.joined && p.leader) {
            for k in keys {
                if !p.rejected.contains(k) {
                    p.rejected.push(k.clone());
                }
            }
        }
    }

    /// True when `key` may be presented here (always, when not coordinated).
    pub(super) fn peer_mine(&self, key: &str) -> bool {
        self.peer.as_ref().is_none_or(|p| !p.joined || p.mine(key))
    }

    /// Keys answered in another context are never presented here (rule 7 across contexts).
    pub(super) fn peer_blocked(&self, key: &str) -> bool {
        self.peer
            .as_ref()
            .is_some_and(|p| p.joined && p.elsewhere.contains(key))
    }

    /// Before presenting: the leader assigns the outstanding keys; asks for keys assigned
    /// elsewhere, or answered elsewhere, are withdrawn (their `ctx.signal` fires).
    pub(super) fn peer_prepare(&mut self, sh: &mut Shared) {
        let Some(p) = self.peer.as_mut().filter(|p| p.joined) else {
            return;
        };
        if p.leader {
            let open: Vec<&String> = self
                .outstanding
                .keys()
                .filter(|k| {
                    !self.answered.contains_key(k.as_str())
                        && !self.acked.contains(*k)
                        && !p.elsewhere.contains(*k)
                })
                .collect();
            let mut next = List::new();
            for k in open {
                let c = p.choose(p.presenters.get(k));
                next.0.push((k.clone(), c));
            }
            p.presenters = next;
        }
        let moved: Vec<_> = self
            .asking
            .iter()
            .filter(|(_, k)| !p.mine(k))
            .map(|(a, k)| (*a, k.clone()))
            .collect();
        for (ask, key) in moved {
            self.asking.remove(&ask);
            sh.forget_ask(&ask);
            sh.push(Action::CancelAsk(ask));
            let done = p.elsewhere.contains(&key)
                || self.acked.contains(&key)
                || self.answered.contains_key(key.as_str());
            // Assigned to another context: it waits here, should it come back.
            match (done, self.outstanding.get(&key)) {
                (false, Some(req)) => {
                    if let Ok(url) = check_declared(&sh.cfg, req) {
                        self.queued.insert(0, (req.clone(), url));
                    }
                }
                // Answered elsewhere (or gone): not presented here, unless that answer
                // is lost with its context (the key is then asked again).
                _ => {
                    self.presented.remove(&key);
                }
            }
        }
        let blocked = &p.elsewhere;
        let presented = &mut self.presented;
        self.queued.retain(|(r, _)| {
            let keep = !blocked.contains(&r.key);
            if !keep {
                presented.remove(&r.key);
            }
            keep
        });
    }

    /// A follower hands its answers to the leader instead of sending `tasks/update`.
    /// True when it did (the caller sends nothing).
    pub(super) fn peer_forward(&mut self, sh: &mut Shared) -> bool {
        let Some(p) = self.peer.as_ref().filter(|p| p.joined && !p.leader) else {
            return false;
        };
        let out: Vec<(String, Value)> = self
            .answered
            .iter()
            .filter(|(k, _)| !p.leader_has.contains(*k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (key, value) in out {
            let mut m = Map::new();
            m.insert("key".into(), key.into());
            m.insert("value".into(), value);
            self.post(sh, "answer", m);
        }
        true
    }

    /// Leader: posts the key assignment when it changed (or was asked for).
    pub(super) fn peer_flush(&mut self, sh: &mut Shared) {
        if !self.peer.as_ref().is_some_and(|p| p.joined && p.leader) {
            return;
        }
        self.present(sh); // assigns the keys first (`peer_prepare`)
        let Some(p) = self.peer.as_mut() else { return };
        // A rejected key stays listed until it is answered again or no longer asked.
        let (answered, outstanding) = (&self.answered, &self.outstanding);
        p.rejected
            .retain(|k| !answered.contains_key(k.as_str()) && outstanding.contains_key(k));
        let p = &*p;
        let mut pending: Vec<&String> = self.answered.keys().chain(p.elsewhere.iter()).collect();
        pending.sort_unstable();
        let mut acked: Vec<&String> = self.acked.iter().collect();
        acked.sort_unstable();
        let list =
            |v: Vec<&String>| Value::Array(v.into_iter().map(|k| k.as_str().into()).collect());
        let mut m = Map::new();
        let presenters: Map = p
            .presenters
            .0
            .iter()
            .map(|(k, c)| (k.clone(), Value::from(c.as_str())))
            .collect();
        m.insert("presenters".into(), Value::Object(presenters));
        m.insert("pending".into(), list(pending));
        // The answers themselves, so that whoever leads next holds them even when this
        // context goes with its update in flight (closed, aborted, or its tab gone): the
        // new leader treats them as a maybe-lost update (rule 8) instead of asking again.
        if !self.answered.is_empty() {
            m.insert("answers".into(), Value::Object(self.answered.clone()));
        }
        m.insert("acked".into(), list(acked));
        if !p.rejected.is_empty() {
            m.insert("rejected".into(), list(p.rejected.iter().collect()));
        }
        // Sent when it changed (the text of the same content is the same: sorted lists,
        // keys in the leader's order of the server's inputRequests).
        let text = json_text(&Value::Object(m.clone()));
        if p.last_keys.as_ref() == Some(&text) {
            return;
        }
        if let Some(p) = self.peer.as_mut() {
            p.last_keys = Some(text);
        }
        self.post(sh, "keys", m);
    }

    /// The task's lock was granted: this context polls from now on, at the interval
    /// after the last observation any context made (issue 13: takeover within one interval),
    /// and not before [`TAKEOVER_GRACE_MS`] when it has heard a former leader.
    fn peer_promote(&mut self, sh: &mut Shared) {
        let Some(p) = self.peer.as_mut() else { return };
        if !p.joined || p.leader {
            if !p.joined {
                unlock(sh, task_lock(&sh.cfg.task_space(), &self.id));
            }
            return;
        }
        p.leader = true;
        p.heard = None;
        p.last_keys = None;
        // Answers the former leader held: whether they reached the server is unknown
        // (rule 8): the first poll of this leader decides, as after a lost update.
        let held: Vec<String> = self
            .answered
            .keys()
            .filter(|k| p.leader_has.contains(*k))
            .cloned()
            .collect();
        if !held.is_empty() {
            self.unsettled.extend(held);
            self.unsettled_before = self.polls_started;
        }
        // The contexts that presented keys probably still wait; a gone one is dropped
        // when its lock is granted, a living one's `hello` corrects its visibility.
        let seen: Vec<String> = p
            .presenters
            .0
            .iter()
            .filter(|(_, c)| *c != p.me)
            .map(|(_, c)| c.clone())
            .collect();
        for c in seen {
            if p.others.get(&c).is_none() {
                p.others.insert(c, (true, true));
            }
        }
        let last = p.last_obs_at;
        let at = last.map_or(sh.now, |t| {
            let soonest = sh.now.saturating_add(TAKEOVER_GRACE_MS);
            t.saturating_add(self.interval()).max(soonest)
        });
        self.next_poll = None;
        if self.poll.is_none() && !self.waiters.is_empty() {
            // As any poll: not while offline, and hidden at the hidden rate (`schedule`).
            if at <= sh.now {
                self.poll_now(sh);
            } else {
                self.set_due(sh, at);
            }
        }
    }
}
