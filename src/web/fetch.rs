//! Performing the engine's HTTP requests with `fetch` (the global one, or the host's) and
//! feeding head, body and end to the engine. The fetch itself runs in JS (`js/fetch.js`,
//! `Fetcher`): one async function per request, reporting back through four functions
//! made once per client, instead of a wasm future with a closure and a promise reaction
//! per await. A JSON body is read whole (one `arrayBuffer()` when its size is known and
//! within the engine's limit, else its chunks gathered in JS up to that limit) and handed
//! over in one piece; an SSE body goes chunk by chunk. Cancellation is an
//! `AbortController` per exchange, kept in JS. A plain tool call's request may be handed
//! over on the direct path ([`call`]): the runner then reads a usual answer to it itself
//! (`readAnswer`), settles the call's promise with the result, and tells the `done`
//! function only the answer's id and size.
//!
//! CORS diagnosis (a page talking to a server on another origin): a browser rejects a
//! refused request with the same bare `TypeError` as a network failure, and hides response
//! headers the server did not expose. So, only in a browser context and only for a
//! cross-origin URL: after a rejected fetch, up to four `HEAD` probes tell "CORS refused"
//! from "network down", and a 401 whose `WWW-Authenticate` is unreadable is reported as
//! such; both become a `CorsError` whose `data` names what the server must allow. The
//! probes and the wording are in `js/fetch.js` too. Transport facts only: no protocol
//! decision.

use crate::engine::actions::OpId;
use crate::engine::core::ResponseHead;
use crate::error::{sanitize, Error, ErrorKind};
use crate::http::request::HttpRequest;
use crate::web::convert::from_js;
use crate::web::driver::{now, pump, Driver, Handle};
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(module = "/src/web/js/fetch.js")]
extern "C" {
    /// The fetch runner of one client.
    pub(super) type Fetcher;
    #[wasm_bindgen(constructor)]
    fn new(
        fetch: &JsValue,
        head: &JsValue,
        body: &JsValue,
        fail: &JsValue,
        done: &JsValue,
    ) -> Fetcher;
    /// Starts request `id`; `url`, `method` and `headers` are `None` when they are those
    /// of the request before (`Sent`). The body is `text` when it is small, else `body`
    /// (see `hand`).
    #[wasm_bindgen(method)]
    fn send(
        this: &Fetcher,
        id: f64,
        url: Option<&str>,
        method: Option<&str>,
        headers: Option<&str>,
        body: Option<Vec<u8>>,
        text: Option<&str>,
        kind: u8,
    );
    /// As `send`, for plain call `op`'s request (the direct path): also makes the call's
    /// promise, returned, and reads a usual answer to it itself (the `done` function).
    #[wasm_bindgen(method)]
    fn call(
        this: &Fetcher,
        op: f64,
        id: f64,
        url: Option<&str>,
        method: Option<&str>,
        headers: Option<&str>,
        body: Option<Vec<u8>>,
        text: Option<&str>,
    ) -> js_sys::Promise;
    #[wasm_bindgen(method)]
    fn cancel(this: &Fetcher, id: f64);
    /// The promise of operation `op`'s call, settled by [`Fetcher::settle`].
    #[wasm_bindgen(method)]
    pub(super) fn wait(this: &Fetcher, op: f64) -> js_sys::Promise;
    /// Operation `op` ended: its call's promise is resolved (`ok`) or rejected with `value`,
    /// or resolved with `JSON.parse(json)` when that is given (one call into JS for both).
    #[wasm_bindgen(method)]
    pub(super) fn settle(this: &Fetcher, op: f64, ok: bool, value: &JsValue, json: Option<&str>);
    /// The result kept for the host under a stand-in's number (once).
    #[wasm_bindgen(method)]
    fn take(this: &Fetcher, n: f64) -> JsValue;
    /// The stand-in's member name, as JSON text.
    #[wasm_bindgen(method, getter, js_name = keyJson)]
    fn key_json(this: &Fetcher) -> String;
}

/// Runs `f` on the driver if it still exists, then drains the engine's actions.
fn with(weak: &Weak<RefCell<Driver>>, f: impl FnOnce(&mut Driver)) {
    if let Some(h) = weak.upgrade() {
        f(&mut h.borrow_mut());
        pump(&h);
    }
}

