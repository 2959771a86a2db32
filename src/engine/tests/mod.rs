//! Engine tests: scripted peers, a fake clock, no I/O.

mod auth;
mod auth_lock;
mod dpop;
#[cfg(feature = "legacy")]
mod legacy;
#[cfg(feature = "legacy")]
mod legacy_sessions;
#[cfg(feature = "legacy")]
mod lifecycle;
mod listen;
#[cfg(not(feature = "legacy"))]
mod modern_only;
mod mrtr;
mod peers;
mod plain_call;
// Native only: it installs a counting global allocator (the wasm has Talc).
#[cfg(not(target_arch = "wasm32"))]
mod per_call_probe;
mod push;
mod quiet;
mod spine;
mod task_store;
mod tasks;
mod tool_arguments;
mod visibility;
mod whole_answer;
