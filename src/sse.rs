//! (placeholder: the incremental SSE parser is being written)
