//! Durable tasks (issue 13, `engine::task::store`): every persistence point, the record's
//! round trip, restoring a record (the pending answer re-sent, never asked again; keys
//! never answered presented again), the records that are skipped, and `store_answers`.
//! A scripted server, a fake clock; nothing sleeps.

use crate::engine::actions::{OpId, OpOptions};
use crate::engine::config::Config;
use crate::engine::core::{RestoreSkip, TaskRef};
use crate::engine::ops::Want;
use crate::engine::task::store::{key_prefix, task_key};
use crate::engine::testkit::*;
use crate::error::ErrorKind;
use crate::json;
use crate::json::Value;

const URL: &str = "http://mcp.test/mcp";

fn cfg() -> Config {
    tasks_config(false)
}

fn with(mut v: Value, extra: Value) -> Value {
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v
}

fn created(id: &str) -> Value {
    with(task(id, "working"), json!({"resultType":"task"}))
}

fn got(id: &str, status: &str) -> Value {
    with(task(id, status), json!({"resultType":"complete"}))
}

fn input_required(id: &str, reqs: Value) -> Value {
    with(got(id, "input_required"), json!({"inputRequests": reqs}))
}

fn completed(id: &str) -> Value {
    with(
        got(id, "completed"),
        json!({"result":{"content":[{"type":"text","text":"ok"}]}}),
    )
}

