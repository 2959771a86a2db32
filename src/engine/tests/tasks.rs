//! Tasks extension (`io.modelcontextprotocol/tasks`, spec
//! `ext-tasks/specification/draft/tasks.md`): the rules of the tasks issue, each tested at
//! least once (test names carry `rule_<n>_`), plus malformed and hostile server input.
//! A scripted server, a fake clock; nothing sleeps.

use crate::engine::actions::{AskScope, OpId, OpOptions, TaskView};
use crate::engine::config::{Config, ElicitationModes, VersionChoice};
use crate::engine::core::TaskRef;
use crate::engine::ops::Want;
use crate::engine::testkit::*;
use crate::error::{Error, ErrorKind};
use crate::json;
use crate::json::{Map, Value};
use crate::protocol::input::InputKind;
use crate::protocol::tasks::decode_create_task_result;

const EXT: &str = "io.modelcontextprotocol/tasks";
/// The harness clock starts here.
const T0: &str = "2025-11-25T10:30:00Z";
const CAPS: &str = "io.modelcontextprotocol/clientCapabilities";

// ---- helpers ----

fn cfg() -> Config {
    let mut c = Config::new("http://mcp.test/mcp");
    c.version = VersionChoice::Pinned("2026-07-28".into());
    c.extensions.insert(EXT.into(), json!({}));
    c.elicitation = Some(ElicitationModes {
        form: true,
        url: true,
    });
    c
}

fn harness() -> Harness {
    Harness::new(cfg())
}

fn opts() -> OpOptions {
    OpOptions::default()
}

fn timeout(ms: u64) -> OpOptions {
    OpOptions {
        timeout_ms: Some(ms),
        ..Default::default()
    }
}

/// A `CreateTaskResult` (the testkit's `task` fields: 1 h TTL, 1 s poll interval).
fn created(id: &str) -> Value {
    with(task(id, "working"), json!({"resultType":"task"}))
}

/// A `tasks/get` result.
fn got(id: &str, status: &str) -> Value {
    with(task(id, status), json!({"resultType":"complete"}))
}

/// `v` with the fields of `extra` set.
fn with(mut v: Value, extra: Value) -> Value {
    let m = v.as_object_mut().unwrap();
    for (k, x) in extra.as_object().unwrap() {
        m.insert(k.clone(), x.clone());
    }
    v
}

/// `v` without these fields.
fn without(mut v: Value, keys: &[&str]) -> Value {
    let m = v.as_object_mut().unwrap();
    for k in keys {
        m.remove(k);
    }
    v
}

fn completed(id: &str, text: &str) -> Value {
    with(
        got(id, "completed"),
        json!({"result":{"content":[{"type":"text","text":text}],"isError":false}}),
    )
}

fn input_required(id: &str, reqs: Value) -> Value {
    with(got(id, "input_required"), json!({"inputRequests": reqs}))
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

/// Starts `callTool("t")` (answering the `tools/list` it sends first, if any) and answers
/// the `tools/call` with `answer`.
fn call(h: &mut Harness, as_task: bool, o: &OpOptions, answer: Value) -> OpId {
    call_named(h, "t", as_task, o, answer, vec![tool("t")])
}

fn call_named(
    h: &mut Harness,
    name: &str,
    as_task: bool,
    o: &OpOptions,
    answer: Value,
    tools: Vec<Value>,
) -> OpId {
    let op = h.core.call_tool(name, Some(json!({})), as_task, o, h.now);
    let mut s = h.take();
    if s.method() == "tools/list" {
        h.result(&s, tools_page(tools, None));
        s = h.take();
    }
    assert_eq!(s.method(), "tools/call");
    h.result(&s, answer);
    op
}

/// A transparent `callTool` whose server created task `id`: the op and its first poll.
fn call_task(h: &mut Harness, id: &str) -> (OpId, Sent) {
    let op = call(h, false, &opts(), created(id));
    let p = h.take();
    assert_eq!(p.method(), "tasks/get");
    assert_eq!(p.params()["taskId"], id);
    (op, p)
}

fn tref(id: &str) -> TaskRef {
    TaskRef {
        task_id: id.into(),
        seed: None,
    }
}

fn wait(h: &mut Harness, id: &str, want: Want, o: &OpOptions) -> OpId {
    h.core.wait_task(tref(id), want, o, h.now)
}

/// Removes the oldest unanswered request with this method (panics when there is none).
fn take_method(h: &mut Harness, method: &str) -> Sent {
    h.pump();
    let i = h
        .outbox
        .iter()
        .position(|s| s.method() == method)
        .unwrap_or_else(|| panic!("no {method} was sent; outbox: {:?}", methods(&h.outbox)));
    h.outbox.remove(i).unwrap()
}

/// A later wait's poll (rule 5): none before `ms` (the interval after the last poll), then
/// one.
fn poll_after(h: &mut Harness, ms: u64) -> Sent {
    assert_eq!(pending(h, "tasks/get"), 0, "no poll before the interval");
    h.advance(ms);
    take_method(h, "tasks/get")
}

/// Unanswered requests with this method.
fn pending(h: &mut Harness, method: &str) -> usize {
    h.pump();
    h.outbox.iter().filter(|s| s.method() == method).count()
}

/// Requests with this method ever sent.
fn sent(h: &Harness, method: &str) -> usize {
    h.history.iter().filter(|s| s.method() == method).count()
}

fn methods<'a>(it: impl IntoIterator<Item = &'a Sent>) -> Vec<String> {
    it.into_iter().map(|s| s.method().to_string()).collect()
}

/// A host-side view of a task value (what a JS handle would hold).
fn view_of(v: &Value, local: bool) -> TaskView {
    let raw = crate::json::RawJson::of(v);
    let task = decode_create_task_result(&raw).unwrap();
    TaskView {
        task,
        input_requests: None,
        result: v.get("result").map(crate::json::RawJson::of),
        error: None,
        local,
    }
}

/// The key of task `id`'s durable record (`task::store`).
fn record_key(id: &str) -> String {
    crate::engine::task::store::task_key("http://mcp.test/mcp", id)
}

fn no_controls(s: &str) -> bool {
    !s.chars().any(char::is_control)
}

// ---- rule 1 ----

#[test]
fn rule_1_extension_is_declared_on_every_request_when_configured() {
    let mut h = harness();
    let (op, p) = call_task(&mut h, "t1");
    h.result(&p, input_required("t1", json!({"k":elicit("n?")})));
    let a = h.asks[0].clone();
    h.answer(a.id, Ok(accept("x")));
    let u = take_method(&mut h, "tasks/update");
    h.result(&u, ack());
    let _ = h.core.cancel_task(&tref("t1"), &opts(), h.now);
    let c = take_method(&mut h, "tasks/cancel");
    h.result(&c, ack());
    let g = h.core.get_task(&tref("t1"), &opts(), h.now);
    let s = take_method(&mut h, "tasks/get");
    h.result(&s, got("t1", "working"));
    h.ok(g);
    let _l = h.core.listen(&json!({"taskIds":["t1"]}), h.now);
    take_method(&mut h, "subscriptions/listen");
    let _ = h.core.listen(&json!({"toolsListChanged":true}), h.now);
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, completed("t1", "ok"));
    h.ok(op);
    let seen = methods(&h.history);
    for m in [
        "tools/list",
        "tools/call",
        "tasks/get",
        "tasks/update",
        "tasks/cancel",
        "subscriptions/listen",
    ] {
        assert!(seen.iter().any(|s| s == m), "{m} not sent: {seen:?}");
    }
    for s in &h.history {
        assert_eq!(
            s.params()["_meta"][CAPS]["extensions"][EXT],
            json!({}),
            "{} lacks the extension",
            s.method()
        );
    }
}

#[test]
fn rule_1_extension_is_declared_nowhere_when_not_configured() {
    let mut c = cfg();
    c.extensions.clear();
    let mut h = Harness::new(c);
    let op = call(&mut h, false, &opts(), json!({"content":[]}));
    h.ok(op);
    let _ = h.core.listen(&json!({"toolsListChanged":true}), h.now);
    let _ = h.core.discover(&opts(), h.now);
    h.pump();
    assert_eq!(h.history.len(), 4, "{:?}", methods(&h.history));
    for s in &h.history {
        let caps = &s.params()["_meta"][CAPS];
        assert!(caps.is_object(), "{} has capabilities", s.method());
        assert!(
            caps.get("extensions").is_none(),
            "{} declares extensions: {caps}",
            s.method()
        );
    }
}

// ---- rule 2 ----

#[test]
fn rule_2_task_result_without_the_declared_extension_is_invalid() {
    let mut c = cfg();
    c.extensions.clear();
    let mut h = Harness::new(c);
    let op = call(&mut h, false, &opts(), created("x"));
    assert_eq!(h.err(op).kind, ErrorKind::InvalidResult);
    assert_eq!(sent(&h, "tasks/get"), 0);
}

