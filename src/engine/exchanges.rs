//! Requests in flight, with one owner: the HTTP exchanges, which JSON-RPC id each carries,
//! the exchanges held for authorization and their replays, the scheduled resumptions of
//! 2025-era response streams. Every way an exchange ends goes through [`Exchanges::remove`]
//! (or [`Exchanges::drop_owner`]), which removes every trace of it.
//!
//! An exchange keeps its id for its whole life: the id the owner holds. The HTTP request
//! carrying it (the "wire" id the shell reports events with) is the same number until an
//! OAuth replay sends it again under a fresh one; events of the request replaced are then
//! ignored.

use crate::engine::exchange::Exchange;
use crate::engine::ids::{ExchangeId, ResumeId};
use crate::engine::shared::Owner;
use crate::engine::small_map::SmallMap;
use crate::http::request::HttpRequest;
use crate::protocol::jsonrpc::RequestId;
use crate::sorted_map::SortedMap;

/// An exchange in flight.
pub(crate) struct Slot {
    owner: Owner,
    /// The JSON-RPC id the request carries, if it is a request.
    rpc_id: Option<RequestId>,
    /// The id of the HTTP request carrying it now (the exchange's own id until a replay).
    wire: u64,
    /// Refused with 401/403 and waiting for a token (`engine::core::auth`): no request on
    /// the wire.
    held: bool,
    pub(crate) exchange: Exchange,
    /// True once this exchange's own response (or failure) was delivered.
    pub(crate) settled: bool,
    /// Legacy eras: the last SSE event id and `retry` seen on this stream (resumption).
    pub(crate) last_event_id: Option<String>,
    pub(crate) retry_ms: Option<u64>,
    /// Resumptions so far of the request this exchange carries.
    pub(crate) resumes: u32,
    /// HTTP+SSE: the POST was accepted; the response comes on the SSE stream.
    pub(crate) accepted: bool,
    /// Legacy eras: the session it was sent in ([`Exchanges::session`] then).
    pub(crate) session: u32,
    /// With OAuth configured: the request as sent, replayed with a token after a 401 or
    /// `403 insufficient_scope` (`engine::core::auth`).
    request: Option<HttpRequest>,
    /// The token generation it was sent with, and how many flows it went through.
    auth_gen: u32,
    auth_rounds: u8,
    /// `WWW-Authenticate` of a 401/403 answer (error data for the host).
    pub(crate) www_authenticate: Option<String>,
    /// `Retry-After` of the answer, in milliseconds (error data for the host).
    pub(crate) retry_after_ms: Option<u64>,
    /// The DPoP nonce the request's proof carried (`Core::auth_nonce_refusal`).
    pub(crate) proof_nonce: Option<String>,
}

impl Slot {
    pub(crate) fn owner(&self) -> &Owner {
        &self.owner
    }

    pub(crate) fn rpc_id(&self) -> Option<&RequestId> {
        self.rpc_id.as_ref()
    }
}

/// Resumptions exist only with the `legacy` feature (2025-11-25 "Resumability").
const LEGACY: bool = cfg!(feature = "legacy");

/// A scheduled resumption of a legacy response stream (`Last-Event-ID`).
#[cfg_attr(not(feature = "legacy"), allow(dead_code))]
pub(crate) struct Resume {
    pub owner: Owner,
    pub rpc_id: RequestId,
    pub last_event_id: String,
    pub attempts: u32,
}

/// Every request in flight.
#[derive(Default)]
pub(crate) struct Exchanges {
    slots: SortedMap<ExchangeId, Box<Slot>>,
    /// In-flight JSON-RPC ids → the exchange carrying them.
    pending: SortedMap<RequestId, ExchangeId>,
    /// Replayed exchanges: the wire id of the request carrying them now → the exchange.
    replays: SortedMap<u64, ExchangeId>,
    /// 2025-11-25: JSON-RPC ids whose response stream is being resumed → the resumption's
    /// token (scheduled, or its `Last-Event-ID` GET open). The resumption belongs to no
    /// call's exchange, so a call that ends withdraws its id here ([`Exchanges::abandon`]);
    /// a resumption whose id is gone is not sent.
    resuming: SmallMap<RequestId, ResumeId>,
    /// Scheduled resumptions by token.
    resumes: SmallMap<ResumeId, Resume>,
    /// Legacy eras: the session requests are sent in now, counted from 0 (a 404 tells a
    /// session ended only when it is about this one: `engine::core::routing`).
    pub(crate) session: u32,
}

impl Exchanges {
    /// Books an exchange for `owner`, sent as HTTP request `wire` (its id has the same
    /// number).
    pub(crate) fn open(
        &mut self,
        wire: u64,
        owner: Owner,
        rpc_id: Option<RequestId>,
        exchange: Exchange,
        request: Option<HttpRequest>,
        auth_gen: u32,
    ) -> ExchangeId {
        let id = ExchangeId(wire);
        if let Some(r) = &rpc_id {
            self.pending.insert(r.clone(), id);
        }
        let slot = Slot {
            owner,
            rpc_id,
            wire,
            held: false,
            exchange,
            settled: false,
            last_event_id: None,
            retry_ms: None,
            resumes: 0,
            accepted: false,
            session: self.session,
            request,
            auth_gen,
            auth_rounds: 0,
            www_authenticate: None,
            retry_after_ms: None,
            proof_nonce: None,
        };
        self.slots.insert(id, Box::new(slot));
        id
    }

