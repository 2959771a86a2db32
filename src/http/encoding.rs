//! (placeholder: header value encoding, base64 sentinel)
