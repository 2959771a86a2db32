//! Visibility and network (issue 13, "Visibility and network"; `engine::task::schedule`):
//! the hidden poll rate, `hiddenPollIntervalMs: Infinity` pausing, the poll at once when
//! visible again, nothing sent offline, the poll and the back-off reset when online,
//! answers given offline sent once, and the TTL backstop and wait deadlines meanwhile.
//! A scripted server, a fake clock; nothing sleeps.

use crate::engine::actions::{OpId, OpOptions};
use crate::engine::config::{Config, ElicitationModes, VersionChoice};
use crate::engine::core::TaskRef;
use crate::engine::ops::Want;
use crate::engine::testkit::*;
use crate::error::{Error, ErrorKind};
use crate::json;
use crate::json::Value;

const EXT: &str = "io.modelcontextprotocol/tasks";
/// The harness clock starts here.
const T0: &str = "2025-11-25T10:30:00Z";

fn cfg(hidden_ms: Option<u64>) -> Config {
    let mut c = Config::new("http://mcp.test/mcp");
    c.version = VersionChoice::Pinned("2026-07-28".into());
    c.extensions.insert(EXT.into(), json!({}));
    c.elicitation = Some(ElicitationModes {
        form: true,
        url: false,
    });
    c.hidden_poll_interval_ms = hidden_ms;
    c
}

/// Task fields: 1 h TTL, `poll` ms poll interval.
fn got(id: &str, status: &str, poll: u64) -> Value {
    json!({"taskId":id,"status":status,"createdAt":T0,"lastUpdatedAt":T0,
           "ttlMs":3_600_000,"pollIntervalMs":poll,"resultType":"complete"})
}

fn with(mut v: Value, extra: Value) -> Value {
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v
}

fn completed(id: &str) -> Value {
    with(
        got(id, "completed", 1000),
        json!({"result":{"content":[{"type":"text","text":"ok"}],"isError":false}}),
    )
}

fn asking(id: &str, poll: u64) -> Value {
    with(
        got(id, "input_required", 1000),
        json!({"pollIntervalMs":poll,"inputRequests":{"name":{"method":"elicitation/create",
            "params":{"message":"Name?","requestedSchema":{"type":"object",
            "properties":{"name":{"type":"string"}},"required":["name"]}}}}}),
    )
}

fn wait(h: &mut Harness, id: &str, o: &OpOptions) -> OpId {
    let r = TaskRef {
        task_id: id.into(),
        seed: None,
    };
    h.core.wait_task(r, Want::Task, o, h.now)
}

fn take_method(h: &mut Harness, method: &str) -> Sent {
    h.pump();
    let i = h
        .outbox
        .iter()
        .position(|s| s.method() == method)
        .unwrap_or_else(|| panic!("no {method} was sent"));
    h.outbox.remove(i).unwrap()
}

fn pending(h: &mut Harness, method: &str) -> usize {
    h.pump();
    h.outbox.iter().filter(|s| s.method() == method).count()
}

fn sent(h: &Harness, method: &str) -> usize {
    h.history.iter().filter(|s| s.method() == method).count()
}

/// A wait on `t1` whose first poll is answered `working` with this poll interval.
fn waiting(h: &mut Harness, poll: u64) -> OpId {
    let w = wait(h, "t1", &OpOptions::default());
    let p = take_method(h, "tasks/get");
    h.result(&p, got("t1", "working", poll));
    w
}

/// Moves the clock `ms` and asserts no `tasks/get` went out until then, then one.
fn next_poll_after(h: &mut Harness, ms: u64) -> Sent {
    h.advance(ms - 1);
    assert_eq!(pending(h, "tasks/get"), 0, "no poll before {ms} ms");
    h.advance(1);
    take_method(h, "tasks/get")
}

fn hide(h: &mut Harness, hidden: bool) {
    h.core.set_hidden(hidden, h.now);
    h.pump();
}

fn online(h: &mut Harness, online: bool) {
    h.core.set_online(online, h.now);
    h.pump();
}

