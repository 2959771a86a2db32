//! What the host configured, and the client capabilities derived from it.
//!
//! Capabilities are declared on every request in 2026-07-28 (`_meta`
//! `io.modelcontextprotocol/clientCapabilities`) and follow exactly what the host set up:
//! a handler that is not there is a capability that is not declared (spec
//! `basic/index.mdx` "Capabilities"; protocol notes §2.5).

use crate::error::json_object;
use crate::error::{Error, Result};
use crate::json;
use crate::json::{Map, Value};
use crate::protocol::TASKS_EXTENSION;

/// How `structuredContent` is checked against a tool's `outputSchema`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValidateOutput {
    /// A violation rejects the call with `OutputValidationError` (default).
    Strict,
    /// A violation is reported through the log callback; the result is returned.
    Warn,
    Off,
}

/// Which protocol revision to speak.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VersionChoice {
    /// Detect the server's era (modern first, then legacy handshake, then HTTP+SSE).
    Auto,
    /// Speak exactly this revision.
    Pinned(String),
}

/// Bounds on what a peer can make the client hold or do. Each is configurable.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// Largest SSE event (bytes of data) accepted.
    pub max_event_bytes: usize,
    /// Largest JSON response body accepted.
    pub max_body_bytes: usize,
    /// Input requests of one call presented to the host at the same time; more wait their turn.
    pub max_concurrent_inputs: usize,
    /// MRTR rounds per call, and input rounds per task.
    pub max_input_rounds: u32,
    /// Entries of one `inputRequests` map accepted; also the 2025-era server requests
    /// waiting for the host at once (`engine::server_requests`).
    pub max_input_requests: usize,
    /// Reconnection attempts of a dropped `subscriptions/listen` stream before giving up.
    pub listen_max_retries: u32,
    /// First reconnection delay of a listen stream (doubles each attempt).
    pub listen_backoff_ms: u64,
    /// Longest reconnection delay of a listen stream.
    pub listen_max_backoff_ms: u64,
    /// How long to wait for `notifications/subscriptions/acknowledged`.
    pub listen_ack_timeout_ms: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_event_bytes: 16 * 1024 * 1024,
            max_body_bytes: 64 * 1024 * 1024,
            max_concurrent_inputs: 8,
            max_input_rounds: 10,
            max_input_requests: 64,
            listen_max_retries: 8,
            listen_backoff_ms: 500,
            listen_max_backoff_ms: 30_000,
            listen_ack_timeout_ms: 30_000,
        }
    }
}

