//! OAuth across contexts (issue 13): performs the engine's `AuthAction::Lock`, `Unlock`
//! and `Announce` with the platform's Web Locks and a BroadcastChannel
//! (`src/web/js/contexts.js`, section oauth-lock), and hands notices from other contexts to
//! `Core::on_auth_notice`. The engine decides when; nothing is decided here. The JS object
//! is made at the client's first lock (a context holds tokens only after a flow, and every
//! flow takes the lock first), so a client that never authorizes opens no channel.

use crate::engine::actions::{AuthInput, AuthStepId};
use crate::web::driver::{now, pump, warn, Handle};
use js_sys::{Function, Promise};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(module = "/src/web/js/contexts.js")]
extern "C" {
    #[wasm_bindgen(js_name = locksAvailable)]
    fn locks_available() -> bool;

    #[derive(Clone)]
    pub(crate) type OAuthPeers;
    #[wasm_bindgen(js_name = oauthPeers)]
    fn oauth_peers(on_event: &Function) -> OAuthPeers;
    #[wasm_bindgen(method)]
    fn lock(this: &OAuthPeers, id: f64, name: &str);
    #[wasm_bindgen(method)]
    fn unlock(this: &OAuthPeers, id: f64);
    #[wasm_bindgen(method)]
    fn saved(this: &OAuthPeers, p: &Promise);
    #[wasm_bindgen(method)]
    fn announce(this: &OAuthPeers, key: &str);
    #[wasm_bindgen(method)]
    fn close(this: &OAuthPeers);
}

/// True where Web Locks exist: the shell then sets `AuthConfig::across_contexts` (with a
/// storage). Node and edge runtimes have none: the flow is as it always was.
pub(super) fn available() -> bool {
    locks_available()
}

/// The client's peers object, made on first use. One callback for both events (one
/// closure type less in the wasm): `(id, error)` a lock is held (or could not be had),
/// `(-1, key)` another context's tokens changed.
fn peers(h: &Handle) -> OAuthPeers {
    if let Some(p) = h.borrow().auth_peers.clone() {
        return p;
    }
    let weak = Rc::downgrade(h);
    let on_event =
        Closure::<dyn FnMut(f64, JsValue) -> bool>::new(move |id: f64, text: JsValue| {
            let Some(h) = weak.upgrade() else {
                return false;
            };
            let text = text.as_string();
            if id < 0.0 {
                if h.borrow().closed {
                    return false;
                }
                if let Some(key) = text {
                    let mut d = h.borrow_mut();
                    let t = now();
                    d.core.on_auth_notice(&key, t);
                }
            } else {
                if let Some(e) = text {
                    let m = format!(
                        "OAuth: the Web Lock could not be taken ({e}); going on without it"
                    );
                    warn(&h, &m);
                }
                let mut d = h.borrow_mut();
                let t = now();
                d.core.on_auth(AuthStepId(id as u64), AuthInput::Locked, t);
            }
            pump(&h);
            true
        });
    let p = oauth_peers(on_event.into_js_value().unchecked_ref());
    h.borrow_mut().auth_peers = Some(p.clone());
    p
}

pub(super) fn lock(h: &Handle, id: AuthStepId, name: &str) {
    peers(h).lock(id.0 as f64, name);
}

pub(super) fn unlock(h: &Handle, id: AuthStepId) {
    let p = h.borrow().auth_peers.clone();
    if let Some(p) = p {
        p.unlock(id.0 as f64);
    }
}

pub(super) fn announce(h: &Handle, key: &str) {
    peers(h).announce(key);
}

/// A save in progress: the next unlock and announcement wait for it.
pub(super) fn saving(h: &Handle, p: &Promise) {
    let peers = h.borrow().auth_peers.clone();
    if let Some(peers) = peers {
        peers.saved(p);
    }
}

/// The client closed (after the engine's `Unlock`s were performed): the channel closes.
pub(super) fn close(h: &Handle) {
    let p = h.borrow_mut().auth_peers.take();
    if let Some(p) = p {
        p.close();
    }
}
