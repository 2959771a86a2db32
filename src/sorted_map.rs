//! The crate's maps and sets that grow with the tasks and requests in flight: a `Vec` of
//! pairs kept sorted by key, searched by bisection.
//!
//! Why not a hash map: in the wasm every hash map type is its own copy of hashbrown's
//! table code (insert, find, remove, rehash, drop: about 1.5 KB per key and value type,
//! and the crate had fourteen), where a sorted `Vec` needs a bisection and a `Vec` insert
//! or remove per type (BENCHMARKS.md, the twenty-third session). What it costs: an insert
//! or a remove moves the entries after it. The keys of the busy maps are our own
//! increasing ids (operations, exchanges, request ids: an insert is a push) or task ids,
//! one per task the host waits on, and their large values are boxed (a pointer moves).
//! A map filled from one peer message (a `tools/list` page) is filled by
//! [`SortedMap::extend`], which sorts once. A lookup costs `log2 n` comparisons and no
//! hashing, whatever keys a peer chooses. Iteration is in key order.
//!
//! Maps of a handful of entries are `engine::small_map::SmallMap`s (lists of pairs: less
//! code there).

use std::borrow::Borrow;
use std::cmp::Ordering;

/// A map kept as a `Vec` of pairs sorted by key.
#[derive(Debug, Clone)]
pub(crate) struct SortedMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        SortedMap {
            entries: Vec::new(),
        }
    }
}

/// The positions `0..n` in the order `cmp` sorts them, stably. Not generic, so the sort's
/// code is in the wasm once for every map type (and for `json::parse_unique_object`).
///
/// A bottom-up merge sort: `n log n` comparisons at most, and `n` when the keys come in
/// order (a run already in order is copied, not merged). Why not `sort_by`: std's stable
/// sort was at most 0.3 KB of the gzipped wasm (`bench/tools/wasm-without.mjs`; BENCHMARKS.md,
/// the forty-ninth session), for maps of a few keys and objects a peer sent.
#[inline(never)]
pub(crate) fn sorted_positions(
    n: usize,
    cmp: &mut dyn FnMut(usize, usize) -> Ordering,
) -> Vec<usize> {
    let mut from: Vec<usize> = (0..n).collect();
    let mut to = vec![0; n];
    let mut width = 1;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = n.min(start + width);
            let end = n.min(mid + width);
            let (mut l, mut r) = (start, mid);
            // Two runs already in order (the right one empty, or its first not before the
            // left one's last) are copied as they are.
            let ordered = mid == end || cmp(from[mid - 1], from[mid]) != Ordering::Greater;
            for slot in &mut to[start..end] {
                // Equal keys: the left run's first, so that the sort is stable.
                let left =
                    l < mid && (ordered || r == end || cmp(from[l], from[r]) != Ordering::Greater);
                if left {
                    *slot = from[l];
                    l += 1;
                } else {
                    *slot = from[r];
                    r += 1;
                }
            }
            start = end;
        }
        std::mem::swap(&mut from, &mut to);
        width *= 2;
    }
    from
}

impl<K: Ord, V> SortedMap<K, V> {
    /// Where `key` is (`Ok`) or would go (`Err`).
    fn find<Q>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.entries.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    /// Inserts `value` under `key`; the value it replaces, if any.
    pub(crate) fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.entries.insert(i, (key, value));
                None
            }
        }
    }

    /// The value under `key`, inserted by `make` if there was none.
    pub(crate) fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        let i = match self.find(&key) {
            Ok(i) => i,
            Err(i) => {
                self.entries.insert(i, (key, make()));
                i
            }
        };
        &mut self.entries[i].1
    }

    pub(crate) fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.find(key).ok().map(|i| self.entries.remove(i).1)
    }

    pub(crate) fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.find(key).ok().map(|i| &self.entries[i].1)
    }

    pub(crate) fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.find(key).ok().map(|i| &mut self.entries[i].1)
    }

    pub(crate) fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.find(key).is_ok()
    }

    /// Keeps the entries `keep` says to keep, in order.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(k, v));
    }

    /// Sorts the entries from `start` on in among the others. Generic over the key and
    /// value only, not over the iterator of [`Extend::extend`] (one copy per map type).
    fn sort_in(&mut self, start: usize) {
        if self.entries.len() == start {
            return;
        }
        let entries = &self.entries;
        let order = sorted_positions(entries.len(), &mut |a, b| entries[a].0.cmp(&entries[b].0));
        let mut taken: Vec<Option<(K, V)>> = self.entries.drain(..).map(Some).collect();
        for i in order {
            let Some((k, v)) = taken.get_mut(i).and_then(Option::take) else {
                continue;
            };
            match self.entries.last_mut() {
                // The sort is stable: an equal key further on was inserted later.
                Some(last) if last.0 == k => last.1 = v,
                _ => self.entries.push((k, v)),
            }
        }
    }
}

