//! The inputs of the shared task stream (issue 14, `engine::task::push`): its exchanges'
//! events and messages, its timer, and the filter kept in step with the task drivers.

use super::Core;
use crate::engine::call::CallInput;
use crate::engine::shared::Owner;
use crate::engine::task::push::timer_owner;
use crate::json::Value;

impl Core {
    /// An event of listen request `gen` (0: the book's timer).
    #[inline(never)]
    pub(super) fn push_deliver(&mut self, gen: u64, input: CallInput) {
        let touched = self.tasks.push_input(&mut self.sh, gen, input);
        self.push_after(touched);
    }

    /// A message on listen request `gen`'s stream (nothing reaches the host but through
    /// the task drivers: status changes, outcomes, input).
    pub(super) fn push_notify(&mut self, gen: u64, method: &str, params: Value) {
        let (notes, touched) = self
            .tasks
            .push_notification(&mut self.sh, gen, method, params);
        self.push_after(touched);
        self.deliver_notes(notes);
    }

    /// The context is online again.
    pub(super) fn push_online(&mut self) {
        self.tasks.push_online(&mut self.sh);
        self.refresh(&timer_owner());
    }

    fn push_after(&mut self, touched: Vec<String>) {
        for t in touched {
            self.refresh_task(&t);
        }
        self.refresh(&timer_owner());
    }

    /// After a task changed: the filter follows, and the book's timer.
    pub(super) fn push_sync(&mut self, id: &str) {
        self.tasks.push_sync(&mut self.sh, id);
        self.refresh(&timer_owner());
    }

    /// The deadline of `Owner::Push(gen)`: the book's timer for 0, none for a stream.
    pub(super) fn push_deadline(&self, gen: u64) -> Option<crate::time::Millis> {
        (gen == 0).then(|| self.tasks.push_deadline()).flatten()
    }

    /// `close()`: the streams close.
    pub(super) fn push_close(&mut self) {
        self.tasks.push_close(&mut self.sh);
        self.refresh(&Owner::Push(0));
    }
}