    /// The exchange an HTTP event with this request id belongs to (none for a request
    /// replaced by a replay, or one held for authorization).
    pub(crate) fn by_wire(&self, wire: u64) -> Option<ExchangeId> {
        let x = (self.replays.get(&wire).copied()).unwrap_or(ExchangeId(wire));
        self.slots
            .get(&x)
            .is_some_and(|s| s.wire == wire && !s.held)
            .then_some(x)
    }

    /// An exchange on the wire (not held).
    pub(crate) fn get(&self, x: ExchangeId) -> Option<&Slot> {
        self.slots.get(&x).map(|s| &**s).filter(|s| !s.held)
    }

    pub(crate) fn get_mut(&mut self, x: ExchangeId) -> Option<&mut Slot> {
        self.slots.get_mut(&x).map(|s| &mut **s).filter(|s| !s.held)
    }

    /// The exchange carrying JSON-RPC request `id`.
    pub(crate) fn route(&self, id: &RequestId) -> Option<ExchangeId> {
        self.pending.get(id).copied()
    }

    /// Exchange `x` got its response: its JSON-RPC id is no longer in flight, nor resumed.
    pub(crate) fn settle(&mut self, x: ExchangeId) {
        let Some(slot) = self.slots.get_mut(&x) else {
            return;
        };
        slot.settled = true;
        if let Some(id) = slot.rpc_id.clone() {
            self.pending.remove(&id);
            // (`LEGACY`: no resumptions in the modern-only build; these uses fold away.)
            if LEGACY {
                self.resuming.remove(&id);
            }
        }
    }

    /// Forgets exchange `x`; the request to cancel on the wire, when it was there.
    pub(crate) fn remove(&mut self, x: ExchangeId) -> Option<u64> {
        let slot = self.slots.remove(&x)?;
        if let Some(id) = &slot.rpc_id {
            if self.pending.get(id) == Some(&x) {
                self.pending.remove(id);
            }
        }
        if slot.wire != x.0 {
            self.replays.remove(&slot.wire);
        }
        (!slot.held).then_some(slot.wire)
    }

    /// The JSON-RPC ids `owner`'s requests on the wire carry, until answered.
    pub(crate) fn unanswered(&self, owner: &Owner) -> Vec<RequestId> {
        (self.slots.values())
            .filter(|s| &s.owner == owner && !s.settled && !s.held)
            .filter_map(|s| s.rpc_id.clone())
            .collect()
    }

    /// Every exchange on the books.
    pub(crate) fn ids(&self) -> Vec<ExchangeId> {
        self.slots.keys().copied().collect()
    }

    /// Removes what `owner` still has in flight: its exchanges (returned, to cancel) and
    /// its scheduled resumptions (their tokens returned, to drop their timers). Their
    /// JSON-RPC ids are no longer resumed.
    pub(crate) fn drop_owner(&mut self, owner: &Owner) -> (Vec<ExchangeId>, Vec<ResumeId>) {
        let xs: Vec<ExchangeId> = (self.slots.iter())
            .filter(|(_, s)| &s.owner == owner)
            .map(|(x, _)| *x)
            .collect();
        if !LEGACY {
            return (xs, Vec::new());
        }
        for x in &xs {
            if let Some(id) = self.slots.get(x).and_then(|s| s.rpc_id.clone()) {
                self.resuming.remove(&id);
            }
        }
        let tokens: Vec<ResumeId> = (self.resumes.iter())
            .filter(|(_, r)| &r.owner == owner)
            .map(|(t, _)| *t)
            .collect();
        for t in &tokens {
            if let Some(r) = self.resumes.remove(t) {
                if self.resuming.get(&r.rpc_id) == Some(t) {
                    self.resuming.remove(&r.rpc_id);
                }
            }
        }
        (xs, tokens)
    }

    // ---- authorization: hold and replay ----

    /// Holds exchange `x` (refused with 401/403) for a replay once a token is there:
    /// the token generation and the bearer it was sent with. `None` when it cannot be
    /// replayed (no copy of the request, already answered, or out of flows).
    pub(crate) fn hold(
        &mut self,
        x: ExchangeId,
        max_rounds: u8,
    ) -> Option<(u32, Option<&HttpRequest>)> {
        let slot = self.slots.get_mut(&x).filter(|s| !s.held)?;
        if slot.request.is_none() || slot.settled || slot.auth_rounds >= max_rounds {
            return None;
        }
        slot.auth_rounds += 1;
        slot.held = true;
        Some((slot.auth_gen, slot.request.as_ref()))
    }

