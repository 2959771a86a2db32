//! State every machine of one client shares: configuration, the negotiated era and
//! version, id allocation, the action queue, exchanges in flight, and who owns what.

use crate::engine::actions::{Action, AskId, OpId};
use crate::engine::cache::Cache;
use crate::engine::config::Config;
use crate::engine::exchange::{Bounds, Exchange};
use crate::engine::exchanges::Exchanges;
use crate::engine::ids::{ExchangeId, ResumeId};
use crate::engine::small_map::SmallMap;
use crate::engine::timers::TimerTable;
use crate::engine::tools::ToolRegistry;
use crate::error::json_text;
use crate::http::call_template::ToolCallTemplate;
#[cfg(feature = "legacy")]
use crate::http::request::{add_progress_token, legacy_post_headers};
use crate::http::request::{
    modern_post_headers, write_modern_params, HttpMethod, HttpRequest, Params, RequestMetaText,
};
use crate::json::RawJson;
use crate::json::Value;
#[cfg(feature = "legacy")]
use crate::protocol::jsonrpc::encode_request;
use crate::protocol::jsonrpc::{request_end, request_head, RequestId};
use crate::protocol::LATEST_PROTOCOL_VERSION;
use crate::sorted_map::SortedMap;
use crate::time::Millis;
use std::collections::VecDeque;

/// Who an exchange, an ask or a timer belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Owner {
    Op(OpId),
    /// A task driver's exchange (or its asks, under `Part::Poll`), by task id.
    Task(String, crate::engine::task::Part),
    /// The session: era detection, `initialize`, legacy streams, server requests.
    Session(crate::engine::session::SessionPart),
    /// A scheduled resumption (`Last-Event-ID`) of a legacy response stream.
    Resume(ResumeId),
    /// The shared task stream (issue 14, `engine::task::push`): 0 its timer, n >= 1 its
    /// n-th listen request.
    Push(u64),
    /// The authorization flow's timer: its request in flight gives up (`Core::auth_timer`).
    Auth,
}

/// Which protocol era the client speaks with the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Era {
    /// 2026-07-28: per-request `_meta`, no handshake.
    Modern,
    /// 2025-03-26 … 2025-11-25 Streamable HTTP after `initialize`.
    #[cfg(feature = "legacy")]
    Legacy,
    /// 2024-11-05 HTTP+SSE.
    #[cfg(feature = "legacy")]
    HttpSse,
}

impl Era {
    /// The 2025 Streamable HTTP era (always false without the `legacy` feature, so that
    /// the branches it guards fold away in the modern-only build).
    #[inline]
    pub(crate) fn is_legacy(&self) -> bool {
        #[cfg(feature = "legacy")]
        return *self == Era::Legacy;
        #[cfg(not(feature = "legacy"))]
        false
    }

    /// The 2024-11-05 HTTP+SSE era (always false without the `legacy` feature).
    #[inline]
    pub(crate) fn is_http_sse(&self) -> bool {
        #[cfg(feature = "legacy")]
        return *self == Era::HttpSse;
        #[cfg(not(feature = "legacy"))]
        false
    }
}

/// Request templates kept at most: one per tool, for the tools called plainly last (a page
/// calls a few tools over and over; a template is about 0.5 KB). A call of a tool whose
/// template was dropped frames it again, which costs about what the general framing costs
/// every call.
const TEMPLATES: usize = 8;

