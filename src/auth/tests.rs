//! The flow against scripted servers: every effect is answered by a fake resource server,
//! authorization server, person and storage. Deterministic: random bytes are fixed.
// The fake person answers with the crate's `Result`, as the shell does.
#![allow(clippy::result_large_err)]

use super::challenge::bearer;
use super::flow::*;
use super::url::query_params;
use crate::error::{Error, ErrorKind, Result};
use crate::http::request::HttpMethod;
use crate::json;
use crate::json::Value;
use std::collections::{HashMap, VecDeque};

const MCP: &str = "http://localhost:3000/mcp";
const AS: &str = "http://localhost:4000";
const PRM_PATH: &str = "http://localhost:3000/.well-known/oauth-protected-resource/mcp";
const REDIRECT: &str = "http://localhost:9000/callback";

type Person = Box<dyn Fn(&AuthorizeReq, &str) -> Result<String>>;

struct Fake {
    routes: HashMap<(&'static str, String), (u16, String)>,
    fetched: Vec<FetchReq>,
    authorizes: Vec<AuthorizeReq>,
    store: HashMap<String, String>,
    loads: Vec<String>,
    /// Builds the callback URL from the request and its `state`.
    person: Person,
    /// The byte the fake platform's random bytes are made of.
    seed: u8,
}

/// The person approves: the AS redirects with a code, the state and its issuer.
fn approve(r: &AuthorizeReq, state: &str) -> Result<String> {
    Ok(format!(
        "{}?code=c0de&state={state}&iss={}",
        r.redirect_uri,
        super::url::form(&[("x", &r.issuer)]).trim_start_matches("x=")
    ))
}

impl Fake {
    fn new() -> Fake {
        Fake {
            routes: HashMap::new(),
            fetched: Vec::new(),
            authorizes: Vec::new(),
            store: HashMap::new(),
            loads: Vec::new(),
            person: Box::new(approve),
            seed: 7,
        }
    }

    fn route(&mut self, method: HttpMethod, url: &str, status: u16, body: Value) -> &mut Fake {
        self.routes.insert(
            (method.as_str(), url.to_string()),
            (status, body.to_string()),
        );
        self
    }

    /// A PRM at the path-based location naming the AS, and the AS's RFC 8414 metadata.
    fn standard(&mut self, extra_meta: Value) -> &mut Fake {
        self.route(
            HttpMethod::Get,
            PRM_PATH,
            200,
            json!({"resource": MCP, "authorization_servers": [AS]}),
        );
        let mut meta = json!({
            "issuer": AS,
            "authorization_endpoint": format!("{AS}/authorize"),
            "token_endpoint": format!("{AS}/token"),
            "registration_endpoint": format!("{AS}/register"),
            "code_challenge_methods_supported": ["S256"],
            "authorization_response_iss_parameter_supported": true,
            "token_endpoint_auth_methods_supported": ["none"],
        });
        if let (Some(m), Value::Object(x)) = (meta.as_object_mut(), extra_meta) {
            for (k, v) in x {
                if v.is_null() {
                    m.remove(&k);
                } else {
                    m.insert(k, v);
                }
            }
        }
        self.route(
            HttpMethod::Get,
            &format!("{AS}/.well-known/oauth-authorization-server"),
            200,
            meta,
        );
        self.route(
            HttpMethod::Post,
            &format!("{AS}/register"),
            201,
            json!({"client_id": "dcr-client", "client_secret": "dcr-secret"}),
        );
        self.route(
            HttpMethod::Post,
            &format!("{AS}/token"),
            200,
            json!({"access_token": "tok-1", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "ref-1"}),
        )
    }

    fn urls(&self) -> Vec<String> {
        self.fetched.iter().map(|r| r.url.clone()).collect()
    }

    fn posted(&self, url_suffix: &str) -> Option<&FetchReq> {
        self.fetched
            .iter()
            .rev()
            .find(|r| r.method == HttpMethod::Post && r.url.ends_with(url_suffix))
    }

