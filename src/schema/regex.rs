//! A small ECMA-262 regular-expression subset for JSON Schema `pattern` and
//! `patternProperties`.
//!
//! Written by hand because the smallest crate, `regex-lite`, costs ~23 KB gzip of wasm
//! (see `SIZE.md`) while schemas use a tiny part of the syntax. Supported: literals, `.`,
//! classes `[...]`/`[^...]` with ranges, `\d \w \s \D \W \S \b \B`, the escapes
//! `\t \n \r \v \f \0 \xHH \uHHHH \u{H..}` and escaped syntax characters, anchors `^ $`,
//! groups `(...)`, `(?:...)`, `(?<name>...)`, lookahead `(?=...)`/`(?!...)`, alternation
//! and the quantifiers `* + ? {n} {n,} {n,m}` (greedy or lazy). Not supported (the
//! pattern does not compile, so the caller can say it cannot check it): backreferences,
//! lookbehind, `\p{..}`, `\c`, and flags. Matching is unanchored, like ECMA `RegExp.test`,
//! on Unicode code points.
//!
//! The matcher is a backtracking VM with a visited bitmap over (instruction, position), as
//! in the `regex` crate's bounded backtracker: linear in `program × text` instead of
//! exponential, so a hostile pattern cannot freeze the page. A step budget covers the rest
//! (lookahead and texts too long for the bitmap); running out answers `None` ("unknown").

/// Largest program, in instructions, after `{n,m}` expansion.
const MAX_PROG: usize = 4000;
/// Work budget for one match.
const MAX_STEPS: u32 = 2_000_000;
/// Largest visited bitmap, in bits.
const MAX_BITS: usize = 1 << 23;

#[derive(Clone, Debug)]
enum Item {
    Range(char, char),
    /// `d`, `w` or `s`, negated when the bool is set.
    Perl(u8, bool),
}

#[derive(Clone, Debug)]
enum Node {
    Char(char),
    Any,
    Class(Vec<Item>, bool),
    Start,
    End,
    WordB(bool),
    Look(Box<Node>, bool),
    Concat(Vec<Node>),
    Alt(Vec<Node>),
    Repeat(Box<Node>, u32, Option<u32>, bool),
}

#[derive(Clone, Debug)]
enum Inst {
    Char(char),
    Any,
    Class(usize),
    Start,
    End,
    WordB(bool),
    /// Lookahead: the sub-program starts at the next instruction and ends with `Match`;
    /// the main program continues at the target. Negative when the bool is set.
    Look(usize, bool),
    Split(usize, usize),
    Jmp(usize),
    Match,
}

/// A compiled pattern.
#[derive(Debug)]
pub(super) struct Regex {
    prog: Vec<Inst>,
    classes: Vec<(Vec<Item>, bool)>,
}

