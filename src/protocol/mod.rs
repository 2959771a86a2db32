//! JSON-RPC 2.0 and MCP 2026-07-28 types. Field and type names follow the spec's
//! `schema.ts` verbatim (camelCase on the wire, the schema's type names in Rust).
//!
//! One model of each shape: a shape the client interprets is decoded here (typed where the
//! engine reads it field by field: envelopes, tasks, input requests, `initialize`; as
//! checks on the value where it passes it on: `server/discover`). Results that the client
//! passes through to the host (tool results, resource contents, prompt messages, ...) stay
//! [`crate::json::Value`] so that nothing the server sent is lost or reordered; their shapes
//! are the spec's (`tests/spec_examples.rs` checks the spec's examples against its schema
//! and against these decoders). The elicitation form schema is modelled once, by the
//! checker in `schema::elicitation`.

pub mod capabilities;
pub mod codes;
pub mod discover;
pub(crate) mod fields;
pub mod input;
pub mod jsonrpc;
pub mod legacy;
pub(crate) mod requests;
pub mod result;
pub mod tasks;

/// The protocol revision this client speaks natively.
pub(crate) const LATEST_PROTOCOL_VERSION: &str = "2026-07-28";

/// The legacy (initialize handshake) revisions the client can speak.
pub(crate) const LEGACY_PROTOCOL_VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];

/// The oldest revision: HTTP+SSE transport.
pub(crate) const HTTP_SSE_PROTOCOL_VERSION: &str = "2024-11-05";

/// Identifier of the tasks extension.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// True for the modern (per-request metadata, no handshake) revisions this client speaks.
pub(crate) fn is_modern_version(v: &str) -> bool {
    v == LATEST_PROTOCOL_VERSION
}
