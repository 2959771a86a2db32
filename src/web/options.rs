//! The host's option objects (`new McpClient(url, options)` and per-call options): read and
//! checked by `js/objects.js` (`clientOptions`, `callOptions`), which hands them over in
//! slots; taken from there into the engine's [`Config`] (with the engine's own checks of
//! some, in reading order) and the shell's [`Handlers`].

use crate::auth::client;
use crate::engine::actions::OpOptions;
use crate::engine::config::{Config, ValidateOutput, VersionChoice};
use crate::error::Error;
use crate::json::{Map, Value};
use crate::protocol::requests;
use crate::web::convert::{error_to_js, from_js, from_text};
use js_sys::{Array, Function, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The host's callbacks and values the engine does not hold.
#[derive(Default, Clone)]
pub(super) struct Handlers {
    pub on_elicitation: Option<Function>,
    pub on_sampling: Option<Function>,
    /// `roots`: an array (answered directly) or a function returning one.
    pub roots: Option<JsValue>,
    pub on_log: Option<Function>,
    pub on_notification: Option<Function>,
    pub on_warning: Option<Function>,
    /// A custom `fetch` (otherwise the global one).
    pub fetch: Option<Function>,
    /// `auth.onAuthorize(authorizationUrl, ctx)`: the person's step.
    pub on_authorize: Option<Function>,
    /// `auth.storage`: `{ get(key), set(key, value) }` (sync or async).
    pub storage: Option<JsValue>,
    /// Durable tasks: the `taskStore` (`None` for 'none'; `web::store`).
    pub task_store: Option<crate::web::store::TaskStore>,
    /// `auth.privateKey` (a `CryptoKey` or a private JWK) and its algorithm: the
    /// `private_key_jwt` client assertions are signed with it (`web::auth`).
    pub private_key: Option<(JsValue, &'static str)>,
    /// The DPoP private key in use (`CryptoKey`, non-extractable) and this client's key
    /// pairs by name (a `Map`; `web::auth`).
    pub dpop_key: Option<JsValue>,
    pub dpop_keys: Option<js_sys::Map>,
}

pub(super) fn get(obj: &JsValue, key: &str) -> JsValue {
    if obj.is_undefined() || obj.is_null() || !obj.is_object() {
        return JsValue::UNDEFINED;
    }
    Reflect::get(obj, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

#[wasm_bindgen(module = "/src/web/js/objects.js")]
extern "C" {
    /// The client's options in their slots, checked (`clientOptions` in `js/objects.js`).
    #[wasm_bindgen(js_name = clientOptions)]
    fn client_options_js(o: &JsValue) -> Array;
    /// A call's options in their slots; throws the `ConfigError` of a misfit one.
    #[wasm_bindgen(js_name = callOptions, catch)]
    fn call_options_js(o: &JsValue) -> Result<Array, JsValue>;
}

/// `clientOptions`' slot of the first misfit option (then its `ConfigError`).
const MISFIT: u32 = 30;

/// A checked number (a count or a duration in ms; `Infinity` reads as `u64::MAX`).
fn number(v: JsValue) -> Option<u64> {
    v.as_f64().map(|f| f as u64)
}

/// A checked function.
fn func(v: JsValue) -> Option<Function> {
    v.is_function().then(|| v.unchecked_into())
}

/// A checked value that is given (neither `undefined` nor `null`).
fn given(v: JsValue) -> Option<JsValue> {
    (!v.is_undefined() && !v.is_null()).then_some(v)
}

/// A slot holding two checked booleans (`elicitation`, `sampling`), or nothing.
fn named(v: JsValue) -> Option<[Option<bool>; 2]> {
    given(v).map(|a| {
        let a: Array = a.unchecked_into();
        [a.get(0).as_bool(), a.get(1).as_bool()]
    })
}

/// Reads `new McpClient(url, options)`: the options as `clientOptions` read and checked
/// them, and the engine's own checks of some, in one reading order. The host sees the
/// first misfit in that order: a misfit the JS found is reported unless the engine's check
/// of an earlier slot fails (`misfit(p)` before the engine's check of slot `p`).
pub(super) fn client_options(url: String, o: &JsValue) -> Result<(Config, Handlers), JsValue> {
    let v = client_options_js(o);
    let misfit_at = v.get(MISFIT).as_f64().map_or(u32::MAX, |f| f as u32);
    let misfit = |p: u32| {
        if misfit_at <= p {
            return Err(v.get(MISFIT + 1));
        }
        Ok(())
    };
    let engine = |e: Error| error_to_js(&e, JsValue::UNDEFINED);
    let mut cfg = Config::new(url);
    let mut h = Handlers::default();
    // The option groups a host seldom gives are read out of line, and only when given:
    // Chromium compiles a wasm function whole on its first call, so code inlined here is
    // compiled at every page's first `new McpClient()` (BENCHMARKS.md, target 5).
    misfit(0)?;
    if let Some(info) = given(v.get(0)) {
        client_info(&info, &mut cfg).map_err(engine)?;
    }
    if let Some(version) = v.get(1).as_string().filter(|s| s != "auto") {
        cfg.version = VersionChoice::Pinned(version);
    }
    if let Some(pairs) = given(v.get(2)) {
        cfg.headers = headers(&pairs.unchecked_into());
    }
    misfit(3)?;
    if let Some(ext) = given(v.get(3)) {
        cfg.extensions = extensions(&ext).map_err(engine)?;
    }
    if let Some(ms) = number(v.get(4)) {
        cfg.request_timeout_ms = ms;
    }
    cfg.max_total_timeout_ms = number(v.get(5));
    // `Infinity` (read as u64::MAX) pauses polling while hidden (issue 13).
    if let Some(ms) = number(v.get(6)) {
        cfg.hidden_poll_interval_ms = (ms != u64::MAX).then_some(ms);
    }
    cfg.log_level = v.get(7).as_string();
    cfg.validate_output = match v.get(8).as_string().as_deref() {
        Some("warn") => ValidateOutput::Warn,
        Some("off") => ValidateOutput::Off,
        _ => ValidateOutput::Strict,
    };
    h.fetch = func(v.get(9));
    h.on_log = func(v.get(10));
    h.on_notification = func(v.get(11));
    h.on_warning = func(v.get(12));
    // Durable tasks (issue 13): `taskStore` ('none' is `null`; `undefined`, the default
    // store) and `storeAnswers`; the store is opened once the options are accepted.
    let store = v.get(13);
    cfg.persist_tasks = !store.is_null();
    if let Some(b) = v.get(14).as_bool() {
        cfg.store_answers = b;
    }
    h.on_elicitation = func(v.get(15));
    h.on_sampling = func(v.get(16));
    // The engine decides what the handlers and the options they name declare.
    misfit(17)?;
    cfg.set_elicitation(h.on_elicitation.is_some(), named(v.get(17)))
        .map_err(engine)?;
    misfit(18)?;
    cfg.set_sampling(h.on_sampling.is_some(), named(v.get(18)))
        .map_err(engine)?;
    if let Some(roots) = given(v.get(19)) {
        cfg.roots = true;
        h.roots = Some(roots);
    }
    if let Some(n) = number(v.get(20)) {
        cfg.limits.max_input_rounds = n.min(u32::MAX as u64) as u32;
    }
    misfit(MISFIT)?;
    if let Some(limits) = given(v.get(21)) {
        read_limits(&limits.unchecked_into(), &mut cfg);
    }
    if let Some(auth) = given(v.get(22)) {
        read_auth(&auth.unchecked_into(), &mut cfg, &mut h);
    }
    // Issue 13: one poller and one dialog per task across the origin's contexts. Only a
    // client that declares the tasks extension has tasks (both eras' tasks need it): without
    // it there is nothing to coordinate, and no channel or lock is opened (issue 14: that
    // set-up was ~1.7 ms of a cold constructor in Chromium).
    cfg.coordinated = v.get(23).as_string().as_deref() != Some("none")
        && cfg.tasks_enabled()
        && crate::web::peers::available();
    // Issue 14: push-driven tasks over one shared listen stream (`engine::task::push`),
    // the default ('auto'; `false` polls).
    cfg.push_tasks = v.get(24).as_bool() != Some(false);
    // `taskScope`: the identity the tasks belong to (the store's keys, the channel and the
    // locks; `Config::task_space`).
    cfg.task_scope = v.get(25).as_string();
    cfg.validate().map_err(engine)?;
    if cfg.persist_tasks {
        let on_warning = h.on_warning.clone().map(JsValue::from).unwrap_or_default();
        h.task_store = Some(crate::web::store::open_task_store(&store, &on_warning));
    }
    Ok((cfg, h))
}

/// `headers`, checked: names and values in turn.
#[inline(never)]
fn headers(a: &Array) -> Vec<(String, String)> {
    let text = |i| a.get(i).as_string().unwrap_or_default();
    (0..a.length() / 2)
        .map(|i| (text(2 * i), text(2 * i + 1)))
        .collect()
}

/// `extensions`: an array of identifiers, or an object `{ id: settings }` (the engine's
/// check).
#[inline(never)]
fn extensions(v: &JsValue) -> Result<Map, Error> {
    if Array::is_array(v) {
        return requests::extension_ids(Array::from(v).iter().map(|id| id.as_string()));
    }
    requests::extension_settings(from_js(v)?)
}

/// `clientInfo` (out of line: see `client_options`).
#[inline(never)]
fn client_info(v: &JsValue, cfg: &mut Config) -> Result<(), Error> {
    if let Some(Value::Object(info)) = from_js(v)? {
        cfg.client_info = requests::client_info(info)?;
    }
    Ok(())
}

/// `limits`, checked: its numbers in the order `clientOptions` lists the names (out of
/// line: see `client_options`).
#[inline(never)]
fn read_limits(a: &Array, cfg: &mut Config) {
    // On wasm32 a usize has 32 bits: a larger limit saturates instead of wrapping
    // (2^32 bytes must not become 0).
    let size = |i| number(a.get(i)).map(|n| usize::try_from(n).unwrap_or(usize::MAX));
    let l = &mut cfg.limits;
    if let Some(n) = size(0) {
        l.max_event_bytes = n;
    }
    if let Some(n) = size(1) {
        l.max_body_bytes = n;
    }
    if let Some(n) = size(2) {
        l.max_concurrent_inputs = n;
    }
    if let Some(n) = size(3) {
        l.max_input_requests = n;
    }
    if let Some(n) = number(a.get(4)) {
        l.listen_max_retries = n.min(u32::MAX as u64) as u32;
    }
    if let Some(n) = number(a.get(5)) {
        l.listen_backoff_ms = n;
    }
    if let Some(n) = number(a.get(6)) {
        l.listen_max_backoff_ms = n;
    }
    if let Some(n) = number(a.get(7)) {
        l.listen_ack_timeout_ms = n;
    }
}

/// `auth`, checked, in the slots of `clientOptions`' `auth` (checked further by the
/// engine; out of line: see `client_options`).
#[inline(never)]
fn read_auth(a: &Array, cfg: &mut Config, h: &mut Handlers) {
    use crate::auth::dpop::{ClientKey, DpopMode, JwsAlg};
    let text = |i| a.get(i).as_string();
    let storage = given(a.get(3));
    let dpop = match a.get(4).as_bool() {
        Some(true) => DpopMode::Required,
        Some(false) => DpopMode::Off,
        None => DpopMode::Auto,
    };
    // private_key_jwt (RFC 7523): `privateKey` (a CryptoKey or a private JWK), `keyId`,
    // `algorithm` ('ES256' by default, or 'RS256').
    let key = given(a.get(5));
    let client_key = key.as_ref().map(|_| ClientKey {
        alg: text(6)
            .as_deref()
            .and_then(JwsAlg::parse)
            .unwrap_or(JwsAlg::Es256),
        key_id: text(7),
    });
    if let (Some(key), Some(k)) = (key, &client_key) {
        h.private_key = Some((key, k.alg.as_str()));
    }
    cfg.auth = Some(crate::auth::AuthConfig {
        client_id: text(10),
        client_secret: text(11),
        client_issuer: text(12),
        client_metadata_url: text(13),
        redirect_uri: text(2).unwrap_or_default(),
        scope: text(14),
        client_name: client::client_name(text(8), &cfg.client_info),
        application_type: text(9),
        storage: storage.is_some(),
        client_credentials: a.get(0).as_bool() == Some(true),
        // OAuth across contexts (issue 13): a lock per authorization server and client.
        across_contexts: storage.is_some() && crate::web::auth_lock::available(),
        dpop,
        client_key,
    });
    h.on_authorize = func(a.get(1));
    h.storage = storage;
}

/// Per-call options and callbacks.
pub(super) struct CallOpts {
    pub opts: OpOptions,
    pub signal: Option<web_sys::AbortSignal>,
    pub on_progress: Option<Function>,
    pub on_status: Option<Function>,
}

/// Reads per-call options (`{ signal, timeoutMs, resetTimeoutOnProgress, maxTotalTimeoutMs,
/// taskTimeoutMs, onProgress, onTaskStatus | onStatus, cache, logLevel, _meta }`), as
/// `callOptions` checked them; `Err` is the `ConfigError` to reject with.
pub(super) fn call_options(o: &JsValue) -> Result<CallOpts, JsValue> {
    if o.is_undefined() {
        // No options object (the common call): nothing to read, no crossing.
        return Ok(CallOpts {
            opts: OpOptions::default(),
            signal: None,
            on_progress: None,
            on_status: None,
        });
    }
    let v = call_options_js(o)?;
    let mut opts = OpOptions {
        timeout_ms: number(v.get(0)),
        reset_timeout_on_progress: v.get(1).as_bool() == Some(true),
        max_total_timeout_ms: number(v.get(2)),
        task_timeout_ms: number(v.get(3)),
        log_level: v.get(4).as_string(),
        no_cache: v.get(5).as_bool() == Some(true),
        ..Default::default()
    };
    if let Some(text) = v.get(6).as_string() {
        match from_text(&text) {
            Ok(Value::Object(m)) => opts.meta = Some(m),
            Ok(_) => {}
            Err(e) => return Err(error_to_js(&e, JsValue::UNDEFINED)),
        }
    }
    let on_progress = func(v.get(8));
    opts.progress = on_progress.is_some();
    Ok(CallOpts {
        opts,
        signal: given(v.get(7)).map(JsCast::unchecked_into),
        on_progress,
        on_status: func(v.get(9)),
    })
}