/// The client's configuration, as the engine needs it.
#[derive(Clone, Debug)]
pub struct Config {
    /// The MCP endpoint.
    pub url: String,
    pub version: VersionChoice,
    /// `Implementation` sent as `io.modelcontextprotocol/clientInfo`.
    pub client_info: Value,
    /// Extra headers for every request (e.g. `Authorization`).
    pub headers: Vec<(String, String)>,
    /// Elicitation modes the host handles (`None` = no elicitation handler).
    pub elicitation: Option<ElicitationModes>,
    /// Sampling, when the host has a handler.
    pub sampling: Option<SamplingSupport>,
    /// True when the host configured roots.
    pub roots: bool,
    /// Declared extensions: identifier → settings object.
    pub extensions: Map,
    /// Default budget of one call's server time.
    pub request_timeout_ms: u64,
    /// Optional hard maximum of one call's wall time (human time included).
    pub max_total_timeout_ms: Option<u64>,
    /// `_meta` log level asked on every request (deprecated logging, spec `server/utilities/logging.mdx`).
    pub log_level: Option<String>,
    pub validate_output: ValidateOutput,
    pub limits: Limits,
    /// OAuth authorization (`auth`): on a 401 or `403 insufficient_scope` the client runs
    /// the flow and retries with a Bearer token. `None`: a 401 is an `HttpError`.
    pub auth: Option<crate::auth::AuthConfig>,
    /// Visibility (issue 13): while the context is hidden, a waited task is polled at most
    /// every `max(pollIntervalMs, this)`; `None` (`Infinity` in JS) pauses polling while
    /// hidden. Default 60 000.
    pub hidden_poll_interval_ms: Option<u64>,
    /// Durable tasks (issue 13, `engine::task::store`): tasks created or waited on are
    /// written to the host's task store (`Action::StoreTask`) so that they can be resumed
    /// after a reload. False for `taskStore: 'none'`.
    pub persist_tasks: bool,
    /// `storeAnswers`: answers sent but not yet acknowledged are kept in the stored record
    /// (re-sent after a reload). False: they are never written, and such a key is asked
    /// again after a reload.
    pub store_answers: bool,
    /// Issue 13, coordination across contexts (`coordination: 'auto'` where Web Locks and
    /// BroadcastChannel exist, with the tasks extension declared): one poller and one dialog per question per task across
    /// the contexts of an origin (`engine::task::peers`). Off: every driver polls itself.
    pub coordinated: bool,
    /// Issue 14, push-driven tasks (`pushTasks: 'auto'`, the JS default): tasks waited on
    /// are listened for on one shared `subscriptions/listen` stream, and polled only as a
    /// backstop once the server acknowledges them (`engine::task::push`). Off (the
    /// default here; `pushTasks: false` in JS): polling only.
    pub push_tasks: bool,
    /// `taskScope`: who the tasks belong to, when one origin talks to one server URL as
    /// several identities (two people signed in, in two tabs). It namespaces the task store's
    /// keys and the coordination's channel and locks (`task_space`); `None`: one origin and
    /// one server URL are one identity.
    pub task_scope: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ElicitationModes {
    pub form: bool,
    pub url: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SamplingSupport {
    /// Tool use in sampling (`sampling.tools`).
    pub tools: bool,
    /// The deprecated `includeContext` values (`sampling.context`).
    pub context: bool,
}

/// Log levels of `io.modelcontextprotocol/logLevel` (spec `LoggingLevel`).
pub(crate) const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// Header names the client sets itself; a host header with one of these names is refused.
const RESERVED_HEADERS: [&str; 6] = [
    "content-type",
    "accept",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "mcp-session-id",
];

/// Boolean options the host named in one of its option objects (`None`: not named), or
/// `None` for the whole object when the host gave none.
pub(crate) type Named<const N: usize> = Option<[Option<bool>; N]>;

impl Config {
    /// Elicitation, from whether the host has a handler and the modes it named
    /// (`[form, url]`): named modes are those, each one not named off; no modes named is
    /// `{form: true}`. Modes without a handler are a `ConfigError`.
    pub fn set_elicitation(&mut self, handler: bool, modes: Named<2>) -> Result<()> {
        self.elicitation = match (handler, modes) {
            (true, Some([form, url])) => Some(ElicitationModes {
                form: form.unwrap_or(false),
                url: url.unwrap_or(false),
            }),
            (true, None) => Some(ElicitationModes {
                form: true,
                url: false,
            }),
            (false, Some(_)) => {
                return Err(Error::config(
                    "elicitation modes are set but there is no onElicitation handler",
                ))
            }
            (false, None) => return Ok(()),
        };
        Ok(())
    }

    /// Sampling, from whether the host has a handler and the options it named
    /// (`[tools, context]`, each one not named off). Options without a handler are a
    /// `ConfigError`.
    pub fn set_sampling(&mut self, handler: bool, options: Named<2>) -> Result<()> {
        match (handler, options) {
            (true, o) => {
                let [tools, context] = o.unwrap_or_default();
                self.sampling = Some(SamplingSupport {
                    tools: tools.unwrap_or(false),
                    context: context.unwrap_or(false),
                });
                Ok(())
            }
            (false, Some(_)) => Err(Error::config(
                "sampling options are set but there is no onSampling handler",
            )),
            (false, None) => Ok(()),
        }
    }

    /// A configuration with defaults for everything but the URL.
    pub fn new(url: impl Into<String>) -> Config {
        Config {
            url: url.into(),
            version: VersionChoice::Auto,
            client_info: json_object(vec![
                ("name", "mcp-wasm-client".into()),
                ("version", env!("CARGO_PKG_VERSION").into()),
            ]),
            headers: Vec::new(),
            elicitation: None,
            sampling: None,
            roots: false,
            extensions: Map::new(),
            request_timeout_ms: 60_000,
            max_total_timeout_ms: None,
            log_level: None,
            validate_output: ValidateOutput::Strict,
            limits: Limits::default(),
            auth: None,
            hidden_poll_interval_ms: Some(60_000),
            persist_tasks: true,
            store_answers: true,
            coordinated: false,
            task_scope: None,
            push_tasks: false,
        }
    }

    /// Checks what the host passed; errors are `ConfigError`s naming the option.
    pub fn validate(&self) -> Result<()> {
        let u = self.url.to_ascii_lowercase();
        if !(u.starts_with("http://") || u.starts_with("https://")) {
            return Err(Error::config("server URL must be an http: or https: URL"));
        }
        if self.url.chars().any(|c| c.is_control() || c == ' ') {
            return Err(Error::config(
                "server URL contains spaces or control characters",
            ));
        }
        for (name, value) in &self.headers {
            if !crate::http::encoding::is_token(name) {
                return Err(Error::config(format!(
                    "header name \"{name}\" is not a valid HTTP token"
                )));
            }
            if value.chars().any(|c| c == '\r' || c == '\n' || c == '\0') {
                return Err(Error::config(format!(
                    "header {name} has a CR, LF or NUL in its value"
                )));
            }
            let lower = name.to_ascii_lowercase();
            if RESERVED_HEADERS.contains(&lower.as_str()) || lower.starts_with("mcp-param-") {
                return Err(Error::config(format!(
                    "header {name} is set by the client itself and cannot be configured"
                )));
            }
        }
        // The modern-only build speaks 2026-07-28 alone: an older pinned era is refused here,
        // before any request (`engine::session`).
        #[cfg(not(feature = "legacy"))]
        if let VersionChoice::Pinned(v) = &self.version {
            if !crate::protocol::is_modern_version(v) {
                let v = crate::error::sanitize(v, 40);
                return Err(crate::engine::session::legacy_era_error(Some(&v), 0));
            }
        }
        if let Some(level) = &self.log_level {
            if !LOG_LEVELS.contains(&level.as_str()) {
                return Err(Error::config(format!(
                    "logLevel must be one of {}",
                    crate::text::join(LOG_LEVELS.iter().copied(), ", ")
                )));
            }
        }
        if let Some(m) = self.elicitation {
            if !m.form && !m.url {
                return Err(Error::config(
                    "elicitation must enable at least one of form and url",
                ));
            }
        }
        if self
            .task_scope
            .as_ref()
            .is_some_and(|s| s.is_empty() || s.len() > 200)
        {
            return Err(Error::config("taskScope must be 1 to 200 characters"));
        }
        if self.limits.max_concurrent_inputs == 0 {
            return Err(Error::config("maxConcurrentInputs must be at least 1"));
        }
        if let Some(a) = &self.auth {
            validate_auth(a, self.authorization().is_some())?;
        }
        Ok(())
    }

    /// What the tasks of this client are kept and coordinated under: the server URL, or
    /// with a `taskScope`, `<length>:<scope> <URL>` (a URL starts with a letter, so no scope
    /// names the unscoped space, and the length keeps scopes apart). The task store's keys,
    /// the channel and the task locks are built from it (`task::store`, `task::peers`).
    pub(crate) fn task_space(&self) -> std::borrow::Cow<'_, str> {
        match &self.task_scope {
            None => std::borrow::Cow::Borrowed(&self.url),
            Some(s) => std::borrow::Cow::Owned(format!("{}:{s} {}", s.len(), self.url)),
        }
    }

    /// True when the tasks extension is declared.
    pub fn tasks_enabled(&self) -> bool {
        self.extensions.contains_key(TASKS_EXTENSION)
    }

    /// The `Authorization` header in use, the key of `private` cache entries.
    pub fn authorization(&self) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("authorization"))
            .map(|(_, v)| v.as_str())
    }

    /// `ClientCapabilities` for the modern era, exactly what the host configured.
    pub fn client_capabilities(&self) -> Value {
        let mut caps = Map::new();
        if let Some(m) = self.elicitation {
            let mut e = Map::new();
            if m.form {
                e.insert("form".into(), json!({}));
            }
            if m.url {
                e.insert("url".into(), json!({}));
            }
            caps.insert("elicitation".into(), Value::Object(e));
        }
        if let Some(s) = self.sampling {
            let mut m = Map::new();
            if s.tools {
                m.insert("tools".into(), json!({}));
            }
            if s.context {
                m.insert("context".into(), json!({}));
            }
            caps.insert("sampling".into(), Value::Object(m));
        }
        if self.roots {
            caps.insert("roots".into(), json!({}));
        }
        if !self.extensions.is_empty() {
            caps.insert("extensions".into(), Value::Object(self.extensions.clone()));
        }
        Value::Object(caps)
    }
}

