//! The wasm32 shell: performs the engine's actions with web platform APIs (global
//! `fetch`, `ReadableStream`, `AbortController`, timers) and exposes the JS API. No
//! protocol decisions live here: those are in the engine.

mod asks;
mod auth;
mod auth_lock;
#[cfg(feature = "bench")]
mod bench;
mod client;
mod convert;
mod driver;
mod event_source;
mod fetch;
pub(crate) mod js;
mod options;
mod peers;
mod store;
mod task;
mod types;
mod visibility;

// The JS API. Free `#[wasm_bindgen]` functions must be `pub`, so they are re-exported here.
pub use client::{error_classes, version, McpClient};
pub use task::Task;

#[cfg(feature = "bench")]
pub use bench::{
    __bench_core_next, __bench_core_open, __bench_core_respond, __bench_core_result,
    __bench_core_start, __bench_core_wire, __bench_lean_id, __bench_lean_request,
    __bench_lean_response, __bench_sse, __bench_sse_reset,
};