/// Exchange `id` is over (ended, failed or cancelled).
fn over(d: &mut Driver, id: u64) {
    d.exchanges.remove(&id);
    if d.exchanges.is_empty() {
        // Nothing in flight: the client may be collected once the host drops it.
        d.keep_alive = None;
    }
}

/// The fetch runner of a client, its callbacks holding the driver weakly (requests in
/// flight hold it strongly: `Driver::keep_alive`).
pub(super) fn fetcher(h: &Handle, custom: Option<&js_sys::Function>) -> Fetcher {
    let w = Rc::downgrade(h);
    let head = Closure::<
        dyn FnMut(
            f64,
            u16,
            Option<String>,
            Option<String>,
            Option<String>,
            Option<String>,
            Option<String>,
            JsValue,
        ) -> f64,
    >::new(
        move |id: f64,
              status: u16,
              ct: Option<String>,
              sid: Option<String>,
              ra: Option<String>,
              www: Option<String>,
              nonce: Option<String>,
              more: JsValue| {
            // `more`: whether a 401 is cross-origin, or a plain JSON answer's whole body
            // (`Fetcher.plain`; a closure takes at most eight arguments).
            let (cross, whole) = match more.dyn_into::<js_sys::Uint8Array>() {
                Ok(u) => (false, Some(u.to_vec())),
                Err(v) => (v.as_bool() == Some(true), None),
            };
            // DPoP (RFC 9449 §9): a cross-origin 401 asking for a nonce this origin cannot
            // read (the server did not expose `DPoP-Nonce`) is a CORS error (-2), not a head.
            if cross
                && status == 401
                && nonce.is_none()
                && www
                    .as_deref()
                    .is_some_and(crate::auth::challenge::use_dpop_nonce)
            {
                return -2.0;
            }
            let mut mode = -1.0;
            with(&w, |d| {
                let values = [ct, sid, ra, www, nonce];
                let id = id as u64;
                let t = now();
                let mut head = ResponseHead::read(status, &values);
                // A plain JSON answer (`Fetcher.plain`): its whole body and its end with it.
                if let Some(bytes) = whole {
                    // Its `Content-Type` is left out when it is `application/json` exactly
                    // (most answers): one string less to cross.
                    if head.content_type.is_none() {
                        head.content_type = Some("application/json");
                    }
                    over(d, id);
                    d.core.on_answer(id, head, bytes, t);
                } else {
                    d.core.on_head(id, head, t);
                    if let Some(limit) = d.core.body_limit(id) {
                        mode = limit as f64;
                    }
                }
            });
            mode
        },
    );
    let w = Rc::downgrade(h);
    let body = Closure::<dyn FnMut(f64, Vec<u8>, bool)>::new(
        move |id: f64, bytes: Vec<u8>, last: bool| {
            with(&w, |d| {
                let id = id as u64;
                let t = now();
                if !bytes.is_empty() {
                    d.core.on_body(id, bytes, t);
                }
                if last {
                    over(d, id);
                    d.core.on_end(id, t);
                }
            })
        },
    );
    let w = Rc::downgrade(h);
    let fail = Closure::<dyn FnMut(f64, String, String, JsValue, u16)>::new(
        move |id: f64, kind: String, message: String, data: JsValue, status: u16| {
            with(&w, |d| {
                let id = id as u64;
                let e = match kind.as_str() {
                    "cors" => {
                        let mut e = Error::new(ErrorKind::Cors, sanitize(&message, 2000));
                        e.data = from_js(&data).ok().flatten();
                        if status != 0 {
                            e.status = Some(status);
                        }
                        e
                    }
                    "config" => Error::config(message),
                    _ => Error::network(message),
                };
                over(d, id);
                let t = now();
                d.core.on_fail(id, e, t);
            })
        },
    );
    let w = Rc::downgrade(h);
    // The direct path's answer read by the runner (`readAnswer`): plain call `op`'s
    // response with id `rpc` and a complete result, `len` bytes. True when the engine
    // takes it as the call's end (`Core::on_result_read`): the runner then settles the
    // call's promise with the result it parsed, and the engine reads none of it.
    let done = Closure::<dyn FnMut(f64, f64, f64, f64) -> bool>::new(
        move |id: f64, op: f64, rpc: f64, len: f64| {
            let Some(h) = w.upgrade() else {
                return false;
            };
            let taken = {
                let mut d = h.borrow_mut();
                let id = id as u64;
                // (`rpc`: at most 15 digits, exact in an f64.)
                let taken = d
                    .core
                    .on_result_read(id, OpId(op as u64), rpc as i64, len as usize);
                if taken {
                    over(&mut d, id);
                }
                taken
            };
            if taken {
                // Nothing is queued; the one timer may go idle.
                pump(&h);
            }
            taken
        },
    );
    let custom = custom.map(JsValue::from).unwrap_or(JsValue::UNDEFINED);
    Fetcher::new(
        &custom,
        &head.into_js_value(),
        &body.into_js_value(),
        &fail.into_js_value(),
        &done.into_js_value(),
    )
}

