//! Every way an exchange ends removes every trace of it: after operations that all ended,
//! and after `close()`, [`Core::is_quiet`](crate::engine::core::Core::is_quiet) holds (no
//! exchange, JSON-RPC id, resumption, held request, ask, progress token or timer left).

use super::auth::{cfg as auth_cfg, done_result, read, refuse, www401, AuthServer};
#[cfg(feature = "legacy")]
use super::legacy::{legacy, legacy_task};
use crate::engine::actions::{OpId, OpOptions};
use crate::engine::config::Config;
use crate::engine::core::ResponseHead;
use crate::engine::testkit::*;
use crate::error::{Error, ErrorKind};
use crate::json;
use crate::json::{Map, Value};

fn none() -> Vec<&'static str> {
    Vec::new()
}

fn opts() -> OpOptions {
    OpOptions::default()
}

fn contents() -> Value {
    json!({"resultType":"complete","contents":[]})
}

/// Answers every request still in the outbox the way servers acknowledge what closing
/// sends (`DELETE`, `tasks/cancel`, notifications): 202 without a body.
fn acknowledge_all(h: &mut Harness) {
    while let Some(s) = h.try_take() {
        h.accepted(&s);
    }
}

fn head_with_retry_after(h: &mut Harness, s: &Sent, status: u16, secs: &str) {
    h.core.on_head(
        s.xfer(),
        ResponseHead {
            status,
            content_type: Some("application/json"),
            retry_after: Some(secs),
            ..Default::default()
        },
        h.now,
    );
    h.pump();
}

#[test]
fn calls_errors_failures_timeouts_and_aborts_leave_nothing() {
    let mut h = Harness::modern();
    assert_eq!(h.core.busy(), none(), "a new engine");

    let op = read(&mut h, "a");
    assert!(!h.core.is_quiet(), "a request in flight");
    let s = h.take();
    h.result(&s, contents());
    h.ok(op);
    assert_eq!(h.core.busy(), none(), "after a result");

    let op = read(&mut h, "a");
    let s = h.take();
    h.error(&s, 200, -32602, "no such resource", None);
    h.err(op);
    assert_eq!(h.core.busy(), none(), "after a JSON-RPC error");

    let op = read(&mut h, "a");
    let s = h.take();
    h.reply(&s, 500, json!({"oops": true}));
    h.err(op);
    assert_eq!(h.core.busy(), none(), "after an HTTP error");

    let op = read(&mut h, "a");
    let s = h.take();
    h.fail(s.xfer(), Error::network("down"));
    h.err(op);
    assert_eq!(h.core.busy(), none(), "after a network failure");

    let op = read(&mut h, "a");
    let s = h.take();
    h.head(s.xfer(), 200, Some("text/event-stream"));
    h.core.abort(op, Error::abort("stop"), h.now);
    assert_eq!(h.err(op).kind, ErrorKind::Abort);
    assert_eq!(h.core.busy(), none(), "after an abort mid-stream");

    let budget = OpOptions {
        timeout_ms: Some(100),
        ..opts()
    };
    let mut p = Map::new();
    p.insert("uri".into(), json!("file:///t"));
    let op = h.core.request(Purpose::Read, p, &budget, h.now);
    let _ = h.take();
    h.advance(100);
    assert_eq!(h.err(op).kind, ErrorKind::Timeout);
    assert_eq!(h.core.busy(), none(), "after a timeout");

    let op = h.core.list_all(Listing::Tools, &opts(), h.now);
    let s = h.take();
    h.result(&s, tools_page(vec![tool("a")], Some("c2")));
    let s = h.take();
    h.result(&s, tools_page(vec![tool("b")], None));
    h.ok(op);
    assert_eq!(h.core.busy(), none(), "after a page walk");
}

#[test]
fn an_exchange_cancelled_after_retry_after_leaves_nothing() {
    // Issue 12: `Retry-After` was booked before the exchange was looked up, and a
    // cancelled exchange never took it back.
    let mut h = Harness::modern();
    let op = read(&mut h, "a");
    let s = h.take();
    head_with_retry_after(&mut h, &s, 503, "7");
    h.core.abort(op, Error::abort("stop"), h.now);
    assert_eq!(h.err(op).kind, ErrorKind::Abort);
    assert!(h.cancelled.contains(&s.xfer()));
    assert_eq!(
        h.core.busy(),
        none(),
        "nothing of the aborted exchange is left"
    );

    // A late head for an exchange that is gone books nothing either.
    head_with_retry_after(&mut h, &s, 503, "7");
    h.end(s.xfer());
    assert_eq!(h.core.busy(), none());

    // The Retry-After of a failed request is error data for the host, then forgotten.
    let op = read(&mut h, "b");
    let s = h.take();
    head_with_retry_after(&mut h, &s, 429, "2");
    h.chunk(s.xfer(), b"{}");
    h.end(s.xfer());
    let e = h.err(op);
    assert_eq!(e.kind, ErrorKind::Http);
    assert_eq!(e.data.unwrap()["retryAfterMs"], 2000);
    assert_eq!(h.core.busy(), none());
}

