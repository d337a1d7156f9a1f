//! How registry errors reach an MCP client.

use rmcp::model::{CallToolResult, ContentBlock, ErrorData};
use serde_json::{json, Value};
use verity::tools::ToolError;
use verity::Error;

/// JSON-RPC code for a failed tool run when the kind has no protocol meaning
/// (the result is an `isError` tool result, not a protocol error).
fn mcp_code(e: &Error) -> i32 {
    match e.code() {
        "invalid_input" | "not_found" => -32602,
        _ => -32603,
    }
}

/// `{"error": {"code", "message", "transient", "mcp_code"}}` for a failed call.
pub fn error_payload(e: &Error) -> Value {
    json!({
        "error": {
            "code": e.code(),
            "message": e.to_string(),
            "transient": e.is_transient(),
            "mcp_code": mcp_code(e),
        }
    })
}

/// A registry error as an MCP answer: protocol errors for unknown tools and
/// invalid arguments, an `isError` result for a tool that ran and failed.
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
