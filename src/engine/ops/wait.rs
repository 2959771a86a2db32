//! Task waits: `waitForTask` and `getTaskResult` ([`WaitOp`]), and what they return.

use crate::engine::actions::{Output, TaskView};
use crate::engine::task::TaskBook;
use crate::error::json_object;
use crate::error::{sanitize, Error, ErrorKind, Result};
use crate::time::Millis;
use serde_json::Value;

/// What a wait returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    /// The completed task (`waitForTask`).
    Task,
    /// The task's result (`getTaskResult`).
    Result,
}

/// `waitForTask` / `getTaskResult`.
pub struct WaitOp {
    pub task_id: String,
    pub want: Want,
    pub deadline: Option<Millis>,
}

impl WaitOp {
    pub fn on_final(&self, r: Result<TaskView>) -> Result<Output> {
        let v = r?;
        match self.want {
            Want::Task => Ok(Output::Task(v)),
            Want::Result => match v.result {
                Some(raw) => Ok(Output::Raw(raw)),
                None => Err(Error::invalid_result("task completed without a result")),
            },
        }
    }

    pub fn timeout_error(&self, tasks: &TaskBook) -> Error {
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