#[test]
fn rule_2_task_result_is_invalid_for_methods_other_than_tools_call() {
    for (purpose, params) in [
        (Purpose::Prompt, json!({"name":"p"})),
        (Purpose::Read, json!({"uri":"a:b"})),
        (Purpose::PromptsList, json!({})),
        (Purpose::ToolsList, json!({})),
        (
            Purpose::Complete,
            json!({"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"b"}}),
        ),
    ] {
        let method = purpose.method();
        let mut h = harness();
        let op = h.core.request(
            purpose,
            params.as_object().cloned().unwrap(),
            &opts(),
            h.now,
        );
        let s = h.take();
        h.result(&s, created("x"));
        assert_eq!(h.err(op).kind, ErrorKind::InvalidResult, "{method}");
        assert!(h.try_take().is_none(), "{method}: nothing polled");
    }
    // tasks/update and tasks/cancel answer empty acks, never a task.
    let mut h = harness();
    let up = h.core.update_task(&tref("t"), Map::new(), &opts(), h.now);
    let s = h.take();
    h.result(&s, created("t"));
    assert_eq!(h.err(up).kind, ErrorKind::InvalidResult);
    let c = h.core.cancel_task(&tref("t"), &opts(), h.now);
    let s = h.take();
    h.result(&s, created("t"));
    assert_eq!(h.err(c).kind, ErrorKind::InvalidResult);
}

#[test]
fn rule_2_tasks_get_result_type_must_be_complete_or_absent() {
    let cases: Vec<(Value, Option<ErrorKind>)> = vec![
        (got("t", "working"), None),
        (without(got("t", "working"), &["resultType"]), None),
        // The extension's own examples: a stray "task" on a real task payload.
        (
            with(got("t", "working"), json!({"resultType":"task"})),
            None,
        ),
        (
            without(
                with(got("t", "working"), json!({"resultType":"task"})),
                &["status"],
            ),
            Some(ErrorKind::InvalidResult),
        ),
        (
            with(got("t", "working"), json!({"resultType":"input_required"})),
            Some(ErrorKind::InvalidResult),
        ),
        (
            with(got("t", "working"), json!({"resultType":"stream"})),
            Some(ErrorKind::InvalidResult),
        ),
        (
            with(got("t", "working"), json!({"resultType":5})),
            Some(ErrorKind::InvalidResult),
        ),
    ];
    for (answer, expected) in cases {
        let mut h = harness();
        let op = h.core.get_task(&tref("t"), &opts(), h.now);
        let s = h.take();
        h.result(&s, answer.clone());
        match expected {
            None => assert_eq!(h.ok(op)["status"], "working", "{answer}"),
            Some(k) => assert_eq!(h.err(op).kind, k, "{answer}"),
        }
    }
}

#[test]
fn rule_2_a_poll_with_a_stray_task_result_type_and_a_status_is_accepted() {
    let mut h = harness();
    let (op, p) = call_task(&mut h, "t1");
    h.result(&p, with(got("t1", "working"), json!({"resultType":"task"})));
    assert!(h.outcome(op).is_none());
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(
        &p,
        with(completed("t1", "done"), json!({"resultType":"task"})),
    );
    assert_eq!(h.ok(op)["content"][0]["text"], "done");
    // Without a status it is not a task payload.
    let (op, p) = call_task(&mut h, "t2");
    h.result(
        &p,
        without(
            with(got("t2", "working"), json!({"resultType":"task"})),
            &["status"],
        ),
    );
    assert_eq!(h.err(op).kind, ErrorKind::InvalidResult);
}

// ---- rule 3 ----

fn malformed_create_task_results() -> Vec<Value> {
    let base = created("t1");
    let mut v = Vec::new();
    for field in ["taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs"] {
        v.push(without(base.clone(), &[field]));
    }
    for (field, value) in [
        ("taskId", Value::Null),
        ("taskId", json!(5)),
        ("taskId", json!("")),
        ("taskId", json!({"id":"x"})),
        ("status", json!("running")),
        ("status", Value::Null),
        ("createdAt", Value::Null),
        ("status", json!(1)),
        ("createdAt", json!("yesterday")),
        ("createdAt", json!("")),
        ("createdAt", json!("2025-11-25")),
        ("lastUpdatedAt", json!(17)),
        ("lastUpdatedAt", json!("2025-13-45T99:00:00Z")),
        ("ttlMs", json!(-1)),
        ("ttlMs", json!("60000")),
        ("pollIntervalMs", json!(-5)),
        ("pollIntervalMs", json!("5s")),
        ("statusMessage", json!(3)),
    ] {
        v.push(with(base.clone(), json!({ field: value })));
    }
    // A task wrapped the 2025-11-25 way is not flat.
    v.push(json!({"resultType":"task","task":task("t1","working")}));
    v
}

#[test]
fn rule_3_malformed_create_task_results_are_invalid_and_nothing_is_polled() {
    for bad in malformed_create_task_results() {
        for as_task in [false, true] {
            let mut h = harness();
            let op = call(&mut h, as_task, &opts(), bad.clone());
            let e = h.err(op);
            assert_eq!(e.kind, ErrorKind::InvalidResult, "{bad} as_task={as_task}");
            assert!(h.try_take().is_none(), "{bad}: nothing more is sent");
            assert_eq!(h.core.next_deadline(), None, "{bad}: no timer left");
        }
    }
}

/// The audit's case: `createdAt`/`lastUpdatedAt` are "ISO 8601 timestamp[s]" (§ Tasks; the
/// schema says only `string`). A task whose timestamps are ISO 8601 but not RFC 3339 (no
/// offset, as Python's `datetime.utcnow().isoformat()` gives; minutes only; basic format)
/// was refused, and the server's task orphaned. It is polled, its text kept as sent.
#[test]
fn rule_3_iso8601_timestamps_beyond_rfc3339_are_accepted() {
    for ts in [
        "2025-11-25T10:30:00",
        "2025-11-25T10:30:00.123456",
        "2025-11-25T10:30Z",
        "20251125T103000Z",
    ] {
        for as_task in [false, true] {
            let mut h = harness();
            let answer = with(created("t1"), json!({"createdAt":ts,"lastUpdatedAt":ts}));
            let op = call(&mut h, as_task, &opts(), answer);
            if as_task {
                let v = h.ok(op);
                assert_eq!(
                    (&v["createdAt"], &v["lastUpdatedAt"]),
                    (&json!(ts), &json!(ts))
                );
                continue;
            }
            let p = take_method(&mut h, "tasks/get");
            h.result(&p, with(completed("t1", "ok"), json!({"lastUpdatedAt":ts})));
            assert_eq!(h.ok(op)["content"][0]["text"], "ok", "{ts}");
        }
    }
}

#[test]
fn rule_3_a_flat_create_task_result_is_the_handle_of_call_tool_as_task() {
    let mut h = harness();
    let answer = with(
        created("786512e2"),
        json!({"ttlMs":null,"statusMessage":"The operation is now in progress.",
               "lastUpdatedAt":"2025-11-25T10:40:00Z"}),
    );
    let op = call(&mut h, true, &opts(), answer);
    let v = h.ok(op);
    assert_eq!(v["taskId"], "786512e2");
    assert_eq!(v["status"], "working");
    assert_eq!(v["ttlMs"], Value::Null, "null is unlimited");
    assert_eq!(v["pollIntervalMs"], 1000);
    assert_eq!(v["createdAt"], T0);
    assert_eq!(v["lastUpdatedAt"], "2025-11-25T10:40:00Z");
    assert_eq!(v["statusMessage"], "The operation is now in progress.");
    assert!(h.try_take().is_none(), "callToolAsTask does not poll");
}

// ---- rule 4 ----

#[test]
fn rule_4_first_poll_goes_out_at_once_after_creation() {
    let mut h = harness();
    let start = h.now;
    let op = call(
        &mut h,
        false,
        &opts(),
        with(created("t1"), json!({"pollIntervalMs":5000})),
    );
    let p = h.take();
    assert_eq!(p.method(), "tasks/get");
    assert_eq!(h.now, start, "no clock movement needed");
    assert_eq!(p.params()["taskId"], "t1");
    h.result(&p, completed("t1", "r"));
    assert_eq!(h.ok(op)["content"][0]["text"], "r");
}

#[test]
fn rule_4_a_seed_saying_completed_without_result_is_confirmed() {
    let mut h = harness();
    let op = call(
        &mut h,
        false,
        &opts(),
        with(created("t1"), json!({"status":"completed"})),
    );
    assert!(h.outcome(op).is_none(), "the seed is not trusted");
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, completed("t1", "fetched"));
    assert_eq!(h.ok(op)["content"][0]["text"], "fetched");

    // A host handle whose seed says completed (without a result) is fetched too.
    let seed = view_of(&task("t2", "completed"), false);
    let w = h.core.wait_task(
        TaskRef {
            task_id: "t2".into(),
            seed: Some(seed),
        },
        Want::Result,
        &opts(),
        h.now,
    );
    assert!(h.outcome(w).is_none());
    let p = take_method(&mut h, "tasks/get");
    assert_eq!(p.params()["taskId"], "t2");
    h.result(&p, completed("t2", "fetched too"));
    assert_eq!(h.ok(w)["content"][0]["text"], "fetched too");
}

// ---- rule 5 ----

/// Answers the poll `p` with `answer`, then checks the next poll goes out exactly `gap` ms later.
fn expect_gap(h: &mut Harness, p: &Sent, answer: Value, gap: u64) -> Sent {
    h.result(p, answer);
    let at = h.now;
    assert_eq!(h.core.next_deadline(), Some(at + gap));
    h.advance(gap - 1);
    assert_eq!(pending(h, "tasks/get"), 0, "no poll before {gap} ms");
    h.advance(1);
    let next = take_method(h, "tasks/get");
    assert_eq!(h.now - at, gap);
    next
}

#[test]
fn rule_5_polls_wait_the_latest_poll_interval() {
    let mut h = harness();
    let (op, p) = call_task(&mut h, "t1");
    let p = expect_gap(
        &mut h,
        &p,
        with(got("t1", "working"), json!({"pollIntervalMs":3000})),
        3000,
    );
    let p = expect_gap(
        &mut h,
        &p,
        with(got("t1", "working"), json!({"pollIntervalMs":500})),
        500,
    );
    let p = expect_gap(
        &mut h,
        &p,
        with(got("t1", "working"), json!({"pollIntervalMs":7000})),
        7000,
    );
    h.result(&p, completed("t1", "ok"));
    h.ok(op);
}

#[test]
fn rule_5_default_interval_is_one_second_and_zero_is_floored() {
    let mut h = harness();
    let (op, p) = call_task(&mut h, "t1");
    let p = expect_gap(
        &mut h,
        &p,
        without(got("t1", "working"), &["pollIntervalMs"]),
        1000,
    );
    let mut p = expect_gap(
        &mut h,
        &p,
        with(got("t1", "working"), json!({"pollIntervalMs":0})),
        50,
    );
    // Zero stays floored: no busy loop however long it lasts.
    for _ in 0..20 {
        p = expect_gap(
            &mut h,
            &p,
            with(got("t1", "working"), json!({"pollIntervalMs":0})),
            50,
        );
    }
    assert_eq!(sent(&h, "tasks/get"), 23);
    h.result(&p, completed("t1", "ok"));
    h.ok(op);
}

#[test]
fn rule_5_a_huge_interval_is_bounded_by_the_caller_timeout() {
    let mut h = harness();
    let start = h.now;
    let w = wait(&mut h, "t1", Want::Task, &timeout(10_000));
    let p = take_method(&mut h, "tasks/get");
    h.result(
        &p,
        with(
            got("t1", "working"),
            json!({"pollIntervalMs":86_400_000u64,"ttlMs":null}),
        ),
    );
    assert_eq!(h.core.next_deadline(), Some(start + 10_000));
    h.advance(9_999);
    assert!(h.outcome(w).is_none());
    h.advance(1);
    assert_eq!(h.err(w).kind, ErrorKind::TaskTimeout);
    assert_eq!(sent(&h, "tasks/get"), 1);
    assert_eq!(h.core.next_deadline(), None, "nothing left scheduled");
}

#[test]
fn rule_5_a_huge_interval_is_bounded_by_the_ttl() {
    let mut h = harness();
    let start = h.now;
    let w = wait(&mut h, "t1", Want::Task, &opts());
    let p = take_method(&mut h, "tasks/get");
    h.result(
        &p,
        with(
            got("t1", "working"),
            json!({"pollIntervalMs":86_400_000u64,"ttlMs":20_000}),
        ),
    );
    assert_eq!(h.core.next_deadline(), Some(start + 20_000));
    h.advance(20_000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, with(got("t1", "working"), json!({"ttlMs":20_000})));
    assert_eq!(h.err(w).kind, ErrorKind::TaskExpired);
}

#[test]
fn rule_5_an_unrepresentable_interval_is_bounded_not_a_crash() {
    let mut h = harness();
    let w = wait(&mut h, "t1", Want::Task, &opts());
    let p = take_method(&mut h, "tasks/get");
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"taskId":"t1","status":"working","createdAt":"{T0}","lastUpdatedAt":"{T0}","ttlMs":null,"pollIntervalMs":1e300}}}}"#,
        p.id()
    );
    h.head(p.xfer(), 200, Some("application/json"));
    h.chunk(p.xfer(), body.as_bytes());
    h.end(p.xfer());
    assert!(h.outcome(w).is_none(), "a huge interval is not an error");
    let d = h.core.next_deadline().expect("a poll is scheduled");
    assert!(d > h.now + 86_400_000, "honoured: {d}");
    h.advance(30 * 86_400_000);
    assert_eq!(pending(&mut h, "tasks/get"), 0);
    h.core.abort(w, Error::abort("enough"), h.now);
    assert_eq!(h.err(w).kind, ErrorKind::Abort);
    assert_eq!(h.core.next_deadline(), None);
}

/// The audit's case: a host waits on a task again and again with a short budget (a
/// re-rendered component, a retry loop). Each wait used to poll at once although the last
/// poll was a moment ago; the server asked for one poll every 5 s.
#[test]
fn rule_5_back_to_back_waits_respect_the_poll_interval() {
    let mut h = harness();
    let start = h.now;
    let mut starts = Vec::new();
    for _ in 0..30 {
        let w = wait(&mut h, "t1", Want::Task, &timeout(200));
        h.pump();
        if let Some(i) = h.outbox.iter().position(|s| s.method() == "tasks/get") {
            let p = h.outbox.remove(i).unwrap();
            starts.push(h.now - start);
            h.result(
                &p,
                with(got("t1", "working"), json!({"pollIntervalMs":5000})),
            );
        }
        h.advance(200);
        assert_eq!(h.err(w).kind, ErrorKind::TaskTimeout);
    }
    // 30 waits over 6 s: the first poll at once (rule 4), the next 5 s later.
    assert_eq!(starts, vec![0, 5000]);
    // A wait that joins between polls gets the next one at the interval, not at once.
    h.advance(1000); // 7000: the last poll was 2 s ago
    let w = wait(&mut h, "t1", Want::Task, &opts());
    assert_eq!(pending(&mut h, "tasks/get"), 0);
    assert_eq!(h.core.next_deadline(), Some(start + 10_000));
    let p = poll_after(&mut h, 3000);
    h.result(&p, completed("t1", "ok"));
    assert_eq!(h.ok(w)["status"], "completed");
}

