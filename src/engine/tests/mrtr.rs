//! Multi round-trip requests: `input_required`, handlers, retries.

use crate::engine::actions::{AskScope, OpId, OpOptions};
use crate::engine::config::{Config, ElicitationModes, SamplingSupport, VersionChoice};
use crate::engine::testkit::*;
use crate::error::{Error, ErrorKind};
use crate::json;
use crate::json::{Map, Value};
use crate::protocol::input::InputKind;

fn cfg() -> Config {
    let mut c = Config::new("http://mcp.test/mcp");
    c.version = VersionChoice::Pinned("2026-07-28".into());
    c.elicitation = Some(ElicitationModes {
        form: true,
        url: true,
    });
    c.sampling = Some(SamplingSupport::default());
    c.roots = true;
    c
}

fn elicit(msg: &str) -> Value {
    json!({"method":"elicitation/create","params":{"message":msg,"requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}})
}

/// Starts a `prompts/get` (no tools/list first) and returns the op and its first request.
fn start(h: &mut Harness) -> (OpId, Sent) {
    let mut p = Map::new();
    p.insert("name".into(), "p".into());
    p.insert("arguments".into(), json!({"a":"1"}));
    let op = h
        .core
        .request(Purpose::Prompt, p, &OpOptions::default(), h.now);
    let s = h.take();
    (op, s)
}

#[test]
fn elicitation_round_trip_echoes_request_state_byte_exact() {
    let mut h = Harness::new(cfg());
    let (op, s1) = start(&mut h);
    // The raw token includes escapes that a re-encoding would change.
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"resultType":"input_required","inputRequests":{{"k1":{}}},"requestState":"\u00e9t\u00e9\/\ud83c\udf89 {{\"odd\":[1,2]}}"}}}}"#,
        s1.id(),
        elicit("Name?")
    );
    h.head(s1.xfer(), 200, Some("application/json"));
    h.chunk(s1.xfer(), body.as_bytes());
    h.end(s1.xfer());
    assert_eq!(h.asks.len(), 1);
    let a = h.asks[0].clone();
    assert_eq!(
        (a.kind, a.scope, a.key.as_str(), a.method.as_str()),
        (
            InputKind::Elicitation,
            AskScope::Request,
            "k1",
            "prompts/get"
        )
    );
    assert_eq!(a.params["message"], "Name?");
    assert!(
        h.try_take().is_none(),
        "nothing is sent while the host answers"
    );
    h.answer(
        a.id,
        Ok(json!({"action":"accept","content":{"name":"Ada"}})),
    );
    let s2 = h.take();
    assert_ne!(s1.id(), s2.id());
    assert_eq!(s2.header("mcp-name"), s1.header("mcp-name"));
    assert_eq!(s2.params()["name"], "p");
    assert_eq!(s2.params()["arguments"], json!({"a":"1"}));
    assert_eq!(
        s2.params()["inputResponses"],
        json!({"k1":{"action":"accept","content":{"name":"Ada"}}})
    );
    let raw = s2.req.body_text().unwrap();
    assert!(
        raw.contains(r#""requestState":"\u00e9t\u00e9\/\ud83c\udf89 {\"odd\":[1,2]}""#),
        "{raw}"
    );
    h.result(&s2, json!({"messages":[]}));
    assert!(h.ok(op)["messages"].is_array());
}

#[test]
fn two_rounds_then_result() {
    let mut h = Harness::new(cfg());
    let (op, s1) = start(&mut h);
    h.result(&s1, json!({"resultType":"input_required","inputRequests":{"a":elicit("1")},"requestState":"s1"}));
    let a = h.asks.pop().unwrap();
    h.answer(a.id, Ok(json!({"action":"accept","content":{"name":"x"}})));
    let s2 = h.take();
    assert_eq!(s2.params()["requestState"], "s1");
    h.result(
        &s2,
        json!({"resultType":"input_required","inputRequests":{"b":elicit("2")}}),
    );
    let b = h.asks.pop().unwrap();
    assert_eq!(b.key, "b");
    h.answer(b.id, Ok(json!({"action":"decline"})));
    let s3 = h.take();
    assert!(
        s3.params().get("requestState").is_none(),
        "no requestState when none was sent"
    );
    assert_eq!(
        s3.params()["inputResponses"],
        json!({"b":{"action":"decline"}})
    );
    h.result(&s3, json!({"messages":[]}));
    h.ok(op);
}

