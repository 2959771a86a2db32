//! The engine's deadlines: one table, at most one deadline per owner, the earliest first.
//! The kinds of timer are the kinds of [`Owner`] (an operation, a task driver's part, a
//! part of the session, a scheduled resumption): a closed set. The driver has a single
//! timer, set to [`TimerTable::next`].
//!
//! A binary heap with lazy deletion, not an ordered set: `at` holds each owner's one
//! deadline, and a heap entry that no longer matches it is stale and dropped when it
//! reaches the top. The order is the same ((time, owner), earliest first); the heap's code
//! is about 3 KB smaller in the wasm than a `BTreeSet`'s insert and remove (measured).

use crate::engine::shared::Owner;
use crate::sorted_map::SortedMap;
use crate::time::Millis;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Default)]
pub(crate) struct TimerTable {
    /// (time, owner), earliest on top; may hold stale entries, never a stale top.
    heap: BinaryHeap<Reverse<(Millis, Owner)>>,
    /// Each owner's deadline (one at most): the truth the heap is checked against.
    at: SortedMap<Owner, Millis>,
}

impl TimerTable {
    /// Sets `owner`'s deadline (`None`: clears it).
    pub(crate) fn set(&mut self, owner: &Owner, at: Option<Millis>) {
        match at {
            Some(t) => {
                if self.at.insert(owner.clone(), t) != Some(t) {
                    self.heap.push(Reverse((t, owner.clone())));
                }
            }
            None => {
                self.at.remove(owner);
            }
        }
        self.tidy();
    }

    /// `owner`'s deadline.
    pub(crate) fn get(&self, owner: &Owner) -> Option<Millis> {
        self.at.get(owner).copied()
    }

    /// The earliest deadline.
    pub(crate) fn next(&self) -> Option<Millis> {
        self.heap.peek().map(|Reverse((t, _))| *t)
    }

    /// Clears and returns the earliest deadline's owner when it is due at `now`.
    pub(crate) fn pop_due(&mut self, now: Millis) -> Option<Owner> {
        if self.next()? > now {
            return None;
        }
        let Reverse((_, owner)) = self.heap.pop()?;
        self.at.remove(&owner);
        self.tidy();
        Some(owner)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.heap.is_empty() && self.at.is_empty()
    }

    /// Drops stale entries from the top (so `next` is true), and rebuilds the heap from
    /// `at` when stale entries outnumber live ones (so it stays bounded).
    fn tidy(&mut self) {
        while let Some(Reverse((t, o))) = self.heap.peek() {
            if self.at.get(o) == Some(t) {
                break;
            }
            self.heap.pop();
        }
        if self.heap.len() > 2 * self.at.len() + 32 {
            self.heap = (self.at.iter())
                .map(|(o, t)| Reverse((*t, o.clone())))
                .collect();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ids::OpId;

    fn op(n: u64) -> Owner {
        Owner::Op(OpId(n))
    }

    #[test]
    fn earliest_first_one_deadline_per_owner() {
        let mut t = TimerTable::default();
        t.set(&op(1), Some(30));
        t.set(&op(2), Some(10));
        t.set(&op(3), Some(20));
        t.set(&op(2), Some(40)); // moved: its old entry is stale
        assert_eq!(t.next(), Some(20));
        assert_eq!(t.get(&op(2)), Some(40));
        assert_eq!(t.pop_due(19), None);
        assert_eq!(t.pop_due(100), Some(op(3)));
        t.set(&op(1), None);
        assert_eq!(t.next(), Some(40));
        assert_eq!(t.pop_due(100), Some(op(2)));
        assert_eq!(t.pop_due(100), None);
        assert!(t.is_empty());
    }

    #[test]
    fn ties_go_in_owner_order_and_a_deadline_set_back_fires_once() {
        let mut t = TimerTable::default();
        t.set(&op(2), Some(5));
        t.set(&op(1), Some(5));
        t.set(&op(1), Some(9));
        t.set(&op(1), Some(5)); // back to a time it had: two entries, one deadline
        assert_eq!(t.pop_due(5), Some(op(1)));
        assert_eq!(t.pop_due(5), Some(op(2)));
        assert_eq!(t.pop_due(100), None);
        assert!(t.is_empty());
    }

    #[test]
    fn stale_entries_stay_bounded() {
        let mut t = TimerTable::default();
        for round in 0..1000u64 {
            t.set(&op(1), Some(round + 1));
            t.set(&op(2), Some(2000 - round));
        }
        assert!(t.heap.len() <= 2 * 2 + 32 + 1, "{} entries", t.heap.len());
        assert_eq!(t.next(), Some(1000));
        assert_eq!(t.pop_due(1000), Some(op(1)));
        assert_eq!(t.pop_due(1001), Some(op(2)));
        assert!(t.is_empty());
    }
}
