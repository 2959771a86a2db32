//! OAuth in the engine: refused requests are held, one flow runs, and they are replayed
//! with the token, in both eras; the limits; the default behaviour without `auth`.

use crate::auth::AuthConfig;
use crate::engine::actions::{AuthAction, AuthInput, OpOptions};
use crate::engine::config::{Config, VersionChoice};
use crate::engine::core::ResponseHead;
use crate::engine::testkit::*;
use crate::error::{Error, ErrorKind};
use crate::json;
use crate::json::{Map, Value};
use std::collections::HashMap;

const MCP: &str = "http://mcp.test/mcp";
const PRM: &str = "http://mcp.test/.well-known/oauth-protected-resource/mcp";
const AS: &str = "http://localhost:4000";

fn opts() -> OpOptions {
    OpOptions::default()
}

pub(super) fn cfg(version: &str) -> Config {
    let mut c = Config::new(MCP);
    c.version = VersionChoice::Pinned(version.into());
    c.auth = Some(AuthConfig {
        redirect_uri: "http://localhost:9000/cb".into(),
        client_name: "t".into(),
        ..Default::default()
    });
    c
}

/// A scripted authorization server (and the PRM of the MCP server).
pub(super) struct AuthServer {
    pub(super) routes: HashMap<String, (u16, Value)>,
    authorizations: Vec<String>,
    tokens_issued: u32,
    /// Scope of each authorization request.
    scopes: Vec<Option<String>>,
    /// How the token endpoint's requests fail (as the shell reports it), if they do.
    token_fails: Option<Error>,
    /// Bytes of padding in each token response (a member the client ignores).
    token_pad: usize,
}

impl AuthServer {
    pub(super) fn new() -> AuthServer {
        let mut routes = HashMap::new();
        routes.insert(
            PRM.to_string(),
            (200, json!({"resource": MCP, "authorization_servers": [AS]})),
        );
        routes.insert(
            format!("{AS}/.well-known/oauth-authorization-server"),
            (
                200,
                json!({"issuer": AS, "authorization_endpoint": format!("{AS}/authorize"),
                   "token_endpoint": format!("{AS}/token"), "registration_endpoint": format!("{AS}/register"),
                   "code_challenge_methods_supported": ["S256"]}),
            ),
        );
        routes.insert(format!("{AS}/register"), (201, json!({"client_id": "cid"})));
        AuthServer {
            routes,
            authorizations: Vec::new(),
            tokens_issued: 0,
            scopes: Vec::new(),
            token_fails: None,
            token_pad: 0,
        }
    }

    /// Answers every request to the authorization side and every auth action, until only
    /// MCP requests (or nothing) remain.
    pub(super) fn serve(&mut self, h: &mut Harness) {
        for _ in 0..100 {
            h.pump();
            let mut progressed = false;
            if let Some(i) = h.outbox.iter().position(|s| s.req.url != MCP) {
                let s = h.outbox.remove(i).unwrap();
                progressed = true;
                if let Some(e) = self
                    .token_fails
                    .as_ref()
                    .filter(|_| s.req.url.ends_with("/token"))
                {
                    h.core.on_fail(s.xfer(), e.clone(), h.now);
                } else if s.req.url.ends_with("/token") {
                    self.tokens_issued += 1;
                    let t = format!("tok-{}", self.tokens_issued);
                    let pad = "x".repeat(self.token_pad);
                    h.reply(
                        &s,
                        200,
                        json!({"access_token": t, "token_type": "Bearer", "pad": pad}),
                    );
                } else {
                    let (st, body) = self
                        .routes
                        .get(&s.req.url)
                        .cloned()
                        .unwrap_or((404, json!({"error": "not_found"})));
                    h.reply(&s, st, body);
                }
            }
            let actions = std::mem::take(&mut h.auth);
            for a in actions {
                progressed = true;
                match a {
                    AuthAction::Random { id, len } => {
                        h.core.on_auth(id, AuthInput::Random(vec![5; len]), h.now)
                    }
                    AuthAction::Authorize { id, req } => {
                        let q: HashMap<String, String> = crate::auth::url::query_params(&req.url)
                            .into_iter()
                            .collect();
                        self.authorizations.push(req.url.clone());
                        self.scopes.push(q.get("scope").cloned());
                        let cb = format!(
                            "{}?code=c&state={}",
                            req.redirect_uri,
                            q.get("state").cloned().unwrap_or_default()
                        );
                        h.core.on_auth(id, AuthInput::Callback(Ok(cb)), h.now)
                    }
                    AuthAction::Load { id, .. } => {
                        h.core.on_auth(id, AuthInput::Loaded(None), h.now)
                    }
                    AuthAction::Save { .. }
                    | AuthAction::Unlock { .. }
                    | AuthAction::Announce { .. } => {}
                    AuthAction::Lock { id, .. } => h.core.on_auth(id, AuthInput::Locked, h.now),
                    AuthAction::Key { .. } | AuthAction::Sign { .. } => {
                        panic!("no DPoP nor private_key_jwt here: {a:?}")
                    }
                }
            }
            if !progressed {
                return;
            }
        }
        panic!("the authorization side never settled");
    }
}

