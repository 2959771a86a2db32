//! The inputs of coordination across contexts (issue 13, `engine::task::peers`): this
//! context's identity and visibility, Web Lock grants, and messages from other contexts.

use super::Core;
use crate::time::Millis;

impl Core {
    /// Starts coordination (only with `Config::coordinated`): `me` names this context
    /// uniquely among the origin's (a random id), `visible` is whether it is shown
    /// (`document.visibilityState`; a worker is hidden). Call once, before any operation.
    pub fn peer_setup(&mut self, me: &str, visible: bool) {
        self.tasks.peer_setup(&mut self.sh, me, visible);
    }

    /// Whether another context polls task `task_id` for this one (coordinated, this
    /// context waits on the task without holding its lock: it follows).
    pub fn task_polled_elsewhere(&self, task_id: &str) -> bool {
        self.tasks.polled_elsewhere(task_id)
    }

    /// The Web Lock `name` asked for with `PeerAction::Lock` was granted.
    pub fn on_peer_lock(&mut self, name: &str, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        let touched = self.tasks.on_peer_lock(&mut self.sh, name);
        for t in touched {
            self.refresh_task(&t);
        }
    }

    /// A Web Lock request was refused (not withdrawn): Web Locks exist but refuse this
    /// context (a sandboxed iframe, an opaque origin). Coordination ends for the client's
    /// life, with a warning; every task waited on is polled here, as when uncoordinated.
    pub fn on_peer_refused(&mut self, why: &str, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        for t in self.tasks.peer_refused(&mut self.sh, why) {
            self.refresh_task(&t);
        }
    }

    /// A message another context posted on the channel (anything else is ignored).
    pub fn on_peer_message(&mut self, text: &str, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        let (notes, task) = self.tasks.on_peer_message(&mut self.sh, text);
        if let Some(t) = task {
            self.refresh_task(&t);
        }
        self.deliver_notes(notes);
    }

    /// This context became visible or hidden: questions move to a visible context.
    pub fn set_peer_visible(&mut self, visible: bool, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        for t in self.tasks.set_peer_visible(&mut self.sh, visible) {
            self.refresh_task(&t);
        }
    }
}
