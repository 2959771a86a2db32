//! The sans-IO engine: state machines driven by inputs ("this response arrived", "the
//! time is now T", "the host answered") that return actions ("send this", "wake me at T",
//! "ask the host this"). Nothing here performs I/O or reads a clock.
//!
//! - [`core::Core`]: one client; multiplexes every operation.
//! - `call::Call`: one logical request with its MRTR rounds, re-issue and time budget.
//! - `exchanges::Exchanges`: every request in flight (slots, JSON-RPC id routing, OAuth
//!   holds and replays, legacy resumptions); `timers::TimerTable`: every deadline;
//!   `ids`: one newtype per kind of id.
//! - `task`: task drivers (tasks extension).
//! - `listen`: the `subscriptions/listen` stream.
//! - `cache`, [`tools`]: cacheable results, what the client knows of the tools;
//!   [`ToolArguments`]: a tool call's arguments as the host's JSON text.

pub(crate) mod actions;
pub(crate) mod arguments;
pub(crate) mod cache;
pub(crate) mod call;
pub(crate) mod config;
pub(crate) mod core;
pub(crate) mod exchange;
pub(crate) mod exchanges;
pub(crate) mod handle;
pub(crate) mod ids;
pub(crate) mod input_requests;
pub(crate) mod listen;
pub(crate) mod ops;
pub(crate) mod server_requests;
pub(crate) mod session;
pub(crate) mod shared;
pub(crate) mod small_map;
pub(crate) mod task;
pub(crate) mod timers;
pub mod tools;
pub(crate) mod transport;

pub use actions::{
    Action, Ask, AskId, AuthAction, AuthInput, OpId, OpOptions, Output, PeerAction, TaskView,
};
// What `Core::on_auth` and `Config::auth` take, for the engine fuzz target's OAuth runs.
pub use crate::auth::dpop::{ClientKey, DpopMode, JwsAlg};
pub use crate::auth::flow::{AuthConfig, AuthorizeReq};
pub use arguments::ToolArguments;
pub use config::{Config, ElicitationModes, SamplingSupport, ValidateOutput, VersionChoice};
pub use core::{Core, ResponseHead, RestoreSkip, TaskRef};
pub use ids::AuthStepId;
pub use ops::{Listing, Purpose, Want};

#[cfg(test)]
pub mod testkit;
#[cfg(test)]
mod tests;
