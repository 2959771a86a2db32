//! Reading the host's option objects (`new McpClient(url, options)` and per-call options).

use crate::auth::client;
use crate::engine::actions::OpOptions;
use crate::engine::config::{Config, ValidateOutput, VersionChoice};
use crate::error::Error;
use crate::json::{Map, Value};
use crate::protocol::requests;
use crate::protocol::TASKS_EXTENSION;
use crate::web::convert::from_js;
use js_sys::{Array, Function, Object, Reflect};
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

fn present(v: &JsValue) -> bool {
    !v.is_undefined() && !v.is_null()
}

fn func(obj: &JsValue, key: &str) -> Result<Option<Function>, Error> {
    let v = get(obj, key);
    if !present(&v) {
        return Ok(None);
    }
    v.dyn_into::<Function>()
        .map(Some)
        .map_err(|_| Error::config(format!("{key} must be a function")))
}

fn number(obj: &JsValue, key: &str) -> Result<Option<u64>, Error> {
    let v = get(obj, key);
    if !present(&v) {
        return Ok(None);
    }
    match v.as_f64() {
        Some(f) if f.is_finite() && f >= 0.0 => Ok(Some(f.min(u64::MAX as f64) as u64)),
        Some(f) if f == f64::INFINITY => Ok(Some(u64::MAX)),
        _ => Err(Error::config(format!(
            "{key} must be a non-negative number"
        ))),
    }
}

fn boolean(obj: &JsValue, key: &str) -> Result<Option<bool>, Error> {
    let v = get(obj, key);
    if !present(&v) {
        return Ok(None);
    }
    v.as_bool()
        .map(Some)
        .ok_or_else(|| Error::config(format!("{key} must be a boolean")))
}

fn string(obj: &JsValue, key: &str) -> Result<Option<String>, Error> {
    let v = get(obj, key);
    if !present(&v) {
        return Ok(None);
    }
    v.as_string()
        .map(Some)
        .ok_or_else(|| Error::config(format!("{key} must be a string")))
}

/// The readers above over one options object, keeping the first error and going on with
/// `None` after it. The host sees the same error as if each read returned at once (the
/// first in reading order), but the wasm has one place where what was read is dropped
/// instead of one per `?` (a ladder of drops that grew with every option read): -0.5 KB
/// gzip for `auth` alone (BENCHMARKS.md, the forty-sixth session). `client_options` keeps
/// its `?`s: with this reader there, the module measured no smaller gzipped.
struct Opts<'a> {
    v: &'a JsValue,
    first: Option<Error>,
}

impl Opts<'_> {
    fn keep<T>(&mut self, r: Result<Option<T>, Error>) -> Option<T> {
        r.unwrap_or_else(|e| {
            self.fail(e);
            None
        })
    }
    fn fail(&mut self, e: Error) {
        self.first.get_or_insert(e);
    }
    fn string(&mut self, key: &str) -> Option<String> {
        let r = string(self.v, key);
        self.keep(r)
    }
    fn func(&mut self, key: &str) -> Option<Function> {
        let r = func(self.v, key);
        self.keep(r)
    }
    fn number(&mut self, key: &str) -> Option<u64> {
        let r = number(self.v, key);
        self.keep(r)
    }
    fn boolean(&mut self, key: &str) -> Option<bool> {
        let r = boolean(self.v, key);
        self.keep(r)
    }
    /// `Err` with the first error, if any.
    fn end(self) -> Result<(), Error> {
        self.first.map_or(Ok(()), Err)
    }
}

