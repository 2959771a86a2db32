//! A driver for tests of the engine: it records what the engine asks for, lets a test
//! answer requests with scripted responses, answer input requests, and move a fake clock.
//! No sockets, no sleeping.

use crate::engine::actions::{
    Action, Ask, AskId, AuthAction, AuthStepId, OpId, Output, PeerAction, SubscriptionEvent,
    TaskView,
};
use crate::engine::config::Config;
use crate::engine::core::{Core, ResponseHead};
pub use crate::engine::ops::{Listing, Purpose};
use crate::error::Error;
use crate::http::request::HttpRequest;
use crate::json;
use crate::json::Value;
use crate::time::Millis;
use std::collections::{HashMap, VecDeque};

/// A request the engine sent, with its body parsed.
#[derive(Clone, Debug)]
pub struct Sent {
    pub req: HttpRequest,
    pub body: Value,
}

impl Sent {
    pub(crate) fn xfer(&self) -> u64 {
        self.req.id
    }
    pub(crate) fn method(&self) -> &str {
        self.body["method"].as_str().unwrap_or("")
    }
    pub(crate) fn id(&self) -> Value {
        self.body["id"].clone()
    }
    pub(crate) fn params(&self) -> &Value {
        &self.body["params"]
    }
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.req
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The recorded outcome of an operation.
pub type Outcome = Result<Value, Error>;

pub struct Harness {
    pub core: Core,
    pub now: Millis,
    /// Requests sent and not yet answered, oldest first.
    pub outbox: VecDeque<Sent>,
    /// Every request ever sent.
    pub history: Vec<Sent>,
    pub cancelled: Vec<u64>,
    pub asks: Vec<Ask>,
    pub cancelled_asks: Vec<AskId>,
    /// OAuth steps of the person withdrawn.
    pub cancelled_auth: Vec<AuthStepId>,
    pub done: HashMap<OpId, Outcome>,
    pub outputs: HashMap<OpId, String>,
    pub progress: Vec<(OpId, f64, Option<f64>, Option<String>)>,
    pub logs: Vec<Value>,
    pub notifications: Vec<(String, Value)>,
    pub statuses: Vec<(OpId, TaskView)>,
    pub subs: Vec<(OpId, SubscriptionEvent)>,
    pub warnings: Vec<String>,
    /// OAuth work asked of the host, oldest first.
    pub auth: Vec<AuthAction>,
    /// Durable tasks: every `StoreTask` (`Some`) and `ForgetTask` (`None`), in order, and
    /// the store they leave.
    pub store_log: Vec<(String, Option<Value>)>,
    pub store: std::collections::BTreeMap<String, Value>,
    /// Coordination asked of the host (Web Locks, messages to other contexts), oldest first.
    pub peer: Vec<PeerAction>,
}

impl Harness {
    pub(crate) fn new(cfg: Config) -> Harness {
        let now = 1_764_066_600_000; // 2025-11-25T10:30:00Z, the spec examples' createdAt
        let core = Core::new(cfg, now).expect("valid config");
        Harness {
            core,
            now,
            outbox: VecDeque::new(),
            history: Vec::new(),
            cancelled: Vec::new(),
            asks: Vec::new(),
            cancelled_asks: Vec::new(),
            cancelled_auth: Vec::new(),
            done: HashMap::new(),
            outputs: HashMap::new(),
            progress: Vec::new(),
            logs: Vec::new(),
            notifications: Vec::new(),
            statuses: Vec::new(),
            subs: Vec::new(),
            warnings: Vec::new(),
            auth: Vec::new(),
            store_log: Vec::new(),
            store: std::collections::BTreeMap::new(),
            peer: Vec::new(),
        }
    }

    /// A harness with a default modern configuration for `http://mcp.test/mcp`.
    pub(crate) fn modern() -> Harness {
        let mut cfg = Config::new("http://mcp.test/mcp");
        cfg.version = crate::engine::config::VersionChoice::Pinned("2026-07-28".into());
        Harness::new(cfg)
    }

