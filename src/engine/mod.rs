//! Sans-IO state machines (placeholder while the engine is written).
