//! The authorization flow as a state machine (spec `basic/authorization/index.mdx`
//! "Authorization Flow Steps"): fed fetch results, random bytes, the host's callback URL
//! and storage reads; it returns [`Effect`]s. One flow at a time; every step is sequential.
//!
//! ```text
//! start ─▶ PRM discovery ─▶ AS metadata discovery ─▶ (storage) ─▶ a usable token? ─▶ done
//!                                                        │ no
//!                      client identity (pre-registered │ CIMD │ known │ DCR)
//!                                                        │
//!                       refresh (401 with a refresh token) ─ ok ─▶ done
//!                                                        │ no / failed
//!             PKCE + state ─▶ the person's step (host) ─▶ iss, state checks ─▶ token ─▶ done
//! ```
//!
//! What it keeps between flows: dynamic registrations and tokens, both keyed by the
//! authorization server's `issuer` (spec "Authorization Server Binding"), and the union
//! of the scopes requested so far (step-up).
//!
//! Longer than the house's ~600 lines on purpose: one stage per spec step, in the spec's
//! order, each handing the flow to the next; split, the order would no longer read top
//! to bottom. The documents, identities, tokens and URLs it uses live in the sibling files.

use crate::auth::challenge::Bearer;
use crate::auth::client::{self, AuthMethod, Client};
use crate::auth::metadata::{self, AsMeta, MetaProblem};
use crate::auth::pkce::{self, Pkce};
use crate::auth::tokens::{self, Tokens};
use crate::auth::url;
use crate::error::json_object;
use crate::error::{sanitize, Error, ErrorKind, Result};
use crate::http::request::HttpMethod;
use crate::time::Millis;

/// What the host configured (`auth` in `new McpClient(url, { auth })`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuthConfig {
    /// Pre-registered client (first in the spec's priority order).
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    /// The authorization server the pre-registered client belongs to, when the host says.
    pub client_issuer: Option<String>,
    /// A Client ID Metadata Document URL, used when the server supports CIMD.
    pub client_metadata_url: Option<String>,
    pub redirect_uri: String,
    /// Scopes the host wants besides those the server asks for.
    pub scope: Option<String>,
    /// `client_name` for Dynamic Client Registration.
    pub client_name: String,
    /// `application_type` for DCR (default: `native` for a loopback redirect, else `web`).
    pub application_type: Option<String>,
    /// True when the host gave a storage: registrations and tokens are loaded and saved.
    pub storage: bool,
}

/// Why a flow starts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trigger {
    /// 401, 403 (`insufficient_scope`: step-up), or 0 (the host asked: `authorize()`).
    pub status: u16,
    pub challenge: Option<Bearer>,
    /// The access token the refused request carried.
    pub sent_token: Option<String>,
    /// 2025-03-26 behaviour when no Protected Resource Metadata exists: the MCP server's
    /// origin is the authorization server (legacy eras only).
    pub legacy_fallback: bool,
}

/// An HTTP request of the flow (no MCP headers, no host headers: these go to other servers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FetchReq {
    pub method: HttpMethod,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
}

/// The person's step, for the host's `onAuthorize`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthorizeReq {
    pub url: String,
    pub issuer: String,
    pub resource: String,
    pub scope: Option<String>,
    pub redirect_uri: String,
}

/// What the flow asks for.
#[derive(Debug, PartialEq)]
pub enum Effect {
    /// Perform this request; answer with [`Authorizer::on_fetch`] (status 0: it failed).
    Fetch(FetchReq),
    /// Random bytes; answer with [`Authorizer::on_random`].
    Random(usize),
    /// Send the person to the URL; answer with [`Authorizer::on_callback`].
    Authorize(AuthorizeReq),
    /// `storage.get(key)`; answer with [`Authorizer::on_loaded`].
    Load(String),
    /// `storage.set(key, value)`, nothing to answer.
    Save(String, String),
    /// The flow ended: the access token to send, or why not.
    Done(Result<String>),
}

enum Stage {
    Prm {
        candidates: Vec<String>,
        next: usize,
    },
    Meta {
        candidates: Vec<String>,
        next: usize,
        fallback: bool,
        mismatch: bool,
    },
    LoadClient,
    LoadTokens,
    Register,
    Refresh,
    Random,
    Authorize,
    Token,
}

struct Flow {
    trigger: Trigger,
    stage: Stage,
    /// The `resource` parameter: the PRM's `resource` as published (else the server URL).
    resource: String,
    prm_scopes: Option<Vec<String>>,
    /// The authorization server identifier being discovered.
    issuer: String,
    meta: Option<AsMeta>,
    client: Option<Client>,
    pkce: Option<Pkce>,
    scope: Option<String>,
}

