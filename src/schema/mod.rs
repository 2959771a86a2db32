//! (placeholder: JSON Schema checks)
