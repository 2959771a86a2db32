//! Every citation of a task rule resolves to `TASK-RULES.md`.
//!
//! Comments cite the task-driving rules as "rule 10", "Rule 11", "tasks rule 2",
//! "rules 5 and 24", "rules 1-24", and engine tests carry `rule_<n>_` in their names. This
//! test reads `TASK-RULES.md` (its `## Rule <n>: …` headings) and every text file under
//! `src/`, `tests/`, `fuzz/`, `bench/`, `scripts/`, `www/` and the Markdown files at the
//! root, and fails on a citation of a rule the document does not define. It also fails
//! when the rules are not numbered 1..=N without gaps, or when a rule has no `rule_<n>_`
//! test in `src/engine/tests/tasks.rs`. A numbered rule of another document must be
//! cited another way ("step 3", "§ 4.2"), so that "rule N" always means one thing.

use std::fs;
use std::path::{Path, PathBuf};

/// Folders whose files are searched, relative to the crate root.
const ROOTS: [&str; 6] = ["src", "tests", "fuzz", "bench", "scripts", "www"];

/// Folders not searched: build output, dependencies, and text that is not ours (fuzz
/// inputs and seeds are arbitrary bytes; fixtures are copies of the spec's files).
const SKIP: [&str; 9] = [
    "target",
    "node_modules",
    "pkg",
    "test-output",
    ".venv",
    "fuzz/seeds",
    "fuzz/corpus",
    "tests/regressions",
    "tests/fixtures",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The rule numbers `TASK-RULES.md` defines, in the order of their headings.
fn defined_rules(doc: &str) -> Vec<u32> {
    doc.lines()
        .filter_map(|l| l.strip_prefix("## Rule "))
        .filter_map(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .collect()
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric()
}

/// Reads a number at `bytes[*i..]`, moving `*i` past it.
fn number(bytes: &[u8], i: &mut usize) -> Option<u32> {
    let start = *i;
    while *i < bytes.len() && bytes[*i].is_ascii_digit() {
        *i += 1;
    }
    std::str::from_utf8(&bytes[start..*i]).ok()?.parse().ok()
}

/// Skips `sep` at `bytes[*i..]` (spaces around it allowed) when a number follows it.
fn separator(bytes: &[u8], i: &mut usize, sep: &str) -> bool {
    let mut j = *i;
    while j < bytes.len() && bytes[j] == b' ' {
        j += 1;
    }
    if !bytes[j..].starts_with(sep.as_bytes()) {
        return false;
    }
    j += sep.len();
    while j < bytes.len() && bytes[j] == b' ' {
        j += 1;
    }
    if j < bytes.len() && bytes[j].is_ascii_digit() {
        *i = j;
        true
    } else {
        false
    }
}

/// The rules a text cites, with the line of each citation: "rule N", "rules N and M",
/// "rules N, M or P", "rules N-M" (both ends and everything between), "rule_N_", "rule-N",
/// in any case, also when a comment wraps after "rule". (A list that wraps after "and" is
/// read up to the wrap.)
fn citations(text: &str) -> Vec<(usize, u32)> {
    let lower = text.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(pos) = lower[from..].find("rule") {
        let at = from + pos;
        from = at + 4;
        if at > 0 && is_word(bytes[at - 1]) {
            continue;
        }
        let mut i = at + 4;
        let plural = bytes.get(i) == Some(&b's');
        if plural {
            i += 1;
        }
        match bytes.get(i) {
            Some(b' ' | b'_' | b'-') => i += 1,
            // A comment wrapped after "rule": the number starts the next comment line.
            Some(b'\n') => {
                while bytes
                    .get(i)
                    .is_some_and(|c| matches!(c, b'\n' | b' ' | b'\t' | b'/' | b'!' | b'*' | b'#'))
                {
                    i += 1;
                }
            }
            _ => continue,
        }
        if !bytes.get(i).is_some_and(u8::is_ascii_digit) {
            continue;
        }
        let line = lower[..at].matches('\n').count() + 1;
        let Some(first) = number(bytes, &mut i) else {
            continue;
        };
        out.push((line, first));
        if !plural {
            continue;
        }
        let mut last = first;
        loop {
            if separator(bytes, &mut i, "-") || separator(bytes, &mut i, "–") {
                let Some(end) = number(bytes, &mut i) else {
                    break;
                };
                out.extend((last + 1..=end).map(|n| (line, n)));
                last = end;
            } else if separator(bytes, &mut i, ",")
                || separator(bytes, &mut i, "and")
                || separator(bytes, &mut i, "or")
            {
                let Some(n) = number(bytes, &mut i) else {
                    break;
                };
                out.push((line, n));
                last = n;
            } else {
                break;
            }
        }
    }
    out
}

fn walk(dir: &Path, base: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let rel = path.strip_prefix(base).unwrap_or(&path);
        let rel_str = rel.to_string_lossy().replace('\\', "/");
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if SKIP.iter().any(|s| rel_str == *s || name == *s) {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walk(&path, base, files);
        } else if kind.is_file() {
            files.push(path);
        }
    }
}

/// Every searched file (text only) with its path relative to the crate root.
fn searched_files() -> Vec<(String, String)> {
    let base = root();
    let mut files = Vec::new();
    for r in ROOTS {
        walk(&base.join(r), &base, &mut files);
    }
    if let Ok(entries) = fs::read_dir(&base) {
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "md") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
        .into_iter()
        .filter_map(|p| {
            let text = String::from_utf8(fs::read(&p).ok()?).ok()?;
            let rel = p
                .strip_prefix(&base)
                .ok()?
                .to_string_lossy()
                .replace('\\', "/");
            Some((rel, text))
        })
        .collect()
}

/// The citations among `files` that name a rule outside `defined`.
fn unresolved(files: &[(String, String)], defined: &[u32]) -> Vec<String> {
    let mut bad = Vec::new();
    for (path, text) in files {
        for (line, n) in citations(text) {
            if !defined.contains(&n) {
                bad.push(format!(
                    "{path}:{line}: cites rule {n}, which TASK-RULES.md does not define"
                ));
            }
        }
    }
    bad
}

fn rules_doc() -> String {
    fs::read_to_string(root().join("TASK-RULES.md")).expect("TASK-RULES.md at the crate root")
}

#[test]
fn the_rules_are_numbered_one_to_n() {
    let defined = defined_rules(&rules_doc());
    assert!(
        !defined.is_empty(),
        "TASK-RULES.md defines no `## Rule <n>:`"
    );
    let expected: Vec<u32> = (1..=defined.len() as u32).collect();
    assert_eq!(
        defined, expected,
        "rules numbered 1..=N, in order, once each"
    );
}

#[test]
fn every_rule_citation_resolves_to_the_rules_document() {
    let defined = defined_rules(&rules_doc());
    let files = searched_files();
    assert!(
        files.iter().any(|(p, _)| p == "src/engine/task/poll.rs"),
        "the sources were not found under {}",
        root().display()
    );
    let cited: usize = files.iter().map(|(_, t)| citations(t).len()).sum();
    assert!(
        cited > 50,
        "only {cited} citations found: is the scanner broken?"
    );
    let bad = unresolved(&files, &defined);
    assert!(
        bad.is_empty(),
        "unresolved rule citations:\n{}",
        bad.join("\n")
    );
}

#[test]
fn every_rule_has_an_engine_test() {
    let defined = defined_rules(&rules_doc());
    // The task rules' tests, and the push-driven ones (issue 14, rules 25 to 27).
    let tests = ["src/engine/tests/tasks.rs", "src/engine/tests/push.rs"]
        .map(|p| fs::read_to_string(root().join(p)).expect(p))
        .concat();
    let missing: Vec<u32> = defined
        .iter()
        .copied()
        .filter(|n| !tests.contains(&format!("fn rule_{n}_")))
        .collect();
    assert!(
        missing.is_empty(),
        "rules without a `rule_<n>_` test: {missing:?}"
    );
}

/// The scanner itself: each form is found, and a citation of an undefined rule fails.
#[test]
fn the_scanner_finds_every_form_and_reports_an_undefined_rule() {
    let nums = |t: &str| citations(t).into_iter().map(|(_, n)| n).collect::<Vec<_>>();
    assert_eq!(nums("// Rule 11: the schema"), [11]);
    assert_eq!(nums("(tasks rule 2)"), [2]);
    assert_eq!(nums("fn rule_8_a_lost_ack() {}"), [8]);
    assert_eq!(nums("the rule-2 allowance"), [2]);
    assert_eq!(nums("// Rules 5 and 24: shared polls"), [5, 24]);
    assert_eq!(nums("rules 7, 8 or 9"), [7, 8, 9]);
    assert_eq!(nums("rules 1-3"), [1, 2, 3]);
    assert_eq!(nums("// rules 7 and\n// 9 (rule\n    // 10)"), [7, 10]);
    assert_eq!(
        nums("house rule, overrule 3, rules of the house"),
        [] as [u32; 0]
    );
    assert_eq!(citations("a\nb // rule 4"), [(2, 4)]);

    let defined = defined_rules("## Rule 1: a\n## Rule 2: b\n");
    assert_eq!(defined, [1, 2]);
    let files = vec![(
        "src/x.rs".to_string(),
        "// rule 1\n// rules 2 and 3\n".to_string(),
    )];
    assert_eq!(
        unresolved(&files, &defined),
        ["src/x.rs:2: cites rule 3, which TASK-RULES.md does not define"]
    );
}
