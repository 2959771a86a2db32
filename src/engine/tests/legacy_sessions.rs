//! Legacy sessions ending and starting again: 2024-11-05 HTTP+SSE streams lost or never
//! opened, 2025-11-25 sessions expired (404), and the calls waiting for a session.

use super::legacy::{answer_initialize, auto, init_result, legacy, opts};
use crate::engine::actions::{OpId, OpOptions};
use crate::engine::config::{Config, VersionChoice};
use crate::engine::testkit::*;
use crate::error::ErrorKind;
use crate::json;
use crate::json::{Map, Value};

fn sse_config() -> Config {
    let mut c = auto();
    c.version = VersionChoice::Pinned("2024-11-05".into());
    c
}

/// Sends an SSE event of type `event` with `data` on `s`'s stream.
fn event(h: &mut Harness, s: &Sent, event: &str, data: &str) {
    h.chunk(
        s.xfer(),
        format!("event: {event}\ndata: {data}\n\n").as_bytes(),
    );
}

/// Drives a pinned 2024-11-05 client whose session is not open (a first one, or after
/// the last was lost) through a new one: its operation `op` (page 1 of prompts/list) is
/// answered. Returns the HTTP+SSE stream (still open).
fn open_sse(h: &mut Harness, op: OpId) -> Sent {
    let get = h.take();
    assert_eq!(get.req.method.as_str(), "GET");
    h.head(get.xfer(), 200, Some("text/event-stream"));
    event(h, &get, "endpoint", "/messages?session_id=abc");
    let init = h.take();
    assert_eq!(init.method(), "initialize");
    h.accepted(&init);
    let r = json!({"jsonrpc":"2.0","id":init.id(),"result":init_result("2024-11-05", json!({}))});
    event(h, &get, "message", &r.to_string());
    let n = h.take();
    assert_eq!(n.method(), "notifications/initialized");
    h.accepted(&n);
    let req = h.take();
    assert_eq!(req.method(), "prompts/list");
    h.accepted(&req);
    let r = json!({"jsonrpc":"2.0","id":req.id(),"result":{"prompts":[]}});
    event(h, &get, "message", &r.to_string());
    h.ok(op);
    get
}

fn elicitation(id: u64, message: &str) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":"elicitation/create","params":{"message":message,"requestedSchema":{"type":"object","properties":{}}}}).to_string()
}

#[test]
fn a_new_http_sse_session_asks_again_for_an_id_the_last_session_used() {
    // The Python SDK numbers a session's server requests from 0: request 0 of the next
    // session is another question, and its answer is the person's to give.
    let mut h = Harness::new(sse_config());
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let get = open_sse(&mut h, op);
    event(&mut h, &get, "message", &elicitation(0, "Password for A?"));
    assert_eq!(h.asks.len(), 1);
    let ask = h.asks[0].id;
    h.answer(ask, Ok(json!({"action":"accept","content":{}})));
    let resp = h.take();
    assert_eq!(resp.body["id"], 0);
    h.accepted(&resp);
    // The server ends the stream: the session is gone.
    h.end(get.xfer());
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let get2 = open_sse(&mut h, op);
    event(
        &mut h,
        &get2,
        "message",
        &elicitation(0, "Which account to delete?"),
    );
    assert_eq!(h.asks.len(), 2, "the new session's request 0 is asked");
    assert!(
        h.try_take().is_none(),
        "the last session's answer is not sent to the new one"
    );
}

#[test]
fn a_resumed_2025_stream_replaying_a_request_gets_the_stored_answer() {
    // What the person answered is not asked again within one session.
    let mut h = legacy(json!({}));
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.head(s.xfer(), 200, Some("text/event-stream"));
    h.chunk(
        s.xfer(),
        format!("id: e1\ndata: {}\n\n", elicitation(7, "Name?")).as_bytes(),
    );
    let ask = h.asks[0].id;
    h.answer(ask, Ok(json!({"action":"decline"})));
    let resp = h.take();
    h.accepted(&resp);
    h.end(s.xfer());
    h.advance_to_deadline();
    let g = h.take();
    assert_eq!(g.header("last-event-id"), Some("e1"));
    h.head(g.xfer(), 200, Some("text/event-stream"));
    h.chunk(
        g.xfer(),
        format!("id: e1\ndata: {}\n\n", elicitation(7, "Name?")).as_bytes(),
    );
    assert_eq!(h.asks.len(), 1, "not asked again");
    let again = h.take();
    assert_eq!(again.body, resp.body);
    let r = json!({"jsonrpc":"2.0","id":s.id(),"result":{"prompts":[]}});
    h.chunk(g.xfer(), format!("id: e2\ndata: {r}\n\n").as_bytes());
    h.ok(op);
}

