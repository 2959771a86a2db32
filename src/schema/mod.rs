//! JSON Schema checks. PURE: no I/O, no clock; everything here runs natively in tests.
//!
//! | module | what it checks |
//! |---|---|
//! | [`output`] | a tool result's `structuredContent` against the tool's `outputSchema` (JSON Schema 2020-12, local references only) |
//! | [`elicitation`] | the host's answer to a form-mode `elicitation/create` against `requestedSchema`; the URL of a URL-mode request |
//! | [`answers`] | the shapes of the host's sampling (`CreateMessageResult`) and roots (`ListRootsResult`) answers |
//!
//! Private helpers: `index` (schema walk, `$id`/`$anchor`/`$ref` resolution), `regex` (the
//! ECMA-262 subset behind `pattern`), `formats` (email, uri, date, date-time), `url` (the
//! URL-mode URL parser). Why each is written by hand, and what the alternatives cost in
//! wasm, is in `SIZE.md` beside this file.

// The API returns the crate's `Error` (~128 bytes) by design, like the rest of the crate;
// shrinking it (boxing `data`) is a crate-wide decision for `error.rs`.
#![allow(clippy::result_large_err)]

pub mod answers;
pub mod elicitation;
mod formats;
mod index;
/// RFC 3986 §5.2 reference resolution (here for `$ref`s; also the HTTP+SSE `endpoint`).
#[cfg(feature = "legacy")]
pub(crate) use index::resolve as resolve_reference;
pub mod output;
mod regex;
mod url;
