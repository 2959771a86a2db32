//! A map kept as a list of pairs, for the engine's maps that hold a few entries, bounded
//! by the client's limits: a call's or a task's asks and input requests
//! (`limits.maxInputRequests` a round, `maxConcurrentInputs` asked at once), the asks of
//! a legacy server's requests (`maxInputRequests` at once: `engine::server_requests`), the
//! shared ask owners (those asks together), the legacy resumptions (one per dropped response
//! stream of a request in flight), and the shell's open dialogs, pending host errors and
//! `EventSource`s.
//!
//! Why not `crate::sorted_map::SortedMap` there: these maps hold few entries, where a
//! linear search costs about what a bisection does, and the list's code is smaller (the
//! twenty-third session tried these maps as sorted maps: −90 B gzip on the default entry,
//! +598 B on the modern one). Maps that grow with the tasks or requests in flight (task
//! drivers, exchanges, replays, timers, progress tokens, the table of a legacy server's
//! answered requests) are sorted maps. Iteration is in insertion order, except after a
//! removal (the last entry takes the removed one's place).

use std::borrow::Borrow;

/// A map for a handful of entries: a `Vec` of pairs, searched linearly.
#[derive(Debug, Clone)]
pub(crate) struct SmallMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K, V> Default for SmallMap<K, V> {
    fn default() -> Self {
        SmallMap {
            entries: Vec::new(),
        }
    }
}

impl<K: Eq, V> SmallMap<K, V> {
    fn position<Q>(&self, key: &Q) -> Option<usize>
    where
        K: Borrow<Q>,
        Q: Eq + ?Sized,
    {
        self.entries.iter().position(|(k, _)| k.borrow() == key)
    }

    /// Inserts `value` under `key`; the value it replaces, if any.
    pub(crate) fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.position(&key) {
            Some(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            None => {
                self.entries.push((key, value));
                None
            }
        }
    }

    pub(crate) fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Eq + ?Sized,
    {
        self.position(key).map(|i| self.entries.swap_remove(i).1)
    }

    pub(crate) fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Eq + ?Sized,
    {
        self.entries
            .iter()
            .find(|(k, _)| k.borrow() == key)
            .map(|(_, v)| v)
    }

    pub(crate) fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Eq + ?Sized,
    {
        self.position(key).is_some()
    }
}

impl<K, V> SmallMap<K, V> {
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Takes every entry out.
    pub(crate) fn drain(&mut self) -> std::vec::Drain<'_, (K, V)> {
        self.entries.drain(..)
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub(crate) fn keys(&self) -> impl Iterator<Item = &K> {
        self.entries.iter().map(|(k, _)| k)
    }

    pub(crate) fn clear(&mut self) {
        self.entries.clear();
    }
}

impl<K: Eq, V> FromIterator<(K, V)> for SmallMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut m = SmallMap::default();
        for (k, v) in iter {
            m.insert(k, v);
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::SmallMap;

    #[test]
    fn behaves_as_a_map() {
        let mut m: SmallMap<String, u32> = SmallMap::default();
        assert!(m.is_empty());
        assert_eq!(m.insert("a".into(), 1), None);
        assert_eq!(m.insert("b".into(), 2), None);
        assert_eq!(m.insert("a".into(), 3), Some(1), "a second insert replaces");
        assert_eq!(m.len(), 2);
        assert_eq!(m.get("a"), Some(&3));
        assert!(m.contains_key("b"));
        m.insert("b".into(), 12);
        assert_eq!(m.remove("a"), Some(3));
        assert_eq!(m.remove("a"), None);
        assert_eq!(m.keys().cloned().collect::<Vec<_>>(), vec!["b".to_string()]);
        assert_eq!(
            m.iter().map(|(k, v)| (k.clone(), *v)).collect::<Vec<_>>(),
            vec![("b".to_string(), 12)]
        );
        let taken: Vec<_> = m.drain().collect();
        assert_eq!(taken, vec![("b".to_string(), 12)]);
        assert!(m.is_empty());
        let from: SmallMap<u8, u8> = [(1, 1), (2, 2), (1, 3)].into_iter().collect();
        assert_eq!(from.len(), 2);
        assert_eq!(from.get(&1), Some(&3));
    }
}