#[test]
fn hidden_polls_at_the_hidden_interval() {
    let mut h = Harness::new(cfg(Some(5000)));
    let w = waiting(&mut h, 1000);
    hide(&mut h, true);
    // Measured from the last poll's start, not from the poll due before hiding.
    let mut p = next_poll_after(&mut h, 5000);
    for _ in 0..3 {
        h.result(&p, got("t1", "working", 1000));
        p = next_poll_after(&mut h, 5000);
    }
    // A server interval longer than the hidden one wins: max(pollIntervalMs, hidden).
    h.result(&p, got("t1", "working", 8000));
    let p = next_poll_after(&mut h, 8000);
    h.result(&p, completed("t1"));
    assert!(h.outcome(w).is_some_and(Result::is_ok));
}

#[test]
fn a_hidden_poll_counts_from_when_it_left() {
    // The page may work between the engine starting a poll and its request leaving (a
    // collection, a compile): the host reports when it left (`Core::on_sent`), and the
    // hidden interval counts from then. So hidden polls are never closer than
    // hiddenPollIntervalMs as the page and the server see them.
    let mut h = Harness::new(cfg(Some(5000)));
    let w = waiting(&mut h, 1000);
    hide(&mut h, true);
    let p = next_poll_after(&mut h, 5000);
    let started = h.now;
    h.core.on_sent(p.xfer(), started + 8);
    h.advance(30);
    h.result(&p, got("t1", "working", 1000));
    h.advance(5000 + 7 - 30);
    assert_eq!(
        pending(&mut h, "tasks/get"),
        0,
        "no poll before 5000 ms after the last one left"
    );
    h.advance(1);
    let q = take_method(&mut h, "tasks/get");
    assert_eq!(h.now, started + 5008);
    // A report of a time before the engine's own start changes nothing, and neither does
    // one for a request that is not a poll.
    let started = h.now;
    h.core.on_sent(q.xfer(), started - 3);
    let c = h
        .core
        .call_tool("t", None, false, &OpOptions::default(), h.now);
    let list = take_method(&mut h, "tools/list");
    h.core.on_sent(list.xfer(), started + 900);
    h.result(&q, got("t1", "working", 1000));
    let r = next_poll_after(&mut h, 5000);
    h.result(&r, completed("t1"));
    assert!(h.outcome(w).is_some_and(Result::is_ok));
    assert!(
        h.outcome(c).is_none(),
        "the call still waits for its listing"
    );
}

#[test]
fn default_hidden_interval_is_a_minute() {
    let mut h = Harness::new(Config {
        hidden_poll_interval_ms: Config::new("http://x").hidden_poll_interval_ms,
        ..cfg(None)
    });
    let _w = waiting(&mut h, 100);
    hide(&mut h, true);
    next_poll_after(&mut h, 60_000);
}

#[test]
fn infinity_pauses_polling_while_hidden() {
    let mut h = Harness::new(cfg(None));
    let w = waiting(&mut h, 1000);
    hide(&mut h, true);
    let before = h.history.len();
    for _ in 0..30 {
        h.advance(60_000);
    }
    assert_eq!(h.history.len(), before, "nothing sent while paused");
    assert!(h.outcome(w).is_none());
    // Visible again, the stale task is polled at once.
    hide(&mut h, false);
    assert_eq!(pending(&mut h, "tasks/get"), 1);
}

#[test]
fn a_wait_started_while_hidden_polls_at_once() {
    let mut h = Harness::new(cfg(Some(60_000)));
    hide(&mut h, true);
    let _w = wait(&mut h, "t1", &OpOptions::default());
    assert_eq!(
        pending(&mut h, "tasks/get"),
        1,
        "rule 4: the first poll at once"
    );
}

#[test]
fn visible_again_polls_at_once_when_the_last_poll_is_stale() {
    let mut h = Harness::new(cfg(Some(60_000)));
    let _w = waiting(&mut h, 1000);
    hide(&mut h, true);
    h.advance(1001);
    assert_eq!(pending(&mut h, "tasks/get"), 0);
    hide(&mut h, false);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, got("t1", "working", 1000));
    // Then the usual interval.
    next_poll_after(&mut h, 1000);
}

