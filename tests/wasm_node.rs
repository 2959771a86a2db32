//! wasm integration tests in Node (no configure macro: wasm-bindgen-test-runner uses Node).
//! The body, shared with `wasm_browser.rs`, is `wasm/common.rs`.
#![cfg(target_arch = "wasm32")]

#[path = "wasm/common.rs"]
mod common;