    /// Drains the engine's actions.
    pub(crate) fn pump(&mut self) {
        while let Some(a) = self.core.poll_action() {
            match a {
                Action::Send(req) => {
                    // Bodies are JSON, but OAuth token requests' forms (kept as text).
                    let form = req.headers.iter().any(|(n, v)| {
                        n.eq_ignore_ascii_case("content-type")
                            && v == "application/x-www-form-urlencoded"
                    });
                    let body = req
                        .body
                        .as_deref()
                        .map(|b| std::str::from_utf8(b).expect("engine sends UTF-8"))
                        .map(|b| match form {
                            true => Value::String(b.into()),
                            false => serde_json::from_str(b).expect("engine sends valid JSON"),
                        })
                        .unwrap_or(Value::Null);
                    let s = Sent { req, body };
                    self.history.push(s.clone());
                    self.outbox.push_back(s);
                }
                Action::Cancel(x) => {
                    self.cancelled.push(x);
                    self.outbox.retain(|s| s.xfer() != x);
                }
                Action::Ask(a) => self.asks.push(a),
                Action::CancelAsk(id) => self.cancelled_asks.push(id),
                Action::CancelAuth(id) => self.cancelled_auth.push(id),
                Action::Progress {
                    op,
                    progress,
                    total,
                    message,
                } => self.progress.push((op, progress, total, message)),
                Action::Log { params, .. } => self.logs.push(params),
                Action::Notify { method, params } => self.notifications.push((method, params)),
                Action::TaskStatus { op, task } => self.statuses.push((op, task)),
                Action::Subscription { op, event } => self.subs.push((op, event)),
                Action::Warn { message } => self.warnings.push(message),
                Action::Auth(a) => self.auth.push(a),
                Action::StoreTask { key, value } => {
                    self.store_log.push((key.clone(), Some(value.clone())));
                    self.store.insert(key, value);
                }
                Action::ForgetTask { key } => {
                    self.store.remove(&key);
                    self.store_log.push((key, None));
                }
                Action::Peer(a) => self.peer.push(a),
                Action::Done { op, outcome } => {
                    if let Ok(Output::Raw(r)) = &outcome {
                        self.outputs.insert(op, r.get().to_string());
                    }
                    self.done.insert(op, outcome.map(|o| o.to_value()));
                }
            }
        }
    }

    /// The oldest unanswered request (panics in tests when there is none).
    pub(crate) fn take(&mut self) -> Sent {
        self.pump();
        self.outbox.pop_front().expect("a request was sent")
    }

    /// The oldest unanswered request, if any.
    pub(crate) fn try_take(&mut self) -> Option<Sent> {
        self.pump();
        self.outbox.pop_front()
    }

    pub(crate) fn head(&mut self, xfer: u64, status: u16, ct: Option<&str>) {
        self.core.on_head(
            xfer,
            ResponseHead {
                status,
                content_type: ct,
                ..Default::default()
            },
            self.now,
        );
        self.pump();
    }

    /// Hands a whole answer over at once (`Core::on_answer`), as the shell does with a JSON
    /// answer it read in one piece: its head, its body and its end.
    pub(crate) fn whole(&mut self, xfer: u64, status: u16, ct: Option<&str>, body: &[u8]) {
        let head = ResponseHead {
            status,
            content_type: ct,
            ..Default::default()
        };
        self.core.on_answer(xfer, head, body.to_vec(), self.now);
        self.pump();
    }

    pub(crate) fn chunk(&mut self, xfer: u64, bytes: &[u8]) {
        self.core.on_chunk(xfer, bytes, self.now);
        self.pump();
    }

    pub(crate) fn end(&mut self, xfer: u64) {
        self.core.on_end(xfer, self.now);
        self.pump();
    }

    pub(crate) fn fail(&mut self, xfer: u64, e: Error) {
        self.core.on_fail(xfer, e, self.now);
        self.pump();
    }

    /// Answers a request with a JSON body.
    pub(crate) fn reply(&mut self, s: &Sent, status: u16, body: Value) {
        self.head(s.xfer(), status, Some("application/json"));
        self.chunk(s.xfer(), body.to_string().as_bytes());
        self.end(s.xfer());
    }

    /// Answers a notification or response POST as servers do: 202 without a body.
    pub(crate) fn accepted(&mut self, s: &Sent) {
        self.head(s.xfer(), 202, None);
        self.end(s.xfer());
    }

    /// Answers with `{"jsonrpc":"2.0","id":<id>,"result":result}`.
    pub(crate) fn result(&mut self, s: &Sent, result: Value) {
        let body = json!({"jsonrpc":"2.0","id":s.id(),"result":result});
        self.reply(s, 200, body);
    }

    /// Answers with a JSON-RPC error at `status`.
    pub(crate) fn error(
        &mut self,
        s: &Sent,
        status: u16,
        code: i64,
        message: &str,
        data: Option<Value>,
    ) {
        let mut err = json!({"code":code,"message":message});
        if let Some(d) = data {
            err["data"] = d;
        }
        let body = json!({"jsonrpc":"2.0","id":s.id(),"error":err});
        self.reply(s, status, body);
    }

    /// Answers with an SSE stream of these messages; `end` closes it.
    pub(crate) fn sse(&mut self, s: &Sent, messages: &[Value], end: bool) {
        self.head(s.xfer(), 200, Some("text/event-stream"));
        for m in messages {
            self.chunk(
                s.xfer(),
                format!("event: message\ndata: {m}\n\n").as_bytes(),
            );
        }
        if end {
            self.end(s.xfer());
        }
    }

