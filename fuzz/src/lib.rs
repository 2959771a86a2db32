//! The checks behind the fuzz targets in `fuzz_targets/`, one module per target.
//!
//! Each module has `pub fn run(data: &[u8])`: it feeds the input to the code under test
//! and panics when a property is violated. The same files are compiled into
//! `tests/fuzz_regressions.rs` (with `#[path]`), which replays every saved input under
//! `tests/regressions/<target>/` and `fuzz/seeds/<target>/` on stable, without cargo-fuzz.
//! So: only `mcp_wasm_client`, `serde` and `serde_json` here, `crate::util` for helpers and
//! `crate::oracle` for serde_json's reading of a `Value`.

pub mod oracle;
pub mod util;

pub mod engine;
pub mod headers;
pub mod json;
pub mod jsonrpc;
pub mod results;
pub mod schema;
pub mod sse;
