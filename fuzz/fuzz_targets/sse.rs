#![no_main]
//! See `fuzz/src/sse.rs` for what this target checks.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    mcp_fuzz::sse::run(data);
});