fn elicit(msg: &str) -> Value {
    json!({"method":"elicitation/create","params":{"message":msg,
        "requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}})
}

fn accept(name: &str) -> Value {
    json!({"action":"accept","content":{"name":name}})
}

fn ack() -> Value {
    json!({"resultType":"complete"})
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

/// `callTool("deploy")` (or `callToolAsTask`) answered with task `id`.
fn call(h: &mut Harness, id: &str, as_task: bool) -> OpId {
    let op = h.core.call_tool(
        "deploy",
        Some(json!({})),
        as_task,
        &OpOptions::default(),
        h.now,
    );
    let s = take_method(h, "tools/list");
    h.result(&s, tools_page(vec![tool("deploy")], None));
    let s = take_method(h, "tools/call");
    h.result(&s, created(id));
    op
}

fn wait(h: &mut Harness, id: &str) -> OpId {
    let t = TaskRef {
        task_id: id.into(),
        seed: None,
    };
    h.core
        .wait_task(t, Want::Task, &OpOptions::default(), h.now)
}

/// The writes (`Some`) and removals (`None`) of the store since `from`.
fn log_since(h: &mut Harness, from: usize) -> Vec<(String, Option<Value>)> {
    h.pump();
    h.store_log[from..].to_vec()
}

fn record(h: &mut Harness, id: &str) -> Value {
    h.pump();
    h.store
        .get(&task_key(URL, id))
        .cloned()
        .unwrap_or_else(|| panic!("no record for {id}: {:?}", h.store.keys()))
}

/// A transparent call on `t1` that asked for `name`, answered "Ada"; the update is sent
/// and not answered yet. Returns the op and the update.
fn answered_unacked(h: &mut Harness) -> (OpId, Sent) {
    let op = call(h, "t1", false);
    let p = take_method(h, "tasks/get");
    h.result(&p, input_required("t1", json!({"name": elicit("who?")})));
    assert_eq!(h.asks.len(), 1);
    let ask = h.asks[0].id;
    h.answer(ask, Ok(accept("Ada")));
    let u = take_method(h, "tasks/update");
    (op, u)
}

#[test]
fn keys_are_per_server_and_percent_encoded() {
    assert_eq!(key_prefix(URL), "mcp-tasks/http%3A%2F%2Fmcp.test%2Fmcp/");
    assert_eq!(
        task_key(URL, "a/b c"),
        "mcp-tasks/http%3A%2F%2Fmcp.test%2Fmcp/a%2Fb%20c"
    );
    assert!(!task_key("http://other/mcp", "t1").starts_with(&key_prefix(URL)));
    // A URL that extends another one does not share its prefix.
    assert!(!key_prefix("http://mcp.test/mcp2").starts_with(&key_prefix(URL)));
}

#[test]
fn a_task_created_by_call_tool_as_task_is_stored_with_its_tool() {
    let mut h = Harness::new(cfg());
    let op = call(&mut h, "t1", true);
    assert_eq!(h.ok(op)["taskId"], "t1");
    let r = record(&mut h, "t1");
    assert_eq!(r["v"], 1);
    assert_eq!(r["tool"], "deploy");
    assert_eq!(r["task"]["taskId"], "t1");
    assert_eq!(r["task"]["status"], "working");
    assert_eq!(r["task"]["serverUrl"], URL);
    assert_eq!(r["task"]["pollIntervalMs"], 1000);
    assert_eq!(r["acked"], json!([]));
    assert!(r.get("pending").is_none());
    assert!(r["task"].get("result").is_none());
    assert_eq!(h.store_log.len(), 1, "written once");
}

#[test]
fn every_persistence_point_of_a_transparent_call_writes_only_on_change() {
    let mut h = Harness::new(cfg());
    let op = call(&mut h, "t1", false);
    // Created and handed to its wait: one write.
    let log = log_since(&mut h, 0);
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].0, task_key(URL, "t1"));
    let n = h.store_log.len();
    // A poll that changes nothing writes nothing.
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, got("t1", "working"));
    assert!(log_since(&mut h, n).is_empty(), "nothing changed");
    // A pollIntervalMs change is written.
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(
        &p,
        with(got("t1", "working"), json!({"pollIntervalMs": 2500})),
    );
    let log = log_since(&mut h, n);
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].1.as_ref().unwrap()["task"]["pollIntervalMs"], 2500);
    // A status with inputRequests is written.
    let n = h.store_log.len();
    h.advance(2500);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, input_required("t1", json!({"name": elicit("who?")})));
    let log = log_since(&mut h, n);
    assert_eq!(log.len(), 1);
    let r = log[0].1.clone().unwrap();
    assert_eq!(r["task"]["status"], "input_required");
    assert_eq!(
        r["task"]["inputRequests"]["name"]["method"],
        "elicitation/create"
    );
    // The answer sent (pending) is written.
    let n = h.store_log.len();
    let ask = h.asks[0].id;
    h.answer(ask, Ok(accept("Ada")));
    let u = take_method(&mut h, "tasks/update");
    let log = log_since(&mut h, n);
    assert_eq!(log.len(), 1);
    assert_eq!(
        log[0].1.as_ref().unwrap()["pending"],
        json!({"name": accept("Ada")})
    );
    // The acknowledgement is written: the key is acked, the answer is gone.
    let n = h.store_log.len();
    h.result(&u, ack());
    let log = log_since(&mut h, n);
    assert_eq!(log.len(), 1);
    let r = log[0].1.clone().unwrap();
    assert_eq!(r["acked"], json!(["name"]));
    assert!(r.get("pending").is_none());
    // The terminal outcome reached the waiter: the record is removed.
    let n = h.store_log.len();
    h.advance(2500);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, completed("t1"));
    assert_eq!(h.ok(op)["content"][0]["text"], "ok");
    assert_eq!(log_since(&mut h, n), vec![(task_key(URL, "t1"), None)]);
    assert!(h.store.is_empty());
}

#[test]
fn a_task_handed_to_a_wait_is_stored_after_its_first_poll() {
    let mut h = Harness::new(cfg());
    let w = wait(&mut h, "t9");
    let p = take_method(&mut h, "tasks/get");
    h.pump();
    assert!(h.store.is_empty(), "nothing is known of it yet");
    h.result(&p, got("t9", "working"));
    let r = record(&mut h, "t9");
    assert_eq!(r["task"]["status"], "working");
    assert_eq!(r["tool"], Value::Null);
    h.core.abort(w, crate::error::Error::abort("x"), h.now);
    h.pump();
    assert!(
        h.store.contains_key(&task_key(URL, "t9")),
        "an aborted wait keeps it"
    );
}

