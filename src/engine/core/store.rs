//! Durable tasks (issue 13): the host hands back the records its task store kept
//! (`engine::task::store` says what they hold and when they are written).

use super::Core;
use crate::engine::actions::TaskView;
use crate::engine::task::store::{key_prefix, RestoreSkip};
use crate::json::Value;
use crate::time::Millis;

impl Core {
    /// The prefix of this server's keys in the task store (what `resumeTasks` lists).
    pub fn task_store_prefix(&self) -> String {
        key_prefix(&self.sh.cfg.task_space())
    }

    /// A record read back from the task store under `key`: seeds the task's driver so
    /// that a later wait (`wait_task`) continues it, and returns the task as last seen.
    /// A record that cannot be used is skipped with the reason (the shell warns); an
    /// expired or ended one is also removed (`Action::ForgetTask`). Never panics on what
    /// the store holds.
    pub fn restore_task(
        &mut self,
        key: &str,
        record: &Value,
        now: Millis,
    ) -> Result<TaskView, RestoreSkip> {
        self.sh.now = self.sh.now.max(now);
        self.tasks.restore(&mut self.sh, key, record)
    }
}
