//! The engine script's coordination across contexts (issue 13, `engine::task::peers`):
//! a fake Web Locks manager and the other contexts of the origin, played by the script.
//! See the module docs of `engine.rs` for the opcodes and the properties.
//!
//! The lock names are the engine's (`mcp-wasm-client/peers/1 task <len> <url> <task>` and
//! `mcp-wasm-client/peers/1 context <id>`): the checks read a task id or a context id
//! out of them.

use super::{Driver, ANSWERS, TASK_IDS};
use crate::oracle::{serde_value, serde_value_bytes};
use crate::util::Reader;
use mcp_wasm_client::engine::PeerAction;
use mcp_wasm_client::json;
use mcp_wasm_client::json::{Map, Value};

const PREFIX: &str = "mcp-wasm-client/peers/1 ";
/// This context's id (`Core::peer_setup`).
pub(super) const ME: &str = "ctx-me";
/// The other contexts the script plays.
const OTHERS: [&str; 3] = ["ctx-a", "ctx-b", "ctx-c"];
/// `engine::task::peers::MAX_OTHERS`: the contexts a leader keeps track of per task.
const MAX_OTHERS: usize = 64;
const TYPES: [&str; 6] = ["hello", "bye", "obs", "keys", "answer", "gone"];
const T0: &str = "2025-11-25T10:30:00Z";

/// The fake lock manager and what the other contexts know.
pub(super) struct Peers {
    /// Task locks are granted as soon as they are asked for (no other context holds them).
    grant_at_once: bool,
    /// Lock names asked for and not released, and whether each is granted.
    locks: Vec<(String, bool)>,
    /// Grants to hand to the engine once its actions are drained (the shell's are
    /// asynchronous).
    to_grant: Vec<String>,
    /// A grant the shell never gives (a name not asked for) was delivered: what the
    /// engine does with its own locks is no longer checked (no panic and its books are).
    off_contract: bool,
    /// The last message the engine posted, per type (replayed with fields changed).
    posted: Vec<(String, Value)>,
    /// Task ids of the task locks asked for, latest last (at most 4).
    tasks: Vec<String>,
    /// Input keys the engine asked (and two of the templates'), at most 6.
    keys: Vec<String>,
    /// Contexts made up so far by floods.
    made_up: u32,
    /// The server URL (part of a task lock's name).
    url: String,
}

fn task_lock_prefix(url: &str) -> String {
    format!("{PREFIX}task {} {url} ", url.len())
}

fn context_lock(ctx: &str) -> String {
    format!("{PREFIX}context {ctx}")
}

impl Peers {
    pub(super) fn new(url: &str, grant_at_once: bool) -> Peers {
        Peers {
            grant_at_once,
            locks: Vec::new(),
            to_grant: Vec::new(),
            off_contract: false,
            posted: Vec::new(),
            tasks: Vec::new(),
            keys: vec!["q".into(), "k1".into()],
            made_up: 0,
            url: url.to_string(),
        }
    }

    fn task_of(&self, name: &str) -> Option<String> {
        name.strip_prefix(&task_lock_prefix(&self.url))
            .map(str::to_string)
    }

    fn held(&self, name: &str) -> Option<bool> {
        self.locks.iter().find(|(n, _)| n == name).map(|(_, g)| *g)
    }

    /// The engine asked for an input key (`Ask`): the script's messages name it.
    pub(super) fn asked(&mut self, key: &str) {
        if !self.keys.iter().any(|k| k == key) {
            if self.keys.len() >= 6 {
                self.keys.remove(2);
            }
            self.keys.push(key.to_string());
        }
    }