#[test]
fn an_http_sse_stream_without_an_answer_times_out() {
    let mut h = Harness::new(sse_config());
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let get = h.take();
    assert_eq!(get.req.method.as_str(), "GET");
    let d = h.core.next_deadline().expect("the opening has a deadline");
    assert_eq!(d, h.now + h.core.config().request_timeout_ms);
    h.advance_to_deadline();
    assert_eq!(h.err(op).kind, ErrorKind::Timeout);
    assert!(h.cancelled.contains(&get.xfer()), "the stream is closed");
    assert_eq!(h.core.next_deadline(), None);
}

#[test]
fn an_http_sse_stream_that_never_sends_endpoint_times_out() {
    let mut h = Harness::new(sse_config());
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let get = h.take();
    h.head(get.xfer(), 200, Some("text/event-stream"));
    h.chunk(get.xfer(), b": keep-alive\n\n");
    h.advance(h.core.config().request_timeout_ms);
    assert_eq!(h.err(op).kind, ErrorKind::Timeout);
    // The next call opens a new stream.
    let op2 = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    open_sse(&mut h, op2);
}

#[test]
fn a_first_http_sse_event_other_than_endpoint_is_a_protocol_error() {
    for (ev, data) in [
        ("message", elicitation(0, "Name?")),
        ("ping", "x".to_string()),
    ] {
        let mut h = Harness::new(sse_config());
        let op = h
            .core
            .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
        let get = h.take();
        h.head(get.xfer(), 200, Some("text/event-stream"));
        event(&mut h, &get, ev, &data);
        assert_eq!(h.err(op).kind, ErrorKind::Protocol, "{ev}");
        assert!(h.asks.is_empty(), "{ev}");
        assert!(h.cancelled.contains(&get.xfer()), "{ev}");
    }
}

#[test]
fn accepted_http_sse_calls_fail_at_once_when_the_stream_is_lost() {
    let mut h = Harness::new(sse_config());
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let get = open_sse(&mut h, op);
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let req = h.take();
    h.accepted(&req);
    assert!(h.outcome(op).is_none());
    h.end(get.xfer());
    assert_eq!(h.err(op).kind, ErrorKind::Network);
    assert!(h.try_take().is_none(), "nothing is re-sent");
    assert_eq!(h.core.ops_in_flight(), 0);
}

#[test]
fn a_parked_call_honours_its_own_timeouts() {
    let mut h = Harness::new(auto());
    let soft = OpOptions {
        timeout_ms: Some(1_000),
        ..opts()
    };
    let hard = OpOptions {
        max_total_timeout_ms: Some(2_000),
        ..opts()
    };
    let a = h
        .core
        .request(Purpose::PromptsList, Map::new(), &soft, h.now);
    let b = h
        .core
        .request(Purpose::PromptsList, Map::new(), &hard, h.now);
    let probe = h.take();
    assert_eq!(probe.method(), "server/discover");
    h.advance(1_000);
    assert_eq!(h.err(a).kind, ErrorKind::Timeout, "timeoutMs while parked");
    assert!(h.outcome(b).is_none());
    h.advance(500);
    h.reply(&probe, 400, Value::Null);
    let init = h.take();
    answer_initialize(&mut h, &init, "S1", json!({}));
    let n = h.take();
    h.accepted(&n);
    let get = h.take();
    h.head(get.xfer(), 405, None);
    let req = h.take();
    assert_eq!(req.method(), "prompts/list");
    // b was parked 1.5 s of its 2 s: 0.5 s are left.
    h.advance(499);
    assert!(h.outcome(b).is_none());
    h.advance(1);
    assert_eq!(
        h.err(b).kind,
        ErrorKind::Timeout,
        "maxTotalTimeoutMs counts from the start"
    );
    assert!(h.core.is_quiet(), "{:?}", h.core.busy());
}

/// A pinned 2025-11-25 client whose session "S1" is ready with its GET stream open (the
/// stream returned); a first prompts/list was answered.
fn session_with_get_stream() -> (Harness, Sent) {
    let mut c = auto();
    c.version = VersionChoice::Pinned("2025-11-25".into());
    let mut h = Harness::new(c);
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let init = h.take();
    answer_initialize(&mut h, &init, "S1", json!({}));
    let n = h.take();
    h.accepted(&n);
    let get = h.take();
    assert_eq!(get.req.method.as_str(), "GET");
    h.head(get.xfer(), 200, Some("text/event-stream"));
    let req = h.take();
    h.result(&req, json!({"prompts":[]}));
    h.ok(op);
    (h, get)
}

/// Answers a new session's `initialize` with `session` and its initialized; returns the
/// new GET stream.
fn reinitialize(h: &mut Harness, session: &str) -> Sent {
    let init = h.take();
    assert_eq!(init.method(), "initialize");
    assert_eq!(init.header("mcp-session-id"), None);
    answer_initialize(h, &init, session, json!({}));
    let n = h.take();
    assert_eq!(n.header("mcp-session-id"), Some(session));
    h.accepted(&n);
    let get = h.take();
    assert_eq!(get.req.method.as_str(), "GET");
    assert_eq!(get.header("mcp-session-id"), Some(session));
    get
}

