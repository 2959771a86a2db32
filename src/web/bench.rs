//! Benchmark hooks, compiled only with the cargo feature `bench` (never in the shipped
//! package: `bench/run.sh` builds a separate package with it). They let the benchmarks
//! time one piece of the core inside wasm, without fetch, streams or the engine around it.

use crate::sse::{SseEvent, SseParser, DEFAULT_MAX_EVENT_BYTES};
use std::cell::RefCell;
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