#[test]
fn a_stored_handle_handed_to_a_wait_is_stored_at_once() {
    // `waitForTask(Task.fromJSON(json))` in a client that did not create the task.
    let mut h = Harness::new(cfg());
    let seed = crate::engine::handle::StoredTask::parse(&with(
        task("t7", "input_required"),
        json!({"serverUrl": URL}),
    ))
    .unwrap();
    let t = TaskRef {
        task_id: "t7".into(),
        seed: Some(seed.view),
    };
    let w = h
        .core
        .wait_task(t, Want::Task, &OpOptions::default(), h.now);
    let r = record(&mut h, "t7");
    assert_eq!(r["task"]["status"], "input_required");
    assert_eq!(r["tool"], Value::Null);
    h.core.abort(w, crate::error::Error::abort("x"), h.now);
}

#[test]
fn a_cancelled_task_is_forgotten_when_the_cancel_is_acknowledged() {
    let mut h = Harness::new(cfg());
    call(&mut h, "t1", true);
    record(&mut h, "t1");
    let t = TaskRef {
        task_id: "t1".into(),
        seed: None,
    };
    let c = h.core.cancel_task(&t, &OpOptions::default(), h.now);
    let s = take_method(&mut h, "tasks/cancel");
    h.pump();
    assert!(!h.store.is_empty(), "not before the acknowledgement");
    h.result(&s, ack());
    h.ok(c);
    assert!(h.store.is_empty());
}

#[test]
fn a_task_the_server_does_not_know_is_forgotten() {
    let mut h = Harness::new(cfg());
    let op = call(&mut h, "t1", false);
    let p = take_method(&mut h, "tasks/get");
    h.error(&p, 200, -32602, "unknown task", None);
    assert_eq!(h.err(op).kind, ErrorKind::TaskNotFound);
    assert!(h.store.is_empty());
    assert_eq!(h.store_log.last().unwrap().1, None);
}

/// Rule 14: `-32602` on the host's own `tasks/update` or `tasks/cancel` may be about other
/// params (the spec makes it "not found" only on `tasks/get`): the call fails with the
/// server's McpError and the record stays; a `tasks/get` answered `-32602` removes it.
#[test]
fn rule_14_invalid_params_on_a_hosts_update_forgets_nothing() {
    let mut h = Harness::new(cfg());
    call(&mut h, "t1", true);
    let before = record(&mut h, "t1");
    let t = TaskRef {
        task_id: "t1".into(),
        seed: None,
    };
    let mut responses = crate::json::Map::new();
    responses.insert("k".into(), json!({"action":"accept","content":{}}));
    let u = h
        .core
        .update_task(&t, responses, &OpOptions::default(), h.now);
    let s = take_method(&mut h, "tasks/update");
    h.error(&s, 200, -32602, "inputResponses.k: missing name", None);
    let e = h.err(u);
    assert_eq!((e.kind, e.code), (ErrorKind::Mcp, Some(-32602)));
    assert_eq!(e.message, "inputResponses.k: missing name");
    assert_eq!(record(&mut h, "t1"), before, "the record stays");
    // A later wait still polls the task.
    let w = wait(&mut h, "t1");
    let p = take_method(&mut h, "tasks/get");
    h.error(&p, 200, -32602, "unknown task", None);
    assert_eq!(h.err(w).kind, ErrorKind::TaskNotFound);
    assert!(h.store.is_empty());
    // tasks/cancel carries only the task id: -32602 there is "not found", and the record goes.
    let mut h = Harness::new(cfg());
    call(&mut h, "t1", true);
    let c = h.core.cancel_task(&t, &OpOptions::default(), h.now);
    let s = take_method(&mut h, "tasks/cancel");
    h.error(&s, 200, -32602, "Invalid params", None);
    assert_eq!(h.err(c).kind, ErrorKind::TaskNotFound);
    assert!(h.store.is_empty());
}

#[test]
fn a_task_past_its_ttl_is_forgotten() {
    let mut h = Harness::new(cfg());
    let op = call(&mut h, "t1", false);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, with(got("t1", "working"), json!({"ttlMs": 1500})));
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.advance(600);
    h.result(&p, with(got("t1", "working"), json!({"ttlMs": 1500})));
    assert_eq!(h.err(op).kind, ErrorKind::TaskExpired);
    assert!(h.store.is_empty());
}

