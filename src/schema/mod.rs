//! JSON Schema checks (placeholder API while the real module is written on its branch).
pub mod answers;
pub mod elicitation;
pub mod output;
