//! The token endpoint (RFC 6749 §3.2, §4.1.3, §4.4, §6): the refresh of a refused token
//! (no person needed; a step-up needs the person), the exchange of the authorization code
//! with its PKCE verifier, the client credentials grant, client authentication, and
//! keeping the tokens got.

use super::storage::tokens_key;
use super::{fail, Authorizer, Effect, FetchReq, Flow, Stage};
use crate::auth::tokens::{self, Tokens};
use crate::auth::{client, pkce, url};
use crate::http::request::HttpMethod;
use crate::time::Millis;

impl Authorizer {
    /// The token request of `grant` (with a DPoP proof when DPoP is used), and the stage
    /// that waits for its answer. With `private_key_jwt` its client assertion comes first
    /// (`dpop`: random bytes, then the signature).
    pub(super) fn token_request(
        &self,
        f: &mut Flow,
        next: Stage,
        grant: &[(&'static str, &str)],
    ) -> Option<Effect> {
        let meta = f.meta.as_ref()?;
        let c = f.client.as_ref()?;
        let mut form: Vec<(&'static str, &str)> = grant.to_vec();
        form.push(("resource", &f.resource));
        let mut headers = vec![
            (
                "Content-Type".to_string(),
                "application/x-www-form-urlencoded".to_string(),
            ),
            ("Accept".to_string(), "application/json".to_string()),
        ];
        client::authenticate(c, &mut form, &mut headers);
        let req = FetchReq {
            method: HttpMethod::Post,
            url: meta.token_endpoint.clone(),
            headers,
            body: Some(url::form(&form)),
            dpop: f.dpop,
        };
        if c.method == client::AuthMethod::PrivateKeyJwt {
            f.unsigned = Some((req, String::new()));
            f.stage = Stage::Assertion(Box::new(next));
            return Some(Effect::Random(super::dpop::JTI_BYTES));
        }
        f.stage = next;
        Some(Effect::Fetch(req))
    }

    /// After the client's identity: the client credentials grant asks for the client's own
    /// token (RFC 6749 §4.4.2; its tokens come without a refresh token, §4.4.3, so a
    /// refused one is replaced the same way). Otherwise a refused token is refreshed (no
    /// person needed; a step-up needs the person), else the person's step.
    pub(super) fn after_identity(&mut self, mut f: Flow) -> Vec<Effect> {
        let cc = self.cfg.client_credentials;
        let (grant, param, value, stage) = if cc {
            f.scope = self.select_scope(&f, false);
            ("client_credentials", "scope", f.scope.clone(), Stage::Token)
        } else {
            let issuer = Self::issuer_of(&f);
            let refresh = (f.trigger.status != 403)
                .then(|| self.tokens.get(&issuer).and_then(|t| t.refresh.clone()))
                .flatten();
            ("refresh_token", "refresh_token", refresh, Stage::Refresh)
        };
        if cc || value.is_some() {
            let mut form = vec![("grant_type", grant)];
            if let Some(v) = &value {
                form.push((param, v));
            }
            if let Some(req) = self.token_request(&mut f, stage, &form) {
                return self.cont(f, vec![req]);
            }
        }
        f.stage = Stage::Random;
        self.cont(f, vec![Effect::Random(pkce::RANDOM_BYTES)])
    }

    fn store_tokens(&mut self, f: &Flow, t: Tokens) -> Vec<Effect> {
        let issuer = Self::issuer_of(f);
        let mut effects = self.keep(&issuer, tokens_key(&issuer, &f.resource), &t);
        let access = t.access.clone();
        self.tokens.insert(&issuer, t);
        self.flow = None;
        effects.push(Effect::Done(Ok(access)));
        effects
    }

    pub(super) fn on_refreshed(
        &mut self,
        mut f: Flow,
        status: u16,
        body: &[u8],
        now: Millis,
    ) -> Vec<Effect> {
        let issuer = Self::issuer_of(&f);
        let old = self.tokens.get(&issuer).cloned();
        match tokens::parse_response(
            status,
            body,
            now,
            old.as_ref().and_then(|t| t.scope.as_deref()),
            f.dpop,
        ) {
            Ok(mut t) => {
                if t.refresh.is_none() {
                    t.refresh = old.and_then(|o| o.refresh);
                }
                self.store_tokens(&f, t)
            }
            Err(_) => {
                // The refresh token is spent or refused: the person signs in again. Across
                // contexts, the stored record loses it too, so that no other context sends
                // it again (it may have been used: the answer may just have been lost).
                let mut effects = Vec::new();
                if let Some(t) = self.tokens.get_mut(&issuer) {
                    t.refresh = None;
                    let t = t.clone();
                    if self.locking() {
                        effects = self.keep(&issuer, tokens_key(&issuer, &f.resource), &t);
                    }
                }
                f.stage = Stage::Random;
                effects.push(Effect::Random(pkce::RANDOM_BYTES));
                self.cont(f, effects)
            }
        }
    }

    pub(super) fn on_token(
        &mut self,
        f: Flow,
        status: u16,
        body: &[u8],
        now: Millis,
    ) -> Vec<Effect> {
        match tokens::parse_response(status, body, now, f.scope.as_deref(), f.dpop) {
            Ok(t) => self.store_tokens(&f, t),
            Err(why) if crate::text::contains(&why, "token_type") => {
                self.done(Err(fail("token-type", why)))
            }
            Err(why) => self.done(Err(fail("token", why))),
        }
    }
}