/// `headers`: a plain object, a `Headers`, or an array of `[name, value]` pairs.
#[inline(never)]
fn headers(v: &JsValue) -> Result<Vec<(String, String)>, Error> {
    if !present(v) {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    let entries: Array = if Array::is_array(v) {
        v.clone().unchecked_into()
    } else if let Ok(it) =
        Reflect::get(v, &JsValue::from_str("entries")).and_then(|f| f.dyn_into::<Function>())
    {
        // Headers (and Map): iterate entries().
        let iter = it
            .call0(v)
            .map_err(|_| Error::config("headers.entries() failed"))?;
        Array::from(&iter)
    } else if v.is_object() {
        Object::entries(v.unchecked_ref())
    } else {
        return Err(Error::config(
            "headers must be an object, a Headers or an array of pairs",
        ));
    };
    for pair in entries.iter() {
        let pair: Array = pair
            .dyn_into()
            .map_err(|_| Error::config("headers entries must be [name, value] pairs"))?;
        let name = pair
            .get(0)
            .as_string()
            .ok_or_else(|| Error::config("header names must be strings"))?;
        let value = pair
            .get(1)
            .as_string()
            .ok_or_else(|| Error::config(format!("header {name} must have a string value")))?;
        out.push((name, value));
    }
    Ok(out)
}

/// `extensions`: an array of identifiers, or an object `{ id: settings }`.
#[inline(never)]
fn extensions(v: &JsValue) -> Result<Map, Error> {
    if !present(v) {
        return Ok(Map::new());
    }
    if Array::is_array(v) {
        return requests::extension_ids(Array::from(v).iter().map(|id| id.as_string()));
    }
    requests::extension_settings(from_js(v)?)
}

/// Reads `new McpClient(url, options)`.
pub(super) fn client_options(url: String, o: &JsValue) -> Result<(Config, Handlers), Error> {
    let mut cfg = Config::new(url);
    let mut h = Handlers::default();
    // The option groups a host seldom gives are read out of line, and only when given:
    // Chromium compiles a wasm function whole on its first call, so code inlined here is
    // compiled at every page's first `new McpClient()` (BENCHMARKS.md, target 5).
    let info = get(o, "clientInfo");
    if present(&info) {
        client_info(&info, &mut cfg)?;
    }
    match string(o, "protocolVersion")?.as_deref() {
        None | Some("auto") => cfg.version = VersionChoice::Auto,
        Some(v) => cfg.version = VersionChoice::Pinned(v.to_string()),
    }
    let hs = get(o, "headers");
    if present(&hs) {
        cfg.headers = headers(&hs)?;
    }
    let ext = get(o, "extensions");
    if present(&ext) {
        cfg.extensions = extensions(&ext)?;
    }
    if let Some(ms) = number(o, "requestTimeoutMs")? {
        cfg.request_timeout_ms = ms;
    }
    cfg.max_total_timeout_ms = number(o, "maxTotalTimeoutMs")?;
    // `Infinity` (read as u64::MAX) pauses polling while hidden (issue 13).
    if let Some(ms) = number(o, "hiddenPollIntervalMs")? {
        cfg.hidden_poll_interval_ms = (ms != u64::MAX).then_some(ms);
    }
    cfg.log_level = string(o, "logLevel")?;
    cfg.validate_output = match string(o, "validateOutput")?.as_deref() {
        None | Some("strict") => ValidateOutput::Strict,
        Some("warn") => ValidateOutput::Warn,
        Some("off") => ValidateOutput::Off,
        Some(_) => {
            return Err(Error::config(
                "validateOutput must be 'strict', 'warn' or 'off'",
            ))
        }
    };
    h.fetch = func(o, "fetch")?;
    h.on_log = func(o, "onLog")?;
    h.on_notification = func(o, "onNotification")?;
    h.on_warning = func(o, "onWarning")?;
    crate::web::store::read_options(o, &mut cfg, &mut h)?;
    h.on_elicitation = func(o, "onElicitation")?;
    h.on_sampling = func(o, "onSampling")?;
    // The engine decides what the handlers and the options they name declare; the
    // options' values are read only when there is a handler to use them.
    let elic = get(o, "elicitation");
    let handler = h.on_elicitation.is_some();
    let modes = named(&elic, ["form", "url"], handler)?;
    cfg.set_elicitation(handler, modes)?;
    let samp = get(o, "sampling");
    let handler = h.on_sampling.is_some();
    let options = named(&samp, ["tools", "context"], handler)?;
    cfg.set_sampling(handler, options)?;
    let roots = get(o, "roots");
    if present(&roots) {
        if !(Array::is_array(&roots) || roots.is_function()) {
            return Err(Error::config("roots must be an array or a function"));
        }
        cfg.roots = true;
        h.roots = Some(roots);
    }
    if let Some(n) = number(o, "maxInputRounds")? {
        cfg.limits.max_input_rounds = n.min(u32::MAX as u64) as u32;
    }
    let limits = get(o, "limits");
    if present(&limits) {
        read_limits(&limits, &mut cfg)?;
    }
    let auth = get(o, "auth");
    if present(&auth) {
        read_auth(&auth, &mut cfg, &mut h)?;
    }
    // Issue 13: one poller and one dialog per task across the origin's contexts. Only a
    // client that declares the tasks extension has tasks (both eras' tasks need it): without
    // it there is nothing to coordinate, and no channel or lock is opened (issue 14: that
    // set-up was ~1.7 ms of a cold constructor in Chromium).
    cfg.coordinated = match string(o, "coordination")?.as_deref() {
        None | Some("auto") => cfg.tasks_enabled() && crate::web::peers::available(),
        Some("none") => false,
        Some(_) => return Err(Error::config("coordination must be 'auto' or 'none'")),
    };
    // Issue 14: push-driven tasks over one shared listen stream (`engine::task::push`),
    // the default.
    let push = get(o, "pushTasks");
    cfg.push_tasks = if !present(&push) || push.as_string().as_deref() == Some("auto") {
        true
    } else if push.as_bool() == Some(false) {
        false
    } else {
        return Err(Error::config("pushTasks must be 'auto' or false"));
    };
    let _ = TASKS_EXTENSION;
    cfg.validate()?;
    Ok((cfg, h))
}

/// `clientInfo` (out of line: see `client_options`).
#[inline(never)]
fn client_info(v: &JsValue, cfg: &mut Config) -> Result<(), Error> {
    if let Some(Value::Object(info)) = from_js(v)? {
        cfg.client_info = requests::client_info(info)?;
    }
    Ok(())
}

/// `limits` (out of line: see `client_options`).
#[inline(never)]
fn read_limits(limits: &JsValue, cfg: &mut Config) -> Result<(), Error> {
    // A misspelt limit would otherwise be ignored silently.
    let Some(Value::Object(names)) = from_js(limits)? else {
        return Err(Error::config("limits must be an object"));
    };
    if names.keys().any(|k| !LIMIT_NAMES.contains(&k.as_str())) {
        return Err(Error::config(concat!(
            "limits has a name that is not a limit (the limits are maxEventBytes, ",
            "maxBodyBytes, maxConcurrentInputs, maxInputRequests, listenMaxRetries, ",
            "listenBackoffMs, listenMaxBackoffMs, listenAckTimeoutMs)"
        )));
    }
    // On wasm32 a usize has 32 bits: a larger limit saturates instead of wrapping
    // (2^32 bytes must not become 0).
    let size = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    let mut r = Opts {
        v: limits,
        first: None,
    };
    let l = &mut cfg.limits;
    if let Some(n) = r.number("maxEventBytes") {
        l.max_event_bytes = size(n);
    }
    if let Some(n) = r.number("maxBodyBytes") {
        l.max_body_bytes = size(n);
    }
    if let Some(n) = r.number("maxConcurrentInputs") {
        l.max_concurrent_inputs = size(n);
    }
    if let Some(n) = r.number("maxInputRequests") {
        l.max_input_requests = size(n);
    }
    if let Some(n) = r.number("listenMaxRetries") {
        l.listen_max_retries = n.min(u32::MAX as u64) as u32;
    }
    if let Some(n) = r.number("listenBackoffMs") {
        l.listen_backoff_ms = n;
    }
    if let Some(n) = r.number("listenMaxBackoffMs") {
        l.listen_max_backoff_ms = n;
    }
    if let Some(n) = r.number("listenAckTimeoutMs") {
        l.listen_ack_timeout_ms = n;
    }
    r.end()
}

/// `auth` (out of line: see `client_options`).
#[inline(never)]
fn read_auth(auth: &JsValue, cfg: &mut Config, h: &mut Handlers) -> Result<(), Error> {
    let (a, on_authorize, storage) = auth_options(auth, cfg)?;
    let key = get(auth, "privateKey");
    if let Some(k) = a.client_key.as_ref().filter(|_| present(&key)) {
        h.private_key = Some((key, k.alg.as_str()));
    }
    cfg.auth = Some(a);
    h.on_authorize = on_authorize;
    h.storage = storage;
    Ok(())
}

/// The booleans `keys` of option object `v` (`None` when the host gave no object); read
/// only when `read` (otherwise each is `None`).
fn named<const N: usize>(
    v: &JsValue,
    keys: [&str; N],
    read: bool,
) -> Result<Option<[Option<bool>; N]>, Error> {
    if !present(v) {
        return Ok(None);
    }
    let mut out = [None; N];
    if read {
        for (o, k) in out.iter_mut().zip(keys) {
            *o = boolean(v, k)?;
        }
    }
    Ok(Some(out))
}

/// Reads `auth: { grant?, clientId?, clientSecret?, issuer?, clientMetadataUrl?, redirectUri,
/// scope?, clientName?, applicationType?, onAuthorize, storage? }` (checked further by the
/// engine). With `grant: 'client_credentials'` there is no person: no `redirectUri`, no
/// `onAuthorize`.
fn auth_options(
    a: &JsValue,
    cfg: &Config,
) -> Result<(crate::auth::AuthConfig, Option<Function>, Option<JsValue>), Error> {
    if !a.is_object() {
        return Err(Error::config("auth must be an object"));
    }
    let mut o = Opts { v: a, first: None };
    // Any other `grant` is refused below: it lacks what the authorization code grant needs.
    let client_credentials = o.string("grant").is_some_and(|g| g == "client_credentials");
    let on_authorize = o.func("onAuthorize");
    let redirect_uri = o.string("redirectUri");
    if !client_credentials && (on_authorize.is_none() || redirect_uri.is_none()) {
        o.fail(Error::config(
            "auth needs redirectUri and onAuthorize (the person's step), or grant: 'client_credentials'",
        ));
    }
    let redirect_uri = redirect_uri.unwrap_or_default();
    let storage = get(a, "storage");
    let storage = if present(&storage) {
        for m in ["get", "set"] {
            if let Err(e) = func(&storage, m).and_then(|f| {
                f.ok_or_else(|| Error::config(format!("auth.storage.{m} must be a function")))
            }) {
                o.fail(e);
            }
        }
        Some(storage)
    } else {
        None
    };
    // DPoP (issue 16): 'auto' (default), true, false.
    let dpop = get(a, "dpop");
    let dpop = if !present(&dpop) || dpop.as_string().as_deref() == Some("auto") {
        crate::auth::dpop::DpopMode::Auto
    } else {
        match dpop.as_bool() {
            Some(true) => crate::auth::dpop::DpopMode::Required,
            Some(false) => crate::auth::dpop::DpopMode::Off,
            None => {
                o.fail(Error::config("auth.dpop must be true, false or 'auto'"));
                crate::auth::dpop::DpopMode::Auto
            }
        }
    };
    // private_key_jwt (RFC 7523): `privateKey` (a CryptoKey or a private JWK), `keyId`,
    // `algorithm` ('ES256' by default, or 'RS256').
    let key = get(a, "privateKey");
    let client_key = if present(&key) {
        if !key.is_object() {
            o.fail(Error::config(
                "auth.privateKey must be a CryptoKey or a private JWK object",
            ));
        }
        let alg = match o.string("algorithm").as_deref() {
            None => crate::auth::dpop::JwsAlg::Es256,
            Some(s) => crate::auth::dpop::JwsAlg::parse(s).unwrap_or_else(|| {
                o.fail(Error::config("auth.algorithm must be 'ES256' or 'RS256'"));
                crate::auth::dpop::JwsAlg::Es256
            }),
        };
        Some(crate::auth::dpop::ClientKey {
            alg,
            key_id: o.string("keyId"),
        })
    } else {
        None
    };
    let client_name = client::client_name(o.string("clientName"), &cfg.client_info);
    let application_type = client::application_type(o.string("applicationType"));
    let application_type = o.keep(application_type.map(Some)).flatten();
    let auth = crate::auth::AuthConfig {
        client_id: o.string("clientId"),
        client_secret: o.string("clientSecret"),
        client_issuer: o.string("issuer"),
        client_metadata_url: o.string("clientMetadataUrl"),
        redirect_uri,
        scope: o.string("scope"),
        client_name,
        application_type,
        storage: storage.is_some(),
        client_credentials,
        // OAuth across contexts (issue 13): a lock per authorization server and client.
        across_contexts: storage.is_some() && crate::web::auth_lock::available(),
        dpop,
        client_key,
    };
    o.end()?;
    Ok((auth, on_authorize, storage))
}

/// Per-call options and callbacks.
pub(super) struct CallOpts {
    pub opts: OpOptions,
    pub signal: Option<web_sys::AbortSignal>,
    pub on_progress: Option<Function>,
    pub on_status: Option<Function>,
}

/// The names `limits` accepts (README "Limits").
const LIMIT_NAMES: [&str; 8] = [
    "maxEventBytes",
    "maxBodyBytes",
    "maxConcurrentInputs",
    "maxInputRequests",
    "listenMaxRetries",
    "listenBackoffMs",
    "listenMaxBackoffMs",
    "listenAckTimeoutMs",
];

/// Reads per-call options (`{ signal, timeoutMs, resetTimeoutOnProgress, maxTotalTimeoutMs,
/// taskTimeoutMs, onProgress, onTaskStatus | onStatus, cache, logLevel, _meta }`).
pub(super) fn call_options(o: &JsValue) -> Result<CallOpts, Error> {
    if o.is_undefined() {
        // No options object (the common call): nothing to read, no crossing per name.
        return Ok(CallOpts {
            opts: OpOptions::default(),
            signal: None,
            on_progress: None,
            on_status: None,
        });
    }
    let mut r = Opts { v: o, first: None };
    let mut opts = OpOptions {
        timeout_ms: r.number("timeoutMs"),
        ..Default::default()
    };
    opts.reset_timeout_on_progress = r.boolean("resetTimeoutOnProgress").unwrap_or(false);
    opts.max_total_timeout_ms = r.number("maxTotalTimeoutMs");
    opts.task_timeout_ms = r.number("taskTimeoutMs");
    opts.log_level = r.string("logLevel");
    if let Some(l) = &opts.log_level {
        if !crate::engine::config::LOG_LEVELS.contains(&l.as_str()) {
            r.fail(Error::config("logLevel is not a logging level"));
        }
    }
    match r.string("cache").as_deref() {
        None | Some("default") => {}
        Some("no-cache") => opts.no_cache = true,
        Some(_) => r.fail(Error::config("cache must be 'default' or 'no-cache'")),
    }
    match r.keep(from_js(&get(o, "_meta"))) {
        None | Some(Value::Null) => {}
        Some(Value::Object(m)) => opts.meta = Some(m),
        Some(_) => r.fail(Error::config("_meta must be an object")),
    }
    let signal = get(o, "signal");
    let signal = if present(&signal) {
        signal
            .dyn_into::<web_sys::AbortSignal>()
            .map_err(|_| r.fail(Error::config("signal must be an AbortSignal")))
            .ok()
    } else {
        None
    };
    let on_progress = r.func("onProgress");
    opts.progress = on_progress.is_some();
    let on_status = match r.func("onTaskStatus") {
        Some(f) => Some(f),
        None => r.func("onStatus"),
    };
    r.end()?;
    Ok(CallOpts {
        opts,
        signal,
        on_progress,
        on_status,
    })
}
