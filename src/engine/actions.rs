//! What the engine asks its driver (the web shell, or a test) to do, and the values it
//! hands back. The driver performs actions and feeds the results back as events.

use crate::error::Error;
use crate::http::request::HttpRequest;
use crate::json::RawJson;
use crate::json::{Map, Value};
use crate::protocol::input::InputKind;
use crate::protocol::jsonrpc::RpcError;
use crate::protocol::tasks::Task;

pub(crate) use crate::engine::ids::AuthStepId;
pub use crate::engine::ids::{AskId, OpId};

/// An action for the driver.
#[derive(Debug)]
pub enum Action {
    /// Perform this HTTP request; report its head, body chunks and end (or failure) with its id.
    Send(HttpRequest),
    /// Abort the HTTP request with this id (cancellation is closing the stream in 2026-07-28).
    Cancel(u64),
    /// Ask the host for input (elicitation, sampling, roots); answer with `Core::answer`.
    Ask(Ask),
    /// The ask is moot (call aborted, timed out, task moved on): fire its `ctx.signal`.
    CancelAsk(AskId),
    /// `notifications/progress` for an operation.
    Progress {
        op: OpId,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    /// `notifications/message` (a log line the server sent for a request).
    Log { op: Option<OpId>, params: Value },
    /// A server notification for the host's `onNotification` (list changes, resource
    /// updates, task notifications).
    Notify { method: String, params: Value },
    /// A task an operation waits on changed (`onTaskStatus` / `onStatus`).
    TaskStatus { op: OpId, task: TaskView },
    /// An event of a `subscriptions/listen` operation.
    Subscription { op: OpId, event: SubscriptionEvent },
    /// Something the host should know but that does not fail a call (dropped tools, ...).
    Warn { message: String },
    /// The operation finished. For listen operations this is the end of the subscription.
    Done {
        op: OpId,
        outcome: Result<Output, Error>,
    },
    /// OAuth work only the host can do (randomness, the person's step, storage); answer
    /// with `Core::on_auth`.
    Auth(AuthAction),
    /// The person's step of the OAuth flow is moot (the client closed): fire its signal.
    CancelAuth(AuthStepId),
    /// Durable tasks (issue 13): write this record under `key` in the task store
    /// (`engine::task::store`); nothing to answer, a failure is the shell's warning.
    StoreTask { key: String, value: Value },
    /// Durable tasks: remove the record under `key` (the task ended, was cancelled, is
    /// gone, or its TTL passed).
    ForgetTask { key: String },
    /// Coordination with the other contexts of the origin (issue 13; `engine::task::peers`).
    Peer(PeerAction),
}

/// What coordination across contexts asks of the shell (issue 13, "One poller across
/// contexts"). Lock names and message texts come from the engine; the shell only performs.
#[derive(Debug, PartialEq)]
pub enum PeerAction {
    /// Request the Web Lock `name` (exclusive) and hold it until `Unlock`; report the
    /// grant with `Core::on_peer_lock(name)`. A pending request is withdrawn by `Unlock`.
    Lock { name: String },
    /// Release (or stop waiting for) the Web Lock `name`.
    Unlock { name: String },
    /// Post `text` (a JSON message) on the client's BroadcastChannel
    /// (`engine::task::peers::channel_name`); the others hand it to `Core::on_peer_message`.
    Post { text: String },
}

/// OAuth work for the shell (`engine::core::auth`). Each `id` is answered once with
/// `Core::on_auth(id, ..)`; a `CancelAuth(id)` withdraws an `Authorize` (its signal fires).
#[derive(Debug, PartialEq)]
pub enum AuthAction {
    /// `len` bytes from `crypto.getRandomValues` (`AuthInput::Random`).
    Random { id: AuthStepId, len: usize },
    /// The person's step: the host opens `req.url` and answers with the URL the
    /// authorization server redirected to (`AuthInput::Callback`).
    Authorize {
        id: AuthStepId,
        req: crate::auth::AuthorizeReq,
    },
    /// `storage.get(key)` (`AuthInput::Loaded`).
    Load { id: AuthStepId, key: String },
    /// `storage.set(key, value)`; nothing to answer.
    Save { key: String, value: String },
    /// Across contexts (issue 13): take the Web Lock `name` (`navigator.locks.request`),
    /// answer `AuthInput::Locked` once granted; hold it until `Unlock { id }`.
    Lock { id: AuthStepId, name: String },
    /// Release the lock `id` once the `Save`s asked before are done (a lock still awaited
    /// is abandoned: its request is aborted, never answered).
    Unlock { id: AuthStepId },
    /// Tell the other contexts that the tokens stored under `key` changed (a notice, no
    /// token: they read `key` again), once the `Save`s asked before are done. The shell
    /// hands a notice it receives to `Core::on_auth_notice`.
    Announce { key: String },
    /// DPoP (RFC 9449): the client's ES256 key pair of this name (`crypto.subtle`,
    /// non-extractable; with `auth.storage` loaded from and kept under `name`, else kept for
    /// the client's life). Answer `AuthInput::Key` with the public JWK and 16 random bytes.
    /// The shell signs every `DPoP` request header with its private key: the header's value
    /// is the JWS signing input, the shell appends `"." BASE64URL(signature)`.
    Key { id: AuthStepId, name: String },
    /// `private_key_jwt` (RFC 7523): sign `input` (a JWS signing input) with the host's
    /// `auth.privateKey` (`AuthInput::Signed`).
    Sign { id: AuthStepId, input: String },
}

/// The host's answer to an [`AuthAction`].
#[derive(Debug)]
pub enum AuthInput {
    Random(Vec<u8>),
    /// The callback URL, or what `onAuthorize` threw.
    Callback(Result<String, Error>),
    /// The stored value (`None`: nothing, or the storage failed).
    Loaded(Option<String>),
    /// The lock of a `Lock` is held (or the platform could not give it: the flow goes on
    /// as it would without locks).
    Locked,
    /// The DPoP key's public JWK (JSON text) and 16 random bytes; `None`: no key could be
    /// had (no WebCrypto, or it failed).
    Key(Option<(String, Vec<u8>)>),
    /// The signature of a `Sign` (`None`: the key could not sign).
    Signed(Option<Vec<u8>>),
}

/// Where an input request comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AskScope {
    /// An MRTR round of a request (`input_required` result).
    Request,
    /// A task's `inputRequests`.
    Task,
}

