//! The operations a host starts: single requests (with their post-processing: cache,
//! tool checks, task payloads), paginated listings, tool calls (with `x-mcp-header`,
//! output validation, the `-32020` re-list, and transparent tasks) and task waits.
//!
//! One file per kind of operation: `rpc` (single requests), `pages` (listings),
//! `tool` (tool calls) and `wait` (task waits); this file holds what they share, and
//! `operation` the one interface they all answer ([`Operation`]).

mod operation;
mod pages;
mod rpc;
mod tool;
mod wait;

pub use operation::{Aborted, OpInput, Operation};
pub use pages::{Pager, PagesOp};
pub use rpc::RpcOp;
pub use tool::{check_tool_result, ToolOp};
pub use wait::{WaitOp, Want};

use crate::engine::actions::{OpOptions, Output};
use crate::engine::call::CallPolicy;
use crate::engine::listen::ListenOp;
use crate::engine::shared::{Era, Shared};
use crate::engine::task::{Note, TaskBook};
use crate::error::Result;
use serde_json::{Map, Value};

/// What handling an input did to an operation.
pub enum Step {
    Pending,
    Done(Result<Output>),
}

/// What the operations can reach.
pub struct Ctx<'a> {
    pub sh: &'a mut Shared,
    pub tasks: &'a mut TaskBook,
    /// Notes from task drivers for the core to deliver to waiters.
    pub notes: Vec<Note>,
}

/// Why a single request was made: decides its post-processing.
#[derive(Clone, Debug)]
pub enum Purpose {
    Discover,
    ToolsList,
    /// `prompts/list`, `resources/list`, `resources/templates/list`.
    List,
    Read,
    Prompt,
    Complete,
    TaskGet(String),
    TaskUpdate(String),
    TaskCancel(String),
}

/// An operation in flight.
pub enum Op {
    Rpc(RpcOp),
    Pages(PagesOp),
    Tool(ToolOp),
    Wait(WaitOp),
    Listen(ListenOp),
}

/// The policy of a host-started request.
pub fn policy_for(sh: &Shared, method: &str, opts: &OpOptions) -> CallPolicy {
    CallPolicy {
        allow_input: matches!(method, "tools/call" | "prompts/get" | "resources/read"),
        allow_task: method == "tools/call" && sh.cfg.tasks_enabled() && sh.era == Era::Modern,
        timeout_ms: opts.timeout_ms.unwrap_or(sh.cfg.request_timeout_ms),
        reset_on_progress: opts.reset_timeout_on_progress,
        hard_deadline: opts
            .max_total_timeout_ms
            .or(sh.cfg.max_total_timeout_ms)
            .map(|ms| sh.now.saturating_add(ms)),
        progress: opts.progress,
        log_level: opts.log_level.clone(),
        reissue_on_drop: true,
    }
}

fn with_meta(mut params: Map<String, Value>, opts: &OpOptions) -> Map<String, Value> {
    if let Some(m) = &opts.meta {
        params.insert("_meta".into(), Value::Object(m.clone()));
    }
    params
}
