//! The flow's side of DPoP (RFC 9449) and `private_key_jwt` (RFC 7523): whether DPoP is
//! used with the authorization server found (§5.1 `dpop_signing_alg_values_supported`,
//! `auth.dpop`), the key asked of the shell (one per authorization server and client
//! identity, kept where tokens are kept), and the client assertion of a token request
//! (a random `jti`, then the shell's signature).

use super::{fail, Authorizer, Effect, Flow, Stage};
use crate::auth::dpop::{self, DpopMode, ASSERTION_TYPE};
use crate::auth::url;
use crate::error::sanitize;

/// Random bytes of a client assertion's `jti`.
pub(super) const JTI_BYTES: usize = 16;

/// The name of the DPoP key of one authorization server and client identity (a storage
/// key: with `auth.storage` the shell keeps the key pair under it).
pub(crate) fn key_name(issuer: &str, client: &str) -> String {
    format!("mcp-wasm-client:oauth:dpop:{issuer} {client}")
}

impl Authorizer {
    /// After the authorization server metadata: DPoP or not, and its key first.
    pub(super) fn after_meta(&mut self, mut f: Flow) -> Vec<Effect> {
        let listed = f.meta.as_ref().and_then(|m| m.dpop_algs.as_ref());
        // This client signs proofs with ES256 only (WebCrypto's P-256 ECDSA everywhere).
        let es256 = listed.is_some_and(|l| l.iter().any(|a| a == "ES256"));
        f.dpop = match self.cfg.dpop {
            DpopMode::Off => false,
            DpopMode::Auto => es256,
            DpopMode::Required if es256 => true,
            DpopMode::Required => {
                let why = if listed.is_some() {
                    "does not list ES256 in dpop_signing_alg_values_supported"
                } else {
                    "does not list dpop_signing_alg_values_supported (no DPoP support)"
                };
                return self.done(Err(fail(
                    "dpop-unsupported",
                    format!(
                        "auth.dpop is true, but the authorization server \"{}\" {why}",
                        sanitize(&Self::issuer_of(&f), 200)
                    ),
                )));
            }
        };
        let issuer = Self::issuer_of(&f);
        if f.dpop && self.dpop_key.as_deref() != Some(issuer.as_str()) {
            f.stage = Stage::Key;
            let name = key_name(&issuer, &self.client_label());
            return self.cont(f, vec![Effect::Key(name)]);
        }
        self.after_key(f)
    }

    /// The shell has the DPoP key (`ok`), or could not make one (no WebCrypto): with
    /// `dpop: 'auto'` the flow goes on with Bearer tokens.
    pub(crate) fn on_key(&mut self, ok: bool) -> Vec<Effect> {
        let Some(mut f) = self.flow.take() else {
            return Vec::new();
        };
        if !matches!(f.stage, Stage::Key) {
            return self.cont(f, Vec::new());
        }
        if ok {
            self.dpop_key = Some(Self::issuer_of(&f));
        } else if self.cfg.dpop == DpopMode::Required {
            return self.done(Err(fail(
                "dpop-key",
                "auth.dpop is true, but no DPoP key could be made (crypto.subtle with ECDSA P-256 is needed)".into(),
            )));
        } else {
            f.dpop = false;
        }
        self.after_key(f)
    }

    /// True when the tokens of `issuer` were got with DPoP (bound to the key).
    pub(crate) fn dpop_token(&self, access: &str) -> bool {
        self.tokens
            .0
            .iter()
            .any(|(_, t)| t.dpop && t.access == access)
    }

    /// Random bytes for a client assertion's `jti`: its signing input goes to the shell.
    pub(super) fn on_assertion_random(&mut self, mut f: Flow, bytes: &[u8]) -> Vec<Effect> {
        let (Some(key), Some(c), Some(bytes)) = (
            self.cfg.client_key.as_ref(),
            f.client.as_ref(),
            bytes.get(..JTI_BYTES),
        ) else {
            return self.done(Err(fail(
                "random",
                "no random bytes for the client assertion (crypto.getRandomValues is needed)"
                    .into(),
            )));
        };
        let input = dpop::assertion(key, &c.id, &Self::issuer_of(&f), bytes, self.now);
        let Some(u) = f.unsigned.as_mut() else {
            return self.done(Err(fail("sign", "no token request to sign".into())));
        };
        u.1 = input.clone();
        self.cont(f, vec![Effect::Sign(input)])
    }

    /// The token endpoint asked for a DPoP nonce (RFC 9449 §8) and the request goes again:
    /// with a client assertion, a new one (RFC 7523 §3: the authorization server may accept
    /// a `jti` only once, and oidc-provider does), so random bytes for its `jti` first.
    /// `None`: the request in flight has no assertion, and goes again as it was.
    pub(crate) fn reassert(&mut self) -> Option<Vec<Effect>> {
        let f = self.flow.as_mut()?;
        let req = f.asserted.take()?;
        let next = std::mem::replace(&mut f.stage, Stage::Random);
        f.stage = Stage::Assertion(Box::new(next));
        f.unsigned = Some((req, String::new()));
        Some(vec![Effect::Random(JTI_BYTES)])
    }

    /// The shell signed the client assertion (`None`: it could not): the token request
    /// leaves with it (RFC 7523 §2.2).
    pub(crate) fn on_signed(&mut self, signature: Option<Vec<u8>>) -> Vec<Effect> {
        let Some(mut f) = self.flow.take() else {
            return Vec::new();
        };
        let Stage::Assertion(next) = std::mem::replace(&mut f.stage, Stage::Random) else {
            return self.cont(f, Vec::new());
        };
        let (Some((mut req, input)), Some(sig)) = (f.unsigned.take(), signature) else {
            return self.done(Err(fail(
                "sign",
                "auth.privateKey could not sign the client assertion".into(),
            )));
        };
        f.asserted = Some(req.clone());
        let jws = dpop::compact(&input, &sig);
        let body = req.body.get_or_insert_with(String::new);
        if !body.is_empty() {
            body.push('&');
        }
        body.push_str(&url::form(&[
            ("client_assertion_type", ASSERTION_TYPE),
            ("client_assertion", &jws),
        ]));
        f.stage = *next;
        self.cont(f, vec![Effect::Fetch(req)])
    }
}