impl<K, V> SortedMap<K, V> {
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub(crate) fn clear(&mut self) {
        self.entries.clear();
    }

    /// Takes every entry out, in key order.
    pub(crate) fn drain(&mut self) -> std::vec::Drain<'_, (K, V)> {
        self.entries.drain(..)
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = (&K, &mut V)> {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    pub(crate) fn keys(&self) -> impl Iterator<Item = &K> {
        self.entries.iter().map(|(k, _)| k)
    }

    pub(crate) fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.iter().map(|(_, v)| v)
    }

    pub(crate) fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.entries.iter_mut().map(|(_, v)| v)
    }
}

impl<K: Ord, V> Extend<(K, V)> for SortedMap<K, V> {
    /// Inserts every pair, sorting once: O(n log n) however many a peer sent. Of pairs
    /// with the same key the last one stays, as with one `insert` after another.
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        let start = self.entries.len();
        self.entries.extend(iter);
        self.sort_in(start);
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for SortedMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut m = SortedMap::default();
        m.extend(iter);
        m
    }
}

/// A set kept as a sorted `Vec` (a [`SortedMap`] without values).
#[derive(Debug, Clone)]
pub(crate) struct SortedSet<K>(SortedMap<K, ()>);

impl<K> Default for SortedSet<K> {
    fn default() -> Self {
        SortedSet(SortedMap::default())
    }
}

impl<K: Ord> SortedSet<K> {
    /// Adds `key`; false if it was there already.
    pub(crate) fn insert(&mut self, key: K) -> bool {
        self.0.insert(key, ()).is_none()
    }

    /// Removes `key`; false if it was not there.
    pub(crate) fn remove<Q>(&mut self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.0.remove(key).is_some()
    }

    pub(crate) fn contains<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.0.contains_key(key)
    }

    /// The keys of `self` that `other` lacks, in order.
    pub(crate) fn difference<'a>(&'a self, other: &'a SortedSet<K>) -> impl Iterator<Item = &'a K> {
        self.iter().filter(move |k| !other.contains(*k))
    }
}

impl<K> SortedSet<K> {
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn clear(&mut self) {
        self.0.clear();
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &K> {
        self.0.keys()
    }
}

impl<K> IntoIterator for SortedSet<K> {
    type Item = K;
    type IntoIter = std::iter::Map<std::vec::IntoIter<(K, ())>, fn((K, ())) -> K>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.entries.into_iter().map(|(k, ())| k)
    }
}

impl<'a, K> IntoIterator for &'a SortedSet<K> {
    type Item = &'a K;
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (K, ())>, fn(&'a (K, ())) -> &'a K>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.entries.iter().map(|(k, ())| k)
    }
}

impl<K: Ord> Extend<K> for SortedSet<K> {
    fn extend<I: IntoIterator<Item = K>>(&mut self, iter: I) {
        self.0.extend(iter.into_iter().map(|k| (k, ())));
    }
}

