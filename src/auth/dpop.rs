//! Signed JWTs the client makes: DPoP proofs (RFC 9449) and client assertions for
//! `private_key_jwt` (RFC 7523 §2.2, §3). The engine writes the JWS signing input
//! (`BASE64URL(header) "." BASE64URL(payload)`, RFC 7515 §5.1); the shell signs it with
//! `crypto.subtle` (the private keys never leave WebCrypto, and are non-extractable) and
//! appends `"." BASE64URL(signature)`. WebCrypto's ECDSA signature is already the JWS form
//! (`r || s`, RFC 7518 §3.4) and RSASSA-PKCS1-v1_5's is the raw one (§3.3).
//!
//! A proof goes in the request's `DPoP` header as its signing input: the shell completes it
//! before the request leaves ([`crate::engine::core`]'s auth hooks write it, the shell's
//! `web::auth::signed_send` signs it). Its `jti` is unique without a random source per
//! proof: `SHA-256(seed || counter)`, the seed being 16 bytes of the platform's CSPRNG
//! handed over with the key (RFC 9449 §4.2: "sufficient entropy").

use crate::error::json_text;
use crate::json::{Map, Value};
use crate::time::Millis;
use sha2::{Digest, Sha256};

/// The request header that carries a proof (RFC 9449 §4.1).
pub(crate) const PROOF_HEADER: &str = "DPoP";

/// `client_assertion_type` of RFC 7523 §2.2.
pub(crate) const ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// How long a client assertion is valid (RFC 7523 §3: `exp`; the issue asks 5 minutes at most).
const ASSERTION_LIFETIME_S: u64 = 300;

/// The signing key of a client assertion (`auth.algorithm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JwsAlg {
    Es256,
    Rs256,
}

impl JwsAlg {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            JwsAlg::Es256 => "ES256",
            JwsAlg::Rs256 => "RS256",
        }
    }

    /// `'ES256'` or `'RS256'`, as the host writes it.
    pub fn parse(s: &str) -> Option<JwsAlg> {
        match s {
            "ES256" => Some(JwsAlg::Es256),
            "RS256" => Some(JwsAlg::Rs256),
            _ => None,
        }
    }
}

/// The host's key for `private_key_jwt` (the key itself stays in the shell).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientKey {
    pub alg: JwsAlg,
    /// `kid` of the JWS header, when the host named the key.
    pub key_id: Option<String>,
}

/// When DPoP is used (`auth.dpop`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DpopMode {
    /// When the authorization server lists ES256 in `dpop_signing_alg_values_supported`.
    #[default]
    Auto,
    /// Always; an authorization server that does not list ES256 is an error.
    Required,
    Off,
}

fn b64_json(v: &Value) -> String {
    crate::base64::url(json_text(v))
}

fn secs(now: Millis) -> u64 {
    now / 1000
}

/// `htu` (RFC 9449 §4.2): the request URI without query and fragment.
pub(crate) fn htu(url: &str) -> &str {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    url.get(..end).unwrap_or(url)
}

/// The origin a nonce belongs to (RFC 9449 §8, §9: nonces are per server).
fn origin(url: &str) -> &str {
    let start = crate::text::find(url, "://").map_or(0, |i| i + 3);
    let end = url
        .get(start..)
        .and_then(|r| r.find(['/', '?', '#']))
        .map_or(url.len(), |i| start + i);
    url.get(..end).unwrap_or(url)
}

/// A `DPoP-Nonce` value: `1*NQCHAR` (RFC 9449 §8.1), at most 1 KiB here.
pub(crate) fn valid_nonce(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 1024
        && s.bytes()
            .all(|c| c == 0x21 || (0x23..=0x5b).contains(&c) || (0x5d..=0x7e).contains(&c))
}

/// `ath` (RFC 9449 §4.2): `BASE64URL(SHA-256(access token))`.
pub(crate) fn ath(access: &str) -> String {
    crate::base64::url(Sha256::digest(access.as_bytes()))
}

/// The client's DPoP key, as the engine knows it: its public JWK (in every proof's header),
/// a seed for `jti`s, and the nonces the servers gave.
#[derive(Debug)]
pub(crate) struct Prover {
    /// `BASE64URL` of the protected header `{typ, alg, jwk}`.
    header: String,
    seed: Vec<u8>,
    count: u64,
    /// The latest nonce of each server (by origin), from any of its responses.
    nonces: Vec<(String, String)>,
}

