//! Coordination across contexts (issue 13, `engine::task::peers`): performs the engine's
//! `PeerAction`s with Web Locks and a BroadcastChannel (`src/web/js/contexts.js`, section peers) and feeds
//! lock grants, other contexts' messages and this context's visibility back to it. No
//! decisions here: which lock, which message and what they mean are the engine's.

use crate::engine::actions::PeerAction;
use crate::engine::task::peers::channel_name;
use crate::web::driver::{now, pump, Handle};
use js_sys::Function;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/web/js/contexts.js")]
extern "C" {
    /// True in a window or worker with Web Locks and BroadcastChannel.
    #[wasm_bindgen(js_name = peersAvailable)]
    pub fn available() -> bool;

    #[derive(Clone)]
    pub type Peers;
    #[wasm_bindgen(js_name = openPeers)]
    fn open_peers(channel: &str, on_event: &Function) -> Option<Peers>;
    #[wasm_bindgen(method, getter)]
    fn id(this: &Peers) -> String;
    #[wasm_bindgen(method)]
    fn visible(this: &Peers) -> bool;
    #[wasm_bindgen(method)]
    fn lock(this: &Peers, name: &str);
    #[wasm_bindgen(method)]
    fn unlock(this: &Peers, name: &str);
    #[wasm_bindgen(method)]
    fn post(this: &Peers, text: &str);
    #[wasm_bindgen(method, js_name = close)]
    fn close_all(this: &Peers);
}

/// The one JS callback of `peers.js` (`onEvent(kind, text)`): a message from another
/// context (0), a lock granted (1), a lock request refused (2: coordination ends, and the
/// locks and channel are let go). (This context's visibility is reported by
/// `web::visibility`.) Never called while the engine is borrowed: these events all
/// arrive asynchronously.
fn on_event(h: &Handle) -> Function {
    let weak = Rc::downgrade(h);
    let c = Closure::wrap(Box::new(move |kind: u32, text: String| {
        let Some(h) = weak.upgrade() else { return };
        let refused = {
            let mut d = h.borrow_mut();
            if d.closed {
                return;
            }
            let t = now();
            match kind {
                0 => peer_message(&mut d.core, &text, t),
                1 => d.core.on_peer_lock(&text, t),
                _ => d.core.on_peer_refused(&text, t),
            }
            (kind == 2).then(|| d.peers.take()).flatten()
        };
        if let Some(p) = refused {
            p.close_all();
        }
        pump(&h);
    }) as Box<dyn Fn(u32, String)>);
    c.into_js_value().unchecked_into()
}

/// Out of line: a page's first call sees a lock granted, and no other context's message
/// (Chromium compiles a wasm function whole on its first call; BENCHMARKS.md, target 5).
#[inline(never)]
fn peer_message(core: &mut crate::engine::Core, text: &str, t: crate::time::Millis) {
    core.on_peer_message(text, t);
}

/// Starts coordination when the configuration asks for it (`coordination: 'auto'` where
/// the APIs exist and the tasks extension is declared; `web::options`).
pub(super) fn setup(h: &Handle) {
    let url = {
        let d = h.borrow();
        if !d.core.config().coordinated {
            return;
        }
        d.core.config().task_space().into_owned()
    };
    let Some(p) = open_peers(&channel_name(&url), &on_event(h)) else {
        return;
    };
    {
        let mut d = h.borrow_mut();
        d.core.peer_setup(&p.id(), p.visible());
        d.peers = Some(p);
    }
    pump(h);
}

pub(super) fn perform(h: &Handle, a: PeerAction) {
    let Some(p) = h.borrow().peers.clone() else {
        return;
    };
    match a {
        PeerAction::Lock { name } => p.lock(&name),
        PeerAction::Unlock { name } => p.unlock(&name),
        PeerAction::Post { text } => p.post(&text),
    }
}

/// `client.close()`: every lock is released and the channel closed (a closed tab's go
/// by themselves).
pub(super) fn close(h: &Handle) {
    let p = h.borrow_mut().peers.take();
    if let Some(p) = p {
        p.close_all();
    }
}
