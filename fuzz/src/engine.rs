//! `engine`: the whole client engine (`engine::Core`) driven by a fuzzer-written script.
//!
//! The script plays host, network and clock at once: it starts operations (every public
//! start method, with fuzzer-chosen options), answers the requests the engine sends
//! (status, content type, session id, `Retry-After`, body chunks, end, network failure),
//! answers the host asks (elicitation, sampling, roots) with arbitrary JSON or a handler
//! error, moves the clock, aborts operations, and finally closes the client.
//!
//! Bodies are fuzzer bytes in which `$ID` becomes the JSON-RPC id of the request being
//! answered (or, on a stream that carries none, of the latest request sent), `$PREV` the
//! id of the latest request sent, and `$PT` the request's progress token, so that the
//! fuzzer reaches deep states (MRTR rounds, tasks, subscriptions, legacy sessions)
//! instead of stopping at "unknown id".
//!
//! Script: `[config] [config2] [config3 when config2 & 3 == 3] (opcode args...)*`; see
//! [`run`]. Steps are capped at [`MAX_STEPS`].
//!
//! The inputs of issue 13 (the task store's records, visibility, network, OAuth across
//! contexts) came after inputs had been saved (seeds, regressions, corpora), whose opcode
//! is `byte % 12`: new opcodes in that mapping would change what every saved input does.
//! So they are behind a configuration value no saved input used for anything of its own:
//! `config2 & 3 == 3` meant strict output validation, exactly like `0`. With it, a third
//! configuration byte follows (output validation, `persist_tasks`, `store_answers`,
//! `hidden_poll_interval_ms`, OAuth across contexts) and opcodes are `byte % 17`: 0–11 as
//! before, 12–16 the new ones. Every committed seed and regression input has
//! `config2 & 3 != 3` and runs exactly as before.
//!
//! Coordination across contexts (issue 13, `engine::task::peers`) came after that, the
//! same way: under the extension, `config3 & 0xC0 == 0x80` (client credentials without
//! OAuth, which meant no OAuth at all; no saved input has it) turns `Config::coordinated`
//! on, and a fourth configuration byte follows: bit 0 OAuth across contexts as well (bit
//! 1 its client credentials), bit 2 task locks granted as soon as asked (as when no other
//! context waits), bit 3 this context visible at start. `Core::peer_setup` runs first,
//! and opcodes are `byte % 20`: 0–16 as with the extension, 17–19 the new ones (see
//! [`run`]). The script also plays the shell's two primitives (`engine_peers.rs`): a fake
//! Web Locks manager (a lock is pending until the script grants it, or granted at once;
//! `Unlock` releases or withdraws it) and the other contexts of the origin (`ctx-a`,
//! `ctx-b`, `ctx-c` and made-up ones), whose messages are templates with fuzzer fields or
//! the engine's own latest message of a type replayed with `from`, `task` or `v` changed,
//! so that the fuzzer reaches leader and follower states, takeovers and forwarded answers.
//!
//! Properties:
//! - never panics, never loops (libFuzzer `-timeout`), bounded work per event;
//! - no busy loop: right after `on_timer(now)`, `next_deadline()` is `None` or later
//!   than `now` (the driver would otherwise be woken again at once, forever);
//! - every request sent is well-formed: JSON body, token header names, header values
//!   without CR, LF or NUL and made of bytes (code points <= U+00FF: `fetch` refuses
//!   anything else);
//! - every operation ends exactly once (at the latest at `close()`); results handed to
//!   the host are JSON; errors and warnings are sanitized;
//! - after `close()`: every operation the host started has ended, and the engine winds
//!   down (no timers left, nothing in flight, nothing sent but the session's `DELETE`,
//!   `tasks/cancel` for aborted task calls and legacy `notifications/cancelled`) once
//!   its last requests fail, and nothing is left in its books (`Core::busy` is empty);
//! - task store (issue 13): every `StoreTask` is a JSON object with `"v": 1` under
//!   `Core::task_store_prefix()`, carries no `pending` answers without `store_answers`,
//!   none at all without `persist_tasks`, and restored into a fresh client it is taken (or
//!   skipped only as expired or finished); a `ForgetTask` key is under the prefix; a
//!   skipped restore's reason is sanitized;
//! - offline (issue 13): no `tasks/get` or `tasks/update` is sent unless the host's own
//!   `get_task`/`update_task` operation is open;
//! - OAuth across contexts (issue 13): at most one lock asked for or held at a time (Web
//!   Locks are not reentrant); every `Lock` gets exactly one `Unlock` with its id, whether
//!   it was granted or still awaited (a lock never granted is abandoned by that `Unlock`,
//!   never by `CancelAuth`), at the latest at `close()`; no `Unlock` of anything else; an
//!   `Announce` names a key saved before;
//! - coordination across contexts (issue 13): other contexts' messages and lock grants
//!   never panic; every posted text is a JSON object with `"v": 1`, a known `t`, a string
//!   `task` and `from` equal to this context's id; no lock asked for while this context
//!   asks for or holds it already (the shell ignores it: it would never be granted), and no
//!   lock asked for nor anything but `bye` posted after `close()`; every `Unlock` names a
//!   lock asked for (granted or pending; exactly one `Unlock` per `Lock`), and at the end
//!   of the wind-down every lock is released but this context's own (held for its life,
//!   released by the shell's `close()`); a follower (the task's lock asked for and not
//!   granted) sends no `tasks/get` and no `tasks/update` of that task, and with
//!   2026-07-28 pinned a `tasks/get` goes out only while this context holds that task's
//!   lock, unless the host's own `get_task`/`update_task` of that task is open (legacy
//!   drivers do not coordinate); after every event the other contexts' locks it waits
//!   for are at most `MAX_OTHERS` (64) per task it leads, however many contexts say
//!   hello. A grant the shell never gives (a name of ours not asked for, or granted
//!   twice) leaves the lock rules unchecked for the rest of the script (the engine may
//!   release what it never asked for); the rest still holds.

#[path = "engine_peers.rs"]
mod peers;

use crate::oracle::{serde_value, serde_value_bytes};
use crate::util::{check_error, is_json_text, is_unsafe_char, Reader};
use mcp_wasm_client::engine::{
    Action, Ask, AskId, AuthAction, AuthConfig, AuthInput, AuthStepId, Config, Core,
    ElicitationModes, Listing, OpId, OpOptions, Output, Purpose, ResponseHead, RestoreSkip,
    SamplingSupport, TaskRef, TaskView, ToolArguments, ValidateOutput, VersionChoice, Want,
};
use mcp_wasm_client::error::Error;
use mcp_wasm_client::http::encoding::is_token;
use mcp_wasm_client::json;
use mcp_wasm_client::json::RawJson;
use mcp_wasm_client::json::{Map, Value};
use mcp_wasm_client::protocol::tasks::{Task, TaskStatus};
use mcp_wasm_client::protocol::TASKS_EXTENSION;
use std::collections::HashSet;

