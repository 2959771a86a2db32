//! State every machine of one client shares: configuration, the negotiated era and
//! version, id allocation, the action queue, exchanges in flight, and who owns what.

use crate::engine::actions::{Action, OpId};
use crate::engine::cache::Cache;
use crate::engine::config::Config;
use crate::engine::exchange::{Bounds, Exchange};
use crate::engine::tools::ToolRegistry;
use crate::error::json_text;
use crate::http::request::{
    add_progress_token, legacy_post_headers, modern_params_text, modern_post_headers, HttpMethod,
    HttpRequest, RequestMetaText,
};
use crate::protocol::jsonrpc::{encode_request, encode_request_text, RequestId};
use crate::protocol::LATEST_PROTOCOL_VERSION;
use crate::time::Millis;
use rustc_hash::FxHashMap;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::collections::{BTreeSet, VecDeque};

/// Who an exchange, an ask or a timer belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Owner {
    Op(OpId),
    /// A task driver's exchange (or its asks, under `Part::Poll`), by task id.
    Task(String, crate::engine::task::Part),
    /// The session: era detection, `initialize`, legacy streams, server requests.
    Session(crate::engine::session::SessionPart),
    /// A scheduled resumption (`Last-Event-ID`) of a legacy response stream.
    Resume(u64),
}

/// Which protocol era the client speaks with the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Era {
    /// 2026-07-28: per-request `_meta`, no handshake.
    Modern,
    /// 2025-03-26 … 2025-11-25 Streamable HTTP after `initialize`.
    Legacy,
    /// 2024-11-05 HTTP+SSE.
    HttpSse,
}

/// An exchange in flight.
pub struct Slot {
    pub owner: Owner,
    /// The JSON-RPC id the POST carries, if it is a request.
    pub rpc_id: Option<RequestId>,
    pub exchange: Exchange,
    /// True once this exchange's own response (or failure) was delivered.
    pub settled: bool,
    /// Legacy eras: the last SSE event id and `retry` seen on this stream (resumption).
    pub last_event_id: Option<String>,
    pub retry_ms: Option<u64>,
    /// Resumptions so far of the request this exchange carries.
    pub resumes: u32,
    /// HTTP+SSE: the POST was accepted; the response comes on the SSE stream.
    pub accepted: bool,
    /// With OAuth configured: the request as sent, replayed with a token after a 401 or
    /// `403 insufficient_scope` (`engine::core::auth`).
    pub request: Option<HttpRequest>,
    /// The token generation it was sent with, and how many flows it went through.
    pub auth_gen: u32,
    pub auth_rounds: u8,
    /// `WWW-Authenticate` of a 401/403 answer (error data for the host).
    pub www_authenticate: Option<String>,
}

impl Slot {
    pub fn new(owner: Owner, rpc_id: Option<RequestId>, exchange: Exchange) -> Slot {
        Slot {
            owner,
            rpc_id,
            exchange,
            settled: false,
            last_event_id: None,
            retry_ms: None,
            resumes: 0,
            accepted: false,
            request: None,
            auth_gen: 0,
            auth_rounds: 0,
            www_authenticate: None,
        }
    }
}

/// Shared state.
pub struct Shared {
    pub cfg: Config,
    pub now: Millis,
    pub era: Era,
    /// The protocol version in use (modern: sent on every request; legacy: negotiated).
    pub version: String,
    /// Legacy era: the session id the server assigned.
    pub session_id: Option<String>,
    /// HTTP+SSE: the URL to POST to (from the `endpoint` event).
    pub post_url: Option<String>,
    next_id: u64,
    pub actions: VecDeque<Action>,
    pub slots: FxHashMap<u64, Slot>,
    /// In-flight JSON-RPC ids → the exchange carrying them.
    pub pending: FxHashMap<RequestId, u64>,
    pub asks: FxHashMap<u64, Owner>,
    /// Progress tokens in use → owner.
    pub progress: FxHashMap<String, Owner>,
    /// Deadlines: (time, owner). One entry per owner at most (see `owner_deadline`).
    pub timers: BTreeSet<(Millis, Owner)>,
    pub owner_deadline: FxHashMap<Owner, Millis>,
    pub cache: Cache,
    pub tools: ToolRegistry,
    /// `server/discover` capabilities once known.
    pub server_capabilities: Option<Value>,
    /// OAuth: the generation of the token in `cfg.headers` (bumped when it changes).
    pub auth_gen: u32,
    /// OAuth: exchanges refused with 401/403, waiting for a token (by exchange id).
    pub held: FxHashMap<u64, Slot>,
    /// OAuth: an exchange replayed under a new id (old → new), so that owners holding the
    /// old id still reach it.
    pub moved: FxHashMap<u64, u64>,
    /// 2025-11-25: JSON-RPC ids whose response stream is being resumed → the resumption's
    /// token (scheduled, or its `Last-Event-ID` GET open). The resumption belongs to no
    /// call's exchange, so a call that ends withdraws its id here ([`Shared::abandon`]); a
    /// resumption whose id is gone is not sent. (A map of the same types as `pending`:
    /// a set would be another hash table in the wasm, ~480 B gzip measured.)
    pub resuming: FxHashMap<RequestId, u64>,
    /// The JSON text of the capabilities and client info every modern request carries in
    /// `_meta` (the configuration does not change them after construction).
    caps_text: String,
    client_info_text: String,
}

