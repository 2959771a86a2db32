//! Durable tasks (issue 13, "Durable tasks"): what a driver writes to the host's task
//! store so that a task can be driven again after a reload, and how a stored record seeds
//! a driver again.
//!
//! The tasks spec: "clients SHOULD persist task IDs to durable storage so that polling can
//! resume after a crash or restart". The engine decides what is stored and when; the shell
//! only performs [`Action::StoreTask`] / [`Action::ForgetTask`] and lists records back.
//!
//! **Key**: `mcp-tasks/` + the percent-encoded server URL (with a `taskScope`,
//! `<length>:<scope> <URL>`: `Config::task_space`) + `/` + the percent-encoded task
//! id ([`task_key`]); [`key_prefix`] is what the shell lists for one server. The key has no
//! version, so a record of a newer format is still listed (and skipped with a warning).
//!
//! **Record** (version [`RECORD_VERSION`]):
//! `{"v": 1, "task": <Task#toJSON fields, serverUrl included>, "tool": <name or null>,
//! "acked": [<keys answered and acknowledged>], "pending": {<key>: <answer>}}`.
//! `task` carries the last status, `pollIntervalMs` and `inputRequests`; `pending` holds
//! answers sent but not yet acknowledged, only with `store_answers` (without it they are
//! never written, and such a key is asked again after a reload: the privacy trade-off).
//! No result is ever stored: a terminal task's record is removed.
//!
//! **When**: a record is written when the task is created by a tool call or handed to a
//! wait, and again whenever it changed (status, `inputRequests`, `pollIntervalMs`, an
//! answer sent or acknowledged); it is removed once a waiter received the terminal outcome
//! (completed, failed, cancelled, not found, expired), when `tasks/cancel` is
//! acknowledged, and when a restored record's TTL has passed. 2025 tasks are not stored:
//! their ids mean nothing once the session ends.
//!
//! **Restore** ([`TaskBook::restore`]): the driver is seeded with the stored task, the keys
//! acknowledged (never presented again) and the pending answers. Keys presented but never
//! answered are not stored, so a later wait presents them again (nobody answered them).
//! Pending answers are treated like those of an inconclusive `tasks/update` (rule 8): the
//! first poll decides; if it still lists a key, the stored answer goes out again without
//! asking the host (checked first against the request that poll lists, as any answer: one
//! that does not fit is dropped with a warning and the key asked again); if it no longer
//! does, the server had it.

use super::{Driver, TaskBook};
use crate::engine::actions::{Action, TaskView};
use crate::engine::handle::StoredTask;
use crate::engine::shared::Shared;
use crate::engine::tools::OutputCheck;
use crate::error::sanitize;
use crate::json::{Map, Value};
use std::fmt;

/// The version of the stored record format.
pub(crate) const RECORD_VERSION: u64 = 1;

/// What every key of the task store starts with.
const KEY_ROOT: &str = "mcp-tasks/";

/// `s` with every byte outside RFC 3986's unreserved set percent-encoded (so a URL or an
/// id never contains the `/` that separates the parts of a key): the OAuth code's encoder.
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    crate::auth::url::encode(s, &mut out);
    out
}

/// The prefix of every key of one server's tasks (what the shell lists).
pub(crate) fn key_prefix(server_url: &str) -> String {
    format!("{KEY_ROOT}{}/", encode(server_url))
}

/// The key of one task's record.
pub(crate) fn task_key(server_url: &str, task_id: &str) -> String {
    format!("{}{}", key_prefix(server_url), encode(task_id))
}

/// Why a stored record was not restored (the shell warns; nothing throws).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RestoreSkip {
    /// Not a record this client can read (what is wrong with it).
    Corrupt(String),
    /// Written by a newer version of the client (its `v`); left in the store.
    NewerVersion(u64),
    /// A task of another server (its URL).
    OtherServer(String),
    /// Its TTL has passed: the record was removed.
    Expired(String),
    /// The task already ended here: the record was removed.
    Finished(String),
}