    /// Moves the clock and fires due timers.
    pub(crate) fn advance(&mut self, ms: u64) {
        self.now += ms;
        self.core.on_timer(self.now);
        self.pump();
    }

    /// Moves the clock to the engine's next deadline and fires it.
    pub(crate) fn advance_to_deadline(&mut self) -> Option<Millis> {
        let d = self.core.next_deadline()?;
        if d > self.now {
            self.now = d;
        }
        self.core.on_timer(self.now);
        self.pump();
        Some(d)
    }

    pub(crate) fn answer(&mut self, ask: AskId, v: Result<Value, Error>) {
        self.core.answer(ask, v, self.now);
        self.pump();
    }

    /// The outcome of an op, if done.
    pub(crate) fn outcome(&mut self, op: OpId) -> Option<&Outcome> {
        self.pump();
        self.done.get(&op)
    }

    pub(crate) fn ok(&mut self, op: OpId) -> Value {
        match self.outcome(op) {
            Some(Ok(v)) => v.clone(),
            other => panic!("op {op} not ok: {other:?}"),
        }
    }

    pub(crate) fn err(&mut self, op: OpId) -> Error {
        match self.outcome(op) {
            Some(Err(e)) => e.clone(),
            other => panic!("op {op} did not fail: {other:?}"),
        }
    }
}

/// A 2026-07-28 configuration for `http://mcp.test/mcp` with the tasks extension declared
/// and elicitation's form mode (and its URL mode when `url`).
pub(crate) fn tasks_config(url: bool) -> Config {
    let mut c = Config::new("http://mcp.test/mcp");
    c.version = crate::engine::config::VersionChoice::Pinned("2026-07-28".into());
    c.extensions
        .insert("io.modelcontextprotocol/tasks".into(), json!({}));
    c.elicitation = Some(crate::engine::config::ElicitationModes { form: true, url });
    c
}

/// A JSON-RPC response to `s` with `result`, as bytes.
pub(crate) fn result_body(s: &Sent, result: Value) -> Vec<u8> {
    json!({"jsonrpc":"2.0","id":s.id(),"result":result})
        .to_string()
        .into_bytes()
}

/// What a run leaves that the host or the server could see, as text to compare between
/// two runs: outcomes, results, every request (id, URL, headers, body), cancellations,
/// asks, warnings, logs, notifications, the next deadline, the operations in flight and
/// what is still booked.
pub(crate) fn snapshot(h: &mut Harness) -> String {
    h.pump();
    let mut done: Vec<String> = h.done.iter().map(|(k, v)| format!("{k:?} {v:?}")).collect();
    done.sort();
    let mut outputs: Vec<String> = h
        .outputs
        .iter()
        .map(|(k, v)| format!("{k:?} {v}"))
        .collect();
    outputs.sort();
    let sent: Vec<String> = h
        .history
        .iter()
        .map(|s| format!("{} {} {:?} {}", s.xfer(), s.req.url, s.req.headers, s.body))
        .collect();
    format!(
        "done {done:?}\noutputs {outputs:?}\nsent {sent:?}\ncancelled {:?}\nasks {:?}\ncancelled asks {:?}\nwarnings {:?}\nstatuses {}\nnotifications {:?}\nlogs {:?}\ndeadline {:?}\nin flight {}\nbusy {:?}",
        h.cancelled,
        h.asks.iter().map(|a| format!("{a:?}")).collect::<Vec<_>>(),
        h.cancelled_asks,
        h.warnings,
        h.statuses.len(),
        h.notifications,
        h.logs,
        h.core.next_deadline(),
        h.core.ops_in_flight(),
        h.core.busy(),
    )
}

/// A task in flight as the spec's examples show it: created at 2025-11-25T10:30:00Z, kept
/// an hour, polled every second.
pub(crate) fn task(id: &str, status: &str) -> Value {
    json!({"taskId":id,"status":status,"createdAt":"2025-11-25T10:30:00Z",
           "lastUpdatedAt":"2025-11-25T10:30:00Z","ttlMs":3_600_000,"pollIntervalMs":1000})
}

/// A tool definition.
pub fn tool(name: &str) -> Value {
    json!({"name": name, "inputSchema": {"type": "object"}})
}

/// A `tools/list` result.
pub fn tools_page(tools: Vec<Value>, next: Option<&str>) -> Value {
    let mut v = json!({"resultType":"complete","tools": tools, "ttlMs": 0, "cacheScope": "public"});
    if let Some(n) = next {
        v["nextCursor"] = json!(n);
    }
    v
}