/// The authorization state of one client (one MCP server).
pub struct Authorizer {
    cfg: AuthConfig,
    server_url: String,
    flow: Option<Flow>,
    /// Dynamic registrations by issuer.
    clients: ByIssuer<Client>,
    /// Tokens by issuer.
    tokens: ByIssuer<Tokens>,
    /// Issuers whose stored records were read.
    loaded: Vec<String>,
    /// Every scope requested so far, in order (the step-up union).
    requested: Vec<String>,
    /// The time of the latest input.
    now: Millis,
}

/// Values by authorization server `issuer`. A client meets one or two servers: a list
/// is enough, and smaller in wasm than another `HashMap` instantiation.
struct ByIssuer<T>(Vec<(String, T)>);

impl<T> ByIssuer<T> {
    fn get(&self, issuer: &str) -> Option<&T> {
        self.0.iter().find(|(i, _)| i == issuer).map(|(_, v)| v)
    }
    fn get_mut(&mut self, issuer: &str) -> Option<&mut T> {
        self.0.iter_mut().find(|(i, _)| i == issuer).map(|(_, v)| v)
    }
    fn insert(&mut self, issuer: &str, v: T) {
        match self.get_mut(issuer) {
            Some(old) => *old = v,
            None => self.0.push((issuer.to_string(), v)),
        }
    }
    /// Keeps what is known already (a value this client got beats a stored one).
    fn insert_new(&mut self, issuer: &str, v: T) {
        if self.get(issuer).is_none() {
            self.0.push((issuer.to_string(), v));
        }
    }
}

fn fail(reason: &str, message: String) -> Error {
    Error::new(ErrorKind::Auth, message).with_data(json_object(vec![("reason", reason.into())]))
}

fn get(url: &str) -> Effect {
    Effect::Fetch(FetchReq {
        method: HttpMethod::Get,
        url: url.to_string(),
        headers: vec![("Accept".into(), "application/json".into())],
        body: None,
    })
}

fn ok_status(status: u16) -> bool {
    (200..300).contains(&status)
}

fn push_scopes(v: &mut Vec<String>, s: &str) {
    for t in s.split_whitespace().take(64) {
        if !v.iter().any(|x| x == t) {
            v.push(t.to_string());
        }
    }
}

pub fn client_key(issuer: &str) -> String {
    format!("mcp-wasm-client:oauth:client:{issuer}")
}

pub fn tokens_key(issuer: &str, resource: &str) -> String {
    format!("mcp-wasm-client:oauth:tokens:{issuer}:{resource}")
}

impl Authorizer {
    pub fn new(cfg: AuthConfig, server_url: &str) -> Authorizer {
        Authorizer {
            cfg,
            server_url: server_url.to_string(),
            flow: None,
            clients: ByIssuer(Vec::new()),
            tokens: ByIssuer(Vec::new()),
            loaded: Vec::new(),
            requested: Vec::new(),
            now: 0,
        }
    }

    /// True while a flow runs.
    pub fn running(&self) -> bool {
        self.flow.is_some()
    }

    /// Stops the flow in progress (its effects' answers are then ignored).
    pub fn cancel(&mut self) {
        self.flow = None;
    }

