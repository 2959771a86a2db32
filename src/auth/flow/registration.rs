//! Client identity, in the spec's priority order (`client-registration.mdx`): the
//! pre-registered client, a Client ID Metadata Document URL (CIMD), a registration this
//! client made earlier, else Dynamic Client Registration (RFC 7591).

use super::storage::client_key;
use super::{fail, ok_status, Authorizer, Effect, FetchReq, Flow, Stage};
use crate::auth::client::{self, AuthMethod, Client};
use crate::auth::{metadata, tokens};
use crate::error::sanitize;
use crate::http::request::HttpMethod;

impl Authorizer {
    /// Client identity, in the spec's priority order (`client-registration.mdx`).
    pub(super) fn identify(&mut self, mut f: Flow) -> Vec<Effect> {
        let Some(meta) = f.meta.clone() else {
            return self.done(Err(fail("discovery", "no metadata".into())));
        };
        if let Some(id) = self.cfg.client_id.clone() {
            // "Authorization Server Binding": credentials are tied to the server that
            // issued them, named by `issuer` or, without it, the first one they were used
            // with; another is an error rather than a silent reuse (a secret sent to it).
            let bound = self
                .cfg
                .client_issuer
                .as_ref()
                .or(self.bound_issuer.as_ref());
            if let Some(iss) = bound {
                if *iss != meta.issuer {
                    return self.done(Err(fail(
                        "client-mismatch",
                        format!(
                            "the pre-registered client belongs to \"{}\", but this server's authorization server is \"{}\"",
                            sanitize(iss, 200),
                            sanitize(&meta.issuer, 200)
                        ),
                    )));
                }
            } else {
                self.bound_issuer = Some(meta.issuer.clone());
            }
            let secret = self.cfg.client_secret.clone();
            let method = if self.cfg.client_key.is_some() {
                client::AuthMethod::PrivateKeyJwt
            } else {
                client::pick_method(
                    secret.is_some(),
                    meta.token_endpoint_auth_methods.as_deref(),
                )
            };
            f.client = Some(Client {
                id,
                secret,
                method,
                redirect_uri: None,
            });
            return self.after_identity(f);
        }
        if let Some(u) = self
            .cfg
            .client_metadata_url
            .clone()
            .filter(|_| meta.cimd_supported)
        {
            f.client = Some(Client {
                id: u,
                secret: None,
                method: AuthMethod::None,
                redirect_uri: None,
            });
            return self.after_identity(f);
        }
        if let Some(c) = self
            .clients
            .get(&meta.issuer)
            .filter(|c| c.redirect_uri.as_deref() == Some(self.cfg.redirect_uri.as_str()))
        {
            f.client = Some(c.clone());
            return self.after_identity(f);
        }
        if let Some(reg) = &meta.registration_endpoint {
            let body = client::registration_request(
                &self.cfg.client_name,
                &self.cfg.redirect_uri,
                self.cfg.application_type.as_deref(),
                None,
            );
            f.stage = Stage::Register;
            let req = FetchReq {
                method: HttpMethod::Post,
                url: reg.clone(),
                headers: vec![
                    ("Content-Type".into(), "application/json".into()),
                    ("Accept".into(), "application/json".into()),
                ],
                body: Some(body),
                dpop: false,
            };
            return self.cont(f, vec![Effect::Fetch(req)]);
        }
        self.done(Err(fail(
            "no-client",
            format!(
                "no client identity for \"{}\": it supports neither Client ID Metadata Documents (auth.clientMetadataUrl) nor Dynamic Client Registration; give auth.clientId",
                sanitize(&meta.issuer, 200)
            ),
        )))
    }

    pub(super) fn on_registered(&mut self, mut f: Flow, status: u16, body: &[u8]) -> Vec<Effect> {
        let Some(meta) = f.meta.clone() else {
            return self.done(Err(fail("discovery", "no metadata".into())));
        };
        let r = if ok_status(status) {
            client::registration_response(body, &meta, &self.cfg.redirect_uri).map_err(String::from)
        } else {
            let detail = metadata::object(body)
                .map(|m| tokens::oauth_error(&m))
                .unwrap_or_default();
            Err(format!("HTTP {status}{detail}"))
        };
        match r {
            Ok(c) => {
                self.clients.insert(&meta.issuer, c.clone());
                let mut effects = Vec::new();
                if self.cfg.storage {
                    effects.push(Effect::Save(
                        client_key(&meta.issuer),
                        client::to_record(&c),
                    ));
                }
                f.client = Some(c);
                let mut rest = self.after_identity(f);
                effects.append(&mut rest);
                effects
            }
            Err(why) => self.done(Err(fail(
                "registration",
                format!(
                    "dynamic client registration at \"{}\" failed: {}",
                    sanitize(&meta.issuer, 200),
                    why
                ),
            ))),
        }
    }
}
