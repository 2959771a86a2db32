//! The legacy eras' session (feature `legacy`): `initialize` and
//! `notifications/initialized` (2025-11-25 `basic/lifecycle`), the session id and its
//! expiry (2025-11-25 `basic/transports` "Session Management"), the 2024-11-05 HTTP+SSE
//! stream and its `endpoint` event, and the POSTs that expect no response.

use super::{init_policy, owner, Outcome, Phase, Session, SessionPart};
use crate::engine::actions::Action;
use crate::engine::call::{Call, CallOutcome};
use crate::engine::ids::ExchangeId;
use crate::engine::shared::{Era, Shared};
use crate::error::{Error, Result};
use crate::http::request::{legacy_post_headers, HttpMethod, HttpRequest, Params};
use crate::json::Map;
use crate::protocol::codes::is_modern_error;
use crate::protocol::jsonrpc::encode_notification;
use crate::protocol::legacy::{decode_initialize_result, legacy_capabilities};
use crate::protocol::HTTP_SSE_PROTOCOL_VERSION;

impl Session {
    pub(super) fn initialize(&mut self, sh: &mut Shared, version: &str, over_sse: bool) {
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

    pub(super) fn open_sse(&mut self, sh: &mut Shared) {
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
        let until = sh.now.saturating_add(sh.cfg.request_timeout_ms);
        self.phase = Phase::OpeningSse { xfer: x, until };
    }

    pub(super) fn on_initialized(
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
                let framed = sh.request("logging/setLevel", Params::of(&p), &[], None, None, None);
                sh.send_request(owner(SessionPart::Aux), framed);
            }
        }
        if sh.era == Era::Legacy && !self.get_disabled {
            self.get_attempts = 0;
            self.open_get(sh);
        }
        Outcome::Ready
    }

    /// POSTs a notification (legacy eras), fire and forget.
    pub(crate) fn send_notification(&self, sh: &mut Shared, method: &str, params: Option<&Map>) {
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
                body: Some(body.into_bytes()),
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

    /// An event other than `endpoint` on the HTTP+SSE stream. The first must be `endpoint`
    /// (2024-11-05 `basic/transports` "HTTP with SSE": "the server MUST send an `endpoint`
    /// event"); later ones of unknown types are ignored.
    pub(crate) fn not_endpoint(&mut self, sh: &mut Shared) -> Outcome {
        if !matches!(self.phase, Phase::OpeningSse { .. }) {
            return Outcome::Pending;
        }
        self.fail(
            sh,
            Error::protocol("the HTTP+SSE stream's first event is not `endpoint`"),
        )
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
        self.start(sh, None);
    }
}
