//! Era detection, 2025-11-25 sessions and server requests, 2024-11-05 HTTP+SSE, 2025 tasks.

use crate::engine::actions::{AskScope, OpId, OpOptions};
use crate::engine::config::{Config, ElicitationModes, VersionChoice};
use crate::engine::core::ResponseHead;
use crate::engine::shared::Era;
use crate::engine::testkit::*;
use crate::error::ErrorKind;
use crate::json;
use crate::json::{Map, Value};

pub(super) fn auto() -> Config {
    let mut c = Config::new("http://mcp.test/mcp");
    c.elicitation = Some(ElicitationModes {
        form: true,
        url: false,
    });
    c
}

pub(super) fn opts() -> OpOptions {
    OpOptions::default()
}

pub(super) fn head_session(h: &mut Harness, s: &Sent, status: u16, ct: &str, session: &str) {
    h.core.on_head(
        s.xfer(),
        ResponseHead {
            status,
            content_type: Some(ct),
            session_id: Some(session),
            ..Default::default()
        },
        h.now,
    );
    h.pump();
}

pub(super) fn init_result(version: &str, caps: Value) -> Value {
    json!({"protocolVersion": version, "capabilities": caps, "serverInfo": {"name": "old", "version": "1"}, "instructions": "hi"})
}

/// Answers `initialize` with session id `session` and a 2025-11-25 result with `caps`.
pub(super) fn answer_initialize(h: &mut Harness, init: &Sent, session: &str, caps: Value) {
    head_session(h, init, 200, "application/json", session);
    let r = json!({"jsonrpc":"2.0","id":init.id(),"result":init_result("2025-11-25", caps)});
    h.chunk(init.xfer(), r.to_string().as_bytes());
    h.end(init.xfer());
}

/// Drives detection to a legacy session with id "S1"; returns the harness.
pub(super) fn legacy(caps: Value) -> Harness {
    let mut h = Harness::new(auto());
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    // The first operation's own request is the probe, in the modern framing.
    let probe = h.take();
    assert_eq!(probe.method(), "prompts/list");
    assert_eq!(probe.header("mcp-protocol-version"), Some("2026-07-28"));
    assert_eq!(probe.header("mcp-method"), Some("prompts/list"));
    // A 2025 server: a bare 400 (not a modern JSON-RPC error).
    h.reply(&probe, 400, json!({"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Server not initialized"}}));
    let init = h.take();
    assert_eq!(init.method(), "initialize");
    assert_eq!(
        init.header("mcp-protocol-version"),
        None,
        "no version header on initialize"
    );
    assert_eq!(init.header("mcp-session-id"), None);
    assert_eq!(init.params()["protocolVersion"], "2025-11-25");
    assert_eq!(
        init.params()["capabilities"]["elicitation"],
        json!({"form":{}})
    );
    assert!(init.params().get("_meta").is_none());
    answer_initialize(&mut h, &init, "S1", caps);
    let n = h.take();
    assert_eq!(n.method(), "notifications/initialized");
    assert_eq!(n.header("mcp-session-id"), Some("S1"));
    assert_eq!(n.header("mcp-protocol-version"), Some("2025-11-25"));
    assert!(n.body.get("id").is_none());
    assert!(
        h.try_take().is_none(),
        "nothing is sent before notifications/initialized is accepted"
    );
    h.accepted(&n);
    let get = h.take();
    assert_eq!(get.req.method.as_str(), "GET");
    assert_eq!(get.header("accept"), Some("text/event-stream"));
    assert_eq!(get.header("mcp-session-id"), Some("S1"));
    h.head(get.xfer(), 405, None);
    h.end(get.xfer());
    let req = h.take();
    assert_eq!(req.method(), "prompts/list");
    assert_eq!(req.header("mcp-session-id"), Some("S1"));
    assert_eq!(req.header("mcp-protocol-version"), Some("2025-11-25"));
    assert_eq!(
        req.header("mcp-method"),
        None,
        "no 2026 headers in the legacy era"
    );
    assert!(
        req.params().get("_meta").is_none(),
        "no per-request capabilities in the legacy era"
    );
    h.result(&req, json!({"prompts":[]}));
    h.ok(op);
    assert_eq!(*h.core.era(), Era::Legacy);
    assert!(h.try_take().is_none(), "a 405 GET stream is not retried");
    h
}