/// Shared state.
pub(crate) struct Shared {
    pub cfg: Config,
    pub now: Millis,
    pub era: Era,
    /// The protocol version in use (modern: sent on every request; legacy: negotiated).
    pub version: String,
    /// Legacy era: the session id the server assigned.
    pub session_id: Option<String>,
    /// HTTP+SSE: the URL to POST to (from the `endpoint` event).
    #[cfg_attr(not(feature = "legacy"), allow(dead_code))]
    pub post_url: Option<String>,
    next_id: u64,
    pub actions: VecDeque<Action>,
    /// Requests in flight, held for authorization, or being resumed.
    pub(crate) xs: Exchanges,
    asks: SmallMap<AskId, Owner>,
    /// Progress tokens in use → owner.
    progress: SortedMap<String, Owner>,
    /// Deadlines, one per owner at most.
    timers: TimerTable,
    pub cache: Cache,
    pub tools: ToolRegistry,
    /// `server/discover` capabilities once known.
    pub server_capabilities: Option<Value>,
    /// The era probe's answer for the operation whose request it was, until that
    /// operation starts (`session::detect`).
    pub(crate) first_answer: Option<crate::engine::session::FirstAnswer>,
    /// OAuth: the generation of the token in `cfg.headers` (bumped when it changes).
    pub auth_gen: u32,
    /// OAuth across contexts: a read of the tokens another context announced is pending.
    /// Exchanges opened meanwhile are held, not sent, and leave with the token the read
    /// leaves in place (`core::auth`): sent now, they would carry a token that may have just
    /// been replaced, and pay a 401 round trip.
    pub(crate) auth_wait: bool,
    /// OAuth with DPoP (RFC 9449): the client's key, once the flow has it (a request whose
    /// `Authorization` is `DPoP …` gets a fresh proof as it leaves: [`Shared::prove`]).
    pub(crate) dpop: Option<crate::auth::dpop::Prover>,
    /// The JSON text of the capabilities and client info every modern request carries in
    /// `_meta` (the configuration does not change them after construction).
    caps_text: String,
    client_info_text: String,
    /// The request templates of the tools called plainly ([`Shared::tool_call_request`]), at
    /// most [`TEMPLATES`], the tool called last first.
    templates: Vec<ToolCallTemplate>,
    /// Templates framed so far (a test's count of cache misses).
    #[cfg(test)]
    pub(crate) templates_framed: usize,
    /// Visibility and network of the context, as the host reports them (issue 13;
    /// `engine::task::schedule`).
    pub presence: crate::engine::task::Presence,
    /// The shortest time between two backstop polls of a task the shared task stream
    /// covers, for the number of tasks it covers now (`engine::task::push`, rule 26).
    pub(crate) backstop_ms: u64,
}

impl Shared {
    pub(crate) fn new(cfg: Config, now: Millis) -> Shared {
        let version = match &cfg.version {
            crate::engine::config::VersionChoice::Pinned(v) => v.clone(),
            crate::engine::config::VersionChoice::Auto => LATEST_PROTOCOL_VERSION.to_string(),
        };
        let caps_text = json_text(&cfg.client_capabilities());
        let client_info_text = json_text(&cfg.client_info);
        Shared {
            caps_text,
            client_info_text,
            templates: Vec::new(),
            #[cfg(test)]
            templates_framed: 0,
            cfg,
            now,
            era: Era::Modern,
            version,
            session_id: None,
            post_url: None,
            next_id: 1,
            actions: VecDeque::new(),
            xs: Exchanges::default(),
            asks: SmallMap::default(),
            progress: SortedMap::default(),
            timers: TimerTable::default(),
            cache: Cache::default(),
            tools: ToolRegistry::default(),
            server_capabilities: None,
            first_answer: None,
            auth_gen: 0,
            auth_wait: false,
            dpop: None,
            presence: crate::engine::task::Presence::default(),
            backstop_ms: crate::engine::task::push::BACKSTOP_MS,
        }
    }

    /// A fresh id (ops, exchanges, asks and JSON-RPC ids share one counter, so a JSON-RPC
    /// id never collides with one still in flight).
    pub(crate) fn next_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Names of what is still booked: exchanges, asks, progress tokens, deadlines.
    pub(crate) fn busy(&self, out: &mut Vec<&'static str>) {
        self.xs.busy(out);
        let tables = [
            ("asks", self.asks.is_empty()),
            ("progress tokens", self.progress.is_empty()),
            ("timers", self.timers.is_empty()),
        ];
        out.extend(tables.iter().filter(|(_, empty)| !empty).map(|(n, _)| *n));
    }

    /// A fresh id for an input request handed to the host.
    pub(crate) fn next_ask_id(&mut self) -> AskId {
        AskId(self.next_id())
    }

    /// Records `owner` as the one waiting for the host's answer to `ask`.
    pub(crate) fn track_ask(&mut self, ask: AskId, owner: Owner) {
        self.asks.insert(ask, owner);
    }

    /// The host's answer to `ask` is no longer awaited.
    pub(crate) fn forget_ask(&mut self, ask: &AskId) {
        self.asks.remove(ask);
    }

    /// Who waits for the host's answer to `ask`.
    pub(crate) fn ask_owner(&self, ask: &AskId) -> Option<&Owner> {
        self.asks.get(ask)
    }

    /// The owner of progress token `token`, if it is in use.
    pub(crate) fn progress_owner(&self, token: &str) -> Option<&Owner> {
        self.progress.get(token)
    }

    /// The earliest deadline, if any.
    pub(crate) fn next_deadline(&self) -> Option<Millis> {
        self.timers.next()
    }

