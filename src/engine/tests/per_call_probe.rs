//! A probe, not a test (it is `#[ignore]`d and asserts no time): the engine's own native
//! time per `tools/call`, without the wasm, the shell or a network. BENCHMARKS.md ("per
//! call across Node release lines") sets it beside what the same calls cost in Node:
//!
//! ```sh
//! cargo test --release --lib per_call_probe -- --ignored --nocapture
//! SCHEMA=40 cargo test --release --lib per_call_probe -- --ignored --nocapture
//! ```
//!
//! `SCHEMA=n`: the tool declares an `outputSchema` of `n` string properties (each with a
//! description), and each result carries a `structuredContent` it validates. `LIST=1`: the
//! tools are listed again before each call (an agent loop that lists, then calls). `BATCH=k`:
//! k calls started, then their k responses handed over (the bench's concurrent pattern;
//! with `LIST=1` the tools are then listed before each batch). `SITES=1`: one more call, with
//! the two innermost frames of this crate printed for each of its allocations.

use crate::engine::actions::{Action, OpOptions};
use crate::engine::core::ResponseHead;
use crate::engine::testkit::*;
use crate::json;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Counts the allocations of the thread that makes them (the probe's, and each test's own):
/// the probe prints its per-call count. A test binary only (`cfg(test)`); the wasm has Talc.
struct Counting;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
    /// Bytes allocated and not freed by this thread (frees of another thread's blocks
    /// make it wrap: read only differences within one test).
    static LIVE: Cell<i64> = const { Cell::new(0) };
}

thread_local! {
    /// `SITES=1`: where this thread's allocations are made (`note_site`), while set.
    static TRACING: Cell<bool> = const { Cell::new(false) };
    static SITES: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The first two frames of this crate (the engine's, not the probe's) that made an
/// allocation. Tracing is switched off while the backtrace is taken: taking and formatting
/// it allocate too.
fn note_site() {
    if !TRACING.with(Cell::get) {
        return;
    }
    TRACING.with(|t| t.set(false));
    let bt = format!("{}", std::backtrace::Backtrace::force_capture());
    let frames: Vec<&str> = bt
        .lines()
        .filter_map(|l| l.trim().split_once(": ").map(|(_, f)| f))
        .filter(|f| f.starts_with("mcp_wasm_client::") && !f.contains("per_call_probe"))
        .take(2)
        .collect();
    SITES.with(|s| s.borrow_mut().push(frames.join(" < ")));
    TRACING.with(|t| t.set(true));
}

// SAFETY: every call is System's own; the counter is a const-initialised thread-local Cell
// (its access does not allocate; `note_site` only while a probe traces, and not re-entered).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        note_site();
        ALLOCS.with(|c| c.set(c.get() + 1));
        LIVE.with(|c| c.set(c.get() + l.size() as i64));
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.with(|c| c.set(c.get() - l.size() as i64));
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        note_site();
        ALLOCS.with(|c| c.set(c.get() + 1));
        LIVE.with(|c| c.set(c.get() + n as i64 - l.size() as i64));
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

fn allocs() -> u64 {
    ALLOCS.with(Cell::get)
}

/// Bytes this thread has allocated and not freed (`Counting`; differences only).
pub(super) fn live_bytes() -> i64 {
    LIVE.with(Cell::get)
}

/// The id the engine gave a request (`"id":<n>` in its body).
fn rpc_id(body: &str) -> u64 {
    let at = body.find("\"id\":").map(|i| i + 5).unwrap_or(body.len());
    let rest = &body[at..];
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..end].parse().unwrap_or(0)
}