/// Script steps at most per input.
pub const MAX_STEPS: usize = 256;
/// Actions one event may produce at most.
const MAX_ACTIONS_PER_EVENT: usize = 10_000;
/// Rounds of "fail every request, move to the next deadline" after `close()`.
const WIND_DOWN_ROUNDS: usize = 64;

const START: u64 = 1_764_066_600_000;

/// What `request` is asked for; the last one is not a single request (refused).
const PURPOSES: [Purpose; 8] = [
    Purpose::ToolsList,
    Purpose::PromptsList,
    Purpose::ResourcesList,
    Purpose::ResourceTemplatesList,
    Purpose::Read,
    Purpose::Prompt,
    Purpose::Complete,
    Purpose::CallTool,
];
const LISTINGS: [Listing; 4] = [
    Listing::Tools,
    Listing::Prompts,
    Listing::Resources,
    Listing::ResourceTemplates,
];
const TOOLS: [&str; 4] = ["echo", "weather", "t\u{e9}l\u{e9}", "slow"];
const TASK_IDS: [&str; 3] = ["task-123", "t2", "786512e2-9e0d-44bd-8f29-789f320fe840"];
const STATUSES: [u16; 16] = [
    200, 200, 200, 202, 204, 400, 401, 404, 405, 408, 429, 500, 502, 503, 301, 0,
];
const CONTENT_TYPES: [Option<&str>; 8] = [
    Some("application/json"),
    Some("text/event-stream"),
    Some("application/json; charset=utf-8"),
    Some("text/event-stream; charset=utf-8"),
    Some("text/html"),
    None,
    Some("application/problem+json"),
    Some("TEXT/EVENT-STREAM"),
];
const ADVANCE: [u64; 12] = [
    0,
    1,
    5,
    50,
    250,
    1_000,
    5_000,
    30_000,
    60_000,
    600_000,
    86_400_000,
    1 << 40,
];
const ANSWERS: [&str; 8] = [
    r#"{"action":"accept","content":{}}"#,
    r#"{"action":"decline"}"#,
    r#"{"action":"cancel"}"#,
    r#"{"action":"accept","content":{"name":"x","n":3,"ok":true}}"#,
    r#"{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}"#,
    r#"{"roots":[{"uri":"file:///tmp","name":"tmp"}]}"#,
    r#"[{"uri":"file:///a"}]"#,
    r#"{"action":"accept"}"#,
];

/// A request the engine sent and the script may still answer.
struct Exchange {
    xfer: u64,
    /// The JSON-RPC id of the body, if it is a request.
    id: Option<Value>,
    progress_token: Option<Value>,
}

struct Driver {
    core: Core,
    now: u64,
    open: Vec<Exchange>,
    /// Requests sent on the direct path and not yet ended: exchange, operation.
    direct: Vec<(u64, OpId)>,
    last_id: Value,
    asks: Vec<AskId>,
    started: HashSet<OpId>,
    done: HashSet<OpId>,
    closed: bool,
    /// Sends after `close()`, by JSON-RPC method (HTTP method when there is no body).
    sent_after_close: Vec<String>,
    /// The configuration, for the fresh `Core` a written record is restored into.
    cfg: Config,
    /// `Core::task_store_prefix()`.
    prefix: String,
    /// The latest records the engine wrote (`StoreTask`), by key (at most [`MAX_RECORDS`]).
    records: Vec<(String, Value)>,
    /// What `set_online` last said.
    online: bool,
    /// `get_task` / `update_task` operations the host started, with their task id (they
    /// send `tasks/get` and `tasks/update` on the host's word, offline or not, led or not).
    host_task_ops: Vec<(OpId, String)>,
    /// The host steps of the OAuth flow waiting for an answer.
    auth_steps: Vec<(AuthStepId, AuthStep)>,
    /// The lock asked for (`AuthAction::Lock`) and not yet released.
    lock: Option<AuthStepId>,
    /// Every lock asked for, and every lock released.
    locks: HashSet<AuthStepId>,
    unlocks: HashSet<AuthStepId>,
    /// Storage keys the flow read or wrote (what a notice may name).
    auth_keys: Vec<String>,
    /// Keys saved, for `Announce`.
    saved: HashSet<String>,
    /// Coordination across contexts: the fake lock manager and the other contexts.
    peers: Option<peers::Peers>,
}

/// A host step of the OAuth flow (`AuthAction`) the script may answer.
enum AuthStep {
    Random(usize),
    Authorize { url: String, redirect: String },
    Load,
    Lock,
    Key,
    Sign,
}

/// Records of the engine kept for the script to restore.
const MAX_RECORDS: usize = 8;

/// `MCP_FUZZ_TRACE=1`: print what the engine does (to see where a seed or a crash goes).
fn trace() -> bool {
    static T: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *T.get_or_init(|| std::env::var_os("MCP_FUZZ_TRACE").is_some())
}

fn header_value_ok(v: &str) -> bool {
    // fetch's Headers: a ByteString without NUL, CR or LF.
    v.chars()
        .all(|c| (c as u32) <= 0xFF && !matches!(c, '\0' | '\r' | '\n'))
}

impl Driver {
    /// Drains the engine's actions, checking each.
    fn pump(&mut self) {
        let mut n = 0;
        while let Some(a) = self.core.poll_action() {
            n += 1;
            assert!(
                n <= MAX_ACTIONS_PER_EVENT,
                "unbounded actions for one event"
            );
            self.perform(a);
        }
        if let Some(p) = &self.peers {
            p.check_bounds();
        }
        self.peer_grants();
    }

