//! OAuth across contexts (issue 13, "OAuth across tabs"; `auth::flow::across`): the flow
//! takes the lock of the authorization server and client before it reads the stored
//! tokens, uses tokens another context stored with no token request, refreshes otherwise
//! (saved, announced, unlocked), releases the lock on every path, and never sends a
//! refresh token twice. The storage here is one map: the storage the contexts share.

use super::auth::{cfg, read, refuse, www401, AuthServer};
use crate::auth::flow::tokens_key;
use crate::engine::actions::{AuthAction, AuthInput, AuthStepId};
use crate::engine::config::Config;
use crate::engine::testkit::*;
use crate::error::ErrorKind;
use crate::json;
use std::collections::HashMap;

const MCP: &str = "http://mcp.test/mcp";
const AS: &str = "http://localhost:4000";
/// An expiry far in the future.
const FAR: u64 = 4_000_000_000_000;
const LOCK: &str = "mcp-wasm-client:oauth:http://localhost:4000 app";

fn key() -> String {
    tokens_key(AS, MCP)
}

fn locking_cfg() -> Config {
    let mut c = cfg("2026-07-28");
    if let Some(a) = c.auth.as_mut() {
        a.client_id = Some("app".into());
        a.storage = true;
        a.across_contexts = true;
    }
    c
}

fn record(access: &str, refresh: &str, expires_at: u64) -> String {
    json!({"access_token": access, "refresh_token": refresh, "expires_at": expires_at}).to_string()
}

/// The shared storage, a rotating token endpoint, and what the engine asked, in order.
struct Side {
    routes: HashMap<String, (u16, crate::json::Value)>,
    store: HashMap<String, String>,
    /// The one refresh token the server accepts; each use rotates it.
    valid_refresh: String,
    issued: u32,
    /// Refresh tokens received, in order (a repeat is a reuse).
    refreshes: Vec<String>,
    log: Vec<String>,
    /// Answer the authorization side's requests (else only the auth actions).
    fetches: bool,
    /// Grant locks as they are asked (else they wait in `waiting_locks`).
    grant: bool,
    waiting_locks: Vec<AuthStepId>,
    /// Every lock asked, and every lock released.
    locks: Vec<AuthStepId>,
    unlocks: Vec<AuthStepId>,
}

impl Side {
    fn new(seed: Option<String>) -> Side {
        let mut store = HashMap::new();
        if let Some(s) = seed {
            store.insert(key(), s);
        }
        Side {
            routes: AuthServer::new().routes,
            store,
            valid_refresh: "r1".into(),
            issued: 1,
            refreshes: Vec::new(),
            log: Vec::new(),
            fetches: true,
            grant: true,
            waiting_locks: Vec::new(),
            locks: Vec::new(),
            unlocks: Vec::new(),
        }
    }

    fn token(&mut self, form: &str) -> (u16, crate::json::Value) {
        let q: HashMap<String, String> = crate::auth::url::query_params(&format!("?{form}"))
            .into_iter()
            .collect();
        let Some(rt) = q.get("refresh_token") else {
            return (400, json!({"error": "unsupported_grant_type"}));
        };
        self.refreshes.push(rt.clone());
        if *rt != self.valid_refresh {
            return (400, json!({"error": "invalid_grant"}));
        }
        self.issued += 1;
        self.valid_refresh = format!("r{}", self.issued);
        (
            200,
            json!({"access_token": format!("a{}", self.issued), "token_type": "Bearer",
                   "expires_in": 3600, "refresh_token": self.valid_refresh}),
        )
    }

