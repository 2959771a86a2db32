//! `subscriptions/listen` (spec `basic/patterns/subscriptions.mdx`): a long-lived request
//! whose SSE response carries the change notifications the client opted in to. The first
//! message is `notifications/subscriptions/acknowledged` with the granted filter; every
//! message carries `_meta["io.modelcontextprotocol/subscriptionId"]` = the listen
//! request's id. A final JSON-RPC response is a graceful end; a stream that closes
//! without one dropped, and the engine listens again (new id) after a bounded back-off.

use crate::engine::actions::{Action, OpId, Output, SubscriptionEvent};
use crate::engine::call::CallInput;
use crate::engine::ids::ExchangeId;
use crate::engine::ops::{Aborted, Ctx, OpInput, Operation, Step};
use crate::engine::shared::Owner;
use crate::error::json_text;
use crate::error::{sanitize, Error, ErrorKind, Result};
use crate::http::request::{Params, META_SUBSCRIPTION_ID};
use crate::json::{Map, Value};
use crate::protocol::codes::from_rpc;
use crate::protocol::jsonrpc::{RequestId, RpcError};
use crate::protocol::tasks::decode_detailed_task;
use crate::protocol::TASKS_EXTENSION;
use crate::time::Millis;

enum State {
    /// Waiting for the acknowledgement.
    Connecting,
    Open,
    /// Waiting to listen again.
    Backoff,
    Closed,
}

/// One subscription.
pub(crate) struct ListenOp {
    filter: Map,
    state: State,
    /// Consecutive failed attempts.
    attempts: u32,
    sub_id: Option<RequestId>,
    xfer: Option<ExchangeId>,
    next_attempt: Option<Millis>,
    ack_deadline: Option<Millis>,
    acknowledged_once: bool,
}

/// What is wrong with filter `m`'s members (spec `SubscriptionFilter`; `taskIds` is the tasks
/// extension's): `"{key} must be …"`, or None. Members it does not name are left alone.
fn filter_misfit(m: &Map) -> Option<String> {
    for key in [
        "toolsListChanged",
        "promptsListChanged",
        "resourcesListChanged",
    ] {
        if m.get(key).is_some_and(|v| !v.is_boolean()) {
            return Some(format!("{key} must be a boolean"));
        }
    }
    for key in ["resourceSubscriptions", "taskIds"] {
        if let Some(v) = m.get(key) {
            if !v.as_array().is_some_and(|a| a.iter().all(Value::is_string)) {
                return Some(format!("{key} must be an array of strings"));
            }
        }
    }
    None
}

/// Checks a listen filter (spec `SubscriptionFilter`; `taskIds` is the tasks extension's).
pub(crate) fn check_filter(filter: &Value, tasks_declared: bool) -> Result<Map> {
    let Value::Object(m) = filter else {
        return Err(Error::config("listen filter must be an object"));
    };
    if let Some(misfit) = filter_misfit(m) {
        return Err(Error::config(format!("listen filter {misfit}")));
    }
    let wants_tasks = m
        .get("taskIds")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty());
    if wants_tasks && !tasks_declared {
        // Rule 22: task notifications need the declared extension.
        return Err(Error::new(
            ErrorKind::Capability,
            format!("listening for task notifications needs the {TASKS_EXTENSION} extension to be declared"),
        ));
    }
    Ok(m.clone())
}

impl ListenOp {
    pub(crate) fn start(cx: &mut Ctx, op: OpId, filter: Map) -> ListenOp {
        let mut l = ListenOp {
            filter,
            state: State::Connecting,
            attempts: 0,
            sub_id: None,
            xfer: None,
            next_attempt: None,
            ack_deadline: None,
            acknowledged_once: false,
        };
        l.connect(cx, op);
        l
    }

    fn connect(&mut self, cx: &mut Ctx, op: OpId) {
        let mut params = Map::new();
        params.insert("notifications".into(), Value::Object(self.filter.clone()));
        let framed = cx.sh.request(
            "subscriptions/listen",
            Params::of(&params),
            &[],
            None,
            None,
            None,
        );
        let (xfer, id) = cx.sh.send_request(Owner::Op(op), framed);
        self.xfer = Some(xfer);
        self.sub_id = Some(id);
        self.state = State::Connecting;
        self.next_attempt = None;
        self.ack_deadline = Some(
            cx.sh
                .now
                .saturating_add(cx.sh.cfg.limits.listen_ack_timeout_ms),
        );
    }

