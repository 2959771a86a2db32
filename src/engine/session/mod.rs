//! The era of the server and, for the older eras, the session.
//!
//! `protocolVersion: 'auto'` (spec 2026-07-28 `basic/transports/streamable-http.mdx`
//! "Backward Compatibility", protocol notes §1.8): a modern `server/discover` goes first.
//! A recognised modern error means a modern server (no fallback); a 400/404/405 without
//! one means a legacy server: `initialize` (2025 Streamable HTTP); if that fails with
//! 400/404/405 too, the 2024-11-05 HTTP+SSE transport (a GET stream whose first event
//! names the POST endpoint). The era is remembered for the client's life.
//!
//! Legacy sessions: `Mcp-Session-Id` from the `initialize` response, echoed on every
//! request; `notifications/initialized`; the optional GET stream for server messages
//! (405 is fine), resumed with `Last-Event-ID` after a drop (bounded); a 404 on the
//! session starts a new one.

use crate::engine::actions::Action;
use crate::engine::call::{Call, CallInput, CallOutcome, CallPolicy};
use crate::engine::ids::ExchangeId;
use crate::engine::shared::{Era, Owner, Shared};
use crate::error::{Error, ErrorKind, Result};
use crate::http::request::{legacy_post_headers, HttpMethod, HttpRequest};
use crate::protocol::codes::is_modern_error;
use crate::protocol::jsonrpc::encode_notification;
use crate::protocol::legacy::{decode_initialize_result, legacy_capabilities, InitializeResult};
use crate::protocol::{is_modern_version, HTTP_SSE_PROTOCOL_VERSION};
use crate::time::Millis;
use serde_json::{Map, Value};

mod detect;
mod get_stream;

/// The session's exchanges (and timers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum SessionPart {
    Probe,
    Init,
    /// The 2025 GET stream for server messages.
    GetStream,
    /// The 2024-11-05 SSE stream (it carries every server message of that transport).
    SseStream,
    /// The `notifications/initialized` POST: the session is ready when it has ended.
    Initialized,
    /// Fire-and-forget POSTs: notifications, responses to server requests, DELETE.
    Aux,
    /// Asks of server requests (legacy eras).
    Requests,
}

pub(crate) fn owner(p: SessionPart) -> Owner {
    Owner::Session(p)
}

/// What a session event led to.
pub(crate) enum Outcome {
    Pending,
    /// The era is known and the session usable: parked operations may start.
    Ready,
    /// Detection or initialization failed: parked operations fail with this.
    Failed(Error),
}

enum Phase {
    /// The era is not known yet (or the session was lost).
    Unknown,
    Probing(Call),
    Initializing {
        call: Call,
        over_sse: bool,
    },
    /// Waiting for the 2024-11-05 `endpoint` event.
    OpeningSse {
        xfer: ExchangeId,
    },
    /// `initialize` succeeded; `notifications/initialized` (exchange `xfer`) is in flight.
    /// Requests wait for its answer (202): a server may set the session up in its handler
    /// (server-everything registers its task tools there), so a request sent alongside
    /// could race it. `until` is the backstop when no answer comes.
    Acknowledging {
        xfer: ExchangeId,
        until: Millis,
    },
    Ready,
}

pub(crate) struct Session {
    phase: Phase,
    /// Set once the era is known (detection is not repeated).
    pub era_known: bool,
    /// The `initialize` answer (legacy eras).
    pub init: Option<InitializeResult>,
    /// Detected by probing (so a failed `initialize` may still try HTTP+SSE).
    auto: bool,
    get_stream: Option<ExchangeId>,
    get_attempts: u32,
    get_retry_at: Option<Millis>,
    /// Last SSE event id and retry of the GET stream.
    pub get_last_event_id: Option<String>,
    pub get_retry_ms: Option<u64>,
    get_disabled: bool,
    sse_stream: Option<ExchangeId>,
    /// Owners whose request failed with 404 on an ended session, waiting for a new one.
    pub reinit_waiters: Vec<Owner>,
}

fn init_policy(sh: &Shared) -> CallPolicy {
    CallPolicy::internal(sh.cfg.request_timeout_ms, false)
}

impl Session {
    pub(crate) fn new() -> Session {
        Session {
            phase: Phase::Unknown,
            era_known: false,
            init: None,
            auto: false,
            get_stream: None,
            get_attempts: 0,
            get_retry_at: None,
            get_last_event_id: None,
            get_retry_ms: None,
            get_disabled: false,
            sse_stream: None,
            reinit_waiters: Vec::new(),
        }
    }

    /// A session that is ready at once (a pinned modern version).
    pub(crate) fn ready_modern() -> Session {
        let mut s = Session::new();
        s.phase = Phase::Ready;
        s.era_known = true;
        s
    }

