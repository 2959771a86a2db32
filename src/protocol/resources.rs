//! (placeholder: filled in by the protocol-types work)