/// The `auth` option: the redirect URI is `https:` or a loopback `http:` (security
/// considerations "Communication Security"), a CIMD client id is an `https:` URL with a
/// path (`client-registration.mdx`), and the token is the client's to send.
fn validate_auth(a: &crate::auth::AuthConfig, has_authorization: bool) -> Result<()> {
    use crate::auth::url;
    if has_authorization {
        return Err(Error::config(
            "headers.Authorization and auth cannot both be set: with auth the client sends its own token",
        ));
    }
    let secure = |u: &str| {
        url::split(u).is_some_and(|p| p.scheme == "https" && p.fragment.is_none())
            || (url::is_loopback(u) && url::split(u).is_some_and(|p| p.fragment.is_none()))
    };
    if a.client_secret.is_some() && a.client_key.is_some() {
        // One client authentication method (RFC 6749 §2.3: "MUST NOT use more than one").
        return Err(Error::config(
            "auth.clientSecret and auth.privateKey cannot both be set: private_key_jwt or a secret",
        ));
    }
    if a.client_key.is_some() && a.client_id.is_none() {
        return Err(Error::config("auth.privateKey needs auth.clientId"));
    }
    if a.client_credentials {
        if a.client_id.is_none() || (a.client_secret.is_none() && a.client_key.is_none()) {
            return Err(Error::config(
                "auth.grant 'client_credentials' needs auth.clientId and auth.clientSecret (or auth.privateKey)",
            ));
        }
    } else if !secure(&a.redirect_uri) {
        return Err(Error::config(
            "auth.redirectUri must be an https: URL (or http: on localhost) without a fragment",
        ));
    }
    if let Some(u) = &a.client_metadata_url {
        let ok = url::split(u).is_some_and(|p| p.scheme == "https" && p.path.len() > 1);
        if !ok {
            return Err(Error::config(
                "auth.clientMetadataUrl must be an https: URL with a path",
            ));
        }
    }
    if a.client_id.as_deref() == Some("") {
        return Err(Error::config("auth.clientId must not be empty"));
    }
    if a.client_secret.is_some() && a.client_id.is_none() {
        return Err(Error::config("auth.clientSecret needs auth.clientId"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn elicitation_and_sampling_follow_the_handlers() {
        let mut c = Config::new("http://x.test/mcp");
        c.set_elicitation(false, None).unwrap();
        c.set_sampling(false, None).unwrap();
        assert_eq!((c.elicitation, c.sampling), (None, None));
        assert_eq!(
            c.set_elicitation(false, Some([None, None]))
                .unwrap_err()
                .message,
            "elicitation modes are set but there is no onElicitation handler"
        );
        assert_eq!(
            c.set_sampling(false, Some([Some(true), None]))
                .unwrap_err()
                .message,
            "sampling options are set but there is no onSampling handler"
        );
        // A handler without modes: form only.
        c.set_elicitation(true, None).unwrap();
        let form = ElicitationModes {
            form: true,
            url: false,
        };
        assert_eq!(c.elicitation, Some(form));
        // Named modes: those, the others off.
        c.set_elicitation(true, Some([None, Some(true)])).unwrap();
        let url = ElicitationModes {
            form: false,
            url: true,
        };
        assert_eq!(c.elicitation, Some(url));
        c.set_sampling(true, None).unwrap();
        assert_eq!(c.sampling, Some(SamplingSupport::default()));
        c.set_sampling(true, Some([Some(true), None])).unwrap();
        let tools = SamplingSupport {
            tools: true,
            context: false,
        };
        assert_eq!(c.sampling, Some(tools));
    }

    use super::*;

    #[test]
    fn capabilities_follow_configuration_exactly() {
        let mut c = Config::new("http://localhost/mcp");
        assert_eq!(c.client_capabilities(), json!({}));
        c.elicitation = Some(ElicitationModes {
            form: true,
            url: false,
        });
        c.sampling = Some(SamplingSupport {
            tools: true,
            context: false,
        });
        c.roots = true;
        c.extensions.insert(TASKS_EXTENSION.into(), json!({}));
        assert_eq!(
            c.client_capabilities(),
            json!({"elicitation":{"form":{}},"sampling":{"tools":{}},"roots":{},
                   "extensions":{"io.modelcontextprotocol/tasks":{}}})
        );
        assert!(c.tasks_enabled());
    }

    #[test]
    fn validation_refuses_bad_options() {
        let mut c = Config::new("ftp://x");
        assert!(c.validate().is_err());
        c.url = "https://x/mcp".into();
        assert!(c.validate().is_ok());
        c.headers = vec![("Authorization".into(), "Bearer a\r\nX: y".into())];
        assert!(c.validate().is_err());
        c.headers = vec![("Mcp-Method".into(), "x".into())];
        assert!(c.validate().is_err());
        c.headers = vec![("Bad Name".into(), "x".into())];
        assert!(c.validate().is_err());
        c.headers = vec![("Authorization".into(), "Bearer t".into())];
        assert!(c.validate().is_ok());
        assert_eq!(c.authorization(), Some("Bearer t"));
        c.log_level = Some("loud".into());
        assert!(c.validate().is_err());
    }

    #[test]
    fn auth_validation() {
        let mut c = Config::new("https://x/mcp");
        let mut a = crate::auth::AuthConfig {
            redirect_uri: "https://app.example/cb".into(),
            ..Default::default()
        };
        c.auth = Some(a.clone());
        assert!(c.validate().is_ok());
        c.headers = vec![("Authorization".into(), "Bearer t".into())];
        assert!(c.validate().is_err());
        c.headers.clear();
        for bad in ["http://app.example/cb", "https://app.example/cb#x", "cb"] {
            a.redirect_uri = bad.into();
            c.auth = Some(a.clone());
            assert!(c.validate().is_err(), "{bad}");
        }
        a.redirect_uri = "http://127.0.0.1:8765/cb".into();
        a.client_metadata_url = Some("https://app.example".into());
        c.auth = Some(a.clone());
        assert!(c.validate().is_err());
        a.client_metadata_url = Some("https://app.example/client.json".into());
        a.client_secret = Some("s".into());
        c.auth = Some(a.clone());
        assert!(c.validate().is_err());
        a.client_id = Some("id".into());
        c.auth = Some(a);
        assert!(c.validate().is_ok());
        // The client credentials grant: no redirect, but a client id and secret.
        let mut cc = crate::auth::AuthConfig {
            client_credentials: true,
            client_id: Some("machine".into()),
            ..Default::default()
        };
        c.auth = Some(cc.clone());
        let e = c.validate().unwrap_err();
        assert!(e.message.contains("clientSecret"), "{}", e.message);
        cc.client_secret = Some("s".into());
        c.auth = Some(cc.clone());
        assert!(c.validate().is_ok(), "no redirectUri needed");
        // private_key_jwt (issue 16): a key instead of the secret, never both.
        cc.client_key = Some(crate::auth::dpop::ClientKey {
            alg: crate::auth::dpop::JwsAlg::Es256,
            key_id: None,
        });
        c.auth = Some(cc.clone());
        let e = c.validate().unwrap_err();
        assert_eq!(e.kind, crate::error::ErrorKind::Config);
        assert!(e.message.contains("cannot both be set"), "{}", e.message);
        cc.client_secret = None;
        c.auth = Some(cc.clone());
        assert!(c.validate().is_ok(), "a key alone is enough");
        cc.client_id = None;
        c.auth = Some(cc);
        assert!(c.validate().is_err());
    }
}