/// A fresh `protocolVersion: 'auto'` client whose first operation is page 1 of `purpose`
/// with default options: the operation and the probe it sent, which is its own request
/// (`session::detect`).
fn first_list(purpose: Purpose) -> (Harness, OpId, Sent) {
    let mut h = Harness::new(auto());
    let method = purpose.method();
    let op = h.core.request(purpose, Map::new(), &opts(), h.now);
    let probe = h.take();
    assert_eq!(probe.method(), method, "the first request is the probe");
    (h, op, probe)
}

#[test]
fn the_first_list_request_is_the_probe_and_gets_its_answer() {
    // The spec asks for "a modern request" first: the operation's own, in the modern framing.
    let (mut h, op1, probe) = first_list(Purpose::PromptsList);
    let op2 = h.core.discover(&opts(), h.now);
    assert_eq!(probe.header("mcp-protocol-version"), Some("2026-07-28"));
    assert_eq!(
        probe.params()["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert!(h.try_take().is_none(), "operations wait for the era");
    assert!(!h.core.era_known());
    // Not cacheable (ttlMs 0): the answer still goes to the operation whose request it was.
    h.result(
        &probe,
        json!({"resultType":"complete","prompts":[{"name":"p"}],"ttlMs":0,"cacheScope":"public"}),
    );
    assert_eq!(h.ok(op1)["prompts"][0]["name"], "p");
    assert_eq!(*h.core.era(), Era::Modern);
    assert!(h.core.era_known());
    // The next operation is sent as it is: no probe, and no second prompts/list.
    let d = h.take();
    assert_eq!(d.method(), "server/discover");
    h.result(&d, json!({"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":60000,"cacheScope":"public"}));
    assert_eq!(h.ok(op2)["capabilities"], json!({"tools":{}}));
    assert!(h.try_take().is_none());
    // A later page-1 request is sent again (its answer was not cacheable).
    let op3 = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let again = h.take();
    assert_eq!(again.method(), "prompts/list");
    h.result(&again, json!({"prompts":[]}));
    h.ok(op3);
}

#[test]
fn a_probe_answered_without_result_type_asks_server_discover() {
    // A pre-2026 server that runs a request without a handshake and without checking
    // `MCP-Protocol-Version`: its answer (no `resultType`) proves nothing, so detection goes
    // on with `server/discover`, and the operation is sent once the era is known.
    let (mut h, op, probe) = first_list(Purpose::ToolsList);
    h.result(
        &probe,
        json!({"tools":[{"name":"lenient","inputSchema":{"type":"object"}}]}),
    );
    assert!(h.outcome(op).is_none(), "not answered from the probe");
    assert!(!h.core.era_known());
    let discover = h.take();
    assert_eq!(discover.method(), "server/discover");
    h.reply(&discover, 400, json!({"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Server not initialized"}}));
    let init = h.take();
    assert_eq!(init.method(), "initialize");
    answer_initialize(&mut h, &init, "S1", json!({"tools":{}}));
    let n = h.take();
    assert_eq!(n.method(), "notifications/initialized");
    h.accepted(&n);
    let get = h.take();
    h.head(get.xfer(), 405, None);
    h.end(get.xfer());
    let req = h.take();
    assert_eq!(req.method(), "tools/list");
    assert_eq!(req.header("mcp-session-id"), Some("S1"));
    h.result(
        &req,
        json!({"tools":[{"name":"old","inputSchema":{"type":"object"}}]}),
    );
    assert_eq!(h.ok(op)["tools"][0]["name"], "old");
    assert_eq!(*h.core.era(), Era::Legacy);
}

#[test]
fn a_cacheable_probe_answer_is_cached_as_the_operation_would_cache_it() {
    let (mut h, op1, probe) = first_list(Purpose::ToolsList);
    h.result(&probe, json!({"resultType":"complete","tools":[{"name":"t","inputSchema":{"type":"object"}}],"ttlMs":60000,"cacheScope":"public"}));
    assert_eq!(h.ok(op1)["tools"][0]["name"], "t");
    let op2 = h
        .core
        .request(Purpose::ToolsList, Map::new(), &opts(), h.now);
    assert_eq!(h.ok(op2)["tools"][0]["name"], "t", "from the cache");
    assert!(h.try_take().is_none());
}

#[test]
fn auto_detects_a_modern_server_with_one_discover() {
    let mut h = Harness::new(auto());
    let op2 = h.core.discover(&opts(), h.now);
    let op1 = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let probe = h.take();
    assert_eq!(probe.method(), "server/discover");
    assert!(h.try_take().is_none(), "operations wait for the era");
    // Not cacheable: discover() still gets the probe's answer, with no second request.
    h.result(&probe, json!({"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public"}));
    assert_eq!(h.ok(op2)["capabilities"], json!({"tools":{}}));
    assert_eq!(h.core.server_capabilities(), Some(&json!({"tools":{}})));
    let s = h.take();
    assert_eq!(s.method(), "prompts/list");
    assert_eq!(
        s.params()["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    h.result(&s, json!({"prompts":[]}));
    h.ok(op1);
    assert!(h.try_take().is_none());
    assert_eq!(*h.core.era(), Era::Modern);
    assert!(h.core.era_known());
}

#[test]
fn a_first_request_with_options_or_params_waits_behind_server_discover() {
    // Per-request options (here progress) or params (a cursor) are the operation's own: the
    // probe is sent with the client's defaults, so such a request is not the probe.
    let with_progress = OpOptions {
        progress: true,
        ..OpOptions::default()
    };
    let mut cursor = Map::new();
    cursor.insert("cursor".into(), json!("c2"));
    for (params, o) in [(Map::new(), with_progress), (cursor, opts())] {
        let mut h = Harness::new(auto());
        let op = h
            .core
            .request(Purpose::ToolsList, params.clone(), &o, h.now);
        let probe = h.take();
        assert_eq!(probe.method(), "server/discover");
        h.result(&probe, json!({"supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":60000,"cacheScope":"public"}));
        let s = h.take();
        assert_eq!(s.method(), "tools/list");
        assert_eq!(s.params().get("cursor"), params.get("cursor"));
        h.result(&s, json!({"tools":[]}));
        h.ok(op);
    }
}

#[test]
fn a_probe_answer_whose_operation_was_aborted_is_no_ones() {
    let mut h = Harness::new(auto());
    let op1 = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let probe = h.take();
    h.core.abort(op1, crate::error::Error::abort("stop"), h.now);
    h.pump();
    assert_eq!(h.err(op1).kind, ErrorKind::Abort);
    // Detection goes on (the session's request, not the operation's).
    h.result(
        &probe,
        json!({"resultType":"complete","prompts":[{"name":"old"}],"ttlMs":0,"cacheScope":"public"}),
    );
    assert!(h.core.era_known());
    let op2 = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let s = h.take();
    assert_eq!(
        s.method(),
        "prompts/list",
        "sent: the aborted one's answer is not reused"
    );
    h.result(&s, json!({"prompts":[{"name":"new"}]}));
    assert_eq!(h.ok(op2)["prompts"][0]["name"], "new");
}

#[test]
fn a_modern_error_on_the_probe_means_modern_and_no_fallback() {
    let (mut h, op, probe) = first_list(Purpose::PromptsList);
    // A modern server without the prompts capability (spec: 404 with -32601).
    h.error(&probe, 404, -32601, "Method not found", None);
    let e = h.err(op);
    assert_eq!(
        e.code,
        Some(-32601),
        "the probe's answer is the operation's: {e:?}"
    );
    assert!(
        h.try_take().is_none(),
        "no initialize, and the request is not sent twice"
    );
    assert_eq!(*h.core.era(), Era::Modern);
    assert!(h.core.era_known());
    // The era is known: the next request goes out at once.
    let op2 = h.core.discover(&opts(), h.now);
    let d = h.take();
    assert_eq!(d.method(), "server/discover");
    h.result(&d, json!({"supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"public"}));
    h.ok(op2);
}

#[test]
fn a_network_failure_during_detection_fails_the_waiting_calls_and_is_retried_later() {
    let mut h = Harness::new(auto());
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let probe = h.take();
    h.fail(probe.xfer(), crate::error::Error::network("refused"));
    assert_eq!(h.err(op).kind, ErrorKind::Network);
    assert!(!h.core.era_known());
    let _ = h.core.discover(&opts(), h.now);
    assert_eq!(h.take().method(), "server/discover", "detection runs again");
}

#[test]
fn legacy_session_is_detected_and_used() {
    let mut h = legacy(json!({}));
    // discover() answers from initialize, in the modern shape.
    let op = h.core.discover(&opts(), h.now);
    let v = h.ok(op);
    assert_eq!(v["supportedVersions"], json!(["2025-11-25"]));
    assert_eq!(v["serverInfo"]["name"], "old");
    assert_eq!(v["instructions"], "hi");
    // listen() is 2026-only.
    let op = h.core.listen(&json!({"toolsListChanged": true}), h.now);
    assert_eq!(h.err(op).kind, ErrorKind::Capability);
}

#[test]
fn pinned_2025_skips_detection() {
    let mut c = auto();
    c.version = VersionChoice::Pinned("2025-06-18".into());
    let mut h = Harness::new(c);
    let _ = h
        .core
        .request(Purpose::ToolsList, Map::new(), &opts(), h.now);
    let init = h.take();
    assert_eq!(init.method(), "initialize");
    assert_eq!(init.params()["protocolVersion"], "2025-06-18");
}

#[test]
fn server_requests_are_answered_through_the_handlers() {
    let mut h = legacy(json!({}));
    let op = h
        .core
        .call_tool("t", Some(json!({})), false, &opts(), h.now);
    let l = h.take();
    assert_eq!(l.method(), "tools/list");
    h.result(&l, tools_page(vec![tool("t")], None));
    let call = h.take();
    h.sse(
        &call,
        &[
            json!({"jsonrpc":"2.0","id":"srv-1","method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object","properties":{"n":{"type":"string"}}}}}),
            json!({"jsonrpc":"2.0","id":"srv-2","method":"ping"}),
            json!({"jsonrpc":"2.0","id":"srv-3","method":"tools/call","params":{}}),
            json!({"jsonrpc":"2.0","id":"srv-4","method":"sampling/createMessage","params":{"messages":[],"maxTokens":3}}),
        ],
        false,
    );
    // ping, the unknown method and the undeclared sampling are answered at once.
    let mut answers = Vec::new();
    while let Some(s) = h.try_take() {
        answers.push(s);
    }
    assert_eq!(answers.len(), 3, "{answers:?}");
    assert_eq!(
        answers[0].body,
        json!({"jsonrpc":"2.0","id":"srv-2","result":{}})
    );
    assert_eq!(answers[1].body["error"]["code"], -32601);
    assert_eq!(answers[2].body["id"], "srv-4");
    assert_eq!(answers[2].body["error"]["code"], -32601);
    for a in &answers {
        assert_eq!(a.header("mcp-session-id"), Some("S1"));
        h.accepted(a);
    }
    // The elicitation goes to the host.
    assert_eq!(h.asks.len(), 1);
    let ask = h.asks[0].clone();
    assert_eq!((ask.scope, ask.key.as_str()), (AskScope::Request, "srv-1"));
    h.answer(ask.id, Ok(json!({"action":"accept","content":{"n":"Ada"}})));
    let resp = h.take();
    assert_eq!(
        resp.body,
        json!({"jsonrpc":"2.0","id":"srv-1","result":{"action":"accept","content":{"n":"Ada"}}})
    );
    // A replay of the same request is not asked again.
    h.chunk(call.xfer(), format!("data: {}\n\n", json!({"jsonrpc":"2.0","id":"srv-1","method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object","properties":{}}}})).as_bytes());
    assert_eq!(h.asks.len(), 1);
    let again = h.take();
    assert_eq!(again.body["id"], "srv-1");
    let r = json!({"jsonrpc":"2.0","id":call.id(),"result":{"content":[{"type":"text","text":"done"}]}});
    h.chunk(call.xfer(), format!("data: {r}\n\n").as_bytes());
    assert_eq!(h.ok(op)["content"][0]["text"], "done");
}

#[test]
fn server_requests_waiting_for_the_host_are_bounded() {
    let mut h = legacy(json!({}));
    let max = crate::engine::config::Limits::default().max_input_requests;
    let op = h
        .core
        .call_tool("t", Some(json!({})), false, &opts(), h.now);
    let l = h.take();
    h.result(&l, tools_page(vec![tool("t")], None));
    let call = h.take();
    let elicit = |i: usize| json!({"jsonrpc":"2.0","id":format!("srv-{i}"),"method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object","properties":{}}}});
    let msgs: Vec<Value> = (0..=max).map(elicit).collect();
    h.sse(&call, &msgs, false);
    // `max` go to the host; the one over the limit is refused at once, with an error.
    assert_eq!(h.asks.len(), max);
    let refused = h.take();
    assert_eq!(refused.body["id"], format!("srv-{max}"));
    assert_eq!(refused.body["error"]["code"], -32603);
    assert!(refused.body["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains(&format!("limit {max}"))));
    h.accepted(&refused);
    assert!(h.try_take().is_none());
    // An answer frees a place: the next request is asked.
    let first = h.asks[0].clone();
    h.answer(first.id, Ok(json!({"action":"decline"})));
    let answered = h.take();
    assert_eq!(answered.body["id"], "srv-0");
    h.accepted(&answered);
    h.chunk(
        call.xfer(),
        format!("data: {}\n\n", elicit(max + 1)).as_bytes(),
    );
    assert_eq!(h.asks.len(), max + 1);
    assert_eq!(h.asks[max].key, format!("srv-{}", max + 1));
    let r = json!({"jsonrpc":"2.0","id":call.id(),"result":{"content":[]}});
    h.chunk(call.xfer(), format!("data: {r}\n\n").as_bytes());
    h.ok(op);
}

#[test]
fn a_404_on_the_session_starts_a_new_one_and_reissues() {
    let mut h = legacy(json!({}));
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.reply(
        &s,
        404,
        json!({"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}),
    );
    let init = h.take();
    assert_eq!(init.method(), "initialize");
    assert_eq!(init.header("mcp-session-id"), None);
    answer_initialize(&mut h, &init, "S2", json!({}));
    let n = h.take();
    assert_eq!(n.method(), "notifications/initialized");
    h.accepted(&n);
    let mut again = h.take();
    if again.req.method.as_str() == "GET" {
        h.head(again.xfer(), 405, None);
        again = h.take();
    }
    assert_eq!(again.method(), "prompts/list");
    assert_eq!(again.header("mcp-session-id"), Some("S2"));
    assert_ne!(again.id(), s.id());
    h.result(&again, json!({"prompts":[]}));
    h.ok(op);
}

#[test]
fn abort_sends_notifications_cancelled_and_close_sends_delete() {
    let mut h = legacy(json!({}));
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.core.abort(op, crate::error::Error::abort("user"), h.now);
    let n = h.take();
    assert_eq!(n.method(), "notifications/cancelled");
    assert_eq!(n.params()["requestId"], s.id());
    assert_eq!(h.err(op).kind, ErrorKind::Abort);
    h.core.close(h.now);
    let d = h.take();
    assert_eq!(d.req.method.as_str(), "DELETE");
    assert_eq!(d.header("mcp-session-id"), Some("S1"));
}

#[test]
fn an_invalid_session_id_is_a_typed_error() {
    let mut h = Harness::new(auto());
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let probe = h.take();
    h.reply(&probe, 405, Value::Null);
    let init = h.take();
    head_session(&mut h, &init, 200, "application/json", "bad\r\nid");
    assert_eq!(h.err(op).kind, ErrorKind::Protocol);
}

#[test]
fn a_dropped_legacy_stream_is_resumed_with_last_event_id() {
    let mut h = legacy(json!({}));
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.head(s.xfer(), 200, Some("text/event-stream"));
    h.chunk(s.xfer(), b"id: ev-1\nretry: 300\ndata: \n\n");
    h.end(s.xfer());
    assert!(h.try_take().is_none(), "waits for the server's retry");
    h.advance(300);
    let g = h.take();
    assert_eq!(g.req.method.as_str(), "GET");
    assert_eq!(g.header("last-event-id"), Some("ev-1"));
    h.head(g.xfer(), 200, Some("text/event-stream"));
    let r = json!({"jsonrpc":"2.0","id":s.id(),"result":{"prompts":[1]}});
    h.chunk(g.xfer(), format!("id: ev-2\ndata: {r}\n\n").as_bytes());
    assert_eq!(h.ok(op)["prompts"], json!([1]));
}

#[test]
fn resumption_is_bounded() {
    let mut h = legacy(json!({}));
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.head(s.xfer(), 200, Some("text/event-stream"));
    h.chunk(s.xfer(), b"id: e\ndata: \n\n");
    h.end(s.xfer());
    let mut gets = 0;
    for _ in 0..20 {
        // To the resumption's backoff, within the call's 60 s budget (a call that timed
        // out has nothing left to resume).
        h.advance_to_deadline();
        let Some(g) = h.try_take() else { break };
        if g.req.method.as_str() != "GET" {
            // The re-issued POST after resumption gave up.
            h.fail(g.xfer(), crate::error::Error::network("down"));
            break;
        }
        gets += 1;
        h.head(g.xfer(), 200, Some("text/event-stream"));
        h.chunk(g.xfer(), b"id: e\ndata: \n\n");
        h.end(g.xfer());
    }
    assert_eq!(gets, 5);
    assert!(h.outcome(op).is_some(), "the call ends");
}

#[test]
fn a_call_that_ended_is_not_resumed() {
    // Found by fuzzing: the resumption of a call that timed out went on for nobody.
    let mut h = legacy(json!({}));
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
    h.advance(5_000);
    assert!(
        h.try_take().is_none(),
        "no Last-Event-ID GET for an ended call"
    );
}

#[test]
fn http_sse_transport_after_legacy_post_fails() {
    let mut h = Harness::new(auto());
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let probe = h.take();
    h.reply(&probe, 405, Value::Null);
    let init = h.take();
    assert_eq!(init.method(), "initialize");
    h.reply(&init, 405, Value::Null);
    let get = h.take();
    assert_eq!(get.req.method.as_str(), "GET");
    h.head(get.xfer(), 200, Some("text/event-stream"));
    h.chunk(
        get.xfer(),
        b"event: endpoint\ndata: /messages?session_id=abc\n\n",
    );
    let init2 = h.take();
    assert_eq!(init2.req.url, "http://mcp.test/messages?session_id=abc");
    assert_eq!(init2.params()["protocolVersion"], "2024-11-05");
    h.head(init2.xfer(), 202, Some("text/plain"));
    h.chunk(init2.xfer(), b"Accepted");
    h.end(init2.xfer());
    // The response comes on the SSE stream.
    let r = json!({"jsonrpc":"2.0","id":init2.id(),"result":init_result("2024-11-05", json!({}))});
    h.chunk(
        get.xfer(),
        format!("event: message\ndata: {r}\n\n").as_bytes(),
    );
    let n = h.take();
    assert_eq!(n.method(), "notifications/initialized");
    assert!(h.try_take().is_none(), "requests wait for the 202");
    h.head(n.xfer(), 202, Some("text/plain"));
    h.chunk(n.xfer(), b"Accepted");
    h.end(n.xfer());
    let req = h.take();
    assert_eq!(req.method(), "prompts/list");
    assert_eq!(req.req.url, "http://mcp.test/messages?session_id=abc");
    h.head(req.xfer(), 202, None);
    h.end(req.xfer());
    let r = json!({"jsonrpc":"2.0","id":req.id(),"result":{"prompts":[2]}});
    h.chunk(
        get.xfer(),
        format!("event: message\ndata: {r}\n\n").as_bytes(),
    );
    assert_eq!(h.ok(op)["prompts"], json!([2]));
    assert_eq!(*h.core.era(), Era::HttpSse);
}

#[test]
fn an_endpoint_on_another_origin_is_refused() {
    let mut c = auto();
    c.version = VersionChoice::Pinned("2024-11-05".into());
    let mut h = Harness::new(c);
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let get = h.take();
    h.head(get.xfer(), 200, Some("text/event-stream"));
    h.chunk(
        get.xfer(),
        b"event: endpoint\ndata: https://evil.example/messages\n\n",
    );
    let e = h.err(op);
    assert_eq!(e.kind, ErrorKind::Protocol);
    assert!(e.message.contains("another origin"));
    assert!(h.try_take().is_none(), "nothing is posted anywhere");
}

#[test]
fn tasks_list_works_only_in_the_legacy_era() {
    let mut c = Config::new("http://mcp.test/mcp");
    c.version = VersionChoice::Pinned("2026-07-28".into());
    let mut h = Harness::new(c);
    let op = h.core.list_tasks(None, &opts(), h.now);
    assert_eq!(h.err(op).kind, ErrorKind::Capability);
    let mut h = legacy(json!({"tasks":{"list":{}}}));
    let op = h.core.list_tasks(None, &opts(), h.now);
    let s = h.take();
    assert_eq!(s.method(), "tasks/list");
    h.result(&s, json!({"tasks":[]}));
    assert_eq!(h.ok(op)["tasks"], json!([]));
}

#[test]
fn a_2025_task_is_driven_through_tasks_get_and_tasks_result() {
    let mut cfg = auto();
    cfg.extensions
        .insert("io.modelcontextprotocol/tasks".into(), json!({}));
    let mut h = Harness::new(cfg);
    let op = h
        .core
        .call_tool("research", Some(json!({"q":"x"})), false, &opts(), h.now);
    let probe = h.take();
    h.reply(&probe, 404, Value::Null);
    let init = h.take();
    assert!(init.params()["capabilities"].get("extensions").is_none());
    answer_initialize(
        &mut h,
        &init,
        "S9",
        json!({"tasks":{"requests":{"tools":{"call":{}}}}}),
    );
    let n = h.take();
    h.accepted(&n);
    let get = h.take();
    h.head(get.xfer(), 405, None);
    let l = h.take();
    assert_eq!(l.method(), "tools/list");
    h.result(&l, json!({"tools":[{"name":"research","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]}));
    let call = h.take();
    assert_eq!(call.params()["task"], json!({}));
    h.result(&call, json!({"task":{"taskId":"T1","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":600000,"pollInterval":200}}));
    let poll = h.take();
    assert_eq!(poll.method(), "tasks/get");
    assert_eq!(poll.params()["taskId"], "T1");
    h.result(&poll, json!({"taskId":"T1","status":"input_required","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:01Z","ttl":600000,"pollInterval":200}));
    let res = h.take();
    assert_eq!(res.method(), "tasks/result");
    // The input request comes on the tasks/result stream, tagged with the task.
    h.sse(
        &res,
        &[json!({"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"message":"Which?","requestedSchema":{"type":"object","properties":{}},"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"T1"}}}})],
        false,
    );
    let ask = h.asks[0].clone();
    assert_eq!(
        (ask.scope, ask.task_id.as_deref()),
        (AskScope::Task, Some("T1"))
    );
    h.answer(ask.id, Ok(json!({"action":"accept","content":{}})));
    let answer = h.take();
    assert_eq!(answer.body["id"], 7);
    let r = json!({"jsonrpc":"2.0","id":res.id(),"result":{"content":[{"type":"text","text":"found"}],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"T1"}}}});
    h.chunk(res.xfer(), format!("data: {r}\n\n").as_bytes());
    assert_eq!(h.ok(op)["content"][0]["text"], "found");
}

#[test]
fn a_2025_create_task_result_without_task_is_invalid() {
    let (mut h, op, call) = legacy_task_call(None);
    h.result(&call, json!({"taskId":"T1","status":"working"}));
    assert_eq!(h.err(op).kind, ErrorKind::InvalidResult);
}

/// A pinned 2025-11-25 session whose server runs `research` as a task only; the
/// `tools/call` for it is sent. Returns the harness, the op and that call.
fn legacy_task_call(task_timeout_ms: Option<u64>) -> (Harness, OpId, Sent) {
    let mut cfg = auto();
    cfg.extensions
        .insert("io.modelcontextprotocol/tasks".into(), json!({}));
    cfg.version = VersionChoice::Pinned("2025-11-25".into());
    let mut h = Harness::new(cfg);
    let waiting = OpOptions {
        task_timeout_ms,
        ..opts()
    };
    let op = h.core.call_tool("research", None, false, &waiting, h.now);
    let init = h.take();
    answer_initialize(
        &mut h,
        &init,
        "S1",
        json!({"tasks":{"requests":{"tools":{"call":{}}}}}),
    );
    let n = h.take();
    h.accepted(&n);
    let get = h.take();
    h.head(get.xfer(), 405, None);
    let l = h.take();
    h.result(&l, json!({"tools":[{"name":"research","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}]}));
    let call = h.take();
    assert_eq!(call.method(), "tools/call");
    (h, op, call)
}

/// [`legacy_task_call`] with the task created; returns its first `tasks/get`.
pub(super) fn legacy_task(task_timeout_ms: u64) -> (Harness, OpId, Sent) {
    let (mut h, op, call) = legacy_task_call(Some(task_timeout_ms));
    h.result(&call, json!({"task":{"taskId":"T1","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":600000,"pollInterval":200}}));
    let poll = h.take();
    assert_eq!(poll.method(), "tasks/get");
    (h, op, poll)
}

#[test]
fn a_poll_whose_wait_ended_is_not_resumed() {
    // The poll's stream dropped with an event id; the wait ends before the resumption.
    let (mut h, op, poll) = legacy_task(1_000);
    h.head(poll.xfer(), 200, Some("text/event-stream"));
    h.chunk(poll.xfer(), b"id: p1\nretry: 3000\ndata: \n\n");
    h.end(poll.xfer());
    h.advance(1_000);
    assert_eq!(h.err(op).kind, ErrorKind::Timeout);
    h.advance(10_000);
    assert!(
        h.try_take().is_none(),
        "no Last-Event-ID GET for a poll nobody waits for"
    );
}

#[test]
fn a_resumed_poll_stream_closes_when_the_wait_ends() {
    let (mut h, op, poll) = legacy_task(1_000);
    h.head(poll.xfer(), 200, Some("text/event-stream"));
    h.chunk(poll.xfer(), b"id: p1\nretry: 300\ndata: \n\n");
    h.end(poll.xfer());
    h.advance(300);
    let g = h.take();
    assert_eq!(g.header("last-event-id"), Some("p1"));
    h.head(g.xfer(), 200, Some("text/event-stream"));
    h.advance(700);
    assert_eq!(h.err(op).kind, ErrorKind::Timeout);
    assert!(
        h.cancelled.contains(&g.xfer()),
        "the resumption GET is closed with the poll"
    );
}

#[test]
fn a_2025_task_ends_with_its_session_as_task_not_found_with_its_code() {
    // A 404 on the session (2025-11-25 "Session Management" 4): the task ids of the ended
    // session name nothing in the new one. TaskNotFoundError is an McpError: it carries
    // the code the server gives an unknown task (-32602), though the client found it.
    let (mut h, op, poll) = legacy_task(60_000);
    h.reply(
        &poll,
        404,
        json!({"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}),
    );
    let e = h.err(op);
    assert_eq!(e.kind, ErrorKind::TaskNotFound);
    assert_eq!(e.code, Some(-32602));
    assert!(
        e.message.contains("ended with its session"),
        "{}",
        e.message
    );
}
