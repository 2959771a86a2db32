//! Cacheable results (spec `server/utilities/caching.mdx`): `server/discover`, the list
//! methods and `resources/read` carry `ttlMs` and `cacheScope`. A result is fresh while
//! `now < received + ttlMs`; `ttlMs` 0, absent or negative means stale at once (not
//! stored). `private` entries belong to one authorization context (the `Authorization`
//! header in use); `public` ones are shared. List-changed and resource-updated
//! notifications drop the matching entries at once.

use crate::json::RawJson;
use crate::protocol::fields::{self, field, Got, Kind, Shape};
use crate::sorted_map::SortedMap;
use crate::time::Millis;

/// Methods whose results may be cached.
pub(crate) fn is_cacheable(method: &str) -> bool {
    matches!(
        method,
        "server/discover"
            | "tools/list"
            | "prompts/list"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read"
    )
}

struct Hints {
    ttl_ms: Option<crate::json::Value>,
    cache_scope: Option<crate::json::Value>,
}

/// What `#[derive(Deserialize)]` read (see `protocol::fields`).
static HINTS: Shape = Shape {
    expecting: "struct Hints",
    with_len: "struct Hints with 2 elements",
    fields: &[
        field("ttlMs", Kind::Opt, true),
        field("cacheScope", Kind::Opt, true),
    ],
};

fn parse_hints(text: &str) -> crate::json::JsonResult<Hints> {
    let mut g: [Got; 2] = Default::default();
    fields::parse(text, &HINTS, &mut g)?;
    Ok(Hints {
        ttl_ms: g[0].value(),
        cache_scope: g[1].value(),
    })
}

struct Entry {
    raw: RawJson,
    expires: Millis,
    method: String,
    uri: Option<String>,
    seq: u64,
}

/// The response cache of one client.
#[derive(Default)]
pub(crate) struct Cache {
    entries: SortedMap<String, Entry>,
    seq: u64,
}

/// Entries kept at most; the oldest go first.
const MAX_ENTRIES: usize = 512;

fn key(scope: Option<&str>, method: &str, param_key: &str) -> String {
    match scope {
        Some(auth) => format!("private\u{0}{auth}\u{0}{method}\u{0}{param_key}"),
        None => format!("public\u{0}{method}\u{0}{param_key}"),
    }
}

impl Cache {
    /// A fresh entry for this request, if any (the private entry of `auth` first).
    pub(crate) fn get(
        &self,
        method: &str,
        param_key: &str,
        auth: Option<&str>,
        now: Millis,
    ) -> Option<RawJson> {
        let private = key(Some(auth.unwrap_or("")), method, param_key);
        let public = key(None, method, param_key);
        [private, public]
            .iter()
            .filter_map(|k| self.entries.get(k))
            .find(|e| now < e.expires)
            .map(|e| e.raw.clone())
    }

    /// Stores a result according to its own `ttlMs` / `cacheScope`. Returns true if stored.
    pub(crate) fn put(
        &mut self,
        method: &str,
        param_key: &str,
        uri: Option<&str>,
        auth: Option<&str>,
        raw: &RawJson,
        now: Millis,
    ) -> bool {
        let Ok(h) = parse_hints(raw.get()) else {
            return false;
        };
        let ttl = match h.ttl_ms.as_ref().and_then(|v| v.as_f64()) {
            Some(t) if t >= 1.0 => t.min(u64::MAX as f64) as u64,
            _ => return false,
        };
        let private = !matches!(
            h.cache_scope.as_ref().and_then(|v| v.as_str()),
            Some("public")
        );
        let k = key(
            if private {
                Some(auth.unwrap_or(""))
            } else {
                None
            },
            method,
            param_key,
        );
        if self.entries.len() >= MAX_ENTRIES && !self.entries.contains_key(&k) {
            if let Some(oldest) = self
                .entries
                .iter()
                .min_by_key(|(_, e)| e.seq)
                .map(|(k, _)| k.clone())
            {
                self.entries.remove(&oldest);
            }
        }
        self.seq += 1;
        self.entries.insert(
            k,
            Entry {
                raw: raw.to_owned(),
                expires: now.saturating_add(ttl),
                method: method.to_string(),
                uri: uri.map(str::to_string),
                seq: self.seq,
            },
        );
        true
    }

