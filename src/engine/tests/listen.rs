//! `subscriptions/listen` (spec `basic/patterns/subscriptions.mdx`, protocol notes §5):
//! acknowledgement, routing by subscription id, cache invalidation, graceful end, drops
//! and re-listening, time-outs, errors, several subscriptions at once.

use crate::engine::actions::{OpId, OpOptions, SubscriptionEvent};
use crate::engine::config::{Config, VersionChoice};
use crate::engine::testkit::*;
use crate::error::{Error, ErrorKind};
use crate::json;
use crate::json::{Map, Value};

const SUB: &str = "io.modelcontextprotocol/subscriptionId";

fn cfg() -> Config {
    let mut c = Config::new("http://mcp.test/mcp");
    c.version = VersionChoice::Pinned("2026-07-28".into());
    c.limits.listen_backoff_ms = 500;
    c.limits.listen_max_backoff_ms = 4000;
    c.limits.listen_max_retries = 3;
    c.limits.listen_ack_timeout_ms = 5000;
    c
}

fn harness() -> Harness {
    Harness::new(cfg())
}

fn opts() -> OpOptions {
    OpOptions::default()
}

fn msg(method: &str, sub: &Value, params: Value) -> Value {
    let mut p = params;
    p["_meta"] = json!({ SUB: sub });
    json!({"jsonrpc":"2.0","method":method,"params":p})
}

fn acknowledged(sub: &Value, granted: Value) -> Value {
    msg(
        "notifications/subscriptions/acknowledged",
        sub,
        json!({ "notifications": granted }),
    )
}

fn push(h: &mut Harness, s: &Sent, m: &Value) {
    h.chunk(
        s.xfer(),
        format!("event: message\ndata: {m}\n\n").as_bytes(),
    );
}

/// Starts a listen with `filter` and acknowledges it (granting the whole filter).
fn open(h: &mut Harness, filter: Value) -> (OpId, Sent) {
    let op = h.core.listen(&filter, h.now);
    let s = h.take();
    assert_eq!(s.method(), "subscriptions/listen");
    h.sse(&s, &[acknowledged(&s.id(), filter)], false);
    assert!(matches!(
        h.subs.last(),
        Some((o, SubscriptionEvent::Acknowledged { .. })) if *o == op
    ));
    (op, s)
}

/// Subscription notifications (method names) an op received.
fn received(h: &Harness, op: OpId) -> Vec<String> {
    h.subs
        .iter()
        .filter_map(|(o, e)| match e {
            SubscriptionEvent::Notification { method, .. } if *o == op => Some(method.clone()),
            _ => None,
        })
        .collect()
}

fn notified(h: &Harness, method: &str) -> usize {
    h.notifications.iter().filter(|(m, _)| m == method).count()
}

fn reconnects(h: &Harness, op: OpId) -> Vec<(u32, u64)> {
    h.subs
        .iter()
        .filter_map(|(o, e)| match e {
            SubscriptionEvent::Reconnecting {
                attempt, delay_ms, ..
            } if *o == op => Some((*attempt, *delay_ms)),
            _ => None,
        })
        .collect()
}

fn params(v: Value) -> Map {
    v.as_object().cloned().unwrap()
}

