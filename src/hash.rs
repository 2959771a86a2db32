//! The crate's hash maps and sets: hashbrown's, with FxHash.
//!
//! Not std's `HashMap` (which is hashbrown inside): serde_json's `Map` (`preserve_order`)
//! is an indexmap, which links the hashbrown crate, so with std's maps the wasm carried two
//! copies of hashbrown's shared table code (rehash, resize, probe). With the same crate for
//! both, one copy serves every map (BENCHMARKS.md, the eighteenth session). FxHash as before:
//! the keys are our own ids, task ids and tool names (`Cargo.toml` says why not SipHash).

/// A hash map with FxHash.
pub(crate) type FxHashMap<K, V> = hashbrown::HashMap<K, V, rustc_hash::FxBuildHasher>;
/// A hash set with FxHash.
pub(crate) type FxHashSet<T> = hashbrown::HashSet<T, rustc_hash::FxBuildHasher>;