#[test]
fn nothing_is_written_with_persist_tasks_off() {
    let mut c = cfg();
    c.persist_tasks = false;
    let mut h = Harness::new(c);
    let (_op, u) = answered_unacked(&mut h);
    h.result(&u, ack());
    let t = TaskRef {
        task_id: "t1".into(),
        seed: None,
    };
    h.core.cancel_task(&t, &OpOptions::default(), h.now);
    let s = take_method(&mut h, "tasks/cancel");
    h.result(&s, ack());
    assert!(h.store_log.is_empty());
}

#[test]
fn a_record_round_trips_through_restore() {
    let mut h = Harness::new(cfg());
    let (_op, u) = answered_unacked(&mut h);
    h.result(&u, ack());
    let r = record(&mut h, "t1");
    let mut h2 = Harness::new(cfg());
    let view = h2
        .core
        .restore_task(&task_key(URL, "t1"), &r, h2.now)
        .unwrap();
    assert_eq!(view.task.task_id, "t1");
    assert_eq!(view.task.status.as_str(), "input_required");
    assert!(view.input_requests.is_some());
    h2.pump();
    assert!(h2.store_log.is_empty(), "restoring writes nothing");
    assert!(h2.outbox.is_empty(), "restoring sends nothing");
    // Restored twice (resumeTasks called again): the same task, no second driver.
    let again = h2.core.restore_task(&task_key(URL, "t1"), &r, h2.now);
    assert_eq!(again.unwrap().task.task_id, "t1");
    // The record a restored driver would write is the one it was restored from.
    let w = wait(&mut h2, "t1");
    let p = take_method(&mut h2, "tasks/get");
    h2.result(&p, input_required("t1", json!({"name": elicit("who?")})));
    assert!(
        h2.asks.is_empty(),
        "an acknowledged key is never presented again"
    );
    h2.pump();
    assert!(h2.store_log.is_empty(), "{:?}", h2.store_log);
    h2.core.abort(w, crate::error::Error::abort("x"), h2.now);
}

#[test]
fn a_restored_unacked_answer_is_resent_and_never_asked_again() {
    let mut h = Harness::new(cfg());
    let (_op, u) = answered_unacked(&mut h);
    let r = record(&mut h, "t1");
    assert_eq!(r["pending"], json!({"name": accept("Ada")}));
    // The page reloads: a new engine, the same store.
    let mut h2 = Harness::new(cfg());
    h2.core
        .restore_task(&task_key(URL, "t1"), &r, h2.now)
        .unwrap();
    let w = wait(&mut h2, "t1");
    assert_eq!(
        pending(&mut h2, "tasks/update"),
        0,
        "the first poll decides"
    );
    let p = take_method(&mut h2, "tasks/get");
    h2.result(&p, input_required("t1", json!({"name": elicit("who?")})));
    assert!(h2.asks.is_empty(), "not asked again");
    let u2 = take_method(&mut h2, "tasks/update");
    assert_eq!(u2.params()["inputResponses"], u.params()["inputResponses"]);
    h2.result(&u2, ack());
    assert_eq!(record(&mut h2, "t1")["acked"], json!(["name"]));
    h2.advance(1000);
    let p = take_method(&mut h2, "tasks/get");
    h2.result(&p, completed("t1"));
    assert_eq!(h2.ok(w)["status"], "completed");
    assert_eq!(sent(&h2, "tasks/update"), 1);
    assert!(
        h2.store.is_empty(),
        "forgotten once the waiter has the outcome"
    );
}

#[test]
fn a_restored_answer_the_server_already_has_is_not_resent() {
    let mut h = Harness::new(cfg());
    answered_unacked(&mut h);
    let r = record(&mut h, "t1");
    let mut h2 = Harness::new(cfg());
    h2.core
        .restore_task(&task_key(URL, "t1"), &r, h2.now)
        .unwrap();
    let w = wait(&mut h2, "t1");
    let p = take_method(&mut h2, "tasks/get");
    h2.result(&p, got("t1", "working"));
    assert_eq!(pending(&mut h2, "tasks/update"), 0);
    assert!(h2.asks.is_empty());
    let r2 = record(&mut h2, "t1");
    assert_eq!(r2["acked"], json!(["name"]));
    assert!(r2.get("pending").is_none());
    h2.core.abort(w, crate::error::Error::abort("x"), h2.now);
}