impl Shared {
    pub fn new(cfg: Config, now: Millis) -> Shared {
        let version = match &cfg.version {
            crate::engine::config::VersionChoice::Pinned(v) => v.clone(),
            crate::engine::config::VersionChoice::Auto => LATEST_PROTOCOL_VERSION.to_string(),
        };
        let caps_text = json_text(&cfg.client_capabilities());
        let client_info_text = json_text(&cfg.client_info);
        Shared {
            caps_text,
            client_info_text,
            cfg,
            now,
            era: Era::Modern,
            version,
            session_id: None,
            post_url: None,
            next_id: 1,
            actions: VecDeque::new(),
            slots: FxHashMap::default(),
            pending: FxHashMap::default(),
            asks: FxHashMap::default(),
            progress: FxHashMap::default(),
            timers: BTreeSet::new(),
            owner_deadline: FxHashMap::default(),
            cache: Cache::default(),
            tools: ToolRegistry::default(),
            server_capabilities: None,
            auth_gen: 0,
            held: FxHashMap::default(),
            moved: FxHashMap::default(),
            resuming: FxHashMap::default(),
        }
    }

    /// A fresh id (ops, exchanges, asks and JSON-RPC ids share one counter, so a JSON-RPC
    /// id never collides with one still in flight).
    pub fn next_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    pub fn push(&mut self, a: Action) {
        self.actions.push_back(a);
    }

    pub fn bounds(&self) -> Bounds {
        Bounds {
            max_body_bytes: self.cfg.limits.max_body_bytes,
            max_event_bytes: self.cfg.limits.max_event_bytes,
        }
    }

    /// Sends a JSON-RPC request for `owner`, framed for the current era. Returns the
    /// exchange id and the JSON-RPC id.
    #[allow(clippy::too_many_arguments)]
    pub fn send_request(
        &mut self,
        owner: Owner,
        method: &str,
        params: &Map<String, Value>,
        extra_headers: &[(String, String)],
        request_state: Option<&RawValue>,
        progress_token: Option<&Value>,
        log_level: Option<&str>,
    ) -> (u64, RequestId) {
        let rpc_id = RequestId::Number(self.next_id() as i64);
        let (url, headers, body) = match self.era {
            Era::Modern => {
                // Written straight to text: no copy of `params`, no `_meta` map per request.
                let text = modern_params_text(
                    params,
                    &RequestMetaText {
                        protocol_version: &self.version,
                        capabilities: &self.caps_text,
                        client_info: &self.client_info_text,
                        log_level: log_level.or(self.cfg.log_level.as_deref()),
                        progress_token,
                    },
                );
                let h = modern_post_headers(
                    method,
                    params,
                    &self.version,
                    extra_headers,
                    &self.cfg.headers,
                );
                let body = encode_request_text(&rpc_id, method, text, request_state);
                (self.cfg.url.clone(), h, body)
            }
            Era::Legacy | Era::HttpSse => {
                let mut p = params.clone();
                if let Some(t) = progress_token {
                    add_progress_token(&mut p, t);
                }
                let version = if method == "initialize" {
                    None
                } else {
                    Some(self.version.as_str())
                };
                let h = legacy_post_headers(version, self.session_id.as_deref(), &self.cfg.headers);
                let url = self
                    .post_url
                    .clone()
                    .unwrap_or_else(|| self.cfg.url.clone());
                let body = encode_request(&rpc_id, method, &p, request_state);
                (url, h, body)
            }
        };
        let xfer = self.next_id();
        let req = HttpRequest {
            id: xfer,
            method: HttpMethod::Post,
            url,
            headers,
            body: Some(body),
            event_source: false,
        };
        let slot = Slot::new(owner, Some(rpc_id.clone()), Exchange::new(self.bounds()));
        self.slots.insert(xfer, self.keep_for_auth(slot, &req));
        self.pending.insert(rpc_id.clone(), xfer);
        self.push(Action::Send(req));
        (xfer, rpc_id)
    }