/// Starts the request; events go to the engine as they arrive.
pub(super) fn perform(h: &Handle, req: HttpRequest) {
    let id = req.id;
    let (f, same_headers) = match ready(h, &req) {
        Ok(r) => r,
        Err(e) => return failed(h, id, e),
    };
    // 1: the result goes to the host unread; 2: the authorization flow's own request (no
    // redirect followed: `Core::is_flow_request`); 4, with either: it carries a DPoP proof
    // (the answer's `DPoP-Nonce` is read whatever its status, RFC 9449 §8.2, §9).
    let kind = {
        let d = h.borrow();
        let base = if d.core.is_flow_request(id) {
            2
        } else {
            u8::from(d.core.host_result(id))
        };
        let proved = d.handlers.dpop_key.is_some()
            && (req.headers.iter()).any(|(n, _)| n == crate::auth::dpop::PROOF_HEADER);
        base | if proved { 4 } else { 0 }
    };
    let r = hand(h, req, same_headers);
    let (url, headers, text) = (r.url.as_deref(), r.headers.as_deref(), r.text.as_deref());
    f.send(r.id, url, r.method, headers, r.body, text, kind);
    // The request has left (or failed) only now: the page may have done other work since
    // the engine started it (`Core::on_sent`).
    let t = now();
    h.borrow_mut().core.on_sent(id, t);
}

/// The direct path (`McpClient::run_boxed`): starts plain call `op`'s request, taken out
/// of the engine's queue at `t`, and returns the call's promise, made by runner `f`; a
/// usual answer to it is read by the runner, which tells the `done` function (any other
/// goes to `head` as usual). A request that cannot go fails as [`perform`] fails it.
pub(super) fn call(
    h: &Handle,
    f: &Fetcher,
    req: HttpRequest,
    op: OpId,
    t: crate::time::Millis,
) -> js_sys::Promise {
    let id = req.id;
    let same_headers = match ready(h, &req) {
        Ok((_, same)) => same,
        Err(e) => {
            let promise = f.wait(op.0 as f64);
            failed(h, id, e);
            return promise;
        }
    };
    let r = hand(h, req, same_headers);
    let (url, headers, text) = (r.url.as_deref(), r.headers.as_deref(), r.text.as_deref());
    let promise = f.call(op.0 as f64, r.id, url, r.method, headers, r.body, text);
    // Sent in the same turn as it was started: no other work came between.
    h.borrow_mut().core.on_sent(id, t);
    promise
}

/// Exchange `id` failed before it was handed to the runner.
fn failed(h: &Handle, id: u64, e: Error) {
    let t = now();
    h.borrow_mut().core.on_fail(id, e, t);
    pump(h)
}

/// The fetch runner for `req`, and whether its headers are those handed over last; an
/// error when it cannot go: no runner (the client is closed), or a header holding a NUL
/// (which the runner's text of them cannot carry). Exchange `req.id` is booked in the
/// driver either way.
fn ready(h: &Handle, req: &HttpRequest) -> Result<(Rc<Fetcher>, bool), Error> {
    let id = req.id;
    let mut d = h.borrow_mut();
    if d.keep_alive.is_none() {
        d.keep_alive = Some(h.clone());
    }
    d.exchanges.insert(id);
    let same_headers = d.sent.headers == req.headers;
    // Headers handed over before were checked then.
    let nul = (!same_headers)
        .then(|| {
            req.headers
                .iter()
                .find(|(n, v)| n.as_bytes().contains(&0) || v.as_bytes().contains(&0))
        })
        .flatten();
    let e = match (&d.fetcher, nul) {
        (Some(f), None) => return Ok((f.clone(), same_headers)),
        (_, Some((n, _))) => Error::config(format!(
            "header {} could not be set: it contains a NUL character",
            sanitize(n, 100)
        )),
        (None, None) => Error::network("no fetch runner (the client is closed)"),
    };
    over(&mut d, id);
    Err(e)
}

