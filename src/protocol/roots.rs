//! Roots (spec `client/roots.mdx`; deprecated in 2026-07-28 by SEP-2577): the `roots/list`
//! input request and the client's `ListRootsResult`.

use crate::protocol::meta::MetaObject;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The `method` of [`ListRootsRequest`]: always `"roots/list"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ListRootsRequestMethod {
    /// `"roots/list"`
    #[default]
    #[serde(rename = "roots/list")]
    RootsList,
}

/// A request for the client's roots, as an entry of `inputRequests` (spec
/// `ListRootsRequest`: `method` and optional `params`, no JSON-RPC envelope).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ListRootsRequest {
    /// The method tag.
    pub method: ListRootsRequestMethod,
    /// `{_meta?}`: nothing else is defined.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Map<String, Value>>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A directory or file the server may operate on (spec `Root`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Root {
    /// The root's URI; must be a `file://` URI for now.
    pub uri: String,
    /// A human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `_meta`: metadata, kept as sent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The client's answer to `roots/list` (spec `ListRootsResult`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The roots the client exposes.
    pub roots: Vec<Root>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_request_may_have_no_params() {
        let r: ListRootsRequest = serde_json::from_value(json!({"method": "roots/list"})).unwrap();
        assert_eq!(r.params, None);
        assert!(
            serde_json::from_value::<ListRootsRequest>(json!({"method": "roots/get"})).is_err()
        );
        assert!(serde_json::from_value::<ListRootsRequest>(
            json!({"method": "roots/list", "params": 1})
        )
        .is_err());
    }
}
