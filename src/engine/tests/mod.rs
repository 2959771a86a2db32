//! Engine tests: scripted peers, a fake clock, no I/O.

mod auth;
mod legacy;
mod lifecycle;
mod listen;
mod mrtr;
mod peers;
mod quiet;
mod spine;
mod tasks;
