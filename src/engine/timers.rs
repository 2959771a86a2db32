//! The engine's deadlines: one table, at most one deadline per owner, the earliest first.
//! The kinds of timer are the kinds of [`Owner`] (an operation, a task driver's part, a
//! part of the session, a scheduled resumption): a closed set. The driver has a single
//! timer, set to [`TimerTable::next`].

use crate::engine::shared::Owner;
use crate::time::Millis;
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

#[derive(Default)]
pub(crate) struct TimerTable {
    /// (time, owner), earliest first.
    queue: BTreeSet<(Millis, Owner)>,
    /// Each owner's deadline (one at most).
    at: FxHashMap<Owner, Millis>,
}

impl TimerTable {
    /// Sets `owner`'s deadline (`None`: clears it).
    pub(crate) fn set(&mut self, owner: &Owner, at: Option<Millis>) {
        if let Some(old) = self.at.remove(owner) {
            self.queue.remove(&(old, owner.clone()));
        }
        if let Some(t) = at {
            self.queue.insert((t, owner.clone()));
            self.at.insert(owner.clone(), t);
        }
    }

    /// `owner`'s deadline.
    pub(crate) fn get(&self, owner: &Owner) -> Option<Millis> {
        self.at.get(owner).copied()
    }

    /// The earliest deadline.
    pub(crate) fn next(&self) -> Option<Millis> {
        self.queue.iter().next().map(|(t, _)| *t)
    }

    /// Clears and returns the earliest deadline's owner when it is due at `now`.
    pub(crate) fn pop_due(&mut self, now: Millis) -> Option<Owner> {
        let (t, owner) = self.queue.iter().next()?.clone();
        if t > now {
            return None;
        }
        self.set(&owner, None);
        Some(owner)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.queue.is_empty() && self.at.is_empty()
    }
}
