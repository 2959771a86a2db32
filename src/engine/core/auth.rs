//! OAuth in the engine (spec `basic/authorization/*.mdx`): the hooks that run the
//! [`crate::auth`] flow when a request is refused, and replay what was refused.
//!
//! - Any exchange answered `401`, or `403` with `error="insufficient_scope"`, is held (its
//!   owner does not see the refusal) and the flow starts. Exchanges refused while a flow
//!   runs wait for it: concurrent requests share one flow.
//! - When the flow ends with a token, it goes into the configured headers (so every
//!   request of every era carries `Authorization: Bearer …`, never the query) and each
//!   held exchange is sent again under a new HTTP request id (the exchange keeps its id,
//!   [`crate::engine::exchanges`]). When it fails, each held exchange fails with its error.
//! - A request goes through at most [`MAX_AUTH_ROUNDS`] flows (spec "Step-Up Authorization
//!   Flow" 4: retry "no more than a few times"); after that its 401/403 is an `HttpError`.
//! - A request refused with a token older than the current one is just sent again.
//!
//! The flow's own requests (metadata, registration, token) are exchanges of the shell
//! like any other, but they carry no MCP headers and none of the host's headers.
//!
//! DPoP (RFC 9449; issue 16): the flow asks the shell for the key ([`AuthAction::Key`]);
//! from then on [`Shared::prove`](crate::engine::shared::Shared::prove) gives every request
//! that carries a DPoP-bound token a fresh proof, and the flow's token requests get one
//! here. A server's `use_dpop_nonce` (the token endpoint's 400, §8; the MCP server's 401,
//! §9) with a `DPoP-Nonce` that is new and well-formed is kept (per server) and the request
//! sent again once; otherwise the refusal is an `AuthorizationError` (`reason`
//! `dpop-nonce`). A token issued as `DPoP` is only ever sent with the `DPoP` scheme.
//!
//! Across contexts (issue 13; `crate::auth::flow`'s `across`): the flow's lock is asked
//! of the shell ([`AuthAction::Lock`], answered [`AuthInput::Locked`]) and released
//! ([`AuthAction::Unlock`]) whenever the flow ends, fails or the client closes (a lock
//! still awaited is then abandoned); new tokens are announced ([`AuthAction::Announce`]);
//! an announcement from another context ([`Core::on_auth_notice`]) reads the tokens again
//! and puts the new access token in the headers when the old one was there; requests
//! opened during that read wait for it.

use super::{Core, ResponseHead};
use crate::auth::dpop::{Prover, PROOF_HEADER};
use crate::auth::{challenge, Authorizer, Effect, Trigger};
use crate::engine::actions::{Action, AuthAction, AuthInput, AuthStepId, OpId};
use crate::engine::config::Config;
use crate::engine::exchange::Exchange;
use crate::engine::ids::ExchangeId;
use crate::engine::ops::{AuthOp, Op, OpInput, Operation, Step};
use crate::engine::shared::{Era, Owner};
use crate::error::json_object;
use crate::error::{sanitize, Error, ErrorKind, Result};
use crate::http::request::HttpRequest;
use crate::time::Millis;

/// Flows one request may go through before its refusal is final.
pub(super) const MAX_AUTH_ROUNDS: u8 = 2;

/// Largest body of a discovery, registration or token response.
const MAX_AUTH_BODY: usize = 256 * 1024;