    /// `owner`'s deadline, if it has one.
    pub(crate) fn deadline_of(&self, owner: &Owner) -> Option<Millis> {
        self.timers.get(owner)
    }

    /// Removes and returns an owner whose deadline is at or before `now`.
    pub(crate) fn pop_due(&mut self, now: Millis) -> Option<Owner> {
        self.timers.pop_due(now)
    }

    pub(crate) fn push(&mut self, a: Action) {
        self.actions.push_back(a);
    }

    pub(crate) fn bounds(&self) -> Bounds {
        Bounds {
            max_body_bytes: self.cfg.limits.max_body_bytes,
            max_event_bytes: self.cfg.limits.max_event_bytes,
        }
    }

    /// Books and sends a request framed by [`Shared::request`] for `owner`. Returns the
    /// exchange id and the JSON-RPC id.
    pub(crate) fn send_request(
        &mut self,
        owner: Owner,
        framed: (RequestId, HttpRequest),
    ) -> (ExchangeId, RequestId) {
        let (rpc_id, req) = framed;
        let x = self.open(req.id, owner, Some(rpc_id.clone()), req);
        (x, rpc_id)
    }

    /// The HTTP request carrying a JSON-RPC request, framed for the current era, with a
    /// fresh JSON-RPC id and a fresh exchange id (in that order), not yet booked or sent:
    /// [`Shared::send_request`], and a plain tool call's short path
    /// (`engine::core::plain`), which books it only if the answer needs the general path.
    pub(crate) fn request(
        &mut self,
        method: &str,
        params: Params,
        extra_headers: &[(String, String)],
        request_state: Option<&RawJson>,
        progress_token: Option<&Value>,
        log_level: Option<&str>,
    ) -> (RequestId, HttpRequest) {
        let rpc_id = RequestId::Number(self.next_id() as i64);
        let (url, headers, body) = match self.era {
            Era::Modern => {
                // Written straight to text: no copy of `params`, no `_meta` map per request,
                // the whole request in one buffer.
                let raw = params.raw.map_or(0, |(_, r)| r.len());
                let mut body = Vec::with_capacity(
                    160 + raw + self.caps_text.len() + self.client_info_text.len(),
                );
                request_head(&mut body, &rpc_id, method);
                write_modern_params(
                    &mut body,
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
                request_end(&mut body, request_state);
                (self.cfg.url.clone(), h, body)
            }
            #[cfg(feature = "legacy")]
            Era::Legacy | Era::HttpSse => {
                let mut p = params.to_map();
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
                let body = encode_request(&rpc_id, method, &p, request_state).into_bytes();
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
        (rpc_id, req)
    }

    /// A plain tool call's request (`engine::core::plain`): what [`Shared::request`] frames
    /// for a modern `tools/call` of tool `name` with `args` and nothing else (no extra
    /// headers, request state, progress token or log level of its own), with a fresh
    /// JSON-RPC id and a fresh exchange id (in that order), written from the tool's
    /// template (`http::call_template`), framed on its first call.
    pub(crate) fn tool_call_request(
        &mut self,
        name: &str,
        args: Option<&[u8]>,
    ) -> (i64, HttpRequest) {
        let rpc_id = self.next_id() as i64;
        let level = self.cfg.log_level.as_deref();
        let fits = |t: &ToolCallTemplate| t.fits(name, &self.version, level, &self.cfg.headers);
        match self.templates.iter().position(fits) {
            // The tool called last goes first, so that those called least lately are dropped.
            Some(i) => self.templates[..=i].rotate_right(1),
            None => {
                let t = ToolCallTemplate::new(
                    name,
                    &RequestMetaText {
                        protocol_version: &self.version,
                        capabilities: &self.caps_text,
                        client_info: &self.client_info_text,
                        log_level: level,
                        progress_token: None,
                    },
                    &self.cfg.headers,
                );
                #[cfg(test)]
                {
                    self.templates_framed += 1;
                }
                self.templates.truncate(TEMPLATES - 1);
                self.templates.insert(0, t);
            }
        }
        let id = self.next_id();
        // (The tool's template was just put first.)
        let t = &self.templates[0];
        let req = HttpRequest {
            id,
            method: HttpMethod::Post,
            url: self.cfg.url.clone(),
            headers: t.headers(),
            body: Some(t.body(rpc_id, args)),
            event_source: false,
        };
        (rpc_id, req)
    }

    /// Books exchange `xfer` and sends its request. With OAuth configured, the exchange
    /// keeps a copy of its request for a replay, and is held while announced tokens are
    /// read (`auth_wait`).
    fn open(
        &mut self,
        xfer: u64,
        owner: Owner,
        rpc_id: Option<RequestId>,
        req: HttpRequest,
    ) -> ExchangeId {
        let (copy, gen) = match self.cfg.auth {
            Some(_) => (Some(req.clone()), self.auth_gen),
            None => (None, 0),
        };
        let x = Exchange::new(self.bounds());
        let kept = copy.is_some();
        let id = self.xs.open(xfer, owner, rpc_id, x, copy, gen);
        if kept && self.auth_wait {
            self.xs.park(id);
            return id;
        }
        let mut req = req;
        self.prove(id, &mut req);
        self.push(Action::Send(req));
        id
    }

    /// Books exchange `wire` for `owner` as [`Shared::open`] would have when it sent it
    /// (without OAuth: no copy kept, nothing held), for a request already sent: a plain
    /// tool call's, handed to the general path (`engine::core::plain`).
    pub(crate) fn book_sent(
        &mut self,
        wire: u64,
        owner: Owner,
        rpc_id: RequestId,
        host_result: bool,
    ) -> ExchangeId {
        let mut x = Exchange::new(self.bounds());
        x.host_result = host_result;
        self.xs.open(wire, owner, Some(rpc_id), x, None, 0)
    }

    /// A request carrying a DPoP-bound token gets a fresh proof (RFC 9449 §7.1): its `DPoP`
    /// header holds the JWS signing input, which the shell signs as the request leaves
    /// (`crate::auth::dpop`). The kept copy of the request (for a replay) has none; exchange
    /// `x` keeps the nonce the proof carried (to judge a `use_dpop_nonce` refusal).
    pub(crate) fn prove(&mut self, x: ExchangeId, req: &mut HttpRequest) {
        let Some(p) = self.dpop.as_mut() else { return };
        let Some(token) = req
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("authorization"))
            .and_then(|(_, v)| v.strip_prefix("DPoP "))
        else {
            return;
        };
        let proof = p.proof(req.method.as_str(), &req.url, Some(token), self.now);
        let carried = p.nonce(&req.url).map(str::to_string);
        req.remove_header(crate::auth::dpop::PROOF_HEADER);
        req.headers
            .push((crate::auth::dpop::PROOF_HEADER.to_string(), proof));
        if let Some(slot) = self.xs.get_mut(x) {
            slot.proof_nonce = carried;
        }
    }

    /// Sends a raw HTTP request that carries no JSON-RPC request (GET streams, DELETE,
    /// notification and response POSTs).
    #[cfg(feature = "legacy")]
    pub(crate) fn send_raw(&mut self, owner: Owner, req: HttpRequest) -> ExchangeId {
        self.open(req.id, owner, None, req)
    }

    /// A call no longer wants the response to JSON-RPC `id`: a resumption of its stream,
    /// scheduled or open, ends too.
    pub(crate) fn abandon(&mut self, id: &RequestId) {
        if let Some(x) = self.xs.abandon(id) {
            self.cancel_exchange(x);
        }
    }

    /// A GET on the server URL for a 2025-11-25 SSE stream (the session's GET stream, or a
    /// response stream's resumption): the session's headers, and `Last-Event-ID` to resume
    /// after that event (2025-11-25 `basic/transports` "Resumability and Redelivery").
    #[cfg(feature = "legacy")]
    pub(crate) fn legacy_stream_get(&mut self, last_event_id: Option<&str>) -> HttpRequest {
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
    pub(crate) fn cancel_exchange(&mut self, xfer: ExchangeId) {
        if let Some(wire) = self.xs.remove(xfer) {
            self.push(Action::Cancel(wire));
        }
    }

    /// Forgets an exchange that ended by itself (no cancel action).
    pub(crate) fn forget_exchange(&mut self, xfer: ExchangeId) {
        self.xs.remove(xfer);
    }

    /// Records an owner's next deadline (or none).
    pub(crate) fn set_deadline(&mut self, owner: &Owner, at: Option<Millis>) {
        self.timers.set(owner, at);
    }

    /// A new progress token for `owner`.
    pub(crate) fn new_progress_token(&mut self, owner: Owner) -> Value {
        let t = format!("p-{}", self.next_id());
        self.progress.insert(t.clone(), owner);
        Value::String(t)
    }

    pub(crate) fn drop_progress_token(&mut self, token: &Option<Value>) {
        if let Some(Value::String(t)) = token {
            self.progress.remove(t);
        }
    }
}