    /// Answers the authorization side until only MCP requests (or nothing) remain.
    fn serve(&mut self, h: &mut Harness) {
        for _ in 0..100 {
            h.pump();
            let mut progressed = false;
            let next = h.outbox.iter().position(|s| s.req.url != MCP);
            if let Some(i) = next.filter(|_| self.fetches) {
                let s = h.outbox.remove(i).unwrap();
                progressed = true;
                self.log.push(format!("fetch {}", s.req.url));
                let (st, body) = if s.req.url.ends_with("/token") {
                    self.token(s.req.body_text().unwrap_or(""))
                } else {
                    self.routes
                        .get(&s.req.url)
                        .cloned()
                        .unwrap_or((404, json!({})))
                };
                h.reply(&s, st, body);
            }
            for a in std::mem::take(&mut h.auth) {
                progressed = true;
                match a {
                    AuthAction::Lock { id, name } => {
                        assert_eq!(name, LOCK);
                        self.log.push("lock".into());
                        self.locks.push(id);
                        if self.grant {
                            h.core.on_auth(id, AuthInput::Locked, h.now);
                        } else {
                            self.waiting_locks.push(id);
                        }
                    }
                    AuthAction::Unlock { id } => {
                        self.log.push("unlock".into());
                        self.unlocks.push(id);
                    }
                    AuthAction::Load { id, key } => {
                        self.log.push(format!("load {key}"));
                        let v = self.store.get(&key).cloned();
                        h.core.on_auth(id, AuthInput::Loaded(v), h.now);
                    }
                    AuthAction::Save { key, value } => {
                        self.log.push(format!("save {key}"));
                        self.store.insert(key, value);
                    }
                    AuthAction::Announce { key } => self.log.push(format!("announce {key}")),
                    AuthAction::Key { .. } | AuthAction::Sign { .. } => {
                        panic!("no DPoP nor private_key_jwt here")
                    }
                    AuthAction::Random { id, len } => {
                        self.log.push("random".into());
                        h.core.on_auth(id, AuthInput::Random(vec![3; len]), h.now);
                    }
                    AuthAction::Authorize { id, .. } => {
                        self.log.push("authorize".into());
                        let e = crate::error::Error::config("the person went away");
                        h.core.on_auth(id, AuthInput::Callback(Err(e)), h.now);
                    }
                }
            }
            if !progressed {
                return;
            }
        }
        panic!("the authorization side never settled");
    }

    fn index(&self, what: &str) -> usize {
        self.log
            .iter()
            .position(|l| l.starts_with(what))
            .unwrap_or_else(|| panic!("{what} in {:?}", self.log))
    }

    fn stored(&self) -> crate::json::Value {
        serde_json::from_str(&self.store[&key()]).unwrap()
    }
}

/// A context with an expired access token: the lock is taken before the tokens are read,
/// the refresh runs under it; the new tokens are saved, announced, then the lock released.
#[test]
fn refresh_runs_under_the_lock_then_saves_announces_and_unlocks() {
    let mut h = Harness::new(locking_cfg());
    let mut side = Side::new(Some(record("a1", "r1", 1)));
    h.now = 10_000;
    let op = read(&mut h, "x");
    let s = h.take();
    refuse(&mut h, &s, 401, &www401());
    side.serve(&mut h);
    assert_eq!(side.refreshes, ["r1"]);
    let lock = side.index("lock");
    assert!(lock < side.index(&format!("load {}", key())));
    assert!(
        side.index(&format!("load {}", key())) < side.index("fetch http://localhost:4000/token")
    );
    let save = side.index(&format!("save {}", key()));
    assert!(side.index("fetch http://localhost:4000/token") < save);
    assert!(save < side.index(&format!("announce {}", key())));
    assert!(side.index(&format!("announce {}", key())) < side.index("unlock"));
    assert_eq!(
        side.locks, side.unlocks,
        "the lock asked is the one released"
    );
    assert_eq!(side.stored()["refresh_token"], "r2");
    assert_eq!(side.stored()["access_token"], "a2");
    let again = h.take();
    assert_eq!(again.header("authorization"), Some("Bearer a2"));
    h.result(&again, super::auth::done_result());
    h.ok(op);
    assert!(h.core.is_quiet(), "{:?}", h.core.busy());
}