/// The engine's side of the authorization flow.
pub(super) struct AuthLink {
    machine: Authorizer,
    /// The flow's exchange in flight, with its status and body so far.
    xfer: Option<u64>,
    status: u16,
    body: Vec<u8>,
    overflow: bool,
    /// The host action waiting for its answer (random bytes, the person, storage).
    /// (`authorize()` operations wait for the flow in the operation table: [`AuthOp`].)
    waiting: Option<AuthStepId>,
    /// The lock of the flow across contexts, asked for or held, until the flow ends.
    lock: Option<AuthStepId>,
    /// The read of tokens another context announced, and their key.
    notice: Option<(AuthStepId, String)>,
    /// The `DPoP-Nonce` of the flow's response, and the nonce its request's proof carried.
    nonce: Option<String>,
    carried: Option<String>,
    /// The flow's request in flight when it carries a DPoP proof (sent again, once, with
    /// the server's nonce), and whether it was sent again already.
    sent: Option<HttpRequest>,
    retried: bool,
    /// The retry is waiting for its new client assertion (`Authorizer::reassert`): the
    /// token request it makes is that retry, not a new request.
    reasserting: bool,
    /// When the flow's request in flight gives up (`requestTimeoutMs` after it left: a
    /// server that never answers must not hold the flow, and every request waiting on it,
    /// for the client's life). Its timer is `Owner::Auth`.
    deadline: Option<Millis>,
}

impl AuthLink {
    pub(super) fn new(cfg: &Config) -> Option<AuthLink> {
        let a = cfg.auth.clone()?;
        Some(AuthLink {
            machine: Authorizer::new(a, &cfg.url),
            xfer: None,
            status: 0,
            body: Vec::new(),
            overflow: false,
            waiting: None,
            lock: None,
            notice: None,
            nonce: None,
            carried: None,
            sent: None,
            retried: false,
            reasserting: false,
            deadline: None,
        })
    }
}

/// The access token a request carried (`Bearer` or `DPoP`).
fn bearer_of(req: &HttpRequest) -> Option<String> {
    req.headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("authorization"))
        .and_then(|(_, v)| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("DPoP "))
        })
        .map(str::to_string)
}

fn nonce_error(message: &str) -> Error {
    Error::new(ErrorKind::Auth, message.to_string())
        .with_data(json_object(vec![("reason", "dpop-nonce".into())]))
}

/// The OAuth `error` of a token endpoint's JSON answer.
fn oauth_error_code(body: &[u8]) -> Option<String> {
    crate::auth::metadata::object(body)
        .ok()
        .and_then(|m| crate::auth::metadata::string(&m, "error"))
}

impl Core {
    /// Is HTTP request `xfer` the flow's own? The check every exchange's end passes
    /// through; the end of the flow's exchange is `auth_on_end`, kept out of line so that a
    /// client without a flow never compiles it (a wasm function is compiled whole on its
    /// first call: BENCHMARKS.md, "the first call's path").
    pub(super) fn auth_owns(&self, xfer: u64) -> bool {
        self.auth.as_ref().is_some_and(|l| l.xfer == Some(xfer))
    }

    /// Whether HTTP request `id` is the authorization flow's own (discovery, registration,
    /// the token endpoint): the shell sends it without following redirects. A redirect
    /// would carry its body (a code and its PKCE verifier, a refresh token, a client
    /// secret) to a URL the validated metadata never named, where no HTTPS or issuer check
    /// ran (authorization.mdx, "Communication Security" and "Token Handling").
    pub fn is_flow_request(&self, id: u64) -> bool {
        self.auth_owns(id)
    }

    /// A response head of the flow's own exchange (by HTTP request id). True when it was.
    pub(super) fn auth_flow_head(&mut self, wire: u64, head: &ResponseHead) -> bool {
        if let Some(l) = self.auth.as_mut().filter(|l| l.xfer == Some(wire)) {
            l.status = head.status;
            l.nonce = head.dpop_nonce.map(str::to_string);
            return true;
        }
        false
    }

    /// A `DPoP-Nonce` came with the answer to HTTP request `wire`, one of the MCP server's
    /// (the flow's own are `auth_on_end`'s): the next proofs for it carry that nonce (RFC
    /// 9449 §9: the resource server may send a new one with any response; §8.2).
    pub(super) fn auth_nonce_seen(&mut self, wire: u64, nonce: &str) {
        if self.auth_owns(wire) {
            return;
        }
        if let Some(p) = self.sh.dpop.as_mut() {
            p.learn_nonce(&self.sh.cfg.url, nonce);
        }
    }

