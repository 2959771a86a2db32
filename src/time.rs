//! Time as the engine sees it: milliseconds since the Unix epoch (`u64`), plus parsing of
//! task timestamps (`createdAt`, `lastUpdatedAt`: "ISO 8601 timestamp" in the tasks
//! extension, § Tasks; [`parse_iso8601`]), RFC 3339 parsing for JSON Schema's `date-time`
//! format ([`parse_rfc3339`]), and RFC 3339 formatting.
//!
//! Written by hand: the engine needs exactly "date-time ⇄ epoch ms", a few hundred lines,
//! while `time`/`chrono` add tens of KB of wasm for calendars we never use.

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
/// RFC 3339 is a profile of ISO 8601: its shape is checked here (the extended format to the
/// second, a `.` fraction, an offset `Z` or `±hh:mm`, no `24:00`), and [`parse_iso8601`]
/// reads it (one reader of dates in the wasm).
pub fn parse_rfc3339(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let n = b.len();
    let offset = matches!(b.last(), Some(b'Z' | b'z'))
        || (n >= 25 && b[n - 3] == b':' && matches!(b[n - 6], b'+' | b'-'));
    let shaped = (20..=64).contains(&n)
        && b[13] == b':'
        && b[16] == b':'
        && matches!(b[19], b'.' | b'Z' | b'z' | b'+' | b'-')
        && b[11..13] != *b"24"
        && offset;
    match parse_iso8601(s).filter(|_| shaped)? {
        IsoTime::Placed(ms) => Some(ms),
        IsoTime::Local => None,
    }
}

/// An ISO 8601 date and time of day ([`parse_iso8601`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IsoTime {
    /// With `Z` or a UTC offset: a point on the timeline, in epoch milliseconds.
    Placed(i64),
    /// Without either: ISO 8601's local time, of a zone the text does not name.
    /// It cannot be placed on the timeline: read as UTC it could be hours off either way.
    Local,
}

/// The digits of a decimal fraction at `b[at..]` (any number of them, at least one): its
/// first nine as nanoseconds of the unit (`"5"` is 500,000,000), where the digits end, and
/// whether any digit, however far, is not zero.
fn fraction(b: &[u8], at: usize) -> Option<(u64, usize, bool)> {
    let mut i = at;
    let mut v = 0u64;
    let mut nonzero = false;
    while let Some(c) = b.get(i).filter(|c| c.is_ascii_digit()) {
        if i - at < 9 {
            v = v * 10 + u64::from(c - b'0');
        }
        nonzero |= *c != b'0';
        i += 1;
    }
    let n = i - at;
    if n == 0 {
        return None;
    }
    for _ in n..9 {
        v *= 10;
    }
    Some((v, i, nonzero))
}

