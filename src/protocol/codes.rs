//! JSON-RPC error codes of MCP 2026-07-28 (spec `basic/index.mdx` "Error Codes") and the
//! mapping of a peer's error response to the crate's [`Error`].

use crate::error::{Error, ErrorKind};
use crate::protocol::jsonrpc::RpcError;

pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
pub(crate) const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;
/// HTTP headers do not match the body, or a required header is missing or malformed.
pub(crate) const HEADER_MISMATCH: i64 = -32020;
/// The request needs a client capability that was not declared (`data.requiredCapabilities`).
pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
/// The protocol version is not supported (`data.supported`, `data.requested`).
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// True for the errors only a modern (2026-07-28) server sends; seeing one on a 400/404
/// proves the server is modern and the client must not fall back to a legacy era
/// (spec `basic/transports/streamable-http.mdx` "Backward Compatibility").
pub(crate) fn is_modern_error(code: i64, http_status: u16) -> bool {
    matches!(
        code,
        HEADER_MISMATCH | MISSING_REQUIRED_CLIENT_CAPABILITY | UNSUPPORTED_PROTOCOL_VERSION
    ) || (code == METHOD_NOT_FOUND && http_status == 404)
}

/// Maps a JSON-RPC error from the peer to the crate's error, keeping `code`, `message` and `data`.
pub fn from_rpc(e: &RpcError) -> Error {
    let kind = match e.code {
        MISSING_REQUIRED_CLIENT_CAPABILITY => ErrorKind::MissingRequiredClientCapability,
        UNSUPPORTED_PROTOCOL_VERSION => ErrorKind::UnsupportedProtocolVersion,
        _ => ErrorKind::Mcp,
    };
    Error::rpc(e.code, &e.message, e.data.clone()).with_kind(kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn modern_errors_are_recognised() {
        assert!(is_modern_error(-32022, 400));
        assert!(is_modern_error(-32021, 400));
        assert!(is_modern_error(-32020, 400));
        assert!(is_modern_error(-32601, 404));
        assert!(!is_modern_error(-32601, 200));
        assert!(!is_modern_error(-32600, 400));
    }

    #[test]
    fn kinds_follow_codes() {
        let e = from_rpc(&RpcError {
            code: -32021,
            message: "Missing".into(),
            data: Some(json!({"requiredCapabilities": {"elicitation": {}}})),
        });
        assert_eq!(e.kind, ErrorKind::MissingRequiredClientCapability);
        assert_eq!(e.code, Some(-32021));
        assert_eq!(
            e.data.unwrap()["requiredCapabilities"]["elicitation"],
            json!({})
        );
        let e = from_rpc(&RpcError {
            code: -32603,
            message: "x".into(),
            data: None,
        });
        assert_eq!(e.kind, ErrorKind::Mcp);
    }
}
