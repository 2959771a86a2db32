//! A tool's arguments as the host's JSON text (`Core::call_tool_json`; the shell's
//! `Core::call_tool_args` with `JSON.stringify`'s text): they go into the request as they
//! are, and are read only where the client needs them (`x-mcp-header`, the legacy eras' maps).

use crate::engine::actions::{Action, OpId, OpOptions};
use crate::engine::testkit::*;
#[cfg(feature = "legacy")]
use crate::engine::tests::legacy::legacy;
use crate::engine::ToolArguments;
use crate::error::ErrorKind;
use crate::json;
use crate::json::Value;

/// A modern harness with a call of `t` started with `args`, its tools listed as `tools`,
/// and the call's request (`None`: nothing was sent).
fn listed(args: Option<&str>, t: Value) -> (Harness, OpId, Option<Sent>) {
    let mut h = Harness::modern();
    let op = h.core.call_tool_json(
        "t",
        args.map(str::to_string),
        false,
        &OpOptions::default(),
        h.now,
    );
    let Some(l) = h.try_take() else {
        return (h, op, None);
    };
    assert_eq!(l.method(), "tools/list");
    h.result(&l, tools_page(vec![t], None));
    let s = h.try_take();
    (h, op, s)
}

/// [`listed`] with `t` declaring no `x-mcp-header`.
fn call(args: Option<&str>) -> (Harness, OpId, Option<Sent>) {
    listed(args, tool("t"))
}

/// `t` with `x-mcp-header` parameters: `r` (Region) and `n.k` (K).
fn header_tool() -> Value {
    json!({"name":"t","inputSchema":{"type":"object","properties":{
        "r":{"type":"string","x-mcp-header":"Region"},
        "n":{"type":"object","properties":{"k":{"type":"integer","x-mcp-header":"K"}}}}}})
}

