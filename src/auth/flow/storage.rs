//! What the client already holds (spec "Authorization Server Binding"): the host
//! storage's records of dynamic registrations and tokens, keyed by the authorization
//! server's `issuer`, read once per issuer; and a token still usable, which ends the flow
//! without the person.

use super::{Authorizer, Effect, Flow, Stage};
use crate::auth::{client, tokens};

pub(crate) fn client_key(issuer: &str) -> String {
    format!("mcp-wasm-client:oauth:client:{issuer}")
}

pub(crate) fn tokens_key(issuer: &str, resource: &str) -> String {
    format!("mcp-wasm-client:oauth:tokens:{issuer}:{resource}")
}

/// An authorization request sent to the person, by its `state` (`authorize::resume`).
pub(crate) fn pending_key(issuer: &str, resource: &str, state: &str) -> String {
    format!("mcp-wasm-client:oauth:pending:{issuer}:{resource}:{state}")
}

impl Authorizer {
    /// After the metadata and the DPoP key (`dpop`): the stored records, under the lock
    /// across contexts.
    pub(super) fn after_key(&mut self, f: Flow) -> Vec<Effect> {
        if self.locking() {
            return self.lock(f);
        }
        self.read_records(f)
    }

    /// Reads the stored records: once per issuer; under the lock of the flow across
    /// contexts, the tokens every time (another context may have refreshed them) and the
    /// registration while none is held (another context may have registered).
    pub(super) fn read_records(&mut self, mut f: Flow) -> Vec<Effect> {
        let issuer = Self::issuer_of(&f);
        if self.locking() {
            if self.clients.get(&issuer).is_none() {
                f.stage = Stage::LoadClient;
                return self.cont(f, vec![Effect::Load(client_key(&issuer))]);
            }
            f.stage = Stage::LoadTokens;
            let key = tokens_key(&issuer, &f.resource);
            return self.cont(f, vec![Effect::Load(key)]);
        }
        if self.cfg.storage && !self.loaded.contains(&issuer) {
            f.stage = Stage::LoadClient;
            return self.cont(f, vec![Effect::Load(client_key(&issuer))]);
        }
        self.choose_token(f)
    }

    /// A storage read answered (`None`: nothing stored, or the storage failed).
    pub(crate) fn on_loaded(&mut self, value: Option<String>) -> Vec<Effect> {
        let Some(mut f) = self.flow.take() else {
            return Vec::new();
        };
        let issuer = Self::issuer_of(&f);
        match f.stage {
            Stage::LoadClient => {
                if let Some(c) = value.as_deref().and_then(client::from_record) {
                    self.clients.insert_new(&issuer, c);
                }
                f.stage = Stage::LoadTokens;
                let key = tokens_key(&issuer, &f.resource);
                self.cont(f, vec![Effect::Load(key)])
            }
            Stage::LoadTokens => {
                let key = tokens_key(&issuer, &f.resource);
                if let Some(t) = value.as_deref().and_then(tokens::from_record) {
                    if self.locking() {
                        // Read under the lock: what is stored is the newest (shared storage).
                        self.tokens.insert(&issuer, t);
                    } else {
                        self.tokens.insert_new(&issuer, t);
                    }
                }
                self.token_keys.insert(&issuer, key);
                if !self.loaded.contains(&issuer) {
                    self.loaded.push(issuer);
                }
                self.choose_token(f)
            }
            Stage::LoadPending(ref mut callback, ref mut state) => {
                let (callback, state) = (std::mem::take(callback), std::mem::take(state));
                self.resume(f, callback, state, value)
            }
            _ => self.cont(f, Vec::new()),
        }
    }

    /// A token this client holds for the server's authorization server, when it is not
    /// the one just refused nor expired: storage had it, or an earlier flow got it.
    fn choose_token(&mut self, f: Flow) -> Vec<Effect> {
        let issuer = Self::issuer_of(&f);
        if f.trigger.status != 403 {
            if let Some(t) = self.tokens.get(&issuer) {
                // A token of the other kind is not usable: a DPoP-bound one without the key
                // (or with DPoP off), a Bearer one where DPoP is now used.
                if Some(&t.access) != f.trigger.sent_token.as_ref()
                    && !t.expired(self.now)
                    && t.dpop == f.dpop
                {
                    let access = t.access.clone();
                    return self.done(Ok(access));
                }
            }
        }
        self.identify(f)
    }
}