#[test]
fn rule_5_a_wait_after_a_long_idle_polls_at_once() {
    let mut h = harness();
    let w = wait(&mut h, "t1", Want::Task, &timeout(200));
    let p = take_method(&mut h, "tasks/get");
    h.result(
        &p,
        with(got("t1", "working"), json!({"pollIntervalMs":5000})),
    );
    h.advance(200);
    assert_eq!(h.err(w).kind, ErrorKind::TaskTimeout);
    // The last poll started exactly one interval ago: the wait polls at once.
    h.advance(4800);
    let w = wait(&mut h, "t1", Want::Task, &opts());
    let p = take_method(&mut h, "tasks/get");
    h.result(
        &p,
        with(got("t1", "working"), json!({"pollIntervalMs":5000})),
    );
    h.core.abort(w, Error::abort("x"), h.now);
    // Long after: at once too.
    h.advance(60_000);
    let w = wait(&mut h, "t1", Want::Task, &opts());
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, completed("t1", "ok"));
    assert_eq!(h.ok(w)["status"], "completed");
    assert_eq!(sent(&h, "tasks/get"), 3);
}

/// A wait joining between polls is not held past the TTL backstop (rule 10), and a task
/// past it is polled at once: the poll decides.
#[test]
fn rule_5_a_later_wait_polls_no_later_than_the_ttl() {
    let mut h = harness();
    let start = h.now;
    let w = wait(&mut h, "t1", Want::Task, &timeout(100));
    let p = take_method(&mut h, "tasks/get");
    let short = with(
        got("t1", "working"),
        json!({"pollIntervalMs":60_000,"ttlMs":3000}),
    );
    h.result(&p, short.clone());
    h.advance(100);
    assert_eq!(h.err(w).kind, ErrorKind::TaskTimeout);
    let w = wait(&mut h, "t1", Want::Task, &opts());
    assert_eq!(h.core.next_deadline(), Some(start + 3000));
    let p = poll_after(&mut h, 2900);
    h.result(&p, short);
    assert_eq!(h.err(w).kind, ErrorKind::TaskExpired);
}

// ---- rule 6 ----

#[test]
fn rule_6_input_requests_go_to_handlers_and_answers_to_tasks_update() {
    let mut h = harness();
    let (op, p) = call_task(&mut h, "t1");
    h.result(
        &p,
        with(
            input_required(
                "t1",
                json!({
                    "form": elicit("Name?"),
                    "link": {"method":"elicitation/create","params":{"mode":"url","message":"Sign in",
                             "url":"https://auth.example.com/x","elicitationId":"e1"}}
                }),
            ),
            json!({"requestState":"must-not-echo"}),
        ),
    );
    assert_eq!(h.asks.len(), 2);
    for a in &h.asks {
        assert_eq!(a.scope, AskScope::Task);
        assert_eq!(a.task_id.as_deref(), Some("t1"));
        assert_eq!(a.kind, InputKind::Elicitation);
    }
    let form = h.asks.iter().find(|a| a.key == "form").unwrap().clone();
    let link = h.asks.iter().find(|a| a.key == "link").unwrap().clone();
    assert_eq!(form.params["message"], "Name?");
    assert_eq!(
        link.url.as_ref().map(|u| u.url.as_str()),
        Some("https://auth.example.com/x")
    );
    // The task's status (with its inputRequests) reaches onTaskStatus.
    assert!(h
        .statuses
        .iter()
        .any(|(o, v)| *o == op && v.input_requests.is_some()));
    h.answer(form.id, Ok(accept("Ada")));
    let u = take_method(&mut h, "tasks/update");
    assert_eq!(u.params()["taskId"], "t1");
    assert_eq!(
        u.params()["inputResponses"],
        json!({"form":{"action":"accept","content":{"name":"Ada"}}})
    );
    let keys: Vec<&String> = u.params().as_object().unwrap().keys().collect();
    assert_eq!(
        keys.len(),
        3,
        "taskId, inputResponses, _meta only: {keys:?}"
    );
    assert!(!u.req.body_text().unwrap().contains("requestState"));
    h.result(&u, ack());
    h.answer(link.id, Ok(json!({"action":"accept"})));
    let u2 = take_method(&mut h, "tasks/update");
    assert_eq!(
        u2.params()["inputResponses"],
        json!({"link":{"action":"accept"}})
    );
    assert!(u2.params().get("requestState").is_none());
    h.result(&u2, ack());
    assert_eq!(sent(&h, "tools/call"), 1, "a task is never re-called");
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, completed("t1", "hi Ada"));
    assert_eq!(h.ok(op)["content"][0]["text"], "hi Ada");
}

// ---- rule 7 ----

#[test]
fn rule_7_a_key_is_presented_once_across_polls() {
    let mut h = harness();
    let (op, p) = call_task(&mut h, "t1");
    h.result(&p, input_required("t1", json!({"k1":elicit("1")})));
    assert_eq!(h.asks.len(), 1);
    // The person takes their time; polls go on and list k1 again.
    for _ in 0..3 {
        h.advance(1000);
        let p = take_method(&mut h, "tasks/get");
        h.result(&p, input_required("t1", json!({"k1":elicit("1")})));
    }
    assert_eq!(h.asks.len(), 1, "k1 presented once");
    let k1 = h.asks[0].clone();
    h.answer(k1.id, Ok(accept("a")));
    let u = take_method(&mut h, "tasks/update");
    h.result(&u, ack());
    // Eventually consistent: k1 still listed, then k1 + k2.
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, input_required("t1", json!({"k1":elicit("1")})));
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(
        &p,
        input_required("t1", json!({"k1":elicit("1"),"k2":elicit("2")})),
    );
    assert_eq!(h.asks.len(), 2);
    assert_eq!(h.asks[1].key, "k2");
    assert_eq!(
        pending(&mut h, "tasks/update"),
        0,
        "k1 is not answered twice"
    );
    let k2 = h.asks[1].clone();
    h.answer(k2.id, Ok(accept("b")));
    let u = take_method(&mut h, "tasks/update");
    assert_eq!(
        u.params()["inputResponses"],
        json!({"k2":{"action":"accept","content":{"name":"b"}}})
    );
    h.result(&u, ack());
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, completed("t1", "ok"));
    h.ok(op);
    assert_eq!(h.asks.len(), 2);
}

#[test]
fn rule_7_a_key_is_presented_once_across_waits() {
    let mut h = harness();
    let w1 = wait(&mut h, "t1", Want::Task, &timeout(1500));
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, input_required("t1", json!({"k1":elicit("1")})));
    let k1 = h.asks[0].clone();
    h.answer(k1.id, Ok(accept("a")));
    let u = take_method(&mut h, "tasks/update");
    h.result(&u, ack());
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, input_required("t1", json!({"k1":elicit("1")})));
    h.advance(500);
    assert_eq!(h.err(w1).kind, ErrorKind::TaskTimeout);
    assert_eq!(sent(&h, "tasks/cancel"), 0);

    // A second waitForTask on the same task: k1 stays answered.
    let w2 = wait(&mut h, "t1", Want::Task, &opts());
    let p = poll_after(&mut h, 500);
    h.result(
        &p,
        input_required("t1", json!({"k1":elicit("1"),"k2":elicit("2")})),
    );
    assert_eq!(h.asks.len(), 2, "only k2 is new");
    assert_eq!(h.asks[1].key, "k2");
    let k2 = h.asks[1].clone();
    h.answer(k2.id, Ok(accept("b")));
    let u = take_method(&mut h, "tasks/update");
    assert_eq!(
        u.params()["inputResponses"].as_object().unwrap().len(),
        1,
        "k1 is not sent again"
    );
    h.result(&u, ack());
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, with(completed("t1", "ok"), json!({})));
    assert_eq!(h.ok(w2)["status"], "completed");
}

#[test]
fn rule_7_two_waits_on_one_task_share_one_prompt() {
    let mut h = harness();
    let w1 = wait(&mut h, "t1", Want::Task, &opts());
    let w2 = wait(&mut h, "t1", Want::Result, &opts());
    let p = take_method(&mut h, "tasks/get");
    assert_eq!(pending(&mut h, "tasks/get"), 0);
    h.result(&p, input_required("t1", json!({"k1":elicit("1")})));
    assert_eq!(h.asks.len(), 1);
    let k1 = h.asks[0].clone();
    h.answer(k1.id, Ok(accept("a")));
    let u = take_method(&mut h, "tasks/update");
    h.result(&u, ack());
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, completed("t1", "both"));
    assert_eq!(h.ok(w1)["status"], "completed");
    assert_eq!(h.ok(w2)["content"][0]["text"], "both");
    assert_eq!(sent(&h, "tasks/update"), 1);
}

#[test]
fn a_prompt_withdrawn_when_its_wait_ended_is_presented_again_by_a_later_wait() {
    // Documents a choice of the engine: an ask whose handler was told to stop (its wait
    // ended before the person answered) was never answered, so the next wait presents the
    // key again; otherwise the task could never leave input_required.
    let mut h = harness();
    let w1 = wait(&mut h, "t1", Want::Task, &timeout(500));
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, input_required("t1", json!({"k1":elicit("1")})));
    let first = h.asks[0].clone();
    h.advance(500);
    assert_eq!(h.err(w1).kind, ErrorKind::TaskTimeout);
    assert!(h.cancelled_asks.contains(&first.id));
    // A late answer to the withdrawn ask is dropped.
    h.answer(first.id, Ok(accept("late")));
    assert_eq!(pending(&mut h, "tasks/update"), 0);
    let w2 = wait(&mut h, "t1", Want::Task, &opts());
    let p = poll_after(&mut h, 500);
    h.result(&p, input_required("t1", json!({"k1":elicit("1")})));
    assert_eq!(h.asks.len(), 2);
    assert_eq!(h.asks[1].key, "k1");
    assert_ne!(h.asks[1].id, first.id);
    h.core.abort(w2, Error::abort("x"), h.now);
}

#[test]
fn a_task_handler_that_throws_ends_the_wait_and_sends_nothing() {
    let mut h = harness();
    let (op, p) = call_task(&mut h, "t1");
    h.result(
        &p,
        input_required("t1", json!({"a":elicit("1"),"b":elicit("2")})),
    );
    assert_eq!(h.asks.len(), 2);
    let (a, b) = (h.asks[0].clone(), h.asks[1].clone());
    h.answer(a.id, Err(Error::handler(Some(3), "no")));
    let e = h.err(op);
    assert_eq!((e.kind, e.host_ref), (ErrorKind::Handler, Some(3)));
    assert!(
        h.cancelled_asks.contains(&b.id),
        "the other handler's signal fires"
    );
    assert!(h.try_take().is_none(), "no tasks/update, no more polls");
    assert_eq!(h.core.next_deadline(), None);
}

#[test]
fn task_inputs_respect_the_concurrency_cap() {
    let mut c = cfg();
    c.limits.max_concurrent_inputs = 1;
    let mut h = Harness::new(c);
    let (op, p) = call_task(&mut h, "t1");
    h.result(
        &p,
        input_required("t1", json!({"a":elicit("1"),"b":elicit("2")})),
    );
    assert_eq!(h.asks.len(), 1);
    let first = h.asks[0].clone();
    h.answer(first.id, Ok(accept("x")));
    assert_eq!(h.asks.len(), 2);
    assert_ne!(h.asks[1].key, first.key);
    let u = take_method(&mut h, "tasks/update");
    assert_eq!(u.params()["inputResponses"].as_object().unwrap().len(), 1);
    h.core.abort(op, Error::abort("x"), h.now);
}

