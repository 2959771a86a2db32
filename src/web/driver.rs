//! The shell's pump: drains the engine's actions and performs them (fetches, handler
//! calls, promise settlement, callbacks), keeps one timer for the engine's next deadline,
//! and feeds results back. No protocol decisions are made here.
//!
//! Re-entrancy: the engine is borrowed only while it is fed or drained, never while JS
//! runs, so a callback may call the client again.

use crate::engine::actions::{Action, AskId, AuthStepId, OpId, SubscriptionEvent};
use crate::engine::core::Core;
use crate::engine::small_map::SmallMap;
use crate::engine::transport::SseReader;
use crate::error::Error;
use crate::sorted_map::{SortedMap, SortedSet};
use crate::time::Millis;
use crate::web::convert::{error_to_js, output_to_js, task_to_js, to_js};
use crate::web::js::{console_warn, Subscription};
use crate::web::options::Handlers;
use js_sys::Function;
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{AbortController, AbortSignal};

pub(super) type Handle = Rc<RefCell<Driver>>;

/// The current time for the engine (wall clock: task TTLs compare with server timestamps).
pub(super) fn now() -> Millis {
    let t = js_sys::Date::now();
    if t.is_finite() && t > 0.0 {
        t as Millis
    } else {
        0
    }
}

/// How an operation's promise is settled.
pub(super) enum Kind {
    /// With the operation's outcome, through the fetch runner (`Fetcher.settle`), which made
    /// the promise (`Fetcher.wait`).
    Value,
    /// `listen()`: resolved at the first acknowledgement; the op lives on until the end.
    Listen {
        sub: Subscription,
        resolved: bool,
        resolve: Function,
        reject: Function,
    },
}

/// A JS call waiting for its operation.
pub(super) struct Pending {
    pub kind: Kind,
    pub on_progress: Option<Function>,
    pub on_status: Option<Function>,
    pub abort: Option<(AbortSignal, Closure<dyn FnMut()>)>,
}

pub(super) struct Driver {
    pub core: Core,
    pub handlers: Handlers,
    pub url: String,
    /// Exchanges in flight in the fetch runner (their `AbortController`s are kept in JS).
    pub exchanges: SortedSet<u64>,
    /// The fetch runner (`web::fetch`), made right after the driver.
    pub fetcher: Option<Rc<crate::web::fetch::Fetcher>>,
    /// What the fetch runner was last handed with a request.
    pub sent: crate::web::fetch::Sent,
    /// The driver itself while requests are in flight: they end even when the host has
    /// dropped the client (its calls' promises still settle).
    pub keep_alive: Option<Handle>,
    /// The start of a stand-in result's text (`web::fetch::stand_in_prefix`).
    pub stand_in: String,
    /// Host asks and OAuth steps of the person, by the number of their `AskId` or
    /// `AuthStepId` (one counter issues both: they never collide).
    pub asks: SmallMap<u64, AbortController>,
    pub pending: SortedMap<OpId, Pending>,
    host_errors: SmallMap<u32, JsValue>,
    next_host_ref: u32,
    /// The one timer: its handle (what `setTimeout` returned), when it fires, and whether it
    /// is only kept for reuse (no deadline is due then: unreferenced where the host can).
    timer: Option<JsValue>,
    timer_at: Option<Millis>,
    timer_idle: bool,
    /// Whether the timer is an object that can be unreferenced (`set_referenced`), asked once
    /// per `setTimeout` rather than at every change.
    timer_object: bool,
    /// The timer's callback, made once (not a closure per deadline).
    on_timer: Option<Function>,
    pub closed: bool,
    /// Open `EventSource`s (2024-11-05 streams), by exchange id.
    pub event_sources: SmallMap<u64, web_sys::EventSource>,
    /// How the 2024-11-05 stream was read: `EventSource` or `fetch`.
    pub sse_transport: Option<SseReader>,
    /// Visibility and network listeners (issue 13, `web::visibility`).
    pub presence: Option<crate::web::visibility::PresenceWatch>,
    /// OAuth across contexts (issue 13): Web Locks and the channel, made at the first lock.
    pub auth_peers: Option<crate::web::auth_lock::OAuthPeers>,
    /// Web Locks and the BroadcastChannel of coordination across contexts (issue 13).
    pub peers: Option<crate::web::peers::Peers>,
}

