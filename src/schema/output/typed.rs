//! The keywords that apply to one instance type: numbers, strings (with `pattern`),
//! arrays and objects (JSON Schema 2020-12 validation §6.2–6.5, applicators §10.3).

use super::{json_eq, mark, Ann, Run, Seg};
use crate::error::{json_text, sanitize};
use crate::json::{Map, Value};

impl<'a> Run<'a> {
    /// Numbers in messages are printed as JSON text: `{}` of an `f64` would pull core's
    /// float formatting into the wasm.
    pub(super) fn number(
        &mut self,
        kw: &'a str,
        v: &'a Value,
        inst: &Value,
        x: f64,
        collect: bool,
    ) -> bool {
        let Some(lim) = v.as_f64() else { return true };
        let (good, what) = match kw {
            "multipleOf" => (lim <= 0.0 || is_multiple(x, lim), "a multiple of"),
            "maximum" => (x <= lim, "at most"),
            "minimum" => (x >= lim, "at least"),
            "exclusiveMaximum" => (x < lim, "less than"),
            "exclusiveMinimum" => (x > lim, "greater than"),
            _ => return true,
        };
        if !good && collect {
            self.err(
                kw,
                format!("{} is not {what} {}", json_text(inst), json_text(v)),
            );
        }
        good
    }

    pub(super) fn string(&mut self, kw: &'a str, v: &'a Value, s: &str, collect: bool) -> bool {
        let good = match kw {
            // Lengths count code points (validation §6.3.1).
            "maxLength" => v.as_f64().is_none_or(|m| s.chars().count() as f64 <= m),
            "minLength" => v.as_f64().is_none_or(|m| s.chars().count() as f64 >= m),
            "pattern" => v.as_str().is_none_or(|p| self.matches(p, s)),
            _ => return true,
        };
        if !good && collect {
            let msg = match kw {
                "pattern" => format!(
                    "string does not match the pattern '{}'",
                    sanitize(v.as_str().unwrap_or(""), 80)
                ),
                "maxLength" => format!("string is longer than {} characters", json_text(v)),
                _ => format!("string is shorter than {} characters", json_text(v)),
            };
            self.err(kw, msg);
        }
        good
    }

    pub(super) fn matches(&self, pattern: &str, s: &str) -> bool {
        let found = self.s.ix.patterns.iter().find(|(p, _)| p == pattern);
        found.is_none_or(|(_, re)| re.is_match(s).unwrap_or(true))
    }