#[test]
fn an_authorized_replay_leaves_nothing() {
    let mut h = Harness::new(auth_cfg("2026-07-28"));
    let mut srv = AuthServer::new();
    let op = read(&mut h, "a");
    let first = h.take();
    refuse(&mut h, &first, 401, &www401());
    assert!(!h.core.is_quiet(), "the refused request is held");
    srv.serve(&mut h);
    let again = h.take();
    assert_ne!(again.xfer(), first.xfer());
    // Events of the refused request are not the replay's.
    h.end(first.xfer());
    assert!(h.outcome(op).is_none());
    h.result(&again, done_result());
    h.ok(op);
    assert_eq!(h.core.busy(), none(), "after the replay's result");

    // Replayed, then aborted: the replay is cancelled under its new id.
    let op = read(&mut h, "b");
    let s = h.take();
    refuse(&mut h, &s, 401, &www401());
    srv.serve(&mut h);
    let again = h.take();
    h.core.abort(op, Error::abort("stop"), h.now);
    h.pump();
    assert!(h.cancelled.contains(&again.xfer()));
    assert_eq!(h.core.busy(), none(), "after aborting a replay");
}

#[test]
fn held_requests_that_end_leave_nothing() {
    // Aborted while held.
    let mut h = Harness::new(auth_cfg("2026-07-28"));
    let mut srv = AuthServer::new();
    let a = read(&mut h, "a");
    let sa = h.take();
    refuse(&mut h, &sa, 401, &www401());
    h.core.abort(a, Error::abort("stop"), h.now);
    srv.serve(&mut h);
    assert_eq!(h.err(a).kind, ErrorKind::Abort);
    assert_eq!(h.core.busy(), none(), "aborted while held");

    // Failed with the flow.
    let mut h = Harness::new(auth_cfg("2026-07-28"));
    let mut srv = AuthServer::new();
    srv.routes.insert(
        "http://mcp.test/.well-known/oauth-protected-resource/mcp".into(),
        (
            200,
            json!({"resource": "https://evil.example.com/mcp", "authorization_servers": ["http://localhost:4000"]}),
        ),
    );
    let (a, b) = (read(&mut h, "a"), read(&mut h, "b"));
    let (sa, sb) = (h.take(), h.take());
    refuse(&mut h, &sa, 401, &www401());
    refuse(&mut h, &sb, 401, &www401());
    srv.serve(&mut h);
    assert_eq!(h.err(a).kind, ErrorKind::Auth);
    assert_eq!(h.err(b).kind, ErrorKind::Auth);
    assert_eq!(h.core.busy(), none(), "failed with the flow");

    // Closed while held (the flow is fetching metadata).
    let mut h = Harness::new(auth_cfg("2026-07-28"));
    let a = read(&mut h, "a");
    let sa = h.take();
    refuse(&mut h, &sa, 401, &www401());
    h.core.close(h.now);
    h.pump();
    assert_eq!(h.err(a).kind, ErrorKind::Abort);
    assert_eq!(h.core.busy(), none(), "closed while held");
}

