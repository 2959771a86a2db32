//! Who the client is at an authorization server (spec `client-registration.mdx`):
//! pre-registered credentials, a Client ID Metadata Document URL, or a Dynamic Client
//! Registration (RFC 7591); and how it authenticates at the token endpoint (RFC 6749
//! §2.3.1: `client_secret_basic`, `client_secret_post`, or `none` for public clients).

use crate::auth::metadata::{object, string, AsMeta};
use crate::auth::url;
use crate::error::{json_object, json_text, Result};
use crate::json::{Map, Value};

/// Token endpoint client authentication.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AuthMethod {
    Basic,
    Post,
    None,
    /// RFC 7523 §2.2: a JWT signed with the host's key (`auth.privateKey`).
    PrivateKeyJwt,
}

impl AuthMethod {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            AuthMethod::Basic => "client_secret_basic",
            AuthMethod::Post => "client_secret_post",
            AuthMethod::None => "none",
            AuthMethod::PrivateKeyJwt => "private_key_jwt",
        }
    }

    fn parse(s: &str) -> Option<AuthMethod> {
        match s {
            "client_secret_basic" => Some(AuthMethod::Basic),
            "client_secret_post" => Some(AuthMethod::Post),
            "none" => Some(AuthMethod::None),
            _ => None,
        }
    }
}

/// A client identity at one authorization server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Client {
    pub id: String,
    pub secret: Option<String>,
    pub method: AuthMethod,
    /// The redirect URI it was registered with (dynamic registrations only).
    pub redirect_uri: Option<String>,
}

/// The method for a client with (or without) a secret, from what the server supports
/// (RFC 8414 §2: `client_secret_basic` when the metadata lists none).
pub(crate) fn pick_method(secret: bool, supported: Option<&[String]>) -> AuthMethod {
    if !secret {
        return AuthMethod::None;
    }
    let Some(list) = supported else {
        return AuthMethod::Basic;
    };
    let has = |m: &str| list.iter().any(|x| x == m);
    if has("client_secret_basic") {
        AuthMethod::Basic
    } else if has("client_secret_post") {
        AuthMethod::Post
    } else if has("none") {
        AuthMethod::None
    } else {
        AuthMethod::Basic
    }
}

/// `client_name` for registration: the host's, else the client's `clientInfo.name`, else
/// the package's name.
pub(crate) fn client_name(given: Option<String>, client_info: &Value) -> String {
    given.unwrap_or_else(|| {
        client_info
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("mcp-wasm-client")
            .to_string()
    })
}

/// The DCR request body (RFC 7591 §2). A browser app served from a non-local host
/// registers as `web`, a localhost one as `native` (spec "Application Type and Redirect
/// URI Constraints"); the public-client method `none`, and `refresh_token` among the
/// grant types (spec "Refresh Tokens").
pub(crate) fn registration_request(
    client_name: &str,
    redirect_uri: &str,
    application_type: Option<&str>,
    scope: Option<&str>,
) -> String {
    let app = application_type.unwrap_or(if url::is_loopback(redirect_uri) {
        "native"
    } else {
        "web"
    });
    let strings = |a: &[&str]| Value::Array(a.iter().map(|&s| s.into()).collect());
    let mut m = vec![
        ("client_name", client_name.into()),
        ("redirect_uris", strings(&[redirect_uri])),
        (
            "grant_types",
            strings(&["authorization_code", "refresh_token"]),
        ),
        ("response_types", strings(&["code"])),
        ("token_endpoint_auth_method", "none".into()),
        ("application_type", app.into()),
    ];
    if let Some(s) = scope {
        m.push(("scope", s.into()));
    }
    json_text(&json_object(m))
}

/// Reads a DCR response (RFC 7591 §3.2.1).
pub(crate) fn registration_response(
    body: &[u8],
    meta: &AsMeta,
    redirect_uri: &str,
) -> Result<Client, &'static str> {
    let m = object(body)?;
    let id = string(&m, "client_id").ok_or("no client_id in the registration response")?;
    let secret = string(&m, "client_secret");
    let method = m
        .get("token_endpoint_auth_method")
        .and_then(Value::as_str)
        .and_then(AuthMethod::parse)
        .filter(|m| *m == AuthMethod::None || secret.is_some())
        .unwrap_or_else(|| {
            pick_method(
                secret.is_some(),
                meta.token_endpoint_auth_methods.as_deref(),
            )
        });
    Ok(Client {
        id,
        secret,
        method,
        redirect_uri: Some(redirect_uri.to_string()),
    })
}

/// Adds the client's authentication to a token request: a `Basic` header, or form fields.
pub(crate) fn authenticate<'a>(
    c: &'a Client,
    form: &mut Vec<(&'static str, &'a str)>,
    headers: &mut Vec<(String, String)>,
) {
    match (c.method, c.secret.as_deref()) {
        (AuthMethod::Basic, Some(secret)) => {
            // RFC 6749 §2.3.1: both parts form-urlencoded before base64.
            let mut cred = String::new();
            url::encode(&c.id, &mut cred);
            cred.push(':');
            url::encode(secret, &mut cred);
            headers.push((
                "Authorization".into(),
                format!("Basic {}", crate::base64::standard(cred)),
            ));
        }
        (AuthMethod::Post, Some(secret)) => {
            form.push(("client_id", &c.id));
            form.push(("client_secret", secret));
        }
        _ => form.push(("client_id", &c.id)),
    }
}

