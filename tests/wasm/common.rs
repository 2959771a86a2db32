// Shared body of the wasm integration tests (`tests/wasm_browser.rs` runs it in headless
// Chromium, `tests/wasm_node.rs` in Node). They drive the Rust-exported
// `mcp_wasm_client::web::McpClient` against the REAL Python test server
// (tests/servers/modern_server.py), the way a Rust/wasm host would.
//
// The server URL is fixed at compile time: `MCP_WASM_TEST_URL` (scripts/test.sh sets it to
// the server it started, normally on the fixed port 38111), else the default below. A wasm
// test has no environment at run time in a browser; a stable URL keeps cargo from rebuilding.
// By hand: start `.venv/bin/python tests/servers/modern_server.py --port 38111`, then
// `CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner cargo test
// --target wasm32-unknown-unknown --test wasm_node` (wasm_browser: also CHROMEDRIVER and
// WASM_BINDGEN_TEST_WEBDRIVER_JSON, see scripts/test.sh).

use js_sys::{Array, Function, Object, Promise, Reflect, JSON};
use mcp_wasm_client::web::McpClient;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;
use web_sys::AbortController;

const SERVER: &str = match option_env!("MCP_WASM_TEST_URL") {
    Some(u) => u,
    None => "http://127.0.0.1:38111/mcp",
};
const TASKS: &str = "io.modelcontextprotocol/tasks";

// ------------------------------------------------------------------ helpers

/// A JS value from JSON text.
fn js(json: &str) -> JsValue {
    JSON::parse(json).unwrap_or_else(|_| panic!("bad JSON in test: {json}"))
}

fn text(v: &JsValue) -> String {
    if v.is_undefined() {
        return "undefined".into();
    }
    JSON::stringify(v)
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_else(|| format!("{v:?}"))
}

/// `v[k0][k1]…` (keys may hold dots or slashes; numeric keys index arrays).
fn at(v: &JsValue, path: &[&str]) -> JsValue {
    let mut cur = v.clone();
    for k in path {
        if cur.is_undefined() || cur.is_null() {
            return JsValue::UNDEFINED;
        }
        cur = Reflect::get(&cur, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED);
    }
    cur
}

fn at_str(v: &JsValue, path: &[&str]) -> String {
    at(v, path)
        .as_string()
        .unwrap_or_else(|| panic!("{} is not a string in {}", path.join("."), text(v)))
}

fn set(o: &JsValue, k: &str, v: &JsValue) {
    Reflect::set(o, &JsValue::from_str(k), v).expect("Reflect.set");
}

/// Awaits a promise that must resolve.
async fn ok(p: Promise) -> JsValue {
    match JsFuture::from(p).await {
        Ok(v) => v,
        Err(e) => panic!(
            "expected success, got {}: {}",
            at(&e, &["name"]).as_string().unwrap_or_default(),
            describe(&e)
        ),
    }
}

fn describe(e: &JsValue) -> String {
    at(e, &["message"]).as_string().unwrap_or_else(|| text(e))
}

/// Awaits a promise that must reject with an Error named `name` (and `code` when given);
/// returns the error.
async fn rejects(p: Promise, name: &str, code: Option<i32>) -> JsValue {
    let e = match JsFuture::from(p).await {
        Ok(v) => panic!("expected {name}, but the call succeeded with {}", text(&v)),
        Err(e) => e,
    };
    assert!(
        e.is_instance_of::<js_sys::Error>(),
        "rejected with a non-Error: {}",
        text(&e)
    );
    let got = at(&e, &["name"]).as_string().unwrap_or_default();
    assert_eq!(got, name, "error name (message: {})", describe(&e));
    if let Some(c) = code {
        assert_eq!(
            at(&e, &["code"]).as_f64(),
            Some(c as f64),
            "error code of {name} (message: {})",
            describe(&e)
        );
    }
    e
}

/// A promise resolved after `ms` milliseconds (the global `setTimeout`: page, worker, Node).
async fn sleep(ms: i32) {
    let p = Promise::new(&mut |resolve, _| {
        let st: Function = Reflect::get(&js_sys::global(), &"setTimeout".into())
            .unwrap()
            .unchecked_into();
        st.call2(&JsValue::UNDEFINED, &resolve, &JsValue::from(ms))
            .unwrap();
    });
    JsFuture::from(p).await.unwrap();
}