/// Under the lock, tokens another context stored (not the ones refused) are used with no
/// request to the token endpoint; the lock is released.
#[test]
fn newer_stored_tokens_are_used_without_a_token_request() {
    let mut h = Harness::new(locking_cfg());
    let mut side = Side::new(Some(record("a1", "r1", FAR)));
    h.now = 10_000;
    let op = read(&mut h, "x");
    let s = h.take();
    refuse(&mut h, &s, 401, &www401());
    side.serve(&mut h);
    let s = h.take();
    assert_eq!(s.header("authorization"), Some("Bearer a1"));
    h.result(&s, super::auth::done_result());
    h.ok(op);
    // a1 is refused; meanwhile another context refreshed and stored a7/r7.
    side.store.insert(key(), record("a7", "r7", FAR));
    side.log.clear();
    let op = read(&mut h, "y");
    let s = h.take();
    assert_eq!(s.header("authorization"), Some("Bearer a1"));
    refuse(&mut h, &s, 401, &www401());
    side.serve(&mut h);
    assert!(
        side.refreshes.is_empty(),
        "no token request: {:?}",
        side.log
    );
    assert!(side.index("lock") < side.index(&format!("load {}", key())));
    assert!(!side
        .log
        .iter()
        .any(|l| l.starts_with("save") || l.starts_with("announce")));
    assert_eq!(side.locks, side.unlocks);
    let s = h.take();
    assert_eq!(s.header("authorization"), Some("Bearer a7"));
    h.result(&s, super::auth::done_result());
    h.ok(op);
    // The stored tokens are the ones refused now: refreshed with the stored refresh token.
    side.valid_refresh = "r7".into();
    side.issued = 7;
    let op = read(&mut h, "z");
    let s = h.take();
    refuse(&mut h, &s, 401, &www401());
    side.serve(&mut h);
    assert_eq!(side.refreshes, ["r7"]);
    let s = h.take();
    assert_eq!(s.header("authorization"), Some("Bearer a8"));
    h.result(&s, super::auth::done_result());
    h.ok(op);
    assert!(h.core.is_quiet(), "{:?}", h.core.busy());
}

/// Two requests refused at once in one context: one flow, one lock, one refresh.
#[test]
fn concurrent_refusals_refresh_once() {
    let mut h = Harness::new(locking_cfg());
    let mut side = Side::new(Some(record("a1", "r1", 1)));
    h.now = 10_000;
    let a = read(&mut h, "a");
    let b = read(&mut h, "b");
    let sa = h.take();
    let sb = h.take();
    refuse(&mut h, &sa, 401, &www401());
    refuse(&mut h, &sb, 401, &www401());
    side.serve(&mut h);
    assert_eq!(side.refreshes, ["r1"]);
    assert_eq!((side.locks.len(), side.unlocks.len()), (1, 1));
    for op in [a, b] {
        let s = h.take();
        assert_eq!(s.header("authorization"), Some("Bearer a2"));
        h.result(&s, super::auth::done_result());
        h.ok(op);
    }
    // A late refusal of a request sent with the old token is just replayed.
    assert!(h.core.is_quiet(), "{:?}", h.core.busy());
}

