//! The authorization code grant with PKCE (spec "Authorization Code Protection", OAuth 2.1
//! §4.1): the authorization request the host shows the person, and the checks of the
//! response (RFC 9207 `iss`, `state`, `error`) before the code goes to the token endpoint.
//!
//! With a host storage, each request's secrets (the PKCE verifier, the scope) are kept
//! under its authorization server, resource and `state` until its code is exchanged, so that a page which navigated to the
//! authorization server (the redirect pattern: no popup) finishes the flow after it comes
//! back: its new client's `onAuthorize` answers with the URL the page returned to, whose
//! `state` names the stored request (`resume`).

use super::storage::pending_key;
use super::{fail, AuthorizeReq, Authorizer, Effect, Flow, Stage};
use crate::auth::pkce::Pkce;
use crate::auth::{pkce, url};
use crate::error::json_object;
use crate::error::{sanitize, Error, ErrorKind, Result};

/// What an authorization response that passed its checks asks of the flow.
enum Callback {
    /// Exchange `code` (with the request's PKCE `verifier`; `saved`: the key of the
    /// request's stored secrets, which the exchange clears).
    Code {
        code: String,
        verifier: String,
        saved: Option<String>,
    },
    /// Another page's request (its `state` is not this flow's): read its stored secrets
    /// under `key` first.
    Pending { key: String, state: String },
}

fn state_mismatch() -> Error {
    fail(
        "state-mismatch",
        "the authorization response's state does not match the request's: refused".into(),
    )
}

impl Authorizer {
    /// Random bytes arrived: the authorization request goes to the host.
    pub(crate) fn on_random(&mut self, bytes: &[u8]) -> Vec<Effect> {
        let Some(mut f) = self.flow.take() else {
            return Vec::new();
        };
        if matches!(f.stage, Stage::Assertion(_)) {
            return self.on_assertion_random(f, bytes);
        }
        if !matches!(f.stage, Stage::Random) {
            return self.cont(f, Vec::new());
        }
        let Some(p) = pkce::new(bytes) else {
            return self.done(Err(fail(
                "random",
                "no random bytes for PKCE (the platform's crypto.getRandomValues is needed)".into(),
            )));
        };
        let (Some(meta), Some(c)) = (f.meta.clone(), f.client.clone()) else {
            return self.done(Err(fail("discovery", "no metadata".into())));
        };
        let scope = self.select_scope(&f, true);
        let mut pairs: Vec<(&str, &str)> = vec![
            ("response_type", "code"),
            ("client_id", &c.id),
            ("redirect_uri", &self.cfg.redirect_uri),
            ("code_challenge", &p.challenge),
            ("code_challenge_method", "S256"),
            ("state", &p.state),
            ("resource", &f.resource),
        ];
        if let Some(s) = &scope {
            pairs.push(("scope", s));
        }
        let req = AuthorizeReq {
            url: url::with_query(&meta.authorization_endpoint, &pairs),
            issuer: meta.issuer.clone(),
            resource: f.resource.clone(),
            scope: scope.clone(),
            redirect_uri: self.cfg.redirect_uri.clone(),
        };
        let mut effects = Vec::new();
        if self.cfg.storage {
            // `verifier scope` (a verifier has no space).
            let rec = format!("{} {}", p.verifier, scope.as_deref().unwrap_or(""));
            effects.push(Effect::Save(
                pending_key(&meta.issuer, &f.resource, &p.state),
                rec,
            ));
        }
        effects.push(Effect::Authorize(req));
        f.pkce = Some(p);
        f.scope = scope;
        f.stage = Stage::Authorize;
        self.cont(f, effects)
    }