    /// Performs (checks and records) one of the engine's actions.
    fn perform(&mut self, a: Action) {
        if trace() {
            match &a {
                Action::Send(req) => eprintln!(
                    "  send #{} {} {} {}",
                    req.id,
                    req.method.as_str(),
                    req.url,
                    req.body_text().unwrap_or("")
                ),
                other => eprintln!("  {other:?}"),
            }
        }
        match a {
            Action::Send(req) => {
                for (name, value) in &req.headers {
                    assert!(is_token(name), "bad header name {name:?}");
                    assert!(header_value_ok(value), "bad header {name}: {value:?}");
                }
                assert!(!req.url.chars().any(|c| c.is_control() || c == ' '));
                // The OAuth flow's token and registration requests are forms or JSON
                // sent to other servers; every other body is JSON.
                let form = req.headers.iter().any(|(n, v)| {
                    n.eq_ignore_ascii_case("content-type")
                        && v.starts_with("application/x-www-form-urlencoded")
                });
                assert!(!form || self.cfg.auth.is_some(), "a form without OAuth");
                let body: Option<Value> = req.body.as_deref().filter(|_| !form).map(|b| {
                    // UTF-8 (the body is bytes since the request stopped being checked
                    // as a `String`), and valid JSON.
                    let b = std::str::from_utf8(b)
                        .unwrap_or_else(|e| panic!("body not UTF-8: {e}: {b:?}"));
                    // A tool's arguments are sent as the host wrote them, so
                    // a number beyond f64 (valid JSON a `Value` cannot hold) may be in
                    // one: such a body is checked as JSON text only (it is a tools/call,
                    // which the checks below do not concern).
                    serde_json::from_str::<&serde_json::value::RawValue>(b)
                        .unwrap_or_else(|e| panic!("body not JSON: {e}: {b}"));
                    serde_value(b).unwrap_or(Value::Null)
                });
                let method = body
                    .as_ref()
                    .and_then(|b| b.get("method"))
                    .and_then(Value::as_str);
                // Offline nothing is polled and no answer goes out (issue 13): only an
                // operation of the host's own may send these.
                if !self.online && matches!(method, Some("tasks/get" | "tasks/update")) {
                    assert!(
                        self.host_task_ops
                            .iter()
                            .any(|(op, _)| !self.done.contains(op)),
                        "{method:?} sent while offline"
                    );
                }
                // Coordinated: a follower sends neither; only the leader polls.
                if let (Some(p), Some(m @ ("tasks/get" | "tasks/update"))) = (&self.peers, method) {
                    let task = body
                        .as_ref()
                        .and_then(|b| b.pointer("/params/taskId"))
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    let host = self
                        .host_task_ops
                        .iter()
                        .any(|(op, t)| t == task && !self.done.contains(op));
                    let modern = self.cfg.version == VersionChoice::Pinned("2026-07-28".into());
                    p.check_send(m, task, host, modern);
                }
                if self.closed {
                    let what = body
                        .as_ref()
                        .and_then(|b| b.get("method"))
                        .and_then(Value::as_str)
                        .unwrap_or(req.method.as_str());
                    self.sent_after_close.push(what.to_string());
                }
                let id = body
                    .as_ref()
                    .and_then(|b| b.get("method").and(b.get("id")))
                    .cloned();
                if let Some(i) = &id {
                    self.last_id = i.clone();
                }
                let progress_token = body
                    .as_ref()
                    .and_then(|b| b.pointer("/params/_meta/progressToken"))
                    .cloned();
                self.open.push(Exchange {
                    xfer: req.id,
                    id,
                    progress_token,
                });
            }
            Action::Cancel(x) => self.open.retain(|e| e.xfer != x),
            Action::Ask(Ask { id, key, .. }) => {
                if let Some(p) = self.peers.as_mut() {
                    p.asked(&key);
                }
                self.asks.push(id);
            }
            Action::CancelAsk(_) => {}
            Action::CancelAuth(id) => {
                // A lock still awaited is abandoned with `Unlock`, never withdrawn.
                assert_ne!(Some(id), self.lock, "CancelAuth of the lock {id}");
                self.auth_steps.retain(|(s, _)| *s != id);
            }
            Action::StoreTask { key, value } => self.stored(key, value),
            Action::ForgetTask { key } => {
                assert!(key.starts_with(&self.prefix), "ForgetTask {key:?}");
            }
            Action::Auth(a) => self.auth_action(a),
            Action::Peer(a) => match self.peers.as_mut() {
                Some(p) => p.action(a, self.closed),
                None => panic!("peer action without coordination: {a:?}"),
            },
            Action::Progress { .. } | Action::Log { .. } | Action::Notify { .. } => {}
            Action::TaskStatus { task, .. } => check_view(&task),
            Action::Subscription { .. } => {}
            Action::Warn { message } => {
                assert!(!message.chars().any(is_unsafe_char), "warning {message:?}");
            }
            Action::Done { op, outcome } => {
                // Ops the engine starts itself (the `tasks/cancel` after aborting a
                // task-backed call) end too; the shell drops those. Any op ends once.
                assert!(self.done.insert(op), "op {op} ended twice");
                match outcome {
                    Ok(Output::Raw(r)) => {
                        assert!(is_json_text(r.get()));
                    }
                    Ok(Output::Task(t)) => check_view(&t),
                    Ok(_) => {}
                    Err(e) => check_error(&e),
                }
            }
        }
    }

    /// What the web driver does: when the deadline has come, `on_timer(now)`.
    fn timers(&mut self) {
        if self.core.next_deadline().is_some_and(|d| d <= self.now) {
            self.core.on_timer(self.now);
            self.pump();
            if let Some(d) = self.core.next_deadline() {
                assert!(
                    d > self.now,
                    "deadline {d} still due after on_timer({})",
                    self.now
                );
            }
        }
    }

    fn started(&mut self, op: OpId) {
        // Ids are fresh: an op id is never reused.
        assert!(self.started.insert(op), "op id {op} reused");
        // The web shell's direct path (src/web/client.rs `run_boxed`): a plain call's
        // request, when it is the only action, is taken out and sent by itself.
        if let Some(req) = self.core.take_plain_send(op) {
            self.direct.push((req.id, op));
            self.perform(Action::Send(req));
        }
        self.pump();
    }

    fn pick_exchange(&mut self, r: &mut Reader) -> Option<usize> {
        if self.open.is_empty() {
            return None;
        }
        let b = r.u8() as usize;
        // 0 = the latest (the common case: answer what was just sent).
        Some(if b == 0 {
            self.open.len() - 1
        } else {
            b % self.open.len()
        })
    }

    fn position(&self, xfer: u64) -> Option<usize> {
        self.open.iter().position(|e| e.xfer == xfer)
    }

    fn substitute(&self, ex: &Exchange, body: &[u8]) -> Vec<u8> {
        let text = String::from_utf8_lossy(body);
        if !text.contains('$') {
            return body.to_vec();
        }
        let own = ex.id.clone().unwrap_or_else(|| self.last_id.clone());
        let pt = ex.progress_token.clone().unwrap_or(Value::Null);
        text.replace("$ID", &own.to_string())
            .replace("$PREV", &self.last_id.to_string())
            .replace("$PT", &pt.to_string())
            .into_bytes()
    }

    fn head(&mut self, i: usize, r: &mut Reader) {
        let xfer = self.open[i].xfer;
        let flags = r.u8();
        let status = if flags & 0x80 != 0 {
            r.u16()
        } else {
            *r.pick(&STATUSES)
        };
        let ct = *r.pick(&CONTENT_TYPES);
        let sid = match (flags >> 2) & 3 {
            1 => Some("sess-1".to_string()),
            2 => Some(String::from_utf8_lossy(r.blob()).into_owned()),
            _ => None,
        };
        let retry = match (flags >> 4) & 3 {
            1 => Some("0".to_string()),
            2 => Some((r.u8() as u32).to_string()),
            3 => Some(String::from_utf8_lossy(r.blob()).into_owned()),
            _ => None,
        };
        // Bit 6: a WWW-Authenticate header (the engine reads it on 401/403; no OAuth is
        // configured here, so it must end the call with a typed error, nothing more).
        let www = (flags & 0x40 != 0).then(|| String::from_utf8_lossy(r.blob()).into_owned());
        self.core.on_head(
            xfer,
            ResponseHead {
                status,
                content_type: ct,
                session_id: sid.as_deref(),
                retry_after: retry.as_deref(),
                www_authenticate: www.as_deref(),
                dpop_nonce: None,
            },
            self.now,
        );
        self.pump();
    }