#[test]
fn after_restore_only_keys_never_answered_are_presented() {
    let mut h = Harness::new(cfg());
    let _op = call(&mut h, "t1", false);
    let p = take_method(&mut h, "tasks/get");
    h.result(
        &p,
        input_required("t1", json!({"a": elicit("a?"), "b": elicit("b?")})),
    );
    assert_eq!(h.asks.len(), 2);
    let a = h.asks.iter().find(|x| x.key == "a").unwrap().id;
    h.answer(a, Ok(accept("A")));
    let u = take_method(&mut h, "tasks/update");
    h.result(&u, ack());
    // b was presented but nobody answered it before the reload.
    let r = record(&mut h, "t1");
    assert_eq!(r["acked"], json!(["a"]));
    let mut h2 = Harness::new(cfg());
    h2.core
        .restore_task(&task_key(URL, "t1"), &r, h2.now)
        .unwrap();
    let w = wait(&mut h2, "t1");
    let p = take_method(&mut h2, "tasks/get");
    h2.result(
        &p,
        input_required("t1", json!({"a": elicit("a?"), "b": elicit("b?")})),
    );
    let keys: Vec<&str> = h2.asks.iter().map(|a| a.key.as_str()).collect();
    assert_eq!(keys, vec!["b"]);
    h2.core.abort(w, crate::error::Error::abort("x"), h2.now);
}

#[test]
fn unusable_records_are_skipped_and_only_expired_or_ended_ones_removed() {
    let mut h = Harness::new(cfg());
    call(&mut h, "t1", true);
    let good = record(&mut h, "t1");
    let key = task_key(URL, "t1");
    let mut h2 = Harness::new(cfg());
    let mut skip = |rec: Value, key: &str| h2.core.restore_task(key, &rec, h2.now).unwrap_err();
    for bad in [
        json!("text"),
        json!(null),
        json!({"task": good["task"]}),
        json!({"v": "1", "task": good["task"]}),
        json!({"v": 1}),
        json!({"v": 1, "task": {"taskId": "t1"}}),
        with(good.clone(), json!({"acked": [1]})),
        with(good.clone(), json!({"acked": "a"})),
        with(good.clone(), json!({"pending": []})),
        with(good.clone(), json!({"tool": 3})),
    ] {
        assert!(
            matches!(skip(bad.clone(), &key), RestoreSkip::Corrupt(_)),
            "{bad}"
        );
    }
    assert!(matches!(
        skip(good.clone(), &task_key(URL, "t2")),
        RestoreSkip::Corrupt(_)
    ));
    assert_eq!(
        skip(
            with(good.clone(), json!({"v": 2, "task": "a future shape"})),
            &key
        ),
        RestoreSkip::NewerVersion(2)
    );
    let mut foreign = good.clone();
    foreign["task"]["serverUrl"] = json!("http://elsewhere/mcp");
    assert_eq!(
        skip(foreign, &key),
        RestoreSkip::OtherServer("http://elsewhere/mcp".into())
    );
    let mut done = good.clone();
    done["task"]["status"] = json!("failed");
    assert_eq!(skip(done, &key), RestoreSkip::Finished("t1".into()));
    h2.pump();
    assert_eq!(
        h2.store_log,
        vec![(key.clone(), None)],
        "only the ended one"
    );
    let n = h2.store_log.len();
    // An hour later the TTL has passed: removed.
    h2.advance(3_600_000);
    let e = h2.core.restore_task(&key, &good, h2.now).unwrap_err();
    assert_eq!(e, RestoreSkip::Expired("t1".into()));
    assert_eq!(log_since(&mut h2, n), vec![(key, None)]);
    // Messages name the problem and carry no control characters.
    for e in [
        RestoreSkip::Corrupt("x".into()),
        RestoreSkip::NewerVersion(2),
        RestoreSkip::OtherServer("http://a/\n".into()),
        RestoreSkip::Expired("t\u{7}".into()),
    ] {
        let m = e.to_string();
        assert!(!m.chars().any(char::is_control), "{m:?}");
    }
    assert!(h2.outbox.is_empty());
}

