//! The JS `McpClient` class: each method starts an engine operation and returns a
//! Promise settled when the operation finishes.

use crate::engine::actions::{OpId, OpOptions};
use crate::engine::core::{Core, TaskRef};
use crate::engine::ops::{Listing, Purpose, Want};
use crate::engine::transport::{era_name, Transport};
use crate::error::Error;
use crate::json::Value;
use crate::protocol::requests;
use crate::time::Millis;
use crate::web::convert::{error_to_js, from_js, to_js, tool_arguments};
use crate::web::driver::{abort_closure, now, pump, register, Driver, Handle, Kind, Pending};
use crate::web::js::Subscription;
use crate::web::options::{call_options, client_options, get};
use js_sys::{Function, Promise, Reflect};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// An MCP client for one server.
#[wasm_bindgen]
pub struct McpClient {
    h: Handle,
}

fn reject(e: &Error) -> Promise {
    Promise::reject(&error_to_js(e, JsValue::UNDEFINED))
}

/// A task reference from a `Task`, a stored task JSON, or a task id.
fn task_ref(v: &JsValue) -> Result<TaskRef, Error> {
    if let Some(id) = v.as_string() {
        return Ok(TaskRef {
            task_id: id,
            seed: None,
        });
    }
    if !v.is_object() {
        return Err(Error::config("expected a Task or a task id"));
    }
    let json = match Reflect::get(v, &JsValue::from_str("toJSON"))
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
    {
        Some(f) => f
            .call0(v)
            .map_err(|_| Error::config("task.toJSON() failed"))?,
        None => v.clone(),
    };
    TaskRef::from_json(&from_js(&json)?.unwrap_or(Value::Null))
}

/// What starts an operation in the engine, for [`McpClient::run_boxed`].
type Start<'a> = Box<dyn FnOnce(&mut Core, &OpOptions, Millis) -> OpId + 'a>;

impl McpClient {
    /// `tools/call`, plain or as a task: the arguments (`null` or absent: none) and the run.
    fn tool(&self, name: String, args: &JsValue, opts: &JsValue, as_task: bool) -> Promise {
        // The arguments cross as JSON text and go into the request as such.
        let args = match tool_arguments(args) {
            Ok(a) => a,
            Err(e) => return reject(&e),
        };
        self.run(opts, move |core, o, t| {
            core.call_tool_args(&name, args, as_task, o, t)
        })
    }

    /// Starts an operation for a JS call and returns its promise.
    fn run(
        &self,
        opts: &JsValue,
        start: impl FnOnce(&mut Core, &OpOptions, Millis) -> OpId,
    ) -> Promise {
        self.run_boxed(opts, Box::new(start))
    }

    /// `run`'s body, once for every method: generic, it was compiled once per method with its
    /// promise's closures (14 copies; BENCHMARKS.md, the eighteenth session).
    #[inline(never)]
    fn run_boxed(&self, opts: &JsValue, start: Start<'_>) -> Promise {
        let copts = match call_options(opts) {
            Ok(o) => o,
            Err(e) => return Promise::reject(&e),
        };
        // The promise is the fetch runner's, made in JS (no closure of ours, no call back
        // into the wasm); `driver::done` settles it. (The runner is made with the client:
        // it is always there.)
        let fetcher = {
            let d = self.h.borrow();
            d.fetcher.clone().filter(|_| !d.closed)
        };
        let Some(f) = fetcher else {
            return reject(&Error::abort("the client is closed"));
        };
        let h = &self.h;
        let t = now();
        let op = start(&mut h.borrow_mut().core, &copts.opts, t);
        let bare =
            copts.signal.is_none() && copts.on_progress.is_none() && copts.on_status.is_none();
        // The direct path (BENCHMARKS.md, the thirty-third and thirty-fourth sessions): a
        // call with nothing to keep here whose only action is its plain request hands that
        // to the runner, which makes the promise with it (`fetch::call`), reads a usual
        // answer itself and settles the promise with its result (`Core::on_result_read`):
        // the driver's pump performs nothing, and the promise needs no call of its own.
        // Anything else takes the pump.
        let direct = bare
            .then(|| h.borrow_mut().core.take_plain_send(op))
            .flatten();
        if let Some(req) = direct {
            let promise = crate::web::fetch::call(h, &f, req, op, t);
            pump(h);
            return promise;
        }
        // Asked for before anything can end the operation (a signal aborted beforehand
        // ends it in `register`).
        let promise = f.wait(op.0 as f64);
        // A call without a signal or callbacks has nothing to keep here: `driver::done`
        // settles an operation it has no `Pending` for as a `Kind::Value` one.
        if !bare {
            let abort = copts.signal.map(|s| (s, abort_closure(h, op)));
            register(
                h,
                op,
                Pending {
                    kind: Kind::Value,
                    on_progress: copts.on_progress,
                    on_status: copts.on_status,
                    abort,
                },
            );
        }
        pump(h);
        promise
    }

