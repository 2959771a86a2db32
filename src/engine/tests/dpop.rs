//! DPoP (RFC 9449) and `private_key_jwt` (RFC 7523) in the engine (issue 16), with a test
//! signer: the shell's part (the key, the signature) is answered here; the proofs' claims,
//! the nonce retries (once, never a loop), the scheme of DPoP-bound tokens, and the typed
//! errors of a server that misbehaves.

use super::auth::{cfg, done_result, read, www401};
use crate::auth::dpop::{ath, decode_part, ClientKey, DpopMode, JwsAlg, TEST_JWK};
use crate::engine::actions::{AuthAction, AuthInput};
use crate::engine::core::ResponseHead;
use crate::engine::testkit::*;
use crate::error::ErrorKind;
use crate::json;
use crate::json::Value;
use std::collections::HashMap;

const MCP: &str = "http://mcp.test/mcp";
const PRM: &str = "http://mcp.test/.well-known/oauth-protected-resource/mcp";
const AS: &str = "http://localhost:4000";
const TOKEN: &str = "http://localhost:4000/token";

/// How the scripted authorization server behaves.
#[derive(Default)]
struct Script {
    /// The nonce the token endpoint wants (`use_dpop_nonce` until a proof carries it).
    as_nonce: Option<&'static str>,
    /// The `DPoP-Nonce` it sends with `use_dpop_nonce`, when not `as_nonce` (a new one
    /// each time when `"fresh"`).
    as_nonce_header: Option<&'static str>,
    /// `token_type` of the tokens (default `DPoP` when the request had a proof).
    token_type: Option<&'static str>,
    /// `dpop_signing_alg_values_supported` in the metadata (`None`: not listed).
    algs: Option<Value>,
    refresh: bool,
    /// The shell cannot make a key (no WebCrypto).
    no_key: bool,
    /// A `DPoP-Nonce` sent with every token issued (RFC 9449 §8.2: a new nonce with a
    /// success, for the next request to carry).
    nonce_on_success: Option<&'static str>,
}

struct DpopAs {
    script: Script,
    routes: HashMap<String, (u16, Value)>,
    /// Every token request: its proof's header and claims (if any) and its form.
    token_requests: Vec<(Option<(Value, Value)>, String)>,
    /// The inputs the shell was asked to sign (`private_key_jwt`).
    signed: Vec<String>,
    keys_asked: Vec<String>,
    issued: u32,
    refused: u32,
    /// Random bytes given so far (each answer differs, as the platform's would).
    randoms: u8,
}

fn form_value(body: &str, k: &str) -> Option<String> {
    crate::auth::url::query_params(&format!("x:?{body}"))
        .into_iter()
        .find(|(n, _)| n == k)
        .map(|(_, v)| v)
}

impl DpopAs {
    fn new(script: Script) -> DpopAs {
        let mut routes = HashMap::new();
        routes.insert(
            PRM.to_string(),
            (200, json!({"resource": MCP, "authorization_servers": [AS]})),
        );
        let mut meta = json!({"issuer": AS, "authorization_endpoint": format!("{AS}/authorize"),
            "token_endpoint": TOKEN, "registration_endpoint": format!("{AS}/register"),
            "code_challenge_methods_supported": ["S256"]});
        if let Some(a) = &script.algs {
            meta["dpop_signing_alg_values_supported"] = a.clone();
        }
        routes.insert(
            format!("{AS}/.well-known/oauth-authorization-server"),
            (200, meta),
        );
        routes.insert(format!("{AS}/register"), (201, json!({"client_id": "cid"})));
        DpopAs {
            script,
            routes,
            token_requests: Vec::new(),
            signed: Vec::new(),
            keys_asked: Vec::new(),
            issued: 0,
            refused: 0,
            randoms: 0,
        }
    }

