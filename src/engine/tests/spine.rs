//! The spine: framing, discovery, errors, lists, cache, tool calls, SSE, timeouts.

use crate::engine::actions::OpOptions;
use crate::engine::config::{Config, ElicitationModes, VersionChoice};
use crate::engine::testkit::*;
use crate::error::ErrorKind;
use crate::json;
use crate::json::{Map, Value};

fn opts() -> OpOptions {
    OpOptions::default()
}

fn params(v: Value) -> Map {
    v.as_object().cloned().unwrap()
}

#[test]
fn every_request_carries_meta_and_standard_headers() {
    let mut cfg = Config::new("http://mcp.test/mcp");
    cfg.version = VersionChoice::Pinned("2026-07-28".into());
    cfg.headers = vec![("Authorization".into(), "Bearer tok".into())];
    cfg.elicitation = Some(ElicitationModes {
        form: true,
        url: false,
    });
    cfg.client_info = json!({"name":"t","version":"9"});
    let mut h = Harness::new(cfg);
    let op = h.core.request(
        Purpose::Read,
        params(json!({"uri":"file:///ü.txt"})),
        &opts(),
        h.now,
    );
    let s = h.take();
    assert_eq!(s.req.method.as_str(), "POST");
    assert_eq!(s.req.url, "http://mcp.test/mcp");
    assert_eq!(s.header("content-type"), Some("application/json"));
    assert_eq!(
        s.header("accept"),
        Some("application/json, text/event-stream")
    );
    assert_eq!(s.header("mcp-protocol-version"), Some("2026-07-28"));
    assert_eq!(s.header("mcp-method"), Some("resources/read"));
    // Non-ASCII: the base64 sentinel.
    assert_eq!(
        s.header("mcp-name"),
        Some("=?base64?ZmlsZTovLy/DvC50eHQ=?=")
    );
    assert_eq!(s.header("authorization"), Some("Bearer tok"));
    let meta = &s.params()["_meta"];
    assert_eq!(
        meta["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert_eq!(
        meta["io.modelcontextprotocol/clientCapabilities"],
        json!({"elicitation":{"form":{}}})
    );
    assert_eq!(
        meta["io.modelcontextprotocol/clientInfo"],
        json!({"name":"t","version":"9"})
    );
    assert_eq!(s.body["jsonrpc"], "2.0");
    h.result(
        &s,
        json!({"resultType":"complete","contents":[{"uri":"file:///ü.txt","text":"hi"}]}),
    );
    assert_eq!(h.ok(op)["contents"][0]["text"], "hi");
}

#[test]
fn discover_lifts_server_info_and_records_capabilities() {
    let mut h = Harness::modern();
    let op = h.core.discover(&opts(), h.now);
    let s = h.take();
    assert_eq!(s.method(), "server/discover");
    assert_eq!(s.header("mcp-name"), None);
    h.result(
        &s,
        json!({"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},
               "instructions":"hi","ttlMs":60000,"cacheScope":"public",
               "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1"}}}),
    );
    let v = h.ok(op);
    assert_eq!(v["serverInfo"]["name"], "srv");
    assert_eq!(v["instructions"], "hi");
    assert_eq!(h.core.server_capabilities(), Some(&json!({"tools":{}})));
    // Cached for its ttl: no second request.
    let op2 = h.core.discover(&opts(), h.now);
    assert!(h.try_take().is_none());
    assert_eq!(h.ok(op2)["serverInfo"]["name"], "srv");
    // no-cache goes to the server.
    let _ = h.core.discover(
        &OpOptions {
            no_cache: true,
            ..opts()
        },
        h.now,
    );
    assert_eq!(h.take().method(), "server/discover");
}

#[test]
fn unsupported_version_is_retried_once_with_a_supported_one_or_fails() {
    let mut h = Harness::modern();
    let op = h.core.discover(&opts(), h.now);
    let s = h.take();
    h.error(
        &s,
        400,
        -32022,
        "Unsupported",
        Some(json!({"supported":["2030-01-01"],"requested":"2026-07-28"})),
    );
    let e = h.err(op);
    assert_eq!(e.kind, ErrorKind::UnsupportedProtocolVersion);
    assert_eq!(e.code, Some(-32022));
    assert_eq!(e.status, Some(400));
    assert_eq!(e.data.unwrap()["supported"], json!(["2030-01-01"]));
}

