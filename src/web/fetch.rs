//! Performing an HTTP request with `fetch` (the global one, or the host's), streaming the
//! body with a `ReadableStream` reader, and feeding head, chunks and end to the engine.
//! Cancellation is an `AbortController` per exchange.
//!
//! CORS diagnosis (a page talking to a server on another origin): a browser rejects a
//! refused request with the same bare `TypeError` as a network failure, and hides response
//! headers the server did not expose. So, only in a browser context and only for a
//! cross-origin URL: after a rejected fetch, up to three `HEAD` probes tell "CORS refused"
//! from "network down", and a 401 whose `WWW-Authenticate` is unreadable is reported as
//! such; both become a `CorsError` whose `data` names what the server must allow. The
//! probes and the wording are in `js/cors.js` (plain JS: mostly awaiting fetches, several
//! times smaller than the same in wasm). Transport facts only: no protocol decision.

use crate::engine::core::ResponseHead;
use crate::error::{sanitize, Error, ErrorKind};
use crate::http::request::HttpRequest;
use crate::http::response::{reads_header, RESPONSE_HEADERS};
use crate::web::convert::{describe, from_js};
use crate::web::driver::{now, pump, Handle};
use js_sys::{Array, ArrayBuffer, Function, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{AbortController, Headers, ReadableStreamDefaultReader, RequestInit, Response};

fn fail(h: &Handle, id: u64, e: Error) {
    {
        let mut d = h.borrow_mut();
        d.exchanges.remove(&id);
        let t = now();
        d.core.on_fail(id, e, t);
    }
    pump(h);
}

/// The response body of exchange `id` ended: the engine hears it.
fn end(h: &Handle, id: u64) {
    {
        let mut d = h.borrow_mut();
        d.exchanges.remove(&id);
        let t = now();
        d.core.on_end(id, t);
    }
    pump(h);
}

/// Why a fetch was rejected, as the engine's error. A browser reports CORS refusals and
/// network failures alike as a `TypeError`: a network error, unless [`diagnose`] finds CORS.
fn fetch_error(e: &JsValue) -> Error {
    Error::network(format!("fetch failed: {}", describe(e)))
}

#[wasm_bindgen(module = "/src/web/js/cors.js")]
extern "C" {
    /// The page's origin when the URL is cross-origin in a browser context.
    #[wasm_bindgen(js_name = crossOrigin)]
    fn cross_origin(url: &str) -> Option<String>;
    /// After a rejected fetch: a promise of the finding (a string), or null (not CORS).
    fn diagnose(f: &Function, this: &JsValue, url: &str, headers: &Array) -> js_sys::Promise;
    /// The CorsError's `{ message, data }` for a finding.
    #[wasm_bindgen(js_name = corsFacts)]
    fn cors_facts(
        reason: &str,
        page: &str,
        url: &str,
        method: &str,
        headers: &Array,
        status: u16,
    ) -> JsValue;
}

/// What a CORS diagnosis needs of a cross-origin request in a browser context.
struct CorsContext {
    /// The page's origin (`location.origin`).
    page: String,
    url: String,
    method: &'static str,
    headers: Vec<(String, String)>,
}

impl CorsContext {
    /// The headers as `[name, value]` pairs (built only when a diagnosis runs).
    fn header_pairs(&self) -> Array {
        self.headers
            .iter()
            .map(|(n, v)| Array::of2(&JsValue::from_str(n), &JsValue::from_str(v)))
            .collect()
    }

    fn error(&self, reason: &str, status: u16) -> Error {
        let facts = cors_facts(
            reason,
            &self.page,
            &self.url,
            self.method,
            &self.header_pairs(),
            status,
        );
        let message = Reflect::get(&facts, &JsValue::from_str("message"))
            .ok()
            .and_then(|m| m.as_string())
            .unwrap_or_default();
        let mut e = Error::new(ErrorKind::Cors, sanitize(&message, 2000));
        if let Ok(Some(d)) = Reflect::get(&facts, &JsValue::from_str("data"))
            .map_err(|_| ())
            .and_then(|d| from_js(&d).map_err(|_| ()))
        {
            e.data = Some(d);
        }
        if status != 0 {
            e.status = Some(status);
        }
        e
    }
}

fn build(req: &HttpRequest, signal: &web_sys::AbortSignal) -> Result<RequestInit, Error> {
    let init = RequestInit::new();
    init.set_method(req.method.as_str());
    let headers = Headers::new().map_err(|e| Error::network(describe(&e)))?;
    for (n, v) in &req.headers {
        headers
            .append(n, v)
            .map_err(|e| Error::config(format!("header {n} could not be set: {}", describe(&e))))?;
    }
    init.set_headers(&headers);
    if let Some(b) = &req.body {
        init.set_body(&JsValue::from_str(b));
    }
    init.set_signal(Some(signal));
    Ok(init)
}

/// Starts the request; events go to the engine as they arrive.
pub(super) fn perform(h: &Handle, req: HttpRequest) {
    let id = req.id;
    let controller = match AbortController::new() {
        Ok(c) => c,
        Err(e) => {
            return fail(
                h,
                id,
                Error::network(format!("AbortController unavailable: {}", describe(&e))),
            )
        }
    };
    let init = match build(&req, &controller.signal()) {
        Ok(i) => i,
        Err(e) => return fail(h, id, e),
    };
    let custom = {
        let mut d = h.borrow_mut();
        d.exchanges.insert(id, controller.clone());
        d.handlers.fetch.clone()
    };
    let global = js_sys::global();
    let (f, this): (Option<Function>, JsValue) = match custom {
        Some(f) => (Some(f), JsValue::UNDEFINED),
        None => (
            Reflect::get(&global, &JsValue::from_str("fetch"))
                .ok()
                .and_then(|f| f.dyn_into::<Function>().ok()),
            global.clone().into(),
        ),
    };
    let Some(f) = f else {
        return fail(
            h,
            id,
            Error::network("no fetch function in this environment"),
        );
    };
    let promise = match f.call2(&this, &JsValue::from_str(&req.url), &init) {
        Ok(p) => js_sys::Promise::resolve(&p),
        Err(e) => return fail(h, id, fetch_error(&e)),
    };
    let cors = cross_origin(&req.url).map(|page| CorsContext {
        page,
        method: req.method.as_str(),
        headers: req.headers,
        url: req.url,
    });
    let h = h.clone();
    spawn_local(async move {
        let resp = match JsFuture::from(promise).await {
            Ok(r) => r,
            Err(e) => {
                if controller.signal().aborted() {
                    return;
                }
                let mut err = fetch_error(&e);
                if let Some(cx) = &cors {
                    let finding =
                        JsFuture::from(diagnose(&f, &this, &cx.url, &cx.header_pairs())).await;
                    if let Some(reason) = finding.ok().and_then(|r| r.as_string()) {
                        err = cx.error(&reason, 0);
                    }
                    if controller.signal().aborted() {
                        return; // the engine gave up on the exchange while probing
                    }
                }
                fail(&h, id, err);
                return;
            }
        };
        let Ok(resp) = resp.dyn_into::<Response>() else {
            return fail(&h, id, Error::network("fetch did not return a Response"));
        };
        let hdrs = resp.headers();
        // The headers the engine reads (cross-origin, readable only when the server exposes
        // them: README "CORS"); `WWW-Authenticate` only where the engine uses it.
        let status = resp.status();
        let values = RESPONSE_HEADERS.map(|n| {
            reads_header(n, status)
                .then(|| hdrs.get(n).ok().flatten())
                .flatten()
        });
        let head = ResponseHead::read(status, &values);
        if let Some(cx) = &cors {
            // A 401 always carries WWW-Authenticate (RFC 9110 §15.5.2): unreadable, it was
            // not exposed to this origin, and the page cannot learn how to authenticate.
            if head.status == 401 && head.www_authenticate.is_none() {
                controller.abort();
                return fail(&h, id, cx.error("www-authenticate-not-exposed", 401));
            }
            // DPoP (RFC 9449 §9): the nonce asked for must be readable too.
            if head.status == 401
                && head.dpop_nonce.is_none()
                && head
                    .www_authenticate
                    .is_some_and(crate::auth::challenge::use_dpop_nonce)
            {
                controller.abort();
                return fail(&h, id, cx.error("dpop-nonce-not-exposed", 401));
            }
        }
        {
            let mut d = h.borrow_mut();
            let t = now();
            d.core.on_head(id, head, t);
        }
        pump(&h);
        let Some(body) = resp.body() else {
            end(&h, id);
            return;
        };
        let reader: ReadableStreamDefaultReader = body.get_reader().unchecked_into();
        loop {
            if !h.borrow().exchanges.contains_key(&id) {
                // Cancelled by the engine (the controller aborted the stream). The abort has
                // already errored the stream, so `cancel()` returns a rejected promise: await
                // it, or the host sees an unhandled AbortError rejection (Node then exits).
                let _ = JsFuture::from(reader.cancel()).await;
                return;
            }
            let r = match JsFuture::from(reader.read()).await {
                Ok(r) => r,
                Err(e) => {
                    if !controller.signal().aborted() {
                        fail(
                            &h,
                            id,
                            Error::network(format!("the response stream broke: {}", describe(&e))),
                        );
                    }
                    return;
                }
            };
            let done = Reflect::get(&r, &JsValue::from_str("done"))
                .ok()
                .and_then(|v| v.as_bool())
                .unwrap_or(true);
            if done {
                end(&h, id);
                return;
            }
            let value = Reflect::get(&r, &JsValue::from_str("value")).unwrap_or(JsValue::UNDEFINED);
            // `ArrayBuffer.isView`, not `instanceof Uint8Array`: a fetch from another realm (an
            // iframe's, or a host's fetch handed to a sandboxed context) yields Uint8Arrays
            // that are not instances of this realm's class; they must not be dropped.
            if ArrayBuffer::is_view(&value) {
                let bytes = match value.dyn_ref::<Uint8Array>() {
                    Some(chunk) => chunk.to_vec(),
                    None => Uint8Array::new(&value).to_vec(),
                };
                {
                    let mut d = h.borrow_mut();
                    let t = now();
                    d.core.on_chunk(id, &bytes, t);
                }
                pump(&h);
            }
        }
    });
}
