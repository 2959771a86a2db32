//! placeholder
use crate::error::Error;
use serde_json::Value;
pub struct OutputSchema;
impl OutputSchema {
    pub fn compile(_schema: &Value) -> Result<OutputSchema, String> {
        Ok(OutputSchema)
    }
    pub fn validate(&self, _instance: &Value) -> Result<(), Error> {
        Ok(())
    }
}