#[test]
fn unsupported_version_listing_the_sent_version_is_retried_once_with_it() {
    // basic/versioning.mdx: select a mutually supported version from `supported` and
    // retry. When that is the version just sent, retry once with it (new id), no more.
    let mut h = Harness::modern();
    let op = h
        .core
        .request(Purpose::ToolsList, Map::new(), &opts(), h.now);
    let s = h.take();
    let data = json!({"supported":["2026-07-28"],"requested":"2026-07-28"});
    h.error(&s, 400, -32022, "Unsupported", Some(data.clone()));
    let s2 = h.take();
    assert_eq!(s2.method(), "tools/list");
    assert_ne!(s2.id(), s.id());
    assert_eq!(s2.header("mcp-protocol-version"), Some("2026-07-28"));
    assert_eq!(
        s2.params()["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    h.error(&s2, 400, -32022, "Unsupported", Some(data));
    assert!(h.try_take().is_none());
    assert_eq!(h.err(op).kind, ErrorKind::UnsupportedProtocolVersion);
}

#[test]
fn missing_capability_and_method_not_found_and_http_errors() {
    let mut h = Harness::modern();
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.error(
        &s,
        400,
        -32021,
        "Missing",
        Some(json!({"requiredCapabilities":{"elicitation":{}}})),
    );
    let e = h.err(op);
    assert_eq!(e.kind, ErrorKind::MissingRequiredClientCapability);
    assert_eq!(
        e.data.unwrap()["requiredCapabilities"],
        json!({"elicitation":{}})
    );

    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.error(&s, 404, -32601, "Method not found", None);
    let e = h.err(op);
    assert_eq!(
        (e.kind, e.code, e.status),
        (ErrorKind::Mcp, Some(-32601), Some(404))
    );

    // Any JSON-RPC error, whatever the status.
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.error(&s, 200, -32603, "boom", Some(json!({"x":1})));
    let e = h.err(op);
    assert_eq!((e.kind, e.code), (ErrorKind::Mcp, Some(-32603)));

    // HTTP failure without a JSON-RPC body.
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.head(s.xfer(), 503, Some("text/html"));
    h.chunk(s.xfer(), b"<html>down</html>");
    h.end(s.xfer());
    let e = h.err(op);
    assert_eq!(
        (e.kind, e.status, e.code),
        (ErrorKind::Http, Some(503), None)
    );
}

#[test]
fn bad_bodies_never_hang_and_give_typed_errors() {
    let cases: Vec<(u16, Option<&str>, &[u8], ErrorKind)> = vec![
        (
            200,
            Some("application/json"),
            b"{not json",
            ErrorKind::Protocol,
        ),
        (
            200,
            Some("text/html"),
            b"<html>hello</html>",
            ErrorKind::Protocol,
        ),
        (
            200,
            Some("application/json"),
            br#"{"jsonrpc":"2.0","id":1}"#,
            ErrorKind::InvalidResult,
        ),
        (
            200,
            Some("application/json"),
            b"\xff\xfe\xfd",
            ErrorKind::Protocol,
        ),
        (
            200,
            Some("text/event-stream"),
            b"data: garbage\n\n",
            ErrorKind::Protocol,
        ),
        (200, Some("text/plain"), b"ok", ErrorKind::Protocol),
    ];
    for (status, ct, body, kind) in cases {
        let mut h = Harness::modern();
        let op = h
            .core
            .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
        let s = h.take();
        h.head(s.xfer(), status, ct);
        h.chunk(s.xfer(), body);
        h.end(s.xfer());
        let e = h.err(op);
        assert_eq!(e.kind, kind, "{ct:?} {:?}", String::from_utf8_lossy(body));
        // The client stays usable.
        let op2 = h
            .core
            .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
        let s2 = h.take();
        h.result(&s2, json!({"prompts":[]}));
        assert!(h.ok(op2)["prompts"].is_array());
    }
}

#[test]
fn response_with_another_id_is_an_error_and_duplicates_are_ignored() {
    let mut h = Harness::modern();
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.reply(
        &s,
        200,
        json!({"jsonrpc":"2.0","id":999_999,"result":{"prompts":[]}}),
    );
    assert_eq!(h.err(op).kind, ErrorKind::InvalidResult);

    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let s = h.take();
    let r = json!({"jsonrpc":"2.0","id":s.id(),"result":{"prompts":[1]}});
    h.sse(&s, &[r.clone(), r], true);
    assert_eq!(h.ok(op)["prompts"], json!([1]));
    assert!(
        h.cancelled.contains(&s.xfer()),
        "the stream is closed after the final response"
    );
}

#[test]
fn sse_progress_and_log_reach_the_call() {
    let mut h = Harness::modern();
    let o = OpOptions {
        progress: true,
        log_level: Some("debug".into()),
        ..opts()
    };
    let op = h.core.call_tool("t", Some(json!({})), false, &o, h.now);
    let list = h.take();
    h.result(&list, tools_page(vec![tool("t")], None));
    let s = h.take();
    assert_eq!(s.method(), "tools/call");
    let token = s.params()["_meta"]["progressToken"].clone();
    assert!(token.is_string());
    assert_eq!(
        s.params()["_meta"]["io.modelcontextprotocol/logLevel"],
        "debug"
    );
    h.sse(
        &s,
        &[
            json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":token,"progress":1,"total":2,"message":"half"}}),
            json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"log line"}}),
            json!({"jsonrpc":"2.0","id":s.id(),"result":{"content":[{"type":"text","text":"ok"}]}}),
        ],
        true,
    );
    assert_eq!(h.progress, vec![(op, 1.0, Some(2.0), Some("half".into()))]);
    assert_eq!(h.logs[0]["data"], "log line");
    assert_eq!(h.ok(op)["content"][0]["text"], "ok");
}