struct Parser<'a> {
    s: &'a [char],
    i: usize,
    depth: u32,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.s.get(self.i).copied()
    }
    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn alt(&mut self) -> Option<Node> {
        self.depth += 1;
        if self.depth > 64 {
            return None;
        }
        let mut alts = vec![self.concat()?];
        while self.eat('|') {
            alts.push(self.concat()?);
        }
        self.depth -= 1;
        Some(if alts.len() == 1 {
            alts.pop()?
        } else {
            Node::Alt(alts)
        })
    }

    fn concat(&mut self) -> Option<Node> {
        let mut seq = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            seq.push(self.quant(atom)?);
        }
        Some(Node::Concat(seq))
    }

    fn number(&mut self) -> Option<u32> {
        let start = self.i;
        let mut n: u32 = 0;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            n = n.checked_mul(10)?.checked_add(d)?;
            self.i += 1;
        }
        (self.i > start).then_some(n)
    }

    fn quant(&mut self, atom: Node) -> Option<Node> {
        let (min, max) = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => {
                let save = self.i;
                self.i += 1;
                let bounds = self.number().and_then(|min| {
                    if self.eat('}') {
                        return Some((min, Some(min)));
                    }
                    if !self.eat(',') {
                        return None;
                    }
                    if self.eat('}') {
                        return Some((min, None));
                    }
                    let max = self.number()?;
                    self.eat('}').then_some((min, Some(max)))
                });
                match bounds {
                    Some(b) => {
                        self.i -= 1; // re-consumed below
                        b
                    }
                    None => {
                        // Annex B: a `{` that starts no quantifier is a literal.
                        self.i = save;
                        return Some(atom);
                    }
                }
            }
            _ => return Some(atom),
        };
        self.i += 1;
        if matches!(atom, Node::Start | Node::End | Node::WordB(_)) || max.is_some_and(|m| m < min)
        {
            return None;
        }
        let greedy = !self.eat('?');
        Some(Node::Repeat(Box::new(atom), min, max, greedy))
    }

    fn atom(&mut self) -> Option<Node> {
        let c = self.peek()?;
        self.i += 1;
        Some(match c {
            '.' => Node::Any,
            '^' => Node::Start,
            '$' => Node::End,
            '[' => self.class()?,
            '(' => {
                let mut look = None;
                if self.eat('?') {
                    if self.eat(':') {
                    } else if self.eat('=') {
                        look = Some(false);
                    } else if self.eat('!') {
                        look = Some(true);
                    } else if self.eat('<') && !matches!(self.peek(), Some('=' | '!')) {
                        while self
                            .peek()
                            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
                        {
                            self.i += 1;
                        }
                        if !self.eat('>') {
                            return None;
                        }
                    } else {
                        return None;
                    }
                }
                let inner = self.alt()?;
                if !self.eat(')') {
                    return None;
                }
                match look {
                    Some(neg) => Node::Look(Box::new(inner), neg),
                    None => inner,
                }
            }
            '\\' => match self.escape()? {
                Ok(ch) => Node::Char(ch),
                Err(Item::Perl(b'b', neg)) => Node::WordB(neg),
                Err(item) => Node::Class(vec![item], false),
            },
            '*' | '+' | '?' | ')' => return None,
            c => Node::Char(c),
        })
    }

    /// After a backslash: a character, or a class item (`\d`…), or `\b`/`\B` as `Perl(b'b')`.
    fn escape(&mut self) -> Option<Result<char, Item>> {
        let c = self.peek()?;
        self.i += 1;
        Some(Ok(match c {
            'd' | 'w' | 's' | 'b' => return Some(Err(Item::Perl(c as u8, false))),
            'D' | 'W' | 'S' | 'B' => {
                return Some(Err(Item::Perl(c.to_ascii_lowercase() as u8, true)))
            }
            't' => '\t',
            'n' => '\n',
            'r' => '\r',
            'v' => '\u{b}',
            'f' => '\u{c}',
            '0' if !self.peek().is_some_and(|c| c.is_ascii_digit()) => '\0',
            'x' => self.hex(2)?,
            'u' if self.eat('{') => {
                let mut v: u32 = 0;
                while let Some(d) = self.peek().and_then(|c| c.to_digit(16)) {
                    v = v.checked_mul(16)?.checked_add(d)?;
                    self.i += 1;
                }
                if !self.eat('}') {
                    return None;
                }
                char::from_u32(v)?
            }
            'u' => self.hex(4)?,
            c if c.is_ascii_punctuation() => c,
            _ => return None,
        }))
    }

    fn hex(&mut self, n: usize) -> Option<char> {
        let mut v = 0;
        for _ in 0..n {
            v = v * 16 + self.peek()?.to_digit(16)?;
            self.i += 1;
        }
        char::from_u32(v)
    }

    fn class(&mut self) -> Option<Node> {
        let negated = self.eat('^');
        let mut items = Vec::new();
        loop {
            let c = self.peek()?;
            self.i += 1;
            let lo = match c {
                ']' => break,
                '\\' => match self.escape()? {
                    Ok(ch) => ch,
                    Err(Item::Perl(b'b', false)) => '\u{8}',
                    Err(Item::Perl(b'b', true)) => return None,
                    Err(item) => {
                        items.push(item);
                        continue;
                    }
                },
                c => c,
            };
            if self.peek() == Some('-') && self.s.get(self.i + 1).is_some_and(|&c| c != ']') {
                self.i += 1;
                let c = self.peek()?;
                self.i += 1;
                let hi = if c == '\\' { self.escape()?.ok()? } else { c };
                if hi < lo {
                    return None;
                }
                items.push(Item::Range(lo, hi));
            } else {
                items.push(Item::Range(lo, lo));
            }
        }
        Some(Node::Class(items, negated))
    }
}

fn perl(kind: u8, c: char) -> bool {
    match kind {
        b'd' => c.is_ascii_digit(),
        b'w' => c.is_ascii_alphanumeric() || c == '_',
        _ => matches!(
            c,
            '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
                ..='\u{200a}'
                    | '\u{2028}'
                    | '\u{2029}'
                    | '\u{202f}'
                    | '\u{205f}'
                    | '\u{3000}'
                    | '\u{feff}'
        ),
    }
}

fn class_has(items: &[Item], negated: bool, c: char) -> bool {
    let hit = items.iter().any(|it| match *it {
        Item::Range(lo, hi) => lo <= c && c <= hi,
        Item::Perl(k, neg) => perl(k, c) != neg,
    });
    hit != negated
}

struct Gen {
    prog: Vec<Inst>,
    classes: Vec<(Vec<Item>, bool)>,
}