    fn run(&mut self, a: &mut Authorizer, t: Trigger) -> Result<String> {
        let mut q: VecDeque<Effect> = a.start(t, 1_000).into();
        let mut guard = 0;
        while let Some(e) = q.pop_front() {
            guard += 1;
            assert!(guard < 100, "runaway flow");
            match e {
                Effect::Fetch(r) => {
                    let (st, body) = self
                        .routes
                        .get(&(r.method.as_str(), r.url.clone()))
                        .cloned()
                        .unwrap_or((404, "Not Found".into()));
                    self.fetched.push(r);
                    q.extend(a.on_fetch(st, body.as_bytes(), 1_000));
                }
                Effect::Random(n) => q.extend(a.on_random(&vec![self.seed; n])),
                Effect::Authorize(r) => {
                    let state = query_params(&r.url)
                        .into_iter()
                        .find(|(k, _)| k == "state")
                        .map(|(_, v)| v)
                        .unwrap_or_default();
                    let cb = (self.person)(&r, &state);
                    self.authorizes.push(r);
                    q.extend(a.on_callback(cb));
                }
                Effect::Load(k) => {
                    self.loads.push(k.clone());
                    q.extend(a.on_loaded(self.store.get(&k).cloned()));
                }
                Effect::Save(k, v) => {
                    self.store.insert(k, v);
                }
                Effect::Lock(_) => q.extend(a.on_locked()),
                Effect::Announce(_) => {}
                Effect::Key(_) => q.extend(a.on_key(true)),
                Effect::Sign(_) => q.extend(a.on_signed(Some(vec![1, 2, 3]))),
                Effect::Done(r) => {
                    assert!(q.is_empty());
                    assert!(!a.running());
                    return r;
                }
            }
        }
        panic!("the flow stopped without Done");
    }
}

fn cfg() -> AuthConfig {
    AuthConfig {
        redirect_uri: REDIRECT.into(),
        client_name: "test-app".into(),
        ..Default::default()
    }
}

fn on401(header: &str) -> Trigger {
    Trigger {
        status: 401,
        challenge: bearer(header, false),
        ..Default::default()
    }
}

fn form_of(r: &FetchReq) -> HashMap<String, String> {
    query_params(&format!("?{}", r.body.as_deref().unwrap_or("")))
        .into_iter()
        .collect()
}

fn query_of(r: &AuthorizeReq) -> HashMap<String, String> {
    query_params(&r.url).into_iter().collect()
}

fn reason(e: &Error) -> &str {
    e.data
        .as_ref()
        .and_then(|d| d["reason"].as_str())
        .unwrap_or("")
}

#[test]
fn full_flow_with_dcr_pkce_resource_and_iss() {
    let mut f = Fake::new();
    f.standard(json!({}));
    let mut a = Authorizer::new(cfg(), MCP);
    let h = format!(
        "Bearer error=\"invalid_token\", resource_metadata=\"{PRM_PATH}\", scope=\"mcp:basic\""
    );
    assert_eq!(f.run(&mut a, on401(&h)).unwrap(), "tok-1");
    assert_eq!(
        f.urls(),
        [
            PRM_PATH.to_string(),
            format!("{AS}/.well-known/oauth-authorization-server"),
            format!("{AS}/register"),
            format!("{AS}/token"),
        ]
    );
    // Discovery requests carry no MCP or host headers.
    assert_eq!(
        f.fetched[0].headers,
        [("Accept".to_string(), "application/json".to_string())]
    );
    let reg: Value = serde_json::from_str(f.fetched[2].body.as_deref().unwrap()).unwrap();
    assert_eq!(reg["application_type"], "native");
    assert_eq!(reg["redirect_uris"], json!([REDIRECT]));
    assert!(reg["grant_types"]
        .as_array()
        .unwrap()
        .contains(&json!("refresh_token")));
    let q = query_of(&f.authorizes[0]);
    assert_eq!(q["response_type"], "code");
    assert_eq!(q["client_id"], "dcr-client");
    assert_eq!(q["code_challenge_method"], "S256");
    assert_eq!(q["resource"], MCP);
    assert_eq!(q["scope"], "mcp:basic");
    assert_eq!(q["redirect_uri"], REDIRECT);
    let t = form_of(f.posted("/token").unwrap());
    assert_eq!(t["grant_type"], "authorization_code");
    assert_eq!(t["code"], "c0de");
    assert_eq!(t["resource"], MCP);
    assert_eq!(t["redirect_uri"], REDIRECT);
    // The DCR response had a secret but the server supports only `none`.
    assert_eq!(t["client_id"], "dcr-client");
    assert_eq!(
        super::pkce::challenge(&t["code_verifier"]),
        q["code_challenge"]
    );
    assert_eq!(a.token_for(AS).unwrap().refresh.as_deref(), Some("ref-1"));
}

#[test]
fn prm_well_known_order_and_root_resource() {
    let mut f = Fake::new();
    f.standard(json!({}));
    f.routes.remove(&("GET", PRM_PATH.to_string()));
    f.route(
        HttpMethod::Get,
        "http://localhost:3000/.well-known/oauth-protected-resource",
        200,
        json!({"resource": "http://localhost:3000", "authorization_servers": [AS], "scopes_supported": ["a", "b"]}),
    );
    let mut a = Authorizer::new(cfg(), MCP);
    assert!(f.run(&mut a, on401("Bearer")).is_ok());
    assert_eq!(f.fetched[0].url, PRM_PATH);
    assert_eq!(
        f.fetched[1].url,
        "http://localhost:3000/.well-known/oauth-protected-resource"
    );
    let q = query_of(&f.authorizes[0]);
    // Exactly as published, and the PRM's scopes when the challenge has none.
    assert_eq!(q["resource"], "http://localhost:3000");
    assert_eq!(q["scope"], "a b");
    assert_eq!(
        form_of(f.posted("/token").unwrap())["resource"],
        "http://localhost:3000"
    );
}

#[test]
fn resource_mismatch_stops_before_the_authorization_server() {
    let mut f = Fake::new();
    f.standard(json!({}));
    f.route(
        HttpMethod::Get,
        PRM_PATH,
        200,
        json!({"resource": "https://evil.example.com/mcp", "authorization_servers": [AS]}),
    );
    let mut a = Authorizer::new(cfg(), MCP);
    let e = f.run(&mut a, on401("Bearer")).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Auth);
    assert_eq!(reason(&e), "resource-mismatch");
    assert_eq!(f.fetched.len(), 1);
    assert!(f.authorizes.is_empty());
}