#[test]
fn request_state_only_is_retried_at_once_and_counts_as_a_round() {
    let mut c = cfg();
    c.limits.max_input_rounds = 3;
    let mut h = Harness::new(c);
    let (op, mut s) = start(&mut h);
    for i in 0..3 {
        h.result(
            &s,
            json!({"resultType":"input_required","requestState":format!("r{i}")}),
        );
        s = h.take();
        assert_eq!(s.params()["requestState"], format!("r{i}"));
        assert!(s.params().get("inputResponses").is_none());
    }
    h.result(
        &s,
        json!({"resultType":"input_required","requestState":"again"}),
    );
    let e = h.err(op);
    assert_eq!(e.kind, ErrorKind::InputRequired);
    assert!(h.try_take().is_none());
}

#[test]
fn handlers_run_concurrently_and_answers_are_keyed() {
    let mut h = Harness::new(cfg());
    let (op, s) = start(&mut h);
    h.result(
        &s,
        json!({"resultType":"input_required","inputRequests":{
            "e":elicit("x"),
            "s":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}},
            "r":{"method":"roots/list"}}}),
    );
    assert_eq!(h.asks.len(), 3, "all presented at once");
    let asks = h.asks.clone();
    // Answer in reverse order.
    h.answer(asks[2].id, Ok(json!({"roots":[{"uri":"file:///a"}]})));
    h.answer(
        asks[1].id,
        Ok(json!({"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"})),
    );
    assert!(h.try_take().is_none());
    h.answer(asks[0].id, Ok(json!({"action":"cancel"})));
    let s2 = h.take();
    let r = &s2.params()["inputResponses"];
    assert_eq!(r["r"]["roots"][0]["uri"], "file:///a");
    assert_eq!(r["s"]["model"], "m");
    assert_eq!(r["e"]["action"], "cancel");
    h.result(&s2, json!({"messages":[]}));
    h.ok(op);
}

#[test]
fn concurrency_cap_queues_inputs() {
    let mut c = cfg();
    c.limits.max_concurrent_inputs = 1;
    let mut h = Harness::new(c);
    let (_op, s) = start(&mut h);
    h.result(
        &s,
        json!({"resultType":"input_required","inputRequests":{"a":elicit("1"),"b":elicit("2")}}),
    );
    assert_eq!(h.asks.len(), 1);
    let a = h.asks[0].clone();
    h.answer(a.id, Ok(json!({"action":"decline"})));
    assert_eq!(h.asks.len(), 2);
    assert_eq!(h.asks[1].key, "b");
}

#[test]
fn a_handler_that_throws_ends_the_call_and_nothing_is_sent() {
    let mut h = Harness::new(cfg());
    let (op, s) = start(&mut h);
    h.result(
        &s,
        json!({"resultType":"input_required","inputRequests":{"a":elicit("1"),"b":elicit("2")}}),
    );
    let a = h.asks[0].clone();
    h.answer(a.id, Err(Error::handler(Some(7), "nope")));
    let e = h.err(op);
    assert_eq!((e.kind, e.host_ref), (ErrorKind::Handler, Some(7)));
    assert!(
        h.cancelled_asks.contains(&h.asks[1].id),
        "the other handler's signal fires"
    );
    assert!(h.try_take().is_none());
}