impl Prover {
    /// From the public JWK the shell exported (JSON text) and 16 random bytes. `None` when
    /// the JWK is not a P-256 public key, or the seed is short.
    pub(crate) fn new(jwk: &str, seed: Vec<u8>) -> Option<Prover> {
        let Ok(Value::Object(m)) = crate::json::parse(jwk) else {
            return None;
        };
        let s = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
        if s("kty")? != "EC" || s("crv")? != "P-256" || m.contains_key("d") || seed.len() < 16 {
            return None;
        }
        // Only the public members (RFC 7638 §3.2 order; no `key_ops`, `ext`).
        let mut pubk = Map::new();
        pubk.insert("crv".into(), "P-256".into());
        pubk.insert("kty".into(), "EC".into());
        pubk.insert("x".into(), s("x")?.into());
        pubk.insert("y".into(), s("y")?.into());
        let mut h = Map::new();
        h.insert("typ".into(), "dpop+jwt".into());
        h.insert("alg".into(), "ES256".into());
        h.insert("jwk".into(), Value::Object(pubk));
        Some(Prover {
            header: b64_json(&Value::Object(h)),
            seed,
            count: 0,
            nonces: Vec::new(),
        })
    }

    fn jti(&mut self) -> String {
        self.count += 1;
        let mut d = Sha256::new();
        d.update(&self.seed);
        d.update(self.count.to_be_bytes());
        crate::base64::url(d.finalize().get(..16).unwrap_or_default())
    }

    /// A proof's signing input for `method url` (with `ath` of the access token it goes
    /// with, for a resource request), with the server's nonce when one is known
    /// ([`Prover::nonce`], which the caller keeps to judge a refusal: [`Prover::take_nonce`]).
    pub(crate) fn proof(
        &mut self,
        method: &str,
        url: &str,
        access: Option<&str>,
        now: Millis,
    ) -> String {
        let mut p = Map::new();
        p.insert("jti".into(), self.jti().into());
        p.insert("htm".into(), method.into());
        p.insert("htu".into(), htu(url).into());
        p.insert("iat".into(), secs(now).into());
        if let Some(a) = access {
            p.insert("ath".into(), ath(a).into());
        }
        if let Some(n) = self.nonce(url) {
            p.insert("nonce".into(), n.to_string().into());
        }
        format!("{}.{}", self.header, b64_json(&Value::Object(p)))
    }

    pub(crate) fn nonce(&self, url: &str) -> Option<&str> {
        let o = origin(url);
        self.nonces
            .iter()
            .find(|(k, _)| k == o)
            .map(|(_, v)| v.as_str())
    }

    /// A response of the server of `url` carried `DPoP-Nonce: nonce`: the next proofs for
    /// that server carry it (RFC 9449 §8.2, §9: a server may send a new nonce with any
    /// response, and the client uses it from then on). False when it is not a nonce (§8.1).
    pub(crate) fn learn_nonce(&mut self, url: &str, nonce: &str) -> bool {
        if !valid_nonce(nonce) {
            return false;
        }
        if self.nonce(url) != Some(nonce) {
            let o = origin(url).to_string();
            self.nonces.retain(|(k, _)| *k != o);
            self.nonces.push((o, nonce.to_string()));
        }
        true
    }

    /// The server of `url` refused a proof that carried nonce `carried` (none: no nonce)
    /// with `use_dpop_nonce`, giving `nonce`: true when the request is to be sent again
    /// with it (now kept for that server). False when it is not a nonce (§8.1), or is the
    /// very nonce the refused proof carried (refused twice). Judged by what the proof
    /// carried, not by when it was made: any number of requests in flight when a server
    /// starts asking for a nonce are each sent again once.
    pub(crate) fn take_nonce(&mut self, url: &str, nonce: &str, carried: Option<&str>) -> bool {
        carried != Some(nonce) && self.learn_nonce(url, nonce)
    }
}