#[test]
fn metadata_issuer_mismatch_is_refused() {
    let mut f = Fake::new();
    f.standard(json!({"issuer": "https://attacker.example.com"}));
    let mut a = Authorizer::new(cfg(), MCP);
    let e = f.run(&mut a, on401("Bearer")).unwrap_err();
    assert_eq!(reason(&e), "issuer-mismatch");
    // Both discovery locations tried, no endpoint of the poisoned document used.
    assert_eq!(f.fetched.len(), 3);
    assert!(f.posted("/register").is_none() && f.authorizes.is_empty());
}

#[test]
fn no_pkce_support_is_refused() {
    let mut f = Fake::new();
    f.standard(json!({"code_challenge_methods_supported": null}));
    let mut a = Authorizer::new(cfg(), MCP);
    let e = f.run(&mut a, on401("Bearer")).unwrap_err();
    assert_eq!(reason(&e), "no-pkce");
    assert!(f.authorizes.is_empty());
}

#[test]
fn as_discovery_with_a_path_tries_the_spec_order() {
    let mut f = Fake::new();
    let iss = format!("{AS}/tenant1");
    f.route(
        HttpMethod::Get,
        PRM_PATH,
        200,
        json!({"resource": MCP, "authorization_servers": [iss]}),
    );
    f.route(
        HttpMethod::Get,
        &format!("{AS}/tenant1/.well-known/openid-configuration"),
        200,
        json!({"issuer": iss, "authorization_endpoint": format!("{iss}/authorize"),
               "token_endpoint": format!("{iss}/token"), "registration_endpoint": format!("{iss}/register"),
               "code_challenge_methods_supported": ["S256"]}),
    );
    f.route(
        HttpMethod::Post,
        &format!("{iss}/register"),
        201,
        json!({"client_id": "c"}),
    );
    f.route(
        HttpMethod::Post,
        &format!("{iss}/token"),
        200,
        json!({"access_token": "t", "token_type": "bearer"}),
    );
    let mut a = Authorizer::new(cfg(), MCP);
    assert_eq!(f.run(&mut a, on401("Bearer")).unwrap(), "t");
    assert_eq!(
        &f.urls()[1..4],
        [
            format!("{AS}/.well-known/oauth-authorization-server/tenant1"),
            format!("{AS}/.well-known/openid-configuration/tenant1"),
            format!("{AS}/tenant1/.well-known/openid-configuration"),
        ]
    );
}

