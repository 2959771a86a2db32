//! JSON numbers: checked, or read into a `Number` as serde_json reads them.

use super::{JsonError, Parser};
use serde_json::Number;
use std::sync::atomic::{AtomicU64, Ordering};

impl Parser<'_> {
    /// A number checked for its syntax only: a checked raw value may hold a number past
    /// `f64`'s range, as serde_json's `RawValue` may.
    pub(super) fn number_syntax(&mut self) -> Result<(), JsonError> {
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(self.error("invalid number"));
                }
            }
            Some(b'1'..=b'9') => self.digits(),
            None => return Err(self.error("EOF while parsing a value")),
            Some(_) => return Err(self.error("invalid number")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            self.some_digits()?;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            self.some_digits()?;
        }
        Ok(())
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
    }

    /// One digit or more.
    fn some_digits(&mut self) -> Result<(), JsonError> {
        let start = self.pos;
        self.digits();
        if self.pos > start {
            return Ok(());
        }
        Err(self.error(match self.peek() {
            None => "EOF while parsing a value",
            Some(_) => "invalid number",
        }))
    }

    /// A number at the cursor, kept as serde_json keeps it (see the module's comment).
    pub(super) fn number(&mut self) -> Result<Number, JsonError> {
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
        }
        // The significand's digits while they fit a u64 (the rest are dropped, the integer
        // part's counted in the exponent), as serde_json keeps them.
        let mut sig: u64 = 0;
        let mut exp: i64 = 0;
        let mut integer_overflow = false;
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(self.error("invalid number"));
                }
            }
            Some(b'1'..=b'9') => {
                while let Some(d @ b'0'..=b'9') = self.peek() {
                    self.pos += 1;
                    match sig
                        .checked_mul(10)
                        .and_then(|s| s.checked_add(u64::from(d - b'0')))
                    {
                        Some(s) if !integer_overflow => sig = s,
                        _ => {
                            integer_overflow = true;
                            exp += 1;
                        }
                    }
                }
            }
            None => return Err(self.error("EOF while parsing a value")),
            Some(_) => return Err(self.error("invalid number")),
        }
        let mut float = false;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            float = true;
            let start = self.pos;
            self.some_digits()?;
            // As serde_json: the fraction's digits join the significand while it has room,
            // even after integer digits were dropped (which puts them a place too high; the
            // value differs from the exact one in the last bits, and both readers agree).
            let mut overflow = false;
            for &d in self.s.get(start..self.pos).unwrap_or_default() {
                match sig
                    .checked_mul(10)
                    .and_then(|s| s.checked_add(u64::from(d - b'0')))
                {
                    Some(s) if !overflow => {
                        sig = s;
                        exp -= 1;
                    }
                    _ => overflow = true,
                }
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            float = true;
            let neg_exp = match self.peek() {
                Some(b'-') => {
                    self.pos += 1;
                    true
                }
                Some(b'+') => {
                    self.pos += 1;
                    false
                }
                _ => false,
            };
            let start = self.pos;
            self.some_digits()?;
            let mut e: i64 = 0;
            for &d in self.s.get(start..self.pos).unwrap_or_default() {
                e = (e * 10 + i64::from(d - b'0')).min(1 << 40);
            }
            exp += if neg_exp { -e } else { e };
        }
        if !float && !integer_overflow {
            if !negative {
                return Ok(Number::from(sig));
            }
            if sig <= i64::MAX as u64 + 1 && sig != 0 {
                return Ok(Number::from((sig as i64).wrapping_neg()));
            }
        }
        let f = scale(sig, exp).ok_or_else(|| self.error("number out of range"))?;
        let f = if negative { -f } else { f };
        Number::from_f64(f).ok_or_else(|| self.error("number out of range"))
    }
}

/// `sig × 10^exp` as serde_json computes it without its `float_roundtrip` feature (one
/// multiplication or division by a correctly rounded power of ten, and steps of 10^308
/// below that), so that both read every number to the same `f64`. `None`: past `f64`'s
/// range.
fn scale(sig: u64, exp: i64) -> Option<f64> {
    let mut f = sig as f64;
    let mut e = exp;
    loop {
        let p = u32::try_from(e.unsigned_abs()).ok().and_then(pow10);
        match p {
            Some(p) if e >= 0 => {
                f *= p;
                return f.is_finite().then_some(f);
            }
            Some(p) => return Some(f / p),
            None if f == 0.0 => return Some(0.0),
            None if e >= 0 => return None,
            None => {
                f /= 1e308;
                e += 308;
            }
        }
    }
}

