//! A JSON object: its members in the order they were inserted (the order the peer wrote
//! them, which a form shows its fields in), a repeated key keeping its first place and
//! taking the last value (as serde_json's `preserve_order` map does).
//!
//! Why not serde_json's map: with `preserve_order` it is an `IndexMap`, whose hash table
//! (hashbrown) and `SipHash` were 5.3 KB of the gzipped wasm (`bench/tools/wasm-without.mjs`;
//! BENCHMARKS.md, the fiftieth session), for objects that mostly have a handful of members.
//! Here a small object is searched member by member; past [`SMALL`] members the map also
//! keeps its positions sorted by key, so that a lookup costs `log2 n` comparisons whatever
//! keys a peer chose (an object of many keys from a hostile server costs no more than its
//! text to read: [`Map::from_members`] sorts once, `n log n`).

use super::Value;
use std::cmp::Ordering;
use std::fmt;

/// Up to this many members an object has no sorted positions: it is searched in order.
const SMALL: usize = 8;

/// A JSON object's members, in order. See the module's comment.
#[derive(Clone, Default)]
pub struct Map {
    entries: Vec<(String, Value)>,
    /// The positions in `entries`, sorted by key: as many as `entries` when there are more
    /// than [`SMALL`], else none.
    sorted: Vec<usize>,
}

impl Map {
    /// An empty object.
    pub fn new() -> Map {
        Map::default()
    }

    /// An empty object with room for `n` members.
    pub fn with_capacity(n: usize) -> Map {
        Map {
            entries: Vec::with_capacity(n),
            sorted: Vec::new(),
        }
    }

    /// An object of `members` in order; a repeated key keeps its first place and its last
    /// value. Sorted once: `n log n` comparisons for `n` members.
    pub fn from_members(mut members: Vec<(String, Value)>) -> Map {
        if members.len() <= SMALL {
            let mut m = Map::with_capacity(members.len());
            for (k, v) in members {
                m.insert(k, v);
            }
            return m;
        }
        let order = crate::sorted_map::sorted_positions(members.len(), &mut |a, b| {
            members[a].0.cmp(&members[b].0)
        });
        // A run of equal keys is in the members' order (the sort is stable): from its end,
        // each member hands its value to the one before and goes, so that the first takes
        // the last value.
        let mut gone = vec![false; members.len()];
        let mut repeated = false;
        for w in order.windows(2).rev() {
            if members[w[0]].0 == members[w[1]].0 {
                members[w[0]].1 = std::mem::take(&mut members[w[1]].1);
                gone[w[1]] = true;
                repeated = true;
            }
        }
        let mut m = Map {
            entries: members,
            sorted: order,
        };
        if repeated {
            let mut i = 0;
            m.entries.retain(|_| {
                i += 1;
                !gone[i - 1]
            });
            m.resort();
        }
        m
    }

    /// Where `key` is: `Ok((slot, position))`, or `Err(slot)` where its position would go
    /// in `sorted` (0 for a small map).
    fn find(&self, key: &str) -> Result<(usize, usize), usize> {
        if self.sorted.is_empty() {
            return match self.entries.iter().position(|(k, _)| k == key) {
                Some(p) => Ok((0, p)),
                None => Err(0),
            };
        }
        let (mut lo, mut hi) = (0, self.sorted.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let p = self.sorted[mid];
            match self.entries[p].0.as_str().cmp(key) {
                Ordering::Less => lo = mid + 1,
                Ordering::Greater => hi = mid,
                Ordering::Equal => return Ok((mid, p)),
            }
        }
        Err(lo)
    }

    /// Sorts the positions again (after members were removed), or drops them.
    fn resort(&mut self) {
        self.sorted = match self.entries.len() > SMALL {
            true => {
                let e = &self.entries;
                crate::sorted_map::sorted_positions(e.len(), &mut |a, b| e[a].0.cmp(&e[b].0))
            }
            false => Vec::new(),
        };
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        let (_, p) = self.find(key).ok()?;
        self.entries.get(p).map(|(_, v)| v)
    }