#[test]
fn abort_while_a_handler_waits_cancels_its_signal_and_sends_nothing() {
    let mut h = Harness::new(cfg());
    let (op, s) = start(&mut h);
    h.result(
        &s,
        json!({"resultType":"input_required","inputRequests":{"a":elicit("1")}}),
    );
    let a = h.asks[0].clone();
    h.core.abort(op, Error::abort("bye"), h.now);
    h.pump();
    assert_eq!(h.err(op).kind, ErrorKind::Abort);
    assert!(h.cancelled_asks.contains(&a.id));
    h.answer(
        a.id,
        Ok(json!({"action":"accept","content":{"name":"late"}})),
    );
    assert!(h.try_take().is_none());
}

#[test]
fn undeclared_kinds_fail_without_calling_a_handler() {
    let cases = [
        json!({"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://x.test/"}}),
        json!({"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1,"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}),
        json!({"method":"roots/list"}),
        json!({"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}),
    ];
    for (i, req) in cases.iter().enumerate() {
        let mut c = cfg();
        c.elicitation = Some(ElicitationModes {
            form: true,
            url: false,
        });
        c.roots = false;
        if i == 3 {
            c.sampling = None;
        }
        let mut h = Harness::new(c);
        let (op, s) = start(&mut h);
        h.result(
            &s,
            json!({"resultType":"input_required","inputRequests":{"k":req}}),
        );
        let e = h.err(op);
        assert_eq!(e.kind, ErrorKind::InputRequired, "{req}");
        assert_eq!(e.data.unwrap()["reason"], "undeclared");
        assert!(h.asks.is_empty());
    }
}

#[test]
fn malformed_input_requests_are_typed_errors() {
    for bad in [
        json!({"resultType":"input_required","inputRequests":{"k":{"method":"ping","params":{}}}}),
        json!({"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create"}}}),
        json!({"resultType":"input_required","inputRequests":[]}),
        json!({"resultType":"input_required","requestState":5}),
        json!({"resultType":"input_required"}),
    ] {
        let mut h = Harness::new(cfg());
        let (op, s) = start(&mut h);
        h.result(&s, bad.clone());
        assert_eq!(h.err(op).kind, ErrorKind::InvalidResult, "{bad}");
        assert!(h.asks.is_empty());
    }
}

#[test]
fn human_time_does_not_count_against_the_timeout() {
    let mut h = Harness::new(cfg());
    let mut p = Map::new();
    p.insert("name".into(), "p".into());
    let op = h.core.request(
        Purpose::Prompt,
        p,
        &OpOptions {
            timeout_ms: Some(1000),
            ..Default::default()
        },
        h.now,
    );
    let s = h.take();
    h.advance(600);
    h.result(
        &s,
        json!({"resultType":"input_required","inputRequests":{"a":elicit("1")}}),
    );
    assert_eq!(
        h.core.next_deadline(),
        None,
        "no timer while only the person is awaited"
    );
    h.advance(3_600_000);
    assert!(h.outcome(op).is_none());
    let a = h.asks[0].clone();
    h.answer(a.id, Ok(json!({"action":"decline"})));
    let s2 = h.take();
    h.advance(399);
    assert!(h.outcome(op).is_none());
    h.advance(1);
    assert_eq!(h.err(op).kind, ErrorKind::Timeout);
    assert!(h.cancelled.contains(&s2.xfer()));
}

#[test]
fn the_hard_maximum_still_applies_during_human_time() {
    let mut h = Harness::new(cfg());
    let mut p = Map::new();
    p.insert("name".into(), "p".into());
    let o = OpOptions {
        timeout_ms: Some(1000),
        max_total_timeout_ms: Some(10_000),
        ..Default::default()
    };
    let op = h.core.request(Purpose::Prompt, p, &o, h.now);
    let s = h.take();
    h.result(
        &s,
        json!({"resultType":"input_required","inputRequests":{"a":elicit("1")}}),
    );
    h.advance(10_000);
    assert_eq!(h.err(op).kind, ErrorKind::Timeout);
    assert!(h.cancelled_asks.contains(&h.asks[0].id));
}

