//! Discovery and version negotiation (spec `server/discover.mdx`, `basic/versioning.mdx`):
//! the members of a `server/discover` result and of an `UnsupportedProtocolVersionError`'s
//! `data` (`-32022`) that the client reads. Both are read from the value as sent (the
//! discover result goes to the host unchanged), here and nowhere else.

use crate::error::{Error, Result};
use crate::json::{Map, Value};

/// `capabilities` of a `DiscoverResult`, when it is an object.
pub fn capabilities(result: &Map) -> Option<&Value> {
    result.get("capabilities").filter(|c| c.is_object())
}

/// Checks the members of a `DiscoverResult` the client relies on (`supportedVersions`: an
/// array of strings, `capabilities`: an object) and returns `capabilities`.
pub fn check_discover_result(result: &Map) -> Result<&Value> {
    match result.get("supportedVersions") {
        Some(Value::Array(a)) if a.iter().all(Value::is_string) => {}
        _ => {
            return Err(Error::invalid_result(
                "server/discover result has no supportedVersions list",
            ))
        }
    }
    capabilities(result)
        .ok_or_else(|| Error::invalid_result("server/discover result has no capabilities object"))
}

/// The versions in `data.supported` of an `UnsupportedProtocolVersionError` (none when
/// `data` or the list is missing; members that are not strings are skipped).
pub fn supported_versions(data: Option<&Value>) -> impl Iterator<Item = &str> + Clone {
    data.and_then(|d| d.get("supported"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::json;

    fn obj(v: Value) -> Map {
        match v {
            Value::Object(m) => m,
            _ => panic!("not an object"),
        }
    }

    #[test]
    fn discover_needs_versions_and_capabilities() {
        let ok = obj(json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}));
        assert_eq!(check_discover_result(&ok).unwrap(), &json!({"tools": {}}));
        for bad in [
            json!({"capabilities": {}}),
            json!({"supportedVersions": "2026-07-28", "capabilities": {}}),
            json!({"supportedVersions": ["2026-07-28", 1], "capabilities": {}}),
            json!({"supportedVersions": ["2026-07-28"]}),
            json!({"supportedVersions": ["2026-07-28"], "capabilities": []}),
        ] {
            let e = check_discover_result(&obj(bad.clone())).unwrap_err();
            assert_eq!(e.kind, ErrorKind::InvalidResult, "{bad}");
        }
        assert!(capabilities(&obj(json!({"capabilities": {}}))).is_some());
        assert!(capabilities(&obj(json!({"capabilities": null}))).is_none());
    }

    #[test]
    fn supported_versions_of_error_data() {
        let d = json!({"supported": ["2026-07-28", 3, "2025-11-25"], "requested": "1999-01-01"});
        let v: Vec<&str> = supported_versions(Some(&d)).collect();
        assert_eq!(v, ["2026-07-28", "2025-11-25"]);
        assert_eq!(supported_versions(None).count(), 0);
        assert_eq!(
            supported_versions(Some(&json!({"supported": "x"}))).count(),
            0
        );
        assert_eq!(supported_versions(Some(&json!([1]))).count(), 0);
    }
}
