//! [`Verity::call_tool`]: a built-in tool by name, for hosts that expose the
//! registry as one generic call (the Python and Node bindings).

use std::sync::OnceLock;

use serde_json::Value;

use super::{ToolOptions, ToolRegistry};
use crate::{Error, Result, Verity};

/// The built-in tools with default options (no file roots).
fn registry() -> &'static ToolRegistry {
    static REGISTRY: OnceLock<ToolRegistry> = OnceLock::new();
    REGISTRY.get_or_init(|| ToolRegistry::builtin(&ToolOptions::default()))
}

impl Verity {
    /// Call the built-in tool `name` (e.g. `verify_fact`, `log_article`,
    /// `create_task`) with JSON arguments and return its structured response.
    /// An unknown tool is an `unknown_tool` error, arguments that do not
    /// match the tool's input schema an `invalid_arguments` error (both
    /// [`crate::core::InputError`]s); failures keep their kind
    /// ([`super::ToolError::code`] is kept: see the error table).
    pub async fn call_tool(&self, name: &str, args: Value) -> Result<Value> {
        registry()
            .call(self, name, args)
            .await
            .map(|out| out.structured)
            .map_err(Error::from)
    }
}