#[test]
#[ignore = "a probe: prints the engine's time per call (run it with --ignored --nocapture)"]
fn per_call_probe() {
    let mut h = Harness::modern();
    let o = OpOptions::default();
    let args = json!({"text": "hello from the benchmark"});
    // The first call lists the tools; the calls measured go straight out, as in the bench.
    let op = h
        .core
        .call_tool("echo", Some(args.clone()), false, &o, h.now);
    let fields: usize = std::env::var("SCHEMA")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut echo = tool("echo");
    let structured = if fields > 0 {
        let props: crate::json::Map = (0..fields)
            .map(|i| {
                let d = format!("field {i} of the echo, as the server describes it");
                (format!("f{i}"), json!({"type": "string", "description": d}))
            })
            .collect();
        echo["outputSchema"] = json!({"type": "object", "properties": props});
        r#","structuredContent":{"f0":"hello"}"#
    } else {
        ""
    };
    let page = tools_page(vec![echo], None);
    let list = h.take();
    h.result(&list, page.clone());
    let relist = std::env::var("LIST").is_ok_and(|v| v == "1");
    let first = h.take();
    let mut first_result =
        json!({"content": [{"type": "text", "text": "{\"text\":\"hello from the benchmark\"}"}]});
    if fields > 0 {
        first_result["structuredContent"] = json!({"f0": "hello"});
    }
    h.result(&first, first_result);
    assert!(matches!(h.outcome(op), Some(Ok(_))));

    let n: u32 = std::env::var("N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);
    let args_text = args.to_string();
    // BATCH=k: k calls started, then their k responses handed over (the bench's concurrent
    // pattern: does any per-call work grow with the calls in flight?).
    let batch: u32 = std::env::var("BATCH")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1);
    let head: [Option<String>; 5] = [Some("application/json".into()), None, None, None, None];
    // The server's answer to the echo call with JSON-RPC id `id` (the bench server's bytes).
    let echo_body = |id: u64| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"complete","content":[{{"type":"text","text":"{{\"text\":\"hello from the benchmark\"}}"}}]{structured}}}}}"#
        )
    };
    let start = std::time::Instant::now();
    let mut done = 0;
    let (mut in_calls, mut in_harness) = (0, 0);
    let mut sent_calls = Vec::with_capacity(batch as usize);
    for _ in 0..n / batch {
        if relist {
            let op = h.core.list_all(Listing::Tools, &o, h.now);
            let s = h.take();
            h.result(&s, page.clone());
            assert!(matches!(h.outcome(op), Some(Ok(_))));
        }
        // What the shell does per call: start the op, perform its send, hand over the head
        // and the whole JSON body (the server's bytes), and take the result.
        // The arguments as the shell hands them over: the host's JSON text (made, as the
        // shell's `JSON.stringify` is, before the count starts).
        sent_calls.clear();
        for _ in 0..batch {
            let a = Some(args_text.clone());
            let before = allocs();
            h.core.call_tool_json("echo", a, false, &o, h.now);
            while let Some(a) = h.core.poll_action() {
                if let Action::Send(req) = a {
                    sent_calls.push((req.id, rpc_id(req.body_text().unwrap_or(""))));
                }
            }
            in_calls += allocs() - before;
        }
        for &(wire, id) in &sent_calls {
            let mid = allocs();
            let body = echo_body(id);
            let sent = allocs();
            h.core.on_head(wire, ResponseHead::read(200, &head), h.now);
            h.core.on_body(wire, body.into_bytes(), h.now);
            h.core.on_end(wire, h.now);
            while let Some(a) = h.core.poll_action() {
                if let Action::Done { outcome, .. } = a {
                    assert!(outcome.is_ok(), "{:?}", outcome.err());
                    done += 1;
                }
            }
            in_calls += allocs() - sent;
            in_harness += sent - mid;
        }
    }
    let n = n / batch * batch;
    let per_call = start.elapsed().as_secs_f64() * 1e6 / f64::from(n);
    assert_eq!(done, n, "every call ended with a result");
    eprintln!(
        "the engine, native, per tools/call: {per_call:.2} µs, {:.1} allocations ({n} calls in batches of {batch}; outputSchema of {fields} properties; listed before each batch: {relist})",
        in_calls as f64 / f64::from(n)
    );
    let _ = in_harness;
    // SITES=1: one more call, sequential, with the place of each of its allocations printed.
    if std::env::var("SITES").is_ok_and(|v| v == "1") {
        let a = Some(args_text.clone());
        TRACING.with(|t| t.set(true));
        h.core.call_tool_json("echo", a, false, &o, h.now);
        let mut sent = None;
        while let Some(a) = h.core.poll_action() {
            if let Action::Send(req) = a {
                sent = Some((req.id, rpc_id(req.body_text().unwrap_or(""))));
            }
        }
        TRACING.with(|t| t.set(false));
        let (wire, id) = sent.expect("the call was sent");
        let body = echo_body(id);
        TRACING.with(|t| t.set(true));
        h.core.on_head(wire, ResponseHead::read(200, &head), h.now);
        h.core.on_body(wire, body.into_bytes(), h.now);
        h.core.on_end(wire, h.now);
        while h.core.poll_action().is_some() {}
        TRACING.with(|t| t.set(false));
        let sites = SITES.with(|s| std::mem::take(&mut *s.borrow_mut()));
        eprintln!(
            "allocations of one call ({}), where they are made:",
            sites.len()
        );
        for s in sites {
            eprintln!("  {s}");
        }
    }
}
