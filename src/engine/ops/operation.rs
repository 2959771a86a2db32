//! The one shape of every operation: [`Operation`]. `Core` hands an operation its
//! inputs ([`OpInput`]) and settles what it answers ([`Step`]); it asks when the
//! operation's timer is due ([`Operation::deadline`]) and aborts it
//! ([`Operation::abort`]) without knowing its kind.

use super::{Ctx, Op, Step};
use crate::engine::actions::{OpId, TaskView};
use crate::engine::call::CallInput;
use crate::engine::shared::Shared;
use crate::engine::task::TaskBook;
use crate::error::Result;
use crate::json::Value;
use crate::time::Millis;

impl<'a> Ctx<'a> {
    /// What an operation reaches while it handles one input.
    pub(crate) fn new(sh: &'a mut Shared, tasks: &'a mut TaskBook) -> Ctx<'a> {
        Ctx {
            sh,
            tasks,
            notes: Vec::new(),
        }
    }
}

/// An input for an operation.
pub(crate) enum OpInput<'a> {
    /// An event of its exchanges, a host answer, progress, or its timer
    /// (`CallInput::Timer`, only when its deadline came).
    Call(CallInput<'a>),
    /// A notification on its stream (an operation that [hears](Operation::hears) them).
    Notification(&'a str, Value),
    /// The task it waits on ended (or the wait failed).
    TaskFinal(Result<TaskView>),
    /// The authorization flow it waits on ended (an operation that
    /// [awaits it](Operation::awaits_authorization)).
    Authorized(Result<()>),
}

/// What an aborted operation leaves to the core.
pub(crate) enum Aborted {
    Quiet,
    /// It stopped waiting on this task: the driver's timers follow.
    Detached(String),
    /// It drove this task to its result: the task is cancelled (`tasks/cancel`).
    CancelTask(String),
}

/// Every kind of operation. `Core` takes the operation out of its table, hands it one
/// input, and settles the [`Step`] (`Core::settle`): `Pending` puts it back and re-arms its
/// timer from [`deadline`](Operation::deadline); `Done` ends it (its exchanges close, the
/// host gets the outcome). Task notes it leaves in [`Ctx::notes`] are delivered after.
pub(crate) trait Operation {
    /// Handles one input.
    fn handle(&mut self, cx: &mut Ctx, id: OpId, input: OpInput) -> Step;
    /// When the operation's timer is due.
    fn deadline(&self) -> Option<Millis>;
    /// Ends the operation at the host's request; the core reports the abort.
    fn abort(&mut self, cx: &mut Ctx, id: OpId) -> Aborted;
    /// The task whose driver this operation waits on: its timers follow each step.
    fn task(&self) -> Option<&str> {
        None
    }
    /// True when notifications on its stream are its own (a subscription).
    fn hears(&self) -> bool {
        false
    }
    /// True when it waits for the authorization flow (`authorize()`): the flow's end is
    /// handed to it as [`OpInput::Authorized`].
    fn awaits_authorization(&self) -> bool {
        false
    }
}

impl Operation for Op {
    fn handle(&mut self, cx: &mut Ctx, id: OpId, input: OpInput) -> Step {
        match self {
            Op::Rpc(o) => o.handle(cx, id, input),
            Op::Pages(o) => o.handle(cx, id, input),
            Op::Tool(o) => o.handle(cx, id, input),
            Op::Wait(o) => o.handle(cx, id, input),
            Op::Listen(o) => o.handle(cx, id, input),
            Op::Auth(o) => o.handle(cx, id, input),
        }
    }

    fn deadline(&self) -> Option<Millis> {
        match self {
            Op::Rpc(o) => o.deadline(),
            Op::Pages(o) => o.deadline(),
            Op::Tool(o) => o.deadline(),
            Op::Wait(o) => o.deadline(),
            Op::Listen(o) => o.deadline(),
            Op::Auth(o) => o.deadline(),
        }
    }

    fn abort(&mut self, cx: &mut Ctx, id: OpId) -> Aborted {
        match self {
            Op::Rpc(o) => o.abort(cx, id),
            Op::Pages(o) => o.abort(cx, id),
            Op::Tool(o) => o.abort(cx, id),
            Op::Wait(o) => o.abort(cx, id),
            Op::Listen(o) => o.abort(cx, id),
            Op::Auth(o) => o.abort(cx, id),
        }
    }

    fn task(&self) -> Option<&str> {
        match self {
            Op::Rpc(o) => o.task(),
            Op::Pages(o) => o.task(),
            Op::Tool(o) => o.task(),
            Op::Wait(o) => o.task(),
            Op::Listen(o) => o.task(),
            Op::Auth(o) => o.task(),
        }
    }

    fn hears(&self) -> bool {
        match self {
            Op::Rpc(o) => o.hears(),
            Op::Pages(o) => o.hears(),
            Op::Tool(o) => o.hears(),
            Op::Wait(o) => o.hears(),
            Op::Listen(o) => o.hears(),
            Op::Auth(o) => o.hears(),
        }
    }

    fn awaits_authorization(&self) -> bool {
        match self {
            Op::Rpc(o) => o.awaits_authorization(),
            Op::Pages(o) => o.awaits_authorization(),
            Op::Tool(o) => o.awaits_authorization(),
            Op::Wait(o) => o.awaits_authorization(),
            Op::Listen(o) => o.awaits_authorization(),
            Op::Auth(o) => o.awaits_authorization(),
        }
    }
}
