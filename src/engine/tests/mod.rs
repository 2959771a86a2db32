//! Engine tests: scripted peers, a fake clock, no I/O.

mod auth;
mod auth_lock;
#[cfg(feature = "legacy")]
mod legacy;
#[cfg(feature = "legacy")]
mod lifecycle;
mod listen;
#[cfg(not(feature = "legacy"))]
mod modern_only;
mod mrtr;
mod peers;
mod quiet;
mod spine;
mod task_store;
mod tasks;
mod visibility;