/// Every way a flow ends releases its lock: a refused refresh (whose refresh token is
/// then dropped from the storage too, announced, so that no context sends it again) and
/// a person who does not sign in; the request fails with the flow's error.
#[test]
fn error_paths_unlock_and_never_resend_a_refresh_token() {
    let mut h = Harness::new(locking_cfg());
    let mut side = Side::new(Some(record("a1", "r0", 1)));
    h.now = 10_000;
    let op = read(&mut h, "x");
    let s = h.take();
    refuse(&mut h, &s, 401, &www401());
    side.serve(&mut h);
    assert_eq!(side.refreshes, ["r0"], "refused: invalid_grant");
    assert!(side.stored().get("refresh_token").is_none());
    assert!(side.index("save") < side.index("announce"));
    assert!(side.index("authorize") < side.index("unlock"));
    assert_eq!(side.locks, side.unlocks);
    assert_eq!(h.err(op).kind, ErrorKind::Config);
    // The next flow has no refresh token to send (the storage lost it too).
    let op = read(&mut h, "y");
    let s = h.take();
    refuse(&mut h, &s, 401, &www401());
    side.serve(&mut h);
    assert_eq!(side.refreshes, ["r0"]);
    assert_eq!(side.locks.len(), 2);
    assert_eq!(side.locks, side.unlocks);
    h.err(op);
    assert!(h.core.is_quiet(), "{:?}", h.core.busy());
    // The token endpoint unreachable: the refresh token may be spent; dropped as well.
    let mut h = Harness::new(locking_cfg());
    let mut side = Side::new(Some(record("a1", "r1", 1)));
    h.now = 10_000;
    let op = read(&mut h, "x");
    let s = h.take();
    refuse(&mut h, &s, 401, &www401());
    for _ in 0..20 {
        h.pump();
        if let Some(i) = h.outbox.iter().position(|s| s.req.url != MCP) {
            let s = h.outbox.remove(i).unwrap();
            if s.req.url.ends_with("/token") {
                h.fail(s.xfer(), crate::error::Error::network("offline"));
                continue;
            }
            let (st, body) = AuthServer::new().routes[&s.req.url].clone();
            h.reply(&s, st, body);
        }
        side.serve_auth_only(&mut h);
    }
    assert!(side.stored().get("refresh_token").is_none());
    assert_eq!(side.locks, side.unlocks);
    h.err(op);
}

impl Side {
    /// Answers the auth actions only (requests are the test's).
    fn serve_auth_only(&mut self, h: &mut Harness) {
        self.fetches = false;
        self.serve(h);
        self.fetches = true;
    }
}

/// `close()` while the lock is awaited abandons it (the shell aborts the request); while it
/// is held (the refresh in flight), releases it.
#[test]
fn close_abandons_or_releases_the_lock() {
    let mut h = Harness::new(locking_cfg());
    let mut side = Side::new(Some(record("a1", "r1", 1)));
    side.grant = false;
    let op = read(&mut h, "x");
    let s = h.take();
    refuse(&mut h, &s, 401, &www401());
    side.serve(&mut h);
    assert_eq!(side.waiting_locks.len(), 1);
    assert!(side.unlocks.is_empty());
    h.core.close(h.now);
    side.serve(&mut h);
    assert_eq!(side.unlocks, side.waiting_locks);
    assert!(h.cancelled_auth.is_empty(), "a lock is not a person's step");
    assert_eq!(h.err(op).kind, ErrorKind::Abort);
    // A grant arriving after close is ignored.
    h.core
        .on_auth(side.waiting_locks[0], AuthInput::Locked, h.now);
    h.pump();
    assert!(h.auth.is_empty() && h.try_take().is_none());
    assert!(h.core.is_quiet(), "{:?}", h.core.busy());

    let mut h = Harness::new(locking_cfg());
    let mut side = Side::new(Some(record("a1", "r1", 1)));
    h.now = 10_000;
    let op = read(&mut h, "x");
    let s = h.take();
    refuse(&mut h, &s, 401, &www401());
    // Serve everything but the token request.
    for _ in 0..20 {
        h.pump();
        let pos = h
            .outbox
            .iter()
            .position(|s| s.req.url != MCP && !s.req.url.ends_with("/token"));
        if let Some(i) = pos {
            let s = h.outbox.remove(i).unwrap();
            let (st, body) = side.routes[&s.req.url].clone();
            h.reply(&s, st, body);
        }
        side.serve_auth_only(&mut h);
    }
    assert!(h.outbox.iter().any(|s| s.req.url.ends_with("/token")));
    assert_eq!((side.locks.len(), side.unlocks.len()), (1, 0));
    h.core.close(h.now);
    side.serve_auth_only(&mut h);
    assert_eq!(side.locks, side.unlocks);
    assert_eq!(h.err(op).kind, ErrorKind::Abort);
    assert!(h.core.is_quiet(), "{:?}", h.core.busy());
}

