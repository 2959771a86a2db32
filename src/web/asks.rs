//! Asking the host: an input request goes to `onElicitation`, `onSampling` or the
//! configured `roots`, with a context object (`signal`, `scope`, `taskId`, `key`,
//! `method`, `serverUrl`, and for URL mode `origin`, `host`, `isPunycode`). The answer (or
//! what the handler threw) goes back to the engine, which checks it.

use crate::engine::actions::{Ask, AskId};
use crate::error::{Error, ErrorKind};
use crate::json::Value;
use crate::protocol::input::InputKind;
use crate::web::convert::{describe, from_js, to_js};
use crate::web::driver::{now, pump, Handle};
use crate::web::js::when;
use js_sys::{Array, Function, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::AbortController;

fn set(o: &Object, k: &str, v: &JsValue) {
    let _ = Reflect::set(o, &JsValue::from_str(k), v);
}

fn answer(h: &Handle, ask: AskId, r: Result<Value, Error>) {
    {
        let mut d = h.borrow_mut();
        d.asks.remove(&ask.0);
        let t = now();
        d.core.answer(ask, r, t);
    }
    pump(h);
}

fn thrown(h: &Handle, v: JsValue) -> Error {
    let msg = describe(&v);
    let n = h.borrow_mut().keep_host_error(v);
    Error::handler(Some(n), format!("an input handler failed: {msg}"))
}

fn settle(h: &Handle, ask: AskId, r: Result<JsValue, JsValue>) {
    let r = match r {
        Ok(v) => match from_js(&v) {
            Ok(Some(v)) => Ok(v),
            Ok(None) => Err(Error::new(
                ErrorKind::InputValidation,
                "the input handler returned nothing",
            )),
            Err(e) => Err(e.with_kind(ErrorKind::InputValidation)),
        },
        Err(e) => Err(thrown(h, e)),
    };
    answer(h, ask, r);
}

/// Runs the handler for an ask.
// Out of line: not on the first call's path (`driver::pump`).
#[inline(never)]
pub(super) fn run(h: &Handle, ask: Ask) {
    let (handler, roots, url) = {
        let d = h.borrow();
        let f = match ask.kind {
            InputKind::Elicitation => d.handlers.on_elicitation.clone(),
            InputKind::Sampling => d.handlers.on_sampling.clone(),
            InputKind::Roots => None,
        };
        (f, d.handlers.roots.clone(), d.url.clone())
    };
    if ask.kind == InputKind::Roots {
        match roots {
            // The list itself is the answer (the engine wraps it in `ListRootsResult`).
            Some(r) if Array::is_array(&r) => return settle(h, ask.id, Ok(r)),
            // Else a function: the options reader refused anything else
            // (`clientOptions` in js/objects.js), so no second check here.
            Some(r) => return call(h, &ask, r.unchecked_ref(), &url, true),
            None => return answer(h, ask.id, Err(Error::config("no roots are configured"))),
        }
    }
    match handler {
        Some(f) => call(h, &ask, &f, &url, false),
        None => answer(
            h,
            ask.id,
            Err(Error::config("no handler for this input request")),
        ),
    }
}

fn call(h: &Handle, ask: &Ask, f: &Function, server_url: &str, roots: bool) {
    let controller = match AbortController::new() {
        Ok(c) => c,
        Err(e) => return answer(h, ask.id, Err(Error::config(describe(&e)))),
    };
    h.borrow_mut().asks.insert(ask.id.0, controller.clone());
    let ctx = Object::new();
    set(&ctx, "signal", &controller.signal());
    set(&ctx, "scope", &JsValue::from_str(ask.scope.as_str()));
    set(
        &ctx,
        "taskId",
        &ask.task_id
            .as_deref()
            .map(JsValue::from_str)
            .unwrap_or(JsValue::UNDEFINED),
    );
    set(&ctx, "key", &JsValue::from_str(&ask.key));
    set(&ctx, "method", &JsValue::from_str(&ask.method));
    set(&ctx, "serverUrl", &JsValue::from_str(server_url));
    if let Some(u) = &ask.url {
        set(&ctx, "url", &JsValue::from_str(&u.url));
        set(&ctx, "origin", &JsValue::from_str(&u.origin));
        // Like the URL API: `host` has the port when there is one, `hostname` does not.
        set(&ctx, "host", &JsValue::from_str(u.host_and_port()));
        set(&ctx, "hostname", &JsValue::from_str(&u.host));
        set(&ctx, "isPunycode", &JsValue::from_bool(u.is_punycode));
    }
    let request = to_js(&Value::Object(ask.params.clone()));
    let ret = if roots {
        f.call1(&JsValue::UNDEFINED, &ctx)
    } else {
        f.call2(&JsValue::UNDEFINED, &request, &ctx)
    };
    let id = ask.id;
    match ret {
        Err(e) => settle(h, id, Err(e)),
        Ok(v) => {
            let h = h.clone();
            when(&v, move |r| {
                // A host answering a withdrawn ask is ignored by the engine.
                settle(&h, id, r);
            });
        }
    }
}
