//! PKCE (RFC 7636) with `S256`, and the `state` value, from random bytes the shell
//! supplies (`crypto.getRandomValues`): the engine has no randomness of its own, so tests
//! are deterministic.

use sha2::{Digest, Sha256};

/// Random bytes a flow needs: 32 for the verifier, 16 for `state`.
pub(crate) const RANDOM_BYTES: usize = 48;

/// The secrets of one authorization request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pkce {
    /// 43 base64url characters (RFC 7636 §4.1: 43 to 128 unreserved characters).
    pub verifier: String,
    /// `BASE64URL(SHA256(verifier))` (§4.2).
    pub challenge: String,
    pub state: String,
}

/// Builds the verifier, challenge and state. Fewer than [`RANDOM_BYTES`] bytes is the
/// shell's failure; it is refused rather than padded with predictable bytes.
pub(crate) fn new(random: &[u8]) -> Option<Pkce> {
    let v = random.get(..32)?;
    let s = random.get(32..RANDOM_BYTES)?;
    let verifier = crate::base64::url(v);
    Some(Pkce {
        challenge: challenge(&verifier),
        verifier,
        state: crate::base64::url(s),
    })
}

/// The S256 challenge of a verifier.
pub(crate) fn challenge(verifier: &str) -> String {
    crate::base64::url(Sha256::digest(verifier.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc7636_appendix_b() {
        assert_eq!(
            challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn from_random_bytes() {
        let r: Vec<u8> = (0..48).collect();
        let p = new(&r).unwrap();
        assert_eq!(p.verifier.len(), 43);
        assert_eq!(p.state.len(), 22);
        assert_eq!(p.challenge, challenge(&p.verifier));
        assert!(new(&r[..40]).is_none());
    }
}