    /// A response head of exchange `xfer`: a refusal to hold? True when consumed.
    pub(super) fn auth_on_head(&mut self, xfer: ExchangeId, head: &ResponseHead) -> bool {
        if !matches!(head.status, 401 | 403) {
            return false;
        }
        if let (Some(w), Some(slot)) = (head.www_authenticate, self.sh.xs.get_mut(xfer)) {
            slot.www_authenticate = Some(w.chars().take(8192).collect());
        }
        self.auth_intercept(xfer, head)
    }

    pub(super) fn auth_on_chunk(&mut self, xfer: u64, bytes: &[u8]) -> bool {
        let Some(l) = self.auth.as_mut().filter(|l| l.xfer == Some(xfer)) else {
            return false;
        };
        if l.body.len() + bytes.len() > MAX_AUTH_BODY {
            l.overflow = true;
        } else {
            l.body.extend_from_slice(bytes);
        }
        true
    }

    /// The flow's exchange ended (`failed`: without a response, and why). Only for the
    /// flow's own exchange (`auth_owns`).
    #[inline(never)]
    pub(super) fn auth_on_end(&mut self, failed: Option<Error>) {
        let now = self.sh.now;
        self.sh.set_deadline(&Owner::Auth, None);
        let Some(l) = self.auth.as_mut() else {
            return;
        };
        l.xfer = None;
        l.deadline = None;
        // A body over the bound is not read: the flow sees the status with no body, and an
        // error it ends with says why (not that the server could not be reached).
        let over = l.overflow && failed.is_none();
        let status = if failed.is_some() { 0 } else { l.status };
        let body = std::mem::take(&mut l.body);
        let body = if over { Vec::new() } else { body };
        let nonce = l.nonce.take();
        let carried = l.carried.take();
        let sent = l.sent.take();
        // RFC 9449 §8: the token endpoint asks for a nonce; the request goes again, once
        // (with a new client assertion when it had one: `again`, the flow's next steps).
        // A nonce with any other answer is the one its next proof carries (§8.2).
        let mut refused = None;
        let mut again = None;
        if let Some(req) = sent {
            if status != 400 || oauth_error_code(&body).as_deref() != Some("use_dpop_nonce") {
                if let (Some(n), Some(p)) = (nonce.as_deref(), self.sh.dpop.as_mut()) {
                    p.learn_nonce(&req.url, n);
                }
            } else {
                let fresh = match (nonce.as_deref(), self.sh.dpop.as_mut()) {
                    (Some(n), Some(p)) => p.take_nonce(&req.url, n, carried.as_deref()),
                    _ => false,
                };
                if fresh && !l.retried {
                    l.retried = true;
                    again = l.machine.reassert();
                    if again.is_none() {
                        self.auth_send(req);
                        return;
                    }
                    l.reasserting = true;
                } else {
                    refused = Some(nonce_error(if fresh || l.retried {
                        "the token endpoint refused the DPoP proof with its nonce again (use_dpop_nonce twice)"
                    } else {
                        "the token endpoint asked for a DPoP nonce (use_dpop_nonce) without a valid DPoP-Nonce header"
                    }));
                }
            }
        }
        let Some(l) = self.auth.as_mut() else {
            return;
        };
        let mut effects = match again {
            Some(effects) => effects,
            None => l.machine.on_fetch(status, &body, now),
        };
        if let Some(err) = refused {
            for e in &mut effects {
                if let Effect::Done(Err(e)) = e {
                    *e = err.clone();
                }
            }
        }
        if over {
            for e in &mut effects {
                if let Effect::Done(Err(err)) = e {
                    err.message = format!(
                        "{} (its answer is longer than {} KiB, the bound, and was not read)",
                        err.message,
                        MAX_AUTH_BODY / 1024
                    );
                }
            }
        }
        // A browser's CORS refusal of the flow's own request (the shell's `CorsError`, which
        // names the endpoint and what it must send) is what the host must see when the flow
        // ends there.
        // A network failure's own words (a refused redirect among them: flow requests follow
        // none, `Core::is_flow_request`) are added to the flow's.
        match failed {
            Some(cors) if cors.kind == ErrorKind::Cors => {
                for e in &mut effects {
                    if let Effect::Done(Err(err)) = e {
                        *err = cors.clone();
                    }
                }
            }
            Some(net) if net.kind == ErrorKind::Network => {
                for e in &mut effects {
                    if let Effect::Done(Err(err)) = e {
                        err.message = format!("{} ({})", err.message, sanitize(&net.message, 300));
                    }
                }
            }
            _ => {}
        }
        self.auth_apply(effects);
    }

