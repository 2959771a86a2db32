//! wasm integration tests in headless Chromium: scripts/test.sh runs them with
//! wasm-bindgen-test-runner and ChromeDriver. The body, shared with `wasm_node.rs`, is
//! `wasm/common.rs`.
#![cfg(target_arch = "wasm32")]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[path = "wasm/common.rs"]
mod common;