    /// Holds exchange `x` before its request was sent (announced tokens are being read):
    /// it leaves with the next replay, and no flow round is counted.
    pub(crate) fn park(&mut self, x: ExchangeId) {
        if let Some(s) = self.slots.get_mut(&x) {
            s.held = true;
        }
    }

    /// The held exchanges, in the order their requests were sent.
    pub(crate) fn held(&self) -> Vec<ExchangeId> {
        // Sorted as plain `u64` wire ids, mapped back after (a sort of (wire, id) pairs is
        // another sort in the wasm). A held slot's wire is its id, or a replay's entry.
        let mut wires: Vec<u64> = (self.slots.values())
            .filter(|s| s.held)
            .map(|s| s.wire)
            .collect();
        wires.sort_unstable();
        (wires.into_iter())
            .map(|w| self.replays.get(&w).copied().unwrap_or(ExchangeId(w)))
            .collect()
    }

    /// A held exchange goes back on the books as it was (to fail it).
    pub(crate) fn unhold(&mut self, x: ExchangeId) {
        if let Some(s) = self.slots.get_mut(&x) {
            s.held = false;
        }
    }

    /// Sends held exchange `x` again as HTTP request `wire`, with `authorization` (the
    /// current token's header value) and token generation `gen`; the request to send.
    pub(crate) fn replay(
        &mut self,
        x: ExchangeId,
        wire: u64,
        authorization: Option<&str>,
        gen: u32,
        exchange: Exchange,
    ) -> Option<HttpRequest> {
        let slot = self.slots.get_mut(&x).filter(|s| s.held)?;
        let mut req = slot.request.take()?;
        req.id = wire;
        req.remove_header("authorization");
        if let Some(a) = authorization {
            req.headers.push(("Authorization".into(), a.to_string()));
            // `EventSource` cannot send headers: the 2024 stream is read with fetch.
            req.event_source = false;
        }
        slot.request = Some(req.clone());
        slot.auth_gen = gen;
        slot.exchange = exchange;
        slot.www_authenticate = None;
        slot.held = false;
        if slot.wire != x.0 {
            self.replays.remove(&slot.wire);
        }
        slot.wire = wire;
        self.replays.insert(wire, x);
        Some(req)
    }

    // ---- 2025-11-25 resumptions ----

    /// Schedules resumption `token` of the response stream of `r.rpc_id`.
    pub(crate) fn schedule_resume(&mut self, token: ResumeId, r: Resume) {
        self.resuming.insert(r.rpc_id.clone(), token);
        self.resumes.insert(token, r);
    }

    /// The resumption `token`, due now; `None` when its call ended meanwhile.
    #[cfg(feature = "legacy")]
    pub(crate) fn take_resume(&mut self, token: ResumeId) -> Option<Resume> {
        let r = self.resumes.remove(&token)?;
        (self.resuming.get(&r.rpc_id) == Some(&token)).then_some(r)
    }

    /// Exchange `x` (a `Last-Event-ID` GET) resumes `r`'s stream: responses to its
    /// JSON-RPC id are routed to it.
    #[cfg(feature = "legacy")]
    pub(crate) fn resumed_on(&mut self, x: ExchangeId, r: Resume) {
        if let Some(slot) = self.slots.get_mut(&x) {
            slot.rpc_id = Some(r.rpc_id.clone());
            slot.resumes = r.attempts;
            slot.last_event_id = Some(r.last_event_id);
        }
        self.pending.insert(r.rpc_id, x);
    }

    /// JSON-RPC id `id`'s stream is not resumed (any more).
    pub(crate) fn end_resuming(&mut self, id: &RequestId) {
        if LEGACY {
            self.resuming.remove(id);
        }
    }

    /// A call no longer wants the response to JSON-RPC `id`: the exchange of its
    /// resumption (scheduled or open), to cancel.
    pub(crate) fn abandon(&mut self, id: &RequestId) -> Option<ExchangeId> {
        if !LEGACY {
            return None;
        }
        self.resuming.remove(id)?;
        self.pending.get(id).copied()
    }

    /// Drops every scheduled resumption (the client closed); their tokens.
    pub(crate) fn clear_resumes(&mut self) -> Vec<ResumeId> {
        if !LEGACY {
            return Vec::new();
        }
        let tokens = self.resumes.keys().copied().collect();
        self.resumes.clear();
        self.resuming.clear();
        tokens
    }

    /// What is still booked (names of the non-empty tables): nothing once every
    /// exchange ended.
    pub(crate) fn busy(&self, out: &mut Vec<&'static str>) {
        let tables = [
            ("exchanges", self.slots.is_empty()),
            ("pending ids", self.pending.is_empty()),
            ("replays", self.replays.is_empty()),
            ("resuming ids", self.resuming.is_empty()),
            ("resumptions", self.resumes.is_empty()),
        ];
        out.extend(tables.iter().filter(|(_, empty)| !empty).map(|(n, _)| *n));
    }
}
