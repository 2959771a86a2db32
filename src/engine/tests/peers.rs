//! Coordination across contexts (issue 13, `engine::task::peers`): several engines (one per
//! tab or worker) joined by a fake Web Locks manager and a fake BroadcastChannel, one fake
//! clock, one scripted server. One poller per task, takeover timing, statuses and outcomes
//! delivered to followers, one presenter per input key (a visible one preferred), answers
//! sent once and withdrawn elsewhere, questions that move, hostile messages ignored.

use crate::engine::actions::{AskId, OpId, OpOptions, PeerAction};
use crate::engine::config::{Config, ElicitationModes, VersionChoice};
use crate::engine::core::TaskRef;
use crate::engine::ops::Want;
use crate::engine::testkit::*;
use crate::error::{Error, ErrorKind};
use crate::json;
use crate::json::Value;
use std::collections::{BTreeMap, VecDeque};

const EXT: &str = "io.modelcontextprotocol/tasks";
const T0: &str = "2025-11-25T10:30:00Z";

fn cfg(coordinated: bool) -> Config {
    let mut c = Config::new("http://mcp.test/mcp");
    c.version = VersionChoice::Pinned("2026-07-28".into());
    c.extensions.insert(EXT.into(), json!({}));
    c.elicitation = Some(ElicitationModes {
        form: true,
        url: false,
    });
    c.coordinated = coordinated;
    c
}

fn got(id: &str, status: &str) -> Value {
    json!({"resultType":"complete","taskId":id,"status":status,"createdAt":T0,
           "lastUpdatedAt":T0,"ttlMs":3_600_000,"pollIntervalMs":1000})
}

fn with(mut v: Value, extra: Value) -> Value {
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v
}

fn completed(id: &str, text: &str) -> Value {
    with(
        got(id, "completed"),
        json!({"result":{"content":[{"type":"text","text":text}],"isError":false}}),
    )
}

