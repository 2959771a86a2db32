//! The modern-only build (`--no-default-features`, the `mcp-wasm-client/modern` entry): a
//! server that speaks only an older era is refused with an `UnsupportedProtocolVersion`
//! error naming the era and the entry that speaks it, and nothing of the older eras
//! (`initialize`, the HTTP+SSE stream) is ever sent.

use crate::engine::actions::OpOptions;
use crate::engine::config::{Config, VersionChoice};
use crate::engine::core::Core;
use crate::engine::testkit::*;
use crate::error::ErrorKind;
use crate::json;
use crate::json::Map;

fn auto() -> Config {
    Config::new("http://mcp.test/mcp")
}

#[test]
fn a_server_refusing_the_probe_with_a_bare_400_is_an_older_era() {
    for status in [400, 404, 405] {
        let mut h = Harness::new(auto());
        let op = h
            .core
            .request(Purpose::ToolsList, Map::new(), &OpOptions::default(), h.now);
        // The first request is the probe (`session::detect`).
        let probe = h.take();
        assert_eq!(probe.method(), "tools/list");
        // A 2025 server: not a modern JSON-RPC error.
        h.reply(&probe, status, json!({"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Server not initialized"}}));
        let e = h.err(op);
        assert_eq!(e.kind, ErrorKind::UnsupportedProtocolVersion);
        assert_eq!(e.code, Some(-32022), "the code its class stands for");
        assert_eq!(e.status, Some(status));
        let data = e.data.expect("data");
        assert_eq!(data["era"], "2025-11-25 or 2024-11-05");
        assert_eq!(data["supported"], json!(["2026-07-28"]));
        assert_eq!(data["entry"], "mcp-wasm-client");
        assert!(
            e.message.contains("mcp-wasm-client/modern"),
            "{}",
            e.message
        );
        assert!(h.try_take().is_none(), "no initialize, no HTTP+SSE stream");
        assert!(!h.core.era_known());
    }
}

#[test]
fn a_modern_unsupported_version_error_listing_only_2025_names_that_era() {
    let mut h = Harness::new(auto());
    let op = h.core.request(
        Purpose::PromptsList,
        Map::new(),
        &OpOptions::default(),
        h.now,
    );
    let probe = h.take();
    h.error(
        &probe,
        400,
        -32022,
        "Unsupported protocol version",
        Some(json!({"supported":["2025-11-25"],"requested":"2026-07-28"})),
    );
    let e = h.err(op);
    assert_eq!(e.kind, ErrorKind::UnsupportedProtocolVersion);
    assert_eq!(e.data.expect("data")["era"], "2025-11-25");
    assert!(h.try_take().is_none(), "no initialize");
}

#[test]
fn the_next_operation_probes_again_after_a_refusal() {
    let mut h = Harness::new(auto());
    let op = h
        .core
        .request(Purpose::ToolsList, Map::new(), &OpOptions::default(), h.now);
    let probe = h.take();
    h.reply(&probe, 404, json!({}));
    assert_eq!(h.err(op).kind, ErrorKind::UnsupportedProtocolVersion);
    // The server may have been upgraded: the next call asks again, and a modern answer
    // lets it through.
    let op = h
        .core
        .request(Purpose::ToolsList, Map::new(), &OpOptions::default(), h.now);
    let probe = h.take();
    assert_eq!(probe.method(), "tools/list");
    h.result(&probe, json!({"resultType":"complete","tools":[]}));
    assert_eq!(h.ok(op)["tools"], json!([]));
    assert!(
        h.try_take().is_none(),
        "the probe's answer was the operation's"
    );
    assert!(h.core.era_known());
}

#[test]
fn an_older_pinned_version_is_refused_at_construction() {
    for v in ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] {
        let mut c = auto();
        c.version = VersionChoice::Pinned(v.into());
        let Err(e) = Core::new(c, 0) else {
            panic!("{v} was accepted")
        };
        assert_eq!(e.kind, ErrorKind::UnsupportedProtocolVersion, "{v}");
        assert_eq!(e.code, Some(-32022), "{v}");
        assert_eq!(e.data.expect("data")["era"], v);
        assert_eq!(e.status, None);
    }
    let mut c = auto();
    c.version = VersionChoice::Pinned("2026-07-28".into());
    assert!(Core::new(c, 0).is_ok());
}