    /// Holds a refused exchange and starts (or joins) a flow. False when the refusal is
    /// to reach its owner: no auth, a 403 that is not about scope, a request that cannot
    /// be replayed, or one that went through its flows already.
    fn auth_intercept(&mut self, xfer: ExchangeId, head: &ResponseHead) -> bool {
        if self.auth.is_none() {
            return false;
        }
        let dpop = (self.sh.cfg.authorization()).is_some_and(|a| a.starts_with("DPoP "));
        let bearer = head
            .www_authenticate
            .and_then(|w| challenge::bearer(w, dpop));
        if head.status == 403 && !bearer.as_ref().is_some_and(|b| b.insufficient_scope()) {
            return false;
        }
        if head.status == 401
            && self.sh.dpop.is_some()
            && head.www_authenticate.is_some_and(challenge::use_dpop_nonce)
        {
            return self.auth_nonce_refusal(xfer, head.dpop_nonce);
        }
        let Some((sent_gen, req)) = self.sh.xs.hold(xfer, MAX_AUTH_ROUNDS) else {
            return false;
        };
        let sent_token = req.and_then(bearer_of);
        let wire = req.map_or(xfer.0, |r| r.id);
        // Stop reading the refusal; the exchange is replayed under a new id.
        self.sh.push(Action::Cancel(wire));
        if self.auth.as_ref().is_some_and(|l| l.machine.running()) {
            return true;
        }
        if sent_gen != self.sh.auth_gen {
            self.auth_replay();
            return true;
        }
        let trigger = Trigger {
            status: head.status,
            challenge: bearer,
            sent_token,
            legacy_fallback: self.auth_legacy_fallback(),
        };
        self.auth_start(trigger);
        true
    }

    /// RFC 9449 §9: the MCP server asks for a nonce. A new, well-formed one is kept and the
    /// request sent again (within its rounds); the same nonce again, or none, fails it.
    fn auth_nonce_refusal(&mut self, xfer: ExchangeId, nonce: Option<&str>) -> bool {
        let carried = self.sh.xs.get(xfer).and_then(|s| s.proof_nonce.clone());
        let Some((_, req)) = self.sh.xs.hold(xfer, MAX_AUTH_ROUNDS) else {
            return false;
        };
        let url = req.map(|r| r.url.clone()).unwrap_or_default();
        let wire = req.map_or(xfer.0, |r| r.id);
        self.sh.push(Action::Cancel(wire));
        let fresh = match (nonce, self.sh.dpop.as_mut()) {
            (Some(n), Some(p)) => p.take_nonce(&url, n, carried.as_deref()),
            _ => false,
        };
        if !fresh {
            self.sh.xs.unhold(xfer);
            let why = if nonce.is_some_and(crate::auth::dpop::valid_nonce) {
                "the MCP server refused the DPoP proof with its nonce again (use_dpop_nonce twice)"
            } else {
                "the MCP server asked for a DPoP nonce (use_dpop_nonce) without a valid DPoP-Nonce header (is it exposed to this origin? README \"CORS\")"
            };
            self.exchange_failed(xfer, nonce_error(why));
            return true;
        }
        if !self.auth.as_ref().is_some_and(|l| l.machine.running()) {
            self.auth_replay();
        }
        true
    }