/// The signing input of a client assertion (RFC 7523 §3): `iss` = `sub` = the client id,
/// `aud` = the authorization server's issuer identifier (RFC 7523 §3 allows it; the MCP
/// client credentials extension and draft-ietf-oauth-rfc7523bis ask for it), `exp` 5
/// minutes ahead, a random `jti`.
pub(crate) fn assertion(
    key: &ClientKey,
    client_id: &str,
    issuer: &str,
    random: &[u8],
    now: Millis,
) -> String {
    let mut h = Map::new();
    h.insert("alg".into(), key.alg.as_str().into());
    h.insert("typ".into(), "JWT".into());
    if let Some(k) = &key.key_id {
        h.insert("kid".into(), k.clone().into());
    }
    let t = secs(now);
    let mut p = Map::new();
    p.insert("iss".into(), client_id.into());
    p.insert("sub".into(), client_id.into());
    p.insert("aud".into(), issuer.into());
    p.insert("jti".into(), crate::base64::url(random).into());
    p.insert("iat".into(), t.into());
    p.insert("exp".into(), (t + ASSERTION_LIFETIME_S).into());
    format!(
        "{}.{}",
        b64_json(&Value::Object(h)),
        b64_json(&Value::Object(p))
    )
}

/// A signing input and its signature: the compact JWS.
pub(crate) fn compact(input: &str, signature: &[u8]) -> String {
    format!("{input}.{}", crate::base64::url(signature))
}