    fn list_page(&self, listing: Listing, params: JsValue, opts: JsValue) -> Promise {
        let p = match from_js(&params).and_then(requests::page_params) {
            Ok(p) => p,
            Err(e) => return reject(&e),
        };
        self.run(&opts, move |core, o, t| {
            core.request(listing.purpose(), p, o, t)
        })
    }

    fn list_all(&self, listing: Listing, opts: JsValue) -> Promise {
        self.run(&opts, move |core, o, t| core.list_all(listing, o, t))
    }
}

#[wasm_bindgen]
impl McpClient {
    /// A client for the MCP server at `url` (the MCP endpoint, e.g. `https://host/mcp`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        url: String,
        #[wasm_bindgen(unchecked_optional_param_type = "McpClientOptions")] options: JsValue,
    ) -> Result<McpClient, JsValue> {
        let (cfg, handlers) = client_options(url.clone(), &options)?;
        let core = Core::new(cfg, now()).map_err(|e| error_to_js(&e, JsValue::UNDEFINED))?;
        let custom_fetch = handlers.fetch.clone();
        let h = Rc::new(RefCell::new(Driver::new(core, handlers, url)));
        let f = crate::web::fetch::fetcher(&h, custom_fetch.as_ref());
        {
            let mut d = h.borrow_mut();
            d.stand_in = crate::web::fetch::stand_in_prefix(&f);
            d.fetcher = Some(Rc::new(f));
        }
        crate::web::visibility::watch(&h);
        crate::web::peers::setup(&h);
        Ok(McpClient { h })
    }

    #[wasm_bindgen(getter)]
    pub fn url(&self) -> String {
        self.h.borrow().url.clone()
    }

    /// The protocol version in use.
    #[wasm_bindgen(getter, js_name = protocolVersion)]
    pub fn protocol_version(&self) -> String {
        self.h.borrow().core.protocol_version().to_string()
    }

    /// `modern` (2026-07-28), `legacy` (2025 Streamable HTTP) or `http+sse` (2024-11-05).
    #[wasm_bindgen(getter, unchecked_return_type = "'modern' | 'legacy' | 'http+sse'")]
    pub fn era(&self) -> String {
        era_name(self.h.borrow().core.era()).to_string()
    }

    /// How the client talks to the server: `streamable-http`, or for 2024-11-05 servers
    /// `http+sse (EventSource)` / `http+sse (fetch)` (fetch when custom headers are needed).
    #[wasm_bindgen(getter)]
    pub fn transport(&self) -> String {
        let d = self.h.borrow();
        Transport::of(d.core.era(), d.sse_transport)
            .as_str()
            .to_string()
    }

    /// True once the server's era is known (`era` is meaningful then).
    #[wasm_bindgen(getter, js_name = eraKnown)]
    pub fn era_known(&self) -> bool {
        self.h.borrow().core.era_known()
    }

    /// True when the tasks extension is declared.
    #[wasm_bindgen(getter, js_name = tasksEnabled)]
    pub fn tasks_enabled(&self) -> bool {
        self.h.borrow().core.config().tasks_enabled()
    }

    /// The server's capabilities once `discover()` ran.
    #[wasm_bindgen(getter, js_name = serverCapabilities, unchecked_return_type = "ServerCapabilities | undefined")]
    pub fn server_capabilities(&self) -> JsValue {
        self.h
            .borrow()
            .core
            .server_capabilities()
            .map(to_js)
            .unwrap_or(JsValue::UNDEFINED)
    }

    /// `server/discover`: supported versions, capabilities, server info and instructions.
    #[wasm_bindgen(unchecked_return_type = "Promise<DiscoverResult>")]
    pub fn discover(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] opts: JsValue,
    ) -> Promise {
        self.run(&opts, |core, o, t| core.discover(o, t))
    }

    /// One page of `tools/list` (tools with invalid `x-mcp-header` annotations are dropped).
    #[wasm_bindgen(js_name = listTools, unchecked_return_type = "Promise<ListToolsResult>")]
    pub fn list_tools(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "PageParams")] params: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] opts: JsValue,
    ) -> Promise {
        self.list_page(Listing::Tools, params, opts)
    }

    /// Every tool (follows `nextCursor`).
    #[wasm_bindgen(js_name = listAllTools, unchecked_return_type = "Promise<Tool[]>")]
    pub fn list_all_tools(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] opts: JsValue,
    ) -> Promise {
        self.list_all(Listing::Tools, opts)
    }

    /// `tools/call`. Input requests go to the handlers; a task is driven to its result.
    #[wasm_bindgen(js_name = callTool, unchecked_return_type = "Promise<CallToolResult>")]
    pub fn call_tool(
        &self,
        name: String,
        #[wasm_bindgen(unchecked_optional_param_type = "Record<string, unknown>")] args: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "CallToolOptions")] opts: JsValue,
    ) -> Promise {
        self.tool(name, &args, &opts, false)
    }

    /// `tools/call` returning the task handle (a local completed task when the server answered at once).
    #[wasm_bindgen(js_name = callToolAsTask, unchecked_return_type = "Promise<Task>")]
    pub fn call_tool_as_task(
        &self,
        name: String,
        #[wasm_bindgen(unchecked_optional_param_type = "Record<string, unknown>")] args: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "CallToolOptions")] opts: JsValue,
    ) -> Promise {
        self.tool(name, &args, &opts, true)
    }

    #[wasm_bindgen(js_name = listResources, unchecked_return_type = "Promise<ListResourcesResult>")]
    pub fn list_resources(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "PageParams")] params: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] opts: JsValue,
    ) -> Promise {
        self.list_page(Listing::Resources, params, opts)
    }

    #[wasm_bindgen(js_name = listAllResources, unchecked_return_type = "Promise<Resource[]>")]
    pub fn list_all_resources(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] opts: JsValue,
    ) -> Promise {
        self.list_all(Listing::Resources, opts)
    }

    #[wasm_bindgen(js_name = listResourceTemplates, unchecked_return_type = "Promise<ListResourceTemplatesResult>")]
    pub fn list_resource_templates(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "PageParams")] params: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] opts: JsValue,
    ) -> Promise {
        self.list_page(Listing::ResourceTemplates, params, opts)
    }

    #[wasm_bindgen(js_name = listAllResourceTemplates, unchecked_return_type = "Promise<ResourceTemplate[]>")]
    pub fn list_all_resource_templates(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] opts: JsValue,
    ) -> Promise {
        self.list_all(Listing::ResourceTemplates, opts)
    }

    /// `resources/read` (may ask input).
    #[wasm_bindgen(js_name = readResource, unchecked_return_type = "Promise<ReadResourceResult>")]
    pub fn read_resource(
        &self,
        uri: String,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] opts: JsValue,
    ) -> Promise {
        let p = requests::read_resource_params(uri);
        self.run(&opts, move |core, o, t| {
            core.request(Purpose::Read, p, o, t)
        })
    }

    #[wasm_bindgen(js_name = listPrompts, unchecked_return_type = "Promise<ListPromptsResult>")]
    pub fn list_prompts(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "PageParams")] params: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] opts: JsValue,
    ) -> Promise {
        self.list_page(Listing::Prompts, params, opts)
    }

    #[wasm_bindgen(js_name = listAllPrompts, unchecked_return_type = "Promise<Prompt[]>")]
    pub fn list_all_prompts(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] opts: JsValue,
    ) -> Promise {
        self.list_all(Listing::Prompts, opts)
    }

    /// `prompts/get` (may ask input).
    #[wasm_bindgen(js_name = getPrompt, unchecked_return_type = "Promise<GetPromptResult>")]
    pub fn get_prompt(
        &self,
        name: String,
        #[wasm_bindgen(unchecked_optional_param_type = "Record<string, string>")] args: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] opts: JsValue,
    ) -> Promise {
        let p = match from_js(&args).and_then(|a| requests::get_prompt_params(name, a)) {
            Ok(p) => p,
            Err(e) => return reject(&e),
        };
        self.run(&opts, move |core, o, t| {
            core.request(Purpose::Prompt, p, o, t)
        })
    }

    /// `completion/complete`.
    #[wasm_bindgen(unchecked_return_type = "Promise<CompleteResult>")]
    pub fn complete(
        &self,
        #[wasm_bindgen(js_name = ref, unchecked_param_type = "PromptReference | ResourceTemplateReference")]
        reference: JsValue,
        #[wasm_bindgen(unchecked_param_type = "{ name: string; value: string }")] argument: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "{ arguments?: Record<string, string> }")]
        context: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] opts: JsValue,
    ) -> Promise {
        let p = match requests::complete_params(
            from_js(&reference),
            from_js(&argument),
            from_js(&context),
        ) {
            Ok(p) => p,
            Err(e) => return reject(&e),
        };
        self.run(&opts, move |core, o, t| {
            core.request(Purpose::Complete, p, o, t)
        })
    }

    /// `tasks/get`: the task as the server sees it now.
    #[wasm_bindgen(js_name = getTask, unchecked_return_type = "Promise<Task>")]
    pub fn get_task(
        &self,
        #[wasm_bindgen(js_name = taskOrId, unchecked_param_type = "Task | TaskJSON | string")] task: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] opts: JsValue,
    ) -> Promise {
        match task_ref(&task) {
            Ok(t) => self.run(&opts, move |core, o, now| core.get_task(&t, o, now)),
            Err(e) => reject(&e),
        }
    }

    /// Durable tasks: this server's stored tasks that are not finished (after a reload,
    /// say). `waitForTask(t)` continues each: it polls at the stored `pollIntervalMs`,
    /// re-sends an answer the server had not acknowledged, and presents only input keys
    /// never answered. A stored entry that cannot be used is an `onWarning`; never rejects.
    #[wasm_bindgen(js_name = resumeTasks, unchecked_return_type = "Promise<Task[]>")]
    pub fn resume_tasks(&self) -> Promise {
        crate::web::store::resume(&self.h)
    }

    /// True while another tab or worker of this origin polls the task for this client
    /// (`coordination: 'auto'`): this client waits on it and gets its status from there.
    /// False when this client polls it itself, or does not wait on it.
    #[wasm_bindgen(js_name = isPolledElsewhere)]
    pub fn is_polled_elsewhere(
        &self,
        #[wasm_bindgen(js_name = taskOrId, unchecked_param_type = "Task | TaskJSON | string")] task: JsValue,
    ) -> bool {
        let Ok(t) = task_ref(&task) else {
            return false;
        };
        self.h
            .try_borrow()
            .is_ok_and(|d| d.core.task_polled_elsewhere(&t.task_id))
    }

    /// Waits until the task completes (resolves with the completed Task) or fails,
    /// is cancelled or expires (rejects). A timed-out or aborted wait leaves the task running.
    #[wasm_bindgen(js_name = waitForTask, unchecked_return_type = "Promise<Task>")]
    pub fn wait_for_task(
        &self,
        #[wasm_bindgen(js_name = taskOrId, unchecked_param_type = "Task | TaskJSON | string")] task: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "WaitOptions")] opts: JsValue,
    ) -> Promise {
        match task_ref(&task) {
            Ok(t) => self.run(&opts, move |core, o, now| {
                core.wait_task(t, Want::Task, o, now)
            }),
            Err(e) => reject(&e),
        }
    }

    /// Waits for the task and returns its result (for a tool call, the `CallToolResult`).
    #[wasm_bindgen(js_name = getTaskResult, unchecked_return_type = "Promise<CallToolResult>")]
    pub fn get_task_result(
        &self,
        #[wasm_bindgen(js_name = taskOrId, unchecked_param_type = "Task | TaskJSON | string")] task: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "WaitOptions")] opts: JsValue,
    ) -> Promise {
        match task_ref(&task) {
            Ok(t) => self.run(&opts, move |core, o, now| {
                core.wait_task(t, Want::Result, o, now)
            }),
            Err(e) => reject(&e),
        }
    }

    /// `tasks/update`: answers for a task's input requests, keyed like them.
    #[wasm_bindgen(js_name = updateTask, unchecked_return_type = "Promise<void>")]
    pub fn update_task(
        &self,
        #[wasm_bindgen(js_name = taskOrId, unchecked_param_type = "Task | TaskJSON | string")] task: JsValue,
        #[wasm_bindgen(js_name = inputResponses, unchecked_param_type = "InputResponses")]
        responses: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] opts: JsValue,
    ) -> Promise {
        let t = match task_ref(&task) {
            Ok(t) => t,
            Err(e) => return reject(&e),
        };
        let r = match from_js(&responses) {
            Ok(Some(Value::Object(m))) => m,
            Ok(_) => return reject(&Error::config("inputResponses must be an object")),
            Err(e) => return reject(&e),
        };
        self.run(&opts, move |core, o, now| core.update_task(&t, r, o, now))
    }

    /// `tasks/cancel`: asks the server to cancel (an acknowledgement; the task may still complete).
    #[wasm_bindgen(js_name = cancelTask, unchecked_return_type = "Promise<void>")]
    pub fn cancel_task(
        &self,
        #[wasm_bindgen(js_name = taskOrId, unchecked_param_type = "Task | TaskJSON | string")] task: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] opts: JsValue,
    ) -> Promise {
        match task_ref(&task) {
            Ok(t) => self.run(&opts, move |core, o, now| core.cancel_task(&t, o, now)),
            Err(e) => reject(&e),
        }
    }

    /// `tasks/list` (2025-11-25 servers only: 2026-07-28 tasks cannot be enumerated).
    #[wasm_bindgen(js_name = listTasks, unchecked_return_type = "Promise<{ tasks: TaskJSON[]; nextCursor?: string }>")]
    pub fn list_tasks(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "PageParams")] params: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] opts: JsValue,
    ) -> Promise {
        // What cannot be read as JSON names no cursor (as `params.cursor` that is not a string).
        let cursor = requests::task_list_cursor(from_js(&params).ok().flatten().as_ref());
        self.run(&opts, move |core, o, t| core.list_tasks(cursor, o, t))
    }

    /// `subscriptions/listen`: resolves with the Subscription once the server acknowledged.
    #[wasm_bindgen(unchecked_return_type = "Promise<Subscription>")]
    pub fn listen(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SubscriptionFilter")] filter: JsValue,
        #[wasm_bindgen(js_name = onNotification, unchecked_optional_param_type = "(method: string, params: Record<string, unknown>) => void")]
        on_notification: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "ListenOptions")] opts: JsValue,
    ) -> Promise {
        let filter = match from_js(&filter) {
            Ok(v) => requests::listen_filter(v),
            Err(e) => return reject(&e),
        };
        let copts = match call_options(&opts) {
            Ok(o) => o,
            Err(e) => return Promise::reject(&e),
        };
        if self.h.borrow().closed {
            return reject(&Error::abort("the client is closed"));
        }
        let on_reconnect = get(&opts, "onReconnect");
        let op_cell = Rc::new(Cell::new(OpId::default()));
        let weak = Rc::downgrade(&self.h);
        let cell = op_cell.clone();
        let close = Closure::wrap(Box::new(move || {
            let Some(h) = weak.upgrade() else { return };
            let op = cell.get();
            let p = h.borrow_mut().pending.remove(&op);
            if let Some(Pending {
                kind: Kind::Listen { sub, .. },
                abort,
                ..
            }) = p
            {
                if let Some((sig, cb)) = &abort {
                    let _ = sig
                        .remove_event_listener_with_callback("abort", cb.as_ref().unchecked_ref());
                }
                sub.end(JsValue::UNDEFINED);
            }
            {
                let mut d = h.borrow_mut();
                let t = now();
                d.core.abort(op, Error::abort("subscription closed"), t);
            }
            pump(&h);
        }) as Box<dyn FnMut()>);
        let close_fn: Function = close.into_js_value().unchecked_into();
        let sub = Subscription::new(&close_fn, &on_notification, &on_reconnect);
        let h = self.h.clone();
        let mut state = Some((sub, copts));
        let promise = Promise::new(&mut |resolve, reject_fn| {
            let Some((sub, c)) = state.take() else { return };
            let op = {
                let mut d = h.borrow_mut();
                let t = now();
                d.core.listen(&filter, t)
            };
            op_cell.set(op);
            let abort = c.signal.map(|s| (s, abort_closure(&h, op)));
            register(
                &h,
                op,
                Pending {
                    kind: Kind::Listen {
                        sub,
                        resolved: false,
                        resolve,
                        reject: reject_fn,
                    },
                    on_progress: None,
                    on_status: None,
                    abort,
                },
            );
        });
        pump(&self.h);
        promise
    }

    /// OAuth (the `auth` option): gets a token now instead of at the first refusal, asking the
    /// person only when no usable token is held. Discovery uses the well-known metadata URLs.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn authorize(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "{ signal?: AbortSignal }")] opts: JsValue,
    ) -> Promise {
        self.run(&opts, |core, _o, t| core.authorize(t))
    }

    /// Ends every operation (they reject with `AbortError`) and frees the client.
    pub fn close(&self) {
        {
            let mut d = self.h.borrow_mut();
            d.closed = true;
            let t = now();
            d.core.close(t);
        }
        crate::web::visibility::unwatch(&self.h);
        pump(&self.h);
        crate::web::auth_lock::close(&self.h);
        crate::web::peers::close(&self.h);
    }
}

/// The error classes (`McpError`, `HttpError`, …) for the package entry to export.
#[wasm_bindgen(js_name = errorClasses, skip_typescript)]
pub fn error_classes() -> JsValue {
    crate::web::js::error_classes_js()
}

/// The package version.
#[wasm_bindgen(js_name = version)]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
