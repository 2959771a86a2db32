//! The scopes to ask for (spec "Scope Selection Strategy", "Step-Up Authorization Flow"):
//! the union of every scope requested so far, so that a step-up keeps what was granted.

use super::{Authorizer, Flow};

fn push_scopes(v: &mut Vec<String>, s: &str) {
    for t in s.split_whitespace().take(64) {
        if !v.iter().any(|x| x == t) {
            v.push(t.to_string());
        }
    }
}

impl Authorizer {
    /// The scopes to ask for (spec "Scope Selection Strategy" and "Step-Up Authorization
    /// Flow"): what was asked before, plus the challenge's `scope` (else the PRM's
    /// `scopes_supported`), plus the host's; `offline_access` when the authorization
    /// server lists it and `offline` (a grant with refresh tokens; spec "Refresh Tokens").
    /// `None` (the parameter omitted) when empty.
    pub(super) fn select_scope(&mut self, f: &Flow, offline: bool) -> Option<String> {
        let mut v = self.requested.clone();
        match f
            .trigger
            .challenge
            .as_ref()
            .and_then(|c| c.scope.as_deref())
            .filter(|s| !s.trim().is_empty())
        {
            Some(s) => push_scopes(&mut v, s),
            None => {
                for s in f.prm_scopes.iter().flatten() {
                    push_scopes(&mut v, s);
                }
            }
        }
        if let Some(s) = &self.cfg.scope {
            push_scopes(&mut v, s);
        }
        let offline = offline
            && f.meta
                .as_ref()
                .and_then(|m| m.scopes_supported.as_ref())
                .is_some_and(|s| s.iter().any(|x| x == "offline_access"));
        if offline {
            push_scopes(&mut v, "offline_access");
        }
        self.requested = v.clone();
        (!v.is_empty()).then(|| crate::text::join(v.iter().map(String::as_str), " "))
    }
}
