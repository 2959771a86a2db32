//! The crate's JSON reader against serde_json on generated texts: valid documents of every
//! kind of value, and the same broken the ways a hostile or truncated peer would break them.
//! The checks are the `json` fuzz target's (`fuzz/src/json.rs`); its seeds, the chosen
//! texts, are replayed by `tests/fuzz_regressions.rs`.

// `run` is the fuzz target's entry, replayed by `tests/fuzz_regressions.rs`.
#[allow(dead_code)]
#[path = "../fuzz/src/json.rs"]
mod json;
// serde_json's reading of a `Value`, the checks' oracle.
#[allow(dead_code)]
#[path = "../fuzz/src/oracle.rs"]
mod oracle;

/// A small deterministic generator (xorshift64*), so that a failure names its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }
}

fn gen_value(r: &mut Rng, depth: u32, out: &mut String) {
    let kind = if depth > 4 { r.below(4) } else { r.below(7) };
    match kind {
        0 => out.push_str(r.pick(&["null", "true", "false"])),
        1 => gen_number(r, out),
        2 | 3 => gen_string(r, out),
        4 => {
            out.push('[');
            for i in 0..r.below(4) {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(r.pick(&["", " ", "\n"]));
                gen_value(r, depth + 1, out);
            }
            out.push(']');
        }
        _ => {
            out.push('{');
            // Now and then more members than an object searched in order holds (past 8
            // the crate's map sorts them), with keys that repeat, spelt alike or escaped.
            let n = if r.below(4) == 0 {
                r.below(24)
            } else {
                r.below(4)
            };
            for i in 0..n {
                if i > 0 {
                    out.push(',');
                }
                if r.below(2) == 0 {
                    let keys = [r#""a""#, r#""b""#, r#""\u0061""#, r#""ab""#, r#""""#];
                    out.push_str(r.pick(&keys));
                } else {
                    gen_string(r, out);
                }
                out.push_str(r.pick(&[":", " : "]));
                gen_value(r, depth + 1, out);
            }
            out.push('}');
        }
    }
}

fn gen_number(r: &mut Rng, out: &mut String) {
    if r.below(3) == 0 {
        out.push('-');
    }
    // Up to 40 digits: past 20 a u64 overflows (the significand keeps what fits).
    let int_digits = r.below(41);
    if int_digits == 0 {
        out.push('0');
    } else {
        out.push(char::from(b'1' + r.below(9) as u8));
        for _ in 1..int_digits {
            out.push(char::from(b'0' + r.below(10) as u8));
        }
    }
    if r.below(2) == 0 {
        out.push('.');
        for _ in 0..1 + r.below(20) {
            out.push(char::from(b'0' + r.below(10) as u8));
        }
    }
    if r.below(3) == 0 {
        out.push_str(r.pick(&["e", "E", "e+", "e-", "E-"]));
        let range = if r.below(4) == 0 { 400 } else { 30 };
        let e = r.below(range);
        out.push_str(&e.to_string());
    }
}

fn gen_string(r: &mut Rng, out: &mut String) {
    out.push('"');
    for _ in 0..r.below(6) {
        out.push_str(r.pick(&[
            "a",
            "key",
            " ",
            "é",
            "😀",
            "\\n",
            "\\\"",
            "\\\\",
            "\\/",
            "\\u0041",
            "\\u00e9",
            "\\ud83d\\ude00",
            "\\ud800",
            "\\udfff",
            "\\u001f",
            "\\t",
            "\t",
        ]));
    }
    out.push('"');
}

/// Breaks a valid text the ways a hostile or truncated peer would.
fn mutate(r: &mut Rng, text: &str) -> String {
    let mut b: Vec<char> = text.chars().collect();
    for _ in 0..1 + r.below(3) {
        let at = r.below(b.len() as u64 + 1) as usize;
        let piece = r.pick(&[
            "{", "}", "[", "]", ",", ":", "\"", "\\", "-", ".", "e", "0", "1", " ", "n", "\u{0}",
            "é",
        ]);
        match r.below(3) {
            0 if at < b.len() => {
                b.remove(at);
            }
            1 if at < b.len() => b[at] = piece.chars().next().unwrap_or(' '),
            _ => b.insert(at, piece.chars().next().unwrap_or(' ')),
        }
    }
    if r.below(5) == 0 {
        let keep = r.below(b.len() as u64 + 1) as usize;
        b.truncate(keep);
    }
    b.into_iter().collect()
}

#[test]
fn agrees_with_serde_json_on_generated_texts() {
    for seed in 1..=100_000u64 {
        let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut text = String::new();
        gen_value(&mut r, 0, &mut text);
        json::agree(&text);
        let broken = mutate(&mut r, &text);
        json::agree(&broken);
    }
}