/// An announcement from another context: the tokens of a key this client holds are read
/// again and the next request carries the new access token; an unknown key, a malformed
/// record, or unchanged tokens change nothing.
#[test]
fn announced_tokens_are_used_for_the_next_request() {
    let (mut h, mut side) = signed_in();
    side.log.clear();
    // Peer input that names nothing this client holds: nothing is read.
    h.core
        .on_auth_notice("mcp-wasm-client:oauth:tokens:https://other:x", h.now);
    h.core.on_auth_notice("", h.now);
    side.serve(&mut h);
    assert!(side.log.is_empty(), "{:?}", side.log);
    // A malformed record: ignored.
    side.store.insert(key(), "{not json".into());
    h.core.on_auth_notice(&key(), h.now);
    side.serve(&mut h);
    assert_eq!(side.log, [format!("load {}", key())]);
    let op = read(&mut h, "y");
    let s = h.take();
    assert_eq!(s.header("authorization"), Some("Bearer a1"));
    h.result(&s, super::auth::done_result());
    h.ok(op);
    // Two notices before the first read is answered: the first read is superseded.
    h.core.on_auth_notice(&key(), h.now);
    h.pump();
    let stale = std::mem::take(&mut h.auth);
    assert!(matches!(stale[..], [AuthAction::Load { .. }]));
    side.store.insert(key(), record("a5", "r5", FAR));
    h.core.on_auth_notice(&key(), h.now);
    if let AuthAction::Load { id, .. } = &stale[0] {
        let old = record("a4", "r4", FAR);
        h.core.on_auth(*id, AuthInput::Loaded(Some(old)), h.now);
    }
    // New tokens: the next request carries them, with no flow and no 401.
    side.serve(&mut h);
    let op = read(&mut h, "z");
    let s = h.take();
    assert_eq!(s.header("authorization"), Some("Bearer a5"));
    h.result(&s, super::auth::done_result());
    h.ok(op);
    assert!(side.refreshes.is_empty() && side.locks.len() == 1);
    assert!(h.core.is_quiet(), "{:?}", h.core.busy());
}

/// Signs in from the stored record `a1`: one request refused, the tokens read, sent again.
fn signed_in() -> (Harness, Side) {
    let mut h = Harness::new(locking_cfg());
    let mut side = Side::new(Some(record("a1", "r1", FAR)));
    let op = read(&mut h, "x");
    let s = h.take();
    refuse(&mut h, &s, 401, &www401());
    side.serve(&mut h);
    let s = h.take();
    h.result(&s, super::auth::done_result());
    h.ok(op);
    (h, side)
}

/// Another context announced tokens; the read they cause is returned, not answered.
fn notice_pending(h: &mut Harness) -> AuthStepId {
    h.core.on_auth_notice(&key(), h.now);
    h.pump();
    match &std::mem::take(&mut h.auth)[..] {
        [AuthAction::Load { id, .. }] => *id,
        other => panic!("a notice reads the tokens: {other:?}"),
    }
}

/// A request started while announced tokens are read waits for the read, and leaves with
/// the token it leaves in place: the new one (no 401, no refresh), or the old one when
/// the record did not change; a request aborted meanwhile never leaves.
#[test]
fn requests_opened_during_a_notice_read_wait_for_it() {
    let (mut h, side) = signed_in();
    // New tokens read, then the same ones again: the waiting request leaves with them.
    for uri in ["y", "z"] {
        let read_id = notice_pending(&mut h);
        let op = read(&mut h, uri);
        h.pump();
        assert!(h.try_take().is_none(), "a request left during the read");
        let stored = record("a5", "r5", FAR);
        h.core
            .on_auth(read_id, AuthInput::Loaded(Some(stored)), h.now);
        let s = h.take();
        assert_eq!(s.header("authorization"), Some("Bearer a5"));
        h.result(&s, super::auth::done_result());
        h.ok(op);
    }

    // Aborted while it waits: it never leaves; a failed read lets the next one go.
    let read_id = notice_pending(&mut h);
    let op = read(&mut h, "w");
    let now = h.now;
    h.core.abort(op, crate::error::Error::abort("gone"), now);
    assert_eq!(h.err(op).kind, ErrorKind::Abort);
    h.core.on_auth(read_id, AuthInput::Loaded(None), h.now);
    h.pump();
    assert!(h.try_take().is_none(), "an aborted request left");
    let op = read(&mut h, "v");
    let s = h.take();
    assert_eq!(s.header("authorization"), Some("Bearer a5"));
    h.result(&s, super::auth::done_result());
    h.ok(op);
    assert!(side.refreshes.is_empty());
    assert!(h.core.is_quiet(), "{:?}", h.core.busy());
}

