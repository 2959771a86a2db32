//! Subscriptions (spec `basic/patterns/subscriptions.mdx`): the params and result of
//! `subscriptions/listen`, the `SubscriptionFilter`, and the notifications that arrive
//! on a listen stream (`notifications/subscriptions/acknowledged`,
//! `notifications/resources/updated`; the `list_changed` ones carry
//! [`super::meta::NotificationParams`]).

use crate::protocol::jsonrpc::RequestId;
use crate::protocol::meta::{Implementation, MetaObject};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The notification types a client opts in to on a listen stream, or (in the
/// acknowledgement) the subset the server agreed to (spec `SubscriptionFilter`).
/// The tasks extension adds `taskIds`, kept in `extra`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// `notifications/resources/updated` for these URIs (replaces `resources/subscribe`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of `subscriptions/listen` (spec `SubscriptionsListenRequestParams`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsListenRequestParams {
    /// What to receive; the server sends nothing the client did not ask for.
    pub notifications: SubscriptionFilter,
    /// A `RequestMetaObject` (required on every request).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result that ends a listen stream gracefully (spec `SubscriptionsListenResult`).
/// An abrupt close carries no result.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionsListenResult {
    /// `"complete"`; absent from pre-2026 servers (then read as `"complete"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<String>,
    /// A [`SubscriptionsListenResultMetaObject`] (required by the schema): names the stream.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The `_meta` of a [`SubscriptionsListenResult`] (spec `SubscriptionsListenResultMetaObject`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsListenResultMetaObject {
    /// The id of the `subscriptions/listen` request whose stream this closes.
    #[serde(rename = "io.modelcontextprotocol/subscriptionId")]
    pub subscription_id: RequestId,
    /// The server software (self-reported).
    #[serde(
        rename = "io.modelcontextprotocol/serverInfo",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub server_info: Option<Implementation>,
    /// Other keys, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SubscriptionsListenResultMetaObject {
    /// Reads the typed view of the listen result's `_meta`.
    pub fn from_meta(meta: &MetaObject) -> Result<Self, serde_json::Error> {
        serde_json::from_value(Value::Object(meta.clone()))
    }
}

/// Params of `notifications/subscriptions/acknowledged`, the first message of a listen
/// stream (spec `SubscriptionsAcknowledgedNotificationParams`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsAcknowledgedNotificationParams {
    /// The subset of the requested types the server will send.
    pub notifications: SubscriptionFilter,
    /// A `NotificationMetaObject` (`io.modelcontextprotocol/subscriptionId`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Members this client does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of `notifications/resources/updated`: a subscribed resource changed (spec
/// `ResourceUpdatedNotificationParams`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourceUpdatedNotificationParams {
    /// The URI that changed; may be a sub-resource of the subscribed one.
    pub uri: String,
    /// A `NotificationMetaObject` (`io.modelcontextprotocol/subscriptionId`).
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
    fn listen_result_names_its_stream() {
        let r: SubscriptionsListenResult = serde_json::from_value(json!({
            "resultType": "complete", "_meta": {"io.modelcontextprotocol/subscriptionId": 4}
        }))
        .unwrap();
        let m = SubscriptionsListenResultMetaObject::from_meta(r.meta.as_ref().unwrap()).unwrap();
        assert_eq!(m.subscription_id, RequestId::Number(4));
        assert!(SubscriptionsListenResultMetaObject::from_meta(&Map::new()).is_err());
    }

    #[test]
    fn filter_keeps_extension_members() {
        let v = json!({"toolsListChanged": true, "taskIds": ["t1"]});
        let f: SubscriptionFilter = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(f.extra["taskIds"], json!(["t1"]));
        assert_eq!(serde_json::to_value(&f).unwrap(), v);
    }
}
