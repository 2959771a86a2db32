//! Era detection for `protocolVersion: 'auto'` (2026-07-28 `basic/transports/streamable-http`
//! "Backward Compatibility"; protocol notes §1.8): a modern request first; a recognised
//! modern error means modern (no fallback), a 400/404/405 without one legacy.
//!
//! The spec asks for "a modern request", not for `server/discover`: when the host's first
//! operation is a plain page of a list (or `discover()` itself), that request is the probe,
//! and its answer goes to the operation ([`FirstAnswer`]) instead of a second request. So
//! the first `listTools()` costs one round trip, not two. Such a request has no side
//! effect, and a legacy server refuses it before running it (its `MCP-Protocol-Version`
//! check, 2025-11-25 `basic/transports` "Protocol Version Header"), so falling back
//! re-sends it after `initialize` exactly as an operation parked behind `server/discover`
//! would have been sent.

use super::{init_policy, owner, Outcome, Phase, Session, SessionPart};
use crate::engine::actions::{OpId, OpOptions};
use crate::engine::call::{Call, CallOutcome};
use crate::engine::ops::Purpose;
use crate::engine::shared::{Era, Shared};
use crate::error::Result;
use crate::json::RawJson;
use crate::json::{Map, Value};
use crate::protocol::codes::{is_modern_error, METHOD_NOT_FOUND, UNSUPPORTED_PROTOCOL_VERSION};
use crate::protocol::{discover, LATEST_PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSIONS};

/// The host's first operation, when its request can be the probe: the first page of a
/// list (no cursor) or `server/discover`, with no per-request options (no `_meta`,
/// progress, log level or timeout of its own: the probe is sent with the client's
/// defaults). Without params a modern server has no reason to refuse it with a 400: a list
/// whose capability it lacks is a `-32601` on a 404, a recognised modern error (spec
/// 2026-07-28 `basic/transports/streamable-http` "Protocol Version Header").
pub(crate) struct FirstRequest {
    pub op: OpId,
    /// `server/discover` or a list method; sent without params.
    pub method: &'static str,
}

impl FirstRequest {
    /// `Some` when operation `op` (`purpose` with `params` and `opts`) may be the probe.
    pub(crate) fn of(
        op: OpId,
        purpose: &Purpose,
        params: &Map,
        opts: &OpOptions,
    ) -> Option<FirstRequest> {
        let plain = params.is_empty()
            && !opts.progress
            && !opts.reset_timeout_on_progress
            && opts.timeout_ms.is_none()
            && opts.max_total_timeout_ms.is_none()
            && opts.log_level.is_none()
            && opts.meta.is_none();
        let listing = matches!(
            purpose,
            Purpose::Discover
                | Purpose::ToolsList
                | Purpose::PromptsList
                | Purpose::ResourcesList
                | Purpose::ResourceTemplatesList
        );
        (plain && listing).then(|| FirstRequest {
            op,
            method: purpose.method(),
        })
    }
}

/// The probe's answer, for the operation whose request it was ([`FirstRequest`]): its
/// result, or the modern JSON-RPC error the server answered it with. Taken by that
/// operation when it starts, dropped once the parked operations have started.
pub(crate) struct FirstAnswer {
    pub op: OpId,
    pub answer: Result<RawJson>,
}

impl Session {
    pub(super) fn probe(&mut self, sh: &mut Shared, first: Option<FirstRequest>) {
        #[cfg(feature = "legacy")]
        {
            self.auto = true;
        }
        sh.era = Era::Modern;
        sh.version = LATEST_PROTOCOL_VERSION.to_string();
        let method = first.as_ref().map_or("server/discover", |f| f.method);
        let mut c = Call::new(method, Map::new(), Vec::new(), init_policy(sh));
        c.start(sh, &owner(SessionPart::Probe));
        self.probe_for = first;
        self.phase = Phase::Probing(c);
    }