    /// One `Action::Peer`: locks go to the fake manager, posts are checked and kept.
    pub(super) fn action(&mut self, a: PeerAction, closed: bool) {
        match a {
            PeerAction::Lock { name } => {
                assert!(!closed, "Lock {name:?} after close()");
                // Web Locks queue a second request of the same name behind the first:
                // the shell ignores it (`peers.js`), so it would never be granted.
                assert!(self.held(&name).is_none(), "Lock {name:?} asked twice");
                if let Some(t) = self.task_of(&name) {
                    self.tasks.retain(|x| *x != t);
                    if self.tasks.len() >= 4 {
                        self.tasks.remove(0);
                    }
                    self.tasks.push(t);
                    if self.grant_at_once {
                        self.to_grant.push(name.clone());
                    }
                } else if name == context_lock(ME) {
                    // Nobody else holds this context's own lock.
                    self.to_grant.push(name.clone());
                }
                self.locks.push((name, false));
            }
            PeerAction::Unlock { name } => {
                let n = self.locks.len();
                self.locks.retain(|(x, _)| *x != name);
                assert!(
                    self.off_contract || self.locks.len() < n,
                    "Unlock {name:?} of no lock asked for"
                );
                self.to_grant.retain(|x| *x != name);
            }
            PeerAction::Post { text } => {
                let v: Value = serde_value(&text)
                    .unwrap_or_else(|e| panic!("posted text not JSON: {e}: {text}"));
                assert_eq!(v.get("v"), Some(&json!(1)), "posted version: {text}");
                assert_eq!(v.get("from"), Some(&json!(ME)), "posted from: {text}");
                assert!(v.get("task").is_some_and(Value::is_string), "{text}");
                let t = v.get("t").and_then(Value::as_str).unwrap_or("");
                assert!(TYPES.contains(&t), "posted type: {text}");
                // Closing only says goodbye.
                assert!(!closed || t == "bye", "posted after close(): {text}");
                self.posted.retain(|(x, _)| x != t);
                self.posted.push((t.to_string(), v));
            }
        }
    }

    /// A `tasks/get` or `tasks/update` of `task` is being sent. `host`: an operation of
    /// the host's own for that task is open; `modern`: the era is 2026-07-28 (legacy
    /// drivers do not coordinate).
    pub(super) fn check_send(&self, method: &str, task: &str, host: bool, modern: bool) {
        if host || self.off_contract {
            return;
        }
        let held = self.held(&format!("{}{task}", task_lock_prefix(&self.url)));
        // A follower (its task lock asked for, not granted) sends neither.
        assert_ne!(held, Some(false), "{method} of {task:?} sent by a follower");
        // Only the lock holder polls a task someone waits on.
        if method == "tasks/get" && modern {
            assert_eq!(held, Some(true), "{method} of {task:?} without its lock");
        }
    }

    /// After each event: a flood of made-up contexts keeps the locks bounded.
    pub(super) fn check_bounds(&self) {
        let leading = self
            .locks
            .iter()
            .filter(|(n, g)| *g && self.task_of(n).is_some())
            .count();
        let watched = self
            .locks
            .iter()
            .filter(|(n, _)| n.starts_with(&context_lock("")) && *n != context_lock(ME))
            .count();
        assert!(
            watched <= MAX_OTHERS * leading,
            "{watched} contexts watched while leading {leading} tasks"
        );
    }

    /// At the end of the wind-down: every lock released but this context's own (held for
    /// its life; the shell's `close()` releases it).
    pub(super) fn check_end(&self) {
        if self.off_contract {
            return;
        }
        let left: Vec<&String> = self
            .locks
            .iter()
            .map(|(n, _)| n)
            .filter(|n| **n != context_lock(ME))
            .collect();
        assert!(left.is_empty(), "locks left after close(): {left:?}");
    }

    fn latest_task(&self) -> String {
        self.tasks
            .last()
            .cloned()
            .unwrap_or_else(|| TASK_IDS[0].to_string())
    }
}

impl Driver {
    /// Hands the engine the grants due (after its actions were drained).
    pub(super) fn peer_grants(&mut self) {
        loop {
            let Some(p) = self.peers.as_mut() else { return };
            if p.to_grant.is_empty() {
                return;
            }
            let name = p.to_grant.remove(0);
            let Some(e) = p.locks.iter_mut().find(|(n, g)| *n == name && !*g) else {
                continue;
            };
            e.1 = true;
            self.core.on_peer_lock(&name, self.now);
            self.pump();
        }
    }

    /// Opcode 18: a lock granted: one asked for and pending (a task's: this context leads
    /// it now; another context's: that context is gone), or (`0x80`) a grant the shell
    /// never gives.
    pub(super) fn peer_grant(&mut self, r: &mut Reader) {
        let Some(p) = self.peers.as_mut() else { return };
        let g = r.u8();
        let name = if g & 0x80 == 0 {
            let pending: Vec<&String> = p
                .locks
                .iter()
                .filter(|(_, g)| !*g)
                .map(|(n, _)| n)
                .collect();
            if pending.is_empty() {
                return;
            }
            pending[g as usize % pending.len()].clone()
        } else {
            let name = match g & 3 {
                0 => String::from_utf8_lossy(r.blob()).into_owned(),
                1 => context_lock(OTHERS[(g >> 2) as usize % 3]),
                2 => format!("{}{}", task_lock_prefix(&p.url), r.pick(&TASK_IDS)),
                _ => match p.locks.iter().find(|(_, g)| *g) {
                    Some((n, _)) => n.clone(), // granted twice
                    None => return,
                },
            };
            if p.held(&name) != Some(false) && name.starts_with(PREFIX) {
                p.off_contract = true;
            }
            name
        };
        if let Some(e) = p.locks.iter_mut().find(|(n, _)| *n == name) {
            e.1 = true;
        }
        if super::trace() {
            eprintln!("  grant {name}");
        }
        self.core.on_peer_lock(&name, self.now);
        self.pump();
    }