/// 10^0 to 10^308 once computed (0: not yet). Zeroed, so it takes no bytes in the module.
static POW10: [AtomicU64; 309] = [const { AtomicU64::new(0) }; 309];

/// 10^k correctly rounded (as Rust's float literals and serde_json's table are), for k up
/// to 308; `None` past it. Computed on first use and kept, where serde_json has a table:
/// 309 doubles are 2.5 KB of the wasm that gzip cannot shrink (BENCHMARKS.md, the
/// forty-fourth session), and the computation is a few hundred multiplications once per k.
fn pow10(k: u32) -> Option<f64> {
    let slot = POW10.get(k as usize)?;
    let bits = slot.load(Ordering::Relaxed);
    if bits != 0 {
        return Some(f64::from_bits(bits));
    }
    let f = f64::from_bits(pow10_bits(k));
    slot.store(f.to_bits(), Ordering::Relaxed);
    Some(f)
}

/// The bits of 10^k correctly rounded, k ≤ 308: 10^k = 5^k × 2^k, with 5^k exact in 32-bit
/// limbs (5^308 < 2^716: 23 of them), rounded to 53 bits half to even, and 2^k put in the
/// exponent (exact: 10^308 is a normal double).
fn pow10_bits(k: u32) -> u64 {
    let mut limbs = [0u32; 23];
    limbs[0] = 1;
    let mut len = 1;
    let mut left = k;
    while left > 0 {
        // 5^13 is the largest power of five below 2^32.
        let step = left.min(13);
        let m = 5u64.pow(step);
        let mut carry = 0u64;
        for l in limbs.iter_mut().take(len) {
            let v = u64::from(*l) * m + carry;
            *l = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            if let Some(l) = limbs.get_mut(len) {
                *l = carry as u32;
                len += 1;
            }
        }
        left -= step;
    }
    // The top three limbs (all of them when there are fewer), normalized so that bit 127 is
    // set; whatever lies below them only breaks a tie.
    let low = len.saturating_sub(3);
    let mut acc: u128 = 0;
    for &l in limbs.iter().take(len).skip(low).rev() {
        acc = acc << 32 | u128::from(l);
    }
    let sticky = limbs.iter().take(low).any(|&l| l != 0);
    let lz = acc.leading_zeros();
    acc <<= lz;
    // 5^k = acc × 2^(32·low − lz); the top 53 bits of acc are the significand.
    let mut m = (acc >> 75) as u64;
    let mut e = 32 * low as i64 - i64::from(lz) + 75;
    let half = acc >> 74 & 1 == 1;
    let rest = acc & ((1u128 << 74) - 1) != 0 || sticky;
    if half && (rest || m & 1 == 1) {
        m += 1;
        if m == 1 << 53 {
            m >>= 1;
            e += 1;
        }
    }
    // m × 2^(e + k), m in [2^52, 2^53): the biased exponent is e + k + 52 + 1023.
    let biased = (e + i64::from(k) + 52 + 1023) as u64;
    biased << 52 | (m & ((1 << 52) - 1))
}

#[cfg(test)]
mod tests {
    use super::{pow10, pow10_bits};

    /// Every power of ten the reader can use is the correctly rounded one: the same bits as
    /// Rust's own reading of "1e{k}" (correctly rounded, as serde_json's table is).
    #[test]
    fn powers_of_ten_are_correctly_rounded() {
        for k in 0..=308u32 {
            let want: f64 = format!("1e{k}").parse().unwrap();
            assert_eq!(f64::from_bits(pow10_bits(k)), want, "10^{k}");
            assert_eq!(pow10(k), Some(want), "10^{k} kept");
            assert_eq!(pow10(k), Some(want), "10^{k} read again");
        }
        assert_eq!(pow10(309), None);
        assert_eq!(pow10(u32::MAX), None);
    }
}