/// GET <server>/debug/<what> as JSON (the test server's debug endpoints).
async fn debug(what: &str) -> JsValue {
    let base = SERVER.trim_end_matches("/mcp");
    let fetch: Function = Reflect::get(&js_sys::global(), &"fetch".into())
        .unwrap()
        .unchecked_into();
    let resp = ok(fetch
        .call1(&JsValue::UNDEFINED, &format!("{base}/debug/{what}").into())
        .unwrap()
        .unchecked_into())
    .await;
    let json: Function = Reflect::get(&resp, &"json".into())
        .unwrap()
        .unchecked_into();
    ok(json.call0(&resp).unwrap().unchecked_into()).await
}

fn u() -> JsValue {
    JsValue::UNDEFINED
}

/// `{ extensions: [tasks] }` plus whatever is set on it later.
fn options() -> Object {
    let o: Object = js(&format!(r#"{{"extensions":["{TASKS}"]}}"#)).unchecked_into();
    o
}

fn client(opts: &Object) -> McpClient {
    McpClient::new(SERVER.to_string(), opts.into())
        .unwrap_or_else(|e| panic!("new McpClient: {}", describe(&e)))
}

fn first_text(result: &JsValue) -> String {
    at_str(result, &["content", "0", "text"])
}

/// The client still works after an error: a plain call succeeds.
async fn still_works(c: &McpClient) {
    let r = ok(c.call_tool("echo".into(), js(r#"{"text":"still here"}"#), u())).await;
    assert_eq!(first_text(&r), "still here");
}

// ------------------------------------------------------------------ tests

#[wasm_bindgen_test]
async fn discover_reports_server_info_and_tasks_extension() {
    let c = client(&options());
    let d = ok(c.discover(u())).await;
    assert_eq!(
        at_str(&d, &["serverInfo", "name"]),
        "mcp-wasm-client-test-server"
    );
    assert!(
        at(&d, &["capabilities", "extensions", TASKS]).is_object(),
        "tasks extension not advertised: {}",
        text(&at(&d, &["capabilities"]))
    );
    let versions: Array = at(&d, &["supportedVersions"]).unchecked_into();
    assert!(
        versions.includes(&"2026-07-28".into(), 0),
        "supportedVersions: {}",
        text(&versions)
    );
    assert_eq!(c.era(), "modern");
    assert_eq!(c.protocol_version(), "2026-07-28");
    assert!(c.tasks_enabled());
    assert!(at(&c.server_capabilities(), &["tools"]).is_object());
}

#[wasm_bindgen_test]
async fn list_tools_and_list_all_tools() {
    let c = client(&options());
    let page = ok(c.list_tools(u(), u())).await;
    let tools: Array = at(&page, &["tools"]).unchecked_into();
    let names: Vec<String> = tools.iter().map(|t| at_str(&t, &["name"])).collect();
    for want in ["echo", "add", "region_query", "ask_name", "task_quick"] {
        assert!(
            names.iter().any(|n| n == want),
            "{want} missing from tools/list: {names:?}"
        );
    }
    let all: Array = ok(c.list_all_tools(u())).await.unchecked_into();
    assert!(
        all.length() >= tools.length(),
        "listAllTools returned fewer tools than one page"
    );
    let add = all
        .iter()
        .find(|t| at(t, &["name"]).as_string().as_deref() == Some("add"))
        .expect("add in listAllTools");
    assert!(
        at(&add, &["outputSchema", "properties", "sum"]).is_object(),
        "add.outputSchema: {}",
        text(&add)
    );
}

#[wasm_bindgen_test]
async fn call_tool_echo_and_add_structured_content() {
    let c = client(&options());
    let r = ok(c.call_tool("echo".into(), js(r#"{"text":"hi from wasm"}"#), u())).await;
    assert_eq!(first_text(&r), "hi from wasm");
    assert_eq!(at(&r, &["isError"]).as_bool(), Some(false));
    let r = ok(c.call_tool("add".into(), js(r#"{"a":2,"b":40}"#), u())).await;
    assert_eq!(
        at(&r, &["structuredContent", "sum"]).as_f64(),
        Some(42.0),
        "add: {}",
        text(&r)
    );
}

#[wasm_bindgen_test]
async fn json_rpc_errors_become_mcp_errors_with_code() {
    let c = client(&options());
    // The SDK answers an unknown prompt with -32603 (see tests/servers/README.md).
    let e = rejects(
        c.get_prompt("no_such_prompt".into(), u(), u()),
        "McpError",
        Some(-32603),
    )
    .await;
    assert!(!describe(&e).is_empty());
    still_works(&c).await;
    // Unknown resource: -32602 with data.uri (HTTP 400).
    let e = rejects(
        c.read_resource("test://nope".into(), u()),
        "McpError",
        Some(-32602),
    )
    .await;
    assert_eq!(at_str(&e, &["data", "uri"]), "test://nope");
    still_works(&c).await;
}

#[wasm_bindgen_test]
async fn read_resource_hello() {
    let c = client(&options());
    let r = ok(c.read_resource("test://hello".into(), u())).await;
    assert_eq!(at_str(&r, &["contents", "0", "uri"]), "test://hello");
    assert_eq!(at_str(&r, &["contents", "0", "text"]), "Hello, world!");
}

#[wasm_bindgen_test]
async fn get_prompt_greet() {
    let c = client(&options());
    let r = ok(c.get_prompt("greet".into(), js(r#"{"name":"Ada"}"#), u())).await;
    assert_eq!(at_str(&r, &["messages", "0", "role"]), "user");
    assert_eq!(
        at_str(&r, &["messages", "0", "content", "text"]),
        "Please greet Ada warmly."
    );
}

#[wasm_bindgen_test]
async fn complete_prompt_argument() {
    let c = client(&options());
    let r = ok(c.complete(
        js(r#"{"type":"ref/prompt","name":"greet"}"#),
        js(r#"{"name":"name","value":"Al"}"#),
        u(),
        u(),
    ))
    .await;
    assert_eq!(
        text(&at(&r, &["completion", "values"])),
        r#"["Alice","Alan"]"#
    );
}

#[wasm_bindgen_test]
async fn form_elicitation_answered_by_a_rust_closure() {
    let seen: Rc<RefCell<Vec<String>>> = Rc::default();
    let log = seen.clone();
    let handler = Closure::<dyn FnMut(JsValue, JsValue) -> JsValue>::new(
        move |req: JsValue, ctx: JsValue| {
            log.borrow_mut().push(format!(
                "{}|{}|{}|{}|{}",
                at(&req, &["message"]).as_string().unwrap_or_default(),
                at(&ctx, &["scope"]).as_string().unwrap_or_default(),
                at(&ctx, &["method"]).as_string().unwrap_or_default(),
                at(&ctx, &["key"]).as_string().unwrap_or_default(),
                at(&ctx, &["signal"]).is_instance_of::<web_sys::AbortSignal>(),
            ));
            js(r#"{"action":"accept","content":{"name":"Ada"}}"#)
        },
    );
    let o = options();
    set(&o, "onElicitation", handler.as_ref());
    let c = client(&o);
    let r = ok(c.call_tool("ask_name".into(), js("{}"), u())).await;
    assert_eq!(first_text(&r), "Hello, Ada!");
    assert_eq!(
        *seen.borrow(),
        vec!["What is your name?|request|tools/call|__main__:ask_name_resolver|true".to_string()]
    );
}

#[wasm_bindgen_test]
async fn progress_callback_receives_every_step() {
    let seen: Rc<RefCell<Vec<String>>> = Rc::default();
    let log = seen.clone();
    let on_progress = Closure::<dyn FnMut(JsValue)>::new(move |p: JsValue| {
        log.borrow_mut().push(format!(
            "{}/{} {}",
            at(&p, &["progress"]).as_f64().unwrap_or(-1.0),
            at(&p, &["total"]).as_f64().unwrap_or(-1.0),
            at(&p, &["message"]).as_string().unwrap_or_default()
        ));
    });
    let opts = Object::new();
    set(&opts, "onProgress", on_progress.as_ref());
    let c = client(&options());
    let r = ok(c.call_tool(
        "progress".into(),
        js(r#"{"steps":3,"delay_ms":20}"#),
        opts.into(),
    ))
    .await;
    assert_eq!(first_text(&r), "done 3 steps");
    assert_eq!(
        *seen.borrow(),
        vec!["1/3 step 1/3", "2/3 step 2/3", "3/3 step 3/3"]
    );
}

/// Waits (up to ~3 s) until the server logged `slow_cancelled` for the `slow` call that was
/// started with `ms` (a value unique to this run: `slow_started` carries it and the request id).
async fn server_cancelled_slow(ms: u32) -> bool {
    for _ in 0..30 {
        let events: Array = debug("events").await.unchecked_into();
        let mut id = None;
        for e in events.iter() {
            let kind = at(&e, &["event"]).as_string().unwrap_or_default();
            if kind == "slow_started" && at(&e, &["ms"]).as_f64() == Some(ms as f64) {
                id = Some(text(&at(&e, &["requestId"])));
            } else if kind == "slow_cancelled"
                && id.is_some()
                && id == Some(text(&at(&e, &["requestId"])))
            {
                return true;
            }
        }
        sleep(100).await;
    }
    false
}

#[wasm_bindgen_test]
async fn abort_signal_aborts_a_slow_call() {
    let c = client(&options());
    // A duration unique to this run identifies the call in the server's events.
    let ms = 4000 + (js_sys::Math::random() * 999.0) as u32;
    let ctrl = AbortController::new().unwrap();
    let opts = Object::new();
    set(&opts, "signal", &ctrl.signal());
    let p = c.call_tool("slow".into(), js(&format!(r#"{{"ms":{ms}}}"#)), opts.into());
    sleep(300).await;
    ctrl.abort();
    rejects(p, "AbortError", None).await;
    assert!(
        server_cancelled_slow(ms).await,
        "the server never saw the slow call cancelled"
    );
    still_works(&c).await;
}

#[wasm_bindgen_test]
async fn timeout_of_a_slow_call() {
    let c = client(&options());
    let p = c.call_tool(
        "slow".into(),
        js(r#"{"ms":5000}"#),
        js(r#"{"timeoutMs":300}"#),
    );
    rejects(p, "TimeoutError", None).await;
    still_works(&c).await;
}

#[wasm_bindgen_test]
async fn task_driven_by_call_tool() {
    let c = client(&options());
    let statuses: Rc<RefCell<Vec<String>>> = Rc::default();
    let log = statuses.clone();
    let on_status = Closure::<dyn FnMut(JsValue)>::new(move |t: JsValue| {
        log.borrow_mut()
            .push(at(&t, &["status"]).as_string().unwrap_or_default());
    });
    let opts = Object::new();
    set(&opts, "onTaskStatus", on_status.as_ref());
    let r = ok(c.call_tool("task_quick".into(), js("{}"), opts.into())).await;
    assert_eq!(first_text(&r), "quick task done");
    assert_eq!(
        statuses.borrow().last().map(String::as_str),
        Some("completed"),
        "statuses: {:?}",
        statuses.borrow()
    );
    // The server ran it as a task (not inline).
    let tasks = debug("tasks").await;
    let ran_as_task = Object::values(tasks.unchecked_ref())
        .iter()
        .any(|t| at(&t, &["tool"]).as_string().as_deref() == Some("task_quick"));
    assert!(
        ran_as_task,
        "no task_quick task on the server: {}",
        text(&tasks)
    );
}

async fn region_query(c: &McpClient, region: &str) -> JsValue {
    let args = Object::new();
    set(&args, "region", &region.into());
    set(&args, "query", &"weather".into());
    let r = ok(c.call_tool("region_query".into(), args.into(), u())).await;
    js(&first_text(&r))
}

#[wasm_bindgen_test]
async fn x_mcp_header_is_mirrored_as_mcp_param() {
    let c = client(&options());
    let a = region_query(&c, "eu-west-1").await;
    assert_eq!(at_str(&a, &["header"]), "eu-west-1", "{}", text(&a));
    assert_eq!(at_str(&a, &["decoded"]), "eu-west-1");
    assert_eq!(at(&a, &["matched"]).as_bool(), Some(true));
    assert_eq!(at_str(&a, &["query"]), "weather");
    // Not header-safe: sent base64-sentinel encoded, decoded by the server.
    let b = region_query(&c, "Zürich Nord").await;
    let header = at_str(&b, &["header"]);
    assert!(
        header.starts_with("=?base64?") && header.ends_with("?="),
        "header: {header}"
    );
    assert_eq!(at_str(&b, &["decoded"]), "Zürich Nord");
    assert_eq!(at(&b, &["matched"]).as_bool(), Some(true));
}

/// Floats written into JSON text in the wasm (`json::text`, which asks the JS engine for a
/// float's digits): each reads back as the same `f64`, and as a float (`1.0`, `-0.0`, not
/// `1`, `0`), in as few digits as serde_json writes; the spellings are the JS engine's.
#[wasm_bindgen_test]
fn floats_are_written_in_their_shortest_text_and_read_back_the_same() {
    use mcp_wasm_client::json;
    use mcp_wasm_client::json::Value;
    let written = |f: f64| json::text(&Value::from(f));
    for (f, want) in [
        (0.1, "0.1"),
        (-2.5, "-2.5"),
        (1.0, "1.0"),
        (0.0, "0.0"),
        (-0.0, "-0.0"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000.0"),
        (1e-7, "1e-7"),
        (0.000001, "0.000001"),
        (5e-324, "5e-324"),
        (f64::MAX, "1.7976931348623157e+308"),
        (123456789.125, "123456789.125"),
        (1.0 / 3.0, "0.3333333333333333"),
    ] {
        assert_eq!(written(f), want, "{f:e}");
    }
    let mut f = 1.0e-310f64;
    while f < 1e308 {
        for x in [f, -f * 1.000_000_000_000_1, f * 3.7] {
            let t = written(x);
            // A JSON reader sees a float, the same one: the crate's own reader (which asks
            // the JS engine for what its fast path cannot read exactly) and Rust's.
            let back = json::parse(&t).unwrap_or_else(|e| panic!("{t}: {e}"));
            assert!(back.is_f64(), "{t} reads back as {back}");
            assert_eq!(back.as_f64().map(f64::to_bits), Some(x.to_bits()), "{t}");
            assert_eq!(t.parse::<f64>().map(f64::to_bits), Ok(x.to_bits()), "{t}");
            // No longer than serde_json's shortest spelling of the digits.
            let digits = |s: &str| {
                let mantissa = s.split(['e', 'E']).next().unwrap_or("");
                mantissa
                    .trim_start_matches('-')
                    .trim_end_matches(".0")
                    .replace('.', "")
                    .trim_start_matches('0')
                    .trim_end_matches('0')
                    .len()
            };
            let theirs = serde_json::to_string(&Value::from(x)).unwrap();
            assert_eq!(digits(&t), digits(&theirs), "{t} vs {theirs}");
        }
        f *= 7.3;
    }
    // In a whole document, as the client writes a request's params.
    let v = json!({"age": 30.5, "n": [1, -0.0, 2.0e-9], "s": "x"});
    assert_eq!(json::text(&v), r#"{"age":30.5,"n":[1,-0.0,2e-9],"s":"x"}"#);
}

/// Numbers read in the wasm (`json::parse`, as a host's answers cross in as
/// `JSON.stringify`'s text) are the nearest `f64`, bit for bit as Rust's reader (and
/// `JSON.parse`) reads them: on the reader's fast path and on the JS engine's
/// `Number(text)`. serde_json's default reader, which the crate followed before, read
/// -1.5e-300 as -1.4999999999999998e-300.
#[wasm_bindgen_test]
fn numbers_are_read_as_the_nearest_float() {
    use mcp_wasm_client::json;
    let read = |t: &str| match json::parse(t) {
        Ok(json::Value::Number(n)) => n.as_f64().map(f64::to_bits),
        other => panic!("{t}: {other:?}"),
    };
    for t in [
        "-1.5e-300",
        "0.30000000000000004",
        "2.2250738585072011e-308",
        "2.4703282292062328e-324",
        "1.00000000000000011102230246251565404236316680908203126",
        "123456789012345678901234567890e-10",
        "18446744073709551616",
        "-0.0",
        "1e-400",
        "12.5",
    ] {
        assert_eq!(read(t), t.parse::<f64>().ok().map(f64::to_bits), "{t}");
    }
    assert!(json::parse("1e309").is_err());
    for t in decimals::random_decimals(20_000) {
        if let Ok(want) = t.parse::<f64>() {
            if want.is_finite() {
                assert_eq!(read(&t), Some(want.to_bits()), "{t}");
            }
        }
    }
}

#[path = "../support/decimals.rs"]
mod decimals;
