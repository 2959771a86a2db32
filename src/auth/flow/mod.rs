//! The authorization flow as a state machine (spec `basic/authorization/index.mdx`
//! "Authorization Flow Steps"): fed fetch results, random bytes, the host's callback URL
//! and storage reads; it returns [`Effect`]s. One flow at a time; every step is sequential.
//!
//! ```text
//! start ─▶ PRM discovery ─▶ AS metadata discovery ─▶ (storage) ─▶ a usable token? ─▶ done
//!                                                        │ no
//!                      client identity (pre-registered │ CIMD │ known │ DCR)
//!                                                        │
//!   the client credentials grant, or refresh (401 with a refresh token) ─ ok ─▶ done
//!                                                        │ no / failed
//!             PKCE + state ─▶ the person's step (host) ─▶ iss, state checks ─▶ token ─▶ done
//! ```
//!
//! What it keeps between flows: dynamic registrations and tokens, both keyed by the
//! authorization server's `issuer` (spec "Authorization Server Binding"), and the union
//! of the scopes requested so far (step-up).
//!
//! One file per stage, in the spec's order, each handing the flow to the next:
//! `discovery` (Protected Resource Metadata, then Authorization Server Metadata),
//! `storage` (the host's stored registrations and tokens; a token still usable),
//! `registration` (client identity: pre-registered, CIMD, known, DCR), `token_endpoint`
//! (the client credentials grant or the refresh, later the code exchange), `scope`
//! (scope selection, the step-up union), `authorize` (PKCE, the person's step, the
//! response checks). This file holds the types, the state and the dispatch of answers;
//! the documents, identities, tokens and URLs the flow uses live in the sibling files of
//! `auth`.

mod across;
mod authorize;
mod discovery;
mod dpop;
mod registration;
mod scope;
mod storage;
mod token_endpoint;

#[cfg(test)]
pub(crate) use storage::{client_key, pending_key, tokens_key};

use crate::auth::challenge::Bearer;
use crate::auth::client::Client;
pub(crate) use crate::auth::dpop::{ClientKey, DpopMode};
use crate::auth::metadata::AsMeta;
use crate::auth::pkce::Pkce;
use crate::auth::tokens::Tokens;
use crate::error::json_object;
use crate::error::{Error, ErrorKind, Result};
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
    /// The client credentials grant (RFC 6749 §4.4; MCP extension
    /// `io.modelcontextprotocol/oauth-client-credentials`): a confidential client gets its
    /// own token, with no person and no redirect. Needs `client_id` and `client_secret` (or
    /// `client_key`: `private_key_jwt`).
    pub client_credentials: bool,
    /// OAuth across contexts (issue 13): the shell has Web Locks and the host gave a
    /// storage (which must then be shared by the contexts: `localStorage`, IndexedDB).
    /// Refreshes and authorizations run under a lock per authorization server and client,
    /// the tokens are read again under it, and new tokens are announced (`Effect::Lock`,
    /// `Effect::Announce`; `across`).
    pub across_contexts: bool,
    /// DPoP (RFC 9449; `auth.dpop`): tokens bound to a key of the client (`crate::auth::dpop`).
    pub dpop: DpopMode,
    /// `private_key_jwt` (RFC 7523; `auth.privateKey`): the client authenticates with a
    /// JWT signed by this key instead of a secret.
    pub client_key: Option<ClientKey>,
}

/// Why a flow starts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Trigger {
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
pub(crate) struct FetchReq {
    pub method: HttpMethod,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
    /// Send a DPoP proof with it (the engine writes it: it holds the key's public part).
    pub dpop: bool,
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
pub(crate) enum Effect {
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
    /// Take the Web Lock of this name; answer with [`Authorizer::on_locked`]. It is held
    /// until the flow ends ([`Effect::Done`]): the engine releases it then.
    Lock(String),
    /// Tell the other contexts that the tokens stored under this key changed (after the
    /// [`Effect::Save`] of that key).
    Announce(String),
    /// The DPoP key stored under this name (made when there is none); answer with
    /// [`Authorizer::on_key`].
    Key(String),
    /// Sign this JWS signing input with the host's client key (`private_key_jwt`); answer
    /// with [`Authorizer::on_signed`].
    Sign(String),
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
    /// Waiting for the lock of the authorization server and client (`across`).
    Lock,
    LoadClient,
    LoadTokens,
    /// A callback (and its `state`) that is not this flow's: the stored request it may
    /// answer (`authorize::resume`) is being read.
    LoadPending(String, String),
    Register,
    Refresh,
    Random,
    Authorize,
    Token,
    /// Waiting for the DPoP key.
    Key,
    /// A token request waiting for its client assertion (random `jti`, then the
    /// signature); the stage after it.
    Assertion(Box<Stage>),
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
    /// DPoP is used with this authorization server (`crate::auth::dpop`).
    dpop: bool,
    /// A token request waiting for its client assertion, and the assertion's signing input.
    unsigned: Option<(FetchReq, String)>,
    /// The token request in flight with a client assertion, as it was before its assertion
    /// (`reassert`: a DPoP nonce retry signs a new one).
    asserted: Option<FetchReq>,
}

/// The authorization state of one client (one MCP server).
pub(crate) struct Authorizer {
    cfg: AuthConfig,
    server_url: String,
    flow: Option<Flow>,
    /// Dynamic registrations by issuer.
    clients: ByIssuer<Client>,
    /// Tokens by issuer.
    tokens: ByIssuer<Tokens>,
    /// Issuers whose stored records were read.
    loaded: Vec<String>,
    /// The storage key of the tokens held for each issuer (what an announcement names).
    token_keys: ByIssuer<String>,
    /// Every scope requested so far, in order (the step-up union).
    requested: Vec<String>,
    /// The time of the latest input.
    now: Millis,
    /// The issuer whose DPoP key the shell holds for this client (`dpop`).
    dpop_key: Option<String>,
    /// The authorization server a pre-registered client without `issuer` was first used
    /// with: it is bound to it from then on (`identify`).
    bound_issuer: Option<String>,
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
        dpop: false,
    })
}

fn ok_status(status: u16) -> bool {
    (200..300).contains(&status)
}

impl Authorizer {
    pub(crate) fn new(cfg: AuthConfig, server_url: &str) -> Authorizer {
        Authorizer {
            cfg,
            server_url: server_url.to_string(),
            flow: None,
            clients: ByIssuer(Vec::new()),
            tokens: ByIssuer(Vec::new()),
            loaded: Vec::new(),
            token_keys: ByIssuer(Vec::new()),
            requested: Vec::new(),
            now: 0,
            dpop_key: None,
            bound_issuer: None,
        }
    }

    /// True while a flow runs.
    pub(crate) fn running(&self) -> bool {
        self.flow.is_some()
    }

    /// Stops the flow in progress (its effects' answers are then ignored).
    pub(crate) fn cancel(&mut self) {
        self.flow = None;
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
    pub(crate) fn on_fetch(&mut self, status: u16, body: &[u8], now: Millis) -> Vec<Effect> {
        self.now = self.now.max(now);
        let Some(mut f) = self.flow.take() else {
            return Vec::new();
        };
        f.asserted = None;
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

    fn issuer_of(f: &Flow) -> String {
        f.meta
            .as_ref()
            .map(|m| m.issuer.clone())
            .unwrap_or_default()
    }

    /// The token in use for `issuer`, if any.
    #[cfg(test)]
    pub(crate) fn token_for(&self, issuer: &str) -> Option<&Tokens> {
        self.tokens.get(issuer)
    }
}