#[test]
fn visible_again_waits_for_the_interval_when_the_last_poll_is_fresh() {
    let mut h = Harness::new(cfg(Some(60_000)));
    let start = h.now;
    let _w = waiting(&mut h, 10_000);
    hide(&mut h, true);
    h.advance(2000);
    hide(&mut h, false);
    assert_eq!(pending(&mut h, "tasks/get"), 0, "fresh: no poll at once");
    assert_eq!(h.core.next_deadline(), Some(start + 10_000));
    next_poll_after(&mut h, 8000);
}

#[test]
fn offline_sends_nothing_however_long() {
    let mut h = Harness::new(cfg(Some(60_000)));
    let w = waiting(&mut h, 1000);
    online(&mut h, false);
    let before = h.history.len();
    for _ in 0..100 {
        h.advance(1000);
        assert!(h.try_take().is_none(), "no request offline");
    }
    hide(&mut h, true);
    hide(&mut h, false);
    h.advance(5000);
    assert_eq!(h.history.len(), before);
    assert!(h.outcome(w).is_none(), "no error reaches the waiter");
    online(&mut h, true);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, completed("t1"));
    assert!(h.outcome(w).is_some_and(Result::is_ok));
}

#[test]
fn a_poll_failing_offline_counts_no_backoff_and_online_polls_at_once() {
    let mut h = Harness::new(cfg(Some(60_000)));
    let w = waiting(&mut h, 1000);
    let p = next_poll_after(&mut h, 1000);
    online(&mut h, false);
    h.fail(p.xfer(), Error::network("offline"));
    h.advance(120_000);
    assert_eq!(pending(&mut h, "tasks/get"), 0);
    assert!(h.outcome(w).is_none());
    online(&mut h, true);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, got("t1", "working", 1000));
    // No back-off: the plain interval.
    next_poll_after(&mut h, 1000);
}

#[test]
fn online_resets_a_backoff() {
    let mut h = Harness::new(cfg(Some(60_000)));
    let _w = waiting(&mut h, 1000);
    let mut p = next_poll_after(&mut h, 1000);
    // Three transient failures while online: 2 s, 4 s, 8 s.
    for gap in [2000, 4000, 8000] {
        h.fail(p.xfer(), Error::network("reset"));
        p = next_poll_after(&mut h, gap);
    }
    h.fail(p.xfer(), Error::network("reset")); // the browser noticed before the event
    online(&mut h, false);
    h.advance(100);
    online(&mut h, true);
    let p = take_method(&mut h, "tasks/get");
    h.fail(p.xfer(), Error::network("reset"));
    // The streak started again: the first back-off step.
    next_poll_after(&mut h, 2000);
}

#[test]
fn ttl_backstop_applies_while_offline() {
    let mut h = Harness::new(cfg(Some(60_000)));
    let w = wait(&mut h, "t1", &OpOptions::default());
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, with(got("t1", "working", 1000), json!({"ttlMs":5000})));
    online(&mut h, false);
    let before = h.history.len();
    h.advance(4999);
    assert!(h.outcome(w).is_none());
    h.advance(1);
    assert_eq!(h.err(w).kind, ErrorKind::TaskExpired);
    assert_eq!(h.history.len(), before, "no request");
    assert_eq!(h.core.next_deadline(), None);
}

#[test]
fn ttl_backstop_applies_while_paused_hidden() {
    let mut h = Harness::new(cfg(None));
    let w = wait(&mut h, "t1", &OpOptions::default());
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, with(got("t1", "working", 1000), json!({"ttlMs":5000})));
    hide(&mut h, true);
    h.advance(5000);
    assert_eq!(h.err(w).kind, ErrorKind::TaskExpired);
    assert_eq!(sent(&h, "tasks/get"), 1);
}

#[test]
fn ttl_backstop_bounds_the_hidden_interval() {
    let mut h = Harness::new(cfg(Some(60_000)));
    let w = wait(&mut h, "t1", &OpOptions::default());
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, with(got("t1", "working", 1000), json!({"ttlMs":5000})));
    hide(&mut h, true);
    let p = next_poll_after(&mut h, 5000);
    h.result(&p, with(got("t1", "working", 1000), json!({"ttlMs":5000})));
    assert_eq!(h.err(w).kind, ErrorKind::TaskExpired);
}

