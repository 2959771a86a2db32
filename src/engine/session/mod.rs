//! The era of the server and, for the older eras, the session.
//!
//! `protocolVersion: 'auto'` (spec 2026-07-28 `basic/transports/streamable-http.mdx`
//! "Backward Compatibility", protocol notes §1.8): a modern request goes first (the host's
//! first list request or `server/discover`, `detect`).
//! A recognised modern error means a modern server (no fallback); a 400/404/405 without
//! one means a legacy server: `initialize` (2025 Streamable HTTP); if that fails with
//! 400/404/405 too, the 2024-11-05 HTTP+SSE transport (a GET stream whose first event
//! names the POST endpoint). The era is remembered for the client's life.
//!
//! Legacy sessions: `Mcp-Session-Id` from the `initialize` response, echoed on every
//! request; `notifications/initialized`; the optional GET stream for server messages
//! (405 is fine), resumed with `Last-Event-ID` after a drop (bounded); a 404 on the
//! session starts a new one.
//!
//! Without the `legacy` feature (the `mcp-wasm-client/modern` build) only the first step
//! is left: a server that does not answer `server/discover` as a modern one is refused
//! with an `UnsupportedProtocolVersion` error that names the era it seems to speak.

use crate::engine::call::{Call, CallInput, CallPolicy};
#[cfg(feature = "legacy")]
use crate::engine::ids::ExchangeId;
use crate::engine::shared::{Era, Owner, Shared};
use crate::error::{Error, ErrorKind};
#[cfg(feature = "legacy")]
use crate::http::request::{HttpMethod, HttpRequest};
use crate::protocol::is_modern_version;
use crate::protocol::legacy::InitializeResult;
#[cfg(feature = "legacy")]
use crate::protocol::HTTP_SSE_PROTOCOL_VERSION;
use crate::time::Millis;

mod detect;
pub(crate) use detect::{FirstAnswer, FirstRequest};
#[cfg(feature = "legacy")]
mod get_stream;
#[cfg(not(feature = "legacy"))]
pub(crate) use detect::legacy_era_error;
#[cfg(feature = "legacy")]
mod legacy;

/// The session's exchanges (and timers). Without the `legacy` feature only `Probe` is
/// ever used: the others stay so that the routing code reads the same in both builds.
#[cfg_attr(not(feature = "legacy"), allow(dead_code))]
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
    #[cfg(feature = "legacy")]
    Initializing {
        call: Call,
        over_sse: bool,
    },
    /// Waiting for the 2024-11-05 `endpoint` event, until `until` (requestTimeoutMs): a
    /// server that never sends it (or a GET that never answers) fails the waiting calls.
    #[cfg(feature = "legacy")]
    OpeningSse {
        xfer: ExchangeId,
        until: Millis,
    },
    /// `initialize` succeeded; `notifications/initialized` (exchange `xfer`) is in flight.
    /// Requests wait for its answer (202): a server may set the session up in its handler
    /// (server-everything registers its task tools there), so a request sent alongside
    /// could race it. `until` is the backstop when no answer comes.
    #[cfg(feature = "legacy")]
    Acknowledging {
        xfer: ExchangeId,
        until: Millis,
    },
    Ready,
}

