//! One logical request, start to finish: the first POST, its multi round-trip (MRTR)
//! rounds, a re-issue when the response stream breaks, a protocol-version retry, and its
//! time budget.
//!
//! MRTR (spec `basic/patterns/mrtr.mdx`): an `input_required` result carries
//! `inputRequests` (answered by the host's handlers, concurrently, keyed like the
//! requests) and/or an opaque `requestState`. The client retries the same method with the
//! same params plus `inputResponses` and `requestState` echoed byte-exact, under a new
//! id. Both belong to that retry only. The rounds are in [`rounds`].
//!
//! Time: the budget counts the time the client waits on the server. While handlers wait
//! on a person the clock is paused; an optional hard deadline still applies.

mod rounds;

use rounds::Round;

use crate::engine::actions::{Action, AskId};
use crate::engine::arguments::ToolArguments;
use crate::engine::ids::ExchangeId;
use crate::engine::shared::{Owner, Shared};
use crate::error::json_object;
use crate::error::{sanitize, Error, ErrorKind, Result};
use crate::http::request::Params;
use crate::json::RawJson;
use crate::json::{Map, Value};
use crate::protocol::codes::{from_rpc, UNSUPPORTED_PROTOCOL_VERSION};
use crate::protocol::is_modern_version;
use crate::protocol::jsonrpc::{RequestId, RpcError};
use crate::protocol::result::{peek_result_type, ResultType};
use crate::time::Millis;

/// How long a refused retry carrying answers waits without a `Retry-After` ([`Call::resend_later`]).
const RESEND_AFTER_MS: u64 = 1000;

/// How one call behaves.
#[derive(Clone, Debug)]
pub(crate) struct CallPolicy {
    /// The method may answer `input_required` (tools/call, prompts/get, resources/read).
    pub allow_input: bool,
    /// The method may answer `resultType: "task"` (tools/call with the tasks extension declared).
    pub allow_task: bool,
    /// Budget of server time.
    pub timeout_ms: u64,
    pub reset_on_progress: bool,
    /// Absolute hard deadline (wall time, human time included).
    pub hard_deadline: Option<Millis>,
    /// Send a progress token.
    pub progress: bool,
    pub log_level: Option<String>,
    /// Re-issue once when the response stream closes before the response.
    pub reissue_on_drop: bool,
}

impl CallPolicy {
    /// A request the client makes by itself (initialize, task polls, results and updates):
    /// no input rounds, no task, no progress token, no log level, no reset on progress.
    pub(crate) fn internal(timeout_ms: u64, reissue_on_drop: bool) -> CallPolicy {
        CallPolicy {
            allow_input: false,
            allow_task: false,
            timeout_ms,
            reset_on_progress: false,
            hard_deadline: None,
            progress: false,
            log_level: None,
            reissue_on_drop,
        }
    }
}

/// Inputs of a call.
pub(crate) enum CallInput<'a> {
    Response(RawJson),
    RpcError(RpcError, u16),
    /// The exchange failed (HTTP error, protocol error, network failure before a response).
    Failed(Error),
    /// The response stream ended before the response.
    StreamClosed,
    Progress(&'a Map),
    Answer(AskId, std::result::Result<Value, Error>),
    Timer,
}

/// What a finished call produced.
#[derive(Debug)]
pub(crate) enum CallOutcome {
    Complete(RawJson),
    /// A `CreateTaskResult` (raw).
    Task(RawJson),
}

/// The time budget of a call.
#[derive(Clone, Debug)]
struct Budget {
    timeout: u64,
    used: u64,
    active_since: Option<Millis>,
    hard: Option<Millis>,
}

