//! The JS `Task` handle: a task's state as last seen, its predicates, and a plain JSON
//! form (`toJSON` / `Task.fromJSON`, read and written by `engine::handle`) so a handle can
//! be stored (e.g. in IndexedDB, as the tasks spec suggests) and resumed by another
//! `McpClient`, even after a page reload.

use crate::engine::actions::TaskView;
use crate::engine::handle::StoredTask;
use crate::json::Value;
use crate::protocol::tasks::TaskStatus;
use crate::web::convert::{bad_arg, from_js, raw_to_js, to_js};
use crate::web::driver::now;
use wasm_bindgen::prelude::*;

/// A task handle.
#[wasm_bindgen]
pub struct Task {
    s: StoredTask,
}

impl Task {
    pub fn from_view(view: TaskView, server_url: &str) -> Task {
        Task {
            s: StoredTask {
                view,
                server_url: server_url.to_string(),
                tool: None,
            },
        }
    }

    /// The handle with the name of the tool that created the task.
    pub fn with_tool(mut self, tool: Option<String>) -> Task {
        self.s.tool = tool;
        self
    }
}

#[wasm_bindgen]
impl Task {
    #[wasm_bindgen(getter, js_name = taskId)]
    pub fn task_id(&self) -> String {
        self.s.view.task.task_id.clone()
    }

    /// `working` | `input_required` | `completed` | `failed` | `cancelled`.
    #[wasm_bindgen(getter, unchecked_return_type = "TaskStatus")]
    pub fn status(&self) -> String {
        self.s.view.task.status.as_str().to_string()
    }

    #[wasm_bindgen(getter, js_name = statusMessage)]
    pub fn status_message(&self) -> Option<String> {
        self.s.view.task.status_message.clone()
    }

    #[wasm_bindgen(getter, js_name = createdAt)]
    pub fn created_at(&self) -> String {
        self.s.view.task.created_at.clone()
    }

    #[wasm_bindgen(getter, js_name = lastUpdatedAt)]
    pub fn last_updated_at(&self) -> String {
        self.s.view.task.last_updated_at.clone()
    }

    /// Time to live from creation in ms; `null` = unlimited.
    #[wasm_bindgen(getter, js_name = ttlMs, unchecked_return_type = "number | null")]
    pub fn ttl_ms(&self) -> JsValue {
        match self.s.view.task.ttl_ms {
            Some(t) => JsValue::from_f64(t as f64),
            None => JsValue::NULL,
        }
    }

    #[wasm_bindgen(getter, js_name = pollIntervalMs)]
    pub fn poll_interval_ms(&self) -> Option<f64> {
        self.s.view.task.poll_interval_ms.map(|t| t as f64)
    }

    /// The outstanding input requests (`input_required`), keyed as the server sent them.
    #[wasm_bindgen(getter, js_name = inputRequests, unchecked_return_type = "InputRequests | undefined")]
    pub fn input_requests(&self) -> JsValue {
        self.s
            .view
            .input_requests
            .as_ref()
            .map(to_js)
            .unwrap_or(JsValue::UNDEFINED)
    }

    /// The result (`completed`): for a tool call, its `CallToolResult`.
    #[wasm_bindgen(getter, unchecked_return_type = "CallToolResult | undefined")]
    pub fn result(&self) -> JsValue {
        self.s
            .view
            .result
            .as_ref()
            .map(|r| raw_to_js(r.get()))
            .unwrap_or(JsValue::UNDEFINED)
    }

    /// The JSON-RPC error (`failed`).
    #[wasm_bindgen(getter, unchecked_return_type = "JsonRpcErrorObject | undefined")]
    pub fn error(&self) -> JsValue {
        self.s
            .view
            .error
            .as_ref()
            .map(|e| to_js(&e.to_value()))
            .unwrap_or(JsValue::UNDEFINED)
    }

    /// The tool whose call created the task, when the handle knows it (tasks from
    /// `resumeTasks()`, and handles whose JSON carries it).
    #[wasm_bindgen(getter, js_name = toolName)]
    pub fn tool_name(&self) -> Option<String> {
        self.s.tool.clone()
    }

    /// The server this task lives on.
    #[wasm_bindgen(getter, js_name = serverUrl)]
    pub fn server_url(&self) -> String {
        self.s.server_url.clone()
    }

    #[wasm_bindgen(getter, js_name = isTerminal)]
    pub fn is_terminal(&self) -> bool {
        self.s.view.task.status.is_terminal()
    }

    #[wasm_bindgen(getter, js_name = isCompleted)]
    pub fn is_completed(&self) -> bool {
        self.s.view.task.status == TaskStatus::Completed
    }

    #[wasm_bindgen(getter, js_name = isFailed)]
    pub fn is_failed(&self) -> bool {
        self.s.view.task.status == TaskStatus::Failed
    }

    #[wasm_bindgen(getter, js_name = isCancelled)]
    pub fn is_cancelled(&self) -> bool {
        self.s.view.task.status == TaskStatus::Cancelled
    }

    #[wasm_bindgen(getter, js_name = isInputRequired)]
    pub fn is_input_required(&self) -> bool {
        self.s.view.task.status == TaskStatus::InputRequired
    }

    /// True for a task made locally because the server answered at once.
    #[wasm_bindgen(getter, js_name = isLocal)]
    pub fn is_local(&self) -> bool {
        self.s.view.local
    }

    /// True once `createdAt + ttlMs` has passed (never for an unlimited TTL, nor for a
    /// `createdAt` without a UTC offset, which cannot be placed: TASK-RULES.md rule 3).
    #[wasm_bindgen(js_name = ttlElapsed)]
    pub fn ttl_elapsed(&self) -> bool {
        self.s
            .view
            .task
            .expires_at_ms()
            .is_some_and(|t| (now() as i64) >= t)
    }

    /// A plain JSON object that `Task.fromJSON` turns back into a handle.
    #[wasm_bindgen(js_name = toJSON, unchecked_return_type = "TaskJSON")]
    pub fn to_json(&self) -> JsValue {
        to_js(&self.s.to_value())
    }

    /// A handle from `toJSON`'s output (or from storage).
    #[wasm_bindgen(js_name = fromJSON)]
    pub fn from_json(
        #[wasm_bindgen(unchecked_param_type = "TaskJSON")] json: JsValue,
    ) -> Result<Task, JsValue> {
        let v = from_js(&json)
            .map_err(|e| bad_arg(e.message))?
            .unwrap_or(Value::Null);
        StoredTask::parse(&v)
            .map(|s| Task { s })
            .map_err(|m| bad_arg(format!("not a task: {m}")))
    }
}