    /// The value of `key`, to change.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        let (_, p) = self.find(key).ok()?;
        self.entries.get_mut(p).map(|(_, v)| v)
    }

    /// Whether `key` is a member.
    pub fn contains_key(&self, key: &str) -> bool {
        self.find(key).is_ok()
    }

    /// Sets `key` to `value`: a new key goes last, a present one keeps its place and its
    /// old value comes back.
    pub fn insert(&mut self, key: String, value: Value) -> Option<Value> {
        match self.find(&key) {
            Ok((_, p)) => self
                .entries
                .get_mut(p)
                .map(|e| std::mem::replace(&mut e.1, value)),
            Err(slot) => {
                self.entries.push((key, value));
                let n = self.entries.len();
                if !self.sorted.is_empty() {
                    self.sorted.insert(slot, n - 1);
                } else if n > SMALL {
                    self.resort();
                }
                None
            }
        }
    }

    /// The value of `key`, inserting `value` first when it is not a member (`value` is
    /// dropped when it is). Not a closure: one copy of this in the wasm, not one per caller.
    pub fn get_or_insert(&mut self, key: &str, value: Value) -> &mut Value {
        let p = match self.find(key) {
            Ok((_, p)) => p,
            Err(_) => {
                self.insert(key.to_string(), value);
                self.entries.len() - 1
            }
        };
        &mut self.entries[p].1
    }

    /// Removes `key`, keeping the other members' order (`n` moves).
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let (slot, p) = self.find(key).ok()?;
        let (_, v) = self.entries.remove(p);
        if self.entries.len() <= SMALL {
            self.sorted = Vec::new();
        } else {
            self.sorted.remove(slot);
            for q in &mut self.sorted {
                if *q > p {
                    *q -= 1;
                }
            }
        }
        Some(v)
    }

    /// Keeps the members `keep` says yes to, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&String, &mut Value) -> bool) {
        let n = self.entries.len();
        self.entries.retain_mut(|(k, v)| keep(k, v));
        if self.entries.len() != n {
            self.resort();
        }
    }

    /// Moves every member of `other` into this one (`other` is left empty).
    pub fn append(&mut self, other: &mut Map) {
        for (k, v) in std::mem::take(other) {
            self.insert(k, v);
        }
    }

    /// Removes every member.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.sorted.clear();
    }

    /// How many members.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The members, in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter(self.entries.iter())
    }

    /// The members in order, their values to change.
    pub fn iter_mut(&mut self) -> IterMut<'_> {
        IterMut(self.entries.iter_mut())
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &String> + ExactSizeIterator {
        self.entries.iter().map(|(k, _)| k)
    }

    /// The values, in order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.entries.iter().map(|(_, v)| v)
    }

    /// The values in order, to change.
    pub fn values_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = &mut Value> + ExactSizeIterator {
        self.entries.iter_mut().map(|(_, v)| v)
    }
}

/// The members of a [`Map`], in order.
pub struct Iter<'a>(std::slice::Iter<'a, (String, Value)>);

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a String, &'a Value);
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k, v))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (k, v))
    }
}

impl ExactSizeIterator for Iter<'_> {}

/// The members of a [`Map`] in order, their values to change.
pub struct IterMut<'a>(std::slice::IterMut<'a, (String, Value)>);

impl<'a> Iterator for IterMut<'a> {
    type Item = (&'a String, &'a mut Value);
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (&*k, v))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl ExactSizeIterator for IterMut<'_> {}