    /// A 200 head with content type `ct` for exchange `xfer` (the well-formed answers).
    fn ok_head(&mut self, xfer: u64, ct: &'static str) {
        self.core.on_head(
            xfer,
            ResponseHead {
                status: 200,
                content_type: Some(ct),
                ..Default::default()
            },
            self.now,
        );
        self.pump();
    }

    /// A whole 200 `application/json` answer for exchange `xfer`, as the shell hands over a
    /// plain JSON answer: head, body and end in one call (`Core::on_answer`).
    fn whole(&mut self, xfer: u64, bytes: &[u8]) {
        let body = match self.position(xfer) {
            Some(i) => {
                let ex = self.open.remove(i);
                self.substitute(&ex, bytes)
            }
            None => bytes.to_vec(),
        };
        let direct = self.undirect(xfer);
        // The direct path's answer read by the runner (src/web/js/bodies.js `readAnswer`,
        // src/web/fetch.rs the `done` closure): the runner hands the result it read to
        // the host when the engine takes the answer as the call's end.
        if let Some(op) = direct {
            if let Some((id, text)) = read_answer(&body) {
                if self.core.on_result_read(xfer, op, id, body.len()) {
                    let raw = RawJson::from_string(text).expect("read as JSON");
                    self.perform(Action::Done {
                        op,
                        outcome: Ok(Output::Raw(raw)),
                    });
                    self.pump();
                    return;
                }
            }
        }
        let head = ResponseHead {
            status: 200,
            content_type: Some("application/json"),
            ..Default::default()
        };
        // Any other answer is handed over whole, as for any call.
        self.core.on_answer(xfer, head, body, self.now);
        self.pump();
    }

    /// The operation whose request went out as exchange `xfer` on the direct path (once).
    fn undirect(&mut self, xfer: u64) -> Option<OpId> {
        let i = self.direct.iter().position(|(x, _)| *x == xfer)?;
        Some(self.direct.swap_remove(i).1)
    }

    /// A body chunk for exchange `xfer` (still open or not: a late chunk is ignored).
    fn chunk(&mut self, xfer: u64, bytes: &[u8]) {
        let body = match self.position(xfer) {
            Some(i) => self.substitute(&self.open[i], bytes),
            None => bytes.to_vec(),
        };
        self.core.on_chunk(xfer, &body, self.now);
        self.pump();
    }

    fn end(&mut self, xfer: u64) {
        if let Some(i) = self.position(xfer) {
            self.open.remove(i);
        }
        self.undirect(xfer);
        self.core.on_end(xfer, self.now);
        self.pump();
    }

    fn fail(&mut self, xfer: u64, e: Error) {
        if let Some(i) = self.position(xfer) {
            self.open.remove(i);
        }
        self.undirect(xfer);
        self.core.on_fail(xfer, e, self.now);
        self.pump();
    }

    fn close(&mut self) {
        if trace() {
            eprintln!("close() at +{}", self.now - START);
        }
        self.closed = true;
        self.core.close(self.now);
        self.pump();
        for op in &self.started {
            assert!(self.done.contains(op), "op {op} still open after close()");
        }
        // Wind down: every request fails, time moves to each deadline.
        for _ in 0..WIND_DOWN_ROUNDS {
            while let Some(e) = self.open.first() {
                let xfer = e.xfer;
                self.fail(xfer, Error::network("connection reset"));
            }
            match self.core.next_deadline() {
                Some(d) => {
                    if trace() {
                        eprintln!("wind-down: timer at +{}", d - START);
                    }
                    self.now = self.now.max(d);
                    self.core.on_timer(self.now);
                    self.pump();
                    if let Some(d) = self.core.next_deadline() {
                        assert!(
                            d > self.now,
                            "deadline {d} still due after on_timer({})",
                            self.now
                        );
                    }
                }
                None => break,
            }
        }
        assert!(
            self.open.is_empty(),
            "still sending after close(): {:?}",
            self.sent_after_close
        );
        assert_eq!(self.core.next_deadline(), None, "timers left after close()");
        // Closing ends the legacy session (DELETE) and cancels what it aborts: tasks
        // (`tasks/cancel`) and, in legacy eras, requests (`notifications/cancelled`).
        assert!(
            self.sent_after_close.iter().all(|m| matches!(
                m.as_str(),
                "DELETE" | "tasks/cancel" | "notifications/cancelled"
            )),
            "sent after close(): {:?}",
            self.sent_after_close
        );
        assert_eq!(self.core.ops_in_flight(), 0);
        // Every lock asked for was released (granted or still awaited: `Unlock` abandons
        // a lock request), exactly once (`unlocks` is checked as they come).
        assert_eq!(self.lock, None, "lock never released");
        assert_eq!(self.locks, self.unlocks, "locks and unlocks");
        if let Some(p) = &self.peers {
            p.check_end();
        }
        // Every exchange, JSON-RPC id, resumption, held request, ask, progress token and
        // timer is gone.
        assert_eq!(
            self.core.busy(),
            Vec::<&str>::new(),
            "state left after close()"
        );
    }
}

impl Driver {
    /// `StoreTask`: a JSON object of format version 1 under this server's prefix, with no
    /// answer in it unless `store_answers`; restored into a fresh client (a reload), it is
    /// taken, or skipped only because it expired or the task ended.
    fn stored(&mut self, key: String, value: Value) {
        assert!(self.cfg.persist_tasks, "StoreTask without persist_tasks");
        assert!(key.starts_with(&self.prefix), "StoreTask key {key:?}");
        let Value::Object(m) = &value else {
            panic!("StoreTask value not an object: {value}")
        };
        assert_eq!(m.get("v"), Some(&json!(1)), "StoreTask version: {value}");
        if !self.cfg.store_answers {
            let p = m.get("pending");
            assert!(
                p.is_none_or(|p| p.as_object().is_some_and(Map::is_empty)),
                "an answer stored without store_answers: {value}"
            );
        }
        if let Ok(mut fresh) = Core::new(self.cfg.clone(), self.now) {
            match fresh.restore_task(&key, &value, self.now) {
                Ok(v) => {
                    check_view(&v);
                    assert_eq!(
                        Some(v.task.task_id.as_str()),
                        value.pointer("/task/taskId").and_then(Value::as_str)
                    );
                }
                Err(RestoreSkip::Expired(_) | RestoreSkip::Finished(_)) => {}
                Err(e) => panic!("a record the engine wrote is refused ({e}): {key} {value}"),
            }
            while fresh.poll_action().is_some() {}
        }
        self.records.retain(|(k, _)| *k != key);
        if self.records.len() >= MAX_RECORDS {
            self.records.remove(0);
        }
        self.records.push((key, value));
    }

