//! Bindings to the package's own JS pieces (error classes, the Subscription object) and
//! to the few globals the shell uses. The global scope is reached as `globalThis` in the
//! snippets (`js_sys::global()` in Rust), never `window`: pages, workers, Node and edge
//! runtimes alike.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/web/js/objects.js")]
extern "C" {
    #[wasm_bindgen(js_name = makeError)]
    pub fn make_error(
        name: &str,
        message: &str,
        code: JsValue,
        data: JsValue,
        status: JsValue,
        cause: JsValue,
    ) -> JsValue;
    #[wasm_bindgen(js_name = errorClasses)]
    pub fn error_classes_js() -> JsValue;
    /// `{ progress, total?, message? }`, the argument of a call's `onProgress`.
    #[wasm_bindgen(js_name = progressInfo)]
    pub fn progress_info(progress: f64, total: Option<f64>, message: Option<String>) -> JsValue;
    /// `f(true, value)` or `f(false, reason)` once `v` settles; the promise of `f`'s result.
    fn settled(v: &JsValue, f: &JsValue) -> js_sys::Promise;
}

/// What `when` runs once a value settles.
type Settled = Box<dyn FnOnce(Result<JsValue, JsValue>) -> JsValue>;

/// Runs `f` with what `v` (a value or a promise) settles to, `Ok` when fulfilled, `Err` when
/// rejected, in a later microtask (`settled` in `js/objects.js`). The shell's waits (the
/// host's handlers and storage, WebCrypto, the task store) go through here instead of
/// `wasm_bindgen_futures`' `spawn_local` and `JsFuture`: one closure a wait, and no
/// executor or future state machine in the wasm (BENCHMARKS.md, the fifty-first session).
pub(crate) fn when(v: &JsValue, f: impl FnOnce(Result<JsValue, JsValue>) + 'static) {
    // `f` cannot throw, so the promise `settled` returns never rejects: nothing to handle.
    let _ = when_boxed(
        v,
        Box::new(move |r| {
            f(r);
            JsValue::UNDEFINED
        }),
    );
}

/// [`when`], and the promise of what `f` returns.
pub(crate) fn when_then(
    v: &JsValue,
    f: impl FnOnce(Result<JsValue, JsValue>) -> JsValue + 'static,
) -> js_sys::Promise {
    when_boxed(v, Box::new(f))
}

/// `when`'s body, compiled once: one closure type for every wait.
#[inline(never)]
fn when_boxed(v: &JsValue, f: Settled) -> js_sys::Promise {
    let cb = Closure::once_into_js(move |ok: bool, x: JsValue| f(if ok { Ok(x) } else { Err(x) }));
    settled(v, &cb)
}

#[wasm_bindgen(module = "/src/web/js/fetch.js")]
extern "C" {
    /// `JSON.stringify` of a tool's arguments, the text kept in JS: its length in UTF-16
    /// units, or -1 (no text), -2 (it threw) or -3 (it may hold a lone surrogate); then
    /// [`args_kept`] gives what was thrown or the text.
    #[wasm_bindgen(js_name = argsText)]
    pub fn args_text(v: &JsValue) -> i32;
    /// `TextEncoder.encodeInto` of the kept text into the wasm's `memory` at `ptr` (`cap`
    /// bytes); the bytes written.
    #[wasm_bindgen(js_name = argsInto)]
    pub fn args_into(memory: &JsValue, ptr: u32, cap: u32) -> u32;
    /// What [`args_text`] kept.
    #[wasm_bindgen(js_name = argsKept)]
    pub fn args_kept() -> JsValue;
}

// `bodies.js` is imported by `fetch.js` alone. One of its functions is named here, never
// called, so that wasm-bindgen copies the file into `pkg/` beside `fetch.js`: it copies only
// the snippets a declared import names (an empty block is not enough). Nothing of it is
// imported into the wasm, so the glue makes no namespace object of it, whose getters for
// every export would cost the bundle bytes.
#[wasm_bindgen(module = "/src/web/js/bodies.js")]
extern "C" {
    /// Never called (see above).
    #[wasm_bindgen(js_name = readAnswer)]
    pub fn read_answer(bytes: &[u8]) -> JsValue;
}

#[wasm_bindgen(module = "/src/web/js/objects.js")]
extern "C" {
    pub type Subscription;
    #[wasm_bindgen(constructor)]
    pub fn new(
        close: &js_sys::Function,
        on_notification: &JsValue,
        on_reconnect: &JsValue,
    ) -> Subscription;
    #[wasm_bindgen(method, js_name = _ack)]
    pub fn ack(this: &Subscription, granted: JsValue, subscription_id: JsValue);
    #[wasm_bindgen(method, js_name = _push)]
    pub fn push(this: &Subscription, method: &str, params: JsValue);
    /// `{ attempt, delayMs, reason }` goes to `onReconnect`.
    #[wasm_bindgen(method, js_name = _reconnecting)]
    pub fn reconnecting(this: &Subscription, attempt: f64, delay_ms: f64, reason: &str);
    #[wasm_bindgen(method, js_name = _end)]
    pub fn end(this: &Subscription, error: JsValue);
}

#[wasm_bindgen]
extern "C" {
    /// `JSON.parse` (the fastest way to hand a large result to the host).
    #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
    pub fn json_parse(text: &str) -> Result<JsValue, JsValue>;
    /// `JSON.stringify`; `undefined` for values JSON cannot express.
    #[wasm_bindgen(js_namespace = JSON, js_name = stringify, catch)]
    pub fn json_stringify(v: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    pub fn console_warn(s: &str);
    /// `String(n)`: the shortest decimal text that reads back as `n` (ECMA-262
    /// `Number::toString`), for the floats the wasm writes into JSON text
    /// (`crate::json`'s writer).
    #[wasm_bindgen(js_name = String)]
    pub fn number_text(n: f64) -> String;
    /// `Number(text)`: the `f64` nearest to a decimal text (ECMA-262 StringToNumber), for
    /// the numbers `crate::json`'s reader cannot read exactly on its fast path.
    #[wasm_bindgen(js_name = Number)]
    pub fn number_of(text: &str) -> f64;
}
