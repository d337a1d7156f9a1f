//! [`Verity::call_tool`]: a built-in tool by name, for hosts that expose the
//! registry as one generic call (the Python and Node bindings).

use std::sync::OnceLock;

use serde_json::Value;

use super::{ToolError, ToolOptions, ToolRegistry};
use crate::{Error, Result, Verity};

/// The built-in tools with default options (no file roots).
fn registry() -> &'static ToolRegistry {
    static REGISTRY: OnceLock<ToolRegistry> = OnceLock::new();
    REGISTRY.get_or_init(|| ToolRegistry::builtin(&ToolOptions::default()))
}

impl Verity {
    /// Call the built-in tool `name` (e.g. `verify_fact`, `log_article`,
    /// `create_task`) with JSON arguments and return its structured response.
    /// Unknown tools and arguments that do not match the tool's input schema
    /// are `invalid_input` errors; failures keep their kind.
    pub async fn call_tool(&self, name: &str, args: Value) -> Result<Value> {
        match registry().call(self, name, args).await {
            Ok(out) => Ok(out.structured),
            Err(ToolError::Failed(e)) => Err(e),
            Err(e) => Err(Error::invalid_input(e.to_string())),
        }
    }
}