#[test]
fn input_responses_never_leak_to_other_requests() {
    let mut h = Harness::new(cfg());
    let (_op, s) = start(&mut h);
    h.result(&s, json!({"resultType":"input_required","inputRequests":{"a":elicit("1")},"requestState":"secret"}));
    let other = h.core.request(
        Purpose::PromptsList,
        Map::new(),
        &OpOptions::default(),
        h.now,
    );
    let s_other = h.take();
    assert!(s_other.params().get("inputResponses").is_none());
    assert!(s_other.params().get("requestState").is_none());
    let a = h.asks[0].clone();
    h.answer(a.id, Ok(json!({"action":"decline"})));
    let retry = h.take();
    assert_eq!(retry.method(), "prompts/get");
    h.result(&s_other, json!({"prompts":[]}));
    h.ok(other);
}

#[test]
fn url_elicitation_carries_the_url_facts() {
    let mut h = Harness::new(cfg());
    let (_op, s) = start(&mut h);
    h.result(
        &s,
        json!({"resultType":"input_required","inputRequests":{"u":{"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://auth.example.com/x?y=1"}}}}),
    );
    let a = h.asks[0].clone();
    let u = a.url.expect("url facts");
    assert_eq!(u.url, "https://auth.example.com/x?y=1");
}

/// Answers `s1` with one round asking for a name, answers it as the person, and returns the
/// retry carrying the answer.
fn answer_round(h: &mut Harness, s1: &Sent) -> Sent {
    h.result(
        s1,
        json!({"resultType":"input_required","inputRequests":{"k":elicit("Name?")},"requestState":"s1"}),
    );
    let a = h.asks.pop().unwrap();
    h.answer(
        a.id,
        Ok(json!({"action":"accept","content":{"name":"Ada"}})),
    );
    let s2 = h.take();
    assert_eq!(
        s2.params()["inputResponses"],
        json!({"k":{"action":"accept","content":{"name":"Ada"}}})
    );
    s2
}

/// Answers the first round's elicitation and returns the op and the retry carrying it.
fn answered_retry(h: &mut Harness) -> (OpId, Sent) {
    let (op, s1) = start(h);
    let s2 = answer_round(h, &s1);
    (op, s2)
}

#[test]
fn a_retry_carrying_answers_whose_fetch_fails_is_sent_once_more_with_them() {
    // Firefox rejects the fetch of a response cut after its head and before any body byte;
    // the person's answers are sent again, not lost and not asked for again.
    let mut h = Harness::new(cfg());
    let (op, s2) = answered_retry(&mut h);
    h.fail(s2.xfer(), Error::network("fetch failed: NetworkError"));
    let s3 = h.take();
    assert_ne!(s3.id(), s2.id(), "a new request id");
    assert_eq!(
        s3.params(),
        s2.params(),
        "the same params, answers and state"
    );
    assert!(h.asks.is_empty(), "the person is not asked again");
    assert!(h.outcome(op).is_none());
    h.result(&s3, json!({"messages":[]}));
    assert!(h.ok(op)["messages"].is_array());
}

#[test]
fn a_retry_carrying_answers_is_sent_once_more_only_once() {
    let mut h = Harness::new(cfg());
    let (op, s2) = answered_retry(&mut h);
    h.fail(s2.xfer(), Error::network("fetch failed"));
    let s3 = h.take();
    h.fail(s3.xfer(), Error::network("fetch failed again"));
    let e = h.err(op);
    assert_eq!(e.kind, ErrorKind::Network);
    assert!(
        e.message.contains("again"),
        "the last failure: {}",
        e.message
    );
    assert!(h.try_take().is_none(), "nothing more is sent");
    assert!(h.asks.is_empty());
}

/// Answers `s` with HTTP `status`, a plain-text body and, when given, `Retry-After: secs`.
fn refused(h: &mut Harness, s: &Sent, status: u16, retry_after: Option<&str>) {
    h.core.on_head(
        s.xfer(),
        crate::engine::core::ResponseHead {
            status,
            content_type: Some("text/plain"),
            retry_after,
            ..Default::default()
        },
        h.now,
    );
    h.pump();
    h.chunk(s.xfer(), b"busy");
    h.end(s.xfer());
}

