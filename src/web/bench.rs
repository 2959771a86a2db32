//! Benchmark hooks, compiled only with the cargo feature `bench` (never in the shipped
//! package: `bench/run.sh` builds a separate package with it). They let the benchmarks
//! time one piece of the core inside wasm, without fetch, streams or the engine around it,
//! and run the probes of a leaner call path (`bench/clients/lean.js`, `lean-core.js`).

use crate::engine::actions::{Action, OpOptions, Output};
use crate::engine::arguments::ToolArguments;
use crate::engine::{Config, Core, ResponseHead, VersionChoice};
use crate::protocol::jsonrpc::{decode, Message, RequestId};
use crate::protocol::result::{peek_result_type, ResultType};
use crate::sse::{SseEvent, SseParser, DEFAULT_MAX_EVENT_BYTES};
use std::cell::{Cell, RefCell};
use wasm_bindgen::prelude::*;

thread_local! {
    /// One parser for the stream being fed, with its event buffer (reused, as the
    /// client's exchange reuses its own).
    static SSE: RefCell<(SseParser, Vec<SseEvent>)> =
        RefCell::new((SseParser::new(DEFAULT_MAX_EVENT_BYTES), Vec::new()));
}

/// Feeds one chunk of an SSE stream to the crate's parser (the one the client uses for
/// `text/event-stream` responses); returns how many events it completed, or `u32::MAX`
/// when the stream is invalid. The events are dropped, as the client drops them after
/// handing their data to the engine.
#[wasm_bindgen]
pub fn __bench_sse(chunk: &[u8]) -> u32 {
    SSE.with(|s| {
        let (parser, out) = &mut *s.borrow_mut();
        out.clear();
        match parser.feed(chunk, out) {
            Ok(()) => out.len() as u32,
            Err(_) => u32::MAX,
        }
    })
}

/// Starts a new stream (a fresh parser).
#[wasm_bindgen]
pub fn __bench_sse_reset() {
    SSE.with(|s| *s.borrow_mut() = (SseParser::new(DEFAULT_MAX_EVENT_BYTES), Vec::new()));
}

// A lean call path, for one question only (BENCHMARKS.md, the twenty-sixth session): how
// much of what our client adds to a call on loopback would a call path that runs far less
// wasm code take away? These two hooks do the least a client must do in the wasm for a
// tools/call answered with JSON: check the host's arguments, write the request with the
// constant `_meta`, and on the answer check UTF-8, decode the JSON-RPC envelope with the
// client's own decoder, match the id, and read `resultType`; the result text goes back to JS
// for `JSON.parse`, as the client's does. No engine, no operations table, no driver, no
// option readers. bench/clients/lean.js calls `fetch` around them as our runner does.

thread_local! {
    /// The lean path's next request id.
    static LEAN_ID: Cell<i64> = const { Cell::new(1) };
}

/// The constant `_meta` of a request, as the client writes it for `clientInfo` bench 1.0.0.
const LEAN_META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1.0.0"}}"#;

fn lean_err(e: crate::error::Error) -> JsValue {
    JsValue::from_str(&e.to_string())
}