    /// Opcode 19: this context shown or hidden (`document.visibilityState`).
    pub(super) fn peer_visible(&mut self, r: &mut Reader) {
        let visible = r.bool();
        self.core.set_peer_visible(visible, self.now);
        self.pump();
    }

    /// Opcode 17: a message from another context (see the module docs of `engine.rs`).
    pub(super) fn peer_message(&mut self, r: &mut Reader) {
        let Some(p) = self.peers.as_ref() else { return };
        let m = r.u8();
        let kind = m & 7;
        if kind == 0 {
            let text = String::from_utf8_lossy(r.blob()).into_owned();
            self.deliver(&text);
            return;
        }
        if kind == 7 {
            // A flood of made-up contexts, each saying hello.
            let n = r.u8() as usize + 1;
            let task = p.latest_task();
            let first = p.made_up;
            if let Some(p) = self.peers.as_mut() {
                p.made_up += n as u32;
            }
            for i in 0..n as u32 {
                let hello = json!({"v": 1, "t": "hello", "from": format!("fake-{}", first + i),
                                   "task": task, "visible": m & 8 != 0});
                self.core.on_peer_message(&hello.to_string(), self.now);
            }
            self.pump();
            return;
        }
        let t = TYPES[kind as usize - 1];
        let own = p
            .posted
            .iter()
            .find(|(x, _)| x == t)
            .map(|(_, v)| v.clone());
        let f = r.u8();
        let mut msg = match own.filter(|_| m & 8 != 0) {
            Some(v) => v,
            None => self.peer_template(t, r),
        };
        let Some(p) = self.peers.as_ref() else { return };
        let from: Value = match f & 7 {
            i @ 0..=2 => OTHERS[i as usize].into(),
            3 => ME.into(),
            4 => "".into(),
            5 => String::from_utf8_lossy(r.blob()).into_owned().into(),
            6 => "z".repeat(201).into(),
            _ => json!(7),
        };
        let task: Value = match (f >> 3) & 3 {
            0 => p.latest_task().into(),
            1 => (*r.pick(&TASK_IDS)).into(),
            2 => String::from_utf8_lossy(r.blob()).into_owned().into(),
            _ => msg.get("task").cloned().unwrap_or(Value::Null),
        };
        if let Value::Object(o) = &mut msg {
            o.insert("v".into(), if m & 0x10 != 0 { json!(2) } else { json!(1) });
            o.insert("t".into(), t.into());
            o.insert("from".into(), from);
            o.insert("task".into(), task);
        }
        let mut text = msg.to_string();
        if m & 0x20 != 0 {
            // One byte changed (a message cut or garbled).
            let mut b = text.into_bytes();
            let i = r.u16() as usize % b.len().max(1);
            let x = r.u8() | 1;
            if let Some(c) = b.get_mut(i) {
                *c ^= x;
            }
            text = String::from_utf8_lossy(&b).into_owned();
        }
        self.deliver(&text);
    }

    fn deliver(&mut self, text: &str) {
        if super::trace() {
            eprintln!("  message {text}");
        }
        self.core.on_peer_message(text, self.now);
        self.pump();
    }

