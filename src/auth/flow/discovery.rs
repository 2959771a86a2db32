//! Discovery (spec "Authorization Server Discovery"): the Protected Resource Metadata
//! (RFC 9728) at the URL the challenge names, else at the well-known locations; then the
//! Authorization Server Metadata (RFC 8414, OpenID Connect Discovery) of the server chosen,
//! with the 2025-03-26 fallback (the MCP server's origin, default endpoints).

use super::{fail, get, ok_status, Authorizer, Effect, Flow, Stage, Trigger};
use crate::auth::metadata::{self, MetaProblem};
use crate::auth::url;
use crate::error::sanitize;
use crate::time::Millis;

impl Authorizer {
    /// Starts a flow (nothing when one runs: the caller waits for it).
    pub(crate) fn start(&mut self, trigger: Trigger, now: Millis) -> Vec<Effect> {
        self.now = self.now.max(now);
        if self.flow.is_some() {
            return Vec::new();
        }
        let mut candidates = Vec::new();
        if let Some(u) = trigger
            .challenge
            .as_ref()
            .and_then(|c| c.resource_metadata.as_deref())
            .and_then(|u| url::resolve(&self.server_url, u))
        {
            candidates.push(u);
        }
        for u in url::prm_well_known(&self.server_url) {
            if !candidates.contains(&u) {
                candidates.push(u);
            }
        }
        let Some(first) = candidates.first().cloned() else {
            return vec![Effect::Done(Err(fail(
                "discovery",
                "the server URL is not an http(s) URL".into(),
            )))];
        };
        self.flow = Some(Flow {
            trigger,
            stage: Stage::Prm {
                candidates,
                next: 1,
            },
            resource: url::canonical_resource(&self.server_url),
            prm_scopes: None,
            issuer: String::new(),
            meta: None,
            client: None,
            pkce: None,
            scope: None,
            dpop: false,
            unsigned: None,
            asserted: None,
        });
        vec![get(&first)]
    }

    pub(super) fn on_prm(
        &mut self,
        mut f: Flow,
        candidates: Vec<String>,
        next: usize,
        status: u16,
        body: &[u8],
    ) -> Vec<Effect> {
        let prm = if ok_status(status) {
            metadata::parse_prm(body).ok()
        } else {
            None
        };
        let Some(prm) = prm else {
            if let Some(u) = candidates.get(next).cloned() {
                f.stage = Stage::Prm {
                    candidates,
                    next: next + 1,
                };
                return self.cont(f, vec![get(&u)]);
            }
            if f.trigger.legacy_fallback {
                // 2025-03-26: no metadata: the authorization base URL is the server's origin.
                let base = url::origin(&self.server_url).unwrap_or_default();
                return self.discover_as(f, base, true);
            }
            return self.done(Err(fail(
                "discovery",
                "the server has no OAuth Protected Resource Metadata (RFC 9728) at the URL its challenge names or at the well-known locations".into(),
            )));
        };
        if !url::resource_matches(&prm.resource, &self.server_url) {
            return self.done(Err(fail(
                "resource-mismatch",
                format!(
                    "the Protected Resource Metadata names resource \"{}\", which is not this server ({}): refused",
                    sanitize(&prm.resource, 200),
                    sanitize(&self.server_url, 200)
                ),
            )));
        }
        f.resource = prm.resource;
        f.prm_scopes = prm.scopes_supported;
        let servers = prm.authorization_servers;
        // RFC 9728 §7.6: the client chooses; the pre-registered client's server if listed.
        let issuer = self
            .cfg
            .client_issuer
            .as_ref()
            .filter(|i| servers.contains(i))
            .cloned()
            .or_else(|| servers.into_iter().next())
            .unwrap_or_default();
        self.discover_as(f, issuer, false)
    }

    fn discover_as(&mut self, mut f: Flow, issuer: String, fallback: bool) -> Vec<Effect> {
        let candidates = if fallback {
            vec![format!("{issuer}/.well-known/oauth-authorization-server")]
        } else {
            match url::as_well_known(&issuer).filter(|_| metadata::secure_endpoint(&issuer)) {
                Some(c) => c,
                None => {
                    return self.done(Err(fail(
                        "discovery",
                        format!(
                            "the authorization server \"{}\" is not an https: URL without query or fragment",
                            sanitize(&issuer, 200)
                        ),
                    )))
                }
            }
        };
        let first = candidates.first().cloned().unwrap_or_default();
        f.issuer = issuer;
        f.stage = Stage::Meta {
            candidates,
            next: 1,
            fallback,
            mismatch: false,
        };
        self.cont(f, vec![get(&first)])
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn on_meta(
        &mut self,
        mut f: Flow,
        candidates: Vec<String>,
        next: usize,
        fallback: bool,
        mut mismatch: bool,
        status: u16,
        body: &[u8],
    ) -> Vec<Effect> {
        let r = if ok_status(status) {
            metadata::parse_as(body, &f.issuer)
        } else {
            Err(MetaProblem::Unusable("not found"))
        };
        match r {
            Ok(meta) => {
                f.meta = Some(meta);
                return self.after_meta(f);
            }
            Err(MetaProblem::NoPkce) => {
                return self.done(Err(fail(
                    "no-pkce",
                    format!(
                        "the authorization server \"{}\" does not list S256 in code_challenge_methods_supported: refused (PKCE is required)",
                        sanitize(&f.issuer, 200)
                    ),
                )))
            }
            Err(MetaProblem::Insecure) => {
                return self.done(Err(fail(
                    "insecure-endpoint",
                    format!(
                        "the authorization server \"{}\" has endpoints that are not https:",
                        sanitize(&f.issuer, 200)
                    ),
                )))
            }
            Err(MetaProblem::IssuerMismatch) => mismatch = true,
            Err(MetaProblem::Unusable(_)) => {}
        }
        if let Some(u) = candidates.get(next).cloned() {
            f.stage = Stage::Meta {
                candidates,
                next: next + 1,
                fallback,
                mismatch,
            };
            return self.cont(f, vec![get(&u)]);
        }
        if mismatch {
            return self.done(Err(fail(
                "issuer-mismatch",
                format!(
                    "the authorization server metadata names another issuer than \"{}\", the identifier it was fetched for: refused (RFC 8414 §3.3)",
                    sanitize(&f.issuer, 200)
                ),
            )));
        }
        if fallback {
            // 2025-03-26 "Fallbacks for Servers without Metadata Discovery".
            if !metadata::secure_endpoint(&f.issuer) {
                return self.done(Err(fail(
                    "insecure-endpoint",
                    format!(
                        "the default authorization endpoints of \"{}\" are not https:",
                        sanitize(&f.issuer, 200)
                    ),
                )));
            }
            f.meta = Some(metadata::defaults(&f.issuer));
            return self.after_meta(f);
        }
        self.done(Err(fail(
            "discovery",
            format!(
                "no authorization server metadata found for \"{}\"",
                sanitize(&f.issuer, 200)
            ),
        )))
    }
}