    fn auth_action(&mut self, a: AuthAction) {
        assert!(
            self.cfg.auth.is_some(),
            "OAuth action without an auth configuration: {a:?}"
        );
        match a {
            AuthAction::Random { id, len } => self.auth_steps.push((id, AuthStep::Random(len))),
            AuthAction::Authorize { id, req } => self.auth_steps.push((
                id,
                AuthStep::Authorize {
                    url: req.url,
                    redirect: req.redirect_uri,
                },
            )),
            AuthAction::Load { id, key } => {
                self.auth_steps.push((id, AuthStep::Load));
                if !self.auth_keys.contains(&key) {
                    self.auth_keys.push(key);
                }
            }
            AuthAction::Save { key, .. } => {
                self.saved.insert(key.clone());
                if !self.auth_keys.contains(&key) {
                    self.auth_keys.push(key);
                }
            }
            AuthAction::Lock { id, .. } => {
                // A second lock of the same name while one is held would wait for ever
                // (Web Locks are not reentrant).
                assert_eq!(self.lock, None, "Lock {id} while a lock is held or awaited");
                assert!(self.locks.insert(id), "Lock id {id} reused");
                self.lock = Some(id);
                self.auth_steps.push((id, AuthStep::Lock));
            }
            AuthAction::Unlock { id } => {
                assert_eq!(self.lock, Some(id), "Unlock {id} of no lock asked for");
                assert!(self.unlocks.insert(id), "lock {id} released twice");
                self.lock = None;
                self.auth_steps.retain(|(s, _)| *s != id);
            }
            AuthAction::Announce { key } => {
                assert!(
                    self.saved.contains(&key),
                    "Announce of {key:?}, never saved"
                );
            }
            AuthAction::Key { id, .. } => self.auth_steps.push((id, AuthStep::Key)),
            AuthAction::Sign { id, .. } => self.auth_steps.push((id, AuthStep::Sign)),
        }
    }

    /// Restores a record: one the engine wrote (as is or with a byte changed), one built
    /// from a template, or any JSON; under its own key, a task id's or any.
    fn restore(&mut self, r: &mut Reader) {
        let k = r.u8();
        let written = (!self.records.is_empty() && k & 1 == 0)
            .then(|| self.records[r.u8() as usize % self.records.len()].clone());
        let (own_key, record) = match (written, (k >> 1) & 3) {
            (Some((key, v)), 0 | 1) => (Some(key), v),
            (Some((key, v)), 2) => {
                // One byte of its text changed (a corrupt store).
                let mut text = v.to_string().into_bytes();
                let i = r.u16() as usize % text.len().max(1);
                let x = r.u8() | 1;
                if let Some(b) = text.get_mut(i) {
                    *b ^= x;
                }
                let text = String::from_utf8_lossy(&text).into_owned();
                let v = serde_value(&text).unwrap_or(Value::String(text));
                (Some(key), v)
            }
            (_, 3) => (None, json_blob(r).unwrap_or(Value::Null)),
            _ => (None, record_template(r, &self.cfg.url)),
        };
        let id = record
            .pointer("/task/taskId")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let key = match (k >> 3) & 3 {
            0 => own_key.unwrap_or_else(|| format!("{}{}", self.prefix, encode(&id))),
            1 => format!("{}{}", self.prefix, r.pick(&TASK_IDS)),
            2 => String::from_utf8_lossy(r.blob()).into_owned(),
            _ => format!("mcp-tasks/http%3A%2F%2Fother.test%2Fmcp/{}", encode(&id)),
        };
        let res = self.core.restore_task(&key, &record, self.now);
        if trace() {
            eprintln!("  restore {key}: {:?}", res.as_ref().map(|v| v.task.status));
        }
        match res {
            Ok(v) => check_view(&v),
            Err(e) => {
                let m = e.to_string();
                assert!(!m.chars().any(is_unsafe_char), "restore skip {m:?}");
                assert!(m.len() <= 1024, "restore skip too long: {}", m.len());
            }
        }
        self.pump();
    }

    /// Answers one of the flow's host steps, as the shell would (the kind it asked for).
    fn auth_answer(&mut self, r: &mut Reader) {
        if self.auth_steps.is_empty() {
            return;
        }
        let i = r.u8() as usize % self.auth_steps.len();
        let (id, step) = self.auth_steps.remove(i);
        if trace() {
            eprintln!("  answering auth step {id}");
        }
        let input = match step {
            AuthStep::Lock => AuthInput::Locked,
            // A P-256 public JWK (RFC 7515 A.3), or none, or any text.
            AuthStep::Key => AuthInput::Key(match r.u8() % 3 {
                0 => None,
                1 => Some((
                    r#"{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}"#.to_string(),
                    vec![5; 16],
                )),
                _ => Some((String::from_utf8_lossy(r.blob()).into_owned(), r.bytes(16).to_vec())),
            }),
            AuthStep::Sign => AuthInput::Signed((r.u8() & 3 != 0).then(|| r.bytes(64).to_vec())),
            AuthStep::Random(len) => {
                let mut b = r.bytes(len).to_vec();
                b.resize(len, 7);
                AuthInput::Random(b)
            }
            AuthStep::Load => AuthInput::Loaded(match r.u8() % 4 {
                0 => None,
                1 => Some(
                    json!({"access_token": "at-stored", "refresh_token": "rt-stored",
                           "expires_at": self.now + 3_600_000})
                    .to_string(),
                ),
                2 => Some(
                    json!({"access_token": "at-old", "refresh_token": "rt-old",
                                 "expires_at": 1})
                    .to_string(),
                ),
                _ => Some(String::from_utf8_lossy(r.blob()).into_owned()),
            }),
            AuthStep::Authorize { url, redirect } => AuthInput::Callback(match r.u8() % 3 {
                0 => {
                    let state = url
                        .split(['?', '&'])
                        .find_map(|p| p.strip_prefix("state="))
                        .unwrap_or("");
                    Ok(format!("{redirect}?code=c1&state={state}"))
                }
                1 => Err(Error::handler(None, "onAuthorize threw")),
                _ => Ok(String::from_utf8_lossy(r.blob()).into_owned()),
            }),
        };
        self.core.on_auth(id, input, self.now);
        self.pump();
    }
}

/// Percent-encodes what is not an RFC 3986 unreserved byte (the task store's key parts).
fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A stored record as the engine writes it, with fuzzer-chosen parts: task id, status,
/// TTL, input requests, pending answers, format version, server.
fn record_template(r: &mut Reader, url: &str) -> Value {
    let t = r.u8();
    let u = r.u8();
    let status = [
        "working",
        "input_required",
        "completed",
        "failed",
        "cancelled",
        "bogus",
    ][t as usize % 6];
    let mut task = json!({
        "taskId": r.pick(&TASK_IDS),
        "status": status,
        "createdAt": "2025-11-25T10:30:00Z",
        "lastUpdatedAt": "2025-11-25T10:30:00Z",
        "pollIntervalMs": 1000,
        "isLocal": u & 0x80 != 0,
        "serverUrl": if u & 0x40 != 0 { "http://other.test/mcp" } else { url },
    });
    match (u >> 4) & 3 {
        0 => task["ttlMs"] = json!(3_600_000),
        1 => task["ttlMs"] = json!(1),
        2 => task["ttlMs"] = Value::Null,
        _ => {}
    }
    if t & 0x08 != 0 {
        task["inputRequests"] = json!({"q": {"method": "elicitation/create", "params": {
            "mode": "form", "message": "?",
            "requestedSchema": {"type": "object", "properties": {}}}}});
    }
    let mut rec = json!({
        "v": match (t >> 4) & 3 { 0 | 1 => json!(1), 2 => json!(2), _ => json!("1") },
        "task": task,
        "tool": if u & 1 != 0 { Value::Null } else { json!("echo") },
        "acked": if u & 2 != 0 { json!(["a", "q"]) } else { json!([]) },
    });
    if t & 0x40 != 0 {
        rec["pending"] = json!({"q": {"action": "accept", "content": {"name": "x"}}});
    }
    if t & 0x80 != 0 {
        rec["acked"] = json!("q");
    }
    rec
}