#[test]
fn wait_deadlines_apply_while_offline() {
    let mut h = Harness::new(cfg(Some(60_000)));
    let w = wait(
        &mut h,
        "t1",
        &OpOptions {
            timeout_ms: Some(10_000),
            ..Default::default()
        },
    );
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, got("t1", "working", 1000));
    online(&mut h, false);
    h.advance(10_000);
    assert_eq!(h.err(w).kind, ErrorKind::TaskTimeout);
    assert_eq!(sent(&h, "tasks/get"), 1);
}

#[test]
fn a_wait_started_offline_polls_when_online() {
    let mut h = Harness::new(cfg(Some(60_000)));
    online(&mut h, false);
    let w = wait(&mut h, "t1", &OpOptions::default());
    h.advance(30_000);
    assert!(h.history.is_empty());
    online(&mut h, true);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, completed("t1"));
    assert!(h.outcome(w).is_some_and(Result::is_ok));
}

#[test]
fn answers_given_offline_go_out_once_when_online() {
    let mut h = Harness::new(cfg(Some(60_000)));
    let w = wait(&mut h, "t1", &OpOptions::default());
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, asking("t1", 1000));
    assert_eq!(h.asks.len(), 1);
    online(&mut h, false);
    let a = h.asks[0].id;
    h.answer(a, Ok(json!({"action":"accept","content":{"name":"Ada"}})));
    h.advance(10_000);
    assert_eq!(sent(&h, "tasks/update"), 0, "nothing sent offline");
    online(&mut h, true);
    let u = take_method(&mut h, "tasks/update");
    assert_eq!(
        u.params()["inputResponses"]["name"]["content"]["name"],
        "Ada"
    );
    // The poll at once may still list the key (the update is not applied yet).
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, asking("t1", 1000));
    h.result(&u, json!({"resultType":"complete"}));
    let p = next_poll_after(&mut h, 1000);
    h.result(&p, completed("t1"));
    assert!(h.outcome(w).is_some_and(Result::is_ok));
    assert_eq!(sent(&h, "tasks/update"), 1, "sent exactly once");
    assert_eq!(h.asks.len(), 1, "never asked again");
}

#[test]
fn an_update_lost_as_the_network_goes_is_sent_again_once_online() {
    let mut h = Harness::new(cfg(Some(60_000)));
    let w = wait(&mut h, "t1", &OpOptions::default());
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, asking("t1", 1000));
    let a = h.asks[0].id;
    h.answer(a, Ok(json!({"action":"accept","content":{"name":"Ada"}})));
    let u = take_method(&mut h, "tasks/update");
    online(&mut h, false);
    h.fail(u.xfer(), Error::network("offline"));
    h.advance(10_000);
    assert_eq!(h.history.len(), 2, "nothing more offline");
    online(&mut h, true);
    // Rule 8: the update's fate is unknown; the poll at once says the key is still asked.
    let p = take_method(&mut h, "tasks/get");
    assert_eq!(pending(&mut h, "tasks/update"), 0);
    h.result(&p, asking("t1", 1000));
    let u = take_method(&mut h, "tasks/update");
    h.result(&u, json!({"resultType":"complete"}));
    let p = next_poll_after(&mut h, 1000);
    h.result(&p, completed("t1"));
    assert!(h.outcome(w).is_some_and(Result::is_ok));
    assert_eq!(sent(&h, "tasks/update"), 2);
    assert_eq!(h.asks.len(), 1, "never asked again");
    assert!(h.core.is_quiet(), "{:?}", h.core.busy());
}

#[test]
fn presence_changes_without_tasks_do_nothing() {
    let mut h = Harness::new(cfg(Some(60_000)));
    hide(&mut h, true);
    online(&mut h, false);
    online(&mut h, true);
    hide(&mut h, false);
    assert!(h.history.is_empty());
    assert!(h.core.is_quiet());
}