#[test]
fn a_dropped_stream_is_reissued_once_with_a_new_id_then_fails() {
    let mut h = Harness::modern();
    let op = h.core.request(
        Purpose::Read,
        params(json!({"uri":"a://b"})),
        &opts(),
        h.now,
    );
    let s1 = h.take();
    h.sse(&s1, &[], true);
    let s2 = h.take();
    assert_ne!(s1.id(), s2.id());
    assert_eq!(s1.params(), s2.params());
    // A network failure after the stream opened is a drop too.
    h.sse(&s2, &[], false);
    h.fail(s2.xfer(), crate::error::Error::network("reset"));
    let e = h.err(op);
    assert_eq!(e.kind, ErrorKind::Network);
    assert!(h.try_take().is_none());
}

#[test]
fn a_failed_fetch_before_any_answer_is_a_network_error() {
    let mut h = Harness::modern();
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.fail(s.xfer(), crate::error::Error::network("connection refused"));
    assert_eq!(h.err(op).kind, ErrorKind::Network);
}

#[test]
fn timeout_cancels_the_request() {
    let mut h = Harness::modern();
    let op = h.core.request(
        Purpose::PromptsList,
        Map::new(),
        &OpOptions {
            timeout_ms: Some(5000),
            ..opts()
        },
        h.now,
    );
    let s = h.take();
    h.advance(4999);
    assert!(h.outcome(op).is_none());
    h.advance(1);
    assert_eq!(h.err(op).kind, ErrorKind::Timeout);
    assert!(h.cancelled.contains(&s.xfer()));
    // A late answer is ignored.
    h.result(&s, json!({"prompts":[]}));
    assert_eq!(h.err(op).kind, ErrorKind::Timeout);
}

#[test]
fn progress_resets_the_timeout_but_not_the_hard_maximum() {
    let mut h = Harness::modern();
    let o = OpOptions {
        timeout_ms: Some(1000),
        reset_timeout_on_progress: true,
        max_total_timeout_ms: Some(2500),
        progress: true,
        ..opts()
    };
    let op = h
        .core
        .request(Purpose::Read, params(json!({"uri":"x:y"})), &o, h.now);
    let s = h.take();
    let token = s.params()["_meta"]["progressToken"].clone();
    h.sse(&s, &[], false);
    for _ in 0..2 {
        h.advance(900);
        let p = json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":token,"progress":1}});
        h.chunk(s.xfer(), format!("data: {p}\n\n").as_bytes());
        assert!(h.outcome(op).is_none());
    }
    h.advance(699);
    assert!(h.outcome(op).is_none());
    h.advance(1);
    let e = h.err(op);
    assert_eq!(e.kind, ErrorKind::Timeout);
    assert!(e.message.contains("maximum"));
}

#[test]
fn abort_cancels_the_fetch() {
    let mut h = Harness::modern();
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.core.abort(op, crate::error::Error::abort("user"), h.now);
    assert_eq!(h.err(op).kind, ErrorKind::Abort);
    h.pump();
    assert!(h.cancelled.contains(&s.xfer()));
}