impl Budget {
    fn deadline(&self) -> Option<Millis> {
        let soft = self
            .active_since
            .map(|s| s.saturating_add(self.timeout.saturating_sub(self.used)));
        match (soft, self.hard) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
    fn pause(&mut self, now: Millis) {
        if let Some(s) = self.active_since.take() {
            self.used = self.used.saturating_add(now.saturating_sub(s));
        }
    }
    fn resume(&mut self, now: Millis) {
        if self.active_since.is_none() {
            self.active_since = Some(now);
        }
    }
    fn reset(&mut self, now: Millis) {
        self.used = 0;
        if self.active_since.is_some() {
            self.active_since = Some(now);
        }
    }
}

/// One logical request.
pub(crate) struct Call {
    pub method: String,
    params: Map,
    /// The params' `name` when it is not in the map: a tool call's (`http::request::Params`).
    name_param: Option<String>,
    /// A member of the params kept as JSON text (`http::request::Params`).
    raw_param: Option<(&'static str, ToolArguments)>,
    extra_headers: Vec<(String, String)>,
    pub policy: CallPolicy,
    budget: Budget,
    progress_token: Option<Value>,
    xfer: Option<ExchangeId>,
    /// The JSON-RPC id of the latest request sent (a legacy resumption may carry it).
    rpc_id: Option<RequestId>,
    rounds: u32,
    reissued: bool,
    /// A retry carrying answers failed while the context was offline: it is sent again once
    /// the context is back online ([`Call::on_online`]).
    held_offline: bool,
    /// A retry carrying answers refused for a while (HTTP 408, 425, 429, 5xx): when it is
    /// sent again with the same answers ([`Call::resend_later`]).
    resend_at: Option<Millis>,
    version_retried: bool,
    round: Option<Round>,
    finished: bool,
    /// The result goes to the host unread (`Exchange::host_result`).
    pub host_result: bool,
}

impl Call {
    /// Sets the params' `name` member, written first into each request, outside the map
    /// (which must not hold a `name`).
    pub(crate) fn set_name_param(&mut self, name: String) {
        self.name_param = Some(name);
    }

    /// Adds member `name` to the params as JSON text, written into each request verbatim.
    pub(crate) fn set_raw_param(&mut self, name: &'static str, text: ToolArguments) {
        self.raw_param = Some((name, text));
    }

    /// Takes the member kept as JSON text back (a retry builds its request again).
    pub(crate) fn take_raw_param(&mut self) -> Option<ToolArguments> {
        self.raw_param.take().map(|(_, t)| t)
    }

    pub(crate) fn new(
        method: &str,
        params: Map,
        extra_headers: Vec<(String, String)>,
        policy: CallPolicy,
    ) -> Call {
        let budget = Budget {
            timeout: policy.timeout_ms,
            used: 0,
            active_since: None,
            hard: policy.hard_deadline,
        };
        Call {
            method: method.to_string(),
            params,
            name_param: None,
            raw_param: None,
            extra_headers,
            policy,
            budget,
            progress_token: None,
            xfer: None,
            rpc_id: None,
            rounds: 0,
            reissued: false,
            held_offline: false,
            resend_at: None,
            version_retried: false,
            round: None,
            finished: false,
            host_result: false,
        }
    }

    /// A call whose first request already left at `started` as exchange `xfer` with
    /// JSON-RPC id `rpc_id` (a plain tool call's short path, `engine::core::plain`): the
    /// state [`Call::start`] leaves for a policy without a progress token.
    pub(crate) fn sent(&mut self, xfer: ExchangeId, rpc_id: RequestId, started: Millis) {
        self.budget.resume(started);
        self.xfer = Some(xfer);
        self.rpc_id = Some(rpc_id);
    }

    /// The deadline a call of `policy` started at `started` has until its answer: what
    /// [`Call::deadline`] gives after [`Call::sent`].
    pub(crate) fn first_deadline(policy: &CallPolicy, started: Millis) -> Option<Millis> {
        Budget {
            timeout: policy.timeout_ms,
            used: 0,
            active_since: Some(started),
            hard: policy.hard_deadline,
        }
        .deadline()
    }

