//! (placeholder: x-mcp-header validation and extraction)