impl Gen {
    fn push(&mut self, i: Inst) -> Option<usize> {
        if self.prog.len() >= MAX_PROG {
            return None;
        }
        self.prog.push(i);
        Some(self.prog.len() - 1)
    }

    fn emit(&mut self, n: &Node) -> Option<()> {
        match n {
            Node::Char(c) => self.push(Inst::Char(*c))?,
            Node::Any => self.push(Inst::Any)?,
            Node::Class(items, neg) => {
                self.classes.push((items.clone(), *neg));
                self.push(Inst::Class(self.classes.len() - 1))?
            }
            Node::Start => self.push(Inst::Start)?,
            Node::End => self.push(Inst::End)?,
            Node::WordB(neg) => self.push(Inst::WordB(*neg))?,
            Node::Look(inner, neg) => {
                let at = self.push(Inst::Look(0, *neg))?;
                self.emit(inner)?;
                let end = self.push(Inst::Match)?;
                self.prog[at] = Inst::Look(end + 1, *neg);
                end
            }
            Node::Concat(seq) => {
                for n in seq {
                    self.emit(n)?;
                }
                0
            }
            Node::Alt(alts) => {
                let mut jumps = Vec::new();
                for (k, a) in alts.iter().enumerate() {
                    if k + 1 < alts.len() {
                        let split = self.push(Inst::Split(0, 0))?;
                        self.emit(a)?;
                        jumps.push(self.push(Inst::Jmp(0))?);
                        self.prog[split] = Inst::Split(split + 1, self.prog.len());
                    } else {
                        self.emit(a)?;
                    }
                }
                let end = self.prog.len();
                for j in jumps {
                    self.prog[j] = Inst::Jmp(end);
                }
                0
            }
            Node::Repeat(inner, min, max, greedy) => {
                for _ in 0..*min {
                    self.emit(inner)?;
                }
                match max {
                    None => {
                        // L: split body, out; body; jmp L
                        let split = self.push(Inst::Split(0, 0))?;
                        self.emit(inner)?;
                        self.push(Inst::Jmp(split))?;
                        self.prog[split] = self.split(split + 1, self.prog.len(), *greedy);
                    }
                    Some(max) => {
                        let mut splits = Vec::new();
                        for _ in *min..*max {
                            splits.push(self.push(Inst::Split(0, 0))?);
                            self.emit(inner)?;
                        }
                        let end = self.prog.len();
                        for s in splits {
                            self.prog[s] = self.split(s + 1, end, *greedy);
                        }
                    }
                }
                0
            }
        };
        Some(())
    }

    fn split(&self, body: usize, out: usize, greedy: bool) -> Inst {
        if greedy {
            Inst::Split(body, out)
        } else {
            Inst::Split(out, body)
        }
    }
}

impl Regex {
    /// Compiles `pattern`; `None` when it uses syntax outside the supported subset.
    pub(super) fn new(pattern: &str) -> Option<Regex> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut p = Parser {
            s: &chars,
            i: 0,
            depth: 0,
        };
        let node = p.alt()?;
        if p.i != chars.len() {
            return None; // an unbalanced `)`
        }
        let mut g = Gen {
            prog: Vec::new(),
            classes: Vec::new(),
        };
        g.emit(&node)?;
        g.push(Inst::Match)?;
        Some(Regex {
            prog: g.prog,
            classes: g.classes,
        })
    }

    /// `Some(true)` when the pattern matches somewhere in `text`; `None` when the work
    /// budget ran out.
    pub(super) fn is_match(&self, text: &str) -> Option<bool> {
        let t: Vec<char> = text.chars().collect();
        let bits = self.prog.len() * (t.len() + 1);
        let mut m = Matcher {
            re: self,
            t: &t,
            steps: 0,
            seen: if bits <= MAX_BITS {
                vec![0u64; bits / 64 + 1]
            } else {
                Vec::new()
            },
        };
        for start in 0..=t.len() {
            if m.run(0, start, true)? {
                return Some(true);
            }
        }
        Some(false)
    }
}

struct Matcher<'a> {
    re: &'a Regex,
    t: &'a [char],
    steps: u32,
    seen: Vec<u64>,
}

