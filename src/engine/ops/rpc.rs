//! Single requests ([`RpcOp`]): answered from the cache when possible, and the
//! post-processing of each kind of result (`server/discover`, listings, `tasks/get`...).

use super::{policy_for, with_meta, Aborted, Ctx, OpInput, Operation, Purpose, Step};
use crate::engine::actions::{Action, OpId, OpOptions, Output, TaskView};
use crate::engine::cache::is_cacheable;
use crate::engine::call::{Call, CallInput, CallOutcome};
use crate::engine::shared::{Era, Owner, Shared};
use crate::engine::task::{map_task_error, ttl_passed, TaskBook};
use crate::error::{Error, ErrorKind, Result};
use crate::http::request::META_SERVER_INFO;
use crate::json::RawJson;
use crate::json::{Map, Value};
use crate::protocol::codes::MISSING_REQUIRED_CLIENT_CAPABILITY;
use crate::protocol::legacy::decode_legacy_task_value;
use crate::protocol::tasks::{decode_detailed_task, DetailedTask, TaskStatus};
use crate::time::Millis;

/// The cache key of a request: the params that affect the result.
fn cache_key(method: &str, params: &Map) -> (String, Option<String>) {
    match method {
        "resources/read" => {
            let uri = params
                .get("uri")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            (uri.clone(), Some(uri))
        }
        _ => (
            params
                .get("cursor")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            None,
        ),
    }
}

/// Post-processing of a complete result.
pub(super) fn finish_rpc(
    sh: &mut Shared,
    tasks: &mut TaskBook,
    purpose: &Purpose,
    raw: RawJson,
) -> Result<Output> {
    match purpose {
        Purpose::Discover => {
            let Ok(Value::Object(mut m)) = crate::json::parse(raw.get()) else {
                return Err(Error::invalid_result(
                    "server/discover result is not an object",
                ));
            };
            sh.server_capabilities =
                Some(crate::protocol::discover::check_discover_result(&m)?.clone());
            if let Some(info) = m
                .get("_meta")
                .and_then(|x| x.get(META_SERVER_INFO))
                .cloned()
            {
                m.get_or_insert("serverInfo", info);
            }
            Ok(Output::Value(Value::Object(m)))
        }
        Purpose::ToolsList => {
            let mut warnings = Vec::new();
            let page = sh
                .tools
                .ingest_page(&raw, sh.era == Era::Modern, &mut warnings)?;
            for w in warnings {
                sh.push(Action::Warn { message: w });
            }
            Ok(Output::Value(page))
        }
        Purpose::PromptsList
        | Purpose::ResourcesList
        | Purpose::ResourceTemplatesList
        | Purpose::TaskList
        | Purpose::Read
        | Purpose::Prompt
        | Purpose::Complete
        | Purpose::CallTool => {
            if !raw.get().trim_start().starts_with('{') {
                return Err(Error::invalid_result("result is not a JSON object"));
            }
            Ok(Output::Raw(raw))
        }
        Purpose::TaskGet(id) => {
            let dt = if sh.era == Era::Modern {
                decode_detailed_task(&raw, Some(id), false)?
            } else {
                let v: Value = crate::json::parse(raw.get())
                    .map_err(|_| Error::invalid_result("tasks/get result is not JSON"))?;
                let task = decode_legacy_task_value(&v)?;
                if &task.task_id != id {
                    return Err(Error::invalid_result("tasks/get answered another task"));
                }
                DetailedTask {
                    task,
                    input_requests: Vec::new(),
                    result: None,
                    error: None,
                }
            };
            let input_requests = (dt.task.status == TaskStatus::InputRequired).then(|| {
                let v: Value = crate::json::parse(raw.get()).unwrap_or(Value::Null);
                v.get("inputRequests").cloned().unwrap_or(Value::Null)
            });
            let _ = tasks;
            Ok(Output::Task(TaskView {
                task: dt.task,
                input_requests,
                result: dt.result,
                error: dt.error,
                local: false,
            }))
        }
        Purpose::TaskUpdate(_) => Ok(Output::Empty),
        Purpose::TaskCancel(id) => {
            // Durable tasks: a cancelled task is removed from the task store.
            tasks.forget(sh, id);
            Ok(Output::Empty)
        }
    }
}

/// A single request.
pub(crate) struct RpcOp {
    purpose: Purpose,
    call: Call,
    cache: Option<(String, Option<String>)>,
}

