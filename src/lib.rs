//! # mcp-wasm-client
//!
//! An MCP (Model Context Protocol, revision **2026-07-28**) client for browsers, Web
//! Workers, Node and edge runtimes, written in Rust and compiled to WebAssembly.
//!
//! The crate is split the way quinn-proto and h2 split theirs:
//!
//! | module | what it holds | runs on |
//! |---|---|---|
//! | [`json`](mod@json) | JSON: the `Value` the engine works on (`json!`), and reading and writing JSON text (into a `Value`, checked raw text, or member by member) | everywhere |
//! | [`protocol`] | JSON-RPC 2.0 and MCP types, names as in the spec's `schema.ts` | everywhere |
//! | [`sse`] | an incremental, bounded Server-Sent Events parser | everywhere |
//! | [`http`] | request framing (headers, `Mcp-Name`, base64 sentinel, `x-mcp-header`) and response classification | everywhere |
//! | [`schema`] | JSON Schema checks: tool `outputSchema`, elicitation answers | everywhere |
//! | `auth` | OAuth 2.1 authorization: discovery, client identity, PKCE, tokens, as a state machine | everywhere |
//! | [`engine`] | the sans-IO state machines: one call with its MRTR rounds, tasks, listen, cache, era | everywhere |
//! | `web` | the thin wasm32 shell: `fetch`, streams, timers, the JS API | wasm32 only |
//!
//! Everything but `web` is pure: it takes inputs ("this response arrived", "the time is
//! now T", "the host answered") and returns actions ("send this", "wake me at T", "ask
//! the host this"). It compiles and is tested natively with a fake clock.

// Two size lints are allowed on purpose. `result_large_err`: `Error` carries the peer's
// JSON-RPC `data` as a `crate::json::Value` (72 B with `preserve_order` on 64-bit hosts);
// errors are the cold path, and on wasm32, the shipped target, `Result<_, Error>` stays
// under the lint's 128 B. `large_enum_variant`: the engine's state enums (`Op`, `Step`,
// `Output`, `Start`, the exchange `Body`) hold one value per operation in flight; boxing
// the large variants would add an allocation per operation and nothing measurable.
#![allow(clippy::result_large_err, clippy::large_enum_variant)]
// Visibility tells the truth: `pub` only for what the wasm shell's JS API, the tests under
// `tests/` and the fuzz crate use; everything else is `pub(crate)` or narrower.
#![deny(unreachable_pub)]
// Natively the wasm shell (`web`) is not compiled, so what only it uses looks dead; the
// wasm32 build, which compiles every module, is the one that reports dead code.
#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code, unused_imports))]

pub(crate) mod auth;
pub(crate) mod base64;
pub mod engine;
pub mod error;
pub mod http;
pub mod json;
pub mod protocol;
pub mod schema;
pub(crate) mod sorted_map;
pub mod sse;
pub(crate) mod text;
pub mod time;

#[cfg(target_arch = "wasm32")]
pub mod web;

pub use error::{Error, ErrorKind, Result};

/// The wasm's global allocator: Talc (dynamic heap, grown with `memory.grow`) instead of
/// the default dlmalloc: smaller code and faster small allocations, which the per-call path
/// makes many of (BENCHMARKS.md, "the first call's path, second step"). Single-threaded
/// builds only (no `atomics`), as this crate's are.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
