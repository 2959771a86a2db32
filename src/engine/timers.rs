//! The engine's deadlines: one table, at most one deadline per owner, the earliest first.
//! The kinds of timer are the kinds of [`Owner`] (an operation, a task driver's part, a
//! part of the session, a scheduled resumption): a closed set. The driver has a single
//! timer, set to [`TimerTable::next`].
//!
//! A `Vec` kept sorted latest first, so that the earliest deadline is popped from its end:
//! a deadline that moves is found by bisection and its entry moved. Not a `BinaryHeap`
//! (with lazy deletion, as it was until the forty-eighth session): its sift code was
//! 0.6 KB of the gzipped wasm, where an insert and a remove here are a `Vec`'s, and the
//! table is no bigger than the operations and tasks in flight (an insert moves the
//! entries after it, as `SortedMap`'s does). Not a `BTreeSet`: about 3 KB more (measured).

use crate::engine::shared::Owner;
use crate::sorted_map::SortedMap;
use crate::time::Millis;

#[derive(Default)]
pub(crate) struct TimerTable {
    /// (time, owner) for every deadline, sorted latest first: the earliest is last.
    queue: Vec<(Millis, Owner)>,
    /// Each owner's deadline (one at most), to find its entry in `queue`.
    at: SortedMap<Owner, Millis>,
}

impl TimerTable {
    /// Sets `owner`'s deadline (`None`: clears it).
    pub(crate) fn set(&mut self, owner: &Owner, at: Option<Millis>) {
        let old = match at {
            Some(t) => self.at.insert(owner.clone(), t),
            None => self.at.remove(owner),
        };
        if old == at {
            return;
        }
        if let Some(Ok(i)) = old.map(|t| self.find(t, owner)) {
            self.queue.remove(i);
        }
        if let Some(t) = at {
            if let Err(i) = self.find(t, owner) {
                self.queue.insert(i, (t, owner.clone()));
            }
        }
    }

    /// Where (t, owner) is in `queue` (`Ok`), or would go (`Err`).
    fn find(&self, t: Millis, owner: &Owner) -> Result<usize, usize> {
        self.queue
            .binary_search_by(|(qt, qo)| (t, owner).cmp(&(*qt, qo)))
    }

    /// `owner`'s deadline.
    pub(crate) fn get(&self, owner: &Owner) -> Option<Millis> {
        self.at.get(owner).copied()
    }

    /// The earliest deadline.
    pub(crate) fn next(&self) -> Option<Millis> {
        self.queue.last().map(|(t, _)| *t)
    }

    /// Clears and returns the earliest deadline's owner when it is due at `now`.
    pub(crate) fn pop_due(&mut self, now: Millis) -> Option<Owner> {
        if self.next()? > now {
            return None;
        }
        let (_, owner) = self.queue.pop()?;
        self.at.remove(&owner);
        Some(owner)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.queue.is_empty()
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
        t.set(&op(1), Some(5)); // back to a time it had: one deadline, fired once
        assert_eq!(t.pop_due(5), Some(op(1)));
        assert_eq!(t.pop_due(5), Some(op(2)));
        assert_eq!(t.pop_due(100), None);
        assert!(t.is_empty());
    }

    #[test]
    fn a_moved_deadline_leaves_no_entry_behind() {
        let mut t = TimerTable::default();
        for round in 0..1000u64 {
            t.set(&op(1), Some(round + 1));
            t.set(&op(2), Some(2000 - round));
        }
        assert_eq!(t.queue.len(), 2);
        assert_eq!(t.next(), Some(1000));
        assert_eq!(t.pop_due(1000), Some(op(1)));
        assert_eq!(t.pop_due(1001), Some(op(2)));
        assert!(t.is_empty());
    }

    /// Random sets, clears and pops against a model (each owner's deadline in a map, the
    /// earliest (time, owner) found by a scan).
    #[test]
    fn agrees_with_a_model() {
        let mut t = TimerTable::default();
        let mut model: std::collections::BTreeMap<u64, Millis> = Default::default();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut now = 0;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let o = x % 16;
            match x >> 60 {
                0..=9 => {
                    let at = now + (x >> 8) % 50;
                    t.set(&op(o), Some(at));
                    model.insert(o, at);
                }
                10..=12 => {
                    t.set(&op(o), None);
                    model.remove(&o);
                }
                _ => {
                    now += (x >> 8) % 20;
                    let want = model
                        .iter()
                        .map(|(o, at)| (*at, *o))
                        .min()
                        .filter(|(at, _)| *at <= now);
                    if let Some((_, o)) = want {
                        model.remove(&o);
                    }
                    assert_eq!(t.pop_due(now), want.map(|(_, o)| op(o)));
                }
            }
            assert_eq!(t.next(), model.values().min().copied());
            assert_eq!(t.get(&op(o)), model.get(&o).copied());
            assert_eq!(t.queue.len(), model.len());
        }
    }
}