/// RFC 9207 table of the spec, plus the no-normalization rule.
#[test]
fn iss_validation_table() {
    let cases: [(bool, Option<&str>, bool); 6] = [
        (true, Some(AS), true),
        (true, None, false),
        (false, None, true),
        (false, Some("https://evil.example.com"), false),
        (true, Some("https://evil.example.com"), false),
        (true, Some("http://localhost:4000/"), false),
    ];
    for (supported, iss, accepted) in cases {
        let mut f = Fake::new();
        f.standard(json!({"authorization_response_iss_parameter_supported": supported}));
        let iss = iss.map(str::to_string);
        f.person = Box::new(move |r, state| {
            let mut u = format!(
                "{}?code=c&state={state}&error=should_be_ignored",
                r.redirect_uri
            );
            if let Some(i) = &iss {
                u.push_str(&format!(
                    "&iss={}",
                    super::url::form(&[("x", i)]).trim_start_matches("x=")
                ));
            }
            Ok(u)
        });
        let mut a = Authorizer::new(cfg(), MCP);
        let r = f.run(&mut a, on401("Bearer"));
        if accepted {
            // Accepted iss: the error then counts (the server refused).
            assert_eq!(
                reason(&r.unwrap_err()),
                "authorization-error",
                "{supported}"
            );
        } else {
            let e = r.unwrap_err();
            assert!(
                matches!(reason(&e), "iss-mismatch" | "iss-missing"),
                "{supported}"
            );
            assert!(!e.message.contains("should_be_ignored"));
        }
        assert!(f.posted("/token").is_none());
    }
}

#[test]
fn state_must_match_and_host_errors_pass_through() {
    let mut f = Fake::new();
    f.standard(json!({}));
    f.person = Box::new(|r, _| Ok(format!("{}?code=c&state=forged&iss={AS}", r.redirect_uri)));
    let mut a = Authorizer::new(cfg(), MCP);
    assert_eq!(
        reason(&f.run(&mut a, on401("Bearer")).unwrap_err()),
        "state-mismatch"
    );
    let mut f = Fake::new();
    f.standard(json!({}));
    f.person = Box::new(|_, _| Err(Error::handler(Some(7), "popup closed")));
    let mut a = Authorizer::new(cfg(), MCP);
    let e = f.run(&mut a, on401("Bearer")).unwrap_err();
    assert_eq!((e.kind, e.host_ref), (ErrorKind::Handler, Some(7)));
}

#[test]
fn scope_omitted_when_nothing_names_one_and_offline_access_when_listed() {
    let mut f = Fake::new();
    f.standard(json!({}));
    let mut a = Authorizer::new(cfg(), MCP);
    f.run(&mut a, on401("Bearer")).unwrap();
    assert!(!query_of(&f.authorizes[0]).contains_key("scope"));

    let mut f = Fake::new();
    f.standard(json!({"scopes_supported": ["mcp:basic", "offline_access"]}));
    let mut a = Authorizer::new(cfg(), MCP);
    f.run(&mut a, on401("Bearer scope=\"mcp:basic\"")).unwrap();
    assert_eq!(
        query_of(&f.authorizes[0])["scope"],
        "mcp:basic offline_access"
    );

    let mut f = Fake::new();
    f.standard(json!({"scopes_supported": ["mcp:basic", "mcp:read"]}));
    let mut a = Authorizer::new(cfg(), MCP);
    f.run(&mut a, on401("Bearer scope=\"mcp:basic mcp:read\""))
        .unwrap();
    assert!(!query_of(&f.authorizes[0])["scope"].contains("offline_access"));
}

#[test]
fn step_up_asks_for_the_union_and_never_refreshes() {
    let mut f = Fake::new();
    f.standard(json!({}));
    let mut a = Authorizer::new(cfg(), MCP);
    f.run(&mut a, on401("Bearer scope=\"mcp:basic\"")).unwrap();
    let t = Trigger {
        status: 403,
        challenge: bearer(
            "Bearer error=\"insufficient_scope\", scope=\"mcp:write\"",
            false,
        ),
        sent_token: Some("tok-1".into()),
        legacy_fallback: false,
    };
    f.run(&mut a, t).unwrap();
    assert_eq!(f.authorizes.len(), 2);
    assert_eq!(query_of(&f.authorizes[1])["scope"], "mcp:basic mcp:write");
    // The registration is reused; no refresh grant for a step-up.
    assert_eq!(
        f.fetched
            .iter()
            .filter(|r| r.url.ends_with("/register"))
            .count(),
        1
    );
    assert!(f
        .fetched
        .iter()
        .filter(|r| r.url.ends_with("/token"))
        .all(|r| !r.body.as_deref().unwrap_or("").contains("refresh_token")));
}