// ---- rule 8 ----

/// A wait on t1 whose first poll asked for k1, answered by the host; returns the wait and
/// the `tasks/update` carrying the answer.
fn answered_k1(h: &mut Harness) -> (OpId, Sent) {
    let w = wait(h, "t1", Want::Task, &opts());
    let p = take_method(h, "tasks/get");
    h.result(&p, input_required("t1", json!({"k1":elicit("1")})));
    let k1 = h.asks[0].clone();
    h.answer(k1.id, Ok(accept("a")));
    let u = take_method(h, "tasks/update");
    assert_eq!(
        u.params()["inputResponses"],
        json!({"k1":{"action":"accept","content":{"name":"a"}}})
    );
    (w, u)
}

#[test]
fn rule_8_a_lost_update_is_resent_without_asking_again() {
    let mut h = harness();
    let (w, u) = answered_k1(&mut h);
    h.fail(u.xfer(), Error::network("connection reset"));
    assert!(h.outcome(w).is_none(), "not fatal");
    assert_eq!(
        pending(&mut h, "tasks/update"),
        0,
        "resent on the next round"
    );
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, input_required("t1", json!({"k1":elicit("1")})));
    assert_eq!(h.asks.len(), 1, "the host is not asked again");
    let u2 = take_method(&mut h, "tasks/update");
    assert_ne!(u2.id(), u.id());
    assert_eq!(u2.params()["inputResponses"], u.params()["inputResponses"]);
    h.result(&u2, ack());
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, completed("t1", "ok"));
    assert_eq!(h.ok(w)["status"], "completed");
    assert_eq!(sent(&h, "tasks/update"), 2);
}

#[test]
fn rule_8_a_timed_out_update_is_resent_without_asking_again() {
    let mut c = cfg();
    c.request_timeout_ms = 5000;
    let mut h = Harness::new(c);
    let (w, u) = answered_k1(&mut h);
    // Polls go on while the update hangs.
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, input_required("t1", json!({"k1":elicit("1")})));
    assert_eq!(pending(&mut h, "tasks/update"), 0, "one update at a time");
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.advance(3000); // the update times out (5 s)
    assert!(h.cancelled.contains(&u.xfer()));
    assert!(h.outcome(w).is_none());
    // This poll started before the update timed out: the server may have answered it
    // before applying the update, so it decides nothing.
    h.result(&p, input_required("t1", json!({"k1":elicit("1")})));
    assert_eq!(
        pending(&mut h, "tasks/update"),
        0,
        "not on a poll older than the failure"
    );
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, input_required("t1", json!({"k1":elicit("1")})));
    let u2 = take_method(&mut h, "tasks/update");
    assert_eq!(u2.params()["inputResponses"], u.params()["inputResponses"]);
    assert_eq!(h.asks.len(), 1, "the host is not asked again");
    h.result(&u2, ack());
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, completed("t1", "ok"));
    h.ok(w);
}

#[test]
fn rule_8_a_lost_ack_is_settled_by_the_next_poll() {
    let mut h = harness();
    let (w, u) = answered_k1(&mut h);
    h.fail(u.xfer(), Error::network("reset"));
    h.advance(1000);
    // The server did get it: k1 is no longer outstanding.
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, input_required("t1", json!({"k2":elicit("2")})));
    assert_eq!(pending(&mut h, "tasks/update"), 0, "k1 is not re-sent");
    assert_eq!(h.asks.len(), 2);
    assert_eq!(h.asks[1].key, "k2");
    h.core.abort(w, Error::abort("x"), h.now);
}

/// Found by the fault server (tests/faults, scenario `task-lost-ack-sse`): the update was
/// applied and its SSE response stream broke before the acknowledgement. Re-issuing it at
/// once (as a dropped stream of other requests is) sent the answer a second time; the
/// next poll must decide instead, as for any lost acknowledgement.
#[test]
fn rule_8_a_broken_update_stream_is_not_reissued_and_the_next_poll_decides() {
    let mut h = harness();
    let (w, u) = answered_k1(&mut h);
    h.sse(&u, &[], true); // 200 text/event-stream, then the stream ends without a response
    assert!(h.outcome(w).is_none(), "not fatal");
    assert_eq!(pending(&mut h, "tasks/update"), 0, "not re-issued at once");
    h.advance(1000);
    // The server did apply it: k1 is no longer outstanding.
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, input_required("t1", json!({"k2":elicit("2")})));
    assert_eq!(pending(&mut h, "tasks/update"), 0, "k1 is not re-sent");
    assert_eq!(sent(&h, "tasks/update"), 1);
    assert_eq!(h.asks.len(), 2, "k1 asked once, then k2");
    assert_eq!(h.asks[1].key, "k2");
    h.core.abort(w, Error::abort("x"), h.now);
}

/// The same, when the update really was lost: the next poll still lists k1, so the answer
/// is re-sent, without asking the host again.
#[test]
fn rule_8_a_broken_update_stream_is_resent_when_the_poll_still_asks() {
    let mut h = harness();
    let (w, u) = answered_k1(&mut h);
    h.sse(&u, &[], true);
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, input_required("t1", json!({"k1":elicit("1")})));
    let u2 = take_method(&mut h, "tasks/update");
    assert_eq!(u2.params()["inputResponses"], u.params()["inputResponses"]);
    assert_eq!(h.asks.len(), 1, "the host is not asked again");
    h.core.abort(w, Error::abort("x"), h.now);
}

/// Found by the fault server (tests/faults, scenario `task-stale-poll`): a poll answered
/// before the server applied an update, delivered after that update's acknowledgement was
/// lost, still listed the key; the client took it as proof that the update was lost and
/// sent the answer again. Only a poll started after the failure decides.
#[test]
fn rule_8_a_poll_older_than_a_lost_ack_does_not_resend() {
    let mut h = harness();
    let (w, u) = answered_k1(&mut h);
    h.advance(1000);
    let stale = take_method(&mut h, "tasks/get"); // started while the update is in flight
    h.fail(u.xfer(), Error::network("reset")); // applied, but the ack is lost
    h.result(&stale, input_required("t1", json!({"k1":elicit("1")})));
    assert_eq!(
        pending(&mut h, "tasks/update"),
        0,
        "the stale poll decides nothing"
    );
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, input_required("t1", json!({"k2":elicit("2")})));
    assert_eq!(
        pending(&mut h, "tasks/update"),
        0,
        "k1 arrived: not re-sent"
    );
    assert_eq!(sent(&h, "tasks/update"), 1);
    assert_eq!(h.asks.len(), 2, "k1 asked once, then k2");
    // An answer given meanwhile goes out alone, without k1.
    let k2 = h.asks[1].clone();
    h.answer(k2.id, Ok(accept("b")));
    let u2 = take_method(&mut h, "tasks/update");
    assert_eq!(
        u2.params()["inputResponses"],
        json!({"k2":{"action":"accept","content":{"name":"b"}}})
    );
    h.core.abort(w, Error::abort("x"), h.now);
}

/// The same, when the update really was lost: the first poll started after the failure
/// still lists k1, and the answer goes out again, once; an answer given in between goes
/// out without it.
#[test]
fn rule_8_after_a_lost_ack_a_fresh_poll_resends_once() {
    let mut h = harness();
    let (w, u) = answered_k1(&mut h);
    h.advance(1000);
    let stale = take_method(&mut h, "tasks/get");
    h.fail(u.xfer(), Error::network("reset"));
    h.result(
        &stale,
        input_required("t1", json!({"k1":elicit("1"),"k2":elicit("2")})),
    );
    let k2 = h.asks[1].clone();
    h.answer(k2.id, Ok(accept("b")));
    let u2 = take_method(&mut h, "tasks/update");
    assert_eq!(
        u2.params()["inputResponses"],
        json!({"k2":{"action":"accept","content":{"name":"b"}}}),
        "k1 is not re-sent on the strength of a stale poll"
    );
    h.result(&u2, ack());
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, input_required("t1", json!({"k1":elicit("1")})));
    let u3 = take_method(&mut h, "tasks/update");
    assert_eq!(u3.params()["inputResponses"], u.params()["inputResponses"]);
    assert_eq!(h.asks.len(), 2, "nobody is asked again");
    h.result(&u3, ack());
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, input_required("t1", json!({"k1":elicit("1")})));
    assert_eq!(
        pending(&mut h, "tasks/update"),
        0,
        "acknowledged: never again"
    );
    h.core.abort(w, Error::abort("x"), h.now);
}

#[test]
fn rule_8_a_rejected_update_gives_the_keys_back() {
    let mut h = harness();
    let (w, u) = answered_k1(&mut h);
    h.error(&u, 400, -32600, "bad inputResponses", None);
    assert!(h.outcome(w).is_none());
    assert!(
        h.warnings.iter().any(|m| m.contains("rejected")),
        "{:?}",
        h.warnings
    );
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, input_required("t1", json!({"k1":elicit("1")})));
    assert_eq!(h.asks.len(), 2, "k1 is asked again");
    assert_eq!(h.asks[1].key, "k1");
    let again = h.asks[1].clone();
    h.answer(again.id, Ok(accept("b")));
    let u2 = take_method(&mut h, "tasks/update");
    assert_eq!(u2.params()["inputResponses"]["k1"]["content"]["name"], "b");
    h.core.abort(w, Error::abort("x"), h.now);
}

/// Found by the fault server (tests/faults, scenario `task-id-reused`): a server gave a new
/// task the id of a finished one. The client answered the second call with the first
/// task's result and never presented the second task's input (its key had been
/// presented under that id already): lost input, and a wrong result.
#[test]
fn a_task_id_reused_for_a_new_task_gets_a_fresh_driver() {
    let mut h = harness();
    let (w1, p) = call_task(&mut h, "t1");
    h.result(&p, input_required("t1", json!({"k1":elicit("1")})));
    let a = h.asks[0].clone();
    h.answer(a.id, Ok(accept("first")));
    let u = take_method(&mut h, "tasks/update");
    h.result(&u, ack());
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, completed("t1", "one"));
    assert_eq!(h.ok(w1)["content"][0]["text"], "one");
    // A new tools/call; the server creates a new task with the same id.
    let w2 = call(&mut h, false, &opts(), created("t1"));
    assert!(h.outcome(w2).is_none(), "not answered with the old result");
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, input_required("t1", json!({"k1":elicit("1 again")})));
    assert_eq!(h.asks.len(), 2, "the new task's k1 is presented");
    let b = h.asks[1].clone();
    assert_eq!(b.key, "k1");
    h.answer(b.id, Ok(accept("second")));
    let u = take_method(&mut h, "tasks/update");
    assert_eq!(
        u.params()["inputResponses"]["k1"]["content"]["name"],
        "second"
    );
    h.result(&u, ack());
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, completed("t1", "two"));
    assert_eq!(h.ok(w2)["content"][0]["text"], "two");
}

// ---- rule 9 ----

#[test]
fn rule_9_input_rounds_per_task_are_capped() {
    let mut c = cfg();
    c.limits.max_input_rounds = 2;
    let mut h = Harness::new(c);
    let (op, mut p) = call_task(&mut h, "t1");
    for (i, key) in ["k1", "k2"].iter().enumerate() {
        h.result(&p, input_required("t1", json!({ *key: elicit("?") })));
        assert_eq!(h.asks.len(), i + 1);
        let a = h.asks[i].clone();
        h.answer(a.id, Ok(accept("x")));
        let u = take_method(&mut h, "tasks/update");
        h.result(&u, ack());
        h.advance(1000);
        p = take_method(&mut h, "tasks/get");
    }
    h.result(&p, input_required("t1", json!({"k3":elicit("?")})));
    let e = h.err(op);
    assert_eq!(e.kind, ErrorKind::InputRequired);
    assert_eq!(e.data.as_ref().unwrap()["taskId"], "t1");
    assert_eq!(e.data.as_ref().unwrap()["rounds"], 2);
    assert_eq!(h.asks.len(), 2, "k3 is never presented");
    assert!(h.try_take().is_none());
    assert_eq!(h.core.next_deadline(), None);
}