/// The request body of `tools/call` for `name` with `args` (what `JSON.stringify` wrote,
/// as UTF-8 bytes); its id is [`__bench_lean_id`]'s value before the call.
#[wasm_bindgen]
pub fn __bench_lean_request(name: &str, args: Vec<u8>) -> Result<Vec<u8>, JsValue> {
    let args = ToolArguments::from_stringify_utf8(args).map_err(lean_err)?;
    let id = LEAN_ID.with(|c| {
        let id = c.get();
        c.set(id + 1);
        id
    });
    let a = args.as_ref().map_or(&b"{}"[..], |a| a.get());
    let mut out = Vec::with_capacity(96 + name.len() + a.len() + LEAN_META.len());
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id.to_string().as_bytes());
    out.extend_from_slice(br#","method":"tools/call","params":{"name":"#);
    serde_json::to_writer(&mut out, name).map_err(|e| JsValue::from_str(&e.to_string()))?;
    out.extend_from_slice(br#","arguments":"#);
    out.extend_from_slice(a);
    out.extend_from_slice(br#","_meta":"#);
    out.extend_from_slice(LEAN_META.as_bytes());
    out.extend_from_slice(b"}}");
    Ok(out)
}

/// The id the next [`__bench_lean_request`] will use.
#[wasm_bindgen]
pub fn __bench_lean_id() -> f64 {
    LEAN_ID.with(|c| c.get() as f64)
}

/// The result text of the answer `body` to request `id`, or an error (not UTF-8, not a
/// JSON-RPC response, another id, a JSON-RPC error, a `resultType` other than `complete`).
#[wasm_bindgen]
pub fn __bench_lean_response(body: &[u8], id: f64) -> Result<String, JsValue> {
    let text =
        std::str::from_utf8(body).map_err(|_| JsValue::from_str("the answer is not UTF-8"))?;
    match decode(text).map_err(lean_err)? {
        Message::Response {
            id: RequestId::Number(n),
            result,
        } if n as f64 == id => match peek_result_type(&result).map_err(lean_err)? {
            ResultType::Complete => Ok(result.into_string()),
            _ => Err(JsValue::from_str("not a complete result")),
        },
        Message::Error { error, .. } => Err(JsValue::from_str(&error.message)),
        _ => Err(JsValue::from_str("not the answer to this request")),
    }
}

// The lean shell over the real engine (BENCHMARKS.md, the twenty-sixth session): the same
// JS as bench/clients/lean.js, but the request and the answer go through `Core`, the
// engine the client runs (its operations table, exchanges, ids, routing, the tool's result
// checks), driven as `per_call_probe` drives it; only the web shell (driver, futures,
// promises, option readers, the glue's crossings) is left out. Beside `lean`, it says
// whether a leaner call path needs a leaner engine or only a leaner shell.

/// The engine of the `__bench_core_*` hooks and where its call stands.
struct CoreProbe {
    core: Core,
    /// The exchange of the request handed to JS last.
    wire: u64,
    /// The call's end: its result text, or its error's message.
    done: Option<Result<String, String>>,
}

thread_local! {
    static CORE: RefCell<Option<CoreProbe>> = const { RefCell::new(None) };
}

fn core_now() -> u64 {
    js_sys::Date::now() as u64
}

/// A new engine for `url`, pinned to 2026-07-28, as the bench's client (`clientInfo` bench 1.0.0).
#[wasm_bindgen]
pub fn __bench_core_open(url: &str) -> Result<(), JsValue> {
    let mut cfg = Config::new(url);
    cfg.version = VersionChoice::Pinned("2026-07-28".into());
    cfg.client_info = crate::json!({"name": "bench", "version": "1.0.0"});
    let core = Core::new(cfg, core_now()).map_err(lean_err)?;
    CORE.with(|c| {
        *c.borrow_mut() = Some(CoreProbe {
            core,
            wire: 0,
            done: None,
        })
    });
    Ok(())
}

/// Starts `tools/call` of `name` with `args` (JSON text as UTF-8 bytes) in the engine.
#[wasm_bindgen]
pub fn __bench_core_start(name: &str, args: Vec<u8>) {
    CORE.with(|c| {
        if let Some(p) = c.borrow_mut().as_mut() {
            p.done = None;
            let args = String::from_utf8(args).ok();
            p.core
                .call_tool_json(name, args, false, &OpOptions::default(), core_now());
        }
    })
}

/// The engine's next request body (its exchange in [`__bench_core_wire`]), or `None` when
/// it has none (then [`__bench_core_result`] holds the call's end).
#[wasm_bindgen]
pub fn __bench_core_next() -> Option<Vec<u8>> {
    CORE.with(|c| {
        let mut c = c.borrow_mut();
        let p = c.as_mut()?;
        while let Some(a) = p.core.poll_action() {
            match a {
                Action::Send(req) => {
                    p.wire = req.id;
                    return Some(req.body.unwrap_or_default());
                }
                Action::Done { outcome, .. } => {
                    p.done = Some(match outcome {
                        Ok(Output::Raw(r)) => Ok(r.into_string()),
                        Ok(o) => Ok(o.into_value().to_string()),
                        Err(e) => Err(e.to_string()),
                    })
                }
                _ => {}
            }
        }
        None
    })
}

/// The exchange of the request [`__bench_core_next`] returned last.
#[wasm_bindgen]
pub fn __bench_core_wire() -> f64 {
    CORE.with(|c| c.borrow().as_ref().map_or(0.0, |p| p.wire as f64))
}

/// The answer to exchange `wire`, whole: its status, `Content-Type` and body.
#[wasm_bindgen]
pub fn __bench_core_respond(wire: f64, status: u16, content_type: Option<String>, body: Vec<u8>) {
    CORE.with(|c| {
        if let Some(CoreProbe { core, .. }) = c.borrow_mut().as_mut() {
            let wire = wire as u64;
            let now = core_now();
            let head = ResponseHead {
                status,
                content_type: content_type.as_deref(),
                ..Default::default()
            };
            core.on_head(wire, head, now);
            core.on_body(wire, body, now);
            core.on_end(wire, now);
        }
    })
}

/// The call's result text, once [`__bench_core_next`] has returned `None`.
#[wasm_bindgen]
pub fn __bench_core_result() -> Result<String, JsValue> {
    CORE.with(
        |c| match c.borrow_mut().as_mut().and_then(|p| p.done.take()) {
            Some(Ok(t)) => Ok(t),
            Some(Err(e)) => Err(JsValue::from_str(&e)),
            None => Err(JsValue::from_str("the call has not ended")),
        },
    )
}