    /// The host's answer to the person's step: the URL the authorization server redirected
    /// to (or what the host threw). Checked (RFC 9207 `iss`, `state`) before the code is
    /// sent anywhere.
    pub(crate) fn on_callback(&mut self, r: Result<String>) -> Vec<Effect> {
        let Some(mut f) = self.flow.take() else {
            return Vec::new();
        };
        if !matches!(f.stage, Stage::Authorize) {
            return self.cont(f, Vec::new());
        }
        let callback = match r {
            Ok(u) => u,
            Err(e) => return self.done(Err(e)),
        };
        // The response is read where it lies, and only what the token request needs is
        // taken: a refusal then has only the flow and the URL to drop.
        let (code, verifier, saved) = match self.read_callback(&f, &callback) {
            Ok(Callback::Code {
                code,
                verifier,
                saved,
            }) => (code, verifier, saved),
            Ok(Callback::Pending { key, state }) => {
                f.stage = Stage::LoadPending(callback, state);
                return self.cont(f, vec![Effect::Load(key)]);
            }
            Err(e) => return self.done(Err(e)),
        };
        let redirect = self.cfg.redirect_uri.clone();
        let Some(req) = self.token_request(
            &mut f,
            Stage::Token,
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("redirect_uri", &redirect),
                ("code_verifier", &verifier),
            ],
        ) else {
            return self.done(Err(fail("discovery", "no client".into())));
        };
        let mut effects = vec![req];
        if let Some(key) = saved {
            effects.insert(0, Effect::Save(key, String::new()));
        }
        self.cont(f, effects)
    }

    /// The checks of an authorization response (`callback`, the URL the person came back
    /// to) against flow `f`'s request.
    fn read_callback(&self, f: &Flow, callback: &str) -> Result<Callback> {
        let (Some(meta), Some(p)) = (&f.meta, &f.pkce) else {
            return Err(fail("discovery", "no metadata".into()));
        };
        let params = url::query_params(callback);
        let param = |k: &str| params.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        // Spec "Authorization Response Validation": exact comparison, no normalization;
        // on a mismatch nothing of the response (error fields included) is acted on.
        match (meta.iss_supported, param("iss")) {
            (_, Some(iss)) if iss != meta.issuer => {
                return Err(fail(
                    "iss-mismatch",
                    format!(
                        "the authorization response names issuer \"{}\", not \"{}\": refused (RFC 9207)",
                        sanitize(iss, 200),
                        sanitize(&meta.issuer, 200)
                    ),
                ))
            }
            (true, None) => {
                return Err(fail(
                    "iss-missing",
                    "the authorization server advertises the iss parameter but the authorization response has none: refused (RFC 9207)".into(),
                ))
            }
            _ => {}
        }
        let state = param("state").unwrap_or_default();
        if state != p.state {
            if self.cfg.storage && !state.is_empty() {
                return Ok(Callback::Pending {
                    key: pending_key(&meta.issuer, &f.resource, state),
                    state: state.to_string(),
                });
            }
            return Err(state_mismatch());
        }
        if let Some(e) = param("error") {
            let mut msg = format!("the authorization server refused: {}", sanitize(e, 80));
            if let Some(d) = param("error_description") {
                msg.push_str(&format!(" ({})", sanitize(d, 200)));
            }
            return Err(Error::new(ErrorKind::Auth, msg).with_data(json_object(vec![
                ("reason", "authorization-error".into()),
                ("error", sanitize(e, 80).into()),
            ])));
        }
        let Some(code) = param("code") else {
            return Err(fail(
                "no-code",
                "the authorization response has no code".into(),
            ));
        };
        Ok(Callback::Code {
            code: code.to_string(),
            verifier: p.verifier.clone(),
            saved: self
                .cfg
                .storage
                .then(|| pending_key(&meta.issuer, &f.resource, &p.state)),
        })
    }

    /// The stored request named by a callback's `state` (for this authorization server and
    /// resource: its key says) was read: the flow takes its secrets and checks the callback
    /// again; without one, the `state` is not one of this client's.
    pub(super) fn resume(
        &mut self,
        mut f: Flow,
        callback: String,
        state: String,
        stored: Option<String>,
    ) -> Vec<Effect> {
        match stored
            .as_deref()
            .and_then(|r| crate::text::split_once(r, " "))
        {
            Some((verifier, scope)) if !verifier.is_empty() => {
                f.pkce = Some(Pkce {
                    challenge: String::new(), // sent already, by the page that left
                    verifier: verifier.to_string(),
                    state,
                });
                f.scope = Some(scope.to_string()).filter(|s| !s.is_empty());
                f.stage = Stage::Authorize;
                self.flow = Some(f);
                self.on_callback(Ok(callback))
            }
            _ => self.done(Err(state_mismatch())),
        }
    }
}
