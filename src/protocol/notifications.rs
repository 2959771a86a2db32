//! Notifications that belong to one request rather than to a listen stream: progress
//! (`notifications/progress`, spec `basic/patterns/progress.mdx`), log messages
//! (`notifications/message`, spec `server/utilities/logging.mdx`) and cancellation
//! (`notifications/cancelled`, spec `basic/patterns/cancellation.mdx`).
//! Listen-stream notifications are in [`super::subscriptions`].

use crate::protocol::content::number;
use crate::protocol::jsonrpc::RequestId;
use crate::protocol::meta::{MetaObject, ProgressToken};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The severity of a log message, RFC 5424 levels (spec `LoggingLevel`). Ordered from
/// least (`Debug`) to most severe (`Emergency`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Detailed debugging information.
    Debug,
    /// Informational messages.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LoggingLevel {
    /// The level's wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            LoggingLevel::Debug => "debug",
            LoggingLevel::Info => "info",
            LoggingLevel::Notice => "notice",
            LoggingLevel::Warning => "warning",
            LoggingLevel::Error => "error",
            LoggingLevel::Critical => "critical",
            LoggingLevel::Alert => "alert",
            LoggingLevel::Emergency => "emergency",
        }
    }
}

/// Params of `notifications/message`: one log message, sent only on the stream of a
/// request that set `io.modelcontextprotocol/logLevel` (spec `LoggingMessageNotificationParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoggingMessageNotificationParams {
    /// The severity of this message.
    pub level: LoggingLevel,
    /// The name of the logger that issued it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// The data to log: any JSON value (peer-controlled: sanitize before display).
    pub data: Value,
    /// A `NotificationMetaObject`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of `notifications/progress`: progress of the request whose `_meta.progressToken`
/// is `progressToken` (spec `ProgressNotificationParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressNotificationParams {
    /// The token the request was sent with.
    pub progress_token: ProgressToken,
    /// Progress so far; increases with every notification, may be fractional.
    #[serde(serialize_with = "number::serialize")]
    pub progress: f64,
    /// Total progress required, if known.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "number::option"
    )]
    pub total: Option<f64>,
    /// A human-readable description of the current progress.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// A `NotificationMetaObject`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of `notifications/cancelled`: the sender cancels a request it issued (on stdio;
/// over HTTP a request is cancelled by closing its stream) (spec `CancelledNotificationParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledNotificationParams {
    /// The id of the request to cancel.
    pub request_id: RequestId,
    /// Why, for logs or display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A `NotificationMetaObject`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn levels_are_ordered_by_severity() {
        assert!(LoggingLevel::Debug < LoggingLevel::Info);
        assert!(LoggingLevel::Warning < LoggingLevel::Error);
        assert!(LoggingLevel::Alert < LoggingLevel::Emergency);
        let all: Vec<LoggingLevel> = serde_json::from_value(json!([
            "debug",
            "info",
            "notice",
            "warning",
            "error",
            "critical",
            "alert",
            "emergency"
        ]))
        .unwrap();
        for l in all {
            assert_eq!(serde_json::to_value(l).unwrap(), json!(l.as_str()));
        }
    }

    #[test]
    fn log_data_may_be_null_but_not_absent() {
        let p: LoggingMessageNotificationParams =
            serde_json::from_value(json!({"level": "info", "data": null})).unwrap();
        assert_eq!(p.data, Value::Null);
        assert_eq!(
            serde_json::to_value(&p).unwrap(),
            json!({"level": "info", "data": null})
        );
        assert!(serde_json::from_value::<LoggingMessageNotificationParams>(
            json!({"level": "info"})
        )
        .is_err());
    }

    #[test]
    fn progress_may_be_fractional() {
        let p: ProgressNotificationParams =
            serde_json::from_value(json!({"progressToken": 7, "progress": 0.5, "total": 2}))
                .unwrap();
        assert_eq!(p.progress, 0.5);
        assert_eq!(p.total, Some(2.0));
        assert_eq!(
            serde_json::to_value(&p).unwrap(),
            json!({"progressToken": 7, "progress": 0.5, "total": 2})
        );
    }
}