#[test]
fn rule_9_the_default_cap_is_ten_rounds() {
    let mut h = harness();
    let (op, mut p) = call_task(&mut h, "t1");
    for i in 0..10 {
        h.result(
            &p,
            input_required("t1", json!({ format!("k{i}"): elicit("?") })),
        );
        let a = h.asks[i].clone();
        h.answer(a.id, Ok(accept("x")));
        let u = take_method(&mut h, "tasks/update");
        h.result(&u, ack());
        h.advance(1000);
        p = take_method(&mut h, "tasks/get");
    }
    h.result(&p, input_required("t1", json!({"k10": elicit("?")})));
    assert_eq!(h.err(op).kind, ErrorKind::InputRequired);
    assert_eq!(h.asks.len(), 10);
}

// ---- rule 10 ----

/// A `createdAt` without a UTC offset cannot be placed on the timeline (read as UTC it
/// could be hours off): the task has no TTL backstop, and only the server ends it.
#[test]
fn rule_10_no_backstop_for_a_created_at_without_an_offset() {
    let mut h = harness();
    let local = json!({"createdAt":"2025-11-25T10:30:00","ttlMs":5000});
    let op = call(&mut h, false, &opts(), with(created("t1"), local.clone()));
    let mut p = take_method(&mut h, "tasks/get");
    for _ in 0..10 {
        h.result(&p, with(got("t1", "working"), local.clone()));
        assert!(h.outcome(op).is_none(), "not expired by the client");
        p = poll_after(&mut h, 1000);
    }
    h.result(&p, with(completed("t1", "late"), local));
    assert_eq!(h.ok(op)["content"][0]["text"], "late");
}

#[test]
fn rule_10_ttl_backstop_expires_a_task_before_any_handler_runs() {
    let mut h = harness();
    let op = call(
        &mut h,
        false,
        &opts(),
        with(created("t1"), json!({"ttlMs":5000})),
    );
    let p = take_method(&mut h, "tasks/get");
    h.advance(6000); // the poll is answered after the TTL
    h.result(
        &p,
        with(
            input_required("t1", json!({"k1":elicit("late")})),
            json!({"ttlMs":5000}),
        ),
    );
    let e = h.err(op);
    assert_eq!(e.kind, ErrorKind::TaskExpired);
    assert_eq!(e.data.as_ref().unwrap()["taskId"], "t1");
    assert!(h.asks.is_empty(), "no handler ran");
    assert!(h.try_take().is_none());
}

#[test]
fn rule_10_a_terminal_status_after_the_ttl_still_counts() {
    let mut h = harness();
    let (op, p) = call_task(&mut h, "t1");
    h.advance(6000);
    h.result(
        &p,
        with(completed("t1", "just in time"), json!({"ttlMs":5000})),
    );
    assert_eq!(h.ok(op)["content"][0]["text"], "just in time");
}

#[test]
fn rule_10_ttl_backstop_when_polls_fail_after_the_ttl() {
    let mut h = harness();
    let w = wait(&mut h, "t1", Want::Task, &opts());
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, with(got("t1", "working"), json!({"ttlMs":2000})));
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, with(got("t1", "working"), json!({"ttlMs":2000})));
    h.advance(1000); // the TTL: one last poll
    let p = take_method(&mut h, "tasks/get");
    h.fail(p.xfer(), Error::network("server gone"));
    let e = h.err(w);
    assert_eq!(e.kind, ErrorKind::TaskExpired);
    assert_eq!(h.core.next_deadline(), None, "no polling past the TTL");
}

// ---- rule 11 ----

fn schema_tool(required: &str, ty: &str) -> Value {
    json!({"name":"t","inputSchema":{"type":"object"},
           "outputSchema":{"type":"object","properties":{ required: {"type": ty}},"required":[required]}})
}

fn structured(id: &str, sc: Value) -> Value {
    with(
        got(id, "completed"),
        json!({"result":{"content":[],"structuredContent":sc}}),
    )
}

/// Answers a fresh `tools/list` (bypassing the cache) with these tools.
fn relist(h: &mut Harness, tools: Vec<Value>) {
    let l = h.core.request(
        Purpose::ToolsList,
        Map::new(),
        &OpOptions {
            no_cache: true,
            ..opts()
        },
        h.now,
    );
    let s = take_method(h, "tools/list");
    h.result(&s, tools_page(tools, None));
    h.ok(l);
}

/// A completed task whose result has no `structuredContent`.
fn unstructured(id: &str) -> Value {
    with(
        got(id, "completed"),
        json!({"result":{"content":[{"type":"text","text":"plain"}]}}),
    )
}

#[test]
fn rule_11_the_result_is_checked_against_the_schema_at_call_time() {
    let mut h = harness();
    // A: called while the tool declares an outputSchema.
    let a = call_named(
        &mut h,
        "t",
        false,
        &opts(),
        created("a"),
        vec![schema_tool("n", "number")],
    );
    let pa = take_method(&mut h, "tasks/get");
    // B: called after the tool dropped it.
    relist(&mut h, vec![tool("t")]);
    let b = call(&mut h, false, &opts(), created("b"));
    let pb = take_method(&mut h, "tasks/get");
    // The tool changes again while both tasks run.
    relist(&mut h, vec![schema_tool("n", "number")]);
    h.result(&pb, unstructured("b"));
    assert_eq!(h.ok(b)["content"][0]["text"], "plain");
    h.result(&pa, unstructured("a"));
    let e = h.err(a);
    assert_eq!(e.kind, ErrorKind::OutputValidation);
    // A tool result with isError is not checked.
    let c = call(&mut h, false, &opts(), created("c"));
    let pc = take_method(&mut h, "tasks/get");
    relist(&mut h, vec![tool("t")]);
    h.result(
        &pc,
        with(
            got("c", "completed"),
            json!({"result":{"content":[],"isError":true}}),
        ),
    );
    assert_eq!(h.ok(c)["isError"], true);
}

#[test]
fn rule_11_structured_content_is_validated_against_the_schema_at_call_time() {
    let mut h = harness();
    let a = call_named(
        &mut h,
        "t",
        false,
        &opts(),
        created("a"),
        vec![schema_tool("n", "number")],
    );
    let pa = take_method(&mut h, "tasks/get");
    let b = call(&mut h, false, &opts(), created("b"));
    let pb = take_method(&mut h, "tasks/get");
    relist(&mut h, vec![schema_tool("s", "string")]);
    h.result(&pa, structured("a", json!({"n": 1})));
    assert_eq!(h.ok(a)["structuredContent"]["n"], 1);
    h.result(&pb, structured("b", json!({"s": "x"})));
    assert_eq!(h.err(b).kind, ErrorKind::OutputValidation);
}

#[test]
fn rule_11_get_task_result_is_checked_too() {
    let mut h = harness();
    let op = call_named(
        &mut h,
        "t",
        true,
        &opts(),
        created("a"),
        vec![schema_tool("n", "number")],
    );
    assert_eq!(h.ok(op)["taskId"], "a");
    relist(&mut h, vec![tool("t")]);
    let w = wait(&mut h, "a", Want::Result, &opts());
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, unstructured("a"));
    assert_eq!(h.err(w).kind, ErrorKind::OutputValidation);
}

#[test]
fn rule_11_completed_without_result_is_invalid() {
    let mut h = harness();
    let (op, p) = call_task(&mut h, "t1");
    h.result(&p, got("t1", "completed"));
    assert_eq!(h.err(op).kind, ErrorKind::InvalidResult);
    let w = wait(&mut h, "t2", Want::Result, &opts());
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, with(got("t2", "completed"), json!({"result":[1]})));
    assert_eq!(h.err(w).kind, ErrorKind::InvalidResult);
    assert!(h.try_take().is_none());
}

// ---- rule 12 ----

#[test]
fn rule_12_failed_is_an_mcp_error_with_the_tasks_code_message_and_data() {
    let failed = |id: &str| {
        with(
            got(id, "failed"),
            json!({"statusMessage":"rate limited",
                   "error":{"code":-32050,"message":"API rate limit exceeded","data":{"retryAfter":30}}}),
        )
    };
    let mut h = harness();
    let (op, p) = call_task(&mut h, "t1");
    h.result(&p, failed("t1"));
    let w = wait(&mut h, "t2", Want::Result, &opts());
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, failed("t2"));
    for e in [h.err(op), h.err(w)] {
        assert_eq!(e.kind, ErrorKind::Mcp);
        assert_eq!(e.code, Some(-32050));
        assert_eq!(e.message, "API rate limit exceeded");
        assert_eq!(e.data, Some(json!({"retryAfter":30})));
    }
}

// ---- rule 13 ----

#[test]
fn rule_13_cancelled_is_task_cancelled_from_every_wait() {
    let mut h = harness();
    let (op, p) = call_task(&mut h, "t1");
    h.result(&p, got("t1", "cancelled"));
    let w_task = wait(&mut h, "t2", Want::Task, &opts());
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, got("t2", "cancelled"));
    let w_res = wait(&mut h, "t3", Want::Result, &opts());
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, got("t3", "cancelled"));
    for (op, id) in [(op, "t1"), (w_task, "t2"), (w_res, "t3")] {
        let e = h.err(op);
        assert_eq!(e.kind, ErrorKind::TaskCancelled, "{id}");
        let d = e.data.unwrap();
        assert_eq!(d["taskId"], id);
        assert_eq!(d["status"], "cancelled");
        assert_eq!(d["createdAt"], T0);
    }
}

// ---- rule 14 ----

#[test]
fn rule_14_invalid_params_is_task_not_found_whatever_the_message() {
    let mut h = harness();
    let g = h.core.get_task(&tref("t1"), &opts(), h.now);
    let s = h.take();
    h.error(&s, 400, -32602, "Something unrelated", None);
    let e = h.err(g);
    assert_eq!(e.kind, ErrorKind::TaskNotFound);
    assert_eq!(e.code, Some(-32602));
    // On tasks/update, -32602 may be about the inputResponses (the spec makes it "not
    // found" only on tasks/get): the server's McpError, as sent.
    let u = h.core.update_task(&tref("t1"), Map::new(), &opts(), h.now);
    let s = h.take();
    h.error(&s, 400, -32602, "x", None);
    let e = h.err(u);
    assert_eq!(
        (e.kind, e.code, e.message.as_str()),
        (ErrorKind::Mcp, Some(-32602), "x")
    );
    let c = h.core.cancel_task(&tref("t1"), &opts(), h.now);
    let s = h.take();
    h.error(&s, 400, -32602, "x", None);
    let e = h.err(c);
    // tasks/cancel carries only the task id.
    assert_eq!((e.kind, e.code), (ErrorKind::TaskNotFound, Some(-32602)));
    // A "not found" message with another code is not TaskNotFound.
    let g = h.core.get_task(&tref("t1"), &opts(), h.now);
    let s = h.take();
    h.error(&s, 400, -32603, "task not found", None);
    assert_eq!(h.err(g).kind, ErrorKind::Mcp);
    // On a poll.
    let (op, p) = call_task(&mut h, "t2");
    h.error(&p, 400, -32602, "gone", None);
    assert_eq!(h.err(op).kind, ErrorKind::TaskNotFound);
    assert!(h.try_take().is_none());
}