#[test]
fn refused_token_is_refreshed_then_reauthorized_when_refresh_fails() {
    let mut f = Fake::new();
    f.standard(json!({}));
    let mut a = Authorizer::new(cfg(), MCP);
    f.run(&mut a, on401("Bearer")).unwrap();
    f.route(
        HttpMethod::Post,
        &format!("{AS}/token"),
        200,
        json!({"access_token": "tok-2", "token_type": "Bearer"}),
    );
    let t = Trigger {
        status: 401,
        sent_token: Some("tok-1".into()),
        ..Default::default()
    };
    assert_eq!(f.run(&mut a, t.clone()).unwrap(), "tok-2");
    let refresh = form_of(f.posted("/token").unwrap());
    assert_eq!(refresh["grant_type"], "refresh_token");
    assert_eq!(refresh["refresh_token"], "ref-1");
    assert_eq!(refresh["resource"], MCP);
    assert_eq!(f.authorizes.len(), 1, "no person needed");
    // The refresh token was kept (the response had none).
    assert_eq!(a.token_for(AS).unwrap().refresh.as_deref(), Some("ref-1"));
    // Now the refresh is refused: the person signs in again.
    f.routes.insert(
        ("POST", format!("{AS}/token")),
        (400, json!({"error": "invalid_grant"}).to_string()),
    );
    let t = Trigger {
        sent_token: Some("tok-2".into()),
        ..t
    };
    assert_eq!(reason(&f.run(&mut a, t).unwrap_err()), "token");
    assert_eq!(f.authorizes.len(), 2);
}

#[test]
fn client_identity_priority() {
    // Pre-registered first, with the method the server supports.
    let mut f = Fake::new();
    f.standard(
        json!({"token_endpoint_auth_methods_supported": ["client_secret_basic"],
                      "client_id_metadata_document_supported": true}),
    );
    let mut c = cfg();
    c.client_id = Some("pre".into());
    c.client_secret = Some("sec".into());
    c.client_metadata_url = Some("https://app.example/client.json".into());
    let mut a = Authorizer::new(c, MCP);
    f.run(&mut a, on401("Bearer")).unwrap();
    assert!(f.posted("/register").is_none());
    let tok = f.posted("/token").unwrap();
    assert!(tok
        .headers
        .iter()
        .any(|(n, v)| n == "Authorization" && v.starts_with("Basic ")));
    assert!(!form_of(tok).contains_key("client_secret"));

    // CIMD when supported.
    let mut f = Fake::new();
    f.standard(json!({"client_id_metadata_document_supported": true}));
    let mut c = cfg();
    c.client_metadata_url = Some("https://app.example/client.json".into());
    let mut a = Authorizer::new(c.clone(), MCP);
    f.run(&mut a, on401("Bearer")).unwrap();
    assert!(f.posted("/register").is_none());
    assert_eq!(
        query_of(&f.authorizes[0])["client_id"],
        "https://app.example/client.json"
    );

    // Not supported: DCR, with the method the registration answered.
    let mut f = Fake::new();
    f.standard(json!({}));
    f.route(
        HttpMethod::Post,
        &format!("{AS}/register"),
        201,
        json!({"client_id": "d", "client_secret": "s", "token_endpoint_auth_method": "client_secret_post"}),
    );
    let mut a = Authorizer::new(c, MCP);
    f.run(&mut a, on401("Bearer")).unwrap();
    let t = form_of(f.posted("/token").unwrap());
    assert_eq!(
        (t["client_id"].as_str(), t["client_secret"].as_str()),
        ("d", "s")
    );

    // A pre-registered client bound to another server is not used there.
    let mut f = Fake::new();
    f.standard(json!({}));
    let mut c = cfg();
    c.client_id = Some("pre".into());
    c.client_issuer = Some("https://other.example".into());
    let mut a = Authorizer::new(c, MCP);
    assert_eq!(
        reason(&f.run(&mut a, on401("Bearer")).unwrap_err()),
        "client-mismatch"
    );

    // Without `issuer`, the first authorization server it is used with binds it: a later
    // flow that discovers another server does not send the secret there.
    let mut f = Fake::new();
    f.standard(json!({"token_endpoint_auth_methods_supported": ["client_secret_post"]}));
    let mut c = cfg();
    c.client_id = Some("pre".into());
    c.client_secret = Some("s".into());
    let mut a = Authorizer::new(c, MCP);
    f.run(&mut a, on401("Bearer")).unwrap();
    let as2 = "http://localhost:4001";
    let mut g = Fake::new();
    g.route(
        HttpMethod::Get,
        PRM_PATH,
        200,
        json!({"resource": MCP, "authorization_servers": [as2]}),
    );
    g.route(
        HttpMethod::Get,
        &format!("{as2}/.well-known/oauth-authorization-server"),
        200,
        json!({"issuer": as2, "authorization_endpoint": format!("{as2}/authorize"),
               "token_endpoint": format!("{as2}/token"), "code_challenge_methods_supported": ["S256"],
               "token_endpoint_auth_methods_supported": ["client_secret_post"]}),
    );
    assert_eq!(
        reason(&g.run(&mut a, on401("Bearer")).unwrap_err()),
        "client-mismatch"
    );
    assert!(
        g.posted("/token").is_none(),
        "nothing sent to the other server's token endpoint"
    );

    // Nothing at all: an error that says what to configure.
    let mut f = Fake::new();
    f.standard(json!({"registration_endpoint": null}));
    let mut a = Authorizer::new(cfg(), MCP);
    let e = f.run(&mut a, on401("Bearer")).unwrap_err();
    assert_eq!(reason(&e), "no-client");
    assert!(e.message.contains("clientId"));
}