impl Driver {
    pub(super) fn new(core: Core, handlers: Handlers, url: String) -> Driver {
        Driver {
            core,
            handlers,
            url,
            exchanges: SortedSet::default(),
            fetcher: None,
            sent: Default::default(),
            keep_alive: None,
            stand_in: String::new(),
            asks: SmallMap::default(),
            pending: SortedMap::default(),
            host_errors: SmallMap::default(),
            next_host_ref: 1,
            timer: None,
            timer_at: None,
            timer_idle: false,
            timer_object: false,
            on_timer: None,
            closed: false,
            event_sources: SmallMap::default(),
            sse_transport: None,
            presence: None,
            auth_peers: None,
            peers: None,
        }
    }

    /// Keeps a value the host threw, so it can be rethrown unchanged.
    pub(super) fn keep_host_error(&mut self, v: JsValue) -> u32 {
        let n = self.next_host_ref;
        self.next_host_ref = self.next_host_ref.wrapping_add(1).max(1);
        self.host_errors.insert(n, v);
        n
    }

    /// The JS value to reject with for an engine error.
    pub(super) fn error_value(&mut self, e: &Error) -> JsValue {
        if let Some(v) = e.host_ref.and_then(|n| self.host_errors.remove(&n)) {
            return v;
        }
        error_to_js(e, JsValue::UNDEFINED)
    }
}

/// Registers a JS call for `op` (its promise functions, callbacks and abort signal).
pub(super) fn register(h: &Handle, op: OpId, p: Pending) {
    let already_aborted = p.abort.as_ref().map(|(s, _)| s.aborted()).unwrap_or(false);
    if let Some((sig, cb)) = &p.abort {
        let _ = sig.add_event_listener_with_callback("abort", cb.as_ref().unchecked_ref());
    }
    h.borrow_mut().pending.insert(op, p);
    if already_aborted {
        abort_op(h, op);
    }
}

/// An abort listener for `op`.
pub(super) fn abort_closure(h: &Handle, op: OpId) -> Closure<dyn FnMut()> {
    let weak: Weak<RefCell<Driver>> = Rc::downgrade(h);
    Closure::wrap(Box::new(move || {
        if let Some(h) = weak.upgrade() {
            abort_op(&h, op);
        }
    }) as Box<dyn FnMut()>)
}

/// The host's signal fired: the engine aborts the operation.
pub(super) fn abort_op(h: &Handle, op: OpId) {
    let reason = {
        let d = h.borrow();
        d.pending
            .get(&op)
            .and_then(|p| p.abort.as_ref())
            .map(|(s, _)| s.reason())
    };
    let msg = reason
        .as_ref()
        .map(crate::web::convert::describe)
        .filter(|s| !s.is_empty() && s != "(non-error value)")
        .unwrap_or_else(|| "the operation was aborted".into());
    {
        let mut d = h.borrow_mut();
        let now = now();
        d.core.abort(op, Error::abort(msg), now);
    }
    pump(h);
}

/// Performs the engine's actions one at a time, in the order it queued them, then sets the
/// timer. The engine is borrowed only to take the next action out, never while it is
/// performed, so an action whose host code calls the client again (a nested pump) goes on
/// with the actions still queued, in their order. (One at a time, not drained into a
/// `Vec` first: no allocation per pump, which runs twice a call.)
pub(super) fn pump(h: &Handle) {
    loop {
        let next = h.borrow_mut().core.poll_action();
        let Some(a) = next else { break };
        perform(h, a);
    }
    reschedule(h);
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(f: &Function, ms: f64) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(handle: &JsValue);
    type TimerObject;
    #[wasm_bindgen(method, js_name = ref)]
    fn ref_(this: &TimerObject);
    #[wasm_bindgen(method)]
    fn unref(this: &TimerObject);
}

/// Node, Deno and Bun timers are objects that keep the process alive until they fire,
/// unless unreferenced; a browser's are numbers (`Driver::timer_object`).
fn set_referenced(handle: &JsValue, on: bool) {
    let t: &TimerObject = handle.unchecked_ref();
    if on {
        t.ref_();
    } else {
        t.unref();
    }
}