#[test]
fn rule_14_invalid_params_after_the_ttl_is_task_expired() {
    let mut h = harness();
    // A task the client knows (callToolAsTask), polled after its TTL.
    let op = call(
        &mut h,
        true,
        &opts(),
        with(created("t1"), json!({"ttlMs":5000})),
    );
    let seed = view_of(&h.ok(op), false);
    h.advance(6000);
    let g = h.core.get_task(&tref("t1"), &opts(), h.now);
    let s = h.take();
    h.error(&s, 400, -32602, "no such task", None);
    assert_eq!(h.err(g).kind, ErrorKind::TaskExpired);
    // A wait's poll.
    let w = wait(&mut h, "t1", Want::Task, &opts());
    let p = take_method(&mut h, "tasks/get");
    h.error(&p, 400, -32602, "no such task", None);
    assert_eq!(h.err(w).kind, ErrorKind::TaskExpired);
    // What the host's handle knows counts too (a fresh client, a persisted handle).
    let mut h = harness();
    h.advance(6000);
    let c = h.core.cancel_task(
        &TaskRef {
            task_id: "t1".into(),
            seed: Some(seed),
        },
        &opts(),
        h.now,
    );
    let s = h.take();
    h.error(&s, 400, -32602, "no such task", None);
    assert_eq!(h.err(c).kind, ErrorKind::TaskExpired);
    // Before the TTL it is not found.
    let mut h = harness();
    let op = call(
        &mut h,
        true,
        &opts(),
        with(created("t1"), json!({"ttlMs":5000})),
    );
    h.ok(op);
    let g = h.core.get_task(&tref("t1"), &opts(), h.now);
    let s = h.take();
    h.error(&s, 400, -32602, "no such task", None);
    assert_eq!(h.err(g).kind, ErrorKind::TaskNotFound);
}

/// `-32602` on the driver's `tasks/update` may be about its `inputResponses`: the wait
/// goes on and the next poll decides. Here the server no longer knows the task: that poll's
/// `-32602` is `TaskNotFound` (and the task's record is removed).
#[test]
fn rule_14_invalid_params_on_the_drivers_update_is_settled_by_the_next_poll() {
    let mut h = harness();
    let (op, p) = call_task(&mut h, "t1");
    h.result(&p, input_required("t1", json!({"k":elicit("?")})));
    let k = h.asks[0].clone();
    h.answer(k.id, Ok(accept("x")));
    let u = take_method(&mut h, "tasks/update");
    h.error(&u, 400, -32602, "unknown task", None);
    assert!(h.outcome(op).is_none(), "not conclusive on tasks/update");
    assert!(
        h.store.contains_key(&record_key("t1")),
        "nothing forgotten yet"
    );
    let p = poll_after(&mut h, 1000);
    h.error(&p, 400, -32602, "unknown task", None);
    let e = h.err(op);
    assert_eq!(e.kind, ErrorKind::TaskNotFound);
    assert!(h.store.is_empty(), "forgotten: {:?}", h.store_log.last());
    assert!(h.try_take().is_none());
    assert_eq!(h.core.next_deadline(), None);
    // Later waits know the outcome without asking.
    let w = wait(&mut h, "t1", Want::Task, &opts());
    assert_eq!(h.err(w).kind, ErrorKind::TaskNotFound);
    assert_eq!(pending(&mut h, "tasks/get"), 0);
}

/// The audit's case: a server refuses an answer with `-32602` ("does not match
/// requestedSchema") while the task lives. The wait goes on, the next poll shows the task
/// alive and still asking, and the key is presented again (rule 8's definite rejection).
#[test]
fn rule_14_invalid_params_on_the_drivers_update_of_a_live_task_asks_again() {
    let mut h = harness();
    let w = wait(&mut h, "t1", Want::Task, &opts());
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, input_required("t1", json!({"k":elicit("n?")})));
    let a = h.asks[0].clone();
    h.answer(a.id, Ok(accept("x")));
    let u = take_method(&mut h, "tasks/update");
    h.error(
        &u,
        200,
        -32602,
        "Invalid params: inputResponses.k does not match requestedSchema",
        None,
    );
    assert!(h.outcome(w).is_none(), "the task is not taken for gone");
    assert!(
        h.warnings
            .iter()
            .any(|m| m.contains("rejected") && m.contains("still exists")),
        "{:?}",
        h.warnings
    );
    assert!(h.store.contains_key(&record_key("t1")), "the record stays");
    let p = poll_after(&mut h, 1000);
    h.result(&p, input_required("t1", json!({"k":elicit("n?")})));
    assert_eq!(h.asks.len(), 2, "k is asked again");
    assert_eq!(h.asks[1].key, "k");
    let again = h.asks[1].clone();
    h.answer(again.id, Ok(accept("y")));
    let u2 = take_method(&mut h, "tasks/update");
    assert_eq!(u2.params()["inputResponses"]["k"]["content"]["name"], "y");
    h.result(&u2, ack());
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, completed("t1", "ok"));
    assert_eq!(h.ok(w)["status"], "completed");
    assert!(h.store.is_empty(), "forgotten once it ended");
}

#[test]
fn rule_14_missing_capability_keeps_required_capabilities() {
    let data = json!({"requiredCapabilities":{"extensions":{EXT:{}}}});
    let mut h = harness();
    let g = h.core.get_task(&tref("t1"), &opts(), h.now);
    let s = h.take();
    h.error(&s, 400, -32021, "Missing", Some(data.clone()));
    let e = h.err(g);
    assert_eq!(e.kind, ErrorKind::MissingRequiredClientCapability);
    assert_eq!(e.code, Some(-32021));
    assert_eq!(e.data, Some(data.clone()));
    let (op, p) = call_task(&mut h, "t2");
    h.error(&p, 400, -32021, "Missing", Some(data.clone()));
    let e = h.err(op);
    assert_eq!(e.kind, ErrorKind::MissingRequiredClientCapability);
    assert_eq!(e.data, Some(data));
}

// ---- rule 15 ----

#[test]
fn rule_15_a_lost_poll_is_not_fatal() {
    let mut h = harness();
    let (op, p) = call_task(&mut h, "t1");
    h.fail(p.xfer(), Error::network("offline"));
    assert!(h.outcome(op).is_none());
    let at = h.now;
    h.advance_to_deadline();
    let p = take_method(&mut h, "tasks/get");
    assert!(h.now - at >= 1000, "not faster than the poll interval");
    assert!(h.now - at <= 30_000, "bounded back-off");
    // An HTTP 503 and an internal error are transient too.
    h.head(p.xfer(), 503, Some("text/plain"));
    h.chunk(p.xfer(), b"busy");
    h.end(p.xfer());
    assert!(h.outcome(op).is_none());
    h.advance_to_deadline();
    let p = take_method(&mut h, "tasks/get");
    h.error(&p, 200, -32603, "internal", None);
    assert!(h.outcome(op).is_none());
    h.advance_to_deadline();
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, completed("t1", "made it"));
    assert_eq!(h.ok(op)["content"][0]["text"], "made it");
}

#[test]
fn rule_15_a_timed_out_poll_is_not_fatal() {
    let mut c = cfg();
    c.request_timeout_ms = 2000;
    let mut h = Harness::new(c);
    let (op, p) = call_task(&mut h, "t1");
    assert_eq!(h.core.next_deadline(), Some(h.now + 2000));
    h.advance(2000);
    assert!(h.cancelled.contains(&p.xfer()));
    assert!(h.outcome(op).is_none());
    h.advance_to_deadline();
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, completed("t1", "ok"));
    h.ok(op);
}

#[test]
fn rule_15_polls_stay_within_the_callers_budget() {
    let mut h = harness();
    let start = h.now;
    let w = wait(&mut h, "t1", Want::Task, &timeout(2500));
    let p = take_method(&mut h, "tasks/get");
    // The poll's own timeout (60 s by default) is cut to the wait's budget.
    assert_eq!(h.core.next_deadline(), Some(start + 2500));
    h.fail(p.xfer(), Error::network("x"));
    h.advance_to_deadline();
    let p = take_method(&mut h, "tasks/get");
    assert!(h.now < start + 2500);
    assert_eq!(h.core.next_deadline(), Some(start + 2500));
    h.advance(start + 2500 - h.now);
    assert_eq!(h.err(w).kind, ErrorKind::TaskTimeout);
    assert!(h.cancelled.contains(&p.xfer()), "no poll outlives the wait");
    assert_eq!(h.core.next_deadline(), None);
}

// ---- rule 16 ----

#[test]
fn rule_16_an_elapsed_wait_budget_sends_nothing() {
    let mut h = harness();
    let w = wait(&mut h, "t1", Want::Task, &timeout(0));
    let e = h.err(w);
    assert_eq!(e.kind, ErrorKind::TaskTimeout);
    assert_eq!(e.data.unwrap()["taskId"], "t1");
    assert!(h.history.is_empty());
    let w = wait(&mut h, "t1", Want::Result, &timeout(0));
    assert_eq!(h.err(w).kind, ErrorKind::TaskTimeout);
    assert!(h.history.is_empty());
}

#[test]
fn rule_16_a_timed_out_wait_leaves_the_task_running() {
    let mut h = harness();
    let w = wait(&mut h, "t1", Want::Task, &timeout(3000));
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, got("t1", "working"));
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, got("t1", "working"));
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.advance(1000);
    let e = h.err(w);
    assert_eq!(e.kind, ErrorKind::TaskTimeout);
    assert_eq!(e.data.as_ref().unwrap()["task"]["status"], "working");
    assert!(h.cancelled.contains(&p.xfer()));
    assert_eq!(sent(&h, "tasks/cancel"), 0);
    assert_eq!(h.core.next_deadline(), None);
    h.advance(60_000);
    assert!(h.try_take().is_none(), "no polling without a wait");
    // The handle stays usable.
    let w2 = wait(&mut h, "t1", Want::Result, &opts());
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, completed("t1", "later"));
    assert_eq!(h.ok(w2)["content"][0]["text"], "later");
}

#[test]
fn rule_16_an_aborted_wait_leaves_the_task_running() {
    let mut h = harness();
    let w = wait(&mut h, "t1", Want::Task, &opts());
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, input_required("t1", json!({"k1":elicit("1")})));
    let k1 = h.asks[0].clone();
    h.core.abort(w, Error::abort("user"), h.now);
    h.pump();
    assert_eq!(h.err(w).kind, ErrorKind::Abort);
    assert!(
        h.cancelled_asks.contains(&k1.id),
        "its handler's signal fires"
    );
    assert_eq!(sent(&h, "tasks/cancel"), 0);
    assert_eq!(h.core.next_deadline(), None);
    let w2 = wait(&mut h, "t1", Want::Task, &opts());
    let p = poll_after(&mut h, 1000);
    h.result(&p, completed("t1", "x"));
    assert_eq!(h.ok(w2)["status"], "completed");
}

// ---- rule 17 ----

#[test]
fn rule_17_cancel_task_sends_tasks_cancel_only() {
    let mut h = harness();
    let c = h.core.cancel_task(&tref("t1"), &opts(), h.now);
    let s = h.take();
    assert_eq!(s.method(), "tasks/cancel");
    assert_eq!(s.params()["taskId"], "t1");
    h.result(&s, ack());
    assert_eq!(h.ok(c), Value::Null);
    assert!(h.try_take().is_none());
    assert!(h
        .history
        .iter()
        .all(|s| s.method() != "notifications/cancelled"));
}

#[test]
fn rule_17_a_task_that_completes_after_a_cancel_is_completed() {
    let mut h = harness();
    let (op, p) = call_task(&mut h, "t1");
    h.result(&p, got("t1", "working"));
    let c = h.core.cancel_task(&tref("t1"), &opts(), h.now);
    let s = take_method(&mut h, "tasks/cancel");
    h.result(&s, ack());
    h.ok(c);
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, completed("t1", "finished first"));
    assert_eq!(h.ok(op)["content"][0]["text"], "finished first");
    assert!(h
        .history
        .iter()
        .all(|s| s.method() != "notifications/cancelled"));
}