    /// The flow's own request (a proof, when it has one, is made now).
    fn auth_send(&mut self, mut req: HttpRequest) {
        let n = self.sh.next_id();
        req.id = n;
        let dpop = req.headers.iter().any(|(k, _)| k == PROOF_HEADER);
        let mut carried = None;
        if dpop {
            req.remove_header(PROOF_HEADER);
            if let Some(p) = self.sh.dpop.as_mut() {
                let proof = p.proof(req.method.as_str(), &req.url, None, self.sh.now);
                carried = p.nonce(&req.url).map(str::to_string);
                req.headers.push((PROOF_HEADER.to_string(), proof));
            }
        }
        let Some(l) = self.auth.as_mut() else { return };
        l.xfer = Some(n);
        l.status = 0;
        l.body.clear();
        l.overflow = false;
        l.nonce = None;
        l.carried = carried;
        l.sent = dpop.then(|| req.clone());
        let at = self.sh.now.saturating_add(self.sh.cfg.request_timeout_ms);
        l.deadline = Some(at);
        self.sh.set_deadline(&Owner::Auth, Some(at));
        self.sh.push(Action::Send(req));
    }

    /// The deadline of the flow's request in flight (`Owner::Auth`).
    pub(super) fn auth_deadline(&self) -> Option<Millis> {
        self.auth.as_ref().and_then(|l| l.xfer.and(l.deadline))
    }

    /// `Owner::Auth`'s timer: the flow's request got no answer in `requestTimeoutMs`. It is
    /// cancelled and the flow ends there, as when it could not be reached: the requests it
    /// held fail with its `AuthorizationError`, and the next refusal starts a new flow.
    #[inline(never)]
    pub(super) fn auth_timer(&mut self) {
        let Some(l) = self.auth.as_ref() else { return };
        let (Some(x), Some(d)) = (l.xfer, l.deadline) else {
            return;
        };
        if self.sh.now < d {
            self.sh.set_deadline(&Owner::Auth, Some(d));
            return;
        }
        self.sh.push(Action::Cancel(x));
        let ms = self.sh.cfg.request_timeout_ms;
        self.auth_on_end(Some(Error::network(format!("no answer in {ms} ms"))));
    }

    /// The 2025-03-26 fallbacks apply unless the server is known to be 2026-07-28.
    fn auth_legacy_fallback(&self) -> bool {
        !(self.session.era_known && self.sh.era == Era::Modern)
    }

    fn auth_start(&mut self, trigger: Trigger) {
        let now = self.sh.now;
        let Some(l) = self.auth.as_mut() else { return };
        let effects = l.machine.start(trigger, now);
        self.auth_apply(effects);
    }

    /// Turns the flow's effects into actions.
    fn auth_apply(&mut self, effects: Vec<Effect>) {
        for e in effects {
            if let Effect::Done(r) = e {
                self.auth_finished(r);
                continue;
            }
            let n = self.sh.next_id();
            let id = AuthStepId(n);
            let Some(l) = self.auth.as_mut() else { return };
            let action = match e {
                Effect::Fetch(r) => {
                    l.retried = std::mem::take(&mut l.reasserting);
                    let mut headers = r.headers;
                    if r.dpop {
                        // A placeholder: `auth_send` writes the proof.
                        headers.push((PROOF_HEADER.to_string(), String::new()));
                    }
                    self.auth_send(HttpRequest {
                        id: n,
                        method: r.method,
                        url: r.url,
                        headers,
                        body: r.body.map(String::into_bytes),
                        event_source: false,
                    });
                    continue;
                }
                Effect::Key(name) => {
                    l.waiting = Some(id);
                    Action::Auth(AuthAction::Key { id, name })
                }
                Effect::Sign(input) => {
                    l.waiting = Some(id);
                    Action::Auth(AuthAction::Sign { id, input })
                }
                Effect::Random(len) => {
                    l.waiting = Some(id);
                    Action::Auth(AuthAction::Random { id, len })
                }
                Effect::Authorize(req) => {
                    l.waiting = Some(id);
                    Action::Auth(AuthAction::Authorize { id, req })
                }
                Effect::Load(key) => {
                    l.waiting = Some(id);
                    Action::Auth(AuthAction::Load { id, key })
                }
                Effect::Save(key, value) => Action::Auth(AuthAction::Save { key, value }),
                Effect::Lock(name) => {
                    l.waiting = Some(id);
                    l.lock = Some(id);
                    Action::Auth(AuthAction::Lock { id, name })
                }
                Effect::Announce(key) => Action::Auth(AuthAction::Announce { key }),
                Effect::Done(_) => continue,
            };
            self.sh.push(action);
        }
    }