/// Answers `s` with a refusal carrying a `WWW-Authenticate` header.
pub(super) fn refuse(h: &mut Harness, s: &Sent, status: u16, www: &str) {
    h.core.on_head(
        s.xfer(),
        ResponseHead {
            status,
            content_type: Some("application/json"),
            www_authenticate: Some(www),
            ..Default::default()
        },
        h.now,
    );
    h.pump();
    h.chunk(s.xfer(), br#"{"error":"invalid_token"}"#);
    h.end(s.xfer());
}

/// A `resources/read` (one request, never cached).
pub(super) fn read(h: &mut Harness, uri: &str) -> crate::engine::actions::OpId {
    let mut p = Map::new();
    p.insert("uri".into(), Value::String(format!("file:///{uri}")));
    h.core.request(Purpose::Read, p, &opts(), h.now)
}

pub(super) fn done_result() -> Value {
    json!({"resultType":"complete","contents":[]})
}

pub(super) fn www401() -> String {
    format!("Bearer error=\"invalid_token\", resource_metadata=\"{PRM}\", scope=\"mcp:basic\"")
}

#[test]
fn refused_request_is_held_authorized_and_replayed() {
    let mut h = Harness::new(cfg("2026-07-28"));
    let mut srv = AuthServer::new();
    let op = h.core.list_all(Listing::Tools, &opts(), h.now);
    let first = h.take();
    assert_eq!(first.header("authorization"), None);
    refuse(&mut h, &first, 401, &www401());
    assert!(
        h.cancelled.contains(&first.xfer()),
        "the refusal is not read"
    );
    assert!(h.outcome(op).is_none(), "the owner does not see the 401");
    srv.serve(&mut h);
    assert_eq!(srv.authorizations.len(), 1);
    assert_eq!(srv.scopes[0].as_deref(), Some("mcp:basic"));
    let again = h.take();
    assert_ne!(again.xfer(), first.xfer());
    assert_eq!(again.body, first.body, "the same request, byte for byte");
    assert_eq!(again.header("authorization"), Some("Bearer tok-1"));
    assert_eq!(again.header("mcp-method"), Some("tools/list"));
    h.result(&again, tools_page(vec![tool("a")], None));
    assert_eq!(h.ok(op).as_array().unwrap().len(), 1);
    // Later requests carry the token from the start; no new flow.
    let op2 = read(&mut h, "a");
    let s = h.take();
    assert_eq!(s.header("authorization"), Some("Bearer tok-1"));
    h.result(&s, done_result());
    h.ok(op2);
    assert_eq!(srv.authorizations.len(), 1);
    // The flow's requests carried no MCP headers.
    assert!(
        h.history
            .iter()
            .filter(|s| s.req.url != MCP)
            .all(|s| s.header("mcp-protocol-version").is_none()
                && s.header("authorization").is_none())
    );
}

#[test]
fn concurrent_refusals_share_one_flow() {
    let mut h = Harness::new(cfg("2026-07-28"));
    let mut srv = AuthServer::new();
    let a = read(&mut h, "a");
    let b = read(&mut h, "b");
    let sa = h.take();
    let sb = h.take();
    refuse(&mut h, &sa, 401, &www401());
    // The second refusal arrives while the flow runs: it waits for it.
    refuse(&mut h, &sb, 401, &www401());
    srv.serve(&mut h);
    assert_eq!(srv.authorizations.len(), 1);
    let r1 = h.take();
    let r2 = h.take();
    assert!(h.try_take().is_none());
    for r in [&r1, &r2] {
        assert_eq!(r.header("authorization"), Some("Bearer tok-1"));
        h.result(r, done_result());
    }
    h.ok(a);
    h.ok(b);
}

#[test]
fn request_sent_with_an_older_token_is_retried_without_a_flow() {
    let mut h = Harness::new(cfg("2026-07-28"));
    let mut srv = AuthServer::new();
    let a = read(&mut h, "a");
    let b = read(&mut h, "b");
    let sa = h.take();
    let sb = h.take();
    refuse(&mut h, &sa, 401, &www401());
    srv.serve(&mut h);
    let ra = h.take();
    h.result(&ra, done_result());
    h.ok(a);
    // b was sent without a token, before the flow: refused now, it just goes again.
    refuse(&mut h, &sb, 401, &www401());
    srv.serve(&mut h);
    assert_eq!(srv.authorizations.len(), 1);
    let rb = h.take();
    assert_eq!(rb.header("authorization"), Some("Bearer tok-1"));
    h.result(&rb, done_result());
    h.ok(b);
}

#[test]
fn step_up_then_bounded_retries() {
    let mut h = Harness::new(cfg("2026-07-28"));
    let mut srv = AuthServer::new();
    let op = read(&mut h, "write");
    let s = h.take();
    refuse(&mut h, &s, 401, &www401());
    srv.serve(&mut h);
    let s = h.take();
    let w403 = format!(
        "Bearer error=\"insufficient_scope\", scope=\"mcp:write\", resource_metadata=\"{PRM}\""
    );
    refuse(&mut h, &s, 403, &w403);
    srv.serve(&mut h);
    assert_eq!(srv.authorizations.len(), 2);
    assert_eq!(srv.scopes[1].as_deref(), Some("mcp:basic mcp:write"));
    let s = h.take();
    assert_eq!(s.header("authorization"), Some("Bearer tok-2"));
    // Refused again: the request went through its flows; the refusal reaches the caller.
    refuse(&mut h, &s, 403, &w403);
    srv.serve(&mut h);
    assert_eq!(srv.authorizations.len(), 2);
    let e = h.err(op);
    assert_eq!((e.kind, e.status), (ErrorKind::Http, Some(403)));
    let d = e.data.unwrap();
    assert_eq!(
        d["wwwAuthenticate"]["params"]["error"],
        "insufficient_scope"
    );
    assert_eq!(d["wwwAuthenticate"]["params"]["scope"], "mcp:write");
}

#[test]
fn a_403_that_is_not_about_scope_is_not_intercepted() {
    let mut h = Harness::new(cfg("2026-07-28"));
    let op = read(&mut h, "x");
    let s = h.take();
    refuse(&mut h, &s, 403, "Bearer error=\"forbidden\"");
    assert!(h.auth.is_empty() && h.try_take().is_none());
    assert_eq!(h.err(op).status, Some(403));
}

#[test]
fn failed_flow_fails_every_held_request_with_its_reason() {
    let mut h = Harness::new(cfg("2026-07-28"));
    let mut srv = AuthServer::new();
    srv.routes.insert(
        PRM.into(),
        (
            200,
            json!({"resource": "https://evil.example.com/mcp", "authorization_servers": [AS]}),
        ),
    );
    let a = read(&mut h, "a");
    let b = read(&mut h, "b");
    let (sa, sb) = (h.take(), h.take());
    refuse(&mut h, &sa, 401, &www401());
    refuse(&mut h, &sb, 401, &www401());
    srv.serve(&mut h);
    for op in [a, b] {
        let e = h.err(op);
        assert_eq!(e.kind, ErrorKind::Auth);
        assert_eq!(e.data.unwrap()["reason"], "resource-mismatch");
    }
    assert!(srv.authorizations.is_empty());
    // Nothing of the authorization server was fetched.
    assert!(h.history.iter().all(|s| !s.req.url.starts_with(AS)));
}

#[test]
fn a_cors_refusal_of_a_flow_request_is_the_hosts_error() {
    // The shell says why the flow's own request failed (a browser's CORS refusal): the
    // held request gets that CorsError (its data names the endpoint).
    let cors = Error::new(ErrorKind::Cors, "blocked by CORS: the server must send X")
        .with_data(json!({"reason": "origin-not-allowed", "url": format!("{AS}/token")}));
    for (fails, kind) in [
        (cors, ErrorKind::Cors),
        (Error::network("down"), ErrorKind::Auth),
    ] {
        let mut h = Harness::new(cfg("2026-07-28"));
        let mut srv = AuthServer::new();
        srv.token_fails = Some(fails);
        let a = read(&mut h, "a");
        let sa = h.take();
        refuse(&mut h, &sa, 401, &www401());
        srv.serve(&mut h);
        let e = h.err(a);
        assert_eq!(e.kind, kind);
        if kind == ErrorKind::Cors {
            assert_eq!(e.message, "blocked by CORS: the server must send X");
            assert_eq!(e.data.unwrap()["url"], format!("{AS}/token"));
        } else {
            // Any other failure stays the flow's own error, with the shell's words (a
            // refused redirect among them: the flow's requests follow none).
            assert_eq!(e.data.unwrap()["reason"], "token");
            assert_eq!(
                e.message, "the token endpoint could not be reached (down)",
                "the network failure's words"
            );
        }
    }
}

/// A token response over the flow's 256 KiB bound is not read, and the error says so: it
/// said that the token endpoint "could not be reached", though it had answered.
#[test]
fn a_token_response_over_the_bound_is_refused_as_such() {
    for (pad, fits) in [(200 * 1024, true), (300 * 1024, false)] {
        let mut h = Harness::new(cfg("2026-07-28"));
        let mut srv = AuthServer::new();
        srv.token_pad = pad;
        let a = read(&mut h, "a");
        let sa = h.take();
        refuse(&mut h, &sa, 401, &www401());
        srv.serve(&mut h);
        if fits {
            let again = h.take();
            assert_eq!(again.header("authorization"), Some("Bearer tok-1"));
            continue;
        }
        let e = h.err(a);
        assert_eq!(e.kind, ErrorKind::Auth);
        assert_eq!(e.data.as_ref().unwrap()["reason"], "token");
        assert!(!e.message.contains("could not be reached"), "{}", e.message);
        assert!(
            e.message.contains("longer than 256 KiB, the bound"),
            "{}",
            e.message
        );
    }
}

#[test]
fn aborted_while_held_is_not_replayed() {
    let mut h = Harness::new(cfg("2026-07-28"));
    let mut srv = AuthServer::new();
    let a = read(&mut h, "a");
    let sa = h.take();
    refuse(&mut h, &sa, 401, &www401());
    h.core.abort(a, Error::abort("stop"), h.now);
    srv.serve(&mut h);
    assert_eq!(h.err(a).kind, ErrorKind::Abort);
    assert!(h.try_take().is_none(), "nothing replayed");
    assert!(h.core.ops_in_flight() == 0);
}

#[test]
#[cfg(feature = "legacy")]
fn legacy_session_initialize_is_authorized_and_every_request_carries_the_token() {
    let mut h = Harness::new(cfg("2025-11-25"));
    let mut srv = AuthServer::new();
    let op = h.core.list_all(Listing::Tools, &opts(), h.now);
    let init = h.take();
    assert_eq!(init.method(), "initialize");
    refuse(&mut h, &init, 401, &www401());
    srv.serve(&mut h);
    let init2 = h.take();
    assert_eq!(init2.method(), "initialize");
    assert_eq!(init2.id(), init.id(), "the same JSON-RPC request");
    assert_eq!(init2.header("authorization"), Some("Bearer tok-1"));
    h.result(
        &init2,
        json!({"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}),
    );
    let mut seen = Vec::new();
    while let Some(s) = h.try_take() {
        assert_eq!(
            s.header("authorization"),
            Some("Bearer tok-1"),
            "{}",
            s.method()
        );
        seen.push(s.method().to_string());
        if s.method() == "tools/list" {
            h.result(&s, json!({"tools":[tool("a")]}));
        } else if s.req.method.as_str() == "GET" {
            h.head(s.xfer(), 405, None);
            h.end(s.xfer());
        } else {
            h.head(s.xfer(), 202, None);
            h.end(s.xfer());
        }
    }
    assert!(seen.contains(&"notifications/initialized".to_string()));
    assert_eq!(h.ok(op).as_array().unwrap().len(), 1);
}

#[test]
fn without_auth_a_401_is_an_http_error_with_the_challenge() {
    let mut h = Harness::modern();
    let op = read(&mut h, "a");
    let s = h.take();
    refuse(&mut h, &s, 401, &www401());
    let e = h.err(op);
    assert_eq!((e.kind, e.status), (ErrorKind::Http, Some(401)));
    let w = &e.data.unwrap()["wwwAuthenticate"];
    assert_eq!(w["scheme"], "Bearer");
    assert_eq!(w["params"]["resource_metadata"], PRM);
    assert_eq!(w["params"]["scope"], "mcp:basic");
    assert!(h.auth.is_empty());
}

#[test]
fn authorize_runs_the_flow_up_front() {
    let mut h = Harness::new(cfg("2026-07-28"));
    let mut srv = AuthServer::new();
    let op = h.core.authorize(h.now);
    srv.serve(&mut h);
    assert_eq!(h.ok(op), Value::Null);
    assert_eq!(srv.authorizations.len(), 1);
    // Discovered at the well-known location without a challenge.
    assert_eq!(h.history[0].req.url, PRM);
    let c = read(&mut h, "a");
    let s = h.take();
    assert_eq!(s.header("authorization"), Some("Bearer tok-1"));
    h.result(&s, done_result());
    h.ok(c);
    // A second authorize() has a token already: no person.
    let op = h.core.authorize(h.now);
    srv.serve(&mut h);
    h.ok(op);
    assert_eq!(srv.authorizations.len(), 1);
    // Without the option it is a ConfigError.
    let mut plain = Harness::modern();
    let op = plain.core.authorize(plain.now);
    assert_eq!(plain.err(op).kind, ErrorKind::Config);
}

#[test]
fn close_withdraws_the_persons_step() {
    let mut h = Harness::new(cfg("2026-07-28"));
    let srv = AuthServer::new();
    let op = read(&mut h, "a");
    let s = h.take();
    refuse(&mut h, &s, 401, &www401());
    // Serve discovery and registration, but keep the person's step pending.
    for _ in 0..10 {
        h.pump();
        if let Some(i) = h.outbox.iter().position(|s| s.req.url != MCP) {
            let s = h.outbox.remove(i).unwrap();
            let (st, body) = srv
                .routes
                .get(&s.req.url)
                .cloned()
                .unwrap_or((404, json!({})));
            h.reply(&s, st, body);
        }
        let acts = std::mem::take(&mut h.auth);
        for a in acts {
            match a {
                AuthAction::Random { id, len } => {
                    h.core.on_auth(id, AuthInput::Random(vec![1; len]), h.now)
                }
                other => h.auth.push(other),
            }
        }
    }
    let Some(AuthAction::Authorize { id, .. }) = h.auth.pop() else {
        panic!("the person's step was asked");
    };
    h.core.close(h.now);
    h.pump();
    assert!(h.cancelled_auth.contains(&id));
    assert_eq!(h.err(op).kind, ErrorKind::Abort);
    // A late answer is ignored.
    h.core.on_auth(
        id,
        AuthInput::Callback(Ok("http://localhost:9000/cb?code=c".into())),
        h.now,
    );
    h.pump();
    assert!(h.try_take().is_none());
}

/// The shell hands over `WWW-Authenticate` whatever the status: only a 401/403's counts
/// (RFC 9110 §11.6.1; MCP authorization), with or without the auth option.
#[test]
fn a_challenge_on_another_status_is_ignored() {
    for mut h in [Harness::modern(), Harness::new(cfg("2026-07-28"))] {
        let op = read(&mut h, "x");
        let s = h.take();
        refuse(&mut h, &s, 404, &www401());
        assert!(h.auth.is_empty() && h.try_take().is_none());
        let e = h.err(op);
        assert_eq!((e.kind, e.status), (ErrorKind::Http, Some(404)));
        assert!(e.data.is_none_or(|d| d.get("wwwAuthenticate").is_none()));
    }
}

/// `authorize()` is an operation like the others: aborting one ends it alone (the flow goes
/// on for the next), and closing the client ends the ones still waiting.
#[test]
fn an_aborted_authorize_leaves_the_flow_to_the_others() {
    let mut h = Harness::new(cfg("2026-07-28"));
    let mut srv = AuthServer::new();
    let first = h.core.authorize(h.now);
    let second = h.core.authorize(h.now);
    h.core.abort(first, Error::abort("stop"), h.now);
    h.pump();
    assert_eq!(h.err(first).kind, ErrorKind::Abort);
    assert!(h.outcome(second).is_none());
    srv.serve(&mut h);
    assert_eq!(h.ok(second), Value::Null);
    assert_eq!(srv.authorizations.len(), 1);
    assert!(h.core.is_quiet(), "{:?}", h.core.busy());
    // Closing the client ends a waiting authorize() with an AbortError.
    let mut h = Harness::new(cfg("2026-07-28"));
    let op = h.core.authorize(h.now);
    h.pump();
    assert!(h.outcome(op).is_none());
    h.core.close(h.now);
    h.pump();
    assert_eq!(h.err(op).kind, ErrorKind::Abort);
    assert!(h.core.is_quiet(), "{:?}", h.core.busy());
}

#[test]
fn a_flow_request_without_an_answer_gives_up_after_the_request_timeout() {
    // A server that never answers one of the flow's requests must not hold the flow, and
    // every request waiting on it, for the client's life: at requestTimeoutMs the request
    // is cancelled, the flow ends as if it could not be reached, and the next refusal
    // starts a new flow.
    let mut c = cfg("2026-07-28");
    c.request_timeout_ms = 5_000;
    let mut h = Harness::new(c);
    // (The held request's own budget is longer than the flow request's here, so that it
    // sees the flow's end; with the same budget it times out at the same moment.)
    let mut p = Map::new();
    p.insert("uri".into(), Value::String("file:///a".into()));
    let long = OpOptions {
        timeout_ms: Some(60_000),
        ..opts()
    };
    let op = h.core.request(Purpose::Read, p, &long, h.now);
    let s = h.take();
    refuse(&mut h, &s, 401, &www401());
    let prm = h.take();
    assert_eq!(prm.req.url, PRM);
    h.advance(4_999);
    assert!(h.outcome(op).is_none(), "not before the timeout");
    h.advance(1);
    assert!(
        h.cancelled.contains(&prm.xfer()),
        "the flow's request is cancelled"
    );
    // Discovery goes on to its next places (each given the same time), then ends.
    let mut tried = vec![prm.req.url.clone()];
    while let Some(next) = h.try_take() {
        assert!(tried.len() < 10, "discovery is bounded: {tried:?}");
        tried.push(next.req.url.clone());
        h.advance(5_000);
        assert!(h.cancelled.contains(&next.xfer()), "{}", next.req.url);
    }
    let e = h.err(op);
    assert_eq!(e.kind, ErrorKind::Auth, "{tried:?}");
    assert!(e.message.contains("no answer in 5000 ms"), "{}", e.message);
    assert_eq!(h.core.next_deadline(), None, "no timer left");
    // A later refusal starts a new flow, which completes.
    let mut srv = AuthServer::new();
    let op = read(&mut h, "b");
    let s = h.take();
    refuse(&mut h, &s, 401, &www401());
    srv.serve(&mut h);
    assert_eq!(srv.authorizations.len(), 1);
    let again = h.take();
    assert_eq!(again.header("authorization"), Some("Bearer tok-1"));
    h.result(&again, done_result());
    h.ok(op);
}
