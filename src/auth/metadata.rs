//! The documents of discovery: Protected Resource Metadata (RFC 9728 §2) and
//! Authorization Server Metadata (RFC 8414 §2, OpenID Connect Discovery §3), read from
//! untrusted bytes into what the flow needs. Every reader returns a reason on failure.

use crate::auth::url;
use crate::json::{Map, Value};

/// Protected Resource Metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Prm {
    pub resource: String,
    pub authorization_servers: Vec<String>,
    pub scopes_supported: Option<Vec<String>>,
}

/// Authorization Server Metadata, as far as the flow uses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AsMeta {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    pub registration_endpoint: Option<String>,
    pub scopes_supported: Option<Vec<String>>,
    pub token_endpoint_auth_methods: Option<Vec<String>>,
    /// RFC 9207 §3: `authorization_response_iss_parameter_supported`.
    pub iss_supported: bool,
    /// `client_id_metadata_document_supported`.
    pub cimd_supported: bool,
    /// RFC 9449 §5.1: `dpop_signing_alg_values_supported`.
    pub dpop_algs: Option<Vec<String>>,
}

const MAX_LIST: usize = 256;

/// A JSON object from a response body.
pub(crate) fn object(body: &[u8]) -> Result<Map, &'static str> {
    // The text, not the bytes: `crate::json` reads text (the UTF-8 check is here).
    let text = std::str::from_utf8(body).map_err(|_| "not UTF-8")?;
    match crate::json::parse(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err("not a JSON object"),
        Err(_) => Err("not JSON"),
    }
}

pub(crate) fn string(m: &Map, k: &str) -> Option<String> {
    m.get(k)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn strings(m: &Map, k: &str) -> Option<Vec<String>> {
    let a = m.get(k)?.as_array()?;
    Some(
        a.iter()
            .filter_map(Value::as_str)
            .filter(|s| !s.is_empty() && s.len() <= 2048)
            .take(MAX_LIST)
            .map(str::to_string)
            .collect(),
    )
}

/// An endpoint the client sends secrets or people to: `https:`, or `http:` on a loopback
/// host (security considerations "Communication Security": every authorization server
/// endpoint is served over HTTPS).
pub(crate) fn secure_endpoint(u: &str) -> bool {
    match url::split(u) {
        Some(p) => p.scheme == "https" || url::is_loopback(u),
        None => false,
    }
}

pub(crate) fn parse_prm(body: &[u8]) -> Result<Prm, &'static str> {
    let m = object(body)?;
    let resource = string(&m, "resource").ok_or("no resource")?;
    let authorization_servers = strings(&m, "authorization_servers").unwrap_or_default();
    if authorization_servers.is_empty() {
        return Err("no authorization_servers");
    }
    Ok(Prm {
        resource,
        authorization_servers,
        scopes_supported: strings(&m, "scopes_supported"),
    })
}

/// Why a metadata document was not used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MetaProblem {
    /// Not a metadata document (not JSON, fields missing): try the next location.
    Unusable(&'static str),
    /// RFC 8414 §3.3: `issuer` differs from the identifier the URL was built from.
    IssuerMismatch,
    /// No `code_challenge_methods_supported` with `S256` (security considerations
    /// "Authorization Code Protection": the client MUST refuse to proceed).
    NoPkce,
    /// An endpoint that is not `https:` (or `http:` on loopback).
    Insecure,
}