fn check_view(t: &TaskView) {
    // A local view is the host's own handle given back (rule 21): whatever it holds.
    assert!(t.local || !t.task.task_id.is_empty());
    if let Some(r) = &t.result {
        assert!(is_json_text(r.get()));
    }
}

/// The configuration, whether the issue-13 opcodes are on, and, with coordination across
/// contexts, the fourth configuration byte (see [`run`]).
fn config(r: &mut Reader) -> (Config, bool, Option<u8>) {
    let a = r.u8();
    let b = r.u8();
    let ext = b & 3 == 3;
    let mut cfg = Config::new("http://mcp.test/mcp");
    cfg.version = match a & 3 {
        0 => VersionChoice::Pinned("2026-07-28".into()),
        1 => VersionChoice::Auto,
        2 => VersionChoice::Pinned("2025-11-25".into()),
        _ => VersionChoice::Pinned("2024-11-05".into()),
    };
    if a & 4 != 0 {
        cfg.extensions.insert(TASKS_EXTENSION.into(), json!({}));
    }
    if a & 0x18 != 0 {
        cfg.elicitation = Some(ElicitationModes {
            form: a & 8 != 0,
            url: a & 0x10 != 0,
        });
    }
    if a & 0x20 != 0 {
        cfg.sampling = Some(SamplingSupport {
            tools: b & 0x40 != 0,
            context: false,
        });
    }
    cfg.roots = a & 0x40 != 0;
    if a & 0x80 != 0 {
        // Tight limits reach the bounds.
        cfg.limits.max_event_bytes = 256;
        cfg.limits.max_body_bytes = 512;
        cfg.limits.max_concurrent_inputs = 1;
        cfg.limits.max_input_rounds = 2;
        cfg.limits.max_input_requests = 2;
        cfg.limits.listen_max_retries = 2;
        cfg.limits.listen_backoff_ms = 1;
        cfg.limits.listen_max_backoff_ms = 4;
        cfg.limits.listen_ack_timeout_ms = 10;
    }
    cfg.validate_output = match b & 3 {
        0 | 3 => ValidateOutput::Strict,
        1 => ValidateOutput::Warn,
        _ => ValidateOutput::Off,
    };
    cfg.request_timeout_ms = match (b >> 2) & 3 {
        0 => 60_000,
        1 => 1,
        2 => 1_000,
        _ => 0,
    };
    cfg.max_total_timeout_ms = match (b >> 4) & 3 {
        1 => Some(5_000),
        2 => Some(0),
        _ => None,
    };
    if b & 0x80 != 0 {
        cfg.log_level = Some("debug".into());
        cfg.headers = vec![("Authorization".into(), "Bearer t".into())];
    }
    let mut peers = None;
    if ext {
        // The third configuration byte (issue 13).
        let c = r.u8();
        cfg.validate_output = match c & 3 {
            0 | 3 => ValidateOutput::Strict,
            1 => ValidateOutput::Warn,
            _ => ValidateOutput::Off,
        };
        cfg.persist_tasks = c & 4 == 0;
        cfg.store_answers = c & 8 == 0;
        cfg.hidden_poll_interval_ms = match (c >> 4) & 3 {
            0 => Some(60_000),
            1 => None,
            2 => Some(0),
            _ => Some(1_000),
        };
        if c & 0x40 != 0 {
            oauth(&mut cfg, c & 0x80 != 0);
        } else if c & 0x80 != 0 {
            // Client credentials without OAuth (which meant no OAuth at all): coordination
            // across contexts, and a fourth configuration byte.
            let e = r.u8();
            cfg.coordinated = true;
            if e & 1 != 0 {
                oauth(&mut cfg, e & 2 != 0);
            }
            peers = Some(e);
        }
    }
    (cfg, ext, peers)
}

/// OAuth across contexts: a pre-registered client, a storage, Web Locks.
fn oauth(cfg: &mut Config, client_credentials: bool) {
    cfg.auth = Some(AuthConfig {
        client_id: Some("c1".into()),
        client_secret: client_credentials.then(|| "s1".into()),
        redirect_uri: "https://app.test/cb".into(),
        client_name: "fuzz".into(),
        storage: true,
        client_credentials,
        across_contexts: true,
        ..Default::default()
    });
    // With auth the client sends its own token (a configured one is refused).
    cfg.headers.clear();
}

fn opts(r: &mut Reader) -> OpOptions {
    let f = r.u8();
    let pick_ms = |x: u8| match x & 3 {
        0 => None,
        1 => Some(0),
        2 => Some(100),
        _ => Some(10_000),
    };
    OpOptions {
        timeout_ms: pick_ms(f),
        reset_timeout_on_progress: f & 4 != 0,
        max_total_timeout_ms: if f & 8 != 0 { Some(2_000) } else { None },
        task_timeout_ms: pick_ms(f >> 4),
        progress: f & 0x40 != 0,
        no_cache: f & 0x80 != 0,
        log_level: None,
        meta: None,
    }
}

/// JSON from a blob, or `None`.
fn json_blob(r: &mut Reader) -> Option<Value> {
    serde_value_bytes(r.blob()).ok()
}

