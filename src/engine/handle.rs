//! The stored form of a task handle (`Task#toJSON` / `Task.fromJSON`): the DetailedTask
//! wire shape plus `isLocal` and `serverUrl`, so a handle can be kept (e.g. in IndexedDB,
//! as the tasks extension suggests) and resumed by another client, even after a reload.
//! Also what a host may pass where a task is expected (a handle's JSON or `{ taskId }`).

use crate::engine::actions::TaskView;
use crate::engine::core::TaskRef;
use crate::error::{Error, Result};
use crate::json::RawJson;
use crate::json::{Map, Value};
use crate::protocol::jsonrpc::RpcError;
use crate::protocol::tasks::{decode_create_task_result, TaskStatus};

/// A task handle's state: what the client last saw of the task, and its server.
#[derive(Clone, Debug)]
pub(crate) struct StoredTask {
    pub view: TaskView,
    pub server_url: String,
    /// The tool whose call created the task, when known (`toolName`; a task resumed from
    /// the task store knows it, issue 13).
    pub tool: Option<String>,
}

impl StoredTask {
    /// The plain JSON form (`toJSON`).
    pub(crate) fn to_value(&self) -> Value {
        let mut m = match self.view.to_value() {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        m.insert("isLocal".into(), self.view.local.into());
        m.insert("serverUrl".into(), self.server_url.clone().into());
        if let Some(t) = &self.tool {
            m.insert("toolName".into(), t.clone().into());
        }
        Value::Object(m)
    }

    /// Reads a stored handle (what `toJSON` produced, or any object with the Task fields).
    /// The error says why it is not one.
    pub(crate) fn parse(v: &Value) -> std::result::Result<StoredTask, String> {
        let Value::Object(m) = v else {
            return Err("a task must be an object".into());
        };
        let raw = RawJson::of(v);
        let task = decode_create_task_result(&raw).map_err(|e| e.message)?;
        let result = match m.get("result") {
            Some(r @ Value::Object(_)) => Some(RawJson::of(r)),
            _ => None,
        };
        let error = match m.get("error") {
            Some(e @ Value::Object(_)) => RpcError::from_value(e),
            _ => None,
        };
        let local = m.get("isLocal").and_then(Value::as_bool).unwrap_or(false);
        if local && task.status != TaskStatus::Completed {
            return Err("a local task is always completed".into());
        }
        Ok(StoredTask {
            view: TaskView {
                task,
                input_requests: m.get("inputRequests").cloned().filter(Value::is_object),
                result,
                error,
                local,
            },
            server_url: m
                .get("serverUrl")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            tool: m
                .get("toolName")
                .and_then(Value::as_str)
                .map(str::to_string),
        })
    }
}

impl TaskRef {
    /// The task a host object names: a stored handle (its state seeds the client), else
    /// any object with a string `taskId`.
    pub(crate) fn from_json(v: &Value) -> Result<TaskRef> {
        match StoredTask::parse(v) {
            Ok(t) => Ok(TaskRef {
                task_id: t.view.task.task_id.clone(),
                seed: Some(t.view),
            }),
            Err(_) => match v.get("taskId").and_then(Value::as_str) {
                Some(id) => Ok(TaskRef {
                    task_id: id.to_string(),
                    seed: None,
                }),
                None => Err(Error::config("expected a Task or a task id")),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::json;

    fn stored() -> Value {
        json!({
            "taskId": "t1", "status": "completed", "createdAt": "2025-11-25T10:30:00Z",
            "lastUpdatedAt": "2025-11-25T10:31:00Z", "ttlMs": null, "pollIntervalMs": 500,
            "result": {"content": []}, "isLocal": true, "serverUrl": "https://h/mcp"
        })
    }

    #[test]
    fn round_trip() {
        let t = StoredTask::parse(&stored()).unwrap();
        assert_eq!(t.view.task.task_id, "t1");
        assert!(t.view.local);
        assert_eq!(t.server_url, "https://h/mcp");
        assert!(t.view.result.is_some());
        let back = t.to_value();
        assert_eq!(back["isLocal"], json!(true));
        assert_eq!(back["serverUrl"], json!("https://h/mcp"));
        assert_eq!(back["result"], json!({"content": []}));
        let again = StoredTask::parse(&back).unwrap();
        assert_eq!(again.to_value(), back);
    }

    #[test]
    fn the_tool_name_round_trips() {
        let mut v = stored();
        assert_eq!(StoredTask::parse(&v).unwrap().tool, None);
        assert!(StoredTask::parse(&v)
            .unwrap()
            .to_value()
            .get("toolName")
            .is_none());
        v["toolName"] = json!("deploy_release");
        let t = StoredTask::parse(&v).unwrap();
        assert_eq!(t.tool.as_deref(), Some("deploy_release"));
        assert_eq!(t.to_value()["toolName"], json!("deploy_release"));
        v["toolName"] = json!(7); // not a name: absent
        assert_eq!(StoredTask::parse(&v).unwrap().tool, None);
    }

    #[test]
    fn refusals() {
        assert_eq!(
            StoredTask::parse(&json!("t1")).unwrap_err(),
            "a task must be an object"
        );
        let mut v = stored();
        v["status"] = json!("working");
        assert_eq!(
            StoredTask::parse(&v).unwrap_err(),
            "a local task is always completed"
        );
        assert!(StoredTask::parse(&json!({"taskId": "t1"})).is_err());
        // Absent fields take their defaults: not local, no server, no error.
        v["isLocal"] = json!(false);
        v["error"] = json!("not an object");
        let t = StoredTask::parse(&v).unwrap();
        assert!(!t.view.local && t.view.error.is_none());
        v.as_object_mut().unwrap().remove("serverUrl");
        assert_eq!(StoredTask::parse(&v).unwrap().server_url, "");
    }

    #[test]
    fn task_refs() {
        let r = TaskRef::from_json(&stored()).unwrap();
        assert_eq!(r.task_id, "t1");
        assert!(r.seed.is_some_and(|s| s.local));
        let r = TaskRef::from_json(&json!({"taskId": "t2", "status": "bogus"})).unwrap();
        assert_eq!(r.task_id, "t2");
        assert!(r.seed.is_none());
        for v in [json!({}), json!({"taskId": 3}), json!(null)] {
            let e = TaskRef::from_json(&v).unwrap_err();
            assert_eq!(e.kind, ErrorKind::Config);
            assert_eq!(e.message, "expected a Task or a task id");
        }
    }
}