pub(crate) struct Session {
    phase: Phase,
    /// The operation whose request is the probe in flight (none: `server/discover`).
    probe_for: Option<FirstRequest>,
    /// Set once the era is known (detection is not repeated).
    pub era_known: bool,
    /// The `initialize` answer (legacy eras).
    pub init: Option<InitializeResult>,
    /// Detected by probing (so a failed `initialize` may still try HTTP+SSE).
    #[cfg(feature = "legacy")]
    auto: bool,
    #[cfg(feature = "legacy")]
    get_stream: Option<ExchangeId>,
    #[cfg(feature = "legacy")]
    get_attempts: u32,
    #[cfg(feature = "legacy")]
    get_retry_at: Option<Millis>,
    /// Last SSE event id and retry of the GET stream.
    pub get_last_event_id: Option<String>,
    pub get_retry_ms: Option<u64>,
    #[cfg(feature = "legacy")]
    get_disabled: bool,
    /// New sessions started in a row by a 404 to a GET stream that never opened (`Core::
    /// get_stream_gone`): bounded, so that a server that refuses every GET with 404 does
    /// not make the client start sessions for ever.
    #[cfg(feature = "legacy")]
    pub(crate) get_gone: u8,
    /// The GET stream in flight answered with a success (its messages are activity).
    #[cfg(feature = "legacy")]
    get_open: bool,
    #[cfg(feature = "legacy")]
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
            probe_for: None,
            era_known: false,
            init: None,
            #[cfg(feature = "legacy")]
            auto: false,
            #[cfg(feature = "legacy")]
            get_stream: None,
            #[cfg(feature = "legacy")]
            get_attempts: 0,
            #[cfg(feature = "legacy")]
            get_retry_at: None,
            get_last_event_id: None,
            get_retry_ms: None,
            #[cfg(feature = "legacy")]
            get_disabled: false,
            #[cfg(feature = "legacy")]
            get_gone: 0,
            #[cfg(feature = "legacy")]
            get_open: false,
            #[cfg(feature = "legacy")]
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
    /// `first` is the operation that made it start, when its request may be the probe.
    pub(crate) fn start(&mut self, sh: &mut Shared, first: Option<FirstRequest>) {
        if !self.is_idle() {
            return;
        }
        match sh.era {
            _ if !self.era_known => match &sh.cfg.version {
                crate::engine::config::VersionChoice::Auto => self.probe(sh, first),
                #[cfg(feature = "legacy")]
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
                #[cfg(feature = "legacy")]
                crate::engine::config::VersionChoice::Pinned(v) => {
                    let v = v.clone();
                    self.initialize(sh, &v, false)
                }
                // `Config::validate` refused every other version.
                #[cfg(not(feature = "legacy"))]
                crate::engine::config::VersionChoice::Pinned(_) => {}
            },
            Era::Modern => self.phase = Phase::Ready,
            #[cfg(feature = "legacy")]
            Era::Legacy => {
                let v = sh.version.clone();
                self.initialize(sh, &v, false)
            }
            #[cfg(feature = "legacy")]
            Era::HttpSse => self.open_sse(sh),
        }
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
            #[cfg(feature = "legacy")]
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

    #[cfg(feature = "legacy")]
    fn fail(&mut self, sh: &mut Shared, e: Error) -> Outcome {
        self.phase = Phase::Unknown;
        if let Some(x) = self.sse_stream.take() {
            sh.cancel_exchange(x);
        }
        Outcome::Failed(e)
    }

    /// Ends the session (legacy: `DELETE` with the session id; every stream closed).
    #[cfg(feature = "legacy")]
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

    /// Ends the session (the modern era has none: nothing to end).
    #[cfg(not(feature = "legacy"))]
    pub(crate) fn close(&mut self, _sh: &mut Shared) {}

    pub(crate) fn deadline(&self, part: SessionPart) -> Option<Millis> {
        match (&self.phase, part) {
            (Phase::Probing(c), SessionPart::Probe) => c.deadline(),
            #[cfg(feature = "legacy")]
            (Phase::Initializing { call, .. }, SessionPart::Init) => call.deadline(),
            #[cfg(feature = "legacy")]
            (Phase::Acknowledging { until, .. }, SessionPart::Initialized) => Some(*until),
            #[cfg(feature = "legacy")]
            (Phase::OpeningSse { until, .. }, SessionPart::SseStream) => Some(*until),
            #[cfg(feature = "legacy")]
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
            #[cfg(feature = "legacy")]
            (SessionPart::GetStream | SessionPart::SseStream, CallInput::StreamClosed) => {
                self.on_stream_end(sh, part, None)
            }
            #[cfg(feature = "legacy")]
            (SessionPart::GetStream | SessionPart::SseStream, CallInput::Failed(e)) => {
                self.on_stream_end(sh, part, Some(e))
            }
            #[cfg(feature = "legacy")]
            (SessionPart::Initialized, CallInput::Failed(e)) => {
                self.on_initialized_ack(sh, Some(&e))
            }
            #[cfg(feature = "legacy")]
            (SessionPart::Initialized, _) => self.on_initialized_ack(sh, None),
            _ => Outcome::Pending,
        }
    }

    pub(crate) fn on_timer(&mut self, sh: &mut Shared, part: SessionPart) -> Outcome {
        match part {
            SessionPart::Probe | SessionPart::Init => self.on_call(sh, part, CallInput::Timer),
            #[cfg(feature = "legacy")]
            SessionPart::Initialized => match self.phase {
                Phase::Acknowledging { until, .. } if until <= sh.now => {
                    let e = Error::timeout("no answer to notifications/initialized");
                    self.on_initialized_ack(sh, Some(&e))
                }
                _ => Outcome::Pending,
            },
            #[cfg(feature = "legacy")]
            SessionPart::GetStream => self.on_get_timer(sh),
            #[cfg(feature = "legacy")]
            SessionPart::SseStream => match self.phase {
                Phase::OpeningSse { until, .. } if until <= sh.now => {
                    let e = Error::timeout(format!(
                        "no endpoint event on the HTTP+SSE stream within {} ms",
                        sh.cfg.request_timeout_ms
                    ));
                    self.fail(sh, e)
                }
                _ => Outcome::Pending,
            },
            _ => Outcome::Pending,
        }
    }

    /// Stops whatever detection is in flight (the client closed).
    pub(crate) fn cancel(&mut self, sh: &mut Shared) {
        self.probe_for = None;
        match std::mem::replace(&mut self.phase, Phase::Unknown) {
            Phase::Probing(mut c) => c.cancel(sh),
            #[cfg(feature = "legacy")]
            Phase::Initializing { call: mut c, .. } => c.cancel(sh),
            #[cfg(feature = "legacy")]
            Phase::OpeningSse { xfer, .. } | Phase::Acknowledging { xfer, .. } => {
                sh.cancel_exchange(xfer)
            }
            p @ Phase::Ready => self.phase = p,
            Phase::Unknown => {}
        }
    }
}

/// The legacy session's entry points as the modern-only build sees them: no legacy
/// session ever starts, so each is a no-op that the optimizer folds away, and the routing
/// and core code read the same in both builds.
#[cfg(not(feature = "legacy"))]
impl Session {
    pub(crate) fn on_get_status(&mut self, _sh: &mut Shared, _status: u16) {}
    pub(crate) fn on_get_activity(&mut self) {}
    pub(crate) fn on_online(&mut self, _sh: &mut Shared) {}
    pub(crate) fn expire(&mut self, _sh: &mut Shared) {}
    pub(crate) fn on_stream_end(
        &mut self,
        _sh: &mut Shared,
        _part: SessionPart,
        _err: Option<Error>,
    ) -> Outcome {
        Outcome::Pending
    }
    pub(crate) fn on_initialized_ack(&mut self, _sh: &mut Shared, _f: Option<&Error>) -> Outcome {
        Outcome::Pending
    }
    pub(crate) fn on_endpoint(&mut self, _sh: &mut Shared, _data: &str) -> Outcome {
        Outcome::Pending
    }
    pub(crate) fn not_endpoint(&mut self, _sh: &mut Shared) -> Outcome {
        Outcome::Pending
    }
    pub(crate) fn send_notification(
        &self,
        _sh: &mut Shared,
        _method: &str,
        _params: Option<&crate::json::Map>,
    ) {
    }
    pub(crate) fn post_raw(&self, _sh: &mut Shared, _body: String) {}
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