impl IntoIterator for Map {
    type Item = (String, Value);
    type IntoIter = std::vec::IntoIter<(String, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<'a> IntoIterator for &'a Map {
    type Item = (&'a String, &'a Value);
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut Map {
    type Item = (&'a String, &'a mut Value);
    type IntoIter = IterMut<'a>;
    fn into_iter(self) -> IterMut<'a> {
        self.iter_mut()
    }
}

impl Extend<(String, Value)> for Map {
    fn extend<I: IntoIterator<Item = (String, Value)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl FromIterator<(String, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Map {
        Map::from_members(iter.into_iter().collect())
    }
}

/// Two objects are equal when they have the same members, in any order (as serde_json's
/// maps compare).
impl PartialEq for Map {
    fn eq(&self, other: &Map) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl Eq for Map {}

impl fmt::Debug for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl std::ops::Index<&str> for Map {
    type Output = Value;
    /// Panics when `key` is not a member (as serde_json's map does): for tests.
    fn index(&self, key: &str) -> &Value {
        match self.get(key) {
            Some(v) => v,
            None => panic!("no member {key:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The model: members in order in a `Vec`, searched one by one (what serde_json's
    /// `preserve_order` map does, with `shift_remove`).
    #[derive(Default)]
    struct Model(Vec<(String, Value)>);

    impl Model {
        fn insert(&mut self, k: &str, v: Value) -> Option<Value> {
            match self.0.iter_mut().find(|(x, _)| x == k) {
                Some(e) => Some(std::mem::replace(&mut e.1, v)),
                None => {
                    self.0.push((k.to_string(), v));
                    None
                }
            }
        }
        fn remove(&mut self, k: &str) -> Option<Value> {
            let i = self.0.iter().position(|(x, _)| x == k)?;
            Some(self.0.remove(i).1)
        }
        fn get(&self, k: &str) -> Option<&Value> {
            self.0.iter().find(|(x, _)| x == k).map(|(_, v)| v)
        }
    }

    fn same(m: &Map, model: &Model) {
        let got: Vec<_> = m.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        assert_eq!(got, model.0);
        assert_eq!(m.len(), model.0.len());
        if m.len() > SMALL {
            assert_eq!(m.sorted.len(), m.len());
            let keys: Vec<&str> = m.sorted.iter().map(|&p| m.entries[p].0.as_str()).collect();
            assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
        } else {
            assert!(m.sorted.is_empty());
        }
    }

    /// A small generator (xorshift), so that the sequences are the same on every run.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    #[test]
    fn agrees_with_a_list_searched_in_order() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for round in 0..300 {
            let keys = 1 + rng.next(if round % 3 == 0 { 6 } else { 40 });
            let (mut m, mut model) = (Map::new(), Model::default());
            for step in 0..200 {
                let k = format!("k{}", rng.next(keys));
                let v = Value::from(step);
                match rng.next(10) {
                    0..=4 => assert_eq!(m.insert(k.clone(), v.clone()), model.insert(&k, v)),
                    5 | 6 => assert_eq!(m.remove(&k), model.remove(&k)),
                    7 => {
                        let cut = rng.next(200) as i64;
                        m.retain(|_, v| v.as_i64().is_some_and(|x| x >= cut));
                        model
                            .0
                            .retain(|(_, v)| v.as_i64().is_some_and(|x| x >= cut));
                    }
                    8 => {
                        let x = m.get_or_insert(&k, Value::from("new"));
                        if model.get(&k).is_none() {
                            model.insert(&k, Value::from("new"));
                        }
                        assert_eq!(Some(&*x), model.get(&k));
                    }
                    _ => {
                        *m.get_mut(&k).unwrap_or(&mut Value::Null) = Value::Bool(true);
                        if let Some(e) = model.0.iter_mut().find(|(x, _)| *x == k) {
                            e.1 = Value::Bool(true);
                        }
                    }
                }
                assert_eq!(m.get(&k), model.get(&k));
                assert_eq!(m.contains_key(&k), model.get(&k).is_some());
                same(&m, &model);
            }
        }
    }

    #[test]
    fn members_keep_the_first_place_and_the_last_value_of_a_repeated_key() {
        let mut rng = Rng(7);
        for n in 0..60 {
            for keys in [1, 2, 5, 9, 30, 100] {
                let members: Vec<(String, Value)> = (0..n)
                    .map(|i| (format!("k{}", rng.next(keys)), Value::from(i)))
                    .collect();
                let mut model = Model::default();
                for (k, v) in &members {
                    model.insert(k, v.clone());
                }
                same(&Map::from_members(members), &model);
            }
        }
    }

    #[test]
    fn objects_are_equal_whatever_their_order() {
        let a: Map = (0..20).map(|i| (format!("k{i}"), Value::from(i))).collect();
        let b: Map = (0..20)
            .rev()
            .map(|i| (format!("k{i}"), Value::from(i)))
            .collect();
        assert_eq!(a, b);
        let mut c = b.clone();
        c.insert("k3".into(), Value::Null);
        assert_ne!(a, c);
        c.remove("k3");
        assert_ne!(a, c);
    }
}