    /// The host answered an [`AuthAction`].
    pub fn on_auth(&mut self, id: AuthStepId, input: AuthInput, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        if let (Some(l), AuthInput::Loaded(v)) = (self.auth.as_mut(), &input) {
            if let Some((_, key)) = l.notice.take_if(|(n, _)| *n == id) {
                if let Some((old, new)) = l.machine.on_notice_loaded(&key, v.clone()) {
                    self.auth_use_announced(&old, &new);
                }
                // What was opened during the read leaves now, with the token in place (a
                // flow that started meanwhile sends it when it ends).
                self.sh.auth_wait = false;
                if !self.auth.as_ref().is_some_and(|l| l.machine.running()) {
                    self.auth_replay();
                }
                return;
            }
        }
        let Some(l) = self.auth.as_mut().filter(|l| l.waiting == Some(id)) else {
            return;
        };
        l.waiting = None;
        let effects = match input {
            AuthInput::Random(b) => l.machine.on_random(&b),
            AuthInput::Callback(r) => l.machine.on_callback(r),
            AuthInput::Loaded(v) => l.machine.on_loaded(v),
            AuthInput::Locked => l.machine.on_locked(),
            AuthInput::Key(k) => {
                let p = k.and_then(|(jwk, seed)| Prover::new(&jwk, seed));
                let ok = p.is_some();
                if p.is_some() {
                    self.sh.dpop = p;
                }
                l.machine.on_key(ok)
            }
            AuthInput::Signed(s) => l.machine.on_signed(s),
        };
        self.auth_apply(effects);
    }

    fn auth_finished(&mut self, r: Result<String>) {
        if let Some(l) = self.auth.as_mut() {
            l.reasserting = false;
            if let Some(id) = l.lock.take() {
                self.sh.push(Action::Auth(AuthAction::Unlock { id }));
            }
        }
        // The `authorize()` operations, in the order they started.
        let mut waiters: Vec<OpId> = self
            .ops
            .iter()
            .filter(|(_, o)| o.awaits_authorization())
            .map(|(id, _)| *id)
            .collect();
        waiters.sort_unstable();
        match r {
            Ok(token) => {
                self.auth_set_token(&token);
                for op in waiters {
                    self.handle_op(op, OpInput::Authorized(Ok(())));
                }
                self.auth_replay();
            }
            Err(e) => {
                for op in waiters {
                    self.handle_op(op, OpInput::Authorized(Err(e.clone())));
                }
                for x in self.sh.xs.held() {
                    self.sh.xs.unhold(x);
                    self.exchange_failed(x, e.clone());
                }
            }
        }
    }

    /// `Authorization: Bearer <token>` (or `DPoP <token>` for a DPoP-bound one, RFC 9449
    /// §7.1: never as Bearer) for every later request (a new token generation).
    fn auth_set_token(&mut self, token: &str) {
        let dpop = self.sh.dpop.is_some()
            && self
                .auth
                .as_ref()
                .is_some_and(|l| l.machine.dpop_token(token));
        let value = format!("{} {token}", if dpop { "DPoP" } else { "Bearer" });
        if self.sh.cfg.authorization() != Some(value.as_str()) {
            let h = &mut self.sh.cfg.headers;
            h.retain(|(n, _)| !n.eq_ignore_ascii_case("authorization"));
            h.push(("Authorization".into(), value));
            self.sh.auth_gen = self.sh.auth_gen.wrapping_add(1);
        }
    }