/// A request refused during the read starts a flow; what was opened meanwhile leaves when
/// the flow ends, with its token, once.
#[test]
fn a_flow_that_starts_during_a_notice_read_sends_what_waited() {
    let (mut h, mut side) = signed_in();
    let early = read(&mut h, "early");
    let s_early = h.take();
    let read_id = notice_pending(&mut h);
    let late = read(&mut h, "late");
    h.pump();
    assert!(h.try_take().is_none());
    // The early request is refused: the flow runs (lock, stored tokens: still a1, expired
    // for the server, so a refresh).
    side.store.insert(key(), record("a1", "r1", 1));
    refuse(&mut h, &s_early, 401, &www401());
    h.pump();
    let flow_actions = std::mem::take(&mut h.auth);
    // The notice's read answers first: the flow still runs, nothing leaves yet.
    h.core.on_auth(
        read_id,
        AuthInput::Loaded(Some(record("a1", "r1", 1))),
        h.now,
    );
    h.pump();
    assert!(
        h.outbox.iter().all(|s| s.req.url != MCP),
        "an MCP request left before the flow ended"
    );
    h.auth = flow_actions;
    side.serve(&mut h);
    let mut sent = Vec::new();
    while let Some(s) = h.try_take() {
        sent.push(s);
    }
    assert_eq!(sent.len(), 2, "both requests leave once the flow ended");
    for s in &sent {
        assert_eq!(s.header("authorization"), Some("Bearer a2"));
        h.result(s, super::auth::done_result());
    }
    h.ok(early);
    h.ok(late);
    assert_eq!(side.refreshes, ["r1"]);
    assert!(h.core.is_quiet(), "{:?}", h.core.busy());
}

/// Without Web Locks (Node, edge) or without a storage, the flow is as before: no lock,
/// no announcement, the stored tokens read once.
#[test]
fn without_locks_nothing_changes() {
    for (storage, across) in [(true, false), (false, true)] {
        let mut c = locking_cfg();
        if let Some(a) = c.auth.as_mut() {
            a.storage = storage;
            a.across_contexts = across;
        }
        let mut h = Harness::new(c);
        let mut side = Side::new(Some(record("a1", "r1", 1)));
        h.now = 10_000;
        let op = read(&mut h, "x");
        let s = h.take();
        refuse(&mut h, &s, 401, &www401());
        side.serve(&mut h);
        assert!(side.locks.is_empty());
        assert!(!side.log.iter().any(|l| l.starts_with("announce")));
        h.core.on_auth_notice(&key(), h.now);
        h.pump();
        assert!(h.auth.is_empty(), "a notice is ignored");
        match h.try_take() {
            Some(s) => {
                // With the storage: refreshed (read once, as before).
                assert_eq!(s.header("authorization"), Some("Bearer a2"));
                h.result(&s, super::auth::done_result());
                h.ok(op);
            }
            // Without: nothing to refresh, the person's step (who went away).
            None => assert!(!storage && h.err(op).kind == ErrorKind::Config),
        }
        assert!(h.core.is_quiet(), "{:?}", h.core.busy());
    }
}