fn elicit(msg: &str) -> Value {
    json!({"method":"elicitation/create","params":{"message":msg,
        "requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}})
}

fn asking(id: &str, keys: &[&str]) -> Value {
    let mut m = crate::json::Map::new();
    for k in keys {
        m.insert(k.to_string(), elicit(k));
    }
    with(
        got(id, "input_required"),
        json!({ "inputRequests": Value::Object(m) }),
    )
}

fn accept(name: &str) -> Value {
    json!({"action":"accept","content":{"name":name}})
}

/// One context: an engine, and whether it is still alive.
struct Ctx {
    h: Harness,
    alive: bool,
    /// Peer actions already handled.
    seen: usize,
}

/// Contexts of one origin: a lock manager (per name, the queue of requesters; the
/// first holds it) and a broadcast channel (a message reaches every other living context).
struct Net {
    ctxs: Vec<Ctx>,
    locks: BTreeMap<String, VecDeque<usize>>,
    /// Every message posted (text), for inspection.
    posted: Vec<(usize, Value)>,
    /// Asks the test answered.
    answered: Vec<(usize, AskId)>,
    /// Contexts added from now on push tasks (issue 14, `Config::push_tasks`).
    push: bool,
    /// Contexts added from now on have this `taskScope` (`Config::task_scope`).
    scope: Option<String>,
    /// A context whose messages are held back (`hold`) and their texts, to deliver them
    /// after its lock actions: the browser orders neither before the other.
    held: Option<(usize, Vec<String>)>,
}

impl Net {
    fn new(n: usize, coordinated: bool) -> Net {
        let mut net = Net {
            ctxs: Vec::new(),
            locks: BTreeMap::new(),
            posted: Vec::new(),
            answered: Vec::new(),
            push: false,
            scope: None,
            held: None,
        };
        for _ in 0..n {
            net.add(coordinated, true);
        }
        net
    }

    fn add(&mut self, coordinated: bool, visible: bool) -> usize {
        let i = self.ctxs.len();
        let mut c = cfg(coordinated);
        c.push_tasks = self.push;
        c.task_scope = self.scope.clone();
        let mut h = Harness::new(c);
        if let Some(c) = self.ctxs.iter().find(|c| c.alive) {
            h.now = c.h.now;
        }
        let id = format!("ctx-{i}");
        h.core.peer_setup(&id, visible);
        h.pump();
        self.ctxs.push(Ctx {
            h,
            alive: true,
            seen: 0,
        });
        self.settle();
        i
    }

    fn h(&mut self, i: usize) -> &mut Harness {
        &mut self.ctxs[i].h
    }

    fn now(&self) -> u64 {
        self.ctxs.iter().find(|c| c.alive).map_or(0, |c| c.h.now)
    }

    /// Performs every peer action until none is left.
    fn settle(&mut self) {
        for _ in 0..10_000 {
            let mut work = None;
            for (i, c) in self.ctxs.iter_mut().enumerate() {
                c.h.pump();
                if c.alive && c.seen < c.h.peer.len() {
                    work = Some(i);
                    break;
                }
            }
            let Some(i) = work else { return };
            let c = &mut self.ctxs[i];
            let a = std::mem::replace(
                &mut c.h.peer[c.seen],
                PeerAction::Post {
                    text: String::new(),
                },
            );
            c.seen += 1;
            match a {
                PeerAction::Lock { name } => {
                    let q = self.locks.entry(name.clone()).or_default();
                    assert!(!q.contains(&i), "{name} asked twice by {i}");
                    q.push_back(i);
                    if q.len() == 1 {
                        self.grant(&name);
                    }
                }
                PeerAction::Unlock { name } => self.release(&name, i),
                PeerAction::Post { text } => {
                    let v: Value = serde_json::from_str(&text).expect("messages are JSON");
                    self.posted.push((i, v));
                    if let Some((_, texts)) = self.held.as_mut().filter(|(h, _)| *h == i) {
                        texts.push(text);
                        continue;
                    }
                    self.deliver(i, &text);
                }
            }
        }
        panic!("peer actions never settle");
    }

    /// A message from `i` reaches every other living context on its channel
    /// (`channel_name`: one per server URL and `taskScope`).
    fn deliver(&mut self, i: usize, text: &str) {
        let channel = |c: &Ctx| c.h.core.config().task_space().into_owned();
        let mine = channel(&self.ctxs[i]);
        for j in 0..self.ctxs.len() {
            if j != i && self.ctxs[j].alive && channel(&self.ctxs[j]) == mine {
                let now = self.ctxs[j].h.now;
                self.ctxs[j].h.core.on_peer_message(text, now);
                self.ctxs[j].h.pump();
            }
        }
    }

    /// From now on the messages of context `i` wait (its lock actions do not).
    fn hold(&mut self, i: usize) {
        self.held = Some((i, Vec::new()));
    }

    /// The held messages arrive, in order.
    fn deliver_held(&mut self) {
        if let Some((i, texts)) = self.held.take() {
            for t in texts {
                self.deliver(i, &t);
            }
        }
        self.settle();
    }

    fn grant(&mut self, name: &str) {
        if let Some(&j) = self.locks.get(name).and_then(|q| q.front()) {
            let now = self.ctxs[j].h.now;
            self.ctxs[j].h.core.on_peer_lock(name, now);
            self.ctxs[j].h.pump();
        }
    }

    fn release(&mut self, name: &str, i: usize) {
        let Some(q) = self.locks.get_mut(name) else {
            return;
        };
        let was_holder = q.front() == Some(&i);
        q.retain(|x| *x != i);
        if q.is_empty() {
            self.locks.remove(name);
        } else if was_holder {
            self.grant(name);
        }
    }

    /// The context crashed (or its tab closed): its locks go, it hears nothing more.
    fn crash(&mut self, i: usize) {
        self.ctxs[i].alive = false;
        let names: Vec<String> = self.locks.keys().cloned().collect();
        for n in names {
            self.release(&n, i);
        }
        self.settle();
    }

    /// `client.close()` then the tab goes.
    fn close(&mut self, i: usize) {
        let now = self.ctxs[i].h.now;
        self.ctxs[i].h.core.close(now);
        self.ctxs[i].h.pump();
        self.settle();
        self.crash(i);
    }

    fn wait(&mut self, i: usize, task: &str) -> OpId {
        let now = self.ctxs[i].h.now;
        let t = TaskRef {
            task_id: task.into(),
            seed: None,
        };
        let op = self.ctxs[i]
            .h
            .core
            .wait_task(t, Want::Task, &OpOptions::default(), now);
        self.ctxs[i].h.pump();
        self.settle();
        op
    }

    /// Moves every clock by `ms` (in steps of at most `step`), firing timers.
    fn advance(&mut self, ms: u64) {
        for c in self.ctxs.iter_mut().filter(|c| c.alive) {
            c.h.advance(ms);
        }
        self.settle();
    }

    /// Unanswered `tasks/get` of each context.
    fn polls_pending(&mut self) -> Vec<(usize, Sent)> {
        let mut out = Vec::new();
        for (i, c) in self.ctxs.iter_mut().enumerate() {
            c.h.pump();
            let (gets, rest): (Vec<Sent>, Vec<Sent>) =
                c.h.outbox
                    .drain(..)
                    .partition(|s| s.method() == "tasks/get");
            c.h.outbox.extend(rest);
            if c.alive {
                out.extend(gets.into_iter().map(|s| (i, s)));
            }
        }
        out
    }

    /// Answers every pending `tasks/get` with `body`; returns how many there were.
    fn answer_polls(&mut self, body: &Value) -> usize {
        let ps = self.polls_pending();
        let n = ps.len();
        for (i, s) in ps {
            self.ctxs[i].h.result(&s, body.clone());
        }
        self.settle();
        n
    }

    fn sent(&self, i: usize, method: &str) -> usize {
        self.ctxs[i]
            .h
            .history
            .iter()
            .filter(|s| s.method() == method)
            .count()
    }

    fn sent_all(&self, method: &str) -> usize {
        (0..self.ctxs.len()).map(|i| self.sent(i, method)).sum()
    }

    /// The host of context `i` answers `ask`.
    fn answer(&mut self, i: usize, ask: AskId, v: Value) {
        self.answered.push((i, ask));
        self.ctxs[i].h.answer(ask, Ok(v));
        self.settle();
    }

    /// Asks open in context `i` (asked and not withdrawn nor answered), by key.
    fn open_asks(&self, i: usize) -> Vec<(AskId, String)> {
        let h = &self.ctxs[i].h;
        h.asks
            .iter()
            .filter(|a| !h.cancelled_asks.contains(&a.id) && !self.answered.contains(&(i, a.id)))
            .map(|a| (a.id, a.key.clone()))
            .collect()
    }

    fn leader(&self, task: &str) -> Option<usize> {
        self.locks
            .iter()
            .find(|(n, _)| n.contains(" task ") && n.ends_with(&format!(" {task}")))
            .and_then(|(_, q)| q.front().copied())
    }
}

/// Runs `secs` poll intervals answering `working`; returns the polls the server saw.
fn run_working(net: &mut Net, secs: u64) -> usize {
    let mut n = net.answer_polls(&got("t1", "working"));
    for _ in 0..secs * 10 {
        net.advance(100);
        n += net.answer_polls(&got("t1", "working"));
    }
    n
}

#[test]
fn one_poller_for_two_and_five_contexts() {
    for n in [1usize, 2, 5] {
        let mut net = Net::new(n, true);
        let ops: Vec<OpId> = (0..n).map(|i| net.wait(i, "t1")).collect();
        let polls = run_working(&mut net, 10);
        // One context's rate: the first poll at once, then one per second.
        assert_eq!(polls, 11, "{n} contexts polled {polls} times in 10 s");
        let leader = net.leader("t1").expect("someone leads");
        for i in (0..n).filter(|i| *i != leader) {
            assert_eq!(net.sent(i, "tasks/get"), 0, "follower {i} polled");
        }
        // Everyone saw the status, and everyone gets the outcome.
        for (i, op) in ops.iter().enumerate() {
            assert!(
                net.h(i).statuses.iter().any(|(o, _)| o == op),
                "context {i} got no onTaskStatus"
            );
        }
        net.advance(1000);
        assert_eq!(net.answer_polls(&completed("t1", "done")), 1);
        for (i, op) in ops.iter().enumerate() {
            let v = net.h(i).ok(*op);
            assert_eq!(v["result"]["content"][0]["text"], "done", "context {i}");
        }
        assert!(
            net.locks.keys().all(|k| !k.contains(" task ")),
            "locks left"
        );
        for i in 0..n {
            assert!(
                net.h(i).core.is_quiet(),
                "context {i}: {:?}",
                net.h(i).core.busy()
            );
        }
    }
}

/// Issue 14 (rule 25): only the leader has the task in its task stream; what it hears
/// there reaches the followers as an observation.
#[test]
fn rule_25_only_the_leader_listens_and_shares_what_it_hears() {
    let mut net = Net::new(0, true);
    net.push = true;
    net.add(true, true);
    net.add(true, true);
    let ops = [net.wait(0, "t1"), net.wait(1, "t1")];
    assert_eq!(net.answer_polls(&got("t1", "working")), 1);
    net.advance(50);
    let leader = net.leader("t1").expect("someone leads");
    let follower = 1 - leader;
    let mut listens: Vec<(usize, Sent)> = Vec::new();
    for i in 0..2 {
        net.h(i).pump();
        let (l, rest): (Vec<Sent>, Vec<Sent>) = net
            .h(i)
            .outbox
            .drain(..)
            .partition(|s| s.method() == "subscriptions/listen");
        net.h(i).outbox.extend(rest);
        listens.extend(l.into_iter().map(|s| (i, s)));
    }
    assert_eq!(listens.len(), 1, "one listen, the leader's");
    let (i, l) = listens.remove(0);
    assert_eq!(i, leader);
    assert_eq!(l.params()["notifications"]["taskIds"], json!(["t1"]));
    let sub = l.id();
    let meta = json!({"io.modelcontextprotocol/subscriptionId": sub});
    let ack = json!({"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged",
        "params":{"notifications":{"taskIds":["t1"]},"_meta":meta}});
    let mut done = completed("t1", "pushed");
    done.as_object_mut().unwrap().remove("resultType");
    done["_meta"] = meta;
    let note = json!({"jsonrpc":"2.0","method":"notifications/tasks","params":done});
    net.h(leader).sse(&l, &[ack, note], false);
    net.settle();
    for (i, op) in ops.iter().enumerate() {
        let v = net.h(i).ok(*op);
        assert_eq!(v["result"]["content"][0]["text"], "pushed", "context {i}");
    }
    assert_eq!(net.sent(follower, "tasks/get"), 0);
    assert_eq!(net.sent(follower, "subscriptions/listen"), 0);
    for i in 0..2 {
        assert!(
            net.h(i).core.is_quiet(),
            "context {i}: {:?}",
            net.h(i).core.busy()
        );
    }
}

#[test]
fn the_first_poll_goes_out_at_once_when_alone() {
    let mut net = Net::new(1, true);
    net.wait(0, "t1");
    assert_eq!(net.polls_pending().len(), 1, "rule 4 still holds");
}

/// The leader's last poll answered at `t`, it goes at `t + gone_after`: the new leader
/// polls at `t + interval` (never later than 1.5 intervals, never sooner than the interval).
fn takeover(gone_after: u64, how: fn(&mut Net, usize)) {
    let mut net = Net::new(2, true);
    net.wait(0, "t1");
    net.wait(1, "t1");
    run_working(&mut net, 3);
    wait_for_last_poll(&mut net);
    let t_last = net.now();
    let leader = net.leader("t1").unwrap();
    let other = 1 - leader;
    net.advance(gone_after);
    how(&mut net, leader);
    assert_eq!(net.leader("t1"), Some(other));
    let mut first = None;
    for _ in 0..30 {
        if !net.polls_pending().is_empty() {
            first = Some(net.now());
            break;
        }
        net.advance(50);
    }
    let first = first.expect("the other context polls");
    let gap = first - t_last;
    assert!(gap <= 1500, "takeover after {gap} ms");
    assert!(gap >= 1000, "polled again after only {gap} ms");
}

/// Advances until a poll was answered (the leader's last poll is "now").
fn wait_for_last_poll(net: &mut Net) {
    for _ in 0..20 {
        net.advance(100);
        if net.answer_polls(&got("t1", "working")) > 0 {
            return;
        }
    }
    panic!("nobody polls");
}

#[test]
fn takeover_within_one_interval_when_the_leader_closes() {
    takeover(400, |net, i| net.close(i));
    takeover(0, |net, i| net.close(i));
    takeover(900, |net, i| net.crash(i));
}

#[test]
fn takeover_when_the_leaders_last_waiter_leaves() {
    let mut net = Net::new(2, true);
    let a = net.wait(0, "t1");
    net.wait(1, "t1");
    wait_for_last_poll(&mut net);
    let leader = net.leader("t1").unwrap();
    assert_eq!(leader, 0);
    let now = net.now();
    net.h(0).core.abort(a, Error::abort("done here"), now);
    net.h(0).pump();
    net.settle();
    assert_eq!(net.leader("t1"), Some(1));
    net.advance(1000);
    assert_eq!(net.polls_pending().len(), 1);
}

/// Runs until the leader's next poll is out, and answers it with `body`.
fn answer_next_poll(net: &mut Net, body: &Value) {
    for _ in 0..30 {
        net.advance(100);
        if net.answer_polls(body) > 0 {
            return;
        }
    }
    panic!("nobody polls");
}

/// The leader's last poll sees the task completed; the grant of its lock reaches the
/// follower before the leader's last `obs` (a lock grant and a channel message are not
/// ordered): the new leader waits a grace, the `obs` ends its wait, and it never polls.
#[test]
fn a_former_leaders_last_observation_after_the_grant_ends_the_wait_without_a_poll() {
    let mut net = Net::new(2, true);
    let a = net.wait(0, "t1");
    let b = net.wait(1, "t1");
    run_working(&mut net, 2);
    assert_eq!(net.leader("t1"), Some(0));
    let before = net.sent(1, "tasks/get");
    net.hold(0);
    answer_next_poll(&mut net, &completed("t1", "done"));
    assert_eq!(net.h(0).ok(a)["status"], "completed");
    assert_eq!(net.leader("t1"), Some(1), "the lock passed on");
    assert!(
        net.polls_pending().is_empty(),
        "the new leader polled at once"
    );
    net.advance(50);
    assert!(
        net.polls_pending().is_empty(),
        "the new leader polled within the grace"
    );
    net.deliver_held();
    assert_eq!(net.h(1).ok(b)["status"], "completed");
    net.advance(5000);
    assert!(net.polls_pending().is_empty());
    assert_eq!(net.sent(1, "tasks/get"), before, "the new leader polled");
}

/// The grant comes and no late observation follows (the former leader crashed, or its
/// last message is lost): the new leader polls after the grace, as the interval allows.
#[test]
fn after_the_grace_the_new_leader_polls_and_a_stale_observation_is_ignored() {
    let mut net = Net::new(2, true);
    net.wait(0, "t1");
    let b = net.wait(1, "t1");
    run_working(&mut net, 2);
    wait_for_last_poll(&mut net);
    net.advance(1500); // the leader's poll is out, never answered
    let stale = net
        .posted
        .iter()
        .rev()
        .find(|(i, m)| *i == 0 && m["t"] == "obs")
        .map(|(_, m)| m.to_string())
        .expect("the leader posted an observation");
    let _ = net.polls_pending();
    net.crash(0);
    assert_eq!(net.leader("t1"), Some(1));
    let t_grant = net.now();
    let mut first = None;
    for _ in 0..10 {
        let ps = net.polls_pending();
        if !ps.is_empty() {
            first = Some((net.now(), ps));
            break;
        }
        net.advance(25);
    }
    let (first, polls) = first.expect("the new leader polls");
    assert!(
        polls.iter().all(|(i, _)| *i == 1),
        "only the new leader polls"
    );
    assert!(
        (t_grant + 100..=t_grant + 125).contains(&first),
        "first poll {} ms after the grant",
        first - t_grant
    );
    // The crashed leader's old observation, delivered now, changes nothing.
    let now = net.now();
    net.h(1).core.on_peer_message(&stale, now);
    net.h(1).pump();
    net.settle();
    assert!(net.h(1).outcome(b).is_none());
    for (i, s) in polls {
        net.ctxs[i].h.result(&s, completed("t1", "done"));
    }
    net.settle();
    assert_eq!(net.h(1).ok(b)["status"], "completed");
}

#[test]
fn a_follower_applies_the_leaders_errors_and_ttl() {
    let mut net = Net::new(2, true);
    let a = net.wait(0, "t1");
    let b = net.wait(1, "t1");
    let ps = net.polls_pending();
    assert_eq!(ps.len(), 1);
    let (i, s) = &ps[0];
    net.ctxs[*i].h.error(
        s,
        400,
        -32602,
        "Failed to retrieve task: Task not found",
        None,
    );
    net.settle();
    assert_eq!(net.h(0).err(a).kind, ErrorKind::TaskNotFound);
    assert_eq!(net.h(1).err(b).kind, ErrorKind::TaskNotFound);
    assert_eq!(net.sent_all("tasks/get"), 1);

    // A leader that never answers: the follower's TTL backstop still ends its wait.
    let mut net = Net::new(2, true);
    net.wait(0, "t1");
    let b = net.wait(1, "t1");
    let short = with(got("t1", "working"), json!({"ttlMs": 5000}));
    net.answer_polls(&short);
    for _ in 0..60 {
        net.advance(100);
        let _ = net.polls_pending(); // the server never answers
    }
    assert_eq!(net.h(1).err(b).kind, ErrorKind::TaskExpired);
}

/// Two contexts waiting; `t1` asks `keys`. Returns the contexts' open asks.
fn two_waiting_on_input(vis: [bool; 2], keys: &[&str]) -> (Net, [OpId; 2]) {
    let mut net = Net::new(0, true);
    net.add(true, vis[0]);
    net.add(true, vis[1]);
    let a = net.wait(0, "t1");
    let b = net.wait(1, "t1");
    assert_eq!(net.leader("t1"), Some(0));
    net.answer_polls(&asking("t1", keys));
    (net, [a, b])
}

fn open_keys(net: &Net, i: usize) -> Vec<String> {
    let mut k: Vec<String> = net.open_asks(i).into_iter().map(|(_, k)| k).collect();
    k.sort();
    k
}

#[test]
fn one_presenter_per_key_and_a_visible_one_preferred() {
    // Both visible: the leader presents.
    let (net, _) = two_waiting_on_input([true, true], &["k1", "k2"]);
    assert_eq!(open_keys(&net, 0), ["k1", "k2"]);
    assert!(open_keys(&net, 1).is_empty());
    // The leader hidden, the follower visible: the follower presents.
    let (net, _) = two_waiting_on_input([false, true], &["k1"]);
    assert!(open_keys(&net, 0).is_empty());
    assert_eq!(open_keys(&net, 1), ["k1"]);
    // Nobody visible: the leader presents.
    let (net, _) = two_waiting_on_input([false, false], &["k1"]);
    assert_eq!(open_keys(&net, 0), ["k1"]);
    assert!(open_keys(&net, 1).is_empty());
}

#[test]
fn a_followers_answer_is_sent_once_by_the_leader_and_never_asked_again() {
    let (mut net, [a, b]) = two_waiting_on_input([false, true], &["k1"]);
    let (ask, _) = net.open_asks(1)[0].clone();
    net.answer(1, ask, accept("Ada"));
    assert_eq!(net.sent(1, "tasks/update"), 0, "the follower sends nothing");
    assert_eq!(net.sent(0, "tasks/update"), 1);
    let u = net.h(0).outbox.pop_back().unwrap();
    assert_eq!(u.method(), "tasks/update");
    assert_eq!(u.params()["inputResponses"]["k1"], accept("Ada"));
    net.h(0).result(&u, json!({"resultType":"complete"}));
    net.settle();
    // The server still lists k1 for a while (eventual consistency): nobody asks it again.
    net.advance(1000);
    net.answer_polls(&asking("t1", &["k1"]));
    net.advance(1000);
    net.answer_polls(&asking("t1", &["k1", "k2"]));
    assert!(open_keys(&net, 0).is_empty());
    assert_eq!(open_keys(&net, 1), ["k2"]);
    let k1_asks: usize = (0..2)
        .map(|i| net.h(i).asks.iter().filter(|x| x.key == "k1").count())
        .sum();
    assert_eq!(k1_asks, 1, "k1 was presented once across both contexts");
    net.advance(1000);
    net.answer_polls(&completed("t1", "ok"));
    assert!(net.h(0).ok(a).is_object());
    assert!(net.h(1).ok(b).is_object());
    assert_eq!(net.sent_all("tasks/update"), 1);
}

#[test]
fn an_answer_in_the_leader_withdraws_nothing_elsewhere_and_a_late_one_is_dropped() {
    // Both visible: the leader presents k1 and answers; the follower never saw it.
    let (mut net, _) = two_waiting_on_input([true, true], &["k1"]);
    let (ask, _) = net.open_asks(0)[0].clone();
    net.answer(0, ask, accept("Bo"));
    assert_eq!(net.sent_all("tasks/update"), 1);
    assert!(net.h(1).asks.is_empty());
    // A hostile or late duplicate answer from the follower's side is not sent again.
    let dup =
        json!({"v":1,"t":"answer","from":"ctx-1","task":"t1","key":"k1","value":accept("Eve")});
    let now = net.now();
    net.h(0).core.on_peer_message(&dup.to_string(), now);
    net.settle();
    assert_eq!(net.sent_all("tasks/update"), 1);
}

#[test]
fn a_question_moves_when_its_context_hides_or_closes() {
    let (mut net, _) = two_waiting_on_input([true, true], &["k1"]);
    assert_eq!(open_keys(&net, 0), ["k1"]);
    // The leader is hidden: the question moves to the visible follower (the leader's
    // handler sees its signal fire).
    let now = net.now();
    net.h(0).core.set_peer_visible(false, now);
    net.settle();
    assert!(open_keys(&net, 0).is_empty());
    assert_eq!(net.h(0).cancelled_asks.len(), 1);
    assert_eq!(open_keys(&net, 1), ["k1"]);
    // The follower hides too: it stays where it is (no visible context to move to).
    let now = net.now();
    net.h(1).core.set_peer_visible(false, now);
    net.settle();
    assert_eq!(open_keys(&net, 1), ["k1"]);
    // The follower's tab closes: the question comes back to the leader.
    net.crash(1);
    assert_eq!(open_keys(&net, 0), ["k1"]);
    // Answered there, sent once.
    let (ask, _) = net.open_asks(0)[0].clone();
    net.answer(0, ask, accept("Cy"));
    assert_eq!(net.sent_all("tasks/update"), 1);
}

#[test]
fn a_followers_answer_survives_a_leader_that_went_away() {
    // 0 leads (hidden), 1 waits (hidden), 2 waits (visible) and presents k1.
    let mut net = Net::new(0, true);
    net.add(true, false);
    net.add(true, false);
    net.add(true, true);
    net.wait(0, "t1");
    let b = net.wait(1, "t1");
    let c = net.wait(2, "t1");
    net.answer_polls(&asking("t1", &["k1"]));
    assert_eq!(open_keys(&net, 2), ["k1"]);
    let (ask, _) = net.open_asks(2)[0].clone();
    net.answer(2, ask, accept("Di"));
    // The leader sends the update, then its tab dies before the server answers.
    assert_eq!(net.sent(0, "tasks/update"), 1);
    net.crash(0);
    assert_eq!(net.leader("t1"), Some(1));
    // The new leader holds 2's answer; nothing is asked again, nothing sent blindly.
    assert!(open_keys(&net, 1).is_empty() && open_keys(&net, 2).is_empty());
    assert_eq!(net.sent(1, "tasks/update"), 0);
    // Its first poll still lists k1: the update was lost, the same answer goes out.
    net.advance(1000);
    net.answer_polls(&asking("t1", &["k1"]));
    assert_eq!(net.sent(1, "tasks/update"), 1);
    let u = net.h(1).outbox.pop_back().unwrap();
    assert_eq!(u.params()["inputResponses"]["k1"], accept("Di"));
    net.h(1).result(&u, json!({"resultType":"complete"}));
    net.settle();
    let k1_asks: usize = (0..3)
        .map(|i| net.h(i).asks.iter().filter(|x| x.key == "k1").count())
        .sum();
    assert_eq!(k1_asks, 1);
    net.advance(1000);
    net.answer_polls(&completed("t1", "ok"));
    let _ = net.h(1).ok(b);
    let _ = net.h(2).ok(c);
}

#[test]
fn an_answer_held_by_a_leader_that_went_away_is_not_resent_when_it_arrived() {
    let mut net = Net::new(0, true);
    net.add(true, false);
    net.add(true, true);
    net.wait(0, "t1");
    net.wait(1, "t1");
    net.answer_polls(&asking("t1", &["k1"]));
    let (ask, _) = net.open_asks(1)[0].clone();
    net.answer(1, ask, accept("Di"));
    net.crash(0);
    assert_eq!(net.leader("t1"), Some(1));
    // The server had it: the new leader's first poll no longer lists k1.
    net.advance(1000);
    net.answer_polls(&got("t1", "working"));
    assert_eq!(net.sent(1, "tasks/update"), 0);
}

#[test]
fn a_newcomer_gets_the_current_state_at_once() {
    let mut net = Net::new(1, true);
    net.wait(0, "t1");
    net.answer_polls(&with(
        got("t1", "working"),
        json!({"statusMessage":"half way"}),
    ));
    let c = net.add(true, true);
    let op = net.wait(c, "t1");
    let st = net.h(c).statuses.clone();
    assert!(
        st.iter()
            .any(|(o, v)| *o == op && v.task.status_message.as_deref() == Some("half way")),
        "the newcomer's onTaskStatus has the leader's last observation"
    );
    assert_eq!(net.sent(c, "tasks/get"), 0);
}

#[test]
fn garbage_messages_are_ignored() {
    let (mut net, _) = two_waiting_on_input([true, true], &["k1"]);
    let junk = [
        "".to_string(),
        "not json".into(),
        "[]".into(),
        "null".into(),
        "{}".into(),
        json!({"v":2,"t":"gone","from":"x","task":"t1","message":"m"}).to_string(),
        json!({"v":1,"t":"gone","from":"ctx-0","task":"t1"}).to_string(),
        json!({"v":1,"t":"gone","from":1,"task":"t1"}).to_string(),
        json!({"v":1,"t":"hello","from":"x".repeat(10_000),"task":"t1"}).to_string(),
        json!({"v":1,"t":"obs","from":"x","task":"t1","obs":{"taskId":"t1"}}).to_string(),
        json!({"v":1,"t":"obs","from":"x","task":"t1","obs":"nope","at":"z"}).to_string(),
        json!({"v":1,"t":"keys","from":"x","task":"t1","presenters":7,"acked":{"a":1}}).to_string(),
        json!({"v":1,"t":"keys","from":"x","task":"t1","answers":5,"rejected":{"k1":1}})
            .to_string(),
        json!({"v":1,"t":"keys","from":"x","task":"t1","rejected":[1,null,"k1","zz"],
               "answers":{"k1":{"action":"bogus"},"zz":accept("x"),"__proto__":null}})
        .to_string(),
        json!({"v":1,"t":"hello","from":"x","task":"t1","visible":"yes","polling":7}).to_string(),
        json!({"v":1,"t":"answer","from":"x","task":"t1","key":"k1","value":{"action":"bogus"}})
            .to_string(),
        json!({"v":1,"t":"answer","from":"x","task":"t1","key":"zz","value":accept("x")})
            .to_string(),
        json!({"v":1,"t":"answer","from":"x","task":"t1"}).to_string(),
        json!({"v":1,"t":"hello","from":"x","task":"other"}).to_string(),
        json!({"v":1,"t":"what","from":"x","task":"t1"}).to_string(),
        "{\"v\":1,\"t\":\"obs\",\"from\":\"x\",\"task\":\"t1\",\"obs\":".repeat(100),
    ];
    for i in 0..2 {
        for j in &junk {
            let now = net.now();
            net.h(i).core.on_peer_message(j, now);
            net.h(i).core.on_peer_lock(j, now);
            net.settle();
        }
    }
    assert_eq!(net.sent_all("tasks/update"), 0);
    assert_eq!(open_keys(&net, 0), ["k1"]);
    assert!(open_keys(&net, 1).is_empty());
    // A flood of made-up contexts: the leader keeps track of a bounded number.
    for n in 0..500 {
        let hello =
            json!({"v":1,"t":"hello","from":format!("fake-{n}"),"task":"t1","visible":true});
        let now = net.now();
        net.h(0).core.on_peer_message(&hello.to_string(), now);
    }
    net.h(0).pump();
    let watched = net
        .h(0)
        .peer
        .iter()
        .filter(|a| matches!(a, PeerAction::Lock { name } if name.contains("fake-")))
        .count();
    assert!(watched <= 64, "{watched} contexts watched");
    // The leader still leads and polls.
    net.advance(1000);
    assert_eq!(net.polls_pending().len(), 1);
}

#[test]
fn uncoordinated_contexts_behave_as_before() {
    let mut net = Net::new(2, false);
    net.wait(0, "t1");
    net.wait(1, "t1");
    assert_eq!(net.polls_pending().len(), 2, "each context polls itself");
    for i in 0..2 {
        assert!(net.h(i).peer.is_empty(), "no peer action");
    }
}

/// Visibility across contexts ("while every context waiting on a task is hidden"): a
/// hidden leader keeps the visible rate while a visible context waits on the task, drops
/// to `hiddenPollIntervalMs` once every waiting context is hidden, and polls at once when
/// one becomes visible again; a follower never polls on `online` or visible.
#[test]
fn a_hidden_leader_polls_at_the_visible_rate_while_a_visible_context_waits() {
    let mut net = Net::new(2, true);
    net.wait(0, "t1");
    net.wait(1, "t1");
    assert_eq!(net.leader("t1"), Some(0));
    let now = net.now();
    net.h(0).core.set_hidden(true, now);
    net.settle();
    // ctx 1 is visible and waits: the leader polls once per second.
    let polls = run_working(&mut net, 10);
    assert!(
        (10..=11).contains(&polls),
        "{polls} polls in 10 s with a visible follower"
    );
    // ctx 1 hides too: every waiting context is hidden, the 60 s hidden rate applies.
    let now = net.now();
    net.h(1).core.set_hidden(true, now);
    net.h(1).core.set_peer_visible(false, now);
    net.settle();
    let hidden = run_working(&mut net, 10);
    assert!(
        hidden <= 1,
        "{hidden} polls in 10 s with every context hidden"
    );
    // ctx 1 is visible again: the leader polls at once (its last poll is stale).
    let before = net.sent(0, "tasks/get");
    let now = net.now();
    net.h(1).core.set_hidden(false, now);
    net.h(1).core.set_peer_visible(true, now);
    net.settle();
    assert_eq!(
        net.sent(0, "tasks/get"),
        before + 1,
        "no poll when a context became visible"
    );
    // The follower's own network and visibility changes never make it poll.
    let now = net.now();
    net.h(1).core.set_online(false, now);
    net.h(1).core.set_online(true, now);
    net.settle();
    run_working(&mut net, 2);
    assert_eq!(net.sent(1, "tasks/get"), 0, "the follower polled");
}

/// `Core::task_polled_elsewhere` (`client.isPolledElsewhere`, the console's "polled by
/// another tab"): true in the follower only, and false again once it took over.
#[test]
fn polled_elsewhere_is_true_in_the_follower_until_it_takes_over() {
    let mut net = Net::new(2, true);
    assert!(
        !net.h(0).core.task_polled_elsewhere("t1"),
        "nobody waits yet"
    );
    net.wait(0, "t1");
    net.wait(1, "t1");
    net.answer_polls(&got("t1", "working"));
    assert_eq!(net.leader("t1"), Some(0));
    assert!(!net.h(0).core.task_polled_elsewhere("t1"));
    assert!(net.h(1).core.task_polled_elsewhere("t1"));
    net.close(0);
    assert_eq!(net.leader("t1"), Some(1));
    assert!(!net.h(1).core.task_polled_elsewhere("t1"));
}

/// Fuzz (engine, coordination): the leader's poll lost its response stream while the
/// context was offline, and the poll was re-issued at once, offline. It is a lost poll now,
/// asked again once the context is back online.
#[test]
fn a_poll_whose_stream_breaks_offline_is_not_reissued_until_online() {
    let mut net = Net::new(1, true);
    let op = net.wait(0, "t1");
    let ps = net.polls_pending();
    assert_eq!(ps.len(), 1, "the leader polls");
    let (_, s) = &ps[0];
    let now = net.now();
    net.h(0).core.set_online(false, now);
    net.h(0).head(s.xfer(), 200, Some("text/event-stream"));
    net.h(0).end(s.xfer());
    net.settle();
    assert!(net.polls_pending().is_empty(), "re-issued while offline");
    net.advance(5_000);
    assert!(net.polls_pending().is_empty(), "polled while offline");
    let now = net.now();
    net.h(0).core.set_online(true, now);
    net.settle();
    assert_eq!(
        net.answer_polls(&completed("t1", "ok")),
        1,
        "polled once online"
    );
    assert!(net.h(0).ok(op).is_object());
}

/// Audit r1: a follower's answer the server definitely rejects (`-32602` on `tasks/update`)
/// was handed to the leader again on every `keys` message (about 180 updates a second) and
/// the person was never asked again. Rule 8: the keys go back, the next poll that lists
/// them presents them again, in the context that presents them.
#[test]
fn rule_8_a_followers_answer_rejected_by_the_server_is_asked_again_not_resent() {
    let (mut net, _) = two_waiting_on_input([false, true], &["k1"]);
    let (ask, _) = net.open_asks(1)[0].clone();
    net.answer(1, ask, accept("Ada"));
    assert_eq!(net.sent(0, "tasks/update"), 1);
    let u = net.h(0).outbox.pop_back().unwrap();
    assert_eq!(u.method(), "tasks/update");
    net.h(0)
        .error(&u, 200, -32602, "invalid inputResponses", None);
    net.settle();
    // Whatever else happens, the rejected answer is not sent again.
    for _ in 0..3 {
        let ups: Vec<Sent> = net.h(0).outbox.drain(..).collect();
        for s in &ups {
            if s.method() == "tasks/update" {
                net.h(0)
                    .error(s, 200, -32602, "invalid inputResponses", None);
            } else {
                net.h(0).outbox.push_back(s.clone());
            }
        }
        net.settle();
    }
    assert_eq!(
        net.sent_all("tasks/update"),
        1,
        "the rejected answer went out again"
    );
    // The next poll still lists k1: the follower asks the person again.
    net.advance(1000);
    net.answer_polls(&asking("t1", &["k1"]));
    assert_eq!(net.sent_all("tasks/update"), 1);
    assert_eq!(open_keys(&net, 1), ["k1"], "k1 is asked again");
    assert!(open_keys(&net, 0).is_empty());
    let (ask, _) = net.open_asks(1)[0].clone();
    net.answer(1, ask, accept("Bea"));
    assert_eq!(net.sent(0, "tasks/update"), 2);
    let u = net.h(0).outbox.pop_back().unwrap();
    assert_eq!(u.params()["inputResponses"]["k1"], accept("Bea"));
}

/// Audit r3: the leader presented k1 and sent the person's answer; its wait ended (or its
/// tab went) before the update was acknowledged. The new leader's first poll still listed
/// k1 and asked the person again: two answers reached the server. The leader's answers
/// are known to every context (`keys`), so the new leader holds that answer as one whose
/// update may be lost (rule 8): the same answer goes out again, nobody is asked again.
#[test]
fn rule_8_an_answer_in_flight_when_the_leader_goes_is_not_asked_again() {
    let ways: [fn(&mut Net, OpId); 3] = [
        |net, a| {
            let now = net.now();
            net.h(0).core.abort(a, Error::abort("done here"), now);
            net.h(0).pump();
            net.settle();
        },
        |net, _| net.close(0),
        |net, _| net.crash(0),
    ];
    for (n, how) in ways.into_iter().enumerate() {
        let (mut net, [a, b]) = two_waiting_on_input([true, true], &["k1"]);
        assert_eq!(open_keys(&net, 0), ["k1"]);
        let (ask, _) = net.open_asks(0)[0].clone();
        net.answer(0, ask, accept("Ada"));
        assert_eq!(net.sent(0, "tasks/update"), 1);
        how(&mut net, a);
        assert_eq!(net.leader("t1"), Some(1), "way {n}");
        // The server has not applied the update yet: k1 is still listed.
        for _ in 0..3 {
            net.advance(1000);
            net.answer_polls(&asking("t1", &["k1"]));
        }
        let k1_asks: usize = (0..2)
            .map(|i| net.h(i).asks.iter().filter(|x| x.key == "k1").count())
            .sum();
        assert_eq!(k1_asks, 1, "way {n}: k1 was asked again");
        assert_eq!(net.sent(1, "tasks/update"), 1, "way {n}");
        let u = net.h(1).outbox.pop_back().unwrap();
        assert_eq!(u.params()["inputResponses"]["k1"], accept("Ada"), "way {n}");
        net.h(1).result(&u, json!({"resultType":"complete"}));
        net.settle();
        net.advance(1000);
        net.answer_polls(&completed("t1", "ok"));
        assert!(net.h(1).ok(b).is_object(), "way {n}");
    }
}

/// Audit r4: in a sandboxed iframe (an opaque origin) `navigator.locks.request` rejects
/// with SecurityError; the task's lock never came and nothing polled it. A refused lock
/// ends coordination for the client (a warning) and the task is polled here.
#[test]
fn a_refused_lock_request_ends_coordination_and_the_task_is_polled_here() {
    let mut h = Harness::new(cfg(true));
    h.core.peer_setup("ctx-0", true);
    h.pump();
    let t = TaskRef {
        task_id: "t1".into(),
        seed: None,
    };
    let op = h
        .core
        .wait_task(t, Want::Task, &OpOptions::default(), h.now);
    h.pump();
    assert!(h.try_take().is_none(), "a follower does not poll");
    assert!(h.core.task_polled_elsewhere("t1"));
    h.core
        .on_peer_refused("SecurityError: The request was denied.", h.now);
    h.pump();
    assert!(h.warnings.iter().any(|w| w.contains("not coordinated")));
    assert!(!h.core.task_polled_elsewhere("t1"));
    let s = h.take();
    assert_eq!(s.method(), "tasks/get");
    h.result(&s, completed("t1", "ok"));
    assert!(h.ok(op).is_object());
    // Nothing more is asked of the locks or the channel; later waits poll as uncoordinated.
    let n = h.peer.len();
    let t = TaskRef {
        task_id: "t2".into(),
        seed: None,
    };
    h.core
        .wait_task(t, Want::Task, &OpOptions::default(), h.now);
    h.pump();
    assert_eq!(h.peer.len(), n);
    assert_eq!(h.take().method(), "tasks/get");
}

/// Audit r6: a dedicated worker counts as visible for polling (no document) but not for
/// dialogs. It announced only the second, so a hidden page leading a task a worker waits
/// on polled at the hidden rate (or not at all), as if nobody could see it.
#[test]
fn a_worker_follower_keeps_a_hidden_leader_at_the_visible_rate() {
    let mut net = Net::new(1, true);
    // A worker: not hidden (polling), not visible for dialogs.
    net.add(true, false);
    net.wait(0, "t1");
    net.wait(1, "t1");
    assert_eq!(net.leader("t1"), Some(0));
    let now = net.now();
    net.h(0).core.set_hidden(true, now);
    net.h(0).core.set_peer_visible(false, now);
    net.settle();
    let polls = run_working(&mut net, 10);
    assert!(
        (10..=11).contains(&polls),
        "{polls} polls in 10 s while a worker waits"
    );
    // Questions still go to the leader (nobody can show them; the worker has no dialogs).
    net.answer_polls(&asking("t1", &["k1"]));
    assert!(open_keys(&net, 1).is_empty());
}

/// Audit r7: two tabs of one origin signed in as different people to one server URL shared
/// the task store's keys, the channel and the task locks: one person's tab followed (and
/// answered) the other's task. With `taskScope` (`Config::task_scope`) each identity has
/// its own channel, locks and keys; without it nothing changes.
#[test]
fn a_task_scope_keeps_identities_apart() {
    let mut net = Net::new(0, true);
    net.scope = Some("alice".into());
    net.add(true, false);
    net.scope = Some("bob".into());
    net.add(true, true);
    net.wait(0, "t1");
    net.wait(1, "t1");
    // Two lock holders, two pollers: bob's tab does not follow alice's task.
    let holders = net
        .locks
        .iter()
        .filter(|(n, _)| n.contains(" task "))
        .count();
    assert_eq!(holders, 2);
    assert_eq!(net.answer_polls(&asking("t1", &["k1"])), 2);
    // Each presents its own question; nothing crosses.
    assert_eq!(open_keys(&net, 0), ["k1"]);
    assert_eq!(open_keys(&net, 1), ["k1"]);
    // The store keys and the prefix a resume lists are the scope's.
    let (a, b) = (
        net.h(0).core.task_store_prefix(),
        net.h(1).core.task_store_prefix(),
    );
    assert_ne!(a, b);
    assert!(!a.starts_with(&crate::engine::task::store::key_prefix(
        "http://mcp.test/mcp"
    )));
    // Unscoped, the keys are as before.
    let h = Harness::new(cfg(true));
    assert_eq!(
        h.core.task_store_prefix(),
        crate::engine::task::store::key_prefix("http://mcp.test/mcp")
    );
}

#[test]
fn a_task_scope_is_checked() {
    for bad in ["", &"x".repeat(201)] {
        let mut c = cfg(true);
        c.task_scope = Some(bad.to_string());
        assert_eq!(c.validate().unwrap_err().kind, ErrorKind::Config);
    }
}