    pub(super) fn array(
        &mut self,
        obj: &'a Map,
        kw: &'a str,
        v: &'a Value,
        a: &'a [Value],
        collect: bool,
        ann: &mut Ann,
    ) -> bool {
        let mut good = true;
        let n = a.len();
        let mut each = |run: &mut Self,
                        from: usize,
                        to: usize,
                        sub: &'a Value,
                        seg: &[Seg<'a>],
                        ann: &mut Ann| {
            for (i, item) in a.iter().enumerate().take(to).skip(from) {
                if run.sub(sub, seg, item, Some(Seg::Idx(i)), collect, None) {
                    mark(&mut ann.items, i);
                } else {
                    good = false;
                    if !collect {
                        return false;
                    }
                }
            }
            true
        };
        let cont = match (kw, v) {
            ("prefixItems", Value::Array(subs)) | ("items", Value::Array(subs)) => {
                let mut c = true;
                for (i, s) in subs.iter().enumerate().take(n) {
                    c &= each(self, i, i + 1, s, &[Seg::Key(kw), Seg::Idx(i)], ann);
                }
                c
            }
            ("items", _) => {
                // 2020-12: after prefixItems. Legacy: the whole array.
                let from = match obj.get("prefixItems") {
                    Some(Value::Array(p)) if !self.s.legacy => p.len(),
                    _ => 0,
                };
                each(self, from, n, v, &[Seg::Key(kw)], ann)
            }
            ("additionalItems", _) => match obj.get("items") {
                Some(Value::Array(p)) => each(self, p.len(), n, v, &[Seg::Key(kw)], ann),
                _ => true,
            },
            ("contains", _) => {
                let mut hits = 0u64;
                for (i, item) in a.iter().enumerate() {
                    if self.sub(v, &[Seg::Key(kw)], item, Some(Seg::Idx(i)), false, None) {
                        hits += 1;
                        mark(&mut ann.items, i);
                    }
                }
                let min = obj
                    .get("minContains")
                    .and_then(Value::as_f64)
                    .unwrap_or(1.0);
                let max = obj
                    .get("maxContains")
                    .and_then(Value::as_f64)
                    .unwrap_or(f64::INFINITY);
                let h = hits as f64;
                if h < min || h > max {
                    good = false;
                    if collect {
                        let (lo, hi) = (
                            obj.get("minContains").unwrap_or(&Value::Null),
                            obj.get("maxContains").unwrap_or(&Value::Null),
                        );
                        self.err(kw, format!("array has {hits} items matching 'contains' (minContains {}, maxContains {})", json_text(lo), json_text(hi)));
                    }
                }
                true
            }
            ("maxItems", _) | ("minItems", _) => {
                let lim = v.as_f64().unwrap_or(0.0);
                if (kw == "maxItems" && n as f64 > lim) || (kw == "minItems" && (n as f64) < lim) {
                    good = false;
                    if collect {
                        let w = if kw == "maxItems" {
                            "at most"
                        } else {
                            "at least"
                        };
                        self.err(
                            kw,
                            format!("array has {n} items, needs {w} {}", json_text(v)),
                        );
                    }
                }
                true
            }
            ("uniqueItems", Value::Bool(true)) => {
                let dup = a.iter().enumerate().find_map(|(j, y)| {
                    a.iter().take(j).position(|x| json_eq(x, y)).map(|i| (i, j))
                });
                if let Some((i, j)) = dup {
                    good = false;
                    if collect {
                        self.err(kw, format!("items {i} and {j} are equal"));
                    }
                }
                true
            }
            _ => true,
        };
        cont && good
    }

    pub(super) fn object(
        &mut self,
        obj: &'a Map,
        kw: &'a str,
        v: &'a Value,
        o: &'a Map,
        collect: bool,
        ann: &mut Ann,
    ) -> bool {
        let mut good = true;
        macro_rules! bad {
            ($($msg:tt)+) => {{
                good = false;
                if !collect { return false; }
                self.err(kw, format!($($msg)+));
            }};
        }
        match kw {
            "properties" | "patternProperties" | "additionalProperties" => {
                for (i, (k, val)) in o.iter().enumerate() {
                    let sub = match kw {
                        "properties" => v.get(k).map(|s| (s, Seg::Key(k))),
                        "patternProperties" => v
                            .as_object()
                            .into_iter()
                            .flatten()
                            .find(|(p, _)| self.matches(p, k))
                            .map(|(p, s)| (s, Seg::Key(p.as_str()))),
                        _ => {
                            let named = obj.get("properties").is_some_and(|p| p.get(k).is_some());
                            let patterned = obj
                                .get("patternProperties")
                                .and_then(Value::as_object)
                                .is_some_and(|pp| pp.keys().any(|p| self.matches(p, k)));
                            (!named && !patterned).then_some((v, Seg::Key("")))
                        }
                    };
                    let Some((s, seg)) = sub else { continue };
                    if kw == "patternProperties" {
                        // Every matching pattern applies, not only the first.
                        for (p, s) in v.as_object().into_iter().flatten() {
                            if self.matches(p, k) {
                                if self.sub(
                                    s,
                                    &[Seg::Key(kw), Seg::Key(p)],
                                    val,
                                    Some(Seg::Key(k)),
                                    collect,
                                    None,
                                ) {
                                    mark(&mut ann.props, i);
                                } else {
                                    good = false;
                                    if !collect {
                                        return false;
                                    }
                                }
                            }
                        }
                        continue;
                    }
                    if kw == "additionalProperties" && s == &Value::Bool(false) {
                        bad!("property '{}' is not allowed", sanitize(k, 60));
                        continue;
                    }
                    let segs: &[Seg<'a>] = if kw == "properties" {
                        &[Seg::Key(kw), seg]
                    } else {
                        &[Seg::Key(kw)]
                    };
                    if self.sub(s, segs, val, Some(Seg::Key(k)), collect, None) {
                        mark(&mut ann.props, i);
                    } else {
                        good = false;
                        if !collect {
                            return false;
                        }
                    }
                }
            }
            "required" => {
                for r in v.as_array().into_iter().flatten().filter_map(Value::as_str) {
                    if !o.contains_key(r) {
                        bad!("missing required property '{}'", sanitize(r, 60));
                    }
                }
            }
            "dependentRequired" => {
                for (name, req) in v.as_object().into_iter().flatten() {
                    if o.contains_key(name) {
                        for r in req
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(Value::as_str)
                        {
                            if !o.contains_key(r) {
                                bad!(
                                    "property '{}' is required when '{}' is present",
                                    sanitize(r, 60),
                                    sanitize(name, 60)
                                );
                            }
                        }
                    }
                }
            }
            "propertyNames" => {
                for k in o.keys() {
                    // The name is a value made here, shorter-lived than the instance: it
                    // gets its own run, which only answers yes or no.
                    let name = Value::String(k.clone());
                    let mut probe = Run {
                        s: self.s,
                        errors: Vec::new(),
                        ipath: Vec::new(),
                        spath: Vec::new(),
                        scope: self.scope.clone(),
                        depth: self.depth,
                        too_deep: false,
                    };
                    if !probe.eval(v, &name, false, &mut Ann::default()) {
                        bad!("property name '{}' is not allowed", sanitize(k, 60));
                    }
                }
            }
            "maxProperties" | "minProperties" => {
                let lim = v.as_f64().unwrap_or(0.0);
                let n = o.len();
                if (kw == "maxProperties" && n as f64 > lim)
                    || (kw == "minProperties" && (n as f64) < lim)
                {
                    let w = if kw == "maxProperties" {
                        "at most"
                    } else {
                        "at least"
                    };
                    bad!("object has {n} properties, needs {w} {}", json_text(v));
                }
            }
            _ => {}
        }
        good
    }
}

fn is_multiple(x: f64, m: f64) -> bool {
    let q = x / m;
    if !q.is_finite() {
        // Overflow (1e308 / 0.5): an integer is a multiple of 1/k.
        return x.fract() == 0.0 && (1.0 / m).fract() == 0.0;
    }
    // Decimal multipliers (0.01) are not exact in binary: allow a rounding error.
    (q - q.round()).abs() <= 1e-9 * q.abs().max(1.0)
}
