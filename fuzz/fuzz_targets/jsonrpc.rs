#![no_main]
//! See `fuzz/src/jsonrpc.rs` for what this target checks.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    mcp_fuzz::jsonrpc::run(data);
});