#[test]
fn client_credentials_grant_needs_no_person_and_replaces_a_refused_token() {
    let mut f = Fake::new();
    f.standard(
        json!({"token_endpoint_auth_methods_supported": ["client_secret_basic"],
                      "grant_types_supported": ["client_credentials"],
                      "scopes_supported": ["offline_access", "tools"]}),
    );
    f.route(
        HttpMethod::Post,
        &format!("{AS}/token"),
        200,
        json!({"access_token": "cc-1", "token_type": "Bearer", "expires_in": 3600}),
    );
    let c = AuthConfig {
        client_id: Some("machine".into()),
        client_secret: Some("s3cret".into()),
        client_credentials: true,
        ..Default::default()
    };
    let mut a = Authorizer::new(c, MCP);
    let header = r#"Bearer scope="tools""#;
    assert_eq!(f.run(&mut a, on401(header)).unwrap(), "cc-1");
    let tok = f.posted("/token").unwrap();
    let form = form_of(tok);
    assert_eq!(form["grant_type"], "client_credentials");
    assert_eq!(form["resource"], MCP);
    assert_eq!(
        form["scope"], "tools",
        "no offline_access: this grant has no refresh token"
    );
    assert!(!form.contains_key("client_secret"), "client_secret_basic");
    let basic = tok
        .headers
        .iter()
        .find(|(n, _)| n == "Authorization")
        .map(|(_, v)| v.as_str());
    // base64("machine:s3cret")
    assert_eq!(basic, Some("Basic bWFjaGluZTpzM2NyZXQ="));
    assert!(f.authorizes.is_empty(), "no person");
    assert!(f.posted("/register").is_none(), "no registration");
    // The token is refused later: a new one the same way (no refresh token to use).
    f.route(
        HttpMethod::Post,
        &format!("{AS}/token"),
        200,
        json!({"access_token": "cc-2", "token_type": "Bearer"}),
    );
    let t = Trigger {
        status: 401,
        sent_token: Some("cc-1".into()),
        ..Default::default()
    };
    assert_eq!(f.run(&mut a, t).unwrap(), "cc-2");
    assert_eq!(
        form_of(f.posted("/token").unwrap())["grant_type"],
        "client_credentials"
    );
    // The authorization server refuses the client: a typed error, no person.
    f.routes.insert(
        ("POST", format!("{AS}/token")),
        (401, json!({"error": "invalid_client"}).to_string()),
    );
    let t = Trigger {
        status: 401,
        sent_token: Some("cc-2".into()),
        ..Default::default()
    };
    let e = f.run(&mut a, t).unwrap_err();
    assert_eq!(reason(&e), "token");
    assert!(e.message.contains("invalid_client"), "{}", e.message);
    assert!(f.authorizes.is_empty());
}

