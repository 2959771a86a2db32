//! The wasm32 shell (placeholder while the engine is written).