// ---- rule 18 ----

#[test]
fn rule_18_an_answer_for_another_task_or_none_is_invalid() {
    for answer in [
        got("other", "working"),
        without(got("t1", "working"), &["taskId"]),
        with(got("t1", "working"), json!({"taskId":null})),
        completed("other", "not yours"),
    ] {
        let mut h = harness();
        let g = h.core.get_task(&tref("t1"), &opts(), h.now);
        let s = h.take();
        h.result(&s, answer.clone());
        assert_eq!(h.err(g).kind, ErrorKind::InvalidResult, "{answer}");
        let (op, p) = call_task(&mut h, "t1");
        h.result(&p, answer.clone());
        assert_eq!(h.err(op).kind, ErrorKind::InvalidResult, "{answer}");
        assert!(h.try_take().is_none());
    }
}

// ---- rule 19 ----

#[test]
fn rule_19_task_operations_need_the_declared_extension() {
    let mut c = cfg();
    c.extensions.clear();
    let mut h = Harness::new(c);
    let ops = [
        h.core.get_task(&tref("t1"), &opts(), h.now),
        h.core.update_task(&tref("t1"), Map::new(), &opts(), h.now),
        h.core.cancel_task(&tref("t1"), &opts(), h.now),
        h.core.wait_task(tref("t1"), Want::Task, &opts(), h.now),
        h.core.wait_task(tref("t1"), Want::Result, &opts(), h.now),
        h.core.call_tool("t", None, true, &opts(), h.now),
        h.core.listen(&json!({"taskIds":["t1"]}), h.now),
    ];
    for op in ops {
        assert_eq!(h.err(op).kind, ErrorKind::Capability);
    }
    assert!(h.history.is_empty());
}

#[test]
fn rule_19_task_operations_need_server_support_when_discovered() {
    let mut h = harness();
    let d = h.core.discover(&opts(), h.now);
    let s = h.take();
    h.result(
        &s,
        json!({"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}),
    );
    h.ok(d);
    let ops = [
        h.core.get_task(&tref("t1"), &opts(), h.now),
        h.core.update_task(&tref("t1"), Map::new(), &opts(), h.now),
        h.core.cancel_task(&tref("t1"), &opts(), h.now),
        h.core.wait_task(tref("t1"), Want::Task, &opts(), h.now),
    ];
    for op in ops {
        let e = h.err(op);
        assert_eq!(e.kind, ErrorKind::Capability);
        assert!(e.message.contains("server"), "{}", e.message);
    }
    assert_eq!(h.history.len(), 1, "only server/discover");

    // A server that supports it.
    let mut h = harness();
    let d = h.core.discover(&opts(), h.now);
    let s = h.take();
    h.result(
        &s,
        json!({"supportedVersions":["2026-07-28"],"capabilities":{"extensions":{EXT:{}}}}),
    );
    h.ok(d);
    let g = h.core.get_task(&tref("t1"), &opts(), h.now);
    let s = h.take();
    assert_eq!(s.method(), "tasks/get");
    h.result(&s, got("t1", "working"));
    h.ok(g);
}

// ---- rule 20 ----

#[test]
fn rule_20_task_requests_carry_routing_headers() {
    let mut h = harness();
    let _ = h.core.get_task(&tref("t-1"), &opts(), h.now);
    let _ = h.core.update_task(&tref("t-1"), Map::new(), &opts(), h.now);
    let _ = h.core.cancel_task(&tref("t-1"), &opts(), h.now);
    let _ = take_method(&mut h, "tasks/get"); // get_task's
                                              // The driver's own poll and update.
    let w = wait(&mut h, "t-2", Want::Task, &opts());
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, input_required("t-2", json!({"k":elicit("?")})));
    let a = h.asks[0].clone();
    h.answer(a.id, Ok(accept("x")));
    h.pump();
    let expected = [
        ("tasks/get", "t-1"),
        ("tasks/update", "t-1"),
        ("tasks/cancel", "t-1"),
        ("tasks/get", "t-2"),
        ("tasks/update", "t-2"),
    ];
    assert_eq!(h.history.len(), expected.len());
    for (s, (m, id)) in h.history.iter().zip(expected) {
        assert_eq!(s.method(), m);
        assert_eq!(s.params()["taskId"], id);
        assert_eq!(s.header("mcp-method"), Some(m));
        assert_eq!(s.header("mcp-name"), Some(id), "{m}");
    }
    h.core.abort(w, Error::abort("x"), h.now);
}

// ---- rule 21 ----

#[test]
fn rule_21_a_local_task_is_returned_as_is() {
    let mut h = harness();
    let op = call(
        &mut h,
        true,
        &opts(),
        json!({"content":[{"type":"text","text":"sync"}]}),
    );
    let v = h.ok(op);
    assert_eq!(v["status"], "completed");
    assert_eq!(v["result"]["content"][0]["text"], "sync");
    let id = v["taskId"].as_str().unwrap().to_string();
    let seed = view_of(&v, true);
    let before = h.history.len();
    let w = h.core.wait_task(
        TaskRef {
            task_id: id.clone(),
            seed: Some(seed.clone()),
        },
        Want::Task,
        &opts(),
        h.now,
    );
    assert_eq!(h.ok(w), v);
    let w = h.core.wait_task(
        TaskRef {
            task_id: id,
            seed: Some(seed),
        },
        Want::Result,
        &opts(),
        h.now,
    );
    assert_eq!(h.ok(w)["content"][0]["text"], "sync");
    assert_eq!(h.history.len(), before, "nothing sent");
}

#[test]
fn rule_21_server_operations_on_a_local_task_are_task_errors() {
    let mut h = harness();
    let op = call(&mut h, true, &opts(), json!({"content":[]}));
    let v = h.ok(op);
    let id = v["taskId"].as_str().unwrap().to_string();
    let r = || TaskRef {
        task_id: id.clone(),
        seed: Some(view_of(&v, true)),
    };
    let before = h.history.len();
    let ops = [
        h.core.get_task(&r(), &opts(), h.now),
        h.core.update_task(&r(), Map::new(), &opts(), h.now),
        h.core.cancel_task(&r(), &opts(), h.now),
    ];
    for op in ops {
        let e = h.err(op);
        assert_eq!(e.kind, ErrorKind::Task);
        assert!(e.message.contains("local"), "{}", e.message);
    }
    assert_eq!(h.history.len(), before);
}

// ---- rule 22 ----

fn sub_msg(method: &str, sub: &Value, params: Value) -> Value {
    let mut p = params;
    p["_meta"] = json!({"io.modelcontextprotocol/subscriptionId": sub});
    json!({"jsonrpc":"2.0","method":method,"params":p})
}

fn push(h: &mut Harness, s: &Sent, msg: &Value) {
    h.chunk(
        s.xfer(),
        format!("event: message\ndata: {msg}\n\n").as_bytes(),
    );
}

#[test]
fn rule_22_listen_for_tasks_needs_the_extension() {
    let mut c = cfg();
    c.extensions.clear();
    let mut h = Harness::new(c);
    let l = h.core.listen(&json!({"taskIds":["t1"]}), h.now);
    assert_eq!(h.err(l).kind, ErrorKind::Capability);
    assert!(h.history.is_empty());
    // With it declared, taskIds go out in the filter.
    let mut h = harness();
    let _ = h.core.listen(&json!({"taskIds":["t1"]}), h.now);
    let s = h.take();
    assert_eq!(s.method(), "subscriptions/listen");
    assert_eq!(s.params()["notifications"]["taskIds"], json!(["t1"]));
    assert_eq!(s.params()["_meta"][CAPS]["extensions"][EXT], json!({}));
}

#[test]
fn rule_22_task_notifications_reach_the_host_and_finish_waits_early() {
    let mut h = harness();
    let w = wait(&mut h, "t1", Want::Result, &opts());
    let p = take_method(&mut h, "tasks/get");
    h.result(
        &p,
        with(got("t1", "working"), json!({"pollIntervalMs":600_000})),
    );
    let l = h.core.listen(&json!({"taskIds":["t1"]}), h.now);
    let s = take_method(&mut h, "subscriptions/listen");
    let sid = s.id();
    h.sse(
        &s,
        &[sub_msg(
            "notifications/subscriptions/acknowledged",
            &sid,
            json!({"notifications":{"taskIds":["t1"]}}),
        )],
        false,
    );
    // input_required pushed: the handler is asked without a poll.
    push(
        &mut h,
        &s,
        &sub_msg(
            "notifications/tasks",
            &sid,
            input_required("t1", json!({"k1":elicit("?")})),
        ),
    );
    assert_eq!(h.asks.len(), 1);
    assert_eq!(h.asks[0].task_id.as_deref(), Some("t1"));
    let k1 = h.asks[0].clone();
    h.answer(k1.id, Ok(accept("x")));
    let u = take_method(&mut h, "tasks/update");
    h.result(&u, ack());
    let done = sub_msg(
        "notifications/tasks",
        &sid,
        without(completed("t1", "pushed"), &["resultType"]),
    );
    push(&mut h, &s, &done);
    assert_eq!(h.ok(w)["content"][0]["text"], "pushed");
    assert_eq!(sent(&h, "tasks/get"), 1, "no poll was needed");
    assert!(h
        .notifications
        .iter()
        .any(|(m, p)| m == "notifications/tasks" && p["status"] == "completed"));
    assert_eq!(h.core.next_deadline(), None, "no poll scheduled any more");
    assert!(h.outcome(l).is_none(), "the subscription goes on");
}

#[test]
fn rule_22_polling_is_the_default_without_a_subscription() {
    let mut h = harness();
    let w = wait(&mut h, "t1", Want::Task, &opts());
    for _ in 0..3 {
        let p = take_method(&mut h, "tasks/get");
        h.result(&p, got("t1", "working"));
        h.advance(1000);
    }
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, completed("t1", "polled"));
    h.ok(w);
    assert_eq!(sent(&h, "tasks/get"), 4);
    assert_eq!(sent(&h, "subscriptions/listen"), 0);
}

// ---- rule 23 ----

#[test]
fn rule_23_peer_strings_are_sanitized_in_errors_and_warnings() {
    let evil = "t\u{1b}[31m\n\u{202e}x";
    let mut h = harness();
    // Cancelled task: id in the message.
    let (op, p) = call_task(&mut h, evil);
    h.result(&p, got(evil, "cancelled"));
    let e = h.err(op);
    assert_eq!(e.kind, ErrorKind::TaskCancelled);
    assert!(no_controls(&e.message), "{:?}", e.message);
    assert!(!e.message.contains('\u{202e}'));
    assert_eq!(e.data.unwrap()["taskId"], evil, "data keeps the real id");
    // A regression after the terminal status: the warning.
    let _l = {
        let l = h.core.listen(&json!({"taskIds":[evil]}), h.now);
        let s = take_method(&mut h, "subscriptions/listen");
        let sid = s.id();
        h.sse(
            &s,
            &[
                sub_msg(
                    "notifications/subscriptions/acknowledged",
                    &sid,
                    json!({"notifications":{}}),
                ),
                sub_msg("notifications/tasks", &sid, task(evil, "working")),
            ],
            false,
        );
        l
    };
    // Failed task: the server's message.
    let w = wait(&mut h, "t2", Want::Result, &opts());
    let p = take_method(&mut h, "tasks/get");
    h.result(
        &p,
        with(
            got("t2", "failed"),
            json!({"statusMessage":"a\u{7}b","error":{"code":-32000,"message":"boom\r\n\u{1b}[2J"}}),
        ),
    );
    let e = h.err(w);
    assert!(no_controls(&e.message), "{:?}", e.message);
    // A wait that times out, a not-found task.
    let evil2 = "u\u{1b}]0;title\u{7}";
    let w = wait(&mut h, evil2, Want::Task, &timeout(10));
    let p = take_method(&mut h, "tasks/get");
    h.advance(10);
    let e = h.err(w);
    assert_eq!(e.kind, ErrorKind::TaskTimeout);
    assert!(no_controls(&e.message), "{:?}", e.message);
    assert!(h.cancelled.contains(&p.xfer()));
    let g = h.core.get_task(&tref(evil), &opts(), h.now);
    let s = take_method(&mut h, "tasks/get");
    assert!(no_controls(s.header("mcp-name").unwrap()));
    h.error(&s, 400, -32602, "no \u{1b}such", None);
    let e = h.err(g);
    assert_eq!(e.kind, ErrorKind::TaskNotFound);
    assert!(no_controls(&e.message), "{:?}", e.message);
    // A tool name in a task timeout; an unknown status in a poll answer.
    let name = "tool\u{7}\n";
    let op = call_named(
        &mut h,
        name,
        false,
        &OpOptions {
            task_timeout_ms: Some(10),
            ..opts()
        },
        created("t3"),
        vec![tool("t")],
    );
    let _ = take_method(&mut h, "tasks/get");
    h.advance(10);
    let e = h.err(op);
    assert_eq!(e.kind, ErrorKind::Timeout);
    assert!(no_controls(&e.message), "{:?}", e.message);
    let (op, p) = call_task(&mut h, "t4");
    h.result(
        &p,
        with(got("t4", "working"), json!({"status":"odd\u{1b}"})),
    );
    let e = h.err(op);
    assert_eq!(e.kind, ErrorKind::InvalidResult);
    assert!(no_controls(&e.message), "{:?}", e.message);
    h.pump();
    assert!(
        h.warnings.iter().any(|m| m.contains("went back")),
        "{:?}",
        h.warnings
    );
    for m in &h.warnings {
        assert!(no_controls(m), "{m:?}");
    }
}