/// Keeps one timer for the engine's next deadline. A timer that fires no later than the
/// deadline is kept (it re-arms for the deadline when it fires), and one left with no
/// deadline is kept too, unreferenced, for the next: calls that each set and clear a
/// deadline then cost no timer of their own.
fn reschedule(h: &Handle) {
    let mut d = h.borrow_mut();
    let next = d.core.next_deadline();
    let Some(at) = next else {
        if let (Some(t), false) = (&d.timer, d.timer_idle) {
            if d.timer_object {
                set_referenced(t, false);
            }
            d.timer_idle = true;
        }
        return;
    };
    if let (Some(t), Some(armed)) = (&d.timer, d.timer_at) {
        if armed <= at {
            if d.timer_idle {
                if d.timer_object {
                    set_referenced(t, true);
                }
                d.timer_idle = false;
            }
            return;
        }
        clear_timeout(t);
    }
    let f = match &d.on_timer {
        Some(f) => f.clone(),
        None => {
            let weak = Rc::downgrade(h);
            let f: Function = Closure::<dyn FnMut()>::new(move || {
                if let Some(h) = weak.upgrade() {
                    {
                        let mut d = h.borrow_mut();
                        d.timer = None;
                        d.timer_at = None;
                        d.timer_idle = false;
                        let t = now();
                        d.core.on_timer(t);
                    }
                    pump(&h);
                }
            })
            .into_js_value()
            .unchecked_into();
            d.on_timer = Some(f.clone());
            f
        }
    };
    // setTimeout takes at most 2^31-1 ms; a later deadline is re-armed when this one fires.
    let delay = at.saturating_sub(now()).min(i32::MAX as u64) as f64;
    let timer = set_timeout(&f, delay);
    d.timer_object = timer.is_object();
    d.timer = Some(timer);
    d.timer_at = Some(at);
    d.timer_idle = false;
}

fn call1(f: &Function, a: &JsValue) {
    if let Err(e) = f.call1(&JsValue::UNDEFINED, a) {
        report_callback_error(e);
    }
}

fn call2(f: &Function, a: &JsValue, b: &JsValue) {
    if let Err(e) = f.call2(&JsValue::UNDEFINED, a, b) {
        report_callback_error(e);
    }
}

/// A host callback threw: reported on the console (it must not break the pump).
fn report_callback_error(e: JsValue) {
    console_warn(&format!(
        "mcp-wasm-client: a callback threw: {}",
        crate::web::convert::describe(&e)
    ));
}

pub(super) fn warn(h: &Handle, message: &str) {
    let f = h.borrow().handlers.on_warning.clone();
    match f {
        Some(f) => call1(&f, &JsValue::from_str(message)),
        None => console_warn(&format!("mcp-wasm-client: {message}")),
    }
}

fn perform(h: &Handle, a: Action) {
    match a {
        Action::Send(req) => {
            if req.wants_event_source() && crate::web::event_source::available() {
                crate::web::event_source::open(h, req)
            } else {
                if req.wants_event_source() {
                    h.borrow_mut().sse_transport = Some(SseReader::Fetch);
                }
                crate::web::auth::send(h, req)
            }
        }
        Action::Cancel(x) => {
            crate::web::fetch::cancel(h, x);
            // (No `EventSource` is ever opened in the modern-only build.)
            if cfg!(feature = "legacy") {
                let es = h.borrow_mut().event_sources.remove(&x);
                if let Some(es) = es {
                    es.close();
                }
            }
        }
        Action::Ask(ask) => crate::web::asks::run(h, ask),
        Action::CancelAsk(AskId(id)) | Action::CancelAuth(AuthStepId(id)) => {
            let c = h.borrow_mut().asks.remove(&id);
            if let Some(c) = c {
                c.abort();
            }
        }
        Action::Progress {
            op,
            progress,
            total,
            message,
        } => progress_event(h, op, progress, total, message),
        Action::Log { params, .. } => log_event(h, &params),
        Action::Notify { method, params } => notify_event(h, &method, &params),
        Action::TaskStatus { op, task } => task_status_event(h, op, task),
        Action::Subscription { op, event } => subscription_event(h, op, event),
        Action::Warn { message } => warn(h, &message),
        Action::Done { op, outcome } => done(h, op, outcome),
        Action::Auth(a) => crate::web::auth::perform(h, a),
        Action::StoreTask { key, value } => crate::web::store::put(h, &key, &value),
        Action::ForgetTask { key } => crate::web::store::forget(h, &key),
        Action::Peer(a) => crate::web::peers::perform(h, a),
    }
}

// The host's events: each out of line, so that `pump` stays small. Chromium compiles a wasm
// function whole on its first call, and `pump` runs on every page's first call, when
// none of these has happened (BENCHMARKS.md, target 5).

#[inline(never)]
fn progress_event(
    h: &Handle,
    op: OpId,
    progress: f64,
    total: Option<f64>,
    message: Option<String>,
) {
    let f = h
        .borrow()
        .pending
        .get(&op)
        .and_then(|p| p.on_progress.clone());
    if let Some(f) = f {
        call1(&f, &crate::web::js::progress_info(progress, total, message));
    }
}