fn object_blob(r: &mut Reader) -> Map {
    match json_blob(r) {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

fn task_ref(r: &mut Reader) -> TaskRef {
    let k = r.u8();
    let task_id = match k & 3 {
        3 => String::from_utf8_lossy(r.blob()).into_owned(),
        i => TASK_IDS[i as usize].to_string(),
    };
    let seed = (k & 4 != 0).then(|| TaskView {
        task: Task {
            task_id: task_id.clone(),
            status: match (k >> 3) & 3 {
                0 => TaskStatus::Working,
                1 => TaskStatus::Completed,
                2 => TaskStatus::InputRequired,
                _ => TaskStatus::Failed,
            },
            status_message: None,
            created_at: "2025-11-25T10:30:00Z".into(),
            created_at_ms: Some(START as i64),
            last_updated_at: "2025-11-25T10:30:00Z".into(),
            last_updated_at_ms: Some(START as i64),
            ttl_ms: (k & 0x20 != 0).then_some(60_000),
            poll_interval_ms: Some(1_000),
        },
        input_requests: None,
        result: (k & 0x40 != 0)
            .then(|| {
                mcp_wasm_client::json::RawJson::from_string(json!({"content": []}).to_string()).ok()
            })
            .flatten(),
        error: None,
        local: k & 0x80 != 0,
    });
    TaskRef { task_id, seed }
}

fn start(d: &mut Driver, r: &mut Reader) {
    let now = d.now;
    let kind = r.u8();
    let mut host_task = None;
    let op = match kind % 13 {
        0 => {
            let o = opts(r);
            d.core.discover(&o, now)
        }
        1 => {
            let m = r.pick(&PURPOSES).clone();
            let o = opts(r);
            let p = object_blob(r);
            d.core.request(m, p, &o, now)
        }
        2 => {
            let m = *r.pick(&LISTINGS);
            let o = opts(r);
            d.core.list_all(m, &o, now)
        }
        3 | 4 => {
            let name = match r.u8() {
                255 => String::from_utf8_lossy(r.blob()).into_owned(),
                i => TOOLS[i as usize % TOOLS.len()].to_string(),
            };
            let as_task = r.bool();
            let o = opts(r);
            let blob = r.blob();
            if r.bool() {
                // The arguments as text, as a Rust caller passes them: any text at all.
                let text = String::from_utf8_lossy(blob).into_owned();
                d.core.call_tool_json(&name, Some(text), as_task, &o, now)
            } else if r.bool() {
                // As the shell passes what `JSON.stringify` wrote, unread (JSON by
                // construction: here serde_json's text of any value, an object or not).
                let text = serde_value_bytes(blob)
                    .map(|v| v.to_string())
                    .unwrap_or_else(|_| "null".into());
                match ToolArguments::from_stringify(text) {
                    Ok(a) => d.core.call_tool_args(&name, a, as_task, &o, now),
                    Err(_) => return,
                }
            } else {
                let args = serde_value_bytes(blob).ok();
                d.core.call_tool(&name, args, as_task, &o, now)
            }
        }
        5 => {
            let t = task_ref(r);
            let o = opts(r);
            host_task = Some(t.task_id.clone());
            d.core.get_task(&t, &o, now)
        }
        6 => {
            let t = task_ref(r);
            let o = opts(r);
            let resp = object_blob(r);
            host_task = Some(t.task_id.clone());
            d.core.update_task(&t, resp, &o, now)
        }
        7 => {
            let t = task_ref(r);
            let o = opts(r);
            d.core.cancel_task(&t, &o, now)
        }
        8 => {
            let o = opts(r);
            let cursor = r.bool().then(|| "c1".to_string());
            d.core.list_tasks(cursor, &o, now)
        }
        9 | 10 => {
            let t = task_ref(r);
            let want = if r.bool() { Want::Result } else { Want::Task };
            let o = opts(r);
            d.core.wait_task(t, want, &o, now)
        }
        _ => {
            let filter = match r.u8() % 4 {
                0 => json!({"toolsListChanged": true}),
                1 => json!({"taskIds": ["task-123"]}),
                2 => json!({"resourceSubscriptions": ["file:///a"], "promptsListChanged": true}),
                _ => json_blob(r).unwrap_or(Value::Null),
            };
            d.core.listen(&filter, now)
        }
    };
    if let Some(t) = host_task {
        d.host_task_ops.push((op, t));
    }
    d.started(op);
}

/// Runs one script.
///
/// Opcodes (first byte `% 12`, or `% 17` with the issue-13 opcodes on):
/// 0 start an operation; 1 response head; 2 body chunk; 3 end of body; 4 network
/// failure; 5 a whole JSON reply of status 200, handed over at once as the shell hands a
/// plain JSON answer (`Core::on_answer`, which takes the usual three steps, head, chunk and
/// end, for any answer that does not go straight to its owner); 6 an SSE reply (head 200
/// SSE, `data:` event per blob, end or not); 7 answer an ask; 8 move the clock; 9 move
/// to the next deadline; 10 abort an operation; 11 close (ends the script);
/// issue 13 only: 12 restore a record from the task store (one the engine wrote, as is
/// or with a byte changed, a template or any JSON; its own key or another); 13 hidden /
/// visible; 14 online / offline; 15 an OAuth notice from another context (a key the flow
/// read or saved, or any); 16 answer a pending host step of the OAuth flow as the shell
/// would (a lock granted, a storage read, random bytes, the redirect);
/// coordination only (`byte % 20`): 17 a message from another context: `[m][f]` then the
/// fields: `m & 7` raw text (0, a blob), `hello`, `bye`, `obs`, `keys`, `answer`, `gone`,
/// or (7) a flood of `[n] + 1` hellos from made-up contexts; `m & 8` the engine's own
/// latest message of that type (else a template with fuzzer fields); `m & 0x10` version
/// 2; `m & 0x20` one byte of the text changed; `f & 7` the sender (`ctx-a`, `ctx-b`,
/// `ctx-c`, this context, empty, a blob, too long, a number), `(f >> 3) & 3` the task
/// (the latest one locked, a fixed id, a blob, the message's own); 18 a lock granted: a
/// pending one (`g`-th), or with `g & 0x80` a grant the shell never gives; 19 this
/// context shown or hidden (`Core::set_peer_visible`).
pub fn run(data: &[u8]) {
    let mut r = Reader::new(data);
    let (cfg, ext, coordination) = config(&mut r);
    let core = match Core::new(cfg.clone(), START) {
        Ok(core) => core,
        // The modern-only build (no `legacy` feature: tests/fuzz_regressions.rs under
        // `cargo test --no-default-features`) refuses an older pinned version here.
        Err(e) if e.kind == mcp_wasm_client::error::ErrorKind::UnsupportedProtocolVersion => return,
        Err(e) => panic!("the fuzz configs are valid: {}", e.message),
    };
    let prefix = core.task_store_prefix();
    let peers = coordination.map(|e| peers::Peers::new(&cfg.url, e & 4 != 0));
    let mut d = Driver {
        core,
        now: START,
        open: Vec::new(),
        direct: Vec::new(),
        last_id: Value::Null,
        asks: Vec::new(),
        started: HashSet::new(),
        done: HashSet::new(),
        closed: false,
        sent_after_close: Vec::new(),
        cfg,
        prefix,
        records: Vec::new(),
        online: true,
        host_task_ops: Vec::new(),
        auth_steps: Vec::new(),
        lock: None,
        locks: HashSet::new(),
        unlocks: HashSet::new(),
        auth_keys: Vec::new(),
        saved: HashSet::new(),
        peers,
    };
    if let Some(e) = coordination {
        // Coordination starts before any operation (`Core::peer_setup`).
        d.core.peer_setup(peers::ME, e & 8 != 0);
        d.pump();
    }
    let mut ops: Vec<OpId> = Vec::new();
    let mut steps = 0;
    while !r.is_empty() && steps < MAX_STEPS {
        steps += 1;
        let opcode = r.u8()
            % match (ext, d.peers.is_some()) {
                (_, true) => 20,
                (true, false) => 17,
                _ => 12,
            };
        if trace() {
            eprintln!(
                "step {steps}: opcode {opcode}, now {}, open {:?}",
                d.now - START,
                d.open.iter().map(|e| e.xfer).collect::<Vec<_>>()
            );
        }
        match opcode {
            0 => {
                let n = d.started.len();
                start(&mut d, &mut r);
                if d.started.len() > n {
                    ops = d.started.iter().copied().collect();
                    ops.sort_unstable();
                }
            }
            1 => {
                if let Some(i) = d.pick_exchange(&mut r) {
                    d.head(i, &mut r);
                }
            }
            2 => {
                if let Some(i) = d.pick_exchange(&mut r) {
                    let bytes = r.blob();
                    d.chunk(d.open[i].xfer, bytes);
                }
            }
            3 => {
                if let Some(i) = d.pick_exchange(&mut r) {
                    d.end(d.open[i].xfer);
                }
            }
            4 => {
                if let Some(i) = d.pick_exchange(&mut r) {
                    let e = match r.u8() % 3 {
                        0 => Error::network("fetch failed"),
                        1 => Error::abort("aborted"),
                        _ => Error::timeout("stalled"),
                    };
                    d.fail(d.open[i].xfer, e);
                }
            }
            5 => {
                if let Some(i) = d.pick_exchange(&mut r) {
                    let xfer = d.open[i].xfer;
                    let body = r.blob();
                    d.whole(xfer, body);
                }
            }
            6 => {
                if let Some(i) = d.pick_exchange(&mut r) {
                    let xfer = d.open[i].xfer;
                    let n = r.u8();
                    d.ok_head(xfer, "text/event-stream");
                    for k in 0..(n & 7) {
                        let blob = r.blob();
                        let mut ev = Vec::with_capacity(blob.len() + 32);
                        if n & 0x40 != 0 {
                            ev.extend_from_slice(format!("id: e{k}\n").as_bytes());
                        }
                        ev.extend_from_slice(b"data: ");
                        ev.extend_from_slice(blob);
                        ev.extend_from_slice(b"\n\n");
                        d.chunk(xfer, &ev);
                    }
                    if n & 0x80 != 0 {
                        d.end(xfer);
                    }
                }
            }
            7 => {
                let k = r.u8();
                let ask = if d.asks.is_empty() || k == 255 {
                    AskId(u64::from(k)) // possibly unknown
                } else {
                    d.asks[k as usize % d.asks.len()]
                };
                let answer = match r.u8() % 10 {
                    8 => Err(Error::handler(None, "handler threw")),
                    9 => Ok(json_blob(&mut r).unwrap_or(Value::Null)),
                    i => Ok(serde_json::from_str(ANSWERS[i as usize % ANSWERS.len()])
                        .expect("answer templates are JSON")),
                };
                d.core.answer(ask, answer, d.now);
                d.pump();
            }
            8 => {
                d.now = d.now.saturating_add(*r.pick(&ADVANCE));
                // An open exchange's request leaves only now (`Core::on_sent`): the page
                // was busy between the engine's start and the `fetch` call.
                if r.bool() {
                    if let Some(i) = d.pick_exchange(&mut r) {
                        d.core.on_sent(d.open[i].xfer, d.now);
                    }
                }
            }
            9 => {
                if let Some(t) = d.core.next_deadline() {
                    d.now = d.now.max(t);
                }
            }
            10 => {
                if !ops.is_empty() {
                    let op = ops[r.u8() as usize % ops.len()];
                    d.core.abort(op, Error::abort("the host aborted"), d.now);
                    d.pump();
                }
            }
            11 => break,
            12 => d.restore(&mut r),
            13 => {
                let hidden = r.bool();
                d.core.set_hidden(hidden, d.now);
                d.pump();
            }
            14 => {
                let online = r.bool();
                d.online = online;
                d.core.set_online(online, d.now);
                d.pump();
            }
            15 => {
                let k = r.u8();
                let key = if k & 1 == 0 && !d.auth_keys.is_empty() {
                    d.auth_keys[(k >> 1) as usize % d.auth_keys.len()].clone()
                } else {
                    String::from_utf8_lossy(r.blob()).into_owned()
                };
                d.core.on_auth_notice(&key, d.now);
                d.pump();
            }
            16 => d.auth_answer(&mut r),
            17 => d.peer_message(&mut r),
            18 => d.peer_grant(&mut r),
            _ => d.peer_visible(&mut r),
        }
        d.timers();
    }
    d.close();
}

/// What the runner's `readAnswer` (src/web/js/bodies.js) reads of a plain answer: the id and
/// the result's text when `body` is UTF-8 of the form `{"jsonrpc":"2.0","id":N,"result":R}`
/// or `{"result":R,"jsonrpc":"2.0","id":N}` (N 1 to 15 digits, no leading zero), R one
/// JSON object whose `resultType` is absent or `"complete"`, its name written once and
/// none of its letters escaped anywhere in R, and no surrogate escaped in R. (`JSON.parse`
/// also takes R nested deeper than serde_json does; here such an R is handed over whole,
/// as other answers are.)
fn read_answer(body: &[u8]) -> Option<(i64, String)> {
    const FIRST: &str = "{\"jsonrpc\":\"2.0\",\"id\":";
    const THEN_RESULT: &str = ",\"result\":";
    const RESULT_FIRST: &str = "{\"result\":";
    const LAST: &str = ",\"jsonrpc\":\"2.0\",\"id\":";
    let t = std::str::from_utf8(body).ok()?;
    let inner = t.strip_suffix('}')?;
    let digits = |d: &str| {
        (!d.is_empty() && d.len() <= 15 && !(d.len() > 1 && d.starts_with('0')))
            .then(|| d.parse::<i64>().ok())
            .flatten()
    };
    let (id, text) = if let Some(rest) = inner.strip_prefix(FIRST) {
        let n = rest.bytes().take_while(u8::is_ascii_digit).count();
        let id = digits(&rest[..n])?;
        (id, rest[n..].strip_prefix(THEN_RESULT)?)
    } else if let Some(rest) = inner.strip_prefix(RESULT_FIRST) {
        let n = rest.bytes().rev().take_while(u8::is_ascii_digit).count();
        let (before, d) = rest.split_at(rest.len() - n);
        (digits(d)?, before.strip_suffix(LAST)?)
    } else {
        return None;
    };
    let v: Value = serde_json::from_str(text).ok()?;
    let rt = v.as_object()?.get("resultType");
    // No escape of a letter of `resultType` (`SPELLS` in bodies.js).
    let spells = text.match_indices("\\u00").any(|(i, _)| {
        let hex = text.get(i + 4..i + 6).unwrap_or("").to_ascii_lowercase();
        ["70", "72", "73", "74", "75", "79", "65", "6c", "54"].contains(&hex.as_str())
    });
    let once = text.matches("\"resultType\"").count() == 1 && !spells;
    // No surrogate escaped (`SURROGATE` in bodies.js): serde_json refuses a lone one anyway.
    let surrogate = text.match_indices("\\u").any(|(i, _)| {
        let hex = text.get(i + 2..i + 4).unwrap_or("").to_ascii_lowercase();
        matches!(
            hex.as_str(),
            "d8" | "d9" | "da" | "db" | "dc" | "dd" | "de" | "df"
        )
    });
    if surrogate {
        return None;
    }
    match rt {
        None => {}
        Some(Value::String(s)) if s == "complete" && once => {}
        Some(_) => return None,
    }
    Some((id, text.to_string()))
}