#[test]
fn list_all_follows_cursors_and_stops_on_loops() {
    let mut h = Harness::modern();
    let op = h.core.list_all(Listing::Tools, &opts(), h.now);
    let s = h.take();
    assert!(s.params().get("cursor").is_none());
    h.result(&s, tools_page(vec![tool("a")], Some("")));
    let s = h.take();
    assert_eq!(
        s.params()["cursor"],
        "",
        "an empty string is a valid cursor"
    );
    h.result(&s, tools_page(vec![tool("b")], Some("c2")));
    let s = h.take();
    h.result(&s, tools_page(vec![tool("c")], None));
    let v = h.ok(op);
    let names: Vec<_> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a", "b", "c"]);

    let op = h.core.list_all(Listing::Prompts, &opts(), h.now);
    let s = h.take();
    h.result(&s, json!({"prompts":[],"nextCursor":"x"}));
    let s = h.take();
    h.result(&s, json!({"prompts":[],"nextCursor":"x"}));
    assert_eq!(h.err(op).kind, ErrorKind::InvalidResult);
}

#[test]
fn list_pages_are_cached_by_ttl_and_scope() {
    let mut cfg = Config::new("http://mcp.test/mcp");
    cfg.version = VersionChoice::Pinned("2026-07-28".into());
    cfg.headers = vec![("Authorization".into(), "Bearer A".into())];
    let mut h = Harness::new(cfg);
    let op = h
        .core
        .request(Purpose::ResourcesList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.result(
        &s,
        json!({"resources":[{"uri":"a:b","name":"b"}],"ttlMs":1000,"cacheScope":"private"}),
    );
    h.ok(op);
    let op = h
        .core
        .request(Purpose::ResourcesList, Map::new(), &opts(), h.now);
    assert!(h.try_take().is_none());
    assert_eq!(h.ok(op)["resources"][0]["uri"], "a:b");
    h.advance(1000);
    let _ = h
        .core
        .request(Purpose::ResourcesList, Map::new(), &opts(), h.now);
    assert!(h.try_take().is_some(), "stale after ttlMs");
}

#[test]
fn invalid_tools_are_dropped_with_a_warning() {
    let mut h = Harness::modern();
    let op = h
        .core
        .request(Purpose::ToolsList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.result(
        &s,
        tools_page(
            vec![
                tool("ok"),
                json!({"name":"bad","inputSchema":{"type":"object","properties":{"r":{"type":"number","x-mcp-header":"R"}}}}),
                json!({"name":"worse"}),
            ],
            None,
        ),
    );
    let v = h.ok(op);
    assert_eq!(v["tools"].as_array().unwrap().len(), 1);
    assert_eq!(h.warnings.len(), 2, "{:?}", h.warnings);
}

#[test]
fn tools_call_lists_tools_first_and_mirrors_x_mcp_header() {
    let mut h = Harness::modern();
    let op = h.core.call_tool(
        "execute_sql",
        Some(json!({"region":"us-west1","query":"SELECT 1"})),
        false,
        &opts(),
        h.now,
    );
    let l = h.take();
    assert_eq!(l.method(), "tools/list");
    h.result(
        &l,
        tools_page(
            vec![
                json!({"name":"execute_sql","inputSchema":{"type":"object","properties":{
                "region":{"type":"string","x-mcp-header":"Region"},"query":{"type":"string"}}}}),
            ],
            None,
        ),
    );
    let s = h.take();
    assert_eq!(s.header("mcp-name"), Some("execute_sql"));
    assert_eq!(s.header("mcp-param-region"), Some("us-west1"));
    h.result(&s, json!({"content":[]}));
    h.ok(op);
    // The registry is kept: no second listing.
    let _ = h.core.call_tool(
        "execute_sql",
        Some(json!({"query":"x"})),
        false,
        &opts(),
        h.now,
    );
    let s = h.take();
    assert_eq!(s.method(), "tools/call");
    assert_eq!(
        s.header("mcp-param-region"),
        None,
        "absent value: header omitted"
    );
}

#[test]
fn header_mismatch_relists_and_retries_once() {
    let mut h = Harness::modern();
    let op = h
        .core
        .call_tool("t", Some(json!({"r":"eu"})), false, &opts(), h.now);
    let l = h.take();
    h.result(&l, tools_page(vec![tool("t")], None));
    let s = h.take();
    assert_eq!(s.header("mcp-param-r"), None);
    h.error(&s, 400, -32020, "Header mismatch", None);
    let l = h.take();
    assert_eq!(l.method(), "tools/list");
    h.result(
        &l,
        tools_page(vec![json!({"name":"t","inputSchema":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"R"}}}})], None),
    );
    let s2 = h.take();
    assert_eq!(s2.header("mcp-param-r"), Some("eu"));
    assert_eq!(
        s2.params()["arguments"],
        json!({"r":"eu"}),
        "the retry sends the arguments"
    );
    assert_ne!(s.id(), s2.id());
    h.error(&s2, 400, -32020, "Header mismatch", None);
    let e = h.err(op);
    assert_eq!(e.code, Some(-32020));
    assert!(h.try_take().is_none(), "retried once only");
}