#[test]
fn the_acknowledgement_comes_first_with_the_granted_filter_and_the_request_id() {
    let mut h = harness();
    let filter = json!({"toolsListChanged":true,"promptsListChanged":true,
                        "resourceSubscriptions":["file:///a.json"]});
    let op = h.core.listen(&filter, h.now);
    let s = h.take();
    assert_eq!(s.method(), "subscriptions/listen");
    assert_eq!(s.header("mcp-method"), Some("subscriptions/listen"));
    assert_eq!(s.params()["notifications"], filter);
    assert_eq!(
        s.params()["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert_eq!(h.core.next_deadline(), Some(h.now + 5000), "ack timeout");
    // The server honours a subset only.
    let granted = json!({"toolsListChanged":true});
    h.sse(&s, &[acknowledged(&s.id(), granted.clone())], false);
    assert_eq!(h.subs.len(), 1);
    match &h.subs[0] {
        (
            o,
            SubscriptionEvent::Acknowledged {
                granted: g,
                subscription_id,
            },
        ) => {
            assert_eq!(*o, op);
            assert_eq!(*g, granted);
            assert_eq!(*subscription_id, s.id());
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(h.core.next_deadline(), None, "no timer on an open stream");
    assert!(h.outcome(op).is_none());
    assert!(
        h.notifications.is_empty(),
        "the ack is not a host notification"
    );
}

#[test]
fn notifications_are_routed_by_subscription_id() {
    let mut h = harness();
    let (op, s) = open(&mut h, json!({"toolsListChanged":true}));
    let sid = s.id();
    push(
        &mut h,
        &s,
        &msg("notifications/tools/list_changed", &sid, json!({})),
    );
    assert_eq!(received(&h, op), ["notifications/tools/list_changed"]);
    assert_eq!(notified(&h, "notifications/tools/list_changed"), 1);
    let other = json!(sid.as_i64().unwrap() + 1000);
    push(
        &mut h,
        &s,
        &msg("notifications/tools/list_changed", &other, json!({})),
    );
    assert_eq!(received(&h, op).len(), 1, "another subscription's: dropped");
    assert_eq!(notified(&h, "notifications/tools/list_changed"), 1);
    assert!(
        h.warnings
            .iter()
            .any(|w| w.contains("another subscription")),
        "{:?}",
        h.warnings
    );
    // A string id is another id too.
    push(
        &mut h,
        &s,
        &msg(
            "notifications/tools/list_changed",
            &json!(sid.to_string() + "x"),
            json!({}),
        ),
    );
    assert_eq!(received(&h, op).len(), 1);
    assert!(h.outcome(op).is_none());
}

#[test]
fn tools_list_changed_invalidates_the_tools_list_cache() {
    let mut h = harness();
    let page = json!({"tools":[{"name":"a","inputSchema":{"type":"object"}}],
                      "ttlMs":600_000,"cacheScope":"public"});
    let l = h
        .core
        .request(Purpose::ToolsList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.result(&s, page.clone());
    h.ok(l);
    let l = h
        .core
        .request(Purpose::ToolsList, Map::new(), &opts(), h.now);
    assert!(h.try_take().is_none(), "cached");
    assert_eq!(h.ok(l)["tools"][0]["name"], "a");
    let (op, sub) = open(&mut h, json!({"toolsListChanged":true}));
    push(
        &mut h,
        &sub,
        &msg("notifications/tools/list_changed", &sub.id(), json!({})),
    );
    assert_eq!(notified(&h, "notifications/tools/list_changed"), 1);
    assert_eq!(received(&h, op), ["notifications/tools/list_changed"]);
    let l = h
        .core
        .request(Purpose::ToolsList, Map::new(), &opts(), h.now);
    let s = h.take();
    assert_eq!(s.method(), "tools/list", "the cache was dropped");
    h.result(&s, tools_page(vec![tool("b")], None));
    assert_eq!(h.ok(l)["tools"][0]["name"], "b");
}

#[test]
fn resources_updated_invalidates_the_read_cache_of_that_uri() {
    let mut h = harness();
    let read = |h: &mut Harness, uri: &str| {
        h.core
            .request(Purpose::Read, params(json!({ "uri": uri })), &opts(), h.now)
    };
    for uri in ["file:///a", "file:///b"] {
        let r = read(&mut h, uri);
        let s = h.take();
        h.result(
            &s,
            json!({"contents":[{"uri":uri,"text":"v1"}],"ttlMs":600_000,"cacheScope":"public"}),
        );
        h.ok(r);
    }
    let r = read(&mut h, "file:///a");
    assert!(h.try_take().is_none());
    h.ok(r);
    let (_op, sub) = open(
        &mut h,
        json!({"resourceSubscriptions":["file:///a","file:///b"]}),
    );
    push(
        &mut h,
        &sub,
        &msg(
            "notifications/resources/updated",
            &sub.id(),
            json!({"uri":"file:///a"}),
        ),
    );
    assert_eq!(notified(&h, "notifications/resources/updated"), 1);
    let r = read(&mut h, "file:///a");
    let s = h.take();
    assert_eq!(s.params()["uri"], "file:///a");
    h.result(&s, json!({"contents":[{"uri":"file:///a","text":"v2"}]}));
    assert_eq!(h.ok(r)["contents"][0]["text"], "v2");
    let r = read(&mut h, "file:///b");
    assert!(h.try_take().is_none(), "file:///b is still cached");
    assert_eq!(h.ok(r)["contents"][0]["text"], "v1");
}

#[test]
fn a_final_response_is_a_graceful_end() {
    let mut h = harness();
    let (op, s) = open(&mut h, json!({"toolsListChanged":true}));
    let sid = s.id();
    push(
        &mut h,
        &s,
        &json!({"jsonrpc":"2.0","id":sid,"result":{"resultType":"complete","_meta":{SUB: sid}}}),
    );
    assert_eq!(h.ok(op), Value::Null);
    assert!(h.cancelled.contains(&s.xfer()), "the stream is closed");
    h.end(s.xfer());
    h.advance(60_000);
    assert!(h.try_take().is_none(), "no re-listen after a graceful end");
    assert!(reconnects(&h, op).is_empty());
    assert_eq!(h.core.next_deadline(), None);
    assert_eq!(h.core.ops_in_flight(), 0);
}

#[test]
fn a_response_before_the_acknowledgement_is_an_invalid_result() {
    // The acknowledgement MUST be the first message (schema
    // `SubscriptionsAcknowledgedNotification`): `listen()` resolves with the granted filter,
    // never with none.
    let mut h = harness();
    for result in [
        json!({"resultType":"complete"}),
        json!({}),
        json!({"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object","properties":{}}}}}}),
    ] {
        let op = h.core.listen(&json!({"toolsListChanged":true}), h.now);
        let s = h.take();
        h.result(&s, result.clone());
        let e = h.err(op);
        assert_eq!(e.kind, ErrorKind::InvalidResult, "{result}");
        assert!(
            e.message.contains("before the server acknowledged"),
            "{}",
            e.message
        );
        assert!(h.asks.is_empty(), "no input asked for: {result}");
    }
    assert!(h.subs.is_empty(), "no acknowledgement reached the host");
    h.advance(60_000);
    assert!(h.try_take().is_none(), "nothing listened to again");
    assert_eq!(h.core.ops_in_flight(), 0);
}

#[test]
fn a_malformed_acknowledgement_fails_the_listen_and_drops_a_relisten() {
    let mut h = harness();
    for (params, why) in [
        (json!({}), "it has no notifications"),
        (
            json!({"notifications":[]}),
            "its notifications is not an object",
        ),
        (
            json!({"notifications":"all"}),
            "its notifications is not an object",
        ),
        (
            json!({"notifications":{"toolsListChanged":"yes"}}),
            "toolsListChanged must be a boolean",
        ),
        (
            json!({"notifications":{"taskIds":"all"}}),
            "taskIds must be an array of strings",
        ),
        (
            json!({"notifications":{"resourceSubscriptions":[1]}}),
            "resourceSubscriptions must be an array of strings",
        ),
    ] {
        let op = h.core.listen(&json!({"toolsListChanged":true}), h.now);
        let s = h.take();
        h.sse(
            &s,
            &[msg(
                "notifications/subscriptions/acknowledged",
                &s.id(),
                params.clone(),
            )],
            false,
        );
        let e = h.err(op);
        assert_eq!(e.kind, ErrorKind::InvalidResult, "{params}");
        assert!(e.message.contains(why), "{params}: {}", e.message);
        assert!(
            h.cancelled.contains(&s.xfer()),
            "{params}: the stream is closed"
        );
    }
    assert!(h.subs.is_empty(), "no acknowledgement reached the host");
    assert!(h.try_take().is_none());

    // Once acknowledged, a re-listen's malformed acknowledgement is a drop: listened to again.
    let filter = json!({"toolsListChanged":true});
    let (op, s1) = open(&mut h, filter.clone());
    h.end(s1.xfer());
    h.advance(500);
    let s2 = h.take();
    h.sse(
        &s2,
        &[msg(
            "notifications/subscriptions/acknowledged",
            &s2.id(),
            json!({"notifications":[]}),
        )],
        false,
    );
    assert_eq!(reconnects(&h, op), [(1, 500), (2, 1000)]);
    assert!(h.outcome(op).is_none());
    h.advance(1000);
    let s3 = h.take();
    h.sse(&s3, &[acknowledged(&s3.id(), filter)], false);
    push(
        &mut h,
        &s3,
        &msg("notifications/tools/list_changed", &s3.id(), json!({})),
    );
    assert_eq!(received(&h, op).len(), 1);
}

#[test]
fn a_drop_relistens_with_a_new_id_after_the_backoff() {
    let mut h = harness();
    let filter = json!({"toolsListChanged":true});
    let (op, s1) = open(&mut h, filter.clone());
    h.end(s1.xfer()); // closed without a response: a drop
    assert_eq!(reconnects(&h, op), [(1, 500)]);
    assert!(h.outcome(op).is_none());
    assert_eq!(h.core.next_deadline(), Some(h.now + 500));
    h.advance(499);
    assert!(h.try_take().is_none());
    h.advance(1);
    let s2 = h.take();
    assert_eq!(s2.method(), "subscriptions/listen");
    assert_ne!(s2.id(), s1.id(), "a new id");
    assert_eq!(s2.params()["notifications"], filter);
    h.sse(&s2, &[acknowledged(&s2.id(), filter.clone())], false);
    let acks: Vec<Value> = h
        .subs
        .iter()
        .filter_map(|(_, e)| match e {
            SubscriptionEvent::Acknowledged {
                subscription_id, ..
            } => Some(subscription_id.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(acks, [s1.id(), s2.id()]);
    // The old id means nothing now.
    push(
        &mut h,
        &s2,
        &msg("notifications/tools/list_changed", &s1.id(), json!({})),
    );
    assert!(received(&h, op).is_empty());
    push(
        &mut h,
        &s2,
        &msg("notifications/tools/list_changed", &s2.id(), json!({})),
    );
    assert_eq!(received(&h, op).len(), 1);
    // A network failure of an open stream is a drop too; the counter restarted after the ack.
    h.fail(s2.xfer(), Error::network("reset"));
    assert_eq!(reconnects(&h, op), [(1, 500), (1, 500)]);
    h.advance(500);
    let s3 = h.take();
    assert_ne!(s3.id(), s2.id());
    assert!(h.outcome(op).is_none());
}

#[test]
fn reconnection_attempts_are_bounded_then_the_op_fails() {
    let mut h = harness();
    let (op, s) = open(&mut h, json!({"toolsListChanged":true}));
    h.end(s.xfer());
    for attempt in 1..=3u32 {
        let delay = 500u64 << (attempt - 1);
        assert_eq!(reconnects(&h, op).last(), Some(&(attempt, delay)));
        h.advance(delay);
        let s = h.take();
        assert_eq!(s.method(), "subscriptions/listen");
        // Each attempt fails before its acknowledgement.
        h.sse(&s, &[], true);
    }
    let e = h.err(op);
    assert_eq!(e.kind, ErrorKind::Network);
    assert_eq!(reconnects(&h, op).len(), 3);
    h.advance(600_000);
    assert!(h.try_take().is_none());
    assert_eq!(h.core.next_deadline(), None);
}

#[test]
fn the_backoff_is_capped() {
    let mut c = cfg();
    c.limits.listen_max_retries = 10;
    c.limits.listen_max_backoff_ms = 1500;
    let mut h = Harness::new(c);
    let (op, s) = open(&mut h, json!({"toolsListChanged":true}));
    h.end(s.xfer());
    for _ in 0..4 {
        let (_, delay) = *reconnects(&h, op).last().unwrap();
        h.advance(delay);
        let s = h.take();
        h.fail(s.xfer(), Error::network("down"));
    }
    let delays: Vec<u64> = reconnects(&h, op).iter().map(|r| r.1).collect();
    assert_eq!(delays, [500, 1000, 1500, 1500, 1500]);
}

#[test]
fn an_acknowledgement_that_never_comes_is_a_timeout() {
    let mut h = harness();
    let op = h.core.listen(&json!({"toolsListChanged":true}), h.now);
    let s = h.take();
    h.sse(&s, &[], false);
    h.advance(4999);
    assert!(h.outcome(op).is_none());
    h.advance(1);
    assert_eq!(h.err(op).kind, ErrorKind::Timeout);
    assert!(h.cancelled.contains(&s.xfer()));
    assert!(h.try_take().is_none(), "no re-listen");
    // An acknowledgement for another subscription is not this one's.
    let op = h.core.listen(&json!({"toolsListChanged":true}), h.now);
    let s = h.take();
    h.sse(&s, &[acknowledged(&json!(424_242), json!({}))], false);
    assert!(h.subs.is_empty());
    h.advance(5000);
    assert_eq!(h.err(op).kind, ErrorKind::Timeout);
}

#[test]
fn an_error_before_the_acknowledgement_is_a_typed_error() {
    let mut h = harness();
    let op = h.core.listen(&json!({"toolsListChanged":true}), h.now);
    let s = h.take();
    let data = json!({"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}});
    h.error(&s, 400, -32021, "Missing capability", Some(data.clone()));
    let e = h.err(op);
    assert_eq!(e.kind, ErrorKind::MissingRequiredClientCapability);
    assert_eq!(e.code, Some(-32021));
    assert_eq!(e.data, Some(data));
    assert!(h.try_take().is_none(), "no retry");

    let op = h.core.listen(&json!({"toolsListChanged":true}), h.now);
    let s = h.take();
    h.error(&s, 404, -32601, "Method not found", None);
    let e = h.err(op);
    assert_eq!(
        (e.kind, e.code, e.status),
        (ErrorKind::Mcp, Some(-32601), Some(404))
    );

    let op = h.core.listen(&json!({"toolsListChanged":true}), h.now);
    let s = h.take();
    h.fail(s.xfer(), Error::network("refused"));
    assert_eq!(h.err(op).kind, ErrorKind::Network);
    assert!(h.try_take().is_none());
    assert_eq!(h.core.next_deadline(), None);
}

#[test]
fn an_error_after_the_acknowledgement_is_a_drop() {
    let mut h = harness();
    let (op, s) = open(&mut h, json!({"toolsListChanged":true}));
    push(
        &mut h,
        &s,
        &json!({"jsonrpc":"2.0","id":s.id(),"error":{"code":-32603,"message":"restarting"}}),
    );
    assert_eq!(reconnects(&h, op), [(1, 500)]);
    h.advance(500);
    assert_eq!(h.take().method(), "subscriptions/listen");
}

#[test]
fn several_subscriptions_are_independent() {
    let mut h = harness();
    let (a, sa) = open(&mut h, json!({"toolsListChanged":true}));
    let (b, sb) = open(&mut h, json!({"promptsListChanged":true}));
    assert_ne!(sa.id(), sb.id());
    push(
        &mut h,
        &sa,
        &msg("notifications/tools/list_changed", &sa.id(), json!({})),
    );
    push(
        &mut h,
        &sb,
        &msg("notifications/prompts/list_changed", &sb.id(), json!({})),
    );
    assert_eq!(received(&h, a), ["notifications/tools/list_changed"]);
    assert_eq!(received(&h, b), ["notifications/prompts/list_changed"]);
    // B's id on A's stream: dropped.
    push(
        &mut h,
        &sa,
        &msg("notifications/prompts/list_changed", &sb.id(), json!({})),
    );
    assert_eq!(received(&h, a).len(), 1);
    assert_eq!(received(&h, b).len(), 1);
    // A drops and reconnects; B carries on.
    h.end(sa.xfer());
    assert_eq!(reconnects(&h, a).len(), 1);
    assert!(reconnects(&h, b).is_empty());
    push(
        &mut h,
        &sb,
        &msg("notifications/prompts/list_changed", &sb.id(), json!({})),
    );
    assert_eq!(received(&h, b).len(), 2);
    // B ends gracefully; A is unaffected.
    push(
        &mut h,
        &sb,
        &json!({"jsonrpc":"2.0","id":sb.id(),"result":{"resultType":"complete"}}),
    );
    assert_eq!(h.ok(b), Value::Null);
    assert!(h.outcome(a).is_none());
    h.advance(500);
    let sa2 = h.take();
    assert_eq!(
        sa2.params()["notifications"],
        json!({"toolsListChanged":true})
    );
    // Aborting A closes its stream.
    h.core.abort(a, Error::abort("bye"), h.now);
    h.pump();
    assert_eq!(h.err(a).kind, ErrorKind::Abort);
    assert!(h.cancelled.contains(&sa2.xfer()));
    assert_eq!(h.core.next_deadline(), None);
}

#[test]
fn notifications_before_the_acknowledgement_are_dropped() {
    let mut h = harness();
    let page = json!({"tools":[],"ttlMs":600_000,"cacheScope":"public"});
    let l = h
        .core
        .request(Purpose::ToolsList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.result(&s, page);
    h.ok(l);
    let op = h.core.listen(&json!({"toolsListChanged":true}), h.now);
    let s = h.take();
    h.sse(
        &s,
        &[msg("notifications/tools/list_changed", &s.id(), json!({}))],
        false,
    );
    assert!(received(&h, op).is_empty());
    assert_eq!(notified(&h, "notifications/tools/list_changed"), 0);
    assert!(
        h.warnings
            .iter()
            .any(|w| w.contains("before the acknowledgement")),
        "{:?}",
        h.warnings
    );
    let l = h
        .core
        .request(Purpose::ToolsList, Map::new(), &opts(), h.now);
    assert!(h.try_take().is_none(), "the cache was not touched");
    h.ok(l);
    push(
        &mut h,
        &s,
        &acknowledged(&s.id(), json!({"toolsListChanged":true})),
    );
    push(
        &mut h,
        &s,
        &msg("notifications/tools/list_changed", &s.id(), json!({})),
    );
    assert_eq!(received(&h, op).len(), 1);
}

#[test]
fn the_servers_notifications_cancelled_ends_the_subscription() {
    let mut h = harness();
    let (op, s) = open(&mut h, json!({"toolsListChanged":true}));
    push(
        &mut h,
        &s,
        &msg(
            "notifications/cancelled",
            &s.id(),
            json!({"requestId": s.id(), "reason":"shutting down"}),
        ),
    );
    assert_eq!(h.ok(op), Value::Null);
    assert!(h.cancelled.contains(&s.xfer()));
    h.advance(60_000);
    assert!(h.try_take().is_none(), "no re-listen");
    assert!(reconnects(&h, op).is_empty());
}

#[test]
fn a_bad_filter_is_a_config_error_and_sends_nothing() {
    let mut h = harness();
    for f in [
        json!([]),
        json!({"toolsListChanged":"yes"}),
        json!({"resourceSubscriptions":"file:///a"}),
        json!({"resourceSubscriptions":[1]}),
    ] {
        let op = h.core.listen(&f, h.now);
        assert_eq!(h.err(op).kind, ErrorKind::Config, "{f}");
    }
    assert!(h.history.is_empty());
}

#[test]
fn a_change_notification_on_a_request_stream_reaches_the_host_and_the_request_completes() {
    let mut h = harness();
    let page = json!({"prompts":[{"name":"a"}],"ttlMs":600_000,"cacheScope":"public"});
    let l = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.result(&s, page);
    h.ok(l);
    let op = h
        .core
        .request(Purpose::Prompt, params(json!({"name":"a"})), &opts(), h.now);
    let s = h.take();
    h.sse(
        &s,
        &[
            json!({"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{}}),
            json!({"jsonrpc":"2.0","id":s.id(),"result":{"messages":[]}}),
        ],
        true,
    );
    assert_eq!(notified(&h, "notifications/prompts/list_changed"), 1);
    assert!(
        h.ok(op)["messages"].is_array(),
        "the request still completes"
    );
    let l = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    assert_eq!(h.take().method(), "prompts/list", "the cache was dropped");
    assert!(h.outcome(l).is_none());
}
