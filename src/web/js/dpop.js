// WebCrypto for the OAuth flow (src/web/auth.rs; issue 16): the DPoP key pair (RFC 9449)
// and JWS signatures (DPoP proofs, private_key_jwt client assertions, RFC 7523). Plain JS
// because it is only awaiting crypto.subtle. The engine writes every signing input; nothing
// is decided here.
//
// The DPoP private key is made non-extractable: page script can use it through this client
// but never read it. With auth.storage it is kept as the CryptoKeyPair itself (IndexedDB
// keeps a CryptoKey by structured clone; it is never exported or written as JWK); a storage
// that cannot keep objects (localStorage) gives a new key at the next load.

const ES256 = { name: 'ECDSA', namedCurve: 'P-256' };

function subtle() {
  const s = globalThis.crypto?.subtle;
  if (!s) throw new Error('crypto.subtle is not available (a secure context is needed)');
  return s;
}

const isKey = (k, type) =>
  k !== null && typeof k === 'object' && k.type === type && typeof k.algorithm === 'object';

/** The DPoP key pair named `name`: this client's (`memo`, a Map), else the stored one, else a
 *  new one (stored). Resolves with [public JWK as JSON text, private CryptoKey]. */
export async function dpopKey(storage, name, memo) {
  const s = subtle();
  let pair = memo.get(name);
  if (!pair && storage) {
    try {
      const v = await storage.get(name);
      if (v && isKey(v.privateKey, 'private') && isKey(v.publicKey, 'public')
        && v.privateKey.algorithm.name === 'ECDSA') pair = v;
    } catch { /* unreadable: a new key */ }
  }
  if (!pair) {
    pair = await s.generateKey(ES256, false, ['sign', 'verify']);
    if (storage) {
      try { await storage.set(name, pair); } catch { /* kept for this client only */ }
    }
  }
  memo.set(name, pair);
  // A public key is always exportable (WebCrypto ignores `extractable` for it).
  const jwk = await s.exportKey('jwk', pair.publicKey);
  return [JSON.stringify({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }), pair.privateKey];
}

/** The JWS signature (RFC 7518 §3.3, §3.4: WebCrypto's forms are the JWS ones) of `input`
 *  with `key`: a CryptoKey, or a private JWK (imported, non-extractable). */
export async function sign(key, alg, input) {
  const s = subtle();
  const rsa = alg === 'RS256';
  if (!isKey(key, 'private')) {
    key = await s.importKey('jwk', key, rsa ? { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } : ES256, false, ['sign']);
  }
  const params = rsa ? { name: 'RSASSA-PKCS1-v1_5' } : { name: 'ECDSA', hash: 'SHA-256' };
  return new Uint8Array(await s.sign(params, key, new TextEncoder().encode(input)));
}
