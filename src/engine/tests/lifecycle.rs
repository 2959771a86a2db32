//! The 2025-11-25 lifecycle's last step (`basic/lifecycle` "Initialization"): requests
//! follow `notifications/initialized`, and over HTTP that means after its answer.

use super::legacy::{answer_initialize, auto, opts};
use crate::engine::actions::OpId;
use crate::engine::config::VersionChoice;
use crate::engine::testkit::*;
use crate::error::ErrorKind;
use crate::json;
use crate::json::Map;

/// Pins 2025-11-25 and answers `initialize`; returns the op waiting for the session and
/// the `notifications/initialized` POST, unanswered.
fn initialized_in_flight(op_method: Purpose) -> (Harness, OpId, Sent) {
    let mut c = auto();
    c.version = VersionChoice::Pinned("2025-11-25".into());
    let mut h = Harness::new(c);
    let op = h.core.request(op_method, Map::new(), &opts(), h.now);
    let init = h.take();
    answer_initialize(&mut h, &init, "S1", json!({}));
    let n = h.take();
    assert_eq!(n.method(), "notifications/initialized");
    (h, op, n)
}

/// The request after the session's GET stream (declined with 405).
fn after_get(h: &mut Harness) -> Sent {
    let get = h.take();
    assert_eq!(get.req.method.as_str(), "GET");
    h.head(get.xfer(), 405, None);
    h.take()
}

#[test]
fn requests_wait_for_notifications_initialized_to_be_accepted() {
    // server-everything registers its task tools while it handles
    // notifications/initialized: a tools/call sent alongside could miss them.
    let (mut h, op, n) = initialized_in_flight(Purpose::ToolsList);
    let later = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    h.advance(1_000);
    assert!(h.try_take().is_none(), "both requests wait for the 202");
    h.accepted(&n);
    let first = after_get(&mut h);
    let second = h.take();
    assert_eq!(
        (first.method(), second.method()),
        ("tools/list", "prompts/list")
    );
    h.result(&first, json!({"tools":[]}));
    h.result(&second, json!({"prompts":[]}));
    h.ok(op);
    h.ok(later);
    assert!(h.warnings.is_empty(), "{:?}", h.warnings);
}

#[test]
fn a_refused_notifications_initialized_still_opens_the_session_with_a_warning() {
    let (mut h, op, n) = initialized_in_flight(Purpose::ToolsList);
    h.reply(
        &n,
        400,
        json!({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no"}}),
    );
    let req = after_get(&mut h);
    assert_eq!(req.method(), "tools/list");
    assert_eq!(req.header("mcp-session-id"), Some("S1"));
    h.result(&req, json!({"tools":[]}));
    h.ok(op);
    assert_eq!(h.warnings.len(), 1, "{:?}", h.warnings);
    assert!(h.warnings[0].contains("notifications/initialized"));
}

#[test]
fn an_unanswered_notifications_initialized_gives_way_after_the_request_timeout() {
    let (mut h, op, n) = initialized_in_flight(Purpose::ToolsList);
    h.advance(59_999);
    assert!(h.try_take().is_none());
    h.advance(1);
    assert!(h.cancelled.contains(&n.xfer()), "the stuck POST is aborted");
    let req = after_get(&mut h);
    assert_eq!(req.method(), "tools/list");
    h.result(&req, json!({"tools":[]}));
    h.ok(op);
    assert!(h.warnings[0].contains("no answer to notifications/initialized"));
    // A late answer changes nothing.
    h.accepted(&n);
    assert!(h.try_take().is_none());
}

#[test]
fn close_while_notifications_initialized_is_in_flight_fails_the_waiting_request() {
    let (mut h, op, n) = initialized_in_flight(Purpose::ToolsList);
    h.core.close(h.now);
    assert_eq!(h.err(op).kind, ErrorKind::Abort);
    assert!(h.cancelled.contains(&n.xfer()));
    let mut sent = Vec::new();
    while let Some(s) = h.try_take() {
        sent.push(s.req.method.as_str().to_string());
    }
    assert_eq!(sent, vec!["DELETE"], "only the session's DELETE goes out");
}