    /// The stream dropped (or the attempt failed): listen again after a back-off, or give up.
    fn dropped(&mut self, cx: &mut Ctx, op: OpId, reason: String) -> Step {
        if let Some(x) = self.xfer.take() {
            cx.sh.cancel_exchange(x);
        }
        // Offline, a drop is no failed attempt and nothing is retried: the stream listens
        // again when the network is back (issue 13; `ListenOp::on_online`).
        if self.acknowledged_once && !cx.sh.presence.online {
            self.state = State::Backoff;
            self.next_attempt = None;
            return Step::Pending;
        }
        let limits = &cx.sh.cfg.limits;
        if !self.acknowledged_once || self.attempts >= limits.listen_max_retries {
            self.state = State::Closed;
            let msg = if self.acknowledged_once {
                format!(
                    "subscription lost after {} reconnection attempts: {reason}",
                    self.attempts
                )
            } else {
                format!("subscriptions/listen failed: {reason}")
            };
            return Step::Done(Err(Error::network(msg)));
        }
        self.attempts += 1;
        let exp = (self.attempts - 1).min(20);
        let delay = limits
            .listen_backoff_ms
            .saturating_mul(1u64 << exp)
            .min(limits.listen_max_backoff_ms);
        self.state = State::Backoff;
        self.next_attempt = Some(cx.sh.now.saturating_add(delay));
        cx.sh.push(Action::Subscription {
            op,
            event: SubscriptionEvent::Reconnecting {
                attempt: self.attempts,
                delay_ms: delay,
                reason,
            },
        });
        Step::Pending
    }

    /// Back online (issue 13): a subscription waiting to listen again does so at once, its
    /// back-off reset.
    /// True when it did (its deadline moved).
    pub(crate) fn on_online(&mut self, cx: &mut Ctx, op: OpId) -> bool {
        let waiting = matches!(self.state, State::Backoff);
        if waiting {
            self.attempts = 0;
            self.connect(cx, op);
        }
        waiting
    }

    fn on_timer(&mut self, cx: &mut Ctx, op: OpId) -> Step {
        match self.state {
            State::Connecting if self.ack_deadline.is_some_and(|d| cx.sh.now >= d) => {
                if !self.acknowledged_once {
                    if let Some(x) = self.xfer.take() {
                        cx.sh.cancel_exchange(x);
                    }
                    self.state = State::Closed;
                    return Step::Done(Err(Error::timeout(
                        "the server did not acknowledge subscriptions/listen in time",
                    )));
                }
                self.dropped(cx, op, "no acknowledgement".into())
            }
            State::Backoff if self.next_attempt.is_some_and(|t| cx.sh.now >= t) => {
                if cx.sh.presence.online {
                    self.connect(cx, op);
                } else {
                    // Waits for the network (issue 13).
                    self.next_attempt = None;
                }
                Step::Pending
            }
            _ => Step::Pending,
        }
    }

    /// The listen request's response: a graceful end (spec "Graceful Closure"). Before the
    /// first acknowledgement it is none: the acknowledgement MUST be the server's first
    /// message on the subscription (schema `SubscriptionsAcknowledgedNotification`), and
    /// `listen()` resolves with the granted filter.
    fn on_response(&mut self, cx: &mut Ctx) -> Step {
        if let Some(x) = self.xfer.take() {
            cx.sh.cancel_exchange(x);
        }
        self.state = State::Closed;
        if !self.acknowledged_once {
            return Step::Done(Err(Error::invalid_result(
                "subscriptions/listen was answered before the server acknowledged it",
            )));
        }
        Step::Done(Ok(Output::Empty))
    }

    /// An acknowledgement that is not one (`why`): `listen()` fails with an
    /// `InvalidResultError`; a re-listen's counts as a dropped stream (listened to again).
    fn bad_ack(&mut self, cx: &mut Ctx, op: OpId, why: String) -> Step {
        let message = format!("malformed notifications/subscriptions/acknowledged: {why}");
        if self.acknowledged_once {
            return self.dropped(cx, op, message);
        }
        if let Some(x) = self.xfer.take() {
            cx.sh.cancel_exchange(x);
        }
        self.state = State::Closed;
        Step::Done(Err(Error::invalid_result(message)))
    }

    fn on_error(&mut self, cx: &mut Ctx, op: OpId, e: RpcError, status: u16) -> Step {
        self.xfer = None;
        if !self.acknowledged_once {
            self.state = State::Closed;
            let mut err = from_rpc(&e);
            if status != 0 {
                err.status = Some(status);
            }
            return Step::Done(Err(err));
        }
        self.dropped(
            cx,
            op,
            format!("error {}: {}", e.code, sanitize(&e.message, 200)),
        )
    }

    fn on_failed(&mut self, cx: &mut Ctx, op: OpId, e: Error) -> Step {
        self.xfer = None;
        if !self.acknowledged_once {
            self.state = State::Closed;
            return Step::Done(Err(e));
        }
        self.dropped(cx, op, e.message)
    }

    fn on_stream_closed(&mut self, cx: &mut Ctx, op: OpId) -> Step {
        self.xfer = None;
        self.dropped(cx, op, "the stream closed without a final response".into())
    }

