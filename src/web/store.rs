//! Durable tasks (issue 13) in the shell: the `taskStore` and `storeAnswers` options, the
//! engine's `StoreTask` / `ForgetTask` actions performed on the store (fire and forget:
//! failures become one warning, and memory keeps what the store did not, per change, in
//! `js/contexts.js`), and
//! `resumeTasks()`. What is stored and when is the engine's (`engine::task::store`).

use crate::engine::RestoreSkip;
use crate::json::Value;
use crate::web::convert::{from_js, to_js};
use crate::web::driver::{now, pump, warn, Handle};
use crate::web::js::when_then;
use crate::web::task::Task;
use js_sys::{Array, Promise};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/web/js/contexts.js")]
extern "C" {
    /// The store behind `taskStore` (`js/contexts.js`).
    #[derive(Clone)]
    pub(super) type TaskStore;
    /// The store of option `taskStore` as `clientOptions` checked it ('indexeddb' where
    /// IndexedDB exists, else 'memory'; 'memory'; a store object `{ get, put, delete,
    /// list }`; `undefined`: the default).
    #[wasm_bindgen(js_name = openTaskStore)]
    pub(super) fn open_task_store(option: &JsValue, on_warning: &JsValue) -> TaskStore;
    #[wasm_bindgen(method)]
    fn put(this: &TaskStore, key: &str, value: JsValue);
    #[wasm_bindgen(method)]
    fn remove(this: &TaskStore, key: &str);
    /// Resolves to `[key, value]` pairs; never rejects.
    #[wasm_bindgen(method)]
    fn list(this: &TaskStore, prefix: &str) -> Promise;
}

fn store_of(h: &Handle) -> Option<TaskStore> {
    h.borrow().handlers.task_store.clone()
}

/// `Action::StoreTask`.
// Out of line: not on the first call's path (`driver::pump`).
#[inline(never)]
pub(super) fn put(h: &Handle, key: &str, value: &Value) {
    if let Some(s) = store_of(h) {
        s.put(key, to_js(value));
    }
}

/// `Action::ForgetTask`.
// Out of line: not on the first call's path (`driver::pump`).
#[inline(never)]
pub(super) fn forget(h: &Handle, key: &str) {
    if let Some(s) = store_of(h) {
        s.remove(key);
    }
}

/// `client.resumeTasks()`: this server's stored tasks that are not finished, each restored
/// in the engine so that a `waitForTask` continues it. A record that cannot be used is
/// an `onWarning`; the promise never rejects.
pub(super) fn resume(h: &Handle) -> Promise {
    let (store, prefix) = {
        let d = h.borrow();
        (d.handlers.task_store.clone(), d.core.task_store_prefix())
    };
    let Some(store) = store.filter(|_| !h.borrow().closed) else {
        let empty: JsValue = Array::new().into();
        return Promise::resolve(&empty);
    };
    let weak = Rc::downgrade(h);
    when_then(&store.list(&prefix), move |entries| {
        let entries = entries.unwrap_or_else(|_| Array::new().into());
        let out = Array::new();
        let Some(h) = weak.upgrade() else {
            return out.into();
        };
        for e in Array::from(&entries).iter() {
            let pair = Array::from(&e);
            let Some(key) = pair.get(0).as_string() else {
                continue;
            };
            let record = from_js(&pair.get(1)).map(|v| v.unwrap_or(Value::Null));
            let r = match record {
                Ok(v) => {
                    let mut d = h.borrow_mut();
                    let url = d.url.clone();
                    let tool = v.get("tool").and_then(Value::as_str).map(str::to_string);
                    d.core
                        .restore_task(&key, &v, now())
                        .map(|view| (view, url, tool))
                }
                Err(e) => Err(RestoreSkip::Corrupt(e.message)),
            };
            match r {
                Ok((view, url, tool)) => {
                    out.push(&Task::from_view(view, &url).with_tool(tool).into());
                }
                Err(skip) => warn(&h, &skip.to_string()),
            }
        }
        // Expired and ended records are removed now.
        pump(&h);
        out.into()
    })
}