#[cfg(test)]
pub(crate) fn decode_part(jws: &str, i: usize) -> Value {
    let part = jws.split('.').nth(i).unwrap();
    use base64::Engine;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(part)
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

#[cfg(test)]
pub(crate) const TEST_JWK: &str = r#"{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","ext":true,"key_ops":["verify"]}"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proof_claims() {
        let mut p = Prover::new(TEST_JWK, vec![7; 16]).unwrap();
        let a = p.proof(
            "POST",
            "https://rs.example/mcp?x=1#f",
            Some("tok"),
            1_700_000_000_123,
        );
        let h = decode_part(&a, 0);
        assert_eq!(h["typ"], "dpop+jwt");
        assert_eq!(h["alg"], "ES256");
        assert!(h["jwk"].get("d").is_none() && h["jwk"].get("key_ops").is_none());
        assert_eq!(h["jwk"]["x"], "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU");
        let c = decode_part(&a, 1);
        assert_eq!(c["htm"], "POST");
        assert_eq!(c["htu"], "https://rs.example/mcp");
        assert_eq!(c["iat"], 1_700_000_000);
        // RFC 9449 §7.1 example: ath of "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU".
        assert_eq!(
            ath("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"),
            "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo"
        );
        assert_eq!(c["ath"], ath("tok"));
        assert!(c.get("nonce").is_none());
        let b = p.proof("POST", "https://rs.example/mcp", None, 0);
        assert_ne!(decode_part(&b, 1)["jti"], c["jti"]);
        assert!(decode_part(&b, 1).get("ath").is_none());
    }

    /// sha2 is built with `force-soft-compact` (Cargo.toml: the rounds in a loop, not
    /// unrolled). Digests across block boundaries (55, 56, 64, 119 bytes: the padding's
    /// edge cases) and of 1,000,000 bytes (FIPS 180-2's long message), against Python's
    /// hashlib.
    #[test]
    fn sha256_across_block_boundaries() {
        let cases = [
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".to_string(),
                "JI1qYdIGOLjlwCaTDD5gOaM85Flk_yFn9uzt1BnbBsE",
            ),
            (
                "a".repeat(1_000_000),
                "zcduXJkU-5KBocfihNc-Z_GAmkiklyAOBG05zMcRLNA",
            ),
            (
                "x".repeat(64),
                "fOEAlx9k5wAej-WlGXPs3-HO1Cvv5-6NX9YhlQa1OTw",
            ),
            (
                "y".repeat(55),
                "-2bUDDv_8FsNWvhhLQq_v6zG9fJsMwvHrWNPH0S8IK0",
            ),
            (
                "z".repeat(119),
                "3gWVfnKspDj5sMdwyy7n-g5Y4I61RTZHjbE21UwJers",
            ),
        ];
        for (text, digest) in cases {
            assert_eq!(ath(&text), digest, "{} bytes", text.len());
        }
    }

    #[test]
    fn nonces_per_server() {
        let mut p = Prover::new(TEST_JWK, vec![1; 16]).unwrap();
        // Two requests leave without a nonce; both are refused asking for it: both go again.
        assert!(p.take_nonce("https://as.example/token", "n-1", None));
        assert!(
            p.take_nonce("https://as.example/token", "n-1", None),
            "sent before it was known"
        );
        let a = p.proof("POST", "https://as.example/token", None, 0);
        assert_eq!(decode_part(&a, 1)["nonce"], "n-1");
        assert!(
            !p.take_nonce("https://as.example/other", "n-1", Some("n-1")),
            "carried it: refused twice"
        );
        assert!(!p.take_nonce("https://as.example/token", "bad nonce", None));
        assert!(!p.take_nonce("https://as.example/token", "q\"uote", None));
        assert!(!p.take_nonce("https://as.example/token", "", None));
        assert_eq!(p.nonce("https://as.example/x?y"), Some("n-1"));
        assert_eq!(p.nonce("https://rs.example/mcp"), None);
        assert!(
            p.take_nonce("https://as.example/token", "n-2", Some("n-1")),
            "a new one"
        );
        // A nonce from any response (a success's, §8.2) is used from then on; a bad one is
        // not, and the one held stays.
        assert!(p.learn_nonce("https://rs.example/mcp", "r-1"));
        assert!(!p.learn_nonce("https://rs.example/mcp", "r 2"));
        let b = p.proof("POST", "https://rs.example/mcp", Some("t"), 0);
        assert_eq!(decode_part(&b, 1)["nonce"], "r-1");
        assert_eq!(p.nonce("https://as.example/token"), Some("n-2"));
    }

    #[test]
    fn keys_that_are_not_public_p256_are_refused() {
        assert!(Prover::new(
            r#"{"kty":"EC","crv":"P-256","x":"a","y":"b","d":"s"}"#,
            vec![0; 16]
        )
        .is_none());
        assert!(Prover::new(r#"{"kty":"RSA","n":"a","e":"b"}"#, vec![0; 16]).is_none());
        assert!(Prover::new(TEST_JWK, vec![0; 4]).is_none());
        assert!(Prover::new("nope", vec![0; 16]).is_none());
    }

    #[test]
    fn client_assertion_claims() {
        let k = ClientKey {
            alg: JwsAlg::Rs256,
            key_id: Some("k1".into()),
        };
        let a = assertion(&k, "bot", "https://as.example", &[9; 16], 10_000);
        let h = decode_part(&a, 0);
        assert_eq!(
            (h["alg"].as_str(), h["kid"].as_str()),
            (Some("RS256"), Some("k1"))
        );
        let c = decode_part(&a, 1);
        assert_eq!(c["iss"], "bot");
        assert_eq!(c["sub"], "bot");
        assert_eq!(c["aud"], "https://as.example");
        assert_eq!(c["exp"].as_u64().unwrap() - c["iat"].as_u64().unwrap(), 300);
        assert!(c["jti"].as_str().unwrap().len() >= 16);
        assert_eq!(compact("a.b", &[0xff]), "a.b._w");
        // Peer-chosen text is escaped (JSON stays JSON).
        let k = ClientKey {
            alg: JwsAlg::Es256,
            key_id: Some("k\"1".into()),
        };
        let a = assertion(&k, "bot\"x", "https://as.example/\\", &[1; 16], 0);
        assert_eq!(decode_part(&a, 0)["kid"], "k\"1");
        assert_eq!(decode_part(&a, 1)["iss"], "bot\"x");
        assert_eq!(decode_part(&a, 1)["aud"], "https://as.example/\\");
        let mut p = Prover::new(TEST_JWK, vec![7; 16]).unwrap();
        let u = "https://rs.example/a\"b";
        assert_eq!(decode_part(&p.proof("GET", u, None, 0), 1)["htu"], u);
        // A coordinate that would need escaping stays JSON.
        let odd = TEST_JWK.replace("f83OJ3D2", "f8\\\"OJ3D2");
        let a = Prover::new(&odd, vec![0; 16])
            .unwrap()
            .proof("GET", u, None, 0);
        assert_eq!(
            decode_part(&a, 0)["jwk"]["x"].as_str().unwrap().get(..4),
            Some("f8\"O")
        );
    }
}