    /// Starts a flow (nothing when one runs: the caller waits for it).
    pub fn start(&mut self, trigger: Trigger, now: Millis) -> Vec<Effect> {
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
        });
        vec![get(&first)]
    }

    fn done(&mut self, r: Result<String>) -> Vec<Effect> {
        self.flow = None;
        vec![Effect::Done(r)]
    }

    fn cont(&mut self, f: Flow, effects: Vec<Effect>) -> Vec<Effect> {
        self.flow = Some(f);
        effects
    }

    /// A fetch of the flow answered (`status` 0: it failed before a response).
    pub fn on_fetch(&mut self, status: u16, body: &[u8], now: Millis) -> Vec<Effect> {
        self.now = self.now.max(now);
        let Some(mut f) = self.flow.take() else {
            return Vec::new();
        };
        match std::mem::replace(&mut f.stage, Stage::Random) {
            Stage::Prm { candidates, next } => self.on_prm(f, candidates, next, status, body),
            Stage::Meta {
                candidates,
                next,
                fallback,
                mismatch,
            } => self.on_meta(f, candidates, next, fallback, mismatch, status, body),
            Stage::Register => self.on_registered(f, status, body),
            Stage::Refresh => self.on_refreshed(f, status, body, now),
            Stage::Token => self.on_token(f, status, body, now),
            other => {
                f.stage = other;
                self.cont(f, Vec::new())
            }
        }
    }

    fn on_prm(
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
    fn on_meta(
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

    fn issuer_of(f: &Flow) -> String {
        f.meta
            .as_ref()
            .map(|m| m.issuer.clone())
            .unwrap_or_default()
    }

    fn after_meta(&mut self, mut f: Flow) -> Vec<Effect> {
        let issuer = Self::issuer_of(&f);
        if self.cfg.storage && !self.loaded.contains(&issuer) {
            f.stage = Stage::LoadClient;
            return self.cont(f, vec![Effect::Load(client_key(&issuer))]);
        }
        self.choose_token(f)
    }

    /// A storage read answered (`None`: nothing stored, or the storage failed).
    pub fn on_loaded(&mut self, value: Option<String>) -> Vec<Effect> {
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
                if let Some(t) = value.as_deref().and_then(tokens::from_record) {
                    self.tokens.insert_new(&issuer, t);
                }
                self.loaded.push(issuer);
                self.choose_token(f)
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
                if Some(&t.access) != f.trigger.sent_token.as_ref() && !t.expired(self.now) {
                    let access = t.access.clone();
                    return self.done(Ok(access));
                }
            }
        }
        self.identify(f)
    }

    /// Client identity, in the spec's priority order (`client-registration.mdx`).
    fn identify(&mut self, mut f: Flow) -> Vec<Effect> {
        let Some(meta) = f.meta.clone() else {
            return self.done(Err(fail("discovery", "no metadata".into())));
        };
        if let Some(id) = self.cfg.client_id.clone() {
            if let Some(iss) = &self.cfg.client_issuer {
                if *iss != meta.issuer {
                    // "Authorization Server Binding": surface an error rather than use
                    // credentials registered with another server.
                    return self.done(Err(fail(
                        "client-mismatch",
                        format!(
                            "the pre-registered client belongs to \"{}\", but this server's authorization server is \"{}\"",
                            sanitize(iss, 200),
                            sanitize(&meta.issuer, 200)
                        ),
                    )));
                }
            }
            let secret = self.cfg.client_secret.clone();
            let method = client::pick_method(
                secret.is_some(),
                meta.token_endpoint_auth_methods.as_deref(),
            );
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

    fn on_registered(&mut self, mut f: Flow, status: u16, body: &[u8]) -> Vec<Effect> {
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

    fn token_request(&self, f: &Flow, grant: &[(&'static str, &str)]) -> Option<Effect> {
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
        Some(Effect::Fetch(FetchReq {
            method: HttpMethod::Post,
            url: meta.token_endpoint.clone(),
            headers,
            body: Some(url::form(&form)),
        }))
    }

    fn after_identity(&mut self, mut f: Flow) -> Vec<Effect> {
        let issuer = Self::issuer_of(&f);
        // A refused token is refreshed (no person needed); a step-up needs the person.
        let refresh = (f.trigger.status != 403)
            .then(|| self.tokens.get(&issuer).and_then(|t| t.refresh.clone()))
            .flatten();
        if let Some(rt) = refresh {
            if let Some(req) = self.token_request(
                &f,
                &[("grant_type", "refresh_token"), ("refresh_token", &rt)],
            ) {
                f.stage = Stage::Refresh;
                return self.cont(f, vec![req]);
            }
        }
        f.stage = Stage::Random;
        self.cont(f, vec![Effect::Random(pkce::RANDOM_BYTES)])
    }

    fn store_tokens(&mut self, f: &Flow, t: Tokens) -> Vec<Effect> {
        let issuer = Self::issuer_of(f);
        let mut effects = Vec::new();
        if self.cfg.storage {
            effects.push(Effect::Save(
                tokens_key(&issuer, &f.resource),
                tokens::to_record(&t),
            ));
        }
        let access = t.access.clone();
        self.tokens.insert(&issuer, t);
        self.flow = None;
        effects.push(Effect::Done(Ok(access)));
        effects
    }

    fn on_refreshed(&mut self, mut f: Flow, status: u16, body: &[u8], now: Millis) -> Vec<Effect> {
        let issuer = Self::issuer_of(&f);
        let old = self.tokens.get(&issuer).cloned();
        match tokens::parse_response(
            status,
            body,
            now,
            old.as_ref().and_then(|t| t.scope.as_deref()),
        ) {
            Ok(mut t) => {
                if t.refresh.is_none() {
                    t.refresh = old.and_then(|o| o.refresh);
                }
                self.store_tokens(&f, t)
            }
            Err(_) => {
                // The refresh token is spent or refused: the person signs in again.
                if let Some(t) = self.tokens.get_mut(&issuer) {
                    t.refresh = None;
                }
                f.stage = Stage::Random;
                self.cont(f, vec![Effect::Random(pkce::RANDOM_BYTES)])
            }
        }
    }

    /// The scopes to ask for (spec "Scope Selection Strategy" and "Step-Up Authorization
    /// Flow"): what was asked before, plus the challenge's `scope` (else the PRM's
    /// `scopes_supported`), plus the host's; `offline_access` when the authorization
    /// server lists it (spec "Refresh Tokens"). `None` (the parameter omitted) when empty.
    fn select_scope(&mut self, f: &Flow) -> Option<String> {
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
        let offline = f
            .meta
            .as_ref()
            .and_then(|m| m.scopes_supported.as_ref())
            .is_some_and(|s| s.iter().any(|x| x == "offline_access"));
        if offline {
            push_scopes(&mut v, "offline_access");
        }
        self.requested = v.clone();
        (!v.is_empty()).then(|| v.join(" "))
    }

    /// Random bytes arrived: the authorization request goes to the host.
    pub fn on_random(&mut self, bytes: &[u8]) -> Vec<Effect> {
        let Some(mut f) = self.flow.take() else {
            return Vec::new();
        };
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
        let scope = self.select_scope(&f);
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
        f.pkce = Some(p);
        f.scope = scope;
        f.stage = Stage::Authorize;
        self.cont(f, vec![Effect::Authorize(req)])
    }

    /// The host's answer to the person's step: the URL the authorization server redirected
    /// to (or what the host threw). Checked (RFC 9207 `iss`, `state`) before the code is
    /// sent anywhere.
    pub fn on_callback(&mut self, r: Result<String>) -> Vec<Effect> {
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
        let (Some(meta), Some(p)) = (f.meta.clone(), f.pkce.clone()) else {
            return self.done(Err(fail("discovery", "no metadata".into())));
        };
        let params = url::query_params(&callback);
        let param = |k: &str| params.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        // Spec "Authorization Response Validation": exact comparison, no normalization;
        // on a mismatch nothing of the response (error fields included) is acted on.
        match (meta.iss_supported, param("iss")) {
            (_, Some(iss)) if iss != meta.issuer => {
                return self.done(Err(fail(
                    "iss-mismatch",
                    format!(
                        "the authorization response names issuer \"{}\", not \"{}\": refused (RFC 9207)",
                        sanitize(iss, 200),
                        sanitize(&meta.issuer, 200)
                    ),
                )))
            }
            (true, None) => {
                return self.done(Err(fail(
                    "iss-missing",
                    "the authorization server advertises the iss parameter but the authorization response has none: refused (RFC 9207)".into(),
                )))
            }
            _ => {}
        }
        if param("state") != Some(p.state.as_str()) {
            return self.done(Err(fail(
                "state-mismatch",
                "the authorization response's state does not match the request's: refused".into(),
            )));
        }
        if let Some(e) = param("error") {
            let mut msg = format!("the authorization server refused: {}", sanitize(e, 80));
            if let Some(d) = param("error_description") {
                msg.push_str(&format!(" ({})", sanitize(d, 200)));
            }
            return self.done(Err(Error::new(ErrorKind::Auth, msg).with_data(
                json_object(vec![
                    ("reason", "authorization-error".into()),
                    ("error", sanitize(e, 80).into()),
                ]),
            )));
        }
        let Some(code) = param("code").map(str::to_string) else {
            return self.done(Err(fail(
                "no-code",
                "the authorization response has no code".into(),
            )));
        };
        let redirect = self.cfg.redirect_uri.clone();
        let Some(req) = self.token_request(
            &f,
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("redirect_uri", &redirect),
                ("code_verifier", &p.verifier),
            ],
        ) else {
            return self.done(Err(fail("discovery", "no client".into())));
        };
        f.stage = Stage::Token;
        self.cont(f, vec![req])
    }

    fn on_token(&mut self, f: Flow, status: u16, body: &[u8], now: Millis) -> Vec<Effect> {
        match tokens::parse_response(status, body, now, f.scope.as_deref()) {
            Ok(t) => self.store_tokens(&f, t),
            Err(why) => self.done(Err(fail("token", why))),
        }
    }

    /// The token in use for `issuer`, if any (tests, diagnostics).
    pub fn token_for(&self, issuer: &str) -> Option<&Tokens> {
        self.tokens.get(issuer)
    }

    /// The scopes requested so far.
    pub fn requested_scopes(&self) -> &[String] {
        &self.requested
    }
}