impl fmt::Display for RestoreSkip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RestoreSkip::Corrupt(why) => write!(f, "a stored task could not be read ({why}); skipped"),
            RestoreSkip::NewerVersion(v) => write!(
                f,
                "a stored task has format version {v}, newer than {RECORD_VERSION}; skipped (left in the store)"
            ),
            RestoreSkip::OtherServer(url) => write!(
                f,
                "a stored task belongs to another server ({}); skipped",
                sanitize(url, 200)
            ),
            RestoreSkip::Expired(id) => write!(
                f,
                "stored task \"{}\" passed its TTL; removed from the store",
                sanitize(id, 100)
            ),
            RestoreSkip::Finished(id) => write!(
                f,
                "stored task \"{}\" has already ended; removed from the store",
                sanitize(id, 100)
            ),
        }
    }
}

impl Driver {
    /// The record of this driver (see the module docs), or `None` when it is not stored.
    fn record(&self, sh: &Shared) -> Option<Value> {
        let view = self.view()?;
        if view.local {
            return None;
        }
        let handle = StoredTask {
            view,
            server_url: sh.cfg.url.clone(),
            tool: None, // the record keeps it as "tool"
        };
        // Sorted, so that an unchanged set writes an unchanged record (a few keys: an
        // insertion sort, not the slice sort's code).
        let mut acked: Vec<&str> = Vec::with_capacity(self.acked.len());
        for k in &self.acked {
            let i = acked.partition_point(|x| *x < k.as_str());
            acked.insert(i, k);
        }
        let mut m = Map::new();
        m.insert("v".into(), RECORD_VERSION.into());
        m.insert("task".into(), handle.to_value());
        m.insert(
            "tool".into(),
            self.tool.clone().map(Value::from).unwrap_or(Value::Null),
        );
        m.insert(
            "acked".into(),
            Value::Array(acked.into_iter().map(Value::from).collect()),
        );
        if sh.cfg.store_answers && !self.answered.is_empty() {
            m.insert("pending".into(), Value::Object(self.answered.clone()));
        }
        Some(Value::Object(m))
    }

    /// Writes the record when it changed, or removes it once the task ended here.
    fn sync_store(&mut self, sh: &mut Shared) {
        if self.done.is_some() {
            if self.stored.take().is_some() {
                sh.push(Action::ForgetTask {
                    key: task_key(&sh.cfg.task_space(), &self.id),
                });
            }
            return;
        }
        if !self.durable || self.legacy || !sh.cfg.persist_tasks {
            return;
        }
        let Some(rec) = self.record(sh) else { return };
        if self.stored.as_ref() == Some(&rec) {
            return;
        }
        self.stored = Some(rec.clone());
        sh.push(Action::StoreTask {
            key: task_key(&sh.cfg.task_space(), &self.id),
            value: rec,
        });
    }
}

fn corrupt(why: &str) -> RestoreSkip {
    RestoreSkip::Corrupt(why.to_string())
}

/// The parts of a stored record, checked.
struct Parsed {
    handle: StoredTask,
    tool: Option<String>,
    acked: Vec<String>,
    pending: Map,
}

fn parse(rec: &Value) -> Result<Parsed, RestoreSkip> {
    let Value::Object(m) = rec else {
        return Err(corrupt("not an object"));
    };
    match m.get("v").and_then(Value::as_u64) {
        Some(RECORD_VERSION) => {}
        Some(v) if v > RECORD_VERSION => return Err(RestoreSkip::NewerVersion(v)),
        _ => return Err(corrupt("no valid format version")),
    }
    let task = m.get("task").ok_or_else(|| corrupt("no task"))?;
    let handle = StoredTask::parse(task).map_err(|e| RestoreSkip::Corrupt(sanitize(&e, 200)))?;
    if handle.view.local {
        return Err(corrupt("a local task"));
    }
    let tool = match m.get("tool") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(corrupt("tool is not a string")),
    };
    let acked = match m.get("acked") {
        None => Vec::new(),
        Some(Value::Array(a)) => {
            let mut keys = Vec::with_capacity(a.len());
            for k in a {
                let Value::String(k) = k else {
                    return Err(corrupt("acked keys are not strings"));
                };
                keys.push(k.clone());
            }
            keys
        }
        Some(_) => return Err(corrupt("acked is not an array")),
    };
    let pending = match m.get("pending") {
        None => Map::new(),
        Some(Value::Object(p)) => p.clone(),
        Some(_) => return Err(corrupt("pending is not an object")),
    };
    Ok(Parsed {
        handle,
        tool,
        acked,
        pending,
    })
}

