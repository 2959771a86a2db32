#![no_main]
//! See `fuzz/src/json.rs` for what this target checks.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    mcp_fuzz::json::run(data);
});