impl AskScope {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            AskScope::Request => "request",
            AskScope::Task => "task",
        }
    }
}

/// An input request for the host's handlers.
#[derive(Clone, Debug)]
pub struct Ask {
    pub id: AskId,
    pub kind: InputKind,
    /// The input request's params as the server sent them.
    pub params: Map,
    pub scope: AskScope,
    pub task_id: Option<String>,
    /// The `inputRequests` key.
    pub key: String,
    /// The method that asked (`tools/call`, `prompts/get`, `resources/read`, `tasks/get`).
    pub method: String,
    /// URL-mode elicitation: the URL's origin, host and whether it is punycode.
    pub url: Option<UrlFacts>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct UrlFacts {
    pub url: String,
    pub origin: String,
    /// The host name (without the port).
    pub host: String,
    pub is_punycode: bool,
}

impl UrlFacts {
    /// The host as the URL API's `host` spells it: with the port when there is one
    /// (taken from the origin; `host` when the origin has no scheme).
    pub fn host_and_port(&self) -> &str {
        crate::text::split_once(&self.origin, "://")
            .map(|(_, h)| h)
            .unwrap_or(&self.host)
    }
}

#[cfg(test)]
mod url_facts_tests {
    use super::UrlFacts;

    #[test]
    fn host_and_port_comes_from_the_origin() {
        let f = |origin: &str| UrlFacts {
            url: format!("{origin}/x"),
            origin: origin.into(),
            host: "example.com".into(),
            is_punycode: false,
        };
        assert_eq!(
            f("https://example.com:8443").host_and_port(),
            "example.com:8443"
        );
        assert_eq!(f("https://example.com").host_and_port(), "example.com");
        assert_eq!(f("null").host_and_port(), "example.com");
    }
}

/// A task as the host sees it.
#[derive(Clone, Debug)]
pub struct TaskView {
    pub task: Task,
    /// `input_required`: the outstanding requests, as sent.
    pub input_requests: Option<Value>,
    /// `completed`: the result, raw.
    pub result: Option<RawJson>,
    /// `failed`: the error.
    pub error: Option<RpcError>,
    /// True for a task made locally from a synchronous answer.
    pub local: bool,
}

/// An event of a subscription.
#[derive(Debug)]
pub enum SubscriptionEvent {
    /// The server acknowledged; `granted` is the filter it agreed to honour.
    Acknowledged {
        granted: Value,
        subscription_id: Value,
    },
    /// A notification of the subscription.
    Notification { method: String, params: Value },
    /// The stream dropped; the engine re-listens after `delay_ms` (attempt `attempt`).
    Reconnecting {
        attempt: u32,
        delay_ms: u64,
        reason: String,
    },
}

/// What a finished operation produced.
#[derive(Debug)]
pub enum Output {
    /// A result as the server sent it (raw JSON text of the result object).
    Raw(RawJson),
    /// A value the engine built or rewrote (e.g. a filtered tools page, a list of all pages).
    Value(Value),
    /// A task.
    Task(TaskView),
    /// Nothing (acks, a gracefully closed subscription).
    Empty,
}

impl Output {
    /// The output as a JSON value (tests and non-JS drivers).
    pub(crate) fn to_value(&self) -> Value {
        match self {
            Output::Raw(r) => crate::json::parse(r.get()).unwrap_or(Value::Null),
            Output::Value(v) => v.clone(),
            Output::Task(t) => t.to_value(),
            Output::Empty => Value::Null,
        }
    }