/// A listen acknowledged on its stream.
fn listen_open(h: &mut Harness) -> (OpId, Sent) {
    let op = h.core.listen(&json!({"toolsListChanged":true}), h.now);
    let s = take_method(h, "subscriptions/listen");
    let ack = json!({"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged",
        "params":{"notifications":{"toolsListChanged":true},
                  "_meta":{"io.modelcontextprotocol/subscriptionId": s.id()}}});
    h.sse(&s, &[ack], false);
    (op, s)
}

#[test]
fn a_listen_stream_dropped_offline_waits_for_the_network_then_listens_at_once() {
    let mut h = Harness::new(cfg(Some(60_000)));
    let (op, s) = listen_open(&mut h);
    online(&mut h, false);
    h.fail(s.xfer(), Error::network("offline"));
    // However long offline: no re-listen, no attempt counted, the subscription lives.
    for _ in 0..20 {
        h.advance(60_000);
    }
    assert_eq!(sent(&h, "subscriptions/listen"), 1);
    assert!(h.outcome(op).is_none());
    online(&mut h, true);
    let s2 = take_method(&mut h, "subscriptions/listen");
    assert_ne!(s2.id(), s.id());
}

#[test]
fn a_listen_backoff_running_as_the_network_goes_waits_for_it() {
    let mut h = Harness::new(cfg(Some(60_000)));
    let (op, s) = listen_open(&mut h);
    h.fail(s.xfer(), Error::network("reset")); // before the offline event
    online(&mut h, false);
    for _ in 0..20 {
        h.advance(60_000);
    }
    assert_eq!(sent(&h, "subscriptions/listen"), 1);
    assert!(h.outcome(op).is_none());
    online(&mut h, true);
    take_method(&mut h, "subscriptions/listen");
}

/// A 2025 session ("S1") whose GET stream is open (200, SSE); returns the GET.
#[cfg(feature = "legacy")]
fn legacy_with_get_stream(h: &mut Harness) -> Sent {
    use super::legacy::{answer_initialize, opts};
    let op = h.core.request(
        Purpose::PromptsList,
        crate::json::Map::new(),
        &opts(),
        h.now,
    );
    // The first request is the era probe (`session::detect`); a 2025 server refuses it.
    let probe = take_method(h, "prompts/list");
    h.reply(
        &probe,
        400,
        json!({"jsonrpc":"2.0","id":null,
        "error":{"code":-32000,"message":"Bad Request: Server not initialized"}}),
    );
    let init = take_method(h, "initialize");
    answer_initialize(h, &init, "S1", json!({}));
    let n = take_method(h, "notifications/initialized");
    h.accepted(&n);
    let get = h.take();
    assert_eq!(get.req.method.as_str(), "GET");
    h.head(get.xfer(), 200, Some("text/event-stream"));
    let req = take_method(h, "prompts/list");
    h.result(&req, json!({"prompts":[]}));
    h.ok(op);
    get
}

#[cfg(feature = "legacy")]
fn gets(h: &Harness) -> usize {
    h.history
        .iter()
        .filter(|s| s.req.method.as_str() == "GET")
        .count()
}

#[test]
#[cfg(feature = "legacy")]
fn a_2025_get_stream_dropped_offline_waits_for_the_network_then_reopens_at_once() {
    let mut h = Harness::new(super::legacy::auto());
    let get = legacy_with_get_stream(&mut h);
    online(&mut h, false);
    h.fail(get.xfer(), Error::network("offline"));
    for _ in 0..30 {
        h.advance(60_000);
    }
    assert_eq!(gets(&h), 1, "no GET offline, and no attempt spent");
    online(&mut h, true);
    assert_eq!(gets(&h), 2, "reopened at once");
}

#[test]
#[cfg(feature = "legacy")]
fn a_2025_get_stream_retry_running_as_the_network_goes_waits_for_it() {
    let mut h = Harness::new(super::legacy::auto());
    let get = legacy_with_get_stream(&mut h);
    h.fail(get.xfer(), Error::network("reset")); // before the offline event
    online(&mut h, false);
    for _ in 0..30 {
        h.advance(60_000);
    }
    assert_eq!(gets(&h), 1);
    online(&mut h, true);
    assert_eq!(gets(&h), 2);
}