#[test]
fn authorization_server_change_registers_again() {
    let mut f = Fake::new();
    f.standard(json!({}));
    let mut a = Authorizer::new(cfg(), MCP);
    f.run(&mut a, on401("Bearer")).unwrap();
    let as2 = "http://localhost:5000";
    f.route(
        HttpMethod::Get,
        PRM_PATH,
        200,
        json!({"resource": MCP, "authorization_servers": [as2]}),
    );
    f.route(
        HttpMethod::Get,
        &format!("{as2}/.well-known/oauth-authorization-server"),
        200,
        json!({"issuer": as2, "authorization_endpoint": format!("{as2}/authorize"),
               "token_endpoint": format!("{as2}/token"), "registration_endpoint": format!("{as2}/register"),
               "code_challenge_methods_supported": ["S256"]}),
    );
    f.route(
        HttpMethod::Post,
        &format!("{as2}/register"),
        201,
        json!({"client_id": "as2-client"}),
    );
    f.route(
        HttpMethod::Post,
        &format!("{as2}/token"),
        200,
        json!({"access_token": "as2-tok", "token_type": "Bearer"}),
    );
    let t = Trigger {
        status: 401,
        sent_token: Some("tok-1".into()),
        ..Default::default()
    };
    assert_eq!(f.run(&mut a, t).unwrap(), "as2-tok");
    assert_eq!(query_of(&f.authorizes[1])["client_id"], "as2-client");
    // The first server's refresh token was not sent to the second.
    assert!(f
        .fetched
        .iter()
        .filter(|r| r.url.starts_with(as2))
        .all(|r| !r.body.as_deref().unwrap_or("").contains("dcr-client")));
}

#[test]
fn storage_keeps_registrations_and_tokens_by_issuer() {
    let mut f = Fake::new();
    f.standard(json!({}));
    let mut c = cfg();
    c.storage = true;
    let mut a = Authorizer::new(c.clone(), MCP);
    f.run(&mut a, on401("Bearer")).unwrap();
    assert_eq!(
        f.loads,
        [client_key(AS), tokens_key(AS, MCP)],
        "loaded before use"
    );
    assert!(f.store.contains_key(&client_key(AS)));
    assert!(f.store[&tokens_key(AS, MCP)].contains("tok-1"));
    // A new client (a page reload): the stored token is used without a person.
    let mut a = Authorizer::new(c, MCP);
    let before = f.fetched.len();
    assert_eq!(f.run(&mut a, on401("Bearer")).unwrap(), "tok-1");
    assert_eq!(f.authorizes.len(), 1);
    assert!(f.fetched[before..]
        .iter()
        .all(|r| r.method == HttpMethod::Get));
}

#[test]
fn a_stored_request_is_finished_by_the_next_client() {
    // The redirect pattern: the page's client sends the person to the authorization server
    // and is gone with the page; the page's next client is handed the URL it came back to.
    let mut f = Fake::new();
    f.standard(json!({}));
    let mut c = cfg();
    c.storage = true;
    let mut a = Authorizer::new(c.clone(), MCP);
    let away = std::rc::Rc::new(std::cell::RefCell::new(String::new()));
    let keep = away.clone();
    f.person = Box::new(move |r, state| {
        *keep.borrow_mut() = approve(r, state)?;
        Err(Error::new(ErrorKind::Abort, "the page navigated away"))
    });
    assert!(f.run(&mut a, on401("Bearer scope=\"mcp:basic\"")).is_err());
    let first = crate::auth::pkce::new(&[7u8; 48]).unwrap();
    let kept = pending_key(AS, MCP, &first.state);
    assert_eq!(f.store[&kept], format!("{} mcp:basic", first.verifier));
    // The next page: its own request has another state; the callback names the first one.
    f.seed = 9;
    let back = away.borrow().clone();
    f.person = Box::new(move |_, _| Ok(back.clone()));
    let mut a = Authorizer::new(c.clone(), MCP);
    assert_eq!(f.run(&mut a, on401("Bearer")).unwrap(), "tok-1");
    // The stored request's scope, not the one the second client asked for.
    assert_eq!(a.token_for(AS).unwrap().scope.as_deref(), Some("mcp:basic"));
    assert_eq!(f.authorizes.len(), 2);
    assert_ne!(query_of(&f.authorizes[1])["state"], first.state);
    assert_eq!(
        form_of(f.posted("/token").unwrap())["code_verifier"],
        first.verifier
    );
    assert_eq!(f.store[&kept], "", "used once");
    // A state that names no stored request is refused, as without storage.
    f.person = Box::new(|r, _| approve(r, "forged"));
    let mut c2 = c;
    c2.scope = Some("other".into()); // no stored token is usable for a 403 step-up either
    let mut a = Authorizer::new(c2, MCP);
    let t = Trigger {
        status: 403,
        challenge: bearer("Bearer error=\"insufficient_scope\", scope=\"more\"", false),
        ..Default::default()
    };
    let e = f.run(&mut a, t).unwrap_err();
    assert_eq!(reason(&e), "state-mismatch");
    assert_eq!(f.loads.last().unwrap(), &pending_key(AS, MCP, "forged"));
}