#[test]
fn store_answers_off_never_writes_an_answer_and_asks_again_after_a_reload() {
    let mut c = cfg();
    c.store_answers = false;
    let mut h = Harness::new(c.clone());
    let (_op, _u) = answered_unacked(&mut h);
    h.pump();
    let all = serde_json::to_string(&h.store_log).unwrap();
    assert!(!all.contains("Ada"), "{all}");
    assert!(!all.contains("pending"), "{all}");
    let r = record(&mut h, "t1");
    assert_eq!(
        r["task"]["status"], "input_required",
        "the task itself is stored"
    );
    // After a reload the unacknowledged key has no answer: it is asked again.
    let mut h2 = Harness::new(c);
    h2.core
        .restore_task(&task_key(URL, "t1"), &r, h2.now)
        .unwrap();
    let w = wait(&mut h2, "t1");
    let p = take_method(&mut h2, "tasks/get");
    h2.result(&p, input_required("t1", json!({"name": elicit("who?")})));
    assert_eq!(h2.asks.len(), 1);
    assert_eq!(h2.asks[0].key, "name");
    h2.core.abort(w, crate::error::Error::abort("x"), h2.now);
}

#[test]
fn store_answers_off_drops_answers_a_restored_record_held() {
    let mut h = Harness::new(cfg());
    answered_unacked(&mut h);
    let r = record(&mut h, "t1");
    let mut c = cfg();
    c.store_answers = false;
    let mut h2 = Harness::new(c);
    h2.core
        .restore_task(&task_key(URL, "t1"), &r, h2.now)
        .unwrap();
    let w = wait(&mut h2, "t1");
    let p = take_method(&mut h2, "tasks/get");
    h2.result(&p, input_required("t1", json!({"name": elicit("who?")})));
    // It is still re-sent (it was stored), but the next write holds no answer.
    let u = take_method(&mut h2, "tasks/update");
    assert_eq!(u.params()["inputResponses"]["name"], accept("Ada"));
    let all = serde_json::to_string(&h2.store_log).unwrap();
    assert!(!all.contains("Ada"), "{all}");
    h2.core.abort(w, crate::error::Error::abort("x"), h2.now);
}

/// Audit r5: a stored pending answer was sent as stored after a reload, without the check
/// every answer gets (README: answers are checked against `requestedSchema` before they
/// are sent). One that does not fit its request, or answers no stored request, is dropped:
/// the key is asked again when a poll lists it.
#[test]
fn a_restored_answer_that_does_not_fit_its_request_is_asked_again_not_sent() {
    let mut h = Harness::new(cfg());
    answered_unacked(&mut h);
    let mut r = record(&mut h, "t1");
    r["pending"] = json!({
        "name": {"action":"accept","content":{"name":12345,"extra":{"nested":true}}},
        "k_unknown": "garbage",
    });
    let mut h2 = Harness::new(cfg());
    h2.core
        .restore_task(&task_key(URL, "t1"), &r, h2.now)
        .unwrap();
    let w = wait(&mut h2, "t1");
    let p = take_method(&mut h2, "tasks/get");
    h2.result(&p, input_required("t1", json!({"name": elicit("who?")})));
    assert_eq!(sent(&h2, "tasks/update"), 0, "an unchecked answer was sent");
    assert_eq!(h2.asks.len(), 1, "the key is asked again");
    let ask = h2.asks[0].id;
    h2.answer(ask, Ok(accept("Bo")));
    let u = take_method(&mut h2, "tasks/update");
    assert_eq!(u.params()["inputResponses"], json!({"name": accept("Bo")}));
    h2.core.abort(w, crate::error::Error::abort("x"), h2.now);
}