/// Reads Authorization Server Metadata fetched for `expected_issuer`.
pub(crate) fn parse_as(body: &[u8], expected_issuer: &str) -> Result<AsMeta, MetaProblem> {
    let m = object(body).map_err(MetaProblem::Unusable)?;
    let issuer = string(&m, "issuer").ok_or(MetaProblem::Unusable("no issuer"))?;
    if issuer != expected_issuer {
        return Err(MetaProblem::IssuerMismatch);
    }
    let authorization_endpoint = string(&m, "authorization_endpoint")
        .ok_or(MetaProblem::Unusable("no authorization_endpoint"))?;
    let token_endpoint =
        string(&m, "token_endpoint").ok_or(MetaProblem::Unusable("no token_endpoint"))?;
    let s256 = strings(&m, "code_challenge_methods_supported")
        .is_some_and(|v| v.iter().any(|x| x == "S256"));
    if !s256 {
        return Err(MetaProblem::NoPkce);
    }
    let registration_endpoint = string(&m, "registration_endpoint");
    let endpoints_ok = secure_endpoint(&authorization_endpoint)
        && secure_endpoint(&token_endpoint)
        && registration_endpoint.as_deref().is_none_or(secure_endpoint);
    if !endpoints_ok {
        return Err(MetaProblem::Insecure);
    }
    let flag = |k: &str| m.get(k).and_then(Value::as_bool).unwrap_or(false);
    Ok(AsMeta {
        issuer,
        authorization_endpoint,
        token_endpoint,
        registration_endpoint,
        scopes_supported: strings(&m, "scopes_supported"),
        token_endpoint_auth_methods: strings(&m, "token_endpoint_auth_methods_supported"),
        iss_supported: flag("authorization_response_iss_parameter_supported"),
        cimd_supported: flag("client_id_metadata_document_supported"),
        dpop_algs: strings(&m, "dpop_signing_alg_values_supported"),
    })
}

/// 2025-03-26 "Fallbacks for Servers without Metadata Discovery": the default endpoints
/// at the authorization base URL (the MCP server's origin).
pub(crate) fn defaults(base: &str) -> AsMeta {
    AsMeta {
        issuer: base.to_string(),
        authorization_endpoint: format!("{base}/authorize"),
        token_endpoint: format!("{base}/token"),
        registration_endpoint: Some(format!("{base}/register")),
        scopes_supported: None,
        token_endpoint_auth_methods: None,
        iss_supported: false,
        cimd_supported: false,
        dpop_algs: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn b(v: Value) -> Vec<u8> {
        v.to_string().into_bytes()
    }

    #[test]
    fn prm() {
        let p = parse_prm(&b(json!({"resource":"https://m/mcp","authorization_servers":["https://as"],"scopes_supported":["a","b"]}))).unwrap();
        assert_eq!(p.authorization_servers, ["https://as"]);
        assert_eq!(p.scopes_supported.unwrap(), ["a", "b"]);
        assert!(parse_prm(&b(json!({"resource":"x"}))).is_err());
        assert!(parse_prm(&b(json!({"resource":"x","authorization_servers":[]}))).is_err());
        assert!(parse_prm(b"<html>").is_err());
        assert!(parse_prm(b"[]").is_err());
    }

    #[test]
    fn as_metadata_checks() {
        let good = json!({"issuer":"https://as/t","authorization_endpoint":"https://as/t/authorize",
            "token_endpoint":"https://as/t/token","code_challenge_methods_supported":["S256"],
            "authorization_response_iss_parameter_supported":true,"client_id_metadata_document_supported":true});
        let m = parse_as(&b(good.clone()), "https://as/t").unwrap();
        assert!(m.iss_supported && m.cimd_supported);
        assert_eq!(m.registration_endpoint, None);
        assert_eq!(
            parse_as(&b(good.clone()), "https://as/t/"),
            Err(MetaProblem::IssuerMismatch)
        );
        let mut no_pkce = good.clone();
        no_pkce
            .as_object_mut()
            .unwrap()
            .remove("code_challenge_methods_supported");
        assert_eq!(
            parse_as(&b(no_pkce), "https://as/t"),
            Err(MetaProblem::NoPkce)
        );
        let mut plain = good.clone();
        plain["code_challenge_methods_supported"] = json!(["plain"]);
        assert_eq!(
            parse_as(&b(plain), "https://as/t"),
            Err(MetaProblem::NoPkce)
        );
        let mut insecure = good.clone();
        insecure["token_endpoint"] = json!("http://as.example/token");
        assert_eq!(
            parse_as(&b(insecure), "https://as/t"),
            Err(MetaProblem::Insecure)
        );
        let mut local = good;
        local["token_endpoint"] = json!("http://localhost:9/token");
        assert!(parse_as(&b(local), "https://as/t").is_ok());
        assert!(matches!(
            parse_as(b"{}", "x"),
            Err(MetaProblem::Unusable(_))
        ));
    }
}