    /// Drops every entry of a method (all pages, all scopes).
    pub(crate) fn invalidate_method(&mut self, method: &str) {
        self.entries.retain(|_, e| e.method != method);
    }

    /// Drops `resources/read` entries for `uri`, its sub-resources and its parents
    /// (`notifications/resources/updated` may name a sub-resource of a subscribed URI).
    pub(crate) fn invalidate_uri(&mut self, uri: &str) {
        self.entries.retain(|_, e| match &e.uri {
            Some(u) => !(u.starts_with(uri) || uri.starts_with(u.as_str())),
            None => true,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `Deserialize` derive `Hints` had.
    mod derived {
        use serde::Deserialize;

        #[derive(Deserialize)]
        pub(super) struct Hints {
            #[serde(rename = "ttlMs", default)]
            pub ttl_ms: Option<crate::json::Value>,
            #[serde(rename = "cacheScope", default)]
            pub cache_scope: Option<crate::json::Value>,
        }
    }

    #[test]
    fn hints_parse_matches_the_derive() {
        fields::assert_same_as_derive(
            &["ttlMs", "cacheScope"],
            parse_hints,
            |h: derived::Hints| format!("{:?}", (h.ttl_ms, h.cache_scope)),
            |h| format!("{:?}", (h.ttl_ms, h.cache_scope)),
        );
    }

    fn raw(s: &str) -> RawJson {
        RawJson::from_string(s.into()).unwrap()
    }

    #[test]
    fn fresh_until_ttl() {
        let mut c = Cache::default();
        assert!(c.put(
            "tools/list",
            "",
            None,
            None,
            &raw(r#"{"tools":[],"ttlMs":1000,"cacheScope":"public"}"#),
            100
        ));
        assert!(c.get("tools/list", "", None, 1099).is_some());
        assert!(c.get("tools/list", "", None, 1100).is_none());
    }

    #[test]
    fn zero_absent_negative_ttl_not_stored() {
        let mut c = Cache::default();
        for r in [
            r#"{"ttlMs":0}"#,
            r#"{}"#,
            r#"{"ttlMs":-5}"#,
            r#"{"ttlMs":"9"}"#,
        ] {
            assert!(!c.put("tools/list", "", None, None, &raw(r), 0), "{r}");
        }
        assert!(c.entries.is_empty());
    }

    #[test]
    fn private_entries_are_per_authorization() {
        let mut c = Cache::default();
        c.put(
            "tools/list",
            "",
            None,
            Some("Bearer a"),
            &raw(r#"{"ttlMs":1000,"cacheScope":"private"}"#),
            0,
        );
        assert!(c.get("tools/list", "", Some("Bearer a"), 1).is_some());
        assert!(c.get("tools/list", "", Some("Bearer b"), 1).is_none());
        assert!(c.get("tools/list", "", None, 1).is_none());
    }

    #[test]
    fn pages_and_params_are_separate_and_invalidation_works() {
        let mut c = Cache::default();
        let r = raw(r#"{"ttlMs":1000,"cacheScope":"public"}"#);
        c.put("tools/list", "", None, None, &r, 0);
        c.put("tools/list", "c2", None, None, &r, 0);
        c.put(
            "resources/read",
            "file:///a/b",
            Some("file:///a/b"),
            None,
            &r,
            0,
        );
        c.put(
            "resources/read",
            "file:///z",
            Some("file:///z"),
            None,
            &r,
            0,
        );
        assert!(c.get("tools/list", "c2", None, 1).is_some());
        assert!(c.get("tools/list", "c3", None, 1).is_none());
        c.invalidate_method("tools/list");
        assert!(c.get("tools/list", "", None, 1).is_none());
        c.invalidate_uri("file:///a");
        assert!(c.get("resources/read", "file:///a/b", None, 1).is_none());
        assert!(c.get("resources/read", "file:///z", None, 1).is_some());
    }
}
