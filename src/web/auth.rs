//! OAuth work only the host can do, for the engine's flow (`engine::core::auth`): random
//! bytes (`crypto.getRandomValues`), the person's step (`auth.onAuthorize(url, ctx)`, which
//! resolves with the URL the authorization server redirected to) and the optional
//! `auth.storage` (`get`/`set`, sync or async), and WebCrypto for DPoP and
//! `private_key_jwt` (issue 16; the WebCrypto section of `js/contexts.js`): the DPoP key pair, the signature of every
//! `DPoP` request header the engine wrote (its value is the JWS signing input), the client
//! assertion's signature. Each answer goes back to the engine; no decision is made here.

use crate::auth::dpop::PROOF_HEADER;
use crate::auth::AuthorizeReq;
use crate::engine::actions::{AuthAction, AuthInput, AuthStepId};
use crate::error::Error;
use crate::http::request::HttpRequest;
use crate::web::convert::describe;
use crate::web::driver::{now, pump, warn, Handle};
use crate::web::js::when;
use js_sys::{Function, Object, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::AbortController;

// Out of line: not on the first call's path (`driver::pump`).
#[inline(never)]
pub(super) fn perform(h: &Handle, a: AuthAction) {
    match a {
        AuthAction::Random { id, len } => feed(h, id, AuthInput::Random(random(len))),
        AuthAction::Authorize { id, req } => authorize(h, id, req),
        AuthAction::Load { id, key } => load(h, id, key),
        AuthAction::Save { key, value } => save(h, &key, &value),
        AuthAction::Lock { id, name } => crate::web::auth_lock::lock(h, id, &name),
        AuthAction::Unlock { id } => crate::web::auth_lock::unlock(h, id),
        AuthAction::Announce { key } => crate::web::auth_lock::announce(h, &key),
        AuthAction::Key { id, name } => dpop_key(h, id, name),
        AuthAction::Sign { id, input } => sign_assertion(h, id, input),
    }
}

#[wasm_bindgen(module = "/src/web/js/contexts.js")]
extern "C" {
    #[wasm_bindgen(js_name = dpopKey)]
    fn js_dpop_key(storage: &JsValue, name: &str, memo: &js_sys::Map) -> Promise;
    #[wasm_bindgen(js_name = sign)]
    fn js_sign(key: &JsValue, alg: &str, input: &str) -> Promise;
    #[wasm_bindgen(js_name = randomBytes)]
    fn random_bytes(len: u32) -> Vec<u8>;
}

/// The DPoP key pair `name`: this client's, the stored one, or a new non-extractable one.
fn dpop_key(h: &Handle, id: AuthStepId, name: String) {
    let (storage, memo) = {
        let mut d = h.borrow_mut();
        let memo = d
            .handlers
            .dpop_keys
            .get_or_insert_with(js_sys::Map::new)
            .clone();
        (
            d.handlers.storage.clone().unwrap_or(JsValue::UNDEFINED),
            memo,
        )
    };
    let p = js_dpop_key(&storage, &name, &memo);
    let h = h.clone();
    when(&p, move |r| {
        let input = match r {
            Ok(v) => {
                let a = js_sys::Array::from(&v);
                let jwk = a.get(0).as_string();
                h.borrow_mut().handlers.dpop_key = Some(a.get(1));
                jwk.map(|j| (j, random(16)))
            }
            Err(e) => {
                warn(&h, &format!("DPoP: no key ({})", describe(&e)));
                None
            }
        };
        feed(&h, id, AuthInput::Key(input));
    });
}

fn sign_assertion(h: &Handle, id: AuthStepId, input: String) {
    let Some((key, alg)) = h.borrow().handlers.private_key.clone() else {
        return feed(h, id, AuthInput::Signed(None));
    };
    let p = js_sign(&key, alg, &input);
    let h = h.clone();
    when(&p, move |r| {
        let sig = match r {
            Ok(v) => Some(Uint8Array::new(&v).to_vec()),
            Err(e) => {
                warn(
                    &h,
                    &format!("auth.privateKey could not sign: {}", describe(&e)),
                );
                None
            }
        };
        feed(&h, id, AuthInput::Signed(sig));
    });
}

/// A request whose `DPoP` header holds a proof's signing input: signed with the DPoP key,
/// then fetched (a proof that cannot be signed fails the request: it is never sent
/// without one).
pub(super) fn send(h: &Handle, req: HttpRequest) {
    if h.borrow().handlers.dpop_key.is_none() {
        return crate::web::fetch::perform(h, req);
    }
    signed_send(h, req)
}

// Out of line: not on the first call's path (`driver::pump`).
#[inline(never)]
fn signed_send(h: &Handle, mut req: HttpRequest) {
    let key = h.borrow().handlers.dpop_key.clone();
    let Some(slot) = req.headers.iter().position(|(n, _)| n == PROOF_HEADER) else {
        return crate::web::fetch::perform(h, req);
    };
    let input = req
        .headers
        .get(slot)
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    // Without a key (never, once `send` saw one) the request fails as an unsigned one would.
    let signing = key.is_some();
    let p = key.map_or(JsValue::UNDEFINED, |k| js_sign(&k, "ES256", &input).into());
    let h = h.clone();
    when(&p, move |r| match r.ok().filter(|_| signing) {
        Some(s) => {
            let proof = crate::auth::dpop::compact(&input, &Uint8Array::new(&s).to_vec());
            if let Some((_, v)) = req.headers.get_mut(slot) {
                *v = proof;
            }
            crate::web::fetch::perform(&h, req);
        }
        None => {
            {
                let mut d = h.borrow_mut();
                let t = now();
                let e = Error::new(
                    crate::error::ErrorKind::Auth,
                    "the DPoP proof could not be signed (crypto.subtle)".to_string(),
                );
                d.core.on_fail(req.id, e, t);
            }
            pump(&h);
        }
    });
}

fn feed(h: &Handle, id: AuthStepId, input: AuthInput) {
    {
        let mut d = h.borrow_mut();
        let t = now();
        d.core.on_auth(id, input, t);
    }
    pump(h);
}

fn set(o: &Object, k: &str, v: &JsValue) {
    let _ = Reflect::set(o, &JsValue::from_str(k), v);
}

/// `len` bytes from the platform's CSPRNG (at most 1 KiB: `getRandomValues` refuses more
/// than 64 KiB, and the flow asks for a few dozen); none when it is missing (the engine
/// refuses).
fn random(len: usize) -> Vec<u8> {
    random_bytes(len.min(1024) as u32)
}

/// A string, or a `URL` (its `href`).
fn url_text(v: &JsValue) -> Option<String> {
    v.as_string().or_else(|| {
        Reflect::get(v, &JsValue::from_str("href"))
            .ok()
            .and_then(|s| s.as_string())
    })
}

fn authorize(h: &Handle, id: AuthStepId, req: AuthorizeReq) {
    let (f, server_url) = {
        let d = h.borrow();
        (d.handlers.on_authorize.clone(), d.url.clone())
    };
    let Some(f) = f else {
        return feed(
            h,
            id,
            AuthInput::Callback(Err(Error::config("auth.onAuthorize is missing"))),
        );
    };
    let controller = match AbortController::new() {
        Ok(c) => c,
        Err(e) => return feed(h, id, AuthInput::Callback(Err(Error::config(describe(&e))))),
    };
    h.borrow_mut().asks.insert(id.0, controller.clone());
    let ctx = Object::new();
    set(&ctx, "signal", &controller.signal());
    set(&ctx, "serverUrl", &JsValue::from_str(&server_url));
    set(&ctx, "issuer", &JsValue::from_str(&req.issuer));
    set(&ctx, "resource", &JsValue::from_str(&req.resource));
    set(&ctx, "redirectUri", &JsValue::from_str(&req.redirect_uri));
    if let Some(s) = &req.scope {
        set(&ctx, "scope", &JsValue::from_str(s));
    }
    let ret = f.call2(&JsValue::UNDEFINED, &JsValue::from_str(&req.url), &ctx);
    let v = match ret {
        Ok(v) => v,
        Err(e) => return settle(h, id, Err(e)),
    };
    let h = h.clone();
    when(&v, move |r| {
        settle(&h, id, r);
    });
}

fn settle(h: &Handle, id: AuthStepId, r: Result<JsValue, JsValue>) {
    h.borrow_mut().asks.remove(&id.0);
    let input = match r {
        Ok(v) => match url_text(&v) {
            Some(u) => Ok(u),
            None => Err(Error::config(
                "auth.onAuthorize must resolve with the callback URL (a string or a URL)",
            )),
        },
        Err(e) => {
            let msg = describe(&e);
            let n = h.borrow_mut().keep_host_error(e);
            Err(Error::handler(
                Some(n),
                format!("auth.onAuthorize failed: {msg}"),
            ))
        }
    };
    feed(h, id, AuthInput::Callback(input));
}

fn storage_call(h: &Handle, method: &str, args: &[&JsValue]) -> Option<Result<JsValue, JsValue>> {
    let s = h.borrow().handlers.storage.clone()?;
    let f = Reflect::get(&s, &JsValue::from_str(method))
        .ok()?
        .dyn_into::<Function>()
        .ok()?;
    Some(match args {
        [a] => f.call1(&s, a),
        [a, b] => f.call2(&s, a, b),
        _ => f.call0(&s),
    })
}

fn load(h: &Handle, id: AuthStepId, key: String) {
    let r = match storage_call(h, "get", &[&JsValue::from_str(&key)]) {
        None => return feed(h, id, AuthInput::Loaded(None)),
        Some(r) => r,
    };
    let v = match r {
        Ok(v) => v,
        Err(e) => {
            warn(h, &format!("auth.storage.get threw: {}", describe(&e)));
            return feed(h, id, AuthInput::Loaded(None));
        }
    };
    let h = h.clone();
    when(&v, move |r| {
        let v = match r {
            Ok(v) => v.as_string(),
            Err(e) => {
                warn(&h, &format!("auth.storage.get failed: {}", describe(&e)));
                None
            }
        };
        feed(&h, id, AuthInput::Loaded(v));
    });
}

fn save(h: &Handle, key: &str, value: &str) {
    let r = storage_call(
        h,
        "set",
        &[&JsValue::from_str(key), &JsValue::from_str(value)],
    );
    match r {
        None => {}
        Some(Err(e)) => warn(h, &format!("auth.storage.set threw: {}", describe(&e))),
        Some(Ok(v)) => {
            let h = h.clone();
            let p = Promise::resolve(&v);
            crate::web::auth_lock::saving(&h, &p);
            when(&p, move |r| {
                if let Err(e) = r {
                    warn(&h, &format!("auth.storage.set failed: {}", describe(&e)));
                }
            });
        }
    }
}