    /// The request's params (without `_meta`, `inputResponses`, `requestState`).
    pub(crate) fn params(&self) -> &Map {
        &self.params
    }

    /// Sends the first request.
    pub(crate) fn start(&mut self, sh: &mut Shared, owner: &Owner) {
        if self.policy.progress && self.progress_token.is_none() {
            self.progress_token = Some(sh.new_progress_token(owner.clone()));
        }
        self.budget.resume(sh.now);
        self.send(sh, owner);
    }

    fn send(&mut self, sh: &mut Shared, owner: &Owner) {
        if let Some(x) = self.xfer.take() {
            sh.cancel_exchange(x);
        }
        let mut state = None;
        let mut answered = None;
        if let Some(r) = &self.round {
            if !r.answers.is_empty() {
                let mut p = self.params.clone();
                p.insert("inputResponses".into(), Value::Object(r.answers.clone()));
                answered = Some(p);
            }
            state = r.request_state.as_ref();
        }
        let params = Params {
            map: Some(answered.as_ref().unwrap_or(&self.params)),
            name: self.name_param.as_deref(),
            raw: self.raw_param.as_ref().map(|(k, t)| (*k, t.get())),
        };
        if let Some(id) = self.rpc_id.take() {
            sh.abandon(&id);
        }
        let framed = sh.request(
            &self.method,
            params,
            &self.extra_headers,
            state,
            self.progress_token.as_ref(),
            self.policy.log_level.as_deref(),
        );
        let (xfer, id) = sh.send_request(owner.clone(), framed);
        if let Some(slot) = sh.xs.get_mut(xfer) {
            slot.exchange.host_result = self.host_result;
        }
        self.xfer = Some(xfer);
        self.rpc_id = Some(id);
    }

    /// Sends the request again with a new id, once per call when its policy allows it;
    /// whether it did.
    fn reissue(&mut self, sh: &mut Shared, owner: &Owner) -> bool {
        let again = self.policy.reissue_on_drop && !self.reissued;
        if again {
            self.reissued = true;
            self.send(sh, owner);
        }
        again
    }

    /// [`Call::reissue`], but a retry carrying answers while the context is offline waits
    /// for it to be back online (as a task's answers do, `Core::set_online`), within the
    /// call's time budget. Whether the request was sent again or is held.
    fn send_again(&mut self, sh: &mut Shared, owner: &Owner) -> bool {
        let hold = !sh.presence.online
            && self.carries_answers()
            && self.policy.reissue_on_drop
            && !self.reissued;
        if hold {
            self.held_offline = true;
            return true;
        }
        self.reissue(sh, owner)
    }

    /// The context is back online: a retry held while offline is sent again. Whether it was.
    pub(crate) fn on_online(&mut self, sh: &mut Shared, owner: &Owner) -> bool {
        if !self.held_offline || self.finished {
            return false;
        }
        self.held_offline = false;
        self.reissue(sh, owner)
    }

    /// Whether the request this call sends carries input responses (an MRTR retry).
    fn carries_answers(&self) -> bool {
        self.round.as_ref().is_some_and(|r| !r.answers.is_empty())
    }

    /// The next time this call needs a timer event.
    pub(crate) fn deadline(&self) -> Option<Millis> {
        if self.finished {
            None
        } else {
            match (self.budget.deadline(), self.resend_at) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            }
        }
    }

    /// A retry carrying the person's answers that the server refused for a while (`e`: HTTP
    /// 408, 425, 429 or 5xx, `Error::is_transient`) is sent once more with the same answers
    /// after its `Retry-After` (1 s without one), when that is within the call's time
    /// budget: the answers are not lost nor asked again. Whether it will be.
    fn resend_later(&mut self, sh: &Shared, e: &Error) -> bool {
        let again = e.kind == ErrorKind::Http
            && e.is_transient()
            && self.carries_answers()
            && self.policy.reissue_on_drop
            && !self.reissued;
        if !again {
            return false;
        }
        let wait = e
            .data
            .as_ref()
            .and_then(|d| d.get("retryAfterMs"))
            .and_then(Value::as_u64)
            .unwrap_or(RESEND_AFTER_MS);
        let at = sh.now.saturating_add(wait);
        if self.budget.deadline().is_some_and(|d| at >= d) {
            return false;
        }
        self.resend_at = Some(at);
        true
    }