    pub(crate) fn is_ready(&self) -> bool {
        matches!(self.phase, Phase::Ready)
    }

    pub(crate) fn is_idle(&self) -> bool {
        matches!(self.phase, Phase::Unknown)
    }

    /// Starts detection or initialization, as the configuration and what is known say.
    pub(crate) fn start(&mut self, sh: &mut Shared) {
        if !self.is_idle() {
            return;
        }
        match sh.era {
            _ if !self.era_known => match &sh.cfg.version {
                crate::engine::config::VersionChoice::Auto => self.probe(sh),
                crate::engine::config::VersionChoice::Pinned(v)
                    if v == HTTP_SSE_PROTOCOL_VERSION =>
                {
                    self.open_sse(sh)
                }
                crate::engine::config::VersionChoice::Pinned(v) if is_modern_version(v) => {
                    sh.era = Era::Modern;
                    self.era_known = true;
                    self.phase = Phase::Ready;
                }
                crate::engine::config::VersionChoice::Pinned(v) => {
                    let v = v.clone();
                    self.initialize(sh, &v, false)
                }
            },
            Era::Modern => self.phase = Phase::Ready,
            Era::Legacy => {
                let v = sh.version.clone();
                self.initialize(sh, &v, false)
            }
            Era::HttpSse => self.open_sse(sh),
        }
    }

    fn initialize(&mut self, sh: &mut Shared, version: &str, over_sse: bool) {
        sh.era = if over_sse { Era::HttpSse } else { Era::Legacy };
        sh.version = version.to_string();
        sh.session_id = None;
        let mut p = Map::new();
        p.insert("protocolVersion".into(), version.into());
        p.insert(
            "capabilities".into(),
            legacy_capabilities(&sh.cfg.client_capabilities()),
        );
        p.insert("clientInfo".into(), sh.cfg.client_info.clone());
        let mut c = Call::new("initialize", p, Vec::new(), init_policy(sh));
        c.start(sh, &owner(SessionPart::Init));
        self.phase = Phase::Initializing { call: c, over_sse };
    }

    fn open_sse(&mut self, sh: &mut Shared) {
        sh.era = Era::HttpSse;
        sh.post_url = None;
        let mut headers = vec![("Accept".to_string(), "text/event-stream".to_string())];
        headers.extend(sh.cfg.headers.iter().cloned());
        let id = sh.next_id();
        let req = HttpRequest {
            id,
            method: HttpMethod::Get,
            url: sh.cfg.url.clone(),
            headers,
            body: None,
            // EventSource cannot send custom headers (Authorization) nor show a 401: fetch
            // reads the stream then (2024-11-05 transport, same parser either way).
            event_source: sh.cfg.headers.is_empty() && sh.cfg.auth.is_none(),
        };
        let x = sh.send_raw(owner(SessionPart::SseStream), req);
        self.sse_stream = Some(x);
        self.phase = Phase::OpeningSse { xfer: x };
    }

    /// An exchange event of the probe or of `initialize`.
    pub(crate) fn on_call(
        &mut self,
        sh: &mut Shared,
        part: SessionPart,
        input: CallInput,
    ) -> Outcome {
        match (&mut self.phase, part) {
            (Phase::Probing(c), SessionPart::Probe) => {
                let Some(out) = c.handle(sh, &owner(part), input) else {
                    return Outcome::Pending;
                };
                self.on_probe(sh, out)
            }
            (Phase::Initializing { call, over_sse }, SessionPart::Init) => {
                let over_sse = *over_sse;
                let Some(out) = call.handle(sh, &owner(part), input) else {
                    return Outcome::Pending;
                };
                self.on_initialized(sh, out, over_sse)
            }
            _ => Outcome::Pending,
        }
    }

    fn on_initialized(
        &mut self,
        sh: &mut Shared,
        out: Result<CallOutcome>,
        over_sse: bool,
    ) -> Outcome {
        let raw = match out {
            Ok(CallOutcome::Complete(raw)) => raw,
            Ok(CallOutcome::Task(_)) => {
                return self.fail(sh, Error::invalid_result("initialize answered a task"))
            }
            Err(e) => {
                let status = e.status.unwrap_or(0);
                if !over_sse
                    && self.auto
                    && matches!(status, 400 | 404 | 405)
                    && e.code.is_none_or(|c| !is_modern_error(c, status))
                {
                    self.open_sse(sh);
                    return Outcome::Pending;
                }
                return self.fail(sh, e);
            }
        };
        match decode_initialize_result(&raw, over_sse) {
            Err(e) => self.fail(sh, e),
            Ok(init) => {
                sh.version = init.protocol_version.clone();
                sh.server_capabilities = Some(init.capabilities.clone());
                self.init = Some(init);
                self.era_known = true;
                let body = encode_notification("notifications/initialized", None);
                let xfer = self.post_as(sh, SessionPart::Initialized, body);
                let until = sh.now.saturating_add(sh.cfg.request_timeout_ms);
                self.phase = Phase::Acknowledging { xfer, until };
                Outcome::Pending
            }
        }
    }