    /// A well-formed message of type `t` with fuzzer-chosen fields.
    fn peer_template(&self, t: &str, r: &mut Reader) -> Value {
        let Some(p) = self.peers.as_ref() else {
            return Value::Null;
        };
        let mut m = Map::new();
        match t {
            "hello" => {
                m.insert("visible".into(), r.bool().into());
            }
            "obs" => {
                let o = r.u8();
                let task = p.latest_task();
                let obs = match o & 7 {
                    6 => String::from_utf8_lossy(r.blob()).into_owned(),
                    7 => match p.posted.iter().find(|(x, _)| x == "obs") {
                        Some((_, v)) => v["obs"].as_str().unwrap_or("").to_string(),
                        None => obs_text(&task, "working", &[], o),
                    },
                    i => {
                        let (status, keys): (&str, &[&str]) = match i {
                            0 => ("working", &[]),
                            1 => ("input_required", &["q"]),
                            2 => ("input_required", &["k1", "q"]),
                            3 => ("completed", &[]),
                            4 => ("failed", &[]),
                            _ => ("cancelled", &[]),
                        };
                        obs_text(&task, status, keys, o)
                    }
                };
                m.insert("obs".into(), obs.into());
                match (o >> 3) & 3 {
                    0 => m.insert("at".into(), self.now.into()),
                    1 => m.insert("at".into(), self.now.saturating_sub(1_500).into()),
                    2 => None,
                    _ => m.insert("at".into(), (self.now + 1_000_000_000).into()),
                };
            }
            "keys" => {
                let k = r.u8();
                let sets = r.u8();
                let mut presenters = Map::new();
                let mut pending = Vec::new();
                let mut acked = Vec::new();
                for (i, key) in p.keys.iter().take(4).enumerate() {
                    let who = match (k >> (2 * i)) & 3 {
                        0 => None,
                        1 => Some(ME),
                        2 => Some(OTHERS[0]),
                        _ => Some(OTHERS[1]),
                    };
                    if let Some(c) = who {
                        presenters.insert(key.clone(), c.into());
                    }
                    if sets & (1 << i) != 0 {
                        pending.push(Value::from(key.as_str()));
                    }
                    if sets & (0x10 << i) != 0 {
                        acked.push(Value::from(key.as_str()));
                    }
                }
                m.insert("presenters".into(), Value::Object(presenters));
                m.insert("pending".into(), Value::Array(pending));
                m.insert("acked".into(), Value::Array(acked));
            }
            "answer" => {
                let a = r.u8();
                let key = if a & 4 != 0 {
                    String::from_utf8_lossy(r.blob()).into_owned()
                } else {
                    p.keys[(a & 3) as usize % p.keys.len()].clone()
                };
                let value = match (a >> 3) % 10 {
                    9 => serde_value_bytes(r.blob()).unwrap_or(Value::Null),
                    8 => Value::Null,
                    i => serde_json::from_str(ANSWERS[i as usize % ANSWERS.len()])
                        .unwrap_or(Value::Null),
                };
                m.insert("key".into(), key.into());
                m.insert("value".into(), value);
            }
            "gone" => {
                let g = r.u8();
                m.insert("code".into(), (-32602).into());
                let msg = if g & 1 == 0 {
                    "Failed to retrieve task: Task not found".to_string()
                } else {
                    String::from_utf8_lossy(r.blob()).into_owned()
                };
                m.insert("message".into(), msg.into());
                if g & 2 != 0 {
                    m.insert("data".into(), json!({"taskId": p.latest_task()}));
                }
            }
            _ => {}
        }
        m.insert("task".into(), p.latest_task().into());
        Value::Object(m)
    }
}

/// A task state as a leader posts it (a `tasks/get` answer's JSON text).
fn obs_text(task: &str, status: &str, keys: &[&str], o: u8) -> String {
    let mut v = json!({
        "resultType": "complete", "taskId": task, "status": status, "createdAt": T0,
        "lastUpdatedAt": if o & 0x80 != 0 { "2025-11-25T10:40:00Z" } else { T0 },
        "pollIntervalMs": 1000,
    });
    match (o >> 5) & 3 {
        0 => v["ttlMs"] = json!(3_600_000),
        1 => v["ttlMs"] = json!(1_000),
        2 => v["ttlMs"] = Value::Null,
        _ => {}
    }
    if !keys.is_empty() {
        let mut reqs = Map::new();
        for k in keys {
            reqs.insert(
                k.to_string(),
                json!({"method": "elicitation/create", "params": {"mode": "form",
                    "message": "Name?", "requestedSchema": {"type": "object",
                    "properties": {"name": {"type": "string"}}, "required": ["name"]}}}),
            );
        }
        v["inputRequests"] = Value::Object(reqs);
    }
    match status {
        "completed" => v["result"] = json!({"content": [{"type": "text", "text": "done"}]}),
        "failed" => v["error"] = json!({"code": -32603, "message": "boom"}),
        _ => {}
    }
    v.to_string()
}
