//! What a server's capabilities say about tasks, read in one place: 2026-07-28 declares
//! the tasks extension under `capabilities.extensions` (ext-tasks); 2025-11-25 declares
//! `capabilities.tasks` (`basic/utilities/tasks.mdx` "Capabilities": `list`, `cancel`,
//! `requests.tools.call`).

use crate::json::Value;
use crate::protocol::TASKS_EXTENSION;

/// The tasks support a server declared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServerTasks {
    /// Tasks at all: the extension (2026-07-28) or `tasks` (2025-11-25).
    pub declared: bool,
    /// 2025-11-25: task-augmented `tools/call` (`tasks.requests.tools.call`).
    pub tool_calls: bool,
    /// 2025-11-25: `tasks/list` (`tasks.list`).
    pub list: bool,
}

/// Reads the tasks support in a server's `capabilities` (`modern`: a 2026-07-28 server).
pub fn server_tasks(caps: &Value, modern: bool) -> ServerTasks {
    if modern {
        let declared = caps
            .get("extensions")
            .and_then(|e| e.get(TASKS_EXTENSION))
            .is_some();
        return ServerTasks {
            declared,
            ..ServerTasks::default()
        };
    }
    let Some(tasks) = caps.get("tasks") else {
        return ServerTasks::default();
    };
    ServerTasks {
        declared: true,
        tool_calls: tasks
            .get("requests")
            .and_then(|r| r.get("tools"))
            .and_then(|t| t.get("call"))
            .is_some(),
        list: tasks.get("list").is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn each_era_declares_tasks_its_own_way() {
        let modern = json!({"extensions": {TASKS_EXTENSION: {}}});
        assert!(server_tasks(&modern, true).declared);
        assert!(!server_tasks(&modern, false).declared);
        let legacy = json!({"tasks": {"list": {}, "requests": {"tools": {"call": {}}}}});
        let all = ServerTasks {
            declared: true,
            tool_calls: true,
            list: true,
        };
        assert_eq!(server_tasks(&legacy, false), all);
        assert!(!server_tasks(&legacy, true).declared);
        let bare = server_tasks(&json!({"tasks": {}}), false);
        assert!(bare.declared && !bare.tool_calls && !bare.list);
        assert_eq!(server_tasks(&json!({}), false), ServerTasks::default());
        assert_eq!(server_tasks(&json!({}), true), ServerTasks::default());
    }
}
