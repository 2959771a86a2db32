//! base64 encoding (RFC 4648): §4's alphabet, padded (HTTP Basic credentials, the
//! `=?base64?…?=` header values), and §5's URL- and filename-safe alphabet without padding
//! (base64url: PKCE, DPoP proofs and `jti`s).
//!
//! Why by hand, not the base64 crate's engines: their generic encoder (chunked encoding,
//! configurable engines, the padding pass) was 0.8 KB of the gzipped wasm
//! (`bench/tools/wasm-without.mjs`; BENCHMARKS.md, the forty-seventh session) for what is
//! a dozen lines here. The crate stays for decoding (`http::encoding`'s reader of a
//! server's header value, which the wasm does not use) and as the tests' oracle.

const STANDARD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Appends `bytes` in base64 to `out`: RFC 4648 §5 without padding when `url`, else §4
/// with padding.
pub(crate) fn encode_into(out: &mut String, bytes: &[u8], url: bool) {
    let alphabet = if url { URL } else { STANDARD };
    for c in bytes.chunks(3) {
        // The group's bytes, big-endian, in the top 24 bits of 32.
        let n = c
            .iter()
            .zip([16, 8, 0])
            .fold(0u32, |n, (&b, s)| n | u32::from(b) << s);
        // 1, 2 or 3 bytes make 2, 3 or 4 characters.
        for i in 0..4 {
            if i <= c.len() {
                out.push(char::from(alphabet[(n >> (18 - 6 * i) & 63) as usize]));
            } else if !url {
                out.push('=');
            }
        }
    }
}

/// `bytes` in base64url without padding (RFC 4648 §5; RFC 7515 §2 `BASE64URL`).
pub(crate) fn url(bytes: impl AsRef<[u8]>) -> String {
    let mut out = String::new();
    encode_into(&mut out, bytes.as_ref(), true);
    out
}

/// `bytes` in base64 with padding (RFC 4648 §4).
pub(crate) fn standard(bytes: impl AsRef<[u8]>) -> String {
    let mut out = String::new();
    encode_into(&mut out, bytes.as_ref(), false);
    out
}

#[cfg(test)]
mod tests {
    use super::{standard, url};
    use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
    use base64::Engine;

    /// The base64 crate's text for every length up to 64 and every byte value in each of a
    /// group's three places.
    #[test]
    fn the_same_text_as_the_base64_crate() {
        let mut inputs: Vec<Vec<u8>> = (0..=64u8)
            .map(|n| (0..n).map(|i| i.wrapping_mul(37)).collect())
            .collect();
        for b in 0..=255u8 {
            inputs.push(vec![b]);
            inputs.push(vec![0, b]);
            inputs.push(vec![0, 0, b]);
            inputs.push(vec![b, b, b, b]);
        }
        for v in &inputs {
            assert_eq!(standard(v), STANDARD.encode(v), "{v:?}");
            assert_eq!(url(v), URL_SAFE_NO_PAD.encode(v), "{v:?}");
        }
        // RFC 4648 §10's test vectors.
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(standard(i), o);
        }
        assert_eq!(url([0xfb, 0xff]), "-_8");
    }
}