    /// The `notifications/initialized` POST ended (`Err`: it failed), or its backstop
    /// passed: the session is ready. Lifecycle (2025-11-25 `basic/lifecycle`): the client
    /// sends requests after `initialized`; the HTTP answer is when the server has it.
    pub(crate) fn on_initialized_ack(
        &mut self,
        sh: &mut Shared,
        failed: Option<&Error>,
    ) -> Outcome {
        let Phase::Acknowledging { xfer, .. } = self.phase else {
            return Outcome::Pending;
        };
        // Still open only when the backstop fired: stop it.
        sh.cancel_exchange(xfer);
        if let Some(e) = failed {
            sh.push(Action::Warn {
                message: format!("notifications/initialized was not accepted: {}", e.message),
            });
        }
        self.phase = Phase::Ready;
        if let Some(level) = sh.cfg.log_level.clone() {
            let logging = self
                .init
                .as_ref()
                .is_some_and(|i| i.capabilities.get("logging").is_some());
            if logging {
                let mut p = Map::new();
                p.insert("level".into(), level.into());
                sh.send_request(
                    owner(SessionPart::Aux),
                    "logging/setLevel",
                    &p,
                    &[],
                    None,
                    None,
                    None,
                );
            }
        }
        if sh.era == Era::Legacy && !self.get_disabled {
            self.get_attempts = 0;
            self.open_get(sh);
        }
        Outcome::Ready
    }

    fn fail(&mut self, sh: &mut Shared, e: Error) -> Outcome {
        self.phase = Phase::Unknown;
        if let Some(x) = self.sse_stream.take() {
            sh.cancel_exchange(x);
        }
        Outcome::Failed(e)
    }

    /// POSTs a notification (legacy eras), fire and forget.
    pub(crate) fn send_notification(
        &self,
        sh: &mut Shared,
        method: &str,
        params: Option<&Map<String, Value>>,
    ) {
        let body = encode_notification(method, params);
        self.post_raw(sh, body);
    }

    /// POSTs a JSON-RPC message that expects no response (a notification or a response).
    pub(crate) fn post_raw(&self, sh: &mut Shared, body: String) {
        self.post_as(sh, SessionPart::Aux, body);
    }

    /// [`Session::post_raw`] for a given owner; the exchange id.
    fn post_as(&self, sh: &mut Shared, part: SessionPart, body: String) -> ExchangeId {
        let headers =
            legacy_post_headers(Some(&sh.version), sh.session_id.as_deref(), &sh.cfg.headers);
        let url = sh.post_url.clone().unwrap_or_else(|| sh.cfg.url.clone());
        let id = sh.next_id();
        sh.send_raw(
            owner(part),
            HttpRequest {
                id,
                method: HttpMethod::Post,
                url,
                headers,
                body: Some(body),
                event_source: false,
            },
        )
    }

    /// The GET stream (or the 2024 SSE stream) ended or failed.
    pub(crate) fn on_stream_end(
        &mut self,
        sh: &mut Shared,
        part: SessionPart,
        err: Option<Error>,
    ) -> Outcome {
        match part {
            SessionPart::GetStream => self.on_get_end(sh, err.as_ref()),
            SessionPart::SseStream => {
                self.sse_stream = None;
                let e = err.unwrap_or_else(|| Error::network("the HTTP+SSE stream closed"));
                match self.phase {
                    Phase::OpeningSse { .. }
                    | Phase::Initializing { over_sse: true, .. }
                    | Phase::Acknowledging { .. } => {
                        self.phase = Phase::Unknown;
                        Outcome::Failed(e)
                    }
                    Phase::Ready if sh.era == Era::HttpSse => {
                        // The 2024 session lives on this stream: it is gone.
                        self.phase = Phase::Unknown;
                        Outcome::Failed(e)
                    }
                    _ => Outcome::Pending,
                }
            }
            _ => Outcome::Pending,
        }
    }

    /// The 2024 `endpoint` event.
    pub(crate) fn on_endpoint(&mut self, sh: &mut Shared, data: &str) -> Outcome {
        if !matches!(self.phase, Phase::OpeningSse { .. }) {
            return Outcome::Pending;
        }
        match crate::protocol::legacy::resolve_endpoint(&sh.cfg.url, data) {
            Ok(url) => {
                sh.post_url = Some(url);
                self.initialize(sh, HTTP_SSE_PROTOCOL_VERSION, true);
                Outcome::Pending
            }
            Err(e) => self.fail(sh, e),
        }
    }