#[test]
fn legacy_fallbacks_of_2025_03_26() {
    // No PRM: metadata at the server's origin.
    let mut f = Fake::new();
    f.route(
        HttpMethod::Get,
        "http://localhost:3000/.well-known/oauth-authorization-server",
        200,
        json!({"issuer": "http://localhost:3000", "authorization_endpoint": "http://localhost:3000/oauth/authorize",
               "token_endpoint": "http://localhost:3000/oauth/token", "registration_endpoint": "http://localhost:3000/oauth/register",
               "code_challenge_methods_supported": ["S256"]}),
    );
    f.route(
        HttpMethod::Post,
        "http://localhost:3000/oauth/register",
        201,
        json!({"client_id": "c"}),
    );
    f.route(
        HttpMethod::Post,
        "http://localhost:3000/oauth/token",
        200,
        json!({"access_token": "t", "token_type": "Bearer"}),
    );
    let t = Trigger {
        status: 401,
        legacy_fallback: true,
        ..Default::default()
    };
    let mut a = Authorizer::new(cfg(), MCP);
    assert_eq!(f.run(&mut a, t.clone()).unwrap(), "t");
    assert_eq!(query_of(&f.authorizes[0])["resource"], MCP);

    // No metadata at all: the default endpoints.
    let mut f = Fake::new();
    f.route(
        HttpMethod::Post,
        "http://localhost:3000/register",
        201,
        json!({"client_id": "c"}),
    );
    f.route(
        HttpMethod::Post,
        "http://localhost:3000/token",
        200,
        json!({"access_token": "t2", "token_type": "Bearer"}),
    );
    f.person = Box::new(|r, state| Ok(format!("{}?code=c&state={state}", r.redirect_uri)));
    let mut a = Authorizer::new(cfg(), MCP);
    assert_eq!(f.run(&mut a, t).unwrap(), "t2");
    assert!(f.authorizes[0]
        .url
        .starts_with("http://localhost:3000/authorize?"));

    // The defaults of a plain-http server that is not local are not used.
    let mut f = Fake::new();
    let t = Trigger {
        status: 401,
        legacy_fallback: true,
        ..Default::default()
    };
    let mut a = Authorizer::new(cfg(), "http://mcp.example.com/mcp");
    assert_eq!(reason(&f.run(&mut a, t).unwrap_err()), "insecure-endpoint");
    assert!(f.authorizes.is_empty());

    // Without the fallback (2026-07-28), no PRM is an error.
    let mut f = Fake::new();
    let mut a = Authorizer::new(cfg(), MCP);
    assert_eq!(
        reason(&f.run(&mut a, on401("Bearer")).unwrap_err()),
        "discovery"
    );
    assert_eq!(f.fetched.len(), 2);
}

#[test]
fn hostile_bodies_never_panic() {
    for body in [
        "",
        "null",
        "[]",
        "{\"resource\":5}",
        "\u{0}",
        "{\"issuer\":[1]}",
        "{{{{",
    ] {
        let mut f = Fake::new();
        f.route(HttpMethod::Get, PRM_PATH, 200, json!(null));
        f.routes
            .insert(("GET", PRM_PATH.to_string()), (200, body.to_string()));
        let mut a = Authorizer::new(cfg(), MCP);
        assert!(f.run(&mut a, on401("Bearer")).is_err());
        let mut f = Fake::new();
        f.standard(json!({}));
        f.routes
            .insert(("POST", format!("{AS}/token")), (200, body.to_string()));
        let mut a = Authorizer::new(cfg(), MCP);
        assert!(f.run(&mut a, on401("Bearer")).is_err());
    }
    // Answers out of turn are ignored.
    let mut a = Authorizer::new(cfg(), MCP);
    assert!(a.on_fetch(200, b"{}", 0).is_empty());
    assert!(a.on_random(&[1, 2, 3]).is_empty());
    assert!(a.on_callback(Ok("x".into())).is_empty());
    assert!(a.on_loaded(None).is_empty());
}
