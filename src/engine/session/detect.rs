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
        self.auto = true;
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
                            self.initialize(sh, v, false);
                            return Outcome::Pending;
                        }
                        self.phase = Phase::Unknown;
                        return Outcome::Failed(e);
                    }
                    return self.modern();
                }
                if matches!(status, 400 | 404 | 405) {
                    self.initialize(sh, LEGACY_PROTOCOL_VERSIONS[0], false);
                    return Outcome::Pending;
                }
                self.phase = Phase::Unknown;
                sh.era = Era::Modern;
                Outcome::Failed(e)
            }
        }
    }

    fn modern(&mut self) -> Outcome {
        self.era_known = true;
        self.phase = Phase::Ready;
        Outcome::Ready
    }
}
