//! A plain tool call's short path (`engine::core::plain`) against the general path: every
//! script runs on a client that takes the short path and on one that never does
//! (`Core::plain_off`), and both must leave the same outcomes, requests (ids, headers and
//! bodies), cancellations, asks, warnings, deadlines and operations in flight. The script
//! also says which path its call took, so that a call meant to be plain is seen to be.

use crate::engine::actions::{OpId, OpOptions};
use crate::engine::config::{Config, ValidateOutput};
use crate::engine::testkit::*;
use crate::error::{Error, ErrorKind};
use crate::json;
use crate::json::Value;

const JSON: Option<&str> = Some("application/json");

fn cfg() -> Config {
    tasks_config(false)
}

/// The tools the server lists: `echo` (plain), `typed` (an `outputSchema`), `routed` (an
/// `x-mcp-header` parameter).
fn tools() -> Vec<Value> {
    vec![
        tool("echo"),
        json!({"name":"typed","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}}),
        json!({"name":"routed","inputSchema":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"R"}}}}),
    ]
}

/// A client of `config` that has listed the tools (the short path needs to know them).
fn listed(config: &Config, off: bool) -> Harness {
    listed_tools(config, off, tools())
}

/// A client of `config` that has listed `tools`.
fn listed_tools(config: &Config, off: bool, tools: Vec<Value>) -> Harness {
    let mut h = Harness::new(config.clone());
    h.core.plain_off = off;
    let op = h
        .core
        .list_all(Listing::Tools, &OpOptions::default(), h.now);
    let s = h.take();
    h.result(&s, tools_page(tools, None));
    assert!(h.outcome(op).is_some_and(|o| o.is_ok()));
    h
}

/// Starts a call of `name` with arguments `{"a":1}`: its op and its request.
fn call(h: &mut Harness, name: &str, opts: &OpOptions) -> (OpId, Sent) {
    let op = h
        .core
        .call_tool_json(name, Some(r#"{"a":1}"#.into()), false, opts, h.now);
    (op, h.take())
}

/// True while a call is on the short path.
fn on_short_path(h: &Harness) -> bool {
    h.core.busy().contains(&"plain tool calls")
}

fn complete() -> Value {
    json!({"resultType":"complete","content":[{"type":"text","text":"hi"}]})
}

/// Runs `script` on a listed client of `config` taking the short path and on one that
/// never does; both must leave the same snapshot. `script` returns whether its call was on
/// the short path (checked with [`on_short_path`] just after it started), which must be
/// `plain` on the first client and false on the second. Returns the first client.
fn both_with(config: &Config, plain: bool, script: impl Fn(&mut Harness) -> bool) -> Harness {
    let mut general = listed(config, true);
    assert!(
        !script(&mut general),
        "plain_off: no call takes the short path"
    );
    let mut short = listed(config, false);
    assert_eq!(script(&mut short), plain, "which path the call took");
    assert_eq!(snapshot(&mut general), snapshot(&mut short));
    short
}

fn both(plain: bool, script: impl Fn(&mut Harness) -> bool) -> Harness {
    both_with(&cfg(), plain, script)
}

#[test]
fn a_complete_result_is_handed_over_at_once() {
    let h = both(true, |h| {
        let (op, s) = call(h, "echo", &OpOptions::default());
        let plain = on_short_path(h);
        // While it is out, nothing of the general path is booked for it.
        if plain {
            assert_eq!(h.core.busy(), vec!["plain tool calls"]);
        }
        assert_eq!(s.method(), "tools/call");
        assert_eq!(s.params()["name"], "echo");
        assert_eq!(s.params()["arguments"], json!({"a":1}));
        assert_eq!(s.header("mcp-name"), Some("echo"));
        h.whole(s.xfer(), 200, JSON, &result_body(&s, complete()));
        assert_eq!(h.ok(op)["content"][0]["text"], "hi");
        plain
    });
    assert!(h.core.busy().is_empty(), "{:?}", h.core.busy());
    assert_eq!(h.core.next_deadline(), None);
    // With parameters on the content type, and without arguments, too.
    both(true, |h| {
        let op = h
            .core
            .call_tool_json("echo", None, false, &OpOptions::default(), h.now);
        let plain = on_short_path(h);
        let s = h.take();
        assert!(s.params().get("arguments").is_none());
        let ct = Some("application/json; charset=utf-8");
        h.whole(s.xfer(), 200, ct, &result_body(&s, complete()));
        assert!(h.outcome(op).is_some_and(|o| o.is_ok()));
        plain
    });
}

#[test]
fn a_result_fed_in_steps_is_taken_over_first() {
    // A large result, an SSE stream: the shell feeds the head, the body and the end.
    both(true, |h| {
        let (op, s) = call(h, "echo", &OpOptions::default());
        let plain = on_short_path(h);
        h.result(&s, complete());
        assert_eq!(h.ok(op)["content"][0]["text"], "hi");
        plain
    });
    both(true, |h| {
        let (op, s) = call(h, "echo", &OpOptions::default());
        let plain = on_short_path(h);
        let log = json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}});
        let res = json!({"jsonrpc":"2.0","id":s.id(),"result":complete()});
        h.sse(&s, &[log, res], true);
        assert!(h.outcome(op).is_some_and(|o| o.is_ok()));
        plain
    });
}

