//! JSON numbers: checked, or read into a `Number`: integers as serde_json reads them,
//! other numbers as the `f64` nearest to the decimal value (what `JSON.parse` gives).

use super::Number;
use super::{JsonError, Parser};

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

    /// A number at the cursor: an integer that fits as `u64` or `i64`, as serde_json keeps
    /// it; anything else as the `f64` nearest to its decimal value, correctly rounded as
    /// `JSON.parse` and serde_json's `float_roundtrip` read it (a host's number crosses in
    /// as `JSON.stringify`'s text, the shortest that reads back as the same `f64`, so it
    /// must come out bit for bit the same).
    pub(super) fn number(&mut self) -> Result<Number, JsonError> {
        let start = self.pos;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
        }
        // The significand's digits while they fit a u64, and the power of ten it is scaled
        // by; `exact`: no digit was dropped.
        let mut sig: u64 = 0;
        let mut exp: i64 = 0;
        let mut exact = true;
        let mut push = |sig: &mut u64, d: u8| match sig
            .checked_mul(10)
            .and_then(|s| s.checked_add(u64::from(d - b'0')))
        {
            Some(s) if exact => *sig = s,
            _ => exact = false,
        };
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
                    push(&mut sig, d);
                }
            }
            None => return Err(self.error("EOF while parsing a value")),
            Some(_) => return Err(self.error("invalid number")),
        }
        let mut float = false;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            float = true;
            let from = self.pos;
            self.some_digits()?;
            for &d in self.s.get(from..self.pos).unwrap_or_default() {
                push(&mut sig, d);
                exp -= 1;
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
            let from = self.pos;
            self.some_digits()?;
            let mut e: i64 = 0;
            for &d in self.s.get(from..self.pos).unwrap_or_default() {
                e = (e * 10 + i64::from(d - b'0')).min(1 << 40);
            }
            exp += if neg_exp { -e } else { e };
        }
        if !float && exact {
            if !negative {
                return Ok(Number::from(sig));
            }
            if sig <= i64::MAX as u64 + 1 && sig != 0 {
                return Ok(Number::from((sig as i64).wrapping_neg()));
            }
        }
        // Clinger's fast path: a significand and a power of ten that are both exact
        // doubles (< 2^53, 10^22 at most) give the correctly rounded quotient or product
        // in one operation. Anything else is read by a correct decimal reader.
        let f = if exact && sig <= 1 << 53 && (-22..=22).contains(&exp) {
            let mut p = 1.0;
            for _ in 0..exp.unsigned_abs() {
                p *= 10.0; // exact up to 10^22
            }
            let f = if exp < 0 {
                sig as f64 / p
            } else {
                sig as f64 * p
            };
            if negative {
                -f
            } else {
                f
            }
        } else {
            decimal(self.s.get(start..self.pos).unwrap_or_default())
        };
        Number::from_f64(f).ok_or_else(|| self.error("number out of range"))
    }
}

/// The `f64` nearest to a JSON number's text (infinite past `f64`'s range), natively by
/// core's reader (`str::parse`, correctly rounded).
#[cfg(not(target_arch = "wasm32"))]
fn decimal(text: &[u8]) -> f64 {
    std::str::from_utf8(text)
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(f64::NAN)
}

/// The `f64` nearest to a JSON number's text, in the wasm: the JS engine's `Number(text)`
/// (ECMA-262 StringToNumber, which reads JSON's number syntax). Why: core's correct reader
/// (`str::parse`) would add 14.4 KB to the gzipped modern entry (measured in the
/// forty-eighth session), and serde_json's default reader (one rounding of the significand,
/// then one of its scaling), which this module followed before, is an ulp off for some
/// 17-digit numbers (−1.5e-300 read as −1.4999999999999998e-300). A number that misses the
/// fast path above is rare in what the client reads.
#[cfg(target_arch = "wasm32")]
fn decimal(text: &[u8]) -> f64 {
    // The text is ASCII: the parser checked its syntax.
    crate::web::js::number_of(std::str::from_utf8(text).unwrap_or("NaN"))
}

#[cfg(test)]
#[path = "../../tests/support/decimals.rs"]
mod decimals;

#[cfg(test)]
mod tests {
    use crate::json::parse;
    use crate::json::Value;

    fn read(t: &str) -> f64 {
        match parse(t) {
            Ok(Value::Number(n)) => n.as_f64().unwrap(),
            other => panic!("{t}: {other:?}"),
        }
    }

    /// Floats come out correctly rounded, bit for bit as core's reader (and `JSON.parse`)
    /// reads them, on both paths: the fast one and the decimal reader.
    #[test]
    fn floats_are_correctly_rounded() {
        let cases = [
            "-1.5e-300", // an ulp off with serde_json's default reader
            "0.1",
            "0.30000000000000004",
            "1.7976931348623157e308",
            "2.2250738585072014e-308",
            "2.225073858507201e-308",
            "5e-324",
            "4.9406564584124654e-324",
            "2.4703282292062327e-324", // halfway below the least subnormal: rounds to 0
            "2.4703282292062328e-324", // past it: the least subnormal
            "9007199254740993",
            "9007199254740993.0",
            "9007199254740992.5",
            "1e23",
            "8.98846567431158e307",
            "123456789012345678901234567890e-10",
            "0.000000000000000000000000000001",
            "1e22",
            "1e-22",
            "4503599627370497.5",
            "-0.0",
            "0e400",
            "1e-400",
            "-1e-400",
            "1.00000000000000011102230246251565404236316680908203125",
            "1.00000000000000011102230246251565404236316680908203124",
            "1.00000000000000011102230246251565404236316680908203126",
            "18446744073709551616",
            "-9223372036854775809",
        ];
        for t in cases {
            let want: f64 = t.parse().unwrap();
            assert_eq!(read(t).to_bits(), want.to_bits(), "{t}");
        }
        for t in ["1e309", "-1e400", "17976931348623159e292"] {
            assert!(parse(t).is_err(), "{t}");
        }
    }

    /// Random 17-digit decimals over the whole exponent range (the same as `tests/wasm`
    /// reads in the browsers and Node), against core's reader.
    #[test]
    fn random_decimals_are_correctly_rounded() {
        for t in super::decimals::random_decimals(200_000) {
            let want: f64 = t.parse().unwrap();
            if want.is_finite() {
                assert_eq!(read(&t).to_bits(), want.to_bits(), "{t}");
            }
        }
    }
}
