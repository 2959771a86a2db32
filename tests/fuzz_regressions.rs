//! Replays saved fuzz inputs through the same checks as the fuzz targets, on stable and
//! without cargo-fuzz: every file under `tests/regressions/<target>/` (inputs that once
//! crashed a target, kept after the fix) and under `fuzz/seeds/<target>/` (the seed corpus).
//!
//! The checks live in `fuzz/src/<target>.rs` and are compiled here with `#[path]`, so a
//! target and its regression test can never drift apart. See `RELIABILITY.md`.

// `cfg(fuzzing)` (set by cargo-fuzz) marks the checks that need fuzz-only dependencies.
#![allow(unexpected_cfgs)]

#[path = "../fuzz/src/oracle.rs"]
mod oracle;
#[path = "../fuzz/src/util.rs"]
mod util;

#[path = "../fuzz/src/engine.rs"]
mod engine;
#[path = "../fuzz/src/headers.rs"]
mod headers;
#[path = "../fuzz/src/json.rs"]
mod json;
#[path = "../fuzz/src/jsonrpc.rs"]
mod jsonrpc;
#[path = "../fuzz/src/results.rs"]
mod results;
#[path = "../fuzz/src/schema.rs"]
mod schema;
#[path = "../fuzz/src/sse.rs"]
mod sse;

use std::path::Path;

/// Runs `check` on every file of `tests/regressions/<target>/` and `fuzz/seeds/<target>/`;
/// returns how many ran. A failure names the file.
fn replay(target: &str, check: fn(&[u8])) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut n = 0;
    for dir in [
        root.join("tests/regressions").join(target),
        root.join("fuzz/seeds").join(target),
    ] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        files.sort();
        for f in files.into_iter().filter(|f| f.is_file()) {
            let data = std::fs::read(&f).unwrap();
            let name = f.display().to_string();
            if let Err(e) = std::panic::catch_unwind(|| check(&data)) {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                panic!("{target}: {name} fails: {msg}");
            }
            n += 1;
        }
    }
    n
}

#[test]
fn sse_inputs() {
    assert!(replay("sse", sse::run) > 0);
}

#[test]
fn json_inputs() {
    assert!(replay("json", json::run) > 0);
}

#[test]
fn jsonrpc_inputs() {
    assert!(replay("jsonrpc", jsonrpc::run) > 0);
}

#[test]
fn results_inputs() {
    assert!(replay("results", results::run) > 0);
}

#[test]
fn headers_inputs() {
    assert!(replay("headers", headers::run) > 0);
}

#[test]
fn schema_inputs() {
    assert!(replay("schema", schema::run) > 0);
}

#[test]
fn engine_inputs() {
    assert!(replay("engine", engine::run) > 0);
}

/// One input, for debugging: `MCP_FUZZ_TARGET=engine MCP_FUZZ_INPUT=path
/// MCP_FUZZ_TRACE=1 cargo test --test fuzz_regressions one_input -- --ignored --nocapture`.
#[test]
#[ignore]
fn one_input() {
    let target = std::env::var("MCP_FUZZ_TARGET").expect("MCP_FUZZ_TARGET");
    let data = std::fs::read(std::env::var("MCP_FUZZ_INPUT").expect("MCP_FUZZ_INPUT")).unwrap();
    match target.as_str() {
        "sse" => sse::run(&data),
        "json" => json::run(&data),
        "jsonrpc" => jsonrpc::run(&data),
        "results" => results::run(&data),
        "headers" => headers::run(&data),
        "schema" => schema::run(&data),
        "engine" => engine::run(&data),
        other => panic!("unknown target {other}"),
    }
}