    /// The session ended (a 404 with a session id): a new one starts.
    pub(crate) fn expire(&mut self, sh: &mut Shared) {
        if let Some(x) = self.get_stream.take() {
            sh.cancel_exchange(x);
        }
        if let Phase::Acknowledging { xfer, .. } = self.phase {
            sh.cancel_exchange(xfer);
        }
        sh.session_id = None;
        self.get_last_event_id = None;
        self.phase = Phase::Unknown;
        self.start(sh);
    }

    /// Ends the session (legacy: `DELETE` with the session id; every stream closed).
    pub(crate) fn close(&mut self, sh: &mut Shared) {
        // Requests that waited for a new session are not re-issued after close (their
        // operations were aborted first; fuzz: engine, `is_quiet` after close).
        self.reinit_waiters.clear();
        if let Some(x) = self.get_stream.take() {
            sh.cancel_exchange(x);
        }
        if let Some(x) = self.sse_stream.take() {
            sh.cancel_exchange(x);
        }
        if let (Era::Legacy, Some(sid)) = (&sh.era, sh.session_id.clone()) {
            let mut headers = vec![
                ("Mcp-Session-Id".to_string(), sid),
                ("MCP-Protocol-Version".into(), sh.version.clone()),
            ];
            headers.extend(sh.cfg.headers.iter().cloned());
            let id = sh.next_id();
            sh.send_raw(
                owner(SessionPart::Aux),
                HttpRequest {
                    id,
                    method: HttpMethod::Delete,
                    url: sh.cfg.url.clone(),
                    headers,
                    body: None,
                    event_source: false,
                },
            );
        }
        self.get_disabled = true;
        self.get_retry_at = None;
    }

    pub(crate) fn deadline(&self, part: SessionPart) -> Option<Millis> {
        match (&self.phase, part) {
            (Phase::Probing(c), SessionPart::Probe) => c.deadline(),
            (Phase::Initializing { call, .. }, SessionPart::Init) => call.deadline(),
            (Phase::Acknowledging { until, .. }, SessionPart::Initialized) => Some(*until),
            (Phase::Ready, SessionPart::GetStream) if self.get_stream.is_none() => {
                self.get_retry_at
            }
            _ => None,
        }
    }

    /// One input for a part of the session: an exchange event or its timer (the shape
    /// every operation has: `ops::Operation::handle`).
    pub(crate) fn handle(
        &mut self,
        sh: &mut Shared,
        part: SessionPart,
        input: CallInput,
    ) -> Outcome {
        match (part, input) {
            (_, CallInput::Timer) => self.on_timer(sh, part),
            (SessionPart::Probe | SessionPart::Init, input) => self.on_call(sh, part, input),
            (SessionPart::GetStream | SessionPart::SseStream, CallInput::StreamClosed) => {
                self.on_stream_end(sh, part, None)
            }
            (SessionPart::GetStream | SessionPart::SseStream, CallInput::Failed(e)) => {
                self.on_stream_end(sh, part, Some(e))
            }
            (SessionPart::Initialized, CallInput::Failed(e)) => {
                self.on_initialized_ack(sh, Some(&e))
            }
            (SessionPart::Initialized, _) => self.on_initialized_ack(sh, None),
            _ => Outcome::Pending,
        }
    }

    pub(crate) fn on_timer(&mut self, sh: &mut Shared, part: SessionPart) -> Outcome {
        match part {
            SessionPart::Probe | SessionPart::Init => self.on_call(sh, part, CallInput::Timer),
            SessionPart::Initialized => match self.phase {
                Phase::Acknowledging { until, .. } if until <= sh.now => {
                    let e = Error::timeout("no answer to notifications/initialized");
                    self.on_initialized_ack(sh, Some(&e))
                }
                _ => Outcome::Pending,
            },
            SessionPart::GetStream => self.on_get_timer(sh),
            _ => Outcome::Pending,
        }
    }

    /// Stops whatever detection is in flight (the client closed).
    pub(crate) fn cancel(&mut self, sh: &mut Shared) {
        match std::mem::replace(&mut self.phase, Phase::Unknown) {
            Phase::Probing(mut c) | Phase::Initializing { call: mut c, .. } => c.cancel(sh),
            Phase::OpeningSse { xfer } | Phase::Acknowledging { xfer, .. } => {
                sh.cancel_exchange(xfer)
            }
            p @ Phase::Ready => self.phase = p,
            Phase::Unknown => {}
        }
    }
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

/// The error for operations that exist only in another era.
pub(crate) fn era_error(what: &str) -> Error {
    Error::new(ErrorKind::Capability, what.to_string())
}