#[test]
fn a_retry_carrying_answers_refused_for_a_while_is_sent_again_after_its_retry_after() {
    // 503 / 429 with Retry-After, and 502 / 504 without (then 1 s): the same answers go
    // again, once, when the server said it would take them; the person is not asked again.
    for (status, retry_after, wait) in [
        (503, Some("2"), 2000),
        (429, Some("1"), 1000),
        (502, None, 1000),
        (504, None, 1000),
    ] {
        let mut h = Harness::new(cfg());
        let (op, s2) = answered_retry(&mut h);
        refused(&mut h, &s2, status, retry_after);
        assert!(h.outcome(op).is_none(), "{status}: the call goes on");
        h.advance(wait - 1);
        assert!(h.try_take().is_none(), "{status}: not before {wait} ms");
        h.advance(1);
        let s3 = h.take();
        assert_ne!(s3.id(), s2.id(), "{status}: a new request id");
        assert_eq!(
            s3.params(),
            s2.params(),
            "{status}: the same answers and state"
        );
        assert!(h.asks.is_empty(), "{status}: the person is not asked again");
        // Once only: a second refusal ends the call with it.
        refused(&mut h, &s3, status, retry_after);
        let e = h.err(op);
        assert_eq!((e.kind, e.status), (ErrorKind::Http, Some(status)));
        h.advance(60_000);
        assert!(h.try_take().is_none(), "{status}: nothing more is sent");
    }
}

#[test]
fn a_refused_retry_is_not_sent_again_past_the_calls_budget_nor_for_a_lasting_refusal() {
    // A Retry-After past the call's time budget: the refusal ends the call at once.
    let mut h = Harness::new(cfg());
    let (op, s2) = answered_retry(&mut h);
    refused(&mut h, &s2, 503, Some("3600"));
    assert_eq!(h.err(op).status, Some(503));
    assert!(h.try_take().is_none());
    // 400, 403, 404: not a refusal for a while.
    for status in [400, 403, 404] {
        let mut h = Harness::new(cfg());
        let (op, s2) = answered_retry(&mut h);
        refused(&mut h, &s2, status, Some("1"));
        assert_eq!(h.err(op).status, Some(status));
        h.advance(5000);
        assert!(h.try_take().is_none(), "{status}");
    }
    // The first request carries no answers: its 503 ends the call, as before.
    let mut h = Harness::new(cfg());
    let (op, s1) = start(&mut h);
    refused(&mut h, &s1, 503, Some("1"));
    assert_eq!(h.err(op).status, Some(503));
    h.advance(5000);
    assert!(h.try_take().is_none());
}

#[test]
fn only_a_network_failure_of_a_retry_carrying_answers_sends_it_once_more() {
    // The first request carries no answers: its failure ends the call, as before.
    let mut h = Harness::new(cfg());
    let (op, s1) = start(&mut h);
    h.fail(s1.xfer(), Error::network("connection refused"));
    assert_eq!(h.err(op).kind, ErrorKind::Network);
    assert!(h.try_take().is_none());
    // A failure of another kind (here a configuration error) ends a retry too.
    let mut h = Harness::new(cfg());
    let (op, s2) = answered_retry(&mut h);
    h.fail(s2.xfer(), Error::new(ErrorKind::Config, "bad header"));
    assert_eq!(h.err(op).kind, ErrorKind::Config);
    assert!(h.try_take().is_none());
}

