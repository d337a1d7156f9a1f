//! How registry errors reach an MCP client (codes from `verity::api::error`).

use rmcp::model::{CallToolResult, ContentBlock, ErrorData};
use serde_json::{json, Value};
use verity::api::{ErrorBody, ErrorMapping};
use verity::tools::ToolError;
use verity::Error;

/// `{"error": {"code", "message", "transient", "jsonrpc_code"}}`: the
/// structured content of a failed call; `jsonrpc_code` comes from the
/// facade's error table.
pub fn error_payload(e: &Error) -> Value {
    let body = ErrorBody::from(e);
    json!({
        "error": {
            "code": body.code,
            "message": body.message,
            "transient": body.transient,
            "jsonrpc_code": ErrorMapping::of(e).jsonrpc_code,
        }
    })
}

/// A registry error as an MCP answer: protocol errors (`-32602`) for unknown
/// tools and invalid arguments, an `isError` result for a tool that ran and failed.
pub(crate) fn to_mcp(err: ToolError) -> Result<CallToolResult, ErrorData> {
    match err {
        ToolError::UnknownTool { .. } => Err(ErrorData::invalid_params(
            err.to_string(),
            Some(json!({"code": "unknown_tool"})),
        )),
        ToolError::InvalidArguments { .. } => Err(ErrorData::invalid_params(
            err.to_string(),
            Some(json!({"code": "invalid_arguments"})),
        )),
        ToolError::Failed(e) => {
            tracing::info!(code = e.code(), error = %e, "tool call failed");
            let mut result = CallToolResult::error(vec![ContentBlock::text(format!(
                "error [{}]: {e}",
                e.code()
            ))]);
            result.structured_content = Some(error_payload(&e));
            Ok(result)
        }
    }
}
