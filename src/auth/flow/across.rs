//! OAuth across contexts (issue 13, "OAuth across tabs"): several tabs or workers of one
//! origin share the host's `auth.storage`, hence one refresh token. Servers that rotate
//! refresh tokens revoke the whole family when one is used twice (OAuth 2.1 §4.3.1,
//! RFC 9700 §4.14.2), which signs the person out everywhere. So, when the shell has Web
//! Locks and the host gave a storage ([`super::AuthConfig::across_contexts`]):
//!
//! - after discovery, the flow takes a lock named after the authorization server and the
//!   client ([`lock_name`]) and holds it until it ends (the engine releases it on every
//!   path: done, failed, closed);
//! - under the lock it reads the stored tokens again: when another context stored tokens
//!   other than the ones just refused (and not expired), they are used, with no request to
//!   the token endpoint; otherwise it refreshes (or asks the person), saves, and announces
//!   the change ([`super::Effect::Announce`]: the storage key only, never a token);
//! - a context told that the tokens of a key changed reads them again
//!   ([`Authorizer::notice`], [`Authorizer::on_notice_loaded`]) and uses them for its next
//!   request, without waiting for a 401.
//!
//! This protects the refresh token only if the storage is shared by the contexts: the lock
//! orders the refreshes, the shared storage hands the rotated token to the next holder.

use super::{Authorizer, Effect, Flow, Stage};
use crate::auth::tokens::{self, Tokens};

/// The Web Lock of one authorization server and client: the issuer and the client's
/// configured identity (pre-registered id, CIMD URL, else the dynamic registration of
/// this redirect URI, stored per issuer).
pub(crate) fn lock_name(issuer: &str, client: &str) -> String {
    format!("mcp-wasm-client:oauth:{issuer} {client}")
}

impl Authorizer {
    /// True when flows run under the lock across contexts.
    pub(super) fn locking(&self) -> bool {
        self.cfg.storage && self.cfg.across_contexts
    }

    pub(super) fn client_label(&self) -> String {
        match (&self.cfg.client_id, &self.cfg.client_metadata_url) {
            (Some(id), _) => id.clone(),
            (None, Some(u)) => u.clone(),
            (None, None) => format!("dcr:{}", self.cfg.redirect_uri),
        }
    }

    pub(super) fn lock(&mut self, mut f: Flow) -> Vec<Effect> {
        let name = lock_name(&Self::issuer_of(&f), &self.client_label());
        f.stage = Stage::Lock;
        self.cont(f, vec![Effect::Lock(name)])
    }

    /// The lock is held: the stored records are read again.
    pub(crate) fn on_locked(&mut self) -> Vec<Effect> {
        let Some(f) = self.flow.take() else {
            return Vec::new();
        };
        if !matches!(f.stage, Stage::Lock) {
            return self.cont(f, Vec::new());
        }
        self.read_records(f)
    }

    /// The effects that keep new tokens: saved, and announced when across contexts.
    pub(super) fn keep(&mut self, issuer: &str, key: String, t: &Tokens) -> Vec<Effect> {
        let mut effects = Vec::new();
        if self.cfg.storage {
            effects.push(Effect::Save(key.clone(), tokens::to_record(t)));
            if self.locking() {
                effects.push(Effect::Announce(key.clone()));
            }
            self.token_keys.insert(issuer, key);
        }
        effects
    }

    /// Another context announced that the tokens stored under `key` changed: true when
    /// this client holds tokens of that key and no flow runs (a flow reads them again
    /// under the lock anyway). The engine then reads the key.
    pub(crate) fn notice(&self, key: &str) -> bool {
        self.locking() && self.flow.is_none() && self.token_keys.0.iter().any(|(_, k)| k == key)
    }

    /// The tokens of an announced key, read: when they differ from those held, they
    /// replace them. Returns (the access token replaced, the new one). A value that is
    /// not a token record is ignored (peer input).
    pub(crate) fn on_notice_loaded(
        &mut self,
        key: &str,
        value: Option<String>,
    ) -> Option<(String, String)> {
        if self.flow.is_some() {
            return None;
        }
        let issuer = self
            .token_keys
            .0
            .iter()
            .find(|(_, k)| k == key)
            .map(|(i, _)| i.clone())?;
        let t = value.as_deref().and_then(tokens::from_record)?;
        let old = self.tokens.get(&issuer)?.clone();
        if old == t {
            return None;
        }
        let new = t.access.clone();
        self.tokens.insert(&issuer, t);
        Some((old.access, new))
    }
}