// ---- rule 24 ----

#[test]
fn rule_24_one_timer_per_wait_and_none_while_a_poll_is_in_flight() {
    let mut h = harness();
    let (op, p) = call_task(&mut h, "t1");
    // In flight: the only deadline is the poll's own timeout (60 s by default).
    assert_eq!(h.core.next_deadline(), Some(h.now + 60_000));
    h.result(&p, got("t1", "working"));
    // Between polls: the next poll only.
    assert_eq!(h.core.next_deadline(), Some(h.now + 1000));
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    assert_eq!(h.core.next_deadline(), Some(h.now + 60_000));
    h.result(&p, input_required("t1", json!({"k":elicit("?")})));
    // A person is asked; polls go on at the interval, nothing else.
    assert_eq!(h.core.next_deadline(), Some(h.now + 1000));
    h.core.abort(op, Error::abort("x"), h.now);
    let c = take_method(&mut h, "tasks/cancel");
    h.result(&c, ack());
    assert_eq!(h.core.next_deadline(), None);
    assert_eq!(h.core.ops_in_flight(), 0);
}

#[test]
fn rule_24_a_thousand_waits_on_distinct_tasks() {
    let mut h = harness();
    let n = 1000;
    let ids: Vec<String> = (0..n).map(|i| format!("task-{i}")).collect();
    let waits: Vec<OpId> = ids
        .iter()
        .map(|id| wait(&mut h, id, Want::Task, &opts()))
        .collect();
    h.pump();
    assert_eq!(h.outbox.len(), n);
    assert_eq!(h.core.next_deadline(), Some(h.now + 60_000));
    while let Some(p) = h.try_take() {
        let id = p.params()["taskId"].as_str().unwrap().to_string();
        h.result(&p, got(&id, "working"));
    }
    assert_eq!(h.core.next_deadline(), Some(h.now + 1000));
    h.advance(999);
    assert!(h.try_take().is_none());
    h.advance(1);
    h.pump();
    assert_eq!(h.outbox.len(), n, "one poll per task");
    let mut polled: Vec<String> = h
        .outbox
        .iter()
        .map(|s| s.params()["taskId"].as_str().unwrap().to_string())
        .collect();
    polled.sort();
    polled.dedup();
    assert_eq!(polled.len(), n);
    while let Some(p) = h.try_take() {
        let id = p.params()["taskId"].as_str().unwrap().to_string();
        h.result(&p, completed(&id, &id));
    }
    for (w, id) in waits.iter().zip(&ids) {
        assert_eq!(h.ok(*w)["result"]["content"][0]["text"], id.as_str());
    }
    assert_eq!(h.core.next_deadline(), None);
    assert_eq!(sent(&h, "tasks/get"), 2 * n);
}

#[test]
fn rule_24_n_waits_on_the_same_task_poll_once() {
    let mut h = harness();
    let first: Vec<OpId> = (0..5)
        .map(|_| wait(&mut h, "t1", Want::Task, &opts()))
        .collect();
    assert_eq!(pending(&mut h, "tasks/get"), 1);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, got("t1", "working"));
    // More waits join between polls: still one poll, at the interval.
    h.advance(300);
    let later: Vec<OpId> = (0..5)
        .map(|_| wait(&mut h, "t1", Want::Result, &timeout(60_000)))
        .collect();
    assert_eq!(pending(&mut h, "tasks/get"), 0, "no extra poll");
    h.advance(700);
    assert_eq!(pending(&mut h, "tasks/get"), 1);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, completed("t1", "all"));
    for w in first {
        assert_eq!(h.ok(w)["status"], "completed");
    }
    for w in later {
        assert_eq!(h.ok(w)["content"][0]["text"], "all");
    }
    assert_eq!(sent(&h, "tasks/get"), 2);
}

// ---- malformed and hostile input ----

#[test]
fn bad_task_payloads_on_a_poll_are_typed_errors() {
    let cases: Vec<Value> = vec![
        with(got("t1", "working"), json!({"status":"running"})),
        without(got("t1", "working"), &["status"]),
        with(got("t1", "working"), json!({"status":null})),
        with(got("t1", "working"), json!({"createdAt":"yesterday"})),
        without(got("t1", "working"), &["lastUpdatedAt"]),
        with(got("t1", "working"), json!({"lastUpdatedAt":null})),
        without(got("t1", "working"), &["ttlMs"]),
        with(got("t1", "working"), json!({"ttlMs":"1h"})),
        with(got("t1", "working"), json!({"ttlMs":-1})),
        with(got("t1", "working"), json!({"pollIntervalMs":-1})),
        with(got("t1", "working"), json!({"pollIntervalMs":[]})),
        with(got("t1", "working"), json!({"taskId":7})),
        got("t1", "input_required"),
        input_required("t1", json!([])),
        input_required("t1", json!("k1")),
        input_required("t1", json!({})),
        input_required("t1", json!({"k":{"method":"ping"}})),
        input_required("t1", json!({"k":{"method":"elicitation/create"}})),
        got("t1", "completed"),
        with(got("t1", "completed"), json!({"result":"done"})),
        got("t1", "failed"),
        with(got("t1", "failed"), json!({"error":"boom"})),
        json!([1, 2]),
        json!("task"),
    ];
    for bad in cases {
        for transparent in [true, false] {
            let mut h = harness();
            let (op, p) = if transparent {
                call_task(&mut h, "t1")
            } else {
                let w = wait(&mut h, "t1", Want::Task, &opts());
                (w, take_method(&mut h, "tasks/get"))
            };
            h.result(&p, bad.clone());
            let e = h.err(op);
            assert_eq!(e.kind, ErrorKind::InvalidResult, "{bad}");
            assert!(h.asks.is_empty(), "{bad}: no prompt");
            assert!(h.try_take().is_none(), "{bad}: nothing more sent");
            assert_eq!(h.core.next_deadline(), None, "{bad}: no hang");
            assert_eq!(h.core.ops_in_flight(), 0);
        }
    }
}

#[test]
fn an_undeclared_input_request_in_a_task_is_refused_without_a_prompt() {
    for req in [
        json!({"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}),
        json!({"method":"roots/list"}),
    ] {
        let mut h = harness();
        let (op, p) = call_task(&mut h, "t1");
        h.result(
            &p,
            input_required("t1", json!({"ok":elicit("fine"),"bad":req.clone()})),
        );
        let e = h.err(op);
        assert_eq!(e.kind, ErrorKind::InputRequired, "{req}");
        assert_eq!(e.data.unwrap()["reason"], "undeclared");
        assert!(h.asks.is_empty(), "{req}: not even the declared one");
        assert!(h.try_take().is_none());
        // A later wait on the same task fails the same way, still without a prompt.
        let w = wait(&mut h, "t1", Want::Task, &opts());
        let p = poll_after(&mut h, 1000);
        h.result(
            &p,
            input_required("t1", json!({"ok":elicit("fine"),"bad":req.clone()})),
        );
        assert_eq!(h.err(w).kind, ErrorKind::InputRequired);
        assert!(h.asks.is_empty());
    }
}

#[test]
fn a_status_regression_after_completion_is_ignored_with_a_warning() {
    let mut h = harness();
    let (op, p) = call_task(&mut h, "t1");
    let l = h.core.listen(&json!({"taskIds":["t1"]}), h.now);
    let s = take_method(&mut h, "subscriptions/listen");
    let sid = s.id();
    h.sse(
        &s,
        &[sub_msg(
            "notifications/subscriptions/acknowledged",
            &sid,
            json!({"notifications":{"taskIds":["t1"]}}),
        )],
        false,
    );
    h.result(&p, completed("t1", "final"));
    assert_eq!(h.ok(op)["content"][0]["text"], "final");
    push(
        &mut h,
        &s,
        &sub_msg(
            "notifications/tasks",
            &sid,
            input_required("t1", json!({"k":elicit("?")})),
        ),
    );
    assert!(
        h.warnings
            .iter()
            .any(|m| m.contains("t1") && m.contains("input_required")),
        "{:?}",
        h.warnings
    );
    assert!(h.asks.is_empty(), "no prompt for a finished task");
    // The outcome is unchanged for a later wait, with nothing sent.
    let before = h.history.len();
    let w = wait(&mut h, "t1", Want::Result, &opts());
    assert_eq!(h.ok(w)["content"][0]["text"], "final");
    assert_eq!(h.history.len(), before);
    assert!(h.outcome(l).is_none());
}

#[test]
fn call_tool_abort_during_a_task_sends_tasks_cancel() {
    let mut h = harness();
    let (op, p) = call_task(&mut h, "t1");
    h.result(&p, input_required("t1", json!({"k":elicit("?")})));
    let k = h.asks[0].clone();
    h.core.abort(op, Error::abort("user"), h.now);
    h.pump();
    assert_eq!(h.err(op).kind, ErrorKind::Abort);
    assert!(h.cancelled_asks.contains(&k.id));
    let c = take_method(&mut h, "tasks/cancel");
    assert_eq!(c.params()["taskId"], "t1");
    assert_eq!(c.header("mcp-name"), Some("t1"));
    h.result(&c, ack());
    assert!(h.try_take().is_none(), "no more polls");
    assert_eq!(h.core.next_deadline(), None);
}

#[test]
fn call_tool_task_timeout_names_the_task_and_does_not_cancel_it() {
    let mut h = harness();
    let o = OpOptions {
        task_timeout_ms: Some(2500),
        ..opts()
    };
    let start = h.now;
    let op = call(&mut h, false, &o, created("t1"));
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, got("t1", "working"));
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.result(&p, got("t1", "working"));
    h.advance(1000);
    let p = take_method(&mut h, "tasks/get");
    h.advance(start + 2500 - h.now);
    let e = h.err(op);
    assert_eq!(e.kind, ErrorKind::Timeout);
    assert_eq!(e.data.as_ref().unwrap()["taskId"], "t1");
    assert_eq!(e.data.as_ref().unwrap()["task"]["status"], "working");
    assert!(h.cancelled.contains(&p.xfer()));
    assert_eq!(sent(&h, "tasks/cancel"), 0);
    assert_eq!(h.core.next_deadline(), None);
}
