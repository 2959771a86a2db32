//! Discovery and version negotiation (spec `server/discover.mdx`, `basic/versioning.mdx`):
//! the result of `server/discover` (its params are [`super::meta::RequestParams`]) and the
//! `data` of an `UnsupportedProtocolVersionError` (`-32022`).

use crate::protocol::meta::{CacheScope, MetaObject, ServerCapabilities};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The result of `server/discover`: versions, capabilities and instructions of the
/// server (spec `DiscoverResult`, a cacheable result).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    /// The protocol versions the server supports; the client picks one for its requests.
    pub supported_versions: Vec<String>,
    /// What the server supports.
    pub capabilities: ServerCapabilities,
    /// Natural-language guidance about the server (peer-controlled text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Freshness hint in ms; read it with [`crate::protocol::meta::effective_ttl_ms`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<i64>,
    /// Who may cache this result (absent from older servers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// `"complete"`; absent from pre-2026 servers (then read as `"complete"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<String>,
    /// A `ResultMetaObject` (`io.modelcontextprotocol/serverInfo`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl DiscoverResult {
    /// True when the server lists `version` among its supported versions.
    pub fn supports(&self, version: &str) -> bool {
        self.supported_versions.iter().any(|v| v == version)
    }
}

/// `error.data` of an `UnsupportedProtocolVersionError` (`-32022`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UnsupportedProtocolVersionData {
    /// The versions the server supports.
    pub supported: Vec<String>,
    /// The version the request asked for.
    pub requested: String,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn discover_needs_versions_and_capabilities() {
        let r: DiscoverResult = serde_json::from_value(
            json!({"supportedVersions": ["2026-07-28"], "capabilities": {}}),
        )
        .unwrap();
        assert!(r.supports("2026-07-28"));
        assert!(!r.supports("2025-11-25"));
        assert!(serde_json::from_value::<DiscoverResult>(json!({"capabilities": {}})).is_err());
        assert!(serde_json::from_value::<DiscoverResult>(
            json!({"supportedVersions": "2026-07-28", "capabilities": {}})
        )
        .is_err());
    }
}