#[test]
#[cfg(feature = "legacy")]
fn legacy_resumptions_that_end_leave_nothing() {
    let mut h = legacy(json!({}));
    assert_eq!(
        h.core.busy(),
        none(),
        "a ready session whose GET stream was refused"
    );

    // Resumed, then answered on the resumption.
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.head(s.xfer(), 200, Some("text/event-stream"));
    h.chunk(s.xfer(), b"id: ev-1\nretry: 300\ndata: \n\n");
    h.end(s.xfer());
    assert!(!h.core.is_quiet(), "a resumption is scheduled");
    h.advance(300);
    let g = h.take();
    assert_eq!(g.header("last-event-id"), Some("ev-1"));
    h.head(g.xfer(), 200, Some("text/event-stream"));
    let r = json!({"jsonrpc":"2.0","id":s.id(),"result":{"prompts":[]}});
    h.chunk(g.xfer(), format!("id: ev-2\ndata: {r}\n\n").as_bytes());
    h.ok(op);
    assert_eq!(h.core.busy(), none(), "answered on the resumption");

    // Resumption scheduled, then the call timed out.
    let budget = OpOptions {
        timeout_ms: Some(100),
        ..opts()
    };
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &budget, h.now);
    let s = h.take();
    h.head(s.xfer(), 200, Some("text/event-stream"));
    h.chunk(s.xfer(), b"id: e\nretry: 1000\ndata: \n\n");
    h.end(s.xfer());
    h.advance(100);
    assert_eq!(h.err(op).kind, ErrorKind::Timeout);
    acknowledge_all(&mut h); // notifications/cancelled
    assert_eq!(
        h.core.busy(),
        none(),
        "a scheduled resumption of a call that ended"
    );

    // Resumption open, then the call was aborted.
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.head(s.xfer(), 200, Some("text/event-stream"));
    h.chunk(s.xfer(), b"id: e\nretry: 10\ndata: \n\n");
    h.end(s.xfer());
    h.advance(10);
    let g = h.take();
    h.head(g.xfer(), 200, Some("text/event-stream"));
    h.core.abort(op, Error::abort("stop"), h.now);
    h.pump();
    assert!(h.cancelled.contains(&g.xfer()));
    acknowledge_all(&mut h);
    assert_eq!(
        h.core.busy(),
        none(),
        "an open resumption of a call that ended"
    );

    // Resumption scheduled when the client closed.
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.head(s.xfer(), 200, Some("text/event-stream"));
    h.chunk(s.xfer(), b"id: e\nretry: 1000\ndata: \n\n");
    h.end(s.xfer());
    h.core.close(h.now);
    h.pump();
    assert_eq!(h.err(op).kind, ErrorKind::Abort);
    acknowledge_all(&mut h); // DELETE, notifications/cancelled
    assert_eq!(h.core.busy(), none(), "closed with a resumption scheduled");
}

#[test]
#[cfg(feature = "legacy")]
fn a_legacy_task_poll_resumption_leaves_nothing() {
    let (mut h, op, poll) = legacy_task(1_000);
    h.head(poll.xfer(), 200, Some("text/event-stream"));
    h.chunk(poll.xfer(), b"id: p1\nretry: 300\ndata: \n\n");
    h.end(poll.xfer());
    h.advance(300);
    let g = h.take();
    h.head(g.xfer(), 200, Some("text/event-stream"));
    h.advance(700);
    assert_eq!(h.err(op).kind, ErrorKind::Timeout);
    assert_eq!(
        h.core.busy(),
        none(),
        "the wait ended: its poll and resumption too"
    );
}

fn tasks_cfg() -> Config {
    tasks_config(true)
}

/// `callTool("t")` whose server creates task `id`: the op and its first poll.
fn call_task(h: &mut Harness, id: &str) -> (OpId, Sent) {
    let op = h
        .core
        .call_tool("t", Some(json!({})), false, &opts(), h.now);
    let mut s = h.take();
    if s.method() == "tools/list" {
        h.result(&s, tools_page(vec![tool("t")], None));
        s = h.take();
    }
    let mut created = task(id, "working");
    created["resultType"] = json!("task");
    h.result(&s, created);
    let p = h.take();
    assert_eq!(p.method(), "tasks/get");
    (op, p)
}

#[test]
fn tasks_that_end_leave_nothing() {
    let mut h = Harness::new(tasks_cfg());
    let (op, p) = call_task(&mut h, "t1");
    let mut done = task("t1", "completed");
    done["resultType"] = json!("complete");
    done["result"] = json!({"content":[{"type":"text","text":"r"}],"isError":false});
    h.result(&p, done);
    h.ok(op);
    assert_eq!(h.core.busy(), none(), "a completed task");

    let (op, p) = call_task(&mut h, "t2");
    let mut working = task("t2", "working");
    working["resultType"] = json!("complete");
    h.result(&p, working);
    h.core.abort(op, Error::abort("stop"), h.now);
    h.pump();
    assert_eq!(h.err(op).kind, ErrorKind::Abort);
    acknowledge_all(&mut h); // tasks/cancel
    assert_eq!(h.core.busy(), none(), "an aborted task call");
}

#[test]
fn close_leaves_nothing() {
    let mut h = Harness::new(tasks_cfg());
    let (task_op, _poll) = call_task(&mut h, "t1");
    let a = read(&mut h, "a");
    let _ = h.take();
    let b = read(&mut h, "b");
    let sb = h.take();
    head_with_retry_after(&mut h, &sb, 503, "3");
    let l = h.core.list_all(Listing::Prompts, &opts(), h.now);
    h.core.close(h.now);
    h.pump();
    for op in [task_op, a, b, l] {
        assert_eq!(h.err(op).kind, ErrorKind::Abort);
    }
    acknowledge_all(&mut h);
    assert_eq!(h.core.busy(), none(), "after close()");
}