#[inline(never)]
fn log_event(h: &Handle, params: &crate::json::Value) {
    let f = h.borrow().handlers.on_log.clone();
    if let Some(f) = f {
        call1(&f, &to_js(params));
    }
}

#[inline(never)]
fn notify_event(h: &Handle, method: &str, params: &crate::json::Value) {
    let f = h.borrow().handlers.on_notification.clone();
    if let Some(f) = f {
        call2(&f, &JsValue::from_str(method), &to_js(params));
    }
}

#[inline(never)]
fn task_status_event(h: &Handle, op: OpId, task: crate::engine::TaskView) {
    let (f, url) = {
        let d = h.borrow();
        (
            d.pending.get(&op).and_then(|p| p.on_status.clone()),
            d.url.clone(),
        )
    };
    if let Some(f) = f {
        call1(&f, &task_to_js(task, &url));
    }
}

#[inline(never)]
fn subscription_event(h: &Handle, op: OpId, event: SubscriptionEvent) {
    let mut d = h.borrow_mut();
    let Some(p) = d.pending.get_mut(&op) else {
        return;
    };
    let Kind::Listen {
        sub,
        resolved,
        resolve,
        ..
    } = &mut p.kind
    else {
        return;
    };
    let sub: Subscription = sub.clone().unchecked_into();
    match event {
        SubscriptionEvent::Acknowledged {
            granted,
            subscription_id,
        } => {
            sub.ack(to_js(&granted), to_js(&subscription_id));
            let first = !*resolved;
            *resolved = true;
            let resolve = resolve.clone();
            drop(d);
            if first {
                call1(&resolve, &sub);
            }
        }
        SubscriptionEvent::Notification { method, params } => {
            drop(d);
            sub.push(&method, to_js(&params));
        }
        SubscriptionEvent::Reconnecting {
            attempt,
            delay_ms,
            reason,
        } => {
            drop(d);
            sub.reconnecting(attempt as f64, delay_ms as f64, &reason);
        }
    }
}

fn done(h: &Handle, op: OpId, outcome: crate::error::Result<crate::engine::actions::Output>) {
    let (p, fetcher) = {
        let mut d = h.borrow_mut();
        (d.pending.remove(&op), d.fetcher.clone())
    };
    if let Some((sig, cb)) = p.as_ref().and_then(|p| p.abort.as_ref()) {
        let _ = sig.remove_event_listener_with_callback("abort", cb.as_ref().unchecked_ref());
    }
    // Every operation is a host's call: one without a `Pending` is a `Kind::Value` one
    // that had no signal and no callbacks (`McpClient::run_boxed`), or a subscription its
    // host closed (its entry removed first), whose end the runner has no promise for:
    // `settle` then does nothing.
    match p.map_or(Kind::Value, |p| p.kind) {
        Kind::Value => {
            // (The runner is made with the driver, before any call.)
            let Some(f) = fetcher else { return };
            // A result's JSON text, parsed in JS where the promise is settled.
            let mut text = None;
            let (ok, v) = match outcome {
                Ok(crate::engine::actions::Output::Raw(r)) => {
                    // A stand-in is short: only short results are looked at.
                    let kept = if r.get().len() < 512 {
                        crate::web::fetch::kept_result(&h.borrow(), r.get())
                    } else {
                        None
                    };
                    (
                        true,
                        kept.unwrap_or_else(|| {
                            text = Some(r);
                            JsValue::NULL
                        }),
                    )
                }
                Ok(o) => {
                    let url = h.borrow().url.clone();
                    (true, output_to_js(o, &url))
                }
                Err(e) => (false, h.borrow_mut().error_value(&e)),
            };
            f.settle(op.0 as f64, ok, &v, text.as_ref().map(|r| r.get()));
        }
        Kind::Listen {
            sub,
            resolved,
            resolve,
            reject,
        } => {
            let err = match outcome {
                Ok(_) => None,
                Err(e) => Some(h.borrow_mut().error_value(&e)),
            };
            if !resolved {
                // Ended before the acknowledgement: listen() itself fails.
                match &err {
                    Some(e) => call1(&reject, e),
                    None => {
                        sub.end(JsValue::UNDEFINED);
                        call1(&resolve, &sub);
                    }
                }
            }
            sub.end(err.unwrap_or(JsValue::UNDEFINED));
        }
    }
}
