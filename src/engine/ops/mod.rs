//! The operations a host starts: single requests (with their post-processing: cache,
//! tool checks, task payloads), paginated listings, tool calls (with `x-mcp-header`,
//! output validation, the `-32020` re-list, and transparent tasks) and task waits.
//!
//! One file per kind of operation: `rpc` (single requests), `pages` (listings),
//! `tool` (tool calls), `wait` (task waits) and `authorize` (`authorize()`); this file holds what they share, and
//! `operation` the one interface they all answer ([`Operation`]).

mod authorize;
mod operation;
mod pages;
mod rpc;
mod tool;
mod wait;

pub(crate) use authorize::AuthOp;
pub(crate) use operation::{Aborted, OpInput, Operation};
pub(crate) use pages::{Pager, PagesOp};
pub(crate) use rpc::RpcOp;
pub(crate) use tool::{check_tool_result, ToolOp};
pub(crate) use wait::WaitOp;
pub use wait::Want;

use crate::engine::actions::{OpOptions, Output};
use crate::engine::call::CallPolicy;
use crate::engine::listen::ListenOp;
use crate::engine::shared::{Era, Shared};
use crate::engine::task::{Note, TaskBook};
use crate::error::Result;
use crate::json::{Map, Value};

/// What handling an input did to an operation.
pub(crate) enum Step {
    Pending,
    Done(Result<Output>),
}

/// What the operations can reach.
pub(crate) struct Ctx<'a> {
    pub sh: &'a mut Shared,
    pub tasks: &'a mut TaskBook,
    /// Notes from task drivers for the core to deliver to waiters.
    pub notes: Vec<Note>,
}

/// A request the host starts, typed: what it sends ([`Purpose::method`], the one place the
/// host's method names are spelt) and how its result is post-processed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Purpose {
    Discover,
    ToolsList,
    PromptsList,
    ResourcesList,
    ResourceTemplatesList,
    Read,
    Prompt,
    Complete,
    /// `tools/call` (driven by `ToolOp`, never a single request).
    CallTool,
    TaskGet(String),
    TaskUpdate(String),
    TaskCancel(String),
    /// `tasks/list` (2025-11-25 servers only).
    TaskList,
}

impl Purpose {
    /// The JSON-RPC method this request sends (schema.ts names).
    pub fn method(&self) -> &'static str {
        match self {
            Purpose::Discover => "server/discover",
            Purpose::ToolsList => "tools/list",
            Purpose::PromptsList => "prompts/list",
            Purpose::ResourcesList => "resources/list",
            Purpose::ResourceTemplatesList => "resources/templates/list",
            Purpose::Read => "resources/read",
            Purpose::Prompt => "prompts/get",
            Purpose::Complete => "completion/complete",
            Purpose::CallTool => "tools/call",
            Purpose::TaskGet(_) => "tasks/get",
            Purpose::TaskUpdate(_) => "tasks/update",
            Purpose::TaskCancel(_) => "tasks/cancel",
            Purpose::TaskList => "tasks/list",
        }
    }

    /// True for the requests [`Core::request`](crate::engine::Core::request) starts as they
    /// are (the others have their own start functions and checks).
    pub fn is_single_request(&self) -> bool {
        matches!(
            self,
            Purpose::ToolsList
                | Purpose::PromptsList
                | Purpose::ResourcesList
                | Purpose::ResourceTemplatesList
                | Purpose::Read
                | Purpose::Prompt
                | Purpose::Complete
        )
    }
}

/// The paginated lists (`listAll*` follows their `nextCursor`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listing {
    Tools,
    Prompts,
    Resources,
    ResourceTemplates,
}

impl Listing {
    /// The request of one page.
    pub(crate) fn purpose(self) -> Purpose {
        match self {
            Listing::Tools => Purpose::ToolsList,
            Listing::Prompts => Purpose::PromptsList,
            Listing::Resources => Purpose::ResourcesList,
            Listing::ResourceTemplates => Purpose::ResourceTemplatesList,
        }
    }

    pub fn method(self) -> &'static str {
        self.purpose().method()
    }

    /// The result's array of items (schema.ts `ListToolsResult.tools`, ...).
    pub(crate) fn items_key(self) -> &'static str {
        match self {
            Listing::Tools => "tools",
            Listing::Prompts => "prompts",
            Listing::Resources => "resources",
            Listing::ResourceTemplates => "resourceTemplates",
        }
    }
}

/// An operation in flight.
pub(crate) enum Op {
    Rpc(RpcOp),
    Pages(PagesOp),
    Tool(ToolOp),
    Wait(WaitOp),
    Listen(ListenOp),
    Auth(AuthOp),
}

/// The policy of a host-started request.
pub(crate) fn policy_for(sh: &Shared, purpose: &Purpose, opts: &OpOptions) -> CallPolicy {
    let tool_call = *purpose == Purpose::CallTool;
    CallPolicy {
        allow_input: tool_call || matches!(purpose, Purpose::Prompt | Purpose::Read),
        allow_task: tool_call && sh.cfg.tasks_enabled() && sh.era == Era::Modern,
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

fn with_meta(mut params: Map, opts: &OpOptions) -> Map {
    if let Some(m) = &opts.meta {
        params.insert("_meta".into(), Value::Object(m.clone()));
    }
    params
}