#[test]
fn listing_failure_does_not_block_the_call() {
    let mut h = Harness::modern();
    let op = h.core.call_tool("t", None, false, &opts(), h.now);
    let l = h.take();
    h.error(&l, 404, -32601, "no tools/list", None);
    let s = h.take();
    assert_eq!(s.method(), "tools/call");
    assert!(s.params().get("arguments").is_none());
    h.result(&s, json!({"content":[]}));
    h.ok(op);
}

#[test]
fn input_required_on_a_method_that_may_not_return_it_is_invalid() {
    let mut h = Harness::modern();
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.result(
        &s,
        json!({"resultType":"input_required","requestState":"x"}),
    );
    assert_eq!(h.err(op).kind, ErrorKind::InvalidResult);
}

#[test]
fn unknown_result_types_and_undeclared_tasks_are_invalid() {
    let mut h = Harness::modern();
    let op = h
        .core
        .request(Purpose::Prompt, params(json!({"name":"p"})), &opts(), h.now);
    let s = h.take();
    h.result(&s, json!({"resultType":"stream"}));
    assert_eq!(h.err(op).kind, ErrorKind::InvalidResult);

    // Rule 2: a task without the declared extension is invalid.
    let op = h.core.call_tool("t", None, false, &opts(), h.now);
    let l = h.take();
    h.result(&l, tools_page(vec![tool("t")], None));
    let s = h.take();
    h.result(&s, json!({"resultType":"task","taskId":"x","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttlMs":null}));
    assert_eq!(h.err(op).kind, ErrorKind::InvalidResult);
}

#[test]
fn oversized_bodies_and_events_are_protocol_errors() {
    let mut cfg = Config::new("http://mcp.test/mcp");
    cfg.version = VersionChoice::Pinned("2026-07-28".into());
    cfg.limits.max_body_bytes = 100;
    cfg.limits.max_event_bytes = 100;
    let mut h = Harness::new(cfg);
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.head(s.xfer(), 200, Some("application/json"));
    h.chunk(s.xfer(), &[b' '; 101]);
    assert_eq!(h.err(op).kind, ErrorKind::Protocol);

    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.head(s.xfer(), 200, Some("text/event-stream"));
    h.chunk(
        s.xfer(),
        format!("data: {}\n\n", "x".repeat(200)).as_bytes(),
    );
    assert_eq!(h.err(op).kind, ErrorKind::Protocol);
}

#[test]
fn a_call_answered_in_full_cancels_nothing() {
    // The exchange ended by itself: no `Action::Cancel` (an abort of a finished fetch is
    // work for the shell on every call).
    let mut h = Harness::modern();
    let op = h
        .core
        .request(Purpose::PromptsList, Map::new(), &opts(), h.now);
    let s = h.take();
    h.result(&s, json!({"prompts": []}));
    h.ok(op);
    // A tool call: its tools/list, then the call itself, twice (the second uses the cache).
    for _ in 0..2 {
        let op = h
            .core
            .call_tool("echo", Some(json!({})), false, &opts(), h.now);
        while h.outcome(op).is_none() {
            let s = h.take();
            let r = match s.method() {
                "tools/list" => tools_page(vec![tool("echo")], None),
                _ => json!({"content": []}),
            };
            h.result(&s, r);
        }
        h.ok(op);
    }
    assert_eq!(h.cancelled, Vec::<u64>::new());
}