/// Parses an ISO 8601 calendar date and time of day (ISO 8601-1:2019): extended
/// (`2025-11-25T10:30:00Z`) or basic (`20251125T103000Z`) format, the time to the hour,
/// minute or second with a decimal fraction of any length on its last unit (`.` or `,`;
/// cut to the millisecond), then `Z`, `±hh`, `±hhmm`, `±hh:mm` or nothing (a local time).
/// RFC 3339's `t`, `z` and space separator are accepted too, so every RFC 3339 date-time
/// parses, to the same instant as [`parse_rfc3339`]; `24:00` is the end of the day, and a
/// leap second is folded into the next second. `None` for anything else: a date or a time
/// alone, week or ordinal dates, expanded years, impossible dates or times, trailing text.
pub fn parse_iso8601(s: &str) -> Option<IsoTime> {
    let b = s.as_bytes();
    let year = i64::from(digits(b, 0, 4)?);
    // The time is in the date's format: `-` in the date means `:` in the time.
    let extended = b.get(4) == Some(&b'-');
    let (month, day, mut i) = if extended {
        if b.get(7) != Some(&b'-') {
            return None;
        }
        (digits(b, 5, 2)?, digits(b, 8, 2)?, 10)
    } else {
        (digits(b, 4, 2)?, digits(b, 6, 2)?, 8)
    };
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    if !matches!(b.get(i), Some(b'T' | b't' | b' ')) {
        return None;
    }
    // hh, then mm and ss when present.
    let mut hms = [digits(b, i + 1, 2)?, 0, 0];
    i += 3;
    let mut n = 1;
    while n < 3 {
        let at = match (extended, b.get(i)) {
            (true, Some(b':')) => i + 1,
            (true, _) => break,
            (false, Some(c)) if c.is_ascii_digit() => i,
            (false, _) => break,
        };
        hms[n] = digits(b, at, 2)?;
        i = at + 2;
        n += 1;
    }
    // A fraction of the last unit given (hour, minute or second), in milliseconds.
    let unit: u64 = match n {
        1 => 3_600_000,
        2 => 60_000,
        _ => 1000,
    };
    let (mut frac_ms, mut frac_nonzero) = (0u64, false);
    if matches!(b.get(i), Some(b'.' | b',')) {
        let (f, end, nonzero) = fraction(b, i + 1)?;
        frac_ms = f * unit / 1_000_000_000;
        frac_nonzero = nonzero;
        i = end;
    }
    let [hour, min, sec] = hms;
    let end_of_day = hour == 24 && min == 0 && sec == 0 && !frac_nonzero;
    if (hour > 23 && !end_of_day) || min > 59 || sec > 60 {
        return None;
    }
    let offset_min: i64 = match b.get(i) {
        None => return Some(IsoTime::Local),
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(c @ (b'+' | b'-')) => {
            let oh = i64::from(digits(b, i + 1, 2)?);
            let om = match b.len() - i {
                3 => 0,
                5 => i64::from(digits(b, i + 3, 2)?),
                6 if b.get(i + 3) == Some(&b':') => i64::from(digits(b, i + 4, 2)?),
                _ => return None,
            };
            if oh > 23 || om > 59 {
                return None;
            }
            if *c == b'-' {
                -(oh * 60 + om)
            } else {
                oh * 60 + om
            }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + i64::from(hour) * 3600 + i64::from(min) * 60 + i64::from(sec)
        - offset_min * 60;
    Some(IsoTime::Placed(secs * 1000 + frac_ms as i64))
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

    const AT: i64 = 1_764_066_600_000; // 2025-11-25T10:30:00Z

    fn placed(s: &str) -> Option<i64> {
        match parse_iso8601(s) {
            Some(IsoTime::Placed(ms)) => Some(ms),
            _ => None,
        }
    }

    #[test]
    fn iso8601_forms_are_placed() {
        for (s, ms) in [
            ("2025-11-25T10:30:00Z", AT),
            ("2025-11-25T10:30Z", AT),
            ("2025-11-25T10Z", AT - 1_800_000),
            ("20251125T103000Z", AT),
            ("20251125T1030Z", AT),
            ("20251125T10Z", AT - 1_800_000),
            ("2025-11-25T10:30:00.123456Z", AT + 123),
            ("2025-11-25T10:30:00.123456789123Z", AT + 123),
            ("2025-11-25T10:30:00,5Z", AT + 500),
            ("20251125T103000,5Z", AT + 500),
            ("2025-11-25T10:30.5Z", AT + 30_000),
            ("2025-11-25T10.5Z", AT),
            ("2025-11-25T10:29:59.9999999Z", AT - 1),
            ("2025-11-25T12:30:00+02:00", AT),
            ("2025-11-25T12:30:00+0200", AT),
            ("2025-11-25T12:30:00+02", AT),
            ("20251125T123000+0200", AT),
            ("2025-11-25T05:30:00-05:00", AT),
            ("2025-11-25T10:30:00-00:00", AT),
            ("2025-11-25 10:30:00z", AT),
            ("2025-11-25t10:30:00Z", AT),
            ("2025-11-24T24:00:00Z", AT - 37_800_000),
            ("2025-11-24T24:00Z", AT - 37_800_000),
            ("2025-11-24T24:00:00.000Z", AT - 37_800_000),
            ("2016-12-31T23:59:60Z", 1_483_228_800_000),
            ("2024-02-29T00:00Z", 1_709_164_800_000),
        ] {
            assert_eq!(parse_iso8601(s), Some(IsoTime::Placed(ms)), "{s}");
        }
    }

    #[test]
    fn iso8601_without_an_offset_is_local() {
        for s in [
            "2025-11-25T10:30:00",
            "2025-11-25T10:30:00.123456",
            "2025-11-25T10:30",
            "2025-11-25T10",
            "20251125T103000",
            "20251125T103000,25",
            "2025-11-24T24:00:00",
        ] {
            assert_eq!(parse_iso8601(s), Some(IsoTime::Local), "{s}");
        }
    }

    #[test]
    fn iso8601_agrees_with_rfc3339() {
        for s in [
            "1970-01-01T00:00:00Z",
            "2025-11-25T10:30:00.5Z",
            "2025-11-25T10:30:00.123456789Z",
            "2025-11-25T12:30:00+02:00",
            "2025-11-25t05:30:00-05:00",
            "0000-01-01T00:00:00+23:59",
            "9999-12-31T23:59:60.999-23:59",
        ] {
            assert_eq!(placed(s), parse_rfc3339(s), "{s}");
            assert!(parse_rfc3339(s).is_some(), "{s}");
        }
        for ms in [0i64, AT + 123, -1, 253_402_300_799_999] {
            assert_eq!(placed(&format_rfc3339(ms)), Some(ms), "{ms}");
        }
    }

    #[test]
    fn iso8601_refuses_what_is_not_a_date_and_time() {
        for s in [
            "",
            "yesterday",
            "17",
            "2025-11-25",
            "20251125",
            "10:30:00Z",
            "T10:30:00Z",
            "2025-11-25T",
            "2025-W48-2T10:30Z",
            "2025-329T10:30Z",
            "+12025-11-25T10:30Z",
            "-2025-11-25T10:30Z",
            "2025-1-25T10:30Z",
            "2025-11-5T10:30Z",
            "2025-13-01T00:00Z",
            "2025-00-01T00:00Z",
            "2025-11-00T00:00Z",
            "2025-11-31T00:00Z",
            "2025-02-29T00:00Z",
            "2025-11-25T25:00Z",
            "2025-11-25T10:60Z",
            "2025-11-25T10:30:61Z",
            "2025-11-25T24:00:01Z",
            "2025-11-25T24:30Z",
            "2025-11-25T24:00:00.0000000001Z",
            "2025-11-25T24.5Z",
            "2025-11-25T1Z",
            "2025-11-25T10:3Z",
            "2025-11-25T10:30:0Z",
            "2025-11-25T10:30:00.Z",
            "2025-11-25T10:30:00,",
            "2025-11-25T10:30:00.5.5Z",
            "2025-11-25T103000Z",
            "20251125T10:30:00Z",
            "2025-11-25T10:30:00ZZ",
            "2025-11-25T10:30:00Zjunk",
            "2025-11-25T10:30:00 ",
            "2025-11-25T10:30:00 +02:00",
            "2025-11-25T10:30:00+",
            "2025-11-25T10:30:00-",
            "2025-11-25T10:30:00+2",
            "2025-11-25T10:30:00+020",
            "2025-11-25T10:30:00+02:0",
            "2025-11-25T10:30:00+02:000",
            "2025-11-25T10:30:00+02-00",
            "2025-11-25T10:30:00+24:00",
            "2025-11-25T10:30:00+02:60",
            "2025-11-25T10:30:00\u{2212}05:00",
            "２０２５-11-25T10:30:00Z",
            "2025-11-25T10:30:00\u{0}",
        ] {
            assert_eq!(parse_iso8601(s), None, "{s:?}");
        }
    }

    /// Hostile text: overlong fractions, extreme years and offsets, every cut and every
    /// one-byte change of valid forms. Nothing panics; what parses is in range.
    #[test]
    fn iso8601_survives_hostile_text() {
        let long = format!("2025-11-25T10:30:00.{}Z", "9".repeat(100_000));
        assert_eq!(placed(&long), Some(AT + 999));
        let long = format!("2025-11-25T10:30:00.{}", "0".repeat(100_000));
        assert_eq!(parse_iso8601(&long), Some(IsoTime::Local));
        let long = format!("2025-11-25T10.{}Z", "9".repeat(10_000));
        assert_eq!(placed(&long), Some(AT + 1_800_000 - 1));
        assert_eq!(
            placed("9999-12-31T24:00:00-23:59"),
            Some(253_402_300_800_000 + 86_340_000)
        );
        assert_eq!(
            placed("0000-01-01T00:00:00+23:59"),
            Some(-62_167_219_200_000 - 86_340_000)
        );
        assert_eq!(parse_iso8601(&"9".repeat(1000)), None);
        let seeds = [
            "2025-11-25T10:30:00.123456+02:00",
            "20251125T103000,5-0530",
            "2024-02-29T24:00Z",
        ];
        let alphabet = b"09:-+.,TtZz W\xff";
        for seed in seeds {
            let b = seed.as_bytes();
            for cut in 0..=b.len() {
                let _ = parse_iso8601(&seed[..cut]);
            }
            for i in 0..b.len() {
                for &c in alphabet {
                    let mut m = b.to_vec();
                    m[i] = c;
                    if let Ok(t) = std::str::from_utf8(&m) {
                        if let Some(IsoTime::Placed(ms)) = parse_iso8601(t) {
                            assert!(ms.abs() < 253_402_400_000_000, "{t}: {ms}");
                        }
                    }
                }
            }
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