    /// Stops everything in flight (exchange, asks) and releases the progress token.
    pub(crate) fn cancel(&mut self, sh: &mut Shared) {
        if let Some(x) = self.xfer.take() {
            sh.cancel_exchange(x);
        }
        if let Some(id) = self.rpc_id.take() {
            sh.abandon(&id);
        }
        if let Some(r) = &mut self.round {
            for (ask, _) in r.asking.drain() {
                sh.forget_ask(&ask);
                sh.push(Action::CancelAsk(ask));
            }
        }
        sh.drop_progress_token(&self.progress_token);
        self.finished = true;
    }

    fn finish(&mut self, sh: &mut Shared, r: Result<CallOutcome>) -> Option<Result<CallOutcome>> {
        self.cancel(sh);
        Some(r)
    }

    /// Feeds an input. Returns the outcome once the call is over.
    pub(crate) fn handle(
        &mut self,
        sh: &mut Shared,
        owner: &Owner,
        input: CallInput,
    ) -> Option<Result<CallOutcome>> {
        if self.finished {
            return None;
        }
        // A complete result is the common case: the rest is out of line, so a call that
        // gets one compiles only this (a wasm function is compiled whole on its first call;
        // BENCHMARKS.md, "the first call's path").
        if let CallInput::Response(raw) = input {
            self.xfer = None;
            return match peek_result_type(&raw) {
                Ok(ResultType::Complete) => self.finish(sh, Ok(CallOutcome::Complete(raw))),
                t => self.on_response(sh, owner, raw, t),
            };
        }
        self.handle_other(sh, owner, input)
    }

    /// A response whose `resultType` is not `complete` (or cannot be read).
    #[inline(never)]
    fn on_response(
        &mut self,
        sh: &mut Shared,
        owner: &Owner,
        raw: RawJson,
        result_type: Result<ResultType>,
    ) -> Option<Result<CallOutcome>> {
        match result_type {
            Err(e) => self.finish(sh, Err(e)),
            Ok(ResultType::Complete) => self.finish(sh, Ok(CallOutcome::Complete(raw))),
            Ok(ResultType::InputRequired) => self.on_input_required(sh, owner, &raw),
            // The extension's own examples put "task" on tasks/get answers: the task
            // decoder accepts it only when the payload carries a status (tasks rule 2).
            Ok(ResultType::Task) if self.method == "tasks/get" => {
                self.finish(sh, Ok(CallOutcome::Complete(raw)))
            }
            Ok(ResultType::Task) => {
                if self.policy.allow_task {
                    self.finish(sh, Ok(CallOutcome::Task(raw)))
                } else {
                    let why = if self.method == "tools/call" {
                        "the tasks extension was not declared"
                    } else {
                        "only tools/call may create a task"
                    };
                    self.finish(
                        sh,
                        Err(Error::invalid_result(format!(
                            "{} answered resultType \"task\", but {why}",
                            self.method
                        ))),
                    )
                }
            }
            Ok(ResultType::Other(s)) => self.finish(
                sh,
                Err(Error::invalid_result(format!(
                    "unknown resultType \"{}\"",
                    sanitize(&s, 60)
                ))),
            ),
        }
    }