impl RpcOp {
    /// The context is back online: a retry held while offline goes out (`Call::on_online`).
    pub(crate) fn on_online(&mut self, sh: &mut Shared, op: OpId) -> bool {
        self.call.on_online(sh, &Owner::Op(op))
    }

    /// Starts a request; answers from the cache at once when it can.
    pub(crate) fn start(
        cx: &mut Ctx,
        op: OpId,
        purpose: Purpose,
        params: Map,
        extra_headers: Vec<(String, String)>,
        opts: &OpOptions,
    ) -> (Option<RpcOp>, Option<Result<Output>>) {
        let method = purpose.method();
        // This operation's request was the era probe: its answer is already here
        // (`session::detect`, "the first request is the probe").
        if let Some(a) = cx.sh.first_answer.take_if(|a| a.op == op) {
            let r = a
                .answer
                .and_then(|raw| finish_rpc(cx.sh, cx.tasks, &purpose, raw));
            return (None, Some(r));
        }
        let cache = is_cacheable(method).then(|| cache_key(method, &params));
        if let (Some((key, _)), false) = (&cache, opts.no_cache) {
            let auth = cx.sh.cfg.authorization().map(str::to_string);
            if let Some(raw) = cx.sh.cache.get(method, key, auth.as_deref(), cx.sh.now) {
                return (None, Some(finish_rpc(cx.sh, cx.tasks, &purpose, raw)));
            }
        }
        let policy = policy_for(cx.sh, &purpose, opts);
        let mut call = Call::new(method, with_meta(params, opts), extra_headers, policy);
        call.start(cx.sh, &Owner::Op(op));
        (
            Some(RpcOp {
                purpose,
                call,
                cache,
            }),
            None,
        )
    }

    fn on_call(&mut self, cx: &mut Ctx, op: OpId, input: CallInput) -> Step {
        let Some(outcome) = self.call.handle(cx.sh, &Owner::Op(op), input) else {
            return Step::Pending;
        };
        Step::Done(match outcome {
            Ok(CallOutcome::Complete(raw)) => {
                if let Some((key, uri)) = &self.cache {
                    let auth = cx.sh.cfg.authorization().map(str::to_string);
                    let now = cx.sh.now;
                    // MRTR retries are not cacheable (their answers depend on the input given).
                    if self.call.params().get("inputResponses").is_none() {
                        cx.sh.cache.put(
                            &self.call.method,
                            key,
                            uri.as_deref(),
                            auth.as_deref(),
                            &raw,
                            now,
                        );
                    }
                }
                finish_rpc(cx.sh, cx.tasks, &self.purpose, raw)
            }
            Ok(CallOutcome::Task(_)) => Err(Error::invalid_result("unexpected task result")),
            Err(e) => Err(match &self.purpose {
                Purpose::TaskGet(id) | Purpose::TaskUpdate(id) | Purpose::TaskCancel(id) => {
                    let last = cx.tasks.last(id);
                    // Rule 14: `-32602` means "no such task" on `tasks/get` (the spec's MUST)
                    // and `tasks/cancel` (whose only param is the task id); on `tasks/update`
                    // it may be about the `inputResponses`, so it stays the server's
                    // McpError (nothing is forgotten) unless the TTL has passed (rule 10).
                    let conclusive = !matches!(self.purpose, Purpose::TaskUpdate(_))
                        || ttl_passed(last, cx.sh.now);
                    let e = if conclusive {
                        map_task_error(e, id, last, cx.sh.now)
                    } else {
                        e
                    };
                    if matches!(e.kind, ErrorKind::TaskNotFound | ErrorKind::TaskExpired) {
                        // Durable tasks: the server no longer knows it.
                        cx.tasks.forget(cx.sh, id);
                    }
                    if e.code == Some(MISSING_REQUIRED_CLIENT_CAPABILITY) {
                        e.with_kind(ErrorKind::MissingRequiredClientCapability)
                    } else {
                        e
                    }
                }
                _ => e,
            }),
        })
    }
}

impl Operation for RpcOp {
    fn handle(&mut self, cx: &mut Ctx, id: OpId, input: OpInput) -> Step {
        match input {
            OpInput::Call(input) => self.on_call(cx, id, input),
            OpInput::Notification(..) | OpInput::TaskFinal(_) | OpInput::Authorized(_) => {
                Step::Pending
            }
        }
    }

    fn deadline(&self) -> Option<Millis> {
        self.call.deadline()
    }

    fn abort(&mut self, cx: &mut Ctx, _id: OpId) -> Aborted {
        self.call.cancel(cx.sh);
        Aborted::Quiet
    }
}
