//! The sans-IO engine: state machines driven by inputs ("this response arrived", "the
//! time is now T", "the host answered") that return actions ("send this", "wake me at T",
//! "ask the host this"). Nothing here performs I/O or reads a clock.
//!
//! - [`core::Core`]: one client; multiplexes every operation.
//! - [`call::Call`]: one logical request with its MRTR rounds, re-issue and time budget.
//! - [`exchanges::Exchanges`]: every request in flight (slots, JSON-RPC id routing, OAuth
//!   holds and replays, legacy resumptions); [`timers::TimerTable`]: every deadline;
//!   [`ids`]: one newtype per kind of id.
//! - [`task`]: task drivers (tasks extension).
//! - [`listen`]: the `subscriptions/listen` stream.
//! - [`cache`], [`tools`]: cacheable results, what the client knows of the tools.

pub mod actions;
pub mod cache;
pub mod call;
pub mod config;
pub mod core;
pub mod exchange;
pub mod exchanges;
pub mod handle;
pub mod ids;
pub mod listen;
pub mod ops;
pub mod server_requests;
pub mod session;
pub mod shared;
pub mod task;
pub mod timers;
pub mod tools;
pub mod transport;

pub use actions::{
    Action, Ask, AskId, AskScope, AuthStepId, OpId, OpOptions, Output, SubscriptionEvent, TaskView,
};
pub use config::{
    Config, ElicitationModes, Limits, SamplingSupport, ValidateOutput, VersionChoice,
};
pub use core::{Core, ResponseHead, TaskRef};
pub use ops::{Listing, Purpose, Want};

#[cfg(test)]
pub mod testkit;
#[cfg(test)]
mod tests;