fn session_not_found() -> Value {
    json!({"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}})
}

#[test]
fn a_404_on_the_get_stream_starts_a_new_session() {
    // 2025-11-25 basic/transports "Session Management" 4: a 404 to a request carrying
    // MCP-Session-Id, the GET stream included.
    let (mut h, get) = session_with_get_stream();
    assert_eq!(get.header("mcp-session-id"), Some("S1"));
    h.reply(&get, 404, session_not_found());
    let get2 = reinitialize(&mut h, "S2");
    h.head(get2.xfer(), 200, Some("text/event-stream"));
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let req = h.take();
    assert_eq!(req.header("mcp-session-id"), Some("S2"));
    h.result(&req, json!({"prompts":[]}));
    h.ok(op);
}

/// A server that answers every GET stream with 404 (a fresh session's too) does not make
/// the client start sessions for ever: after three in a row the GET stream is given up;
/// requests still work, and a GET stream that opens resets the count.
#[test]
fn a_get_stream_refused_with_404_every_time_starts_three_sessions_at_most() {
    let (mut h, get) = session_with_get_stream();
    h.reply(&get, 404, session_not_found());
    let mut get = reinitialize(&mut h, "S2");
    for n in 3..=4 {
        h.reply(&get, 404, session_not_found());
        get = reinitialize(&mut h, &format!("S{n}"));
    }
    h.reply(&get, 404, session_not_found());
    assert!(h.try_take().is_none(), "no fifth session at once");
    // The GET stream is then retried as a dropped one is: with back-off, a bounded number
    // of times, and never a new session.
    let mut retries = 0;
    for _ in 0..20 {
        h.advance(60_000);
        let Some(g) = h.try_take() else { break };
        assert_eq!(g.req.method.as_str(), "GET", "no initialize");
        assert_eq!(g.header("mcp-session-id"), Some("S4"));
        h.reply(&g, 404, session_not_found());
        retries += 1;
    }
    assert!(retries <= 8, "{retries} GET retries");
    assert!(h.try_take().is_none());
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let req = h.take();
    assert_eq!(req.header("mcp-session-id"), Some("S4"));
    h.result(&req, json!({"prompts":[]}));
    h.ok(op);
    // A session whose GET stream opened and later learns of its end from the GET is not
    // counted: sessions that really end keep being replaced.
    let (mut h, mut get) = session_with_get_stream();
    for n in 2..=6 {
        h.reply(&get, 404, session_not_found());
        get = reinitialize(&mut h, &format!("S{n}"));
        h.head(get.xfer(), 200, Some("text/event-stream"));
        h.end(get.xfer());
        h.advance(60_000);
        get = h.take();
        assert_eq!(get.req.method.as_str(), "GET");
        assert_eq!(get.header("mcp-session-id"), Some(format!("S{n}").as_str()));
    }
}

#[test]
fn a_late_404_about_an_ended_session_does_not_end_the_new_one() {
    let (mut h, get) = session_with_get_stream();
    let a = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let b = h
        .core
        .request(Purpose::ToolsList, Map::new(), &opts(), h.now);
    let ra = h.take();
    let rb = h.take();
    assert_eq!(ra.header("mcp-session-id"), Some("S1"));
    // B learns first that S1 ended: S2 starts, B is sent again in it.
    h.reply(&rb, 404, session_not_found());
    assert!(h.cancelled.contains(&get.xfer()));
    let get2 = reinitialize(&mut h, "S2");
    h.head(get2.xfer(), 200, Some("text/event-stream"));
    let rb2 = h.take();
    assert_eq!(rb2.method(), "tools/list");
    assert_eq!(rb2.header("mcp-session-id"), Some("S2"));
    // A's 404 (about S1) arrives once S2 is up: A is sent again in S2, S2 goes on.
    h.reply(&ra, 404, session_not_found());
    let ra2 = h.take();
    assert_eq!(ra2.method(), "prompts/list", "no new initialize");
    assert_eq!(ra2.header("mcp-session-id"), Some("S2"));
    assert!(
        !h.cancelled.contains(&get2.xfer()),
        "S2's stream stays open"
    );
    h.result(&ra2, json!({"prompts":[]}));
    h.result(&rb2, json!({"tools":[]}));
    h.ok(a);
    h.ok(b);
    assert!(h.try_take().is_none());
}

#[test]
fn method_not_found_to_server_discover_means_an_older_server() {
    // A 2025-03-26 server that does not check MCP-Protocol-Version answers the probe with
    // HTTP 200 and -32601 (and a 404 with it is no 2026-07-28 server either).
    for status in [200, 404] {
        let mut h = Harness::new(auto());
        let op = h.core.discover(&opts(), h.now);
        let probe = h.take();
        assert_eq!(probe.method(), "server/discover");
        h.error(&probe, status, -32601, "Method not found", None);
        let init = h.take();
        assert_eq!(init.method(), "initialize", "{status}");
        answer_initialize(&mut h, &init, "S1", json!({}));
        let n = h.take();
        h.accepted(&n);
        assert_eq!(h.ok(op)["serverInfo"]["name"], "old", "{status}");
    }
}