#[test]
fn arguments_go_into_the_request_as_the_host_wrote_them() {
    // Text a re-encoding would change: key order, escapes, a number's form.
    let text = r#"{"z":1,"a":"\u00e9\/","n":1e+21,"nested":{"y":[true,null]}}"#;
    let (mut h, op, s) = call(Some(text));
    let s = s.expect("the call");
    assert_eq!(s.method(), "tools/call");
    let body = s.req.body_text().unwrap_or("");
    assert!(body.contains(&format!(r#""arguments":{text}"#)), "{body}");
    assert_eq!(s.params()["name"], "t");
    assert_eq!(s.params()["arguments"]["a"], "é/");
    assert_eq!(
        s.params()["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert_eq!(s.header("mcp-name"), Some("t"));
    h.result(&s, json!({"content":[]}));
    h.ok(op);
}

#[test]
fn null_means_no_arguments() {
    let (mut h, op, s) = call(Some("null"));
    let s = s.expect("the call");
    assert!(s.params().get("arguments").is_none(), "{}", s.params());
    h.result(&s, json!({"content":[]}));
    h.ok(op);
    let (_, _, s) = call(None);
    assert!(s.expect("the call").params().get("arguments").is_none());
}

#[test]
fn arguments_that_are_not_an_object_or_not_json_are_refused_before_any_request() {
    for (text, why) in [
        ("[1]", "must be an object"),
        ("\"x\"", "must be an object"),
        ("5", "must be an object"),
        ("{\"a\":", "not JSON"),
        ("{} {}", "not JSON"),
        // A lone UTF-16 surrogate (`JSON.stringify` of a string cut inside a pair): the
        // request is UTF-8 and cannot carry it, as with arguments given as a `Value`.
        (r#"{"a":"\ud800"}"#, "not JSON"),
        (r#"{"a":"x\uDC00"}"#, "not JSON"),
    ] {
        let mut h = Harness::modern();
        let op = h.core.call_tool_json(
            "t",
            Some(text.to_string()),
            false,
            &OpOptions::default(),
            h.now,
        );
        let e = h.err(op);
        assert_eq!(e.kind, ErrorKind::Config, "{text}");
        assert!(e.message.contains(why), "{text}: {}", e.message);
        assert!(h.try_take().is_none(), "{text}: nothing is sent");
    }
}

#[test]
fn a_surrogate_pair_and_text_that_only_looks_like_one_are_sent() {
    for text in [
        r#"{"a":"\ud83d\ude00"}"#,
        r#"{"a":"\\ud800"}"#,
        r#"{"a":"\\\ud83c\udf89"}"#,
    ] {
        let (_, _, s) = call(Some(text));
        let s = s.expect("the call");
        let body = s.req.body_text().unwrap_or("");
        assert!(body.contains(text), "{body}");
    }
}

#[test]
fn x_mcp_header_reads_arguments_given_as_text() {
    let (mut h, op, s) = listed(Some(r#"{"r":"eu","n":{"k":7}}"#), header_tool());
    let s = s.expect("the call");
    assert_eq!(s.header("mcp-param-region"), Some("eu"));
    assert_eq!(s.header("mcp-param-k"), Some("7"));
    assert_eq!(s.params()["arguments"], json!({"r":"eu","n":{"k":7}}));
    h.result(&s, json!({"content":[]}));
    h.ok(op);
}

#[test]
fn a_number_beyond_f64_is_sent_as_written_unless_the_client_reads_the_arguments() {
    // Valid JSON that a `Value` cannot hold (only a Rust caller can write it).
    let huge = format!(r#"{{"r":"eu","n":{}}}"#, "9".repeat(309));
    for text in [r#"{"r":"eu","n":1e400}"#, huge.as_str()] {
        // No x-mcp-header: the text goes out as written. (Read off the engine's actions
        // directly: the harness parses what is sent into `Value`s.)
        let (mut h, op, s) = call(Some("{}"));
        h.result(&s.expect("the first call"), json!({"content":[]}));
        h.ok(op);
        h.core.call_tool_json(
            "t",
            Some(text.to_string()),
            false,
            &OpOptions::default(),
            h.now,
        );
        let mut body = None;
        while let Some(a) = h.core.poll_action() {
            if let Action::Send(req) = a {
                body = req.body_text().map(str::to_string);
            }
        }
        let body = body.expect("the call is sent");
        assert!(body.contains(&format!(r#""arguments":{text}"#)), "{body}");

        // A tool whose x-mcp-header parameters read the arguments: refused, nothing sent.
        let (mut h, op, s) = listed(Some(text), header_tool());
        assert!(s.is_none(), "nothing is sent");
        let e = h.err(op);
        assert_eq!(e.kind, ErrorKind::Config);
        assert!(e.message.contains("number out of range"), "{}", e.message);
    }
}

#[test]
fn an_input_round_sends_the_arguments_again() {
    let (mut h, op, s) = call(Some(r#"{"q":"why"}"#));
    let s = s.expect("the call");
    h.result(
        &s,
        json!({"resultType":"input_required","requestState":"st","inputRequests":{}}),
    );
    let again = h.take();
    assert_ne!(again.id(), s.id());
    assert_eq!(again.params()["arguments"], json!({"q":"why"}));
    assert_eq!(again.params()["requestState"], "st");
    h.result(&again, json!({"content":[]}));
    h.ok(op);
}

#[cfg(feature = "legacy")]
#[test]
fn a_legacy_server_gets_the_arguments_in_its_request() {
    let mut h = legacy(json!({"tools":{}}));
    let op = h.core.call_tool_json(
        "t",
        Some(r#"{"x":[1,"2"]}"#.to_string()),
        false,
        &OpOptions::default(),
        h.now,
    );
    let mut s = h.take();
    if s.method() == "tools/list" {
        h.result(&s, json!({"tools":[tool("t")]}));
        s = h.take();
    }
    assert_eq!(s.method(), "tools/call");
    assert_eq!(s.header("mcp-session-id"), Some("S1"));
    assert_eq!(s.params()["arguments"], json!({"x":[1,"2"]}));
    assert_eq!(s.params()["name"], "t");
    h.result(&s, json!({"content":[]}));
    h.ok(op);
    // Text a Value cannot read is refused there (a legacy request is built from a map).
    let op = h.core.call_tool_json(
        "t",
        Some(r#"{"n":1e400}"#.to_string()),
        false,
        &OpOptions::default(),
        h.now,
    );
    assert_eq!(h.err(op).kind, ErrorKind::Config);
    assert!(h.try_take().is_none(), "nothing is sent");
}

/// A call whose arguments come as `JSON.stringify`'s text (the shell's way), unread by the
/// engine's check (`ToolArguments::from_stringify`), and its request (`None`: none sent).
fn stringified(h: &mut Harness, text: &str) -> (OpId, Option<Sent>) {
    let args = ToolArguments::from_stringify(text.to_string()).expect("an object");
    let op = h
        .core
        .call_tool_args("t", args, false, &OpOptions::default(), h.now);
    (op, h.try_take())
}

#[test]
fn stringify_output_goes_out_unread_and_is_read_only_where_the_client_needs_it() {
    let text = r#"{"z":1,"a":"é \"q\"\n","n":1e+21}"#;
    let (mut h, op, s) = call(Some("{}"));
    h.result(&s.expect("the first call"), json!({"content":[]}));
    h.ok(op);
    let (op, s) = stringified(&mut h, text);
    let s = s.expect("the call is sent");
    let body = s.req.body_text().unwrap_or("");
    assert!(body.contains(&format!(r#""arguments":{text}"#)), "{body}");
    h.result(&s, json!({"content":[]}));
    h.ok(op);

    // Text that is not JSON after all (a replaced `JSON.stringify`): where the client
    // reads the arguments, its own parse refuses it, and nothing is sent.
    let (mut h, op, s) = listed(Some("{}"), header_tool());
    h.result(&s.expect("the first call"), json!({"content":[]}));
    h.ok(op);
    let (op, s) = stringified(&mut h, r#"{"r":"eu""#);
    assert!(s.is_none(), "nothing is sent");
    let e = h.err(op);
    assert_eq!(e.kind, ErrorKind::Config);
    assert!(e.message.starts_with("value is not JSON"), "{}", e.message);
    // Text the client reads well: its headers.
    let (op, s) = stringified(&mut h, r#"{"r":"eu","n":{"k":7}}"#);
    let s = s.expect("the call is sent");
    assert_eq!(s.header("mcp-param-region"), Some("eu"));
    assert_eq!(s.params()["arguments"], json!({"r":"eu","n":{"k":7}}));
    h.result(&s, json!({"content":[]}));
    h.ok(op);
}
