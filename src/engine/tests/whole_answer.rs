//! `Core::on_answer` (a JSON answer handed over whole, its head and body at once) against
//! the three steps it stands for (`on_head`, `on_body`, `on_end`): for every kind of
//! answer, both leave the same outcomes, requests, cancellations, asks, warnings and
//! deadlines; and the answers meant to go straight to their owner do.

use crate::engine::actions::{OpId, OpOptions};
use crate::engine::config::Config;
use crate::engine::core::ResponseHead;
use crate::engine::testkit::*;
use crate::error::Error;
use crate::json;
use crate::json::Value;

const JSON: Option<&str> = Some("application/json");

fn cfg() -> Config {
    tasks_config(false)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Feed {
    /// `on_head`, `on_body` (when the body is not empty), `on_end`.
    Steps,
    /// `on_answer`.
    Whole,
}

/// Answers exchange `xfer` with `status`, `ct` and `body`, the way `feed` says.
fn answer(h: &mut Harness, feed: Feed, xfer: u64, status: u16, ct: Option<&str>, body: &[u8]) {
    match feed {
        Feed::Steps => {
            h.head(xfer, status, ct);
            if !body.is_empty() {
                h.chunk(xfer, body);
            }
            h.end(xfer);
        }
        Feed::Whole => h.whole(xfer, status, ct, body),
    }
}

/// Whether `on_answer` would take the answer straight to its owner.
fn straight(h: &Harness, xfer: u64, status: u16, ct: Option<&str>, body: &[u8]) -> bool {
    let head = ResponseHead {
        status,
        content_type: ct,
        ..Default::default()
    };
    h.core.own_answer(xfer, &head, body).is_some()
}

fn error_body(id: Value, code: i64) -> Vec<u8> {
    json!({"jsonrpc":"2.0","id":id,"error":{"code":code,"message":"no","data":{"x":1}}})
        .to_string()
        .into_bytes()
}

/// Runs `script` once with each feed, each on a client of `config`; both runs must leave
/// the same snapshot. `script` returns whether its answer under test went straight to its
/// owner; that must be `fast`.
fn both_with(
    config: impl Fn() -> Config,
    fast: bool,
    script: impl Fn(&mut Harness, Feed) -> bool,
) -> Harness {
    let mut steps = Harness::new(config());
    let went = script(&mut steps, Feed::Steps);
    assert_eq!(went, fast, "which path the answer takes");
    let mut whole = Harness::new(config());
    script(&mut whole, Feed::Whole);
    assert_eq!(snapshot(&mut steps), snapshot(&mut whole));
    whole
}

/// [`both_with`] on the default configuration.
fn both(fast: bool, script: impl Fn(&mut Harness, Feed) -> bool) -> Harness {
    both_with(cfg, fast, script)
}

/// A tool call started, its `tools/list` answered (the way `feed` says): the call's op
/// and its `tools/call` request.
fn call(h: &mut Harness, feed: Feed) -> (OpId, Sent) {
    let op = h.core.call_tool_json(
        "echo",
        Some(r#"{"a":1}"#.into()),
        false,
        &OpOptions::default(),
        h.now,
    );
    let list = h.take();
    assert_eq!(list.method(), "tools/list");
    let body = result_body(&list, tools_page(vec![tool("echo")], None));
    answer(h, feed, list.xfer(), 200, JSON, &body);
    let s = h.take();
    assert_eq!(s.method(), "tools/call");
    (op, s)
}

/// A tool call answered with `status`, `ct` and the body made of its request.
fn answered(fast: bool, status: u16, ct: Option<&str>, body: impl Fn(&Sent) -> Vec<u8>) -> Harness {
    both(fast, |h, feed| {
        let (_, s) = call(h, feed);
        let b = body(&s);
        let went = straight(h, s.xfer(), status, ct, &b);
        answer(h, feed, s.xfer(), status, ct, &b);
        went
    })
}

#[test]
fn a_complete_result_goes_straight_to_the_call() {
    let mut h = answered(true, 200, JSON, |s| {
        result_body(s, json!({"resultType":"complete","content":[]}))
    });
    assert_eq!(h.done.len(), 1);
    assert!(h.outcome(OpId(1)).is_some_and(|o| o.is_ok()));
    assert_eq!(h.core.ops_in_flight(), 0);
    // A content type with parameters too.
    answered(true, 200, Some("application/json; charset=utf-8"), |s| {
        result_body(s, json!({"resultType":"complete","content":[]}))
    });
}

#[test]
fn a_json_rpc_error_goes_straight_to_the_call() {
    let h = answered(true, 200, JSON, |s| error_body(s.id(), -32602));
    assert!(matches!(h.done.values().next(), Some(Err(e)) if e.code == Some(-32602)));
    // With `id: null` (the server could not read the request): still this request's.
    answered(true, 200, JSON, |_| error_body(Value::Null, -32600));
    // -32020: the tool list is fetched again and the call retried, either way.
    let mut h = answered(true, 200, JSON, |s| error_body(s.id(), -32020));
    let relist = h.take();
    assert_eq!(relist.method(), "tools/list");
}

#[test]
fn other_answers_take_the_three_steps() {
    let complete = json!({"resultType":"complete","content":[]});
    // Another request's id, a notification, not JSON-RPC, not JSON, not UTF-8, empty.
    answered(false, 200, JSON, |s| {
        json!({"jsonrpc":"2.0","id":s.id().as_i64().unwrap_or(0) + 100,"result":complete})
            .to_string()
            .into_bytes()
    });
    answered(false, 200, JSON, |_| {
        br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#.to_vec()
    });
    answered(false, 200, JSON, |_| br#"{"foo":1}"#.to_vec());
    answered(false, 200, JSON, |_| b"{\"jsonrpc\":".to_vec());
    answered(false, 200, JSON, |s| {
        let mut b = result_body(
            s,
            json!({"resultType":"complete","content":[{"type":"text","text":"x"}]}),
        );
        let at = b.len() - 8;
        b[at] = 0xff;
        b
    });
    answered(false, 200, JSON, |_| Vec::new());
    answered(false, 200, JSON, |_| b"  \n".to_vec());
    // Another status or content type.
    answered(false, 400, JSON, |s| error_body(s.id(), -32602));
    answered(false, 202, JSON, |s| result_body(s, complete.clone()));
    answered(false, 200, Some("text/plain"), |s| {
        result_body(s, complete.clone())
    });
    answered(false, 200, None, |s| result_body(s, complete.clone()));
    // JSON by another name (`+json`, space before the type): the usual steps read it.
    answered(false, 200, Some("application/vnd.mcp+json"), |s| {
        result_body(s, complete.clone())
    });
    answered(false, 200, Some(" application/json"), |s| {
        result_body(s, complete.clone())
    });
    answered(false, 200, Some("application/jsonx"), |s| {
        result_body(s, complete.clone())
    });
}

#[test]
fn a_body_over_the_limit_takes_the_three_steps() {
    let small = || {
        let mut c = cfg();
        c.limits.max_body_bytes = 200;
        c
    };
    both_with(small, false, |h, feed| {
        let (op, s) = call(h, feed);
        let long = "x".repeat(300);
        let b = result_body(
            &s,
            json!({"resultType":"complete","content":[{"type":"text","text":long}]}),
        );
        let went = straight(h, s.xfer(), 200, JSON, &b);
        answer(h, feed, s.xfer(), 200, JSON, &b);
        assert!(h.err(op).message.contains("exceeds the limit"));
        went
    });
}

#[test]
fn an_input_round_goes_straight_to_the_call_and_on() {
    both(true, |h, feed| {
        let (op, s) = call(h, feed);
        let ask = json!({"method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}});
        let b = result_body(
            &s,
            json!({"resultType":"input_required","inputRequests":{"k":ask},"requestState":"st"}),
        );
        let went = straight(h, s.xfer(), 200, JSON, &b);
        answer(h, feed, s.xfer(), 200, JSON, &b);
        assert_eq!(h.asks.len(), 1);
        let id = h.asks[0].id;
        h.answer(id, Ok(json!({"action":"accept","content":{"name":"Ada"}})));
        let retry = h.take();
        assert_eq!(retry.params()["requestState"], "st");
        let b = result_body(&retry, json!({"resultType":"complete","content":[]}));
        answer(h, feed, retry.xfer(), 200, JSON, &b);
        assert!(h.outcome(op).is_some_and(|o| o.is_ok()));
        went
    });
}

#[test]
fn a_task_and_its_polls_go_straight_to_their_owners() {
    let task = |status: &str| task("t1", status);
    let h = both(true, |h, feed| {
        let (op, s) = call(h, feed);
        let mut created = task("working");
        created["resultType"] = json!("task");
        let b = result_body(&s, created);
        let went = straight(h, s.xfer(), 200, JSON, &b);
        answer(h, feed, s.xfer(), 200, JSON, &b);
        // The task is polled at once; its poll's answer is the task driver's (`Owner::Task`).
        let poll = h.take();
        assert_eq!(poll.method(), "tasks/get");
        let mut done = task("completed");
        done["resultType"] = json!("complete");
        done["result"] = json!({"content":[{"type":"text","text":"ok"}]});
        let b = result_body(&poll, done);
        assert!(straight(h, poll.xfer(), 200, JSON, &b));
        answer(h, feed, poll.xfer(), 200, JSON, &b);
        assert!(h.outcome(op).is_some_and(|o| o.is_ok()), "{:?}", h.done);
        went
    });
    assert_eq!(h.core.ops_in_flight(), 0);
}

#[test]
fn a_late_or_second_answer_is_ignored_either_way() {
    both(true, |h, feed| {
        let (op, s) = call(h, feed);
        let b = result_body(&s, json!({"resultType":"complete","content":[]}));
        let went = straight(h, s.xfer(), 200, JSON, &b);
        answer(h, feed, s.xfer(), 200, JSON, &b);
        // The same answer again: the exchange is over.
        assert!(!straight(h, s.xfer(), 200, JSON, &b));
        answer(h, feed, s.xfer(), 200, JSON, &b);
        assert!(h.outcome(op).is_some_and(|o| o.is_ok()));
        went
    });
    // An answer after the call was aborted: its exchange was cancelled.
    both(false, |h, feed| {
        let (op, s) = call(h, feed);
        h.core.abort(op, Error::abort("stop"), h.now);
        h.pump();
        let b = result_body(&s, json!({"resultType":"complete","content":[]}));
        let went = straight(h, s.xfer(), 200, JSON, &b);
        answer(h, feed, s.xfer(), 200, JSON, &b);
        assert!(h.outcome(op).is_some_and(|o| o.is_err()));
        went
    });
}