impl<K: Ord> FromIterator<K> for SortedSet<K> {
    fn from_iter<I: IntoIterator<Item = K>>(iter: I) -> Self {
        let mut s = SortedSet::default();
        s.extend(iter);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::{sorted_positions, SortedMap, SortedSet};

    #[test]
    fn behaves_as_a_map_in_key_order() {
        let mut m: SortedMap<String, u32> = SortedMap::default();
        assert!(m.is_empty());
        assert_eq!(m.insert("b".into(), 2), None);
        assert_eq!(m.insert("a".into(), 1), None);
        assert_eq!(m.insert("c".into(), 3), None);
        assert_eq!(
            m.insert("a".into(), 11),
            Some(1),
            "a second insert replaces"
        );
        assert_eq!(m.len(), 3);
        assert_eq!(m.get("a"), Some(&11));
        assert_eq!(m.get("z"), None);
        assert!(m.contains_key("b"));
        *m.get_mut("b").expect("b is there") += 10;
        assert_eq!(m.keys().cloned().collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(m.values().copied().collect::<Vec<_>>(), [11, 12, 3]);
        for v in m.values_mut() {
            *v += 1;
        }
        for (k, v) in m.iter_mut() {
            if k == "c" {
                *v = 40;
            }
        }
        assert_eq!(
            m.iter().map(|(k, v)| (k.as_str(), *v)).collect::<Vec<_>>(),
            [("a", 12), ("b", 13), ("c", 40)]
        );
        assert_eq!(m.remove("b"), Some(13));
        assert_eq!(m.remove("b"), None);
        *m.get_or_insert_with("d".into(), || 0) += 5;
        *m.get_or_insert_with("a".into(), || 0) += 5;
        assert_eq!(m.get("d"), Some(&5));
        assert_eq!(
            m.get("a"),
            Some(&17),
            "an entry that is there is not made again"
        );
        m.retain(|k, v| {
            *v += 1;
            k != "c"
        });
        let taken: Vec<_> = m.drain().collect();
        assert_eq!(taken, [("a".to_string(), 18), ("d".to_string(), 6)]);
        assert!(m.is_empty());
    }

    #[test]
    fn extend_sorts_once_and_the_last_of_a_key_wins() {
        let mut m: SortedMap<u32, &str> = [(5, "five"), (1, "one")].into_iter().collect();
        m.extend([
            (3, "three"),
            (5, "FIVE"),
            (0, "zero"),
            (3, "THREE"),
            (9, "nine"),
        ]);
        assert_eq!(
            m.iter().map(|(k, v)| (*k, *v)).collect::<Vec<_>>(),
            [
                (0, "zero"),
                (1, "one"),
                (3, "THREE"),
                (5, "FIVE"),
                (9, "nine")
            ]
        );
        m.extend([]);
        assert_eq!(m.len(), 5);
    }

    /// The positions std's stable sort gives, for every length to 70 and some long ones,
    /// with few and many distinct keys, in random, ascending and descending order; and at
    /// most `n` comparisons for keys that come in order.
    #[test]
    fn positions_agree_with_std_stable_sort() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let lengths = (0..=70).chain([127, 128, 129, 1_000, 4_097]);
        for n in lengths {
            for distinct in [1, 3, 1_000_000] {
                let random: Vec<u64> = (0..n).map(|_| next() % distinct).collect();
                let mut up = random.clone();
                up.sort();
                let down: Vec<u64> = up.iter().rev().copied().collect();
                for keys in [&random, &up, &down] {
                    let mut calls = 0;
                    let ours = sorted_positions(n, &mut |a, b| {
                        calls += 1;
                        keys[a].cmp(&keys[b])
                    });
                    let mut std: Vec<usize> = (0..n).collect();
                    std.sort_by_key(|&i| keys[i]);
                    assert_eq!(ours, std, "n {n}, {distinct} keys");
                    if keys == &up {
                        assert!(calls <= n, "{calls} comparisons for {n} keys in order");
                    }
                }
            }
        }
    }

    #[test]
    fn a_large_unordered_fill_is_one_sort() {
        // 200,000 keys in a scrambled order: one `insert` each would move about 10^10
        // entries; `extend` sorts them once.
        let n: u64 = 200_000;
        let keys = (0..n).map(|i| (i * 7_919) % n);
        let m: SortedMap<u64, u64> = keys.map(|k| (k, k * 2)).collect();
        assert_eq!(m.len(), n as usize);
        assert!(m.keys().zip(0..n).all(|(k, i)| *k == i));
        assert_eq!(m.get(&12_345), Some(&24_690));
    }

    #[test]
    fn behaves_as_a_set() {
        let mut s: SortedSet<String> = ["b", "a"].into_iter().map(String::from).collect();
        assert!(s.insert("c".into()));
        assert!(!s.insert("a".into()), "already there");
        assert_eq!(s.len(), 3);
        assert!(s.contains("b"));
        assert!(s.remove("b"));
        assert!(!s.remove("b"));
        let other: SortedSet<String> = ["c".to_string()].into_iter().collect();
        assert_eq!(s.difference(&other).cloned().collect::<Vec<_>>(), ["a"]);
        s.extend(["e".to_string(), "d".to_string()]);
        assert_eq!(s.iter().cloned().collect::<Vec<_>>(), ["a", "c", "d", "e"]);
        s.clear();
        assert!(s.is_empty());
    }
}