/// Issue 14: the shell may read a JSON body whole (`Core::body_limit`) and hand it over in
/// one owned piece (`Core::on_body`); and it learns which results go to the host unread
/// (`Core::host_result`: tool results with no outputSchema to check and no task to make).
#[test]
fn whole_bodies_and_results_the_host_reads_unread() {
    let mut h = Harness::modern();
    let op = h
        .core
        .call_tool("plain", Some(json!({})), false, &opts(), h.now);
    let l = h.take();
    assert!(
        !h.core.host_result(l.xfer()),
        "a listing is read by the engine"
    );
    h.result(
        &l,
        tools_page(
            vec![
                json!({"name":"plain","inputSchema":{"type":"object"}}),
                json!({"name":"checked","inputSchema":{"type":"object"},
                       "outputSchema":{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}}),
            ],
            None,
        ),
    );
    let s = h.take();
    assert!(h.core.host_result(s.xfer()));
    assert_eq!(h.core.body_limit(s.xfer()), None, "before the head");
    h.core.on_head(
        s.xfer(),
        crate::engine::core::ResponseHead {
            status: 200,
            content_type: Some("application/json"),
            ..Default::default()
        },
        h.now,
    );
    assert_eq!(h.core.body_limit(s.xfer()), Some(64 * 1024 * 1024));
    let body = json!({"jsonrpc":"2.0","id":s.id(),"result":{"content":[]}}).to_string();
    h.core.on_body(s.xfer(), body.into_bytes(), h.now);
    h.core.on_end(s.xfer(), h.now);
    h.pump();
    assert_eq!(h.ok(op), json!({"content":[]}));
    assert_eq!(h.core.body_limit(s.xfer()), None, "over");
    assert!(!h.core.host_result(s.xfer()), "over");

    // With an outputSchema the engine reads the result: not for the host alone.
    let op = h
        .core
        .call_tool("checked", Some(json!({})), false, &opts(), h.now);
    let s = h.take();
    assert!(!h.core.host_result(s.xfer()));
    h.head(s.xfer(), 200, Some("text/event-stream"));
    assert_eq!(
        h.core.body_limit(s.xfer()),
        None,
        "an SSE body goes chunk by chunk"
    );
    h.core.on_body(
        s.xfer(),
        format!(
            "data: {}\n\n",
            json!({"jsonrpc":"2.0","id":s.id(),"result":{"content":[],"structuredContent":{"n":"x"}}})
        )
        .into_bytes(),
        h.now,
    );
    h.end(s.xfer());
    assert_eq!(h.err(op).kind, ErrorKind::OutputValidation);

    // Hostile bodies handed over whole are typed errors, never a panic.
    for bad in [
        &b"{oops"[..],
        b"\xff\xfe",
        b"",
        b"[1,2]",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"result\":{}}",
    ] {
        let op = h
            .core
            .call_tool("plain", Some(json!({})), false, &opts(), h.now);
        let s = h.take();
        h.head(s.xfer(), 200, Some("application/json"));
        h.core.on_body(s.xfer(), bad.to_vec(), h.now);
        h.end(s.xfer());
        assert!(matches!(h.err(op).kind, ErrorKind::Protocol), "{bad:?}");
    }
}

/// A tool listed again is checked against its `outputSchema` as listed last (rule 11: the
/// schema as it is when the tool is called): the same one still checks, another one
/// replaces it.
#[test]
fn a_relisted_tools_output_check_follows_its_schema() {
    let n_schema = json!({"type":"object","properties":{"n":{"type":"number"}},"required":["n"]});
    let s_schema = json!({"type":"object","properties":{"s":{"type":"string"}},"required":["s"]});
    let listed = |schema: &Value| {
        tools_page(
            vec![json!({"name":"t","inputSchema":{"type":"object"},"outputSchema":schema})],
            None,
        )
    };
    let mut h = Harness::modern();
    let list = |h: &mut Harness, schema: &Value| {
        let op = h.core.list_all(Listing::Tools, &opts(), h.now);
        let s = h.take();
        h.result(&s, listed(schema));
        h.ok(op);
    };
    let call = |h: &mut Harness, structured: Value| {
        let op = h
            .core
            .call_tool("t", Some(json!({})), false, &opts(), h.now);
        let s = h.take();
        h.result(&s, json!({"content": [], "structuredContent": structured}));
        h.outcome(op).cloned()
    };
    list(&mut h, &n_schema);
    assert!(matches!(call(&mut h, json!({"n": 1})), Some(Ok(_))));
    // The same schema again: still checked.
    list(&mut h, &n_schema);
    assert!(matches!(call(&mut h, json!({"n": 2})), Some(Ok(_))));
    let bad = call(&mut h, json!({"n": "two"}));
    assert!(
        matches!(&bad, Some(Err(e)) if e.kind == ErrorKind::OutputValidation),
        "{bad:?}"
    );
    // Another schema: the results are checked against it, not the one compiled before.
    list(&mut h, &s_schema);
    let old_shape = call(&mut h, json!({"n": 3}));
    assert!(
        matches!(&old_shape, Some(Err(e)) if e.kind == ErrorKind::OutputValidation),
        "{old_shape:?}"
    );
    assert!(matches!(call(&mut h, json!({"s": "x"})), Some(Ok(_))));
}
