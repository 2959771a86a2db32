//! placeholder
use crate::error::Error;
use serde_json::Value;
pub fn check_sampling_result(v: &Value) -> Result<Value, Error> {
    Ok(v.clone())
}
pub fn check_roots_result(v: &Value) -> Result<Value, Error> {
    Ok(v.clone())
}
