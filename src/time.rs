//! Time as the engine sees it: milliseconds since the Unix epoch (`u64`), plus RFC 3339
//! parsing and formatting for task timestamps (`createdAt`, `lastUpdatedAt`: ISO 8601 in
//! the spec; only its RFC 3339 profile is accepted).
//!
//! Written by hand: the engine needs exactly "RFC 3339 date-time ⇄ epoch ms", which is
//! ~120 lines, while `time`/`chrono` add tens of KB of wasm for calendars we never use.

/// Milliseconds since the Unix epoch. The engine never reads a clock: the caller passes it.
pub(crate) type Millis = u64;

/// Days from 1970-01-01 to the given civil date (proleptic Gregorian; Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(y) => 29,
        _ => 28,
    }
}

fn digits(b: &[u8], at: usize, n: usize) -> Option<u32> {
    let s = b.get(at..at + n)?;
    let mut v = 0u32;
    for &c in s {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (c - b'0') as u32;
    }
    Some(v)
}

/// Parses an RFC 3339 date-time (`2025-11-25T10:30:00Z`, `...T10:30:00.123+02:00`;
/// `t`/`z`/space separators accepted as RFC 3339 allows) into epoch milliseconds
/// (negative before 1970). Returns `None` for anything else, including impossible dates.
pub fn parse_rfc3339(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 20 || b.len() > 64 {
        return None;
    }
    let year = digits(b, 0, 4)? as i64;
    if b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let month = digits(b, 5, 2)?;
    let day = digits(b, 8, 2)?;
    if !matches!(b[10], b'T' | b't' | b' ') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let hour = digits(b, 11, 2)?;
    let min = digits(b, 14, 2)?;
    let sec = digits(b, 17, 2)?;
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    // Leap second 60 is allowed by RFC 3339; it is folded into the next second.
    if hour > 23 || min > 59 || sec > 60 {
        return None;
    }
    let mut i = 19;
    let mut millis = 0u32;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            if i - start < 3 {
                millis = millis * 10 + (b[i] - b'0') as u32;
            }
            i += 1;
        }
        let n = i - start;
        if n == 0 {
            return None;
        }
        for _ in n..3 {
            millis *= 10;
        }
    }
    let offset_min: i64 = match b.get(i)? {
        b'Z' | b'z' if i + 1 == b.len() => 0,
        c @ (b'+' | b'-') if i + 6 == b.len() && b[i + 3] == b':' => {
            let oh = digits(b, i + 1, 2)? as i64;
            let om = digits(b, i + 4, 2)? as i64;
            if oh > 23 || om > 59 {
                return None;
            }
            let o = oh * 60 + om;
            if *c == b'-' {
                -o
            } else {
                o
            }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + hour as i64 * 3600 + min as i64 * 60 + sec as i64 - offset_min * 60;
    Some(secs * 1000 + millis as i64)
}

/// Formats epoch milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ` (what JS `Date#toISOString` gives).
pub fn format_rfc3339(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        y,
        m,
        d,
        sod / 3600,
        (sod % 3600) / 60,
        sod % 60,
        millis
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_spec_examples() {
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            parse_rfc3339("2025-11-25T10:30:00Z"),
            Some(1_764_066_600_000)
        );
        assert_eq!(
            parse_rfc3339("2025-11-25T10:30:00.5Z"),
            Some(1_764_066_600_500)
        );
        assert_eq!(
            parse_rfc3339("2025-11-25T10:30:00.123456789Z"),
            Some(1_764_066_600_123)
        );
        assert_eq!(
            parse_rfc3339("2025-11-25T12:30:00+02:00"),
            Some(1_764_066_600_000)
        );
        assert_eq!(
            parse_rfc3339("2025-11-25t05:30:00-05:00"),
            Some(1_764_066_600_000)
        );
        assert_eq!(
            parse_rfc3339("2024-02-29T00:00:00Z"),
            Some(1_709_164_800_000)
        );
    }

    #[test]
    fn rejects_malformed() {
        for s in [
            "",
            "2025-11-25",
            "2025-11-25T10:30:00",
            "2025-13-01T00:00:00Z",
            "2025-02-29T00:00:00Z",
            "2025-11-25T24:00:00Z",
            "2025-11-25T10:30:00.Z",
            "2025-11-25T10:30:00+0200",
            "2025-11-25T10:30:00Zjunk",
            "not a date at all, no sir",
            "２０２５-11-25T10:30:00Z",
        ] {
            assert_eq!(parse_rfc3339(s), None, "{s}");
        }
    }

    #[test]
    fn format_round_trips() {
        for ms in [0i64, 1_764_066_600_123, -1, 253_402_300_799_999] {
            assert_eq!(parse_rfc3339(&format_rfc3339(ms)), Some(ms), "{ms}");
        }
        assert_eq!(
            format_rfc3339(1_764_066_600_000),
            "2025-11-25T10:30:00.000Z"
        );
    }
}