    /// [`Output::to_value`], without copying a value it holds.
    pub(crate) fn into_value(self) -> Value {
        match self {
            Output::Value(v) => v,
            other => other.to_value(),
        }
    }
}

impl TaskView {
    /// The DetailedTask wire shape.
    pub(crate) fn to_value(&self) -> Value {
        let mut m = self.task.to_value();
        if let Some(ir) = &self.input_requests {
            m.insert("inputRequests".into(), ir.clone());
        }
        if let Some(r) = &self.result {
            m.insert(
                "result".into(),
                crate::json::parse(r.get()).unwrap_or(Value::Null),
            );
        }
        if let Some(e) = &self.error {
            m.insert("error".into(), e.to_value());
        }
        Value::Object(m)
    }
}

/// Options of one operation.
#[derive(Clone, Debug, Default)]
pub struct OpOptions {
    /// Budget of server time (ms); `None` = the client's default.
    pub timeout_ms: Option<u64>,
    /// Reset the budget when progress arrives.
    pub reset_timeout_on_progress: bool,
    /// Hard maximum of wall time, human time included.
    pub max_total_timeout_ms: Option<u64>,
    /// For task waits: budget of the wait (`None` = until the task ends or its TTL passes).
    pub task_timeout_ms: Option<u64>,
    /// Ask for progress notifications (a `progressToken` is sent).
    pub progress: bool,
    /// Skip the cache lookup (the fresh result is still stored).
    pub no_cache: bool,
    /// Per-request log level (`_meta` `io.modelcontextprotocol/logLevel`).
    pub log_level: Option<String>,
    /// Host-provided `_meta` entries for the request.
    pub meta: Option<Map>,
}

impl OpOptions {
    /// A copy of options that have no log level and no `_meta` (a plain tool call's,
    /// `engine::core::plain`): `Clone`'s code for the string and the map is not run.
    pub(crate) fn copy_plain(&self) -> OpOptions {
        debug_assert!(self.log_level.is_none() && self.meta.is_none());
        OpOptions {
            timeout_ms: self.timeout_ms,
            reset_timeout_on_progress: self.reset_timeout_on_progress,
            max_total_timeout_ms: self.max_total_timeout_ms,
            task_timeout_ms: self.task_timeout_ms,
            progress: self.progress,
            no_cache: self.no_cache,
            log_level: None,
            meta: None,
        }
    }
}
