//! Era detection for `protocolVersion: 'auto'` (2026-07-28 `basic/transports/streamable-http`
//! "Backward Compatibility"; protocol notes §1.8): a modern `server/discover` first; a
//! recognised modern error means modern (no fallback), a 400/404/405 without one legacy.

use super::{init_policy, owner, Outcome, Phase, Session, SessionPart};
use crate::engine::call::{Call, CallOutcome};
use crate::engine::shared::{Era, Shared};
use crate::error::Result;
use crate::protocol::codes::{is_modern_error, UNSUPPORTED_PROTOCOL_VERSION};
use crate::protocol::{discover, LATEST_PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSIONS};
use serde_json::{Map, Value};

impl Session {
    pub(super) fn probe(&mut self, sh: &mut Shared) {
        #[cfg(feature = "legacy")]
        {
            self.auto = true;
        }
        sh.era = Era::Modern;
        sh.version = LATEST_PROTOCOL_VERSION.to_string();
        let mut c = Call::new("server/discover", Map::new(), Vec::new(), init_policy(sh));
        c.start(sh, &owner(SessionPart::Probe));
        self.phase = Phase::Probing(c);
    }

    pub(super) fn on_probe(&mut self, sh: &mut Shared, out: Result<CallOutcome>) -> Outcome {
        match out {
            Ok(CallOutcome::Complete(raw)) => {
                // A modern server. Its discover answer is cached for `discover()`.
                let auth = sh.cfg.authorization().map(str::to_string);
                let now = sh.now;
                sh.cache
                    .put("server/discover", "", None, auth.as_deref(), &raw, now);
                if let Ok(Value::Object(m)) = serde_json::from_str::<Value>(raw.get()) {
                    if let Some(c) = discover::capabilities(&m) {
                        sh.server_capabilities = Some(c.clone());
                    }
                }
                self.modern()
            }
            Ok(CallOutcome::Task(_)) => self.modern(),
            Err(e) => {
                let status = e.status.unwrap_or(0);
                if let Some(code) = e.code.filter(|c| is_modern_error(*c, status)) {
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
                    return self.modern();
                }
                if matches!(status, 400 | 404 | 405) {
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
    ]));
    if status != 0 {
        e.status = Some(status);
    }
    e
}
