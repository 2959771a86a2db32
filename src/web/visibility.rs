//! The context's visibility and network, reported to the engine (issue 13, "Visibility
//! and network"): `visibilitychange` on the document and `online`/`offline` on the global
//! scope, through `js/contexts.js` (feature-detected; never `window`). Workers have no
//! document and count as visible; Node and edge runtimes report nothing. The listeners
//! are removed by `client.close()` (or when the client is freed).

use crate::web::driver::{now, pump, Handle};
use js_sys::Function;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(module = "/src/web/js/contexts.js")]
extern "C" {
    /// The state now: 1 = hidden, 2 = offline, 4 = no document.
    fn presence() -> u32;
    #[wasm_bindgen(js_name = watchPresence)]
    fn watch_presence(on_change: &Function) -> Function;
}

/// The listeners of one client.
pub(super) struct PresenceWatch {
    stop: Function,
    _on_change: Closure<dyn FnMut()>,
}

impl Drop for PresenceWatch {
    fn drop(&mut self) {
        let _ = self.stop.call0(&JsValue::UNDEFINED);
    }
}

/// Starts reporting the context's state to the engine (the current state at once).
pub(super) fn watch(h: &Handle) {
    report(h);
    let weak = Rc::downgrade(h);
    let on_change = Closure::wrap(Box::new(move || {
        if let Some(h) = weak.upgrade() {
            report(&h);
            pump(&h);
        }
    }) as Box<dyn FnMut()>);
    let stop = watch_presence(on_change.as_ref().unchecked_ref());
    h.borrow_mut().presence = Some(PresenceWatch {
        stop,
        _on_change: on_change,
    });
}

fn report(h: &Handle) {
    let Ok(mut d) = h.try_borrow_mut() else {
        return;
    };
    if d.closed {
        return;
    }
    let state = presence();
    let t = now();
    d.core.set_hidden(state & 1 != 0, t);
    d.core.set_online(state & 2 == 0, t);
    // Coordination (`peers`): a visible page is where a task's questions are preferred; a
    // worker (no document) counts as visible for polling but not for dialogs. One listener
    // serves both.
    d.core.set_peer_visible(state & 5 == 0, t);
}

/// Removes the listeners.
pub(super) fn unwatch(h: &Handle) {
    let w = h.borrow_mut().presence.take();
    drop(w);
}