/// A registration as stored (`storage.set`): JSON text.
pub(crate) fn to_record(c: &Client) -> String {
    let mut m = Map::new();
    m.insert("client_id".into(), c.id.clone().into());
    if let Some(s) = &c.secret {
        m.insert("client_secret".into(), s.clone().into());
    }
    m.insert(
        "token_endpoint_auth_method".into(),
        c.method.as_str().into(),
    );
    if let Some(r) = &c.redirect_uri {
        m.insert("redirect_uri".into(), r.clone().into());
    }
    json_text(&Value::Object(m))
}

/// A stored registration, when it is well-formed.
pub(crate) fn from_record(text: &str) -> Option<Client> {
    let m = object(text.as_bytes()).ok()?;
    let secret = string(&m, "client_secret");
    let method = m
        .get("token_endpoint_auth_method")
        .and_then(Value::as_str)
        .and_then(AuthMethod::parse)?;
    if method != AuthMethod::None && secret.is_none() {
        return None;
    }
    Some(Client {
        id: string(&m, "client_id")?,
        secret,
        method,
        redirect_uri: string(&m, "redirect_uri"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::metadata::defaults;

    #[test]
    fn the_hosts_identity_choices() {
        let info = crate::json!({"name": "app", "version": "1"});
        assert_eq!(client_name(Some("mine".into()), &info), "mine");
        assert_eq!(client_name(None, &info), "app");
        assert_eq!(client_name(None, &crate::json!({})), "mcp-wasm-client");
        // `applicationType` is checked where the host's options are read (`js/objects.js`;
        // tests/js/suite.mjs, "option errors").
    }

    #[test]
    fn method_choice() {
        let l = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(pick_method(false, None), AuthMethod::None);
        assert_eq!(pick_method(true, None), AuthMethod::Basic);
        assert_eq!(
            pick_method(true, Some(&l(&["client_secret_post"]))),
            AuthMethod::Post
        );
        assert_eq!(pick_method(true, Some(&l(&["none"]))), AuthMethod::None);
    }

    #[test]
    fn registration_round_trip() {
        let r: Value = serde_json::from_str(&registration_request(
            "app",
            "http://localhost:3000/cb",
            None,
            None,
        ))
        .unwrap();
        assert_eq!(r["application_type"], "native");
        assert_eq!(r["redirect_uris"][0], "http://localhost:3000/cb");
        let r: Value = serde_json::from_str(&registration_request(
            "app",
            "https://app.example/cb",
            None,
            Some("a b"),
        ))
        .unwrap();
        assert_eq!(r["application_type"], "web");
        assert_eq!(r["scope"], "a b");
        let meta = defaults("https://as");
        let c = registration_response(
            br#"{"client_id":"c","client_secret":"s","token_endpoint_auth_method":"client_secret_post"}"#,
            &meta,
            "https://app.example/cb",
        )
        .unwrap();
        assert_eq!(c.method, AuthMethod::Post);
        assert_eq!(from_record(&to_record(&c)), Some(c));
        // A secret without a method: the server's default (basic).
        let c =
            registration_response(br#"{"client_id":"c","client_secret":"s"}"#, &meta, "x").unwrap();
        assert_eq!(c.method, AuthMethod::Basic);
        // A secret-based method without a secret cannot be used: public client.
        let c = registration_response(
            br#"{"client_id":"c","token_endpoint_auth_method":"client_secret_basic"}"#,
            &meta,
            "x",
        )
        .unwrap();
        assert_eq!(c.method, AuthMethod::None);
        assert!(registration_response(b"{}", &meta, "x").is_err());
        assert!(from_record("{\"client_id\":\"c\"}").is_none());
        assert!(from_record("garbage").is_none());
    }

    #[test]
    fn basic_header_and_post_fields() {
        let c = Client {
            id: "a b".into(),
            secret: Some("p:w".into()),
            method: AuthMethod::Basic,
            redirect_uri: None,
        };
        let (mut f, mut h) = (Vec::new(), Vec::new());
        authenticate(&c, &mut f, &mut h);
        assert!(f.is_empty());
        use base64::Engine;
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(h[0].1.strip_prefix("Basic ").unwrap())
            .unwrap();
        assert_eq!(decoded, b"a%20b:p%3Aw");
        let c = Client {
            method: AuthMethod::Post,
            ..c
        };
        let (mut f, mut h) = (Vec::new(), Vec::new());
        authenticate(&c, &mut f, &mut h);
        assert!(h.is_empty());
        assert_eq!(f, [("client_id", "a b"), ("client_secret", "p:w")]);
    }
}
