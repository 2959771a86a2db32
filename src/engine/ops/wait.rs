//! Task waits: `waitForTask` and `getTaskResult` ([`WaitOp`]), and what they return.

use super::{Aborted, Ctx, OpInput, Operation, Step};
use crate::engine::actions::{OpId, Output, TaskView};
use crate::engine::call::CallInput;
use crate::engine::shared::Era;
use crate::engine::task::TaskBook;
use crate::error::json_object;
use crate::error::{sanitize, Error, ErrorKind, Result};
use crate::json::Value;
use crate::protocol::tasks::Task;
use crate::time::Millis;

/// What a wait returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    /// The completed task (`waitForTask`).
    Task,
    /// The task's result (`getTaskResult`).
    Result,
}

/// `waitForTask` / `getTaskResult`.
pub(crate) struct WaitOp {
    pub task_id: String,
    pub want: Want,
    pub deadline: Option<Millis>,
}

impl WaitOp {
    /// Joins the task's driver (an idle one polls at once, or an interval after its last
    /// poll when that was more recent: rules 4 and 5); when the task already
    /// ended, its final note is left in `cx.notes` for the settle that follows.
    pub(crate) fn attach(&self, cx: &mut Ctx, id: OpId, seed: Option<&Task>) {
        let legacy = cx.sh.era != Era::Modern;
        let notes = cx
            .tasks
            .attach(cx.sh, seed, &self.task_id, id, self.deadline, legacy);
        cx.notes.extend(notes);
    }

    pub(crate) fn on_final(&self, r: Result<TaskView>) -> Result<Output> {
        let v = r?;
        match self.want {
            Want::Task => Ok(Output::Task(v)),
            Want::Result => match v.result {
                Some(raw) => Ok(Output::Raw(raw)),
                None => Err(Error::invalid_result("task completed without a result")),
            },
        }
    }

    pub(crate) fn timeout_error(&self, tasks: &TaskBook) -> Error {
        let mut data = vec![("taskId", Value::from(self.task_id.as_str()))];
        if let Some(t) = tasks.last(&self.task_id) {
            data.push(("task", Value::Object(t.to_value())));
        }
        let data = json_object(data);
        Error::new(
            ErrorKind::TaskTimeout,
            format!(
                "waiting for task \"{}\" timed out; the task keeps running",
                sanitize(&self.task_id, 100)
            ),
        )
        .with_data(data)
    }
}

impl Operation for WaitOp {
    /// Ends with the task, or at its deadline (the task keeps running).
    fn handle(&mut self, cx: &mut Ctx, id: OpId, input: OpInput) -> Step {
        match input {
            OpInput::TaskFinal(r) => Step::Done(self.on_final(r)),
            OpInput::Call(CallInput::Timer) if self.deadline.is_some_and(|d| cx.sh.now >= d) => {
                cx.tasks.detach(cx.sh, &self.task_id, id);
                Step::Done(Err(self.timeout_error(cx.tasks)))
            }
            OpInput::Call(_) | OpInput::Notification(..) | OpInput::Authorized(_) => Step::Pending,
        }
    }

    fn deadline(&self) -> Option<Millis> {
        self.deadline
    }

    fn abort(&mut self, cx: &mut Ctx, id: OpId) -> Aborted {
        cx.tasks.detach(cx.sh, &self.task_id, id);
        Aborted::Detached(self.task_id.clone())
    }

    fn task(&self) -> Option<&str> {
        Some(&self.task_id)
    }
}