/// What the runner is handed with a request (`Fetcher.send`, `Fetcher.call`): its URL,
/// method and header text each `None` when it is the request before's, and its body.
struct Handed {
    id: f64,
    url: Option<String>,
    method: Option<&'static str>,
    headers: Option<String>,
    body: Option<Vec<u8>>,
    text: Option<String>,
}

/// The largest request body handed to the runner as text (see `hand`). Counted in Node
/// (BENCHMARKS.md, the thirty-sixth session), text costs a call 25 K instructions fewer
/// than bytes with a body of about 0.4 KB, 16 K fewer at 3.4 KB, 13 K more at 4.0 KB and
/// 122 K more at 10.4 KB (decoded here and encoded again by `fetch`): the limit is set
/// well below where text stops paying.
const TEXT_BODY_MAX: usize = 2 * 1024;

/// What `req` is handed to the runner as; the driver keeps what the runner will keep.
fn hand(h: &Handle, req: HttpRequest, same_headers: bool) -> Handed {
    // What the request before had is not handed over again (each text is decoded into a
    // JS string on the way): the runner keeps it. The headers are compared as the engine
    // gave them, and written as text (`name\0value\0…`) only when they changed: the
    // calls of one tool send the same.
    let HttpRequest {
        id,
        url,
        method,
        headers,
        body,
        ..
    } = req;
    let text = (!same_headers).then(|| {
        let mut text = String::with_capacity(256);
        for (n, v) in &headers {
            text.push_str(n);
            text.push('\0');
            text.push_str(v);
            text.push('\0');
        }
        text
    });
    // A small body goes as text: decoded out of the wasm's memory into a JS string, which
    // costs less than a copy of it into a new ArrayBuffer (a buffer of its own for each
    // request, and work for the collector). A large one goes as bytes (a copy out of the
    // wasm's memory): no UTF-16 string is made of it, and the platform's fetch need not
    // encode it again.
    let (body, body_text) = match body {
        Some(b) if b.len() <= TEXT_BODY_MAX => match String::from_utf8(b) {
            Ok(t) => (None, Some(t)),
            Err(e) => (Some(e.into_bytes()), None),
        },
        b => (b, None),
    };
    let mut d = h.borrow_mut();
    let last = &mut d.sent;
    if !same_headers {
        last.headers = headers;
    }
    let method = method.as_str();
    Handed {
        id: id as f64,
        url: changed(&mut last.url, &url).then_some(url),
        method: (last.method != method).then(|| {
            last.method = method;
            method
        }),
        headers: text,
        body,
        text: body_text,
    }
}

/// What the fetch runner was last handed with a request (`Fetcher.send` keeps it too).
#[derive(Default)]
pub(super) struct Sent {
    url: String,
    method: &'static str,
    headers: Vec<(String, String)>,
}

/// Whether `now` differs from `last`; `last` becomes `now`.
fn changed(last: &mut String, now: &str) -> bool {
    if last == now {
        return false;
    }
    last.clear();
    last.push_str(now);
    true
}

/// The engine gave up on exchange `id`.
pub(super) fn cancel(h: &Handle, id: u64) {
    let f = {
        let mut d = h.borrow_mut();
        if !d.exchanges.contains(&id) {
            return;
        }
        over(&mut d, id);
        d.fetcher.clone()
    };
    if let Some(f) = f {
        f.cancel(id as f64);
    }
}

/// The start of a stand-in result's text (`Fetcher.standIn`): `{"resultType":"complete",`,
/// the runner's secret member name, `:`; the kept result's number follows.
pub(super) fn stand_in_prefix(f: &Fetcher) -> String {
    format!("{{\"resultType\":\"complete\",{}:", f.key_json())
}

/// The host's value of a result: the one the runner kept when `raw` is its stand-in.
pub(super) fn kept_result(d: &Driver, raw: &str) -> Option<JsValue> {
    let rest = raw
        .strip_prefix(d.stand_in.as_str())
        .filter(|_| !d.stand_in.is_empty())?;
    let n = u32::try_from(crate::text::digits(rest.strip_suffix('}')?)?).ok()?;
    let v = d.fetcher.as_ref()?.take(f64::from(n));
    (!v.is_undefined()).then_some(v)
}