    /// Every input but a response.
    #[inline(never)]
    fn handle_other(
        &mut self,
        sh: &mut Shared,
        owner: &Owner,
        input: CallInput,
    ) -> Option<Result<CallOutcome>> {
        match input {
            CallInput::Response(raw) => {
                let t = peek_result_type(&raw);
                self.on_response(sh, owner, raw, t)
            }
            CallInput::RpcError(e, status) => {
                self.xfer = None;
                if e.code == UNSUPPORTED_PROTOCOL_VERSION && !self.version_retried {
                    // "The client SHOULD select a mutually supported version from the
                    // `supported` list and retry the request" (basic/versioning.mdx). That
                    // may be the version just sent (a server behind a load balancer can
                    // disagree with itself): retry once with it too; `version_retried`
                    // bounds this to one retry.
                    let current = sh.version.clone();
                    let mutual = crate::protocol::discover::supported_versions(e.data.as_ref())
                        .filter(|v| is_modern_version(v));
                    let pick = mutual
                        .clone()
                        .find(|v| *v != current)
                        .or_else(|| mutual.clone().next())
                        .map(str::to_string);
                    if let Some(v) = pick {
                        self.version_retried = true;
                        sh.version = v;
                        self.send(sh, owner);
                        return None;
                    }
                }
                let mut err = from_rpc(&e);
                if status != 0 {
                    err.status = Some(status);
                }
                self.finish(sh, Err(err))
            }
            CallInput::Failed(e) => {
                self.xfer = None;
                // A retry carrying the person's answers that failed with a network error
                // (no response, or a JSON body that broke) is sent once more with the same
                // answers, as a broken stream is (streamable-http.mdx "Receiving Messages"):
                // the answers are not lost nor asked again. Firefox rejects the fetch of a
                // response cut after its head and before its first body byte, where Chromium
                // and WebKit give the head and then break the stream (README, "Browsers").
                // A request that never reached the server is only sent once more; one that
                // did is re-issued as a broken stream would be.
                let again = (e.kind == ErrorKind::Network
                    && self.carries_answers()
                    && self.send_again(sh, owner))
                    || self.resend_later(sh, &e);
                if again {
                    None
                } else {
                    self.finish(sh, Err(e))
                }
            }
            CallInput::StreamClosed => {
                self.xfer = None;
                // 2026-07-28 streams are not resumable: a broken stream is re-sent as a new
                // request with a new id (streamable-http.mdx "Receiving Messages").
                if self.send_again(sh, owner) {
                    None
                } else {
                    self.finish(
                        sh,
                        Err(Error::network(format!(
                            "the response stream of {} closed before its response{}",
                            self.method,
                            if self.policy.reissue_on_drop {
                                " (the request was re-issued once)"
                            } else {
                                ""
                            }
                        ))
                        .with_data(json_object(vec![("reason", "stream-closed".into())]))),
                    )
                }
            }
            CallInput::Progress(p) => {
                if self.policy.reset_on_progress {
                    self.budget.reset(sh.now);
                }
                if let Owner::Op(op) = owner {
                    let progress = p.get("progress").and_then(Value::as_f64);
                    if let Some(progress) = progress {
                        sh.push(Action::Progress {
                            op: *op,
                            progress,
                            total: p.get("total").and_then(Value::as_f64),
                            message: p
                                .get("message")
                                .and_then(Value::as_str)
                                .map(|s| sanitize(s, 500)),
                        });
                    }
                }
                None
            }
            CallInput::Answer(ask, answer) => self.on_answer(sh, owner, ask, answer),
            CallInput::Timer => {
                if self.resend_at.is_some_and(|t| sh.now >= t) {
                    self.resend_at = None;
                    self.reissue(sh, owner);
                }
                let d = self.budget.deadline()?;
                if sh.now < d {
                    return None;
                }
                let hard = self.budget.hard.is_some_and(|h| sh.now >= h);
                let msg = if hard {
                    format!("{} exceeded its maximum total time", self.method)
                } else {
                    format!("{} timed out after {} ms", self.method, self.budget.timeout)
                };
                self.finish(sh, Err(Error::timeout(msg)))
            }
        }
    }
}