    /// With OAuth configured, a slot keeps a copy of its request for a replay.
    fn keep_for_auth(&self, mut slot: Slot, req: &HttpRequest) -> Slot {
        if self.cfg.auth.is_some() {
            slot.request = Some(req.clone());
            slot.auth_gen = self.auth_gen;
        }
        slot
    }

    /// The exchange id an owner's (possibly replayed) exchange has now.
    pub fn resolve(&self, mut xfer: u64) -> u64 {
        for _ in 0..8 {
            match self.moved.get(&xfer) {
                Some(n) => xfer = *n,
                None => break,
            }
        }
        xfer
    }

    /// Drops a held exchange (its owner gave up on it).
    fn drop_held(&mut self, xfer: u64) -> bool {
        let Some(slot) = self.held.remove(&xfer) else {
            return false;
        };
        if let Some(id) = slot.rpc_id {
            if self.pending.get(&id) == Some(&xfer) {
                self.pending.remove(&id);
            }
        }
        true
    }

    /// Sends a raw HTTP request that carries no JSON-RPC request (GET streams, DELETE,
    /// notification and response POSTs).
    pub fn send_raw(&mut self, owner: Owner, req: HttpRequest) -> u64 {
        let xfer = req.id;
        let slot = Slot::new(owner, None, Exchange::new(self.bounds()));
        self.slots.insert(xfer, self.keep_for_auth(slot, &req));
        self.push(Action::Send(req));
        xfer
    }

    /// A call no longer wants the response to JSON-RPC `id`: a resumption of its stream,
    /// scheduled or open, ends too.
    pub fn abandon(&mut self, id: &RequestId) {
        if self.resuming.remove(id).is_some() {
            if let Some(x) = self.pending.get(id).copied() {
                self.cancel_exchange(x);
            }
        }
    }

    /// A GET on the server URL for a 2025-11-25 SSE stream (the session's GET stream, or a
    /// response stream's resumption): the session's headers, and `Last-Event-ID` to resume
    /// after that event (2025-11-25 `basic/transports` "Resumability and Redelivery").
    pub fn legacy_stream_get(&mut self, last_event_id: Option<&str>) -> HttpRequest {
        let mut headers = vec![
            ("Accept".to_string(), "text/event-stream".to_string()),
            ("MCP-Protocol-Version".to_string(), self.version.clone()),
        ];
        if let Some(s) = &self.session_id {
            headers.push(("Mcp-Session-Id".into(), s.clone()));
        }
        if let Some(id) = last_event_id {
            headers.push(("Last-Event-ID".into(), id.to_string()));
        }
        headers.extend(self.cfg.headers.iter().cloned());
        HttpRequest {
            id: self.next_id(),
            method: HttpMethod::Get,
            url: self.cfg.url.clone(),
            headers,
            body: None,
            event_source: false,
        }
    }

    /// Aborts an exchange (if still in flight) and forgets it.
    pub fn cancel_exchange(&mut self, xfer: u64) {
        if let Some(xfer) = self.remove_exchange(xfer) {
            self.push(Action::Cancel(xfer));
        }
    }

    /// Forgets an exchange that ended by itself (no cancel action).
    pub fn forget_exchange(&mut self, xfer: u64) {
        self.remove_exchange(xfer);
    }

    /// Drops an exchange from the books (held for authorization, or in flight with its
    /// JSON-RPC id); the resolved exchange id when it was in flight.
    fn remove_exchange(&mut self, xfer: u64) -> Option<u64> {
        let xfer = self.resolve(xfer);
        if self.drop_held(xfer) {
            return None;
        }
        let slot = self.slots.remove(&xfer)?;
        if let Some(id) = slot.rpc_id {
            if self.pending.get(&id) == Some(&xfer) {
                self.pending.remove(&id);
            }
        }
        Some(xfer)
    }

    /// Records an owner's next deadline (or none).
    pub fn set_deadline(&mut self, owner: &Owner, at: Option<Millis>) {
        if let Some(old) = self.owner_deadline.remove(owner) {
            self.timers.remove(&(old, owner.clone()));
        }
        if let Some(t) = at {
            self.timers.insert((t, owner.clone()));
            self.owner_deadline.insert(owner.clone(), t);
        }
    }

    /// A new progress token for `owner`.
    pub fn new_progress_token(&mut self, owner: Owner) -> Value {
        let t = format!("p-{}", self.next_id());
        self.progress.insert(t.clone(), owner);
        Value::String(t)
    }

    pub fn drop_progress_token(&mut self, token: &Option<Value>) {
        if let Some(Value::String(t)) = token {
            self.progress.remove(t);
        }
    }
}
