//! OAuth 2.1 authorization for MCP over HTTP (spec `basic/authorization/*.mdx`; protocol
//! notes §10), sans-IO like the engine: the flow is a state machine fed HTTP results,
//! random bytes, the host's callback URL and storage reads, returning what to do next.
//! The engine ([`crate::engine::core`]) runs it when a request is refused with 401 or
//! `403 insufficient_scope`, holds the refused requests, and replays them with the token.
//!
//! - [`challenge`]: `WWW-Authenticate` parsing.
//! - [`url`]: well-known discovery URLs, resource comparison, form encoding.
//! - [`metadata`]: Protected Resource Metadata and Authorization Server Metadata.
//! - [`client`]: client identity (pre-registered, CIMD, DCR) and token endpoint auth.
//! - [`pkce`]: PKCE S256 and `state`.
//! - [`tokens`]: token responses and the token set.
//! - [`flow`]: the state machine.

pub(crate) mod challenge;
pub(crate) mod client;
pub(crate) mod dpop;
pub(crate) mod flow;
pub(crate) mod metadata;
pub(crate) mod pkce;
pub(crate) mod tokens;
pub(crate) mod url;

#[cfg(test)]
mod tests;

pub(crate) use flow::{AuthConfig, AuthorizeReq, Authorizer, Effect, Trigger};
