//! Engine tests: scripted peers, a fake clock, no I/O.

mod listen;
mod mrtr;
mod spine;
mod tasks;