impl Matcher<'_> {
    fn word(&self, at: usize) -> bool {
        at < self.t.len() && perl(b'w', self.t[at])
    }

    /// Runs the program from `pc` at `pos`. `memo` is off inside lookahead, whose states
    /// are not failures of the main program.
    fn run(&mut self, pc: usize, pos: usize, memo: bool) -> Option<bool> {
        let mut stack = vec![(pc, pos)];
        while let Some((mut pc, mut pos)) = stack.pop() {
            loop {
                self.steps += 1;
                if self.steps > MAX_STEPS {
                    return None;
                }
                if memo && !self.seen.is_empty() {
                    let k = pc * (self.t.len() + 1) + pos;
                    let (w, b) = (k / 64, 1u64 << (k % 64));
                    if self.seen[w] & b != 0 {
                        break;
                    }
                    self.seen[w] |= b;
                }
                let cur = self.t.get(pos).copied();
                let ok = match self.re.prog[pc] {
                    Inst::Match => return Some(true),
                    Inst::Char(c) => cur == Some(c),
                    Inst::Any => {
                        cur.is_some_and(|c| !matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}'))
                    }
                    Inst::Class(k) => {
                        let (items, neg) = &self.re.classes[k];
                        cur.is_some_and(|c| class_has(items, *neg, c))
                    }
                    Inst::Start => {
                        if pos != 0 {
                            break;
                        }
                        pc += 1;
                        continue;
                    }
                    Inst::End => {
                        if pos != self.t.len() {
                            break;
                        }
                        pc += 1;
                        continue;
                    }
                    Inst::WordB(neg) => {
                        let at = pos > 0 && self.word(pos - 1);
                        if (at != self.word(pos)) == neg {
                            break;
                        }
                        pc += 1;
                        continue;
                    }
                    Inst::Look(next, neg) => {
                        if self.run(pc + 1, pos, false)? == neg {
                            break;
                        }
                        pc = next;
                        continue;
                    }
                    Inst::Split(a, b) => {
                        stack.push((b, pos));
                        pc = a;
                        continue;
                    }
                    Inst::Jmp(to) => {
                        pc = to;
                        continue;
                    }
                };
                if !ok {
                    break;
                }
                pc += 1;
                pos += 1;
            }
        }
        Some(false)
    }
}

#[cfg(test)]
mod tests {
    use super::Regex;

    fn m(p: &str, t: &str) -> bool {
        Regex::new(p)
            .unwrap_or_else(|| panic!("{p} should compile"))
            .is_match(t)
            .unwrap()
    }

    #[test]
    fn basics() {
        assert!(m("^a*$", "aaa"));
        assert!(!m("^a*$", "aab"));
        assert!(m("b", "abc"));
        assert!(m("^[a-z0-9_-]{3,16}$", "user_name-1"));
        assert!(!m("^[a-z0-9_-]{3,16}$", "ab"));
        assert!(m("^\\d{4}-\\d{2}-\\d{2}$", "2025-01-31"));
        assert!(!m("^\\d+$", "12a"));
        assert!(m("^(foo|bar)+$", "foobarfoo"));
        assert!(m("^(?:ab)?c$", "c"));
        assert!(m("^a.c$", "a€c"));
        assert!(!m("^a.c$", "a\nc"));
        assert!(m("^[^\\s]+$", "xyz"));
        assert!(!m("^[^\\s]+$", "x z"));
        assert!(m("\\bfoo\\b", "a foo b"));
        assert!(!m("\\bfoo\\b", "afoob"));
        assert!(m("^(?=.*[A-Z])(?=.*\\d).{8,}$", "abcdefG1"));
        assert!(!m("^(?=.*[A-Z])(?=.*\\d).{8,}$", "abcdefgh1"));
        assert!(m("^(?!admin$).*$", "user"));
        assert!(!m("^(?!admin$).*$", "admin"));
        assert!(m("^a{2}$", "aa") && !m("^a{2}$", "aaa"));
        assert!(m("^a{2,}$", "aaaa") && !m("^a{2,}$", "a"));
        assert!(m("x{", "x{")); // literal brace
        assert!(m("^\\u00e9\\x41$", "éA"));
        assert!(m("^[\\w.+-]+@[\\w-]+\\.[\\w.]+$", "a.b+c@d-e.fg"));
        assert!(m("^(?<year>\\d{4})$", "2024"));
        assert!(m("^\\/path$", "/path"));
        assert!(m("^(a+?)b$", "aaab"));
        assert!(m("^(a*)*$", "aaaa"));
        assert!(m("^$", ""));
    }

    #[test]
    fn unsupported_syntax_does_not_compile() {
        for p in [
            "(a)\\1", "(?<=a)b", "\\p{L}", "(", "a)", "[a", "*a", "a{3,1}", "\\cA", "(?i)a",
        ] {
            assert!(Regex::new(p).is_none(), "{p}");
        }
    }

    #[test]
    fn catastrophic_patterns_stay_linear() {
        let text = "a".repeat(5000) + "!";
        assert_eq!(Regex::new("^(a+)+$").unwrap().is_match(&text), Some(false));
        assert_eq!(
            Regex::new("^(a|aa)*$").unwrap().is_match(&text),
            Some(false)
        );
    }

    #[test]
    fn huge_quantifiers_are_refused() {
        assert!(Regex::new("a{100000}").is_none());
        assert!(Regex::new("((a{50}){50}){50}").is_none());
    }
}
