//! Engine tests: scripted peers, a fake clock, no I/O.

mod mrtr;
mod spine;