    /// A notification on the listen stream.
    fn on_notification(&mut self, cx: &mut Ctx, op: OpId, method: &str, params: Value) -> Step {
        let tagged = params
            .get("_meta")
            .and_then(|m| m.get(META_SUBSCRIPTION_ID));
        if let (Some(tag), Some(id)) = (tagged, &self.sub_id) {
            if RequestId::from_value(tag).as_ref() != Some(id) {
                cx.sh.push(Action::Warn {
                    message: format!(
                        "dropped {} for another subscription ({})",
                        sanitize(method, 80),
                        sanitize(&json_text(tag), 60)
                    ),
                });
                return Step::Pending;
            }
        }
        match method {
            "notifications/subscriptions/acknowledged" => {
                // `notifications` is required, a `SubscriptionFilter` (schema
                // `SubscriptionsAcknowledgedNotificationParams`): the host reads it as one.
                let granted = match params.get("notifications") {
                    Some(Value::Object(m)) => match filter_misfit(m) {
                        None => Value::Object(m.clone()),
                        Some(misfit) => {
                            return self.bad_ack(cx, op, format!("its notifications' {misfit}"))
                        }
                    },
                    Some(_) => {
                        return self.bad_ack(cx, op, "its notifications is not an object".into())
                    }
                    None => return self.bad_ack(cx, op, "it has no notifications".into()),
                };
                self.state = State::Open;
                self.ack_deadline = None;
                self.attempts = 0;
                self.acknowledged_once = true;
                let subscription_id = self
                    .sub_id
                    .as_ref()
                    .map(RequestId::to_value)
                    .unwrap_or(Value::Null);
                cx.sh.push(Action::Subscription {
                    op,
                    event: SubscriptionEvent::Acknowledged {
                        granted,
                        subscription_id,
                    },
                });
                Step::Pending
            }
            "notifications/cancelled" => {
                // cancellation.mdx: a server may end a subscription this way.
                if let Some(x) = self.xfer.take() {
                    cx.sh.cancel_exchange(x);
                }
                self.state = State::Closed;
                Step::Done(Ok(Output::Empty))
            }
            _ => {
                if matches!(self.state, State::Connecting) {
                    cx.sh.push(Action::Warn {
                        message: format!(
                            "dropped {} sent before the acknowledgement",
                            sanitize(method, 80)
                        ),
                    });
                    return Step::Pending;
                }
                apply_notification(cx, method, &params);
                cx.sh.push(Action::Subscription {
                    op,
                    event: SubscriptionEvent::Notification {
                        method: method.to_string(),
                        params: params.clone(),
                    },
                });
                cx.sh.push(Action::Notify {
                    method: method.to_string(),
                    params,
                });
                Step::Pending
            }
        }
    }
}

impl Operation for ListenOp {
    fn handle(&mut self, cx: &mut Ctx, id: OpId, input: OpInput) -> Step {
        match input {
            OpInput::Call(CallInput::Response(_)) => self.on_response(cx),
            OpInput::Call(CallInput::RpcError(e, status)) => self.on_error(cx, id, e, status),
            OpInput::Call(CallInput::Failed(e)) => self.on_failed(cx, id, e),
            OpInput::Call(CallInput::StreamClosed) => self.on_stream_closed(cx, id),
            OpInput::Call(CallInput::Timer) => self.on_timer(cx, id),
            OpInput::Notification(method, params) => self.on_notification(cx, id, method, params),
            OpInput::Call(CallInput::Progress(_) | CallInput::Answer(..))
            | OpInput::TaskFinal(_)
            | OpInput::Authorized(_) => Step::Pending,
        }
    }

    fn deadline(&self) -> Option<Millis> {
        match self.state {
            State::Connecting => self.ack_deadline,
            State::Backoff => self.next_attempt,
            State::Open | State::Closed => None,
        }
    }

    fn abort(&mut self, cx: &mut Ctx, _id: OpId) -> Aborted {
        if let Some(x) = self.xfer.take() {
            cx.sh.cancel_exchange(x);
        }
        self.state = State::Closed;
        Aborted::Quiet
    }

    /// The subscription's notifications arrive on its stream.
    fn hears(&self) -> bool {
        true
    }
}

/// What a change notification means for the client's own state: cache entries and the
/// tool registry are dropped; `notifications/tasks` feeds the task drivers (rule 22).
pub(crate) fn apply_notification(cx: &mut Ctx, method: &str, params: &Value) {
    match method {
        "notifications/tools/list_changed" => {
            cx.sh.cache.invalidate_method("tools/list");
            cx.sh.tools.invalidate();
        }
        "notifications/prompts/list_changed" => cx.sh.cache.invalidate_method("prompts/list"),
        "notifications/resources/list_changed" => {
            cx.sh.cache.invalidate_method("resources/list");
            cx.sh.cache.invalidate_method("resources/templates/list");
        }
        "notifications/resources/updated" => {
            if let Some(uri) = params.get("uri").and_then(Value::as_str) {
                cx.sh.cache.invalidate_uri(uri);
            }
        }
        "notifications/tasks" => {
            match decode_detailed_task(&crate::json::RawJson::of(params), None, true) {
                Ok(dt) => {
                    let notes = cx.tasks.on_notification(cx.sh, dt);
                    cx.notes.extend(notes);
                }
                Err(e) => cx.sh.push(Action::Warn {
                    message: format!("dropped a malformed notifications/tasks: {}", e.message),
                }),
            }
        }
        _ => {}
    }
}