/// An answer: its status, its content type and its body, made of the request.
type Answer = (u16, Option<&'static str>, fn(&Sent) -> Vec<u8>);

#[test]
fn other_answers_take_the_general_path() {
    let answers: Vec<Answer> = vec![
        // A JSON-RPC error; with `id: null`; an unknown resultType; not an object.
        (200, JSON, |s| {
            json!({"jsonrpc":"2.0","id":s.id(),"error":{"code":-32602,"message":"no"}})
                .to_string()
                .into_bytes()
        }),
        (200, JSON, |_| {
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad"}}"#.to_vec()
        }),
        (200, JSON, |s| result_body(s, json!({"resultType":"later"}))),
        (200, JSON, |s| result_body(s, json!([1]))),
        // Another request's id, a string id, a notification, not JSON-RPC, not JSON,
        // not UTF-8, empty.
        (200, JSON, |s| {
            json!({"jsonrpc":"2.0","id":s.id().as_i64().unwrap_or(0) + 100,"result":complete()})
                .to_string()
                .into_bytes()
        }),
        (200, JSON, |s| {
            json!({"jsonrpc":"2.0","id":s.id().to_string(),"result":complete()})
                .to_string()
                .into_bytes()
        }),
        (200, JSON, |_| {
            br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#.to_vec()
        }),
        (200, JSON, |_| br#"{"foo":1}"#.to_vec()),
        (200, JSON, |_| b"{\"jsonrpc\":".to_vec()),
        (200, JSON, |s| {
            let mut b = result_body(s, complete());
            let at = b.len() - 8;
            b[at] = 0xff;
            b
        }),
        (200, JSON, |_| Vec::new()),
        // Another status or content type.
        (400, JSON, |s| {
            json!({"jsonrpc":"2.0","id":s.id(),"error":{"code":-32602,"message":"no"}})
                .to_string()
                .into_bytes()
        }),
        (500, Some("text/plain"), |_| b"oops".to_vec()),
        (202, JSON, |s| result_body(s, complete())),
        (200, Some("text/plain"), |s| result_body(s, complete())),
        (200, None, |s| result_body(s, complete())),
        (200, Some("application/vnd.mcp+json"), |s| {
            result_body(s, complete())
        }),
    ];
    for (i, (status, ct, body)) in answers.into_iter().enumerate() {
        let mut h = both(true, |h| {
            let (_, s) = call(h, "echo", &OpOptions::default());
            let plain = on_short_path(h);
            h.whole(s.xfer(), status, ct, &body(&s));
            plain
        });
        if i == 6 {
            // A notification alone: the answer ended without the response, so the request
            // is sent again (as when a stream drops).
            assert_eq!(h.take().method(), "tools/call");
            assert_eq!(h.core.ops_in_flight(), 1);
        } else {
            assert_eq!(
                h.done.len(),
                2,
                "answer {i}: the listing and the call ended"
            );
        }
    }
}

#[test]
fn a_body_over_the_limit_fails_as_on_the_general_path() {
    let mut c = cfg();
    c.limits.max_body_bytes = 2000;
    both_with(&c, true, |h| {
        let (op, s) = call(h, "echo", &OpOptions::default());
        let plain = on_short_path(h);
        let long = "x".repeat(3000);
        let b = result_body(
            &s,
            json!({"resultType":"complete","content":[{"type":"text","text":long}]}),
        );
        h.whole(s.xfer(), 200, JSON, &b);
        assert!(h.err(op).message.contains("exceeds the limit"));
        plain
    });
}

#[test]
fn an_input_round_keeps_the_arguments_and_goes_on() {
    both(true, |h| {
        let (op, s) = call(h, "echo", &OpOptions::default());
        let plain = on_short_path(h);
        let ask = json!({"method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}});
        let b = result_body(
            &s,
            json!({"resultType":"input_required","inputRequests":{"k":ask},"requestState":"st"}),
        );
        h.whole(s.xfer(), 200, JSON, &b);
        assert_eq!(h.asks.len(), 1);
        let id = h.asks[0].id;
        h.answer(id, Ok(json!({"action":"accept","content":{"name":"Ada"}})));
        let retry = h.take();
        assert_eq!(retry.params()["requestState"], "st");
        assert_eq!(retry.params()["arguments"], json!({"a":1}));
        assert_eq!(retry.params()["name"], "echo");
        h.whole(retry.xfer(), 200, JSON, &result_body(&retry, complete()));
        assert!(h.outcome(op).is_some_and(|o| o.is_ok()));
        plain
    });
}

#[test]
fn a_task_is_driven_to_its_result() {
    let task = |status: &str| task("t1", status);
    let h = both(true, |h| {
        let (op, s) = call(h, "echo", &OpOptions::default());
        let plain = on_short_path(h);
        let mut created = task("working");
        created["resultType"] = json!("task");
        h.whole(s.xfer(), 200, JSON, &result_body(&s, created));
        let poll = h.take();
        assert_eq!(poll.method(), "tasks/get");
        let mut done = task("completed");
        done["resultType"] = json!("complete");
        done["result"] = complete();
        h.whole(poll.xfer(), 200, JSON, &result_body(&poll, done));
        assert_eq!(h.ok(op)["content"][0]["text"], "hi");
        plain
    });
    assert!(h.core.busy().is_empty(), "{:?}", h.core.busy());
}

#[test]
fn a_header_mismatch_relists_and_retries_with_the_same_arguments() {
    both(true, |h| {
        let (op, s) = call(h, "echo", &OpOptions::default());
        let plain = on_short_path(h);
        let b = json!({"jsonrpc":"2.0","id":s.id(),"error":{"code":-32020,"message":"header mismatch"}});
        h.whole(s.xfer(), 200, JSON, b.to_string().as_bytes());
        let relist = h.take();
        assert_eq!(relist.method(), "tools/list");
        h.result(&relist, tools_page(tools(), None));
        let retry = h.take();
        assert_eq!(retry.method(), "tools/call");
        assert_eq!(retry.params()["arguments"], json!({"a":1}));
        h.whole(retry.xfer(), 200, JSON, &result_body(&retry, complete()));
        assert!(h.outcome(op).is_some_and(|o| o.is_ok()));
        plain
    });
}

#[test]
fn failures_and_dropped_streams_behave_as_on_the_general_path() {
    // The request fails before an answer.
    both(true, |h| {
        let (op, s) = call(h, "echo", &OpOptions::default());
        let plain = on_short_path(h);
        h.fail(s.xfer(), Error::network("connection reset"));
        assert_eq!(h.err(op).kind, ErrorKind::Network);
        plain
    });
    // An SSE stream that drops before the response: the request is sent again.
    both(true, |h| {
        let (op, s) = call(h, "echo", &OpOptions::default());
        let plain = on_short_path(h);
        h.sse(&s, &[], true);
        let again = h.take();
        assert_eq!(again.method(), "tools/call");
        assert_eq!(again.params()["arguments"], json!({"a":1}));
        h.whole(again.xfer(), 200, JSON, &result_body(&again, complete()));
        assert!(h.outcome(op).is_some_and(|o| o.is_ok()));
        plain
    });
}

#[test]
fn the_deadline_is_the_general_paths() {
    let mut c = cfg();
    c.request_timeout_ms = 5_000;
    both_with(&c, true, |h| {
        let (op, s) = call(h, "echo", &OpOptions::default());
        let plain = on_short_path(h);
        assert_eq!(h.core.next_deadline(), Some(h.now + 5_000));
        h.advance(4_999);
        assert!(h.outcome(op).is_none());
        h.advance(1);
        assert_eq!(h.err(op).kind, ErrorKind::Timeout);
        assert!(h.cancelled.contains(&s.xfer()));
        // The answer after the deadline is nobody's.
        h.whole(s.xfer(), 200, JSON, &result_body(&s, complete()));
        plain
    });
    // A call's own timeout and a hard deadline.
    let opts = OpOptions {
        timeout_ms: Some(700),
        max_total_timeout_ms: Some(300),
        ..Default::default()
    };
    both(true, |h| {
        let (op, _) = call(h, "echo", &opts);
        let plain = on_short_path(h);
        assert_eq!(h.advance_to_deadline(), Some(h.now));
        assert_eq!(h.err(op).kind, ErrorKind::Timeout);
        plain
    });
    // Two plain calls and a general one: the earliest deadline first.
    both(true, |h| {
        let long = OpOptions {
            timeout_ms: Some(9_000),
            ..Default::default()
        };
        let (a, _) = call(h, "echo", &long);
        let plain = on_short_path(h);
        h.advance(1_000);
        let (b, _) = call(h, "echo", &OpOptions::default());
        let (c, _) = call(h, "typed", &OpOptions::default());
        h.advance_to_deadline();
        let failed: Vec<bool> = [a, b, c].iter().map(|o| h.outcome(*o).is_some()).collect();
        assert_eq!(failed, vec![true, false, false]);
        h.advance_to_deadline();
        assert!(h.outcome(b).is_some() && h.outcome(c).is_some());
        plain
    });
}

#[test]
fn an_abort_or_close_ends_the_call_as_on_the_general_path() {
    both(true, |h| {
        let (op, s) = call(h, "echo", &OpOptions::default());
        let plain = on_short_path(h);
        h.core.abort(op, Error::abort("stop"), h.now);
        h.pump();
        assert_eq!(h.err(op).kind, ErrorKind::Abort);
        assert_eq!(h.cancelled, vec![s.xfer()]);
        // Its answer, late: nobody's.
        h.whole(s.xfer(), 200, JSON, &result_body(&s, complete()));
        assert!(h.core.busy().is_empty());
        plain
    });
    both(true, |h| {
        let (a, _) = call(h, "echo", &OpOptions::default());
        let plain = on_short_path(h);
        let (b, _) = call(h, "echo", &OpOptions::default());
        h.core.close(h.now);
        h.pump();
        assert_eq!(h.err(a).kind, ErrorKind::Abort);
        assert_eq!(h.err(b).kind, ErrorKind::Abort);
        assert_eq!(h.cancelled.len(), 2);
        assert!(h.core.busy().is_empty(), "{:?}", h.core.busy());
        plain
    });
}

#[test]
fn calls_that_are_not_plain_take_the_general_path() {
    // A tool with an outputSchema (checked), or an `x-mcp-header` parameter.
    both(false, |h| {
        let (op, s) = call(h, "typed", &OpOptions::default());
        let plain = on_short_path(h);
        h.whole(s.xfer(), 200, JSON, &result_body(&s, complete()));
        assert_eq!(h.err(op).kind, ErrorKind::OutputValidation);
        plain
    });
    both(false, |h| {
        let op = h.core.call_tool_json(
            "routed",
            Some(r#"{"r":"eu"}"#.into()),
            false,
            &OpOptions::default(),
            h.now,
        );
        let plain = on_short_path(h);
        let s = h.take();
        assert_eq!(s.header("mcp-param-r"), Some("eu"));
        h.whole(s.xfer(), 200, JSON, &result_body(&s, complete()));
        assert!(h.outcome(op).is_some_and(|o| o.is_ok()));
        plain
    });
    // Options the short path does not carry: progress, a log level, `_meta`, asTask.
    let options = [
        OpOptions {
            progress: true,
            ..Default::default()
        },
        OpOptions {
            log_level: Some("debug".into()),
            ..Default::default()
        },
        OpOptions {
            meta: Some(crate::json::Map::from_iter([("k".to_string(), json!(1))])),
            ..Default::default()
        },
    ];
    for opts in options {
        both(false, |h| {
            let (op, s) = call(h, "echo", &opts);
            let plain = on_short_path(h);
            h.whole(s.xfer(), 200, JSON, &result_body(&s, complete()));
            assert!(h.outcome(op).is_some_and(|o| o.is_ok()));
            plain
        });
    }
    both(false, |h| {
        let op = h
            .core
            .call_tool_json("echo", None, true, &OpOptions::default(), h.now);
        let plain = on_short_path(h);
        let s = h.take();
        h.whole(s.xfer(), 200, JSON, &result_body(&s, complete()));
        assert!(h.outcome(op).is_some_and(|o| o.is_ok()));
        plain
    });
    // A tool the client has not listed yet: the general path lists first.
    let mut fresh = Harness::new(cfg());
    fresh
        .core
        .call_tool_json("echo", None, false, &OpOptions::default(), fresh.now);
    assert!(!on_short_path(&fresh));
    assert_eq!(fresh.take().method(), "tools/list");
}

#[test]
fn an_unchecked_output_schema_still_takes_the_general_path() {
    // With validation off the general path hands the result over unread too; the short
    // path still leaves such a tool alone (its check is the general path's to skip).
    let mut c = cfg();
    c.validate_output = ValidateOutput::Off;
    both_with(&c, false, |h| {
        let (op, s) = call(h, "typed", &OpOptions::default());
        let plain = on_short_path(h);
        h.whole(s.xfer(), 200, JSON, &result_body(&s, complete()));
        assert!(h.outcome(op).is_some_and(|o| o.is_ok()));
        plain
    });
}

#[test]
fn many_calls_at_once_overflow_to_the_general_path() {
    let h = both(true, |h| {
        let mut calls = Vec::new();
        for _ in 0..70 {
            calls.push(call(h, "echo", &OpOptions::default()));
        }
        let plain = on_short_path(h);
        if plain {
            // 64 on the short path, 6 booked as the general path books them.
            assert!(h.core.busy().contains(&"exchanges"), "{:?}", h.core.busy());
        }
        // Answered last first, every other one in steps.
        for (i, (_, s)) in calls.iter().enumerate().rev() {
            if i % 2 == 0 {
                h.whole(s.xfer(), 200, JSON, &result_body(s, complete()));
            } else {
                h.result(s, complete());
            }
        }
        for (op, _) in &calls {
            assert!(h.outcome(*op).is_some_and(|o| o.is_ok()));
        }
        plain
    });
    assert!(h.core.busy().is_empty(), "{:?}", h.core.busy());
}

/// The shell's direct path (`web::client`): a plain call's request taken out of the queue
/// when it is the only action, and its complete result when that is, and nothing taken
/// otherwise. What it takes is what the general pump would have performed, in order.
#[test]
fn the_direct_path_takes_only_a_sole_send() {
    let mut h = listed(&cfg(), false);
    let opts = OpOptions::default();
    let op = h
        .core
        .call_tool_json("echo", Some(r#"{"a":1}"#.into()), false, &opts, h.now);
    // Another operation's number takes nothing.
    assert!(h.core.take_plain_send(OpId(op.0 + 1)).is_none());
    let req = h.core.take_plain_send(op).expect("the call's request");
    assert!(
        h.core.poll_action().is_none(),
        "the queue held only the request"
    );
    assert!(String::from_utf8_lossy(req.body.as_deref().unwrap_or(b"")).contains("\"tools/call\""));
    // Its answer, handed over whole (an answer the runner does not read itself): the
    // result comes as for any call.
    let body: Value = serde_json::from_slice(req.body.as_deref().unwrap_or(b"")).unwrap();
    let text = json!({"jsonrpc":"2.0","id":body["id"],"result":complete()}).to_string();
    h.whole(req.id, 200, JSON, text.as_bytes());
    assert_eq!(h.ok(op), complete());
    assert!(h.core.busy().is_empty(), "{:?}", h.core.busy());

    // Two requests queued: neither is taken, and both go out in order.
    let a = h.core.call_tool_json("echo", None, false, &opts, h.now);
    let b = h.core.call_tool_json("echo", None, false, &opts, h.now);
    assert!(h.core.take_plain_send(a).is_none());
    assert!(h.core.take_plain_send(b).is_none());
    let (sa, sb) = (h.take(), h.take());
    assert!(sa.xfer() < sb.xfer());
    h.whole(sa.xfer(), 200, JSON, &result_body(&sa, complete()));
    h.whole(sb.xfer(), 200, JSON, &result_body(&sb, complete()));
    assert!(h.outcome(a).is_some_and(|o| o.is_ok()) && h.outcome(b).is_some_and(|o| o.is_ok()));

    // A call on the general path (an `x-mcp-header` tool): nothing taken.
    let op = h
        .core
        .call_tool_json("routed", Some(r#"{"r":"eu"}"#.into()), false, &opts, h.now);
    assert!(h.core.take_plain_send(op).is_none());
    let s = h.take();
    h.whole(s.xfer(), 200, JSON, &result_body(&s, complete()));
    assert!(h.outcome(op).is_some_and(|o| o.is_ok()));
}

#[test]
fn a_result_read_by_the_runner_ends_only_its_own_plain_call() {
    let rpc_of = |req: &crate::http::request::HttpRequest| {
        let body: Value = serde_json::from_slice(req.body.as_deref().unwrap_or(b"")).unwrap();
        body["id"].as_i64().expect("a numbered request")
    };
    let mut h = listed(&cfg(), false);
    let opts = OpOptions::default();
    let op = h.core.call_tool_json("echo", None, false, &opts, h.now);
    let req = h.core.take_plain_send(op).expect("the call's request");
    let (wire, rpc) = (req.id, rpc_of(&req));
    assert!(h.core.next_deadline().is_some(), "the call's deadline");
    // Another exchange, operation or request id, or a body over the limit: not taken,
    // and nothing changed.
    let limit = cfg().limits.max_body_bytes;
    assert!(!h.core.on_result_read(wire + 1, op, rpc, 10));
    assert!(!h.core.on_result_read(wire, OpId(op.0 + 1), rpc, 10));
    assert!(!h.core.on_result_read(wire, op, rpc + 1, 10));
    assert!(!h.core.on_result_read(wire, op, rpc, limit + 1));
    assert!(on_short_path(&h) && h.core.poll_action().is_none());
    // Its own: the call is over, with nothing queued and no deadline left.
    assert!(h.core.on_result_read(wire, op, rpc, limit));
    assert!(h.core.poll_action().is_none());
    assert!(h.core.busy().is_empty(), "{:?}", h.core.busy());
    assert_eq!(h.core.next_deadline(), None);
    assert!(!h.core.on_result_read(wire, op, rpc, 10), "once");

    // With anything queued (a second call's request), not taken: the answer then goes
    // the usual way, after what was queued.
    let a = h.core.call_tool_json("echo", None, false, &opts, h.now);
    let req = h.core.take_plain_send(a).expect("the call's request");
    let b = h.core.call_tool_json("echo", None, false, &opts, h.now);
    assert!(!h.core.on_result_read(req.id, a, rpc_of(&req), 10));
    let sb = h.take();
    let body = json!({"jsonrpc":"2.0","id":rpc_of(&req),"result":complete()}).to_string();
    h.whole(req.id, 200, JSON, body.as_bytes());
    assert_eq!(h.ok(a), complete());
    h.whole(sb.xfer(), 200, JSON, &result_body(&sb, complete()));
    assert_eq!(h.ok(b), complete());

    // A call the general path holds (handed over by a chunk of its answer, or never
    // plain): not taken.
    let op = h.core.call_tool_json("echo", None, false, &opts, h.now);
    let req = h.core.take_plain_send(op).expect("the call's request");
    h.core.on_chunk(req.id, b"{", h.now);
    assert!(!on_short_path(&h));
    assert!(!h.core.on_result_read(req.id, op, rpc_of(&req), 10));
    let op = h
        .core
        .call_tool_json("routed", Some(r#"{"r":"eu"}"#.into()), false, &opts, h.now);
    let s = h.take();
    let rpc = s.id().as_i64().expect("a numbered request");
    assert!(!h.core.on_result_read(s.xfer(), op, rpc, 10));
}

/// Plain calls are written from a template per tool (`http::call_template`), of which the
/// engine keeps eight: calls of twelve tools in turn, so that templates are dropped and
/// framed again, with a log level and host headers configured, send what the general path
/// sends, byte for byte.
#[test]
fn calls_of_many_tools_send_what_the_general_path_sends() {
    let mut config = cfg();
    config.log_level = Some("notice".into());
    config.headers = vec![("X-Host".into(), "1".into())];
    let names: Vec<String> = (0..12).map(|i| format!("tool-{i}\u{e9}")).collect();
    let run = |off: bool| {
        let mut h = listed_tools(&config, off, names.iter().map(|n| tool(n)).collect());
        let opts = OpOptions::default();
        for (k, i) in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 5, 11, 3, 3, 9]
            .into_iter()
            .enumerate()
        {
            let args = (k % 3 != 0).then(|| format!(r#"{{"k":{k}}}"#));
            let op = h.core.call_tool_json(&names[i], args, false, &opts, h.now);
            assert_eq!(on_short_path(&h), !off, "call {k}");
            let s = h.take();
            let name = s.header("mcp-name").unwrap_or_default();
            assert!(name.starts_with("=?base64?"), "encoded: {name}");
            h.whole(s.xfer(), 200, JSON, &result_body(&s, complete()));
            assert_eq!(h.ok(op), complete());
        }
        // (The snapshot reads each body as JSON: its bytes are compared too.)
        let bytes: Vec<String> = h
            .history
            .iter()
            .map(|s| s.req.body_text().unwrap_or_default().to_string())
            .collect();
        (snapshot(&mut h), bytes)
    };
    assert_eq!(run(true), run(false));
}

/// A tool called between calls of eight others keeps its template: templates are dropped
/// least lately used first (with eight kept, the ninth tool framed would otherwise replace
/// the first tool's), and a dropped one is framed again on its tool's next call.
#[test]
fn templates_are_dropped_least_lately_used_first() {
    let names: Vec<String> = (0..10).map(|i| format!("t{i}")).collect();
    let mut h = listed_tools(&cfg(), false, names.iter().map(|n| tool(n)).collect());
    let opts = OpOptions::default();
    let call = |h: &mut Harness, i: usize| {
        let op = h.core.call_tool_json(&names[i], None, false, &opts, h.now);
        assert!(on_short_path(h), "t{i}");
        let s = h.take();
        assert_eq!(s.header("mcp-name"), Some(names[i].as_str()));
        h.whole(s.xfer(), 200, JSON, &result_body(&s, complete()));
        assert_eq!(h.ok(op), complete());
        h.core.templates_framed()
    };
    // t0 between each of t1..t9: nine tools framed once each, t0 never dropped.
    assert_eq!(call(&mut h, 0), 1);
    for i in 1..=9 {
        assert_eq!(call(&mut h, i), i + 1, "t{i} framed");
        assert_eq!(call(&mut h, 0), i + 1, "t0 kept after t{i}");
    }
    // Kept now: t0, t9, t8, ..., t3 (eight); t2 was dropped when t9 came, t1 when t8 came.
    assert_eq!(call(&mut h, 3), 10, "t3 kept");
    assert_eq!(call(&mut h, 2), 11, "t2 framed again");
    // t2 came in for the least lately used, t4 (t3 was just used).
    assert_eq!(call(&mut h, 3), 11, "t3 still kept");
    assert_eq!(call(&mut h, 4), 12, "t4 framed again");
}
