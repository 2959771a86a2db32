//! The 2025-11-25 GET stream for server messages (`basic/transports` "Listening for
//! Messages from the Server"): optional (405 is fine), resumed with `Last-Event-ID`
//! after a drop, reopened a bounded number of times with backoff.

use super::{owner, Outcome, Phase, Session, SessionPart};
use crate::engine::shared::Shared;
use crate::error::Error;

/// Reconnection attempts of the GET stream before giving up on it.
const GET_STREAM_MAX_ATTEMPTS: u32 = 8;

impl Session {
    /// Opens the GET stream, resuming after the last event id seen (if any).
    pub(super) fn open_get(&mut self, sh: &mut Shared) {
        let req = sh.legacy_stream_get(self.get_last_event_id.as_deref());
        self.get_stream = Some(sh.send_raw(owner(SessionPart::GetStream), req));
        self.get_retry_at = None;
    }

    /// A message arrived on the GET stream: it is alive (not an error body of a refusal,
    /// which would reset the bound on its reopenings for ever).
    pub(crate) fn on_get_activity(&mut self) {
        if self.get_open {
            self.get_attempts = 0;
        }
    }

    /// The GET stream's answer head: 405 means the server offers none; a success, that
    /// this session's stream works (`get_gone` starts again).
    pub(crate) fn on_get_status(&mut self, sh: &mut Shared, status: u16) {
        self.get_open = (200..300).contains(&status);
        if self.get_open {
            self.get_gone = 0;
        }
        if status == 405 {
            self.get_disabled = true;
            if let Some(x) = self.get_stream.take() {
                sh.forget_exchange(x);
            }
        }
    }

    /// The GET stream ended or failed: it is reopened after a backoff (bounded), unless the
    /// server declined it, the session is not ready or ended (404).
    pub(super) fn on_get_end(&mut self, sh: &mut Shared, err: Option<&Error>) -> Outcome {
        self.get_stream = None;
        if self.get_disabled || !matches!(self.phase, Phase::Ready) || !sh.era.is_legacy() {
            return Outcome::Pending;
        }
        if err.is_some_and(|e| e.status == Some(404)) {
            return Outcome::Pending;
        }
        // Offline, a drop is no failed attempt and nothing is retried: the stream reopens
        // when the network is back (issue 13; `Session::on_online`).
        if !sh.presence.online {
            self.get_retry_at = None;
            return Outcome::Pending;
        }
        if self.get_attempts >= GET_STREAM_MAX_ATTEMPTS {
            self.get_disabled = true;
            return Outcome::Pending;
        }
        self.get_attempts += 1;
        let backoff = 500u64
            .saturating_mul(1 << (self.get_attempts - 1).min(10))
            .min(30_000);
        let delay = self.get_retry_ms.unwrap_or(backoff).max(backoff / 2);
        self.get_retry_at = Some(sh.now.saturating_add(delay));
        Outcome::Pending
    }

    /// The GET stream's retry time came.
    pub(super) fn on_get_timer(&mut self, sh: &mut Shared) -> Outcome {
        if self.get_retry_at.is_some_and(|t| t <= sh.now) {
            // The retry is spent whatever happens now: left set, a disabled
            // stream's deadline stays due and `on_timer` would spin (fuzz: engine).
            self.get_retry_at = None;
            // Offline, it waits for the network (issue 13).
            if self.get_stream.is_none() && !self.get_disabled && sh.presence.online {
                self.open_get(sh);
            }
        }
        Outcome::Pending
    }

    /// Back online (issue 13): a GET stream that dropped reopens at once, its back-off
    /// reset.
    pub(crate) fn on_online(&mut self, sh: &mut Shared) {
        let ready = matches!(self.phase, Phase::Ready) && sh.era.is_legacy();
        if ready && self.get_stream.is_none() && !self.get_disabled {
            self.get_attempts = 0;
            self.open_get(sh);
        }
    }
}
