//! Random decimal texts for the JSON reader's number tests: 17 significant digits and an
//! exponent from -320 to 315, in the form `d.dddddddddddddddde±x` (a xorshift sequence,
//! the same on every run). Included with `#[path]` by the crate's unit tests
//! (`src/json/number.rs`) and by `tests/wasm/common.rs`, which check the same numbers
//! natively and in the wasm.

/// The first `n` texts of the sequence.
pub(crate) fn random_decimals(n: usize) -> impl Iterator<Item = String> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..n).map(move |_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let d = x % 100_000_000_000_000_000;
        let e = (x >> 57) as i64 * 5 - 320;
        let unit = 10_000_000_000_000_000;
        format!("{}.{:016}e{e}", d / unit, d % unit)
    })
}