#[test]
fn a_retry_carrying_answers_that_fails_offline_is_sent_again_once_online() {
    let mut h = Harness::new(cfg());
    let (op, s2) = answered_retry(&mut h);
    let now = h.now;
    h.core.set_online(false, now);
    h.fail(s2.xfer(), Error::network("fetch failed: offline"));
    assert!(h.try_take().is_none(), "sent again while offline");
    h.advance(30_000);
    assert!(h.try_take().is_none(), "sent while offline");
    assert!(h.outcome(op).is_none(), "the call waits");
    let now = h.now;
    h.core.set_online(true, now);
    let s3 = h.take();
    assert_ne!(s3.id(), s2.id());
    assert_eq!(s3.params(), s2.params(), "the same answers");
    assert!(h.asks.is_empty(), "the person is not asked again");
    h.result(&s3, json!({"messages":[]}));
    assert!(h.ok(op)["messages"].is_array());
    // Once only: nothing more goes out at the next change.
    let now = h.now;
    h.core.set_online(false, now);
    h.core.set_online(true, now);
    assert!(h.try_take().is_none());
}

#[test]
fn a_retry_held_offline_still_times_out() {
    let mut h = Harness::new(cfg());
    let (op, s2) = answered_retry(&mut h);
    let now = h.now;
    h.core.set_online(false, now);
    h.fail(s2.xfer(), Error::network("fetch failed: offline"));
    h.advance(60_000);
    assert_eq!(h.err(op).kind, ErrorKind::Timeout);
    let now = h.now;
    h.core.set_online(true, now);
    assert!(h.try_take().is_none(), "a call that ended sends nothing");
}

#[test]
fn a_tool_calls_retry_that_fails_offline_is_sent_again_once_online() {
    let mut h = Harness::new(cfg());
    let l = h
        .core
        .list_all(Listing::Tools, &OpOptions::default(), h.now);
    let s = h.take();
    h.result(&s, tools_page(vec![tool("echo")], None));
    assert!(h.outcome(l).is_some_and(|o| o.is_ok()));
    let op = h.core.call_tool_json(
        "echo",
        Some(r#"{"a":1}"#.into()),
        false,
        &OpOptions::default(),
        h.now,
    );
    let s1 = h.take();
    let s2 = answer_round(&mut h, &s1);
    assert_eq!(s2.method(), "tools/call");
    let now = h.now;
    h.core.set_online(false, now);
    h.fail(s2.xfer(), Error::network("fetch failed: offline"));
    assert!(h.try_take().is_none(), "sent again while offline");
    let now = h.now;
    h.core.set_online(true, now);
    let s3 = h.take();
    assert_eq!(s3.params(), s2.params(), "the same arguments and answers");
    assert_eq!(
        s3.params()["inputResponses"],
        json!({"k":{"action":"accept","content":{"name":"Ada"}}})
    );
    h.result(&s3, json!({"content":[{"type":"text","text":"ok"}]}));
    assert_eq!(h.ok(op)["content"][0]["text"], "ok");
}

#[test]
fn a_retry_carrying_answers_whose_stream_breaks_offline_is_sent_again_once_online() {
    let mut h = Harness::new(cfg());
    let (op, s2) = answered_retry(&mut h);
    let now = h.now;
    h.core.set_online(false, now);
    h.sse(&s2, &[], true);
    assert!(h.try_take().is_none(), "sent again while offline");
    let now = h.now;
    h.core.set_online(true, now);
    let s3 = h.take();
    assert_eq!(s3.params(), s2.params(), "the same answers");
    assert!(h.asks.is_empty(), "the person is not asked again");
    h.result(&s3, json!({"messages":[]}));
    assert!(h.ok(op)["messages"].is_array());
}

#[test]
fn a_broken_stream_without_answers_is_reissued_at_once_even_offline() {
    // Only a retry carrying answers waits for online: other requests keep their one
    // re-issue at once (their failure offline then ends the call, as before).
    let mut h = Harness::new(cfg());
    let (_op, s1) = start(&mut h);
    let now = h.now;
    h.core.set_online(false, now);
    h.sse(&s1, &[], true);
    let s2 = h.take();
    assert_ne!(s2.id(), s1.id());
    assert!(s2.params().get("inputResponses").is_none());
}
