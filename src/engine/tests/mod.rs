//! Engine tests: scripted peers, a fake clock, no I/O.

mod auth;
mod auth_lock;
mod dpop;
mod legacy;
mod lifecycle;
mod listen;
mod mrtr;
mod peers;
mod push;
mod quiet;
mod spine;
mod task_store;
mod tasks;
mod visibility;