impl TaskBook {
    /// A tool call created task `id` (`callTool`, `callToolAsTask`): it is stored, with
    /// the tool's name.
    pub(crate) fn created(&mut self, sh: &mut Shared, id: &str, tool: &str) {
        if let Some(d) = self.drivers.get_mut(id) {
            d.tool = Some(tool.to_string());
            d.durable = true;
            d.sync_store(sh);
        }
    }

    /// Writes or removes task `id`'s record if it changed (called after every event of
    /// the task: `Core::refresh_task`).
    pub(crate) fn sync_store(&mut self, sh: &mut Shared, id: &str) {
        if let Some(d) = self.drivers.get_mut(id) {
            d.sync_store(sh);
        }
    }

    /// The task is gone for good (`tasks/cancel` acknowledged, or the server does not
    /// know it): its record is removed, whether this client wrote it or not.
    pub(crate) fn forget(&mut self, sh: &mut Shared, id: &str) {
        if let Some(d) = self.drivers.get_mut(id) {
            d.durable = false;
            d.stored = None;
        }
        if sh.cfg.persist_tasks {
            sh.push(Action::ForgetTask {
                key: task_key(&sh.cfg.task_space(), id),
            });
        }
    }

    /// Seeds a driver from the record stored under `key`, so that a later wait continues
    /// the task (see the module docs). A record that cannot be used is skipped; an
    /// expired or ended one is also removed from the store.
    pub(crate) fn restore(
        &mut self,
        sh: &mut Shared,
        key: &str,
        rec: &Value,
    ) -> Result<TaskView, RestoreSkip> {
        let p = parse(rec)?;
        let id = p.handle.view.task.task_id.clone();
        if p.handle.server_url != sh.cfg.url {
            return Err(RestoreSkip::OtherServer(p.handle.server_url));
        }
        if key != task_key(&sh.cfg.task_space(), &id) {
            return Err(corrupt("its key does not name its task"));
        }
        let forget = |sh: &mut Shared| {
            sh.push(Action::ForgetTask {
                key: key.to_string(),
            })
        };
        if let Some(d) = self.drivers.get(&id) {
            // Known here already (restored twice, or waited on in this page).
            if d.done.is_some() {
                forget(sh);
                return Err(RestoreSkip::Finished(id));
            }
            return Ok(d.view().unwrap_or(p.handle.view));
        }
        let task = &p.handle.view.task;
        if task.status.is_terminal() {
            forget(sh);
            return Err(RestoreSkip::Finished(id));
        }
        if task.expires_at_ms().is_some_and(|t| (sh.now as i64) >= t) {
            forget(sh);
            return Err(RestoreSkip::Expired(id));
        }
        let mut d = Driver::new(id.clone(), Some(task.clone()), OutputCheck::None);
        d.last_inputs = p.handle.view.input_requests.clone();
        d.tool = p.tool;
        d.durable = true;
        d.acked = p.acked.into_iter().collect();
        // Rule 8: like the answers of an inconclusive update: the first poll decides.
        // Checked against the request the first poll lists, before they go out
        // (`Driver::on_inputs`).
        d.unsettled = p.pending.keys().cloned().collect();
        d.answered = p.pending;
        // What the store holds: a later change (or `store_answers` off) rewrites it.
        d.stored = Some(rec.clone());
        let view = d.view().unwrap_or(p.handle.view);
        self.drivers.insert(id, Box::new(d));
        Ok(view)
    }
}