    pub(super) fn on_probe(&mut self, sh: &mut Shared, out: Result<CallOutcome>) -> Outcome {
        let first = self.probe_for.take();
        match out {
            Ok(CallOutcome::Complete(raw))
                if first
                    .as_ref()
                    .is_some_and(|f| f.method != "server/discover")
                    && !crate::protocol::result::declares_result_type(&raw) =>
            {
                // Every 2026-07-28 result has `resultType`: this is a pre-2026 server that
                // ran the request without a handshake (one that does not check
                // `MCP-Protocol-Version`), not proof of a modern one. Ask `server/discover`,
                // as without a first request; the operation sends its request after.
                self.probe(sh, None);
                Outcome::Pending
            }
            Ok(CallOutcome::Complete(raw)) => {
                // A modern server. Its answer is cached as the operation would cache it
                // (`discover()` and the list calls read the cache).
                let auth = sh.cfg.authorization().map(str::to_string);
                let now = sh.now;
                let method = first.as_ref().map_or("server/discover", |f| f.method);
                // No params: the cache key is the first page's ("", no URI).
                sh.cache.put(method, "", None, auth.as_deref(), &raw, now);
                if method == "server/discover" {
                    if let Ok(Value::Object(m)) = crate::json::parse(raw.get()) {
                        if let Some(c) = discover::capabilities(&m) {
                            sh.server_capabilities = Some(c.clone());
                        }
                    }
                }
                if let Some(f) = first {
                    sh.first_answer = Some(FirstAnswer {
                        op: f.op,
                        answer: Ok(raw),
                    });
                }
                self.modern()
            }
            Ok(CallOutcome::Task(_)) => self.modern(),
            Err(e) => {
                let status = e.status.unwrap_or(0);
                // Every 2026-07-28 server answers `server/discover`: a -32601 to it (on a 200
                // from a 2025-03-26 server that reads no MCP-Protocol-Version) is an older
                // server, as a 400/404/405 is.
                let older = e.code == Some(METHOD_NOT_FOUND)
                    && first.as_ref().is_none_or(|f| f.method == "server/discover");
                if let Some(code) = e.code.filter(|c| !older && is_modern_error(*c, status)) {
                    if code == UNSUPPORTED_PROTOCOL_VERSION {
                        // Modern framing, but no modern version in common: a legacy one may be.
                        let supported = || discover::supported_versions(e.data.as_ref());
                        if let Some(v) = LEGACY_PROTOCOL_VERSIONS
                            .iter()
                            .find(|v| supported().any(|s| s == **v))
                        {
                            #[cfg(feature = "legacy")]
                            {
                                self.initialize(sh, v, false);
                                return Outcome::Pending;
                            }
                            #[cfg(not(feature = "legacy"))]
                            return self.refuse(Some(v), status);
                        }
                        self.phase = Phase::Unknown;
                        return Outcome::Failed(e);
                    }
                    // A modern server's error to the operation's own request is its answer
                    // (sending the request again would only get it again).
                    if let Some(f) = first {
                        sh.first_answer = Some(FirstAnswer {
                            op: f.op,
                            answer: Err(e),
                        });
                    }
                    return self.modern();
                }
                if older || matches!(status, 400 | 404 | 405) {
                    #[cfg(feature = "legacy")]
                    {
                        self.initialize(sh, LEGACY_PROTOCOL_VERSIONS[0], false);
                        return Outcome::Pending;
                    }
                    #[cfg(not(feature = "legacy"))]
                    return self.refuse(None, status);
                }
                self.phase = Phase::Unknown;
                sh.era = Era::Modern;
                Outcome::Failed(e)
            }
        }
    }

    /// Without the `legacy` feature: the server speaks an older era only (`version`, when
    /// its `UnsupportedProtocolVersion` error named one; else its 400/404/405 to
    /// `server/discover` said so, 2026-07-28 `basic/transports/streamable-http`
    /// "Backward Compatibility"). The error names the era and the entry that speaks it.
    #[cfg(not(feature = "legacy"))]
    fn refuse(&mut self, version: Option<&str>, status: u16) -> Outcome {
        self.phase = Phase::Unknown;
        Outcome::Failed(legacy_era_error(version, status))
    }

    fn modern(&mut self) -> Outcome {
        self.era_known = true;
        self.phase = Phase::Ready;
        Outcome::Ready
    }
}

/// The error of the modern-only build for a server that speaks only an older era.
#[cfg(not(feature = "legacy"))]
pub(crate) fn legacy_era_error(version: Option<&str>, status: u16) -> crate::error::Error {
    use crate::error::{json_object, Error, ErrorKind};
    let era = version.unwrap_or("2025-11-25 or 2024-11-05");
    let mut e = Error::new(
        ErrorKind::UnsupportedProtocolVersion,
        format!(
            "the server speaks only an older protocol era ({era}); this build \
             (mcp-wasm-client/modern) speaks only {LATEST_PROTOCOL_VERSION}: use the default \
             entry, mcp-wasm-client, for such servers"
        ),
    )
    .with_data(json_object(vec![
        ("era", era.into()),
        (
            "supported",
            Value::Array(vec![LATEST_PROTOCOL_VERSION.into()]),
        ),
        ("entry", "mcp-wasm-client".into()),
    ]))
    .with_code(crate::protocol::codes::UNSUPPORTED_PROTOCOL_VERSION);
    if status != 0 {
        e.status = Some(status);
    }
    e
}