    fn token(&mut self, h: &mut Harness, s: &Sent) {
        let proof = s.header("dpop").map(|p| {
            assert_eq!(p.split('.').count(), 2, "the signature is the shell's");
            (decode_part(p, 0), decode_part(p, 1))
        });
        let body = s.req.body_text().unwrap_or_default().to_string();
        self.token_requests.push((proof.clone(), body));
        if let Some(want) = self.script.as_nonce {
            let got = proof.as_ref().and_then(|(_, c)| c["nonce"].as_str());
            if got != Some(want) {
                self.refused += 1;
                let header = match self.script.as_nonce_header {
                    Some("fresh") => format!("n-{}", self.refused),
                    Some(h) => h.to_string(),
                    None => want.to_string(),
                };
                h.core.on_head(
                    s.xfer(),
                    ResponseHead {
                        status: 400,
                        content_type: Some("application/json"),
                        dpop_nonce: Some(&header),
                        ..Default::default()
                    },
                    h.now,
                );
                h.chunk(s.xfer(), br#"{"error":"use_dpop_nonce"}"#);
                h.end(s.xfer());
                return;
            }
        }
        self.issued += 1;
        let kind =
            self.script
                .token_type
                .unwrap_or(if proof.is_some() { "DPoP" } else { "Bearer" });
        let mut t = json!({"access_token": format!("tok-{}", self.issued), "token_type": kind});
        if self.script.refresh {
            t["refresh_token"] = json!(format!("rt-{}", self.issued));
        }
        h.core.on_head(
            s.xfer(),
            ResponseHead {
                status: 200,
                content_type: Some("application/json"),
                dpop_nonce: self.script.nonce_on_success,
                ..Default::default()
            },
            h.now,
        );
        h.chunk(s.xfer(), t.to_string().as_bytes());
        h.end(s.xfer());
    }

    fn serve(&mut self, h: &mut Harness) {
        for _ in 0..100 {
            h.pump();
            let mut progressed = false;
            if let Some(i) = h.outbox.iter().position(|s| s.req.url != MCP) {
                let s = h.outbox.remove(i).unwrap();
                progressed = true;
                if s.req.url == TOKEN {
                    self.token(h, &s);
                } else {
                    let (st, body) = self
                        .routes
                        .get(&s.req.url)
                        .cloned()
                        .unwrap_or((404, json!({"error": "not_found"})));
                    h.reply(&s, st, body);
                }
            }
            for a in std::mem::take(&mut h.auth) {
                progressed = true;
                match a {
                    AuthAction::Random { id, len } => {
                        self.randoms = self.randoms.wrapping_add(1);
                        let bytes = vec![5 + self.randoms; len];
                        h.core.on_auth(id, AuthInput::Random(bytes), h.now)
                    }
                    AuthAction::Authorize { id, req } => {
                        let q: HashMap<String, String> = crate::auth::url::query_params(&req.url)
                            .into_iter()
                            .collect();
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
                    AuthAction::Lock { id, .. } => h.core.on_auth(id, AuthInput::Locked, h.now),
                    AuthAction::Key { id, name } => {
                        self.keys_asked.push(name);
                        let k = (!self.script.no_key).then(|| (TEST_JWK.to_string(), vec![3; 16]));
                        h.core.on_auth(id, AuthInput::Key(k), h.now)
                    }
                    AuthAction::Sign { id, input } => {
                        self.signed.push(input);
                        h.core
                            .on_auth(id, AuthInput::Signed(Some(vec![0xab; 64])), h.now)
                    }
                    AuthAction::Save { .. }
                    | AuthAction::Unlock { .. }
                    | AuthAction::Announce { .. } => {}
                }
            }
            if !progressed {
                return;
            }
        }
        panic!("the authorization side never settled");
    }
}

fn es256() -> Option<Value> {
    Some(json!(["RS256", "ES256"]))
}

fn harness(mode: DpopMode) -> Harness {
    let mut c = cfg("2026-07-28");
    if let Some(a) = c.auth.as_mut() {
        a.dpop = mode;
    }
    Harness::new(c)
}

/// The shell's part of a resource request: completes the proof, returns its claims.
fn proof_of(s: &Sent) -> (Value, Value) {
    let p = s.header("dpop").expect("a DPoP proof");
    assert_eq!(
        p.split('.').count(),
        2,
        "the engine leaves the signature to the shell"
    );
    (decode_part(p, 0), decode_part(p, 1))
}

fn reason(e: &crate::error::Error) -> &str {
    e.data
        .as_ref()
        .and_then(|d| d["reason"].as_str())
        .unwrap_or("")
}

/// A refusal of the MCP server asking for a nonce (RFC 9449 §9).
/// An authorization server listing ES256 whose token endpoint wants `want` as its DPoP
/// nonce, and sends `header` as `DPoP-Nonce` (`None`: `want`; `"fresh"`: a new one each time).
fn nonce_as(want: &'static str, header: Option<&'static str>) -> DpopAs {
    DpopAs::new(Script {
        algs: es256(),
        as_nonce: Some(want),
        as_nonce_header: header,
        ..Default::default()
    })
}

/// An `authorize()` against `srv`, to succeed.
fn authorized(h: &mut Harness, srv: &mut DpopAs) {
    let op = h.core.authorize(h.now);
    srv.serve(h);
    h.ok(op);
}

/// An `authorize()` against `srv`, to fail: its error.
fn refused(h: &mut Harness, srv: &mut DpopAs) -> crate::error::Error {
    let op = h.core.authorize(h.now);
    srv.serve(h);
    h.err(op)
}

/// A read that goes out with `authorization`, answered.
fn read_with(h: &mut Harness, authorization: &str) {
    let op = read(h, "a");
    let s = h.take();
    assert_eq!(s.header("authorization"), Some(authorization));
    h.result(&s, done_result());
    h.ok(op);
}

fn nonce_401(h: &mut Harness, s: &Sent, nonce: &str) {
    h.core.on_head(
        s.xfer(),
        ResponseHead {
            status: 401,
            content_type: Some("application/json"),
            www_authenticate: Some(r#"DPoP error="use_dpop_nonce", algs="ES256""#),
            dpop_nonce: Some(nonce),
            ..Default::default()
        },
        h.now,
    );
    h.pump();
    h.chunk(s.xfer(), br#"{"error":"use_dpop_nonce"}"#);
    h.end(s.xfer());
}

#[test]
fn dpop_proofs_at_the_token_endpoint_and_on_every_request() {
    let mut h = harness(DpopMode::Auto);
    let mut srv = DpopAs::new(Script {
        algs: es256(),
        ..Default::default()
    });
    let op = read(&mut h, "a");
    let first = h.take();
    crate::engine::tests::auth::refuse(&mut h, &first, 401, &www401());
    srv.serve(&mut h);
    assert_eq!(
        srv.keys_asked,
        ["mcp-wasm-client:oauth:dpop:http://localhost:4000 dcr:http://localhost:9000/cb"]
    );
    let (header, claims) = srv.token_requests[0].0.clone().expect("a proof");
    assert_eq!(header["typ"], "dpop+jwt");
    assert_eq!(header["alg"], "ES256");
    assert!(header["jwk"].get("d").is_none());
    assert_eq!(claims["htm"], "POST");
    assert_eq!(claims["htu"], TOKEN);
    assert!(claims.get("ath").is_none(), "no access token yet");
    let again = h.take();
    assert_eq!(again.header("authorization"), Some("DPoP tok-1"));
    let (_, c1) = proof_of(&again);
    assert_eq!(c1["htm"], "POST");
    assert_eq!(c1["htu"], MCP);
    assert_eq!(c1["ath"], ath("tok-1"));
    assert_eq!(c1["iat"], h.now / 1000);
    h.result(&again, done_result());
    h.ok(op);
    let mut jtis = vec![claims["jti"].clone(), c1["jti"].clone()];
    for i in 0..3 {
        let op = read(&mut h, &format!("r{i}"));
        let s = h.take();
        assert_eq!(s.header("authorization"), Some("DPoP tok-1"));
        let (_, c) = proof_of(&s);
        assert_eq!(c["ath"], ath("tok-1"));
        jtis.push(c["jti"].clone());
        h.result(&s, done_result());
        h.ok(op);
    }
    let n = jtis.len();
    jtis.sort_by_key(|j| j.to_string());
    jtis.dedup();
    assert_eq!(jtis.len(), n, "every proof has its own jti");
    assert!(
        h.history.iter().all(|s| !s
            .header("authorization")
            .is_some_and(|a| a.starts_with("Bearer"))),
        "a DPoP-bound token is never sent as Bearer"
    );
}

#[test]
fn the_token_endpoints_nonce_is_taken_and_the_request_sent_again_once() {
    let mut h = harness(DpopMode::Auto);
    let mut srv = nonce_as("as-n1", None);
    authorized(&mut h, &mut srv);
    assert_eq!(srv.token_requests.len(), 2);
    let c0 = &srv.token_requests[0].0.as_ref().unwrap().1;
    let c1 = &srv.token_requests[1].0.as_ref().unwrap().1;
    assert!(c0.get("nonce").is_none());
    assert_eq!(c1["nonce"], "as-n1");
    assert_ne!(c0["jti"], c1["jti"], "a new proof");
    assert_eq!(
        srv.token_requests[0].1, srv.token_requests[1].1,
        "the same form"
    );
    // The nonce is the authorization server's: requests to the MCP server carry none.
    let op = read(&mut h, "a");
    let s = h.take();
    assert!(proof_of(&s).1.get("nonce").is_none());
    h.result(&s, done_result());
    h.ok(op);
}

#[test]
fn a_proof_refused_twice_is_an_authorization_error_without_a_loop() {
    let mut h = harness(DpopMode::Auto);
    let mut srv = nonce_as("never-given", Some("fresh"));
    let e = refused(&mut h, &mut srv);
    assert_eq!(e.kind, ErrorKind::Auth);
    assert_eq!(reason(&e), "dpop-nonce", "{e:?}");
    assert_eq!(srv.token_requests.len(), 2, "sent again once, not more");
}

#[test]
fn a_nonce_header_that_is_not_a_token_is_not_sent_back() {
    let mut h = harness(DpopMode::Auto);
    let mut srv = nonce_as("good", Some("not a\ttoken"));
    let e = refused(&mut h, &mut srv);
    assert_eq!(reason(&e), "dpop-nonce", "{e:?}");
    assert!(
        e.message.contains("without a valid DPoP-Nonce"),
        "{}",
        e.message
    );
    assert_eq!(srv.token_requests.len(), 1);
}

#[test]
fn the_mcp_servers_nonce_is_taken_once_then_a_second_refusal_fails() {
    let mut h = harness(DpopMode::Auto);
    let mut srv = DpopAs::new(Script {
        algs: es256(),
        ..Default::default()
    });
    let op = h.core.authorize(h.now);
    srv.serve(&mut h);
    h.ok(op);
    let op = read(&mut h, "a");
    let s = h.take();
    nonce_401(&mut h, &s, "rs-1");
    srv.serve(&mut h);
    let again = h.take();
    assert_eq!(again.body, s.body);
    assert_eq!(again.header("authorization"), Some("DPoP tok-1"));
    let c = proof_of(&again).1;
    assert_eq!(c["nonce"], "rs-1");
    assert_ne!(c["jti"], proof_of(&s).1["jti"]);
    h.result(&again, done_result());
    h.ok(op);
    assert_eq!(srv.token_requests.len(), 1, "no new flow for a nonce");
    // Later requests carry the nonce; refused again with the same one: an error, no loop.
    let op = read(&mut h, "b");
    let s = h.take();
    assert_eq!(proof_of(&s).1["nonce"], "rs-1");
    nonce_401(&mut h, &s, "rs-1");
    srv.serve(&mut h);
    let e = h.err(op);
    assert_eq!(reason(&e), "dpop-nonce", "{e:?}");
    assert!(h.try_take().is_none(), "nothing sent again");
    // A nonce header that is not a token: no retry either.
    let op = read(&mut h, "c");
    let s = h.take();
    nonce_401(&mut h, &s, "");
    srv.serve(&mut h);
    assert_eq!(reason(&h.err(op)), "dpop-nonce");
    assert!(h.try_take().is_none());
}

#[test]
fn a_token_type_other_than_asked_for_is_refused() {
    for (mode, algs, kind) in [
        (DpopMode::Auto, es256(), "Bearer"),
        (DpopMode::Auto, None, "DPoP"),
        (DpopMode::Off, es256(), "DPoP"),
    ] {
        let mut h = harness(mode);
        let mut srv = DpopAs::new(Script {
            algs,
            token_type: Some(kind),
            ..Default::default()
        });
        let op = read(&mut h, "a");
        let first = h.take();
        crate::engine::tests::auth::refuse(&mut h, &first, 401, &www401());
        srv.serve(&mut h);
        let e = h.err(op);
        assert_eq!(e.kind, ErrorKind::Auth);
        assert_eq!(reason(&e), "token-type", "{kind}: {e:?}");
        assert!(h.try_take().is_none(), "{kind}: no request with that token");
    }
}

#[test]
fn dpop_true_needs_an_authorization_server_that_lists_es256() {
    for algs in [None, Some(json!(["RS256"])), Some(json!([]))] {
        let mut h = harness(DpopMode::Required);
        let mut srv = DpopAs::new(Script {
            algs: algs.clone(),
            ..Default::default()
        });
        let op = h.core.authorize(h.now);
        srv.serve(&mut h);
        let e = h.err(op);
        assert_eq!(e.kind, ErrorKind::Auth);
        assert_eq!(reason(&e), "dpop-unsupported", "{algs:?}");
        assert!(srv.token_requests.is_empty(), "no token asked for");
    }
    // 'auto' goes on with Bearer tokens and no key.
    let mut h = harness(DpopMode::Auto);
    let mut srv = DpopAs::new(Script::default());
    let op = h.core.authorize(h.now);
    srv.serve(&mut h);
    h.ok(op);
    assert!(srv.keys_asked.is_empty());
    assert!(srv.token_requests[0].0.is_none(), "no proof");
    let op = read(&mut h, "a");
    let s = h.take();
    assert_eq!(s.header("authorization"), Some("Bearer tok-1"));
    assert!(s.header("dpop").is_none());
    h.result(&s, done_result());
    h.ok(op);
}

#[test]
fn a_shell_without_a_key_is_bearer_with_auto_and_an_error_with_true() {
    for (mode, ok) in [(DpopMode::Auto, true), (DpopMode::Required, false)] {
        let mut h = harness(mode);
        let mut srv = DpopAs::new(Script {
            algs: es256(),
            no_key: true,
            ..Default::default()
        });
        let op = h.core.authorize(h.now);
        srv.serve(&mut h);
        if ok {
            h.ok(op);
            assert!(srv.token_requests[0].0.is_none());
        } else {
            assert_eq!(reason(&h.err(op)), "dpop-key");
        }
    }
}

#[test]
fn a_refresh_of_a_dpop_token_uses_the_same_key() {
    let mut h = harness(DpopMode::Auto);
    let mut srv = DpopAs::new(Script {
        algs: es256(),
        refresh: true,
        ..Default::default()
    });
    let op = h.core.authorize(h.now);
    srv.serve(&mut h);
    h.ok(op);
    let op = read(&mut h, "a");
    let s = h.take();
    crate::engine::tests::auth::refuse(&mut h, &s, 401, "DPoP error=\"invalid_token\"");
    srv.serve(&mut h);
    assert_eq!(srv.keys_asked.len(), 1, "one key for the client's life");
    let (h0, _) = srv.token_requests[0].0.clone().unwrap();
    let (h1, c1) = srv.token_requests[1]
        .0
        .clone()
        .expect("the refresh has a proof");
    assert!(srv.token_requests[1].1.contains("grant_type=refresh_token"));
    assert_eq!(h0["jwk"], h1["jwk"]);
    assert_eq!(c1["htu"], TOKEN);
    let again = h.take();
    assert_eq!(again.header("authorization"), Some("DPoP tok-2"));
    assert_eq!(proof_of(&again).1["ath"], ath("tok-2"));
    h.result(&again, done_result());
    h.ok(op);
}

#[test]
fn private_key_jwt_signs_a_client_assertion_for_the_client_credentials_grant() {
    let mut h = assertion_client();
    let mut srv = DpopAs::new(Script::default());
    authorized(&mut h, &mut srv);
    assert_eq!(srv.signed.len(), 1);
    let input = &srv.signed[0];
    let hd = decode_part(input, 0);
    assert_eq!(
        (hd["alg"].as_str(), hd["kid"].as_str()),
        (Some("ES256"), Some("k1"))
    );
    let claims = decode_part(input, 1);
    assert_eq!(claims["iss"], "reports-bot");
    assert_eq!(claims["sub"], "reports-bot");
    assert_eq!(claims["aud"], AS);
    assert!(claims["exp"].as_u64().unwrap() <= h.now / 1000 + 300);
    let body = &srv.token_requests[0].1;
    assert_eq!(
        form_value(body, "grant_type").as_deref(),
        Some("client_credentials")
    );
    assert_eq!(
        form_value(body, "client_assertion_type").as_deref(),
        Some("urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
    );
    let jws = form_value(body, "client_assertion").unwrap();
    assert!(
        jws.starts_with(&format!("{input}.")),
        "the signed input, then the signature"
    );
    assert!(form_value(body, "client_secret").is_none());
    read_with(&mut h, "Bearer tok-1");
}

/// The client of `private_key_jwt` with the client credentials grant.
fn assertion_client() -> Harness {
    let mut c = cfg("2026-07-28");
    if let Some(a) = c.auth.as_mut() {
        a.client_credentials = true;
        a.client_id = Some("reports-bot".into());
        a.client_key = Some(ClientKey {
            alg: JwsAlg::Es256,
            key_id: Some("k1".into()),
        });
    }
    Harness::new(c)
}

#[test]
fn the_token_endpoints_nonce_retry_carries_a_new_client_assertion() {
    // RFC 7523 §3: an authorization server may accept a `jti` only once (oidc-provider
    // does); the first request's assertion was seen before its DPoP proof was refused.
    let mut h = assertion_client();
    let mut srv = nonce_as("as-n1", None);
    authorized(&mut h, &mut srv);
    assert_eq!(srv.token_requests.len(), 2, "sent again once");
    assert_eq!(
        srv.signed.len(),
        2,
        "a second assertion signed for the retry"
    );
    let assertion = |i: usize| form_value(&srv.token_requests[i].1, "client_assertion").unwrap();
    let (a0, a1) = (assertion(0), assertion(1));
    assert!(a0.starts_with(&format!("{}.", srv.signed[0])));
    assert!(a1.starts_with(&format!("{}.", srv.signed[1])));
    let (c0, c1) = (decode_part(&a0, 1), decode_part(&a1, 1));
    assert_ne!(c0["jti"], c1["jti"], "a new jti");
    assert_eq!(
        (&c1["iss"], &c1["aud"]),
        (&json!("reports-bot"), &json!(AS))
    );
    // The rest of the form is the same, once: no second assertion appended.
    let without = |i: usize| {
        crate::auth::url::query_params(&format!("x:?{}", srv.token_requests[i].1))
            .into_iter()
            .filter(|(k, _)| k != "client_assertion")
            .collect::<Vec<_>>()
    };
    assert_eq!(without(0), without(1));
    assert_eq!(
        without(1)
            .iter()
            .filter(|(k, _)| k == "client_assertion_type")
            .count(),
        1
    );
    // The retry's proof carries the nonce, and is a new proof.
    let p0 = &srv.token_requests[0].0.as_ref().unwrap().1;
    let p1 = &srv.token_requests[1].0.as_ref().unwrap().1;
    assert_eq!(p1["nonce"], "as-n1");
    assert_ne!(p0["jti"], p1["jti"]);
    read_with(&mut h, "DPoP tok-1");
}

#[test]
fn a_new_client_assertion_refused_for_its_nonce_again_is_an_error_without_a_loop() {
    let mut h = assertion_client();
    let mut srv = nonce_as("never-given", Some("fresh"));
    let e = refused(&mut h, &mut srv);
    assert_eq!(reason(&e), "dpop-nonce", "{e:?}");
    assert_eq!(srv.token_requests.len(), 2, "sent again once, not more");
    assert_eq!(srv.signed.len(), 2);
    // A later flow starts afresh: its request is sent again once too.
    assert_eq!(reason(&refused(&mut h, &mut srv)), "dpop-nonce");
    assert_eq!(srv.token_requests.len(), 4);
    assert_eq!(srv.signed.len(), 4);
}

#[test]
fn concurrent_requests_refused_for_the_same_nonce_are_each_sent_again() {
    let mut h = harness(DpopMode::Auto);
    let mut srv = DpopAs::new(Script {
        algs: es256(),
        ..Default::default()
    });
    let op = h.core.authorize(h.now);
    srv.serve(&mut h);
    h.ok(op);
    // Both leave before the server's nonce is known; both are refused for it.
    let (a, b) = (read(&mut h, "a"), read(&mut h, "b"));
    let (sa, sb) = (h.take(), h.take());
    nonce_401(&mut h, &sa, "rs-1");
    nonce_401(&mut h, &sb, "rs-1");
    srv.serve(&mut h);
    for (op, sent) in [(a, &sa), (b, &sb)] {
        let again = h.take();
        assert_eq!(again.body, sent.body);
        assert_eq!(proof_of(&again).1["nonce"], "rs-1");
        h.result(&again, done_result());
        h.ok(op);
    }
    assert!(h.try_take().is_none());
}

/// An answer of status `status` to `s` carrying `DPoP-Nonce: nonce`, with `body`; whole
/// (`Core::on_answer`, the shell's plain JSON answer) or in three steps.
fn answer_with_nonce(
    h: &mut Harness,
    s: &Sent,
    status: u16,
    nonce: &str,
    body: &[u8],
    whole: bool,
) {
    let head = ResponseHead {
        status,
        content_type: Some("application/json"),
        dpop_nonce: Some(nonce),
        ..Default::default()
    };
    if whole {
        h.core.on_answer(s.xfer(), head, body.to_vec(), h.now);
        h.pump();
    } else {
        h.core.on_head(s.xfer(), head, h.now);
        h.pump();
        h.chunk(s.xfer(), body);
        h.end(s.xfer());
    }
}

/// RFC 9449 §9 (and §8.2): a server may send a new nonce with any response, and the
/// client uses it in its next proof. A server that takes each nonce once (sending the next
/// with every answer) then never has to refuse a proof. The nonce was learnt only from a
/// refusal, so each request after a change cost a refusal more.
#[test]
fn a_nonce_that_comes_with_a_success_is_carried_by_the_next_proof() {
    let mut h = harness(DpopMode::Auto);
    let mut srv = DpopAs::new(Script {
        algs: es256(),
        ..Default::default()
    });
    authorized(&mut h, &mut srv);
    for (i, whole) in [(1, false), (2, true), (3, false)] {
        let op = read(&mut h, &format!("r{i}"));
        let s = h.take();
        let carried = proof_of(&s).1.get("nonce").cloned();
        let want = (i > 1).then(|| json!(format!("rs-{}", i - 1)));
        assert_eq!(carried, want, "request {i}");
        let body = result_body(&s, done_result());
        answer_with_nonce(&mut h, &s, 200, &format!("rs-{i}"), &body, whole);
        h.ok(op);
    }
    // One that is not a nonce is not taken: the last good one stays.
    let op = read(&mut h, "bad");
    let s = h.take();
    answer_with_nonce(
        &mut h,
        &s,
        200,
        "not a nonce",
        &result_body(&s, done_result()),
        false,
    );
    h.ok(op);
    let op = read(&mut h, "after");
    let s = h.take();
    assert_eq!(proof_of(&s).1["nonce"], "rs-3");
    h.result(&s, done_result());
    h.ok(op);
    assert_eq!(srv.token_requests.len(), 1, "no refusal, no new flow");
}

/// The token endpoint's nonce sent with the token (§8.2) is carried by the next token
/// request (a refresh), which no longer has to be refused first.
#[test]
fn the_token_endpoints_nonce_from_a_success_is_carried_by_the_refresh() {
    let mut h = harness(DpopMode::Auto);
    let mut srv = DpopAs::new(Script {
        algs: es256(),
        refresh: true,
        nonce_on_success: Some("as-next"),
        ..Default::default()
    });
    authorized(&mut h, &mut srv);
    assert!(srv.token_requests[0]
        .0
        .as_ref()
        .unwrap()
        .1
        .get("nonce")
        .is_none());
    // The token is refused (expired): a refresh, whose proof carries the nonce.
    let op = read(&mut h, "a");
    let s = h.take();
    assert!(
        proof_of(&s).1.get("nonce").is_none(),
        "the AS's nonce is not the MCP server's"
    );
    crate::engine::tests::auth::refuse(&mut h, &s, 401, r#"DPoP error="invalid_token""#);
    srv.serve(&mut h);
    assert_eq!(srv.token_requests.len(), 2);
    let (proof, form) = &srv.token_requests[1];
    assert!(form.contains("grant_type=refresh_token"), "{form}");
    assert_eq!(proof.as_ref().unwrap().1["nonce"], "as-next");
    let again = h.take();
    assert_eq!(again.header("authorization"), Some("DPoP tok-2"));
    h.result(&again, done_result());
    h.ok(op);
}

/// A refusal asking for a nonce is judged by the nonce the refused proof carried: every
/// request that left before the server asked for one is sent again with it, however many
/// were in flight. (Judged by a ring of the latest 64 proofs, the 65th and later failed
/// with `dpop-nonce`.)
#[test]
fn any_number_of_requests_in_flight_when_a_nonce_is_asked_for_are_sent_again() {
    let mut h = harness(DpopMode::Auto);
    let mut srv = DpopAs::new(Script {
        algs: es256(),
        ..Default::default()
    });
    authorized(&mut h, &mut srv);
    let ops: Vec<_> = (0..100).map(|i| read(&mut h, &format!("r{i}"))).collect();
    let sent: Vec<_> = (0..100).map(|_| h.take()).collect();
    for s in &sent {
        nonce_401(&mut h, s, "rs-1");
    }
    srv.serve(&mut h);
    for op in ops {
        let again = h.take();
        assert_eq!(proof_of(&again).1["nonce"], "rs-1");
        h.result(&again, done_result());
        h.ok(op);
    }
    assert!(h.try_take().is_none());
}

/// A nonce that comes with a refusal of the token itself (`invalid_token`) is carried by
/// the request sent again after the refresh (it was dropped, and the replay then spent its
/// last round on a `use_dpop_nonce`).
#[test]
fn a_nonce_that_comes_with_an_invalid_token_refusal_is_carried_by_the_replay() {
    let mut h = harness(DpopMode::Auto);
    let mut srv = DpopAs::new(Script {
        algs: es256(),
        refresh: true,
        ..Default::default()
    });
    authorized(&mut h, &mut srv);
    let op = read(&mut h, "a");
    let s = h.take();
    let body = br#"{"error":"invalid_token"}"#;
    h.core.on_head(
        s.xfer(),
        ResponseHead {
            status: 401,
            content_type: Some("application/json"),
            www_authenticate: Some(r#"DPoP error="invalid_token""#),
            dpop_nonce: Some("rs-5"),
            ..Default::default()
        },
        h.now,
    );
    h.pump();
    h.chunk(s.xfer(), body);
    h.end(s.xfer());
    srv.serve(&mut h);
    let again = h.take();
    assert_eq!(again.header("authorization"), Some("DPoP tok-2"));
    assert_eq!(proof_of(&again).1["nonce"], "rs-5");
    h.result(&again, done_result());
    h.ok(op);
}

/// RFC 9449 §7.1: a server that accepts both schemes may send both challenges. A 403 whose
/// `insufficient_scope` is on the `DPoP` challenge, beside a plain `Bearer` one, is a
/// step-up for a client holding a DPoP-bound token (the Bearer one was read first, so the
/// refusal reached the caller as an HttpError 403 and no step-up ran).
#[test]
fn a_step_up_reads_the_challenge_of_the_scheme_the_token_uses() {
    let mut h = harness(DpopMode::Auto);
    let mut srv = DpopAs::new(Script {
        algs: es256(),
        ..Default::default()
    });
    authorized(&mut h, &mut srv);
    let op = read(&mut h, "write");
    let s = h.take();
    assert_eq!(s.header("authorization"), Some("DPoP tok-1"));
    let w = format!(
        "Bearer realm=\"mcp\", DPoP algs=\"ES256\", error=\"insufficient_scope\", scope=\"mcp:write\", resource_metadata=\"{PRM}\""
    );
    crate::engine::tests::auth::refuse(&mut h, &s, 403, &w);
    srv.serve(&mut h);
    assert_eq!(srv.token_requests.len(), 2, "a second flow: the step-up");
    let again = h.take();
    assert_eq!(again.header("authorization"), Some("DPoP tok-2"));
    h.result(&again, done_result());
    h.ok(op);
}