    /// Another context announced that the tokens stored under `key` changed (the shell's
    /// BroadcastChannel; peer input: an unknown key, or any key while a flow runs, is
    /// ignored). When this client holds tokens of that key, they are read again (a read
    /// still in flight is superseded: its answer may predate the change announced now).
    /// Requests opened until the read is answered wait for it (`Shared::auth_wait`).
    pub fn on_auth_notice(&mut self, key: &str, now: Millis) {
        self.sh.now = self.sh.now.max(now);
        let n = self.sh.next_id();
        let Some(l) = self.auth.as_mut() else { return };
        if !l.machine.notice(key) {
            return;
        }
        let id = AuthStepId(n);
        l.notice = Some((id, key.to_string()));
        let key = key.to_string();
        self.sh.auth_wait = true;
        self.sh.push(Action::Auth(AuthAction::Load { id, key }));
    }

    /// Announced tokens replace `old`: the next requests carry `new` when they carried
    /// `old` (requests refused with `old` meanwhile are replayed: a new token generation).
    fn auth_use_announced(&mut self, old: &str, new: &str) {
        let held = self.sh.cfg.authorization().and_then(|a| {
            a.strip_prefix("Bearer ")
                .or_else(|| a.strip_prefix("DPoP "))
        });
        if held == Some(old) {
            self.auth_set_token(new);
        }
    }

    /// Sends every held exchange again, with the current token, under a new id (the
    /// exchange keeps its own: owners still reach it).
    fn auth_replay(&mut self) {
        let auth = self.sh.cfg.authorization().map(str::to_string);
        for x in self.sh.xs.held() {
            let wire = self.sh.next_id();
            let fresh = Exchange::new(self.sh.bounds());
            let gen = self.sh.auth_gen;
            if let Some(mut req) = self.sh.xs.replay(x, wire, auth.as_deref(), gen, fresh) {
                self.sh.prove(x, &mut req);
                self.sh.push(Action::Send(req));
            }
        }
    }

    /// Runs the flow now (the host's `authorize()`), discovering the metadata at the
    /// well-known locations. Resolves once a token is held; no person is asked when one
    /// is (from storage, or an earlier flow).
    pub fn authorize(&mut self, now: Millis) -> OpId {
        let id = self.new_op(now);
        let legacy_fallback = self.auth_legacy_fallback();
        let Some(running) = self.auth.as_ref().map(|l| l.machine.running()) else {
            self.done(
                id,
                Err(Error::config(
                    "authorize() needs the auth option of the client",
                )),
            );
            return id;
        };
        self.settle(id, Box::new(Op::Auth(AuthOp)), Step::Pending, Vec::new());
        if !running {
            self.auth_start(Trigger {
                status: 0,
                legacy_fallback,
                ..Default::default()
            });
        }
        id
    }

    /// True when no host step is pending and the flow has no exchange in flight
    /// (`authorize()` operations are in the operation table).
    pub(super) fn auth_is_quiet(&self) -> bool {
        self.auth.as_ref().is_none_or(|l| {
            l.waiting.is_none() && l.xfer.is_none() && l.lock.is_none() && l.notice.is_none()
        })
    }

    /// The client closed: the flow stops, the person's step is withdrawn.
    pub(super) fn auth_close(&mut self) {
        let Some(l) = self.auth.as_mut() else { return };
        l.machine.cancel();
        let xfer = l.xfer.take();
        l.deadline = None;
        let waiting = l.waiting.take();
        let lock = l.lock.take();
        l.notice = None;
        if let Some(x) = xfer {
            self.sh.push(Action::Cancel(x));
        }
        if let Some(id) = lock {
            // A held lock is released; one still awaited is abandoned.
            self.sh.push(Action::Auth(AuthAction::Unlock { id }));
        }
        if let Some(w) = waiting.filter(|w| Some(*w) != lock) {
            self.sh.push(Action::CancelAuth(w));
        }
        for x in self.sh.xs.held() {
            self.sh.forget_exchange(x);
        }
        self.sh.set_deadline(&Owner::Auth, None);
    }
}
