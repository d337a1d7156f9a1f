//! How registry errors reach an MCP client (codes from `verity::api::error`).

use rmcp::model::{CallToolResult, ContentBlock, ErrorCode, ErrorData};
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

/// A registry error as an MCP answer: a tool that ran and failed is an
/// `isError` result carrying [`error_payload`]; a call that never reached its
/// tool (`unknown_tool`, `invalid_arguments`) is a protocol error with the
/// table's JSON-RPC code and `{"code"}` as data.
pub(crate) fn to_mcp(err: ToolError) -> Result<CallToolResult, ErrorData> {
    match err {
        ToolError::Failed(e) => {
            tracing::info!(code = e.code(), error = %e, "tool call failed");
            let mut result = CallToolResult::error(vec![ContentBlock::text(format!(
                "error [{}]: {e}",
                e.code()
            ))]);
            result.structured_content = Some(error_payload(&e));
            Ok(result)
        }
        never_ran => Err(ErrorData::new(
            ErrorCode(ErrorMapping::of_tool(&never_ran).jsonrpc_code),
            never_ran.to_string(),
            Some(json!({"code": never_ran.code()})),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tool error reaches an MCP client with the table's JSON-RPC code
    /// and the error's own code.
    #[test]
    fn tool_errors_follow_the_table() {
        let samples = [
            ToolError::UnknownTool {
                name: "nope".into(),
                available: "search".into(),
            },
            ToolError::InvalidArguments {
                tool: "search".into(),
                message: "query: missing field".into(),
            },
            ToolError::Failed(Error::invalid_input("x")),
            ToolError::Failed(Error::Timeout(std::time::Duration::from_secs(1))),
        ];
        for e in samples {
            let (code, row) = (e.code(), ErrorMapping::of_tool(&e));
            match to_mcp(e) {
                Err(data) => {
                    assert_eq!(data.code.0, row.jsonrpc_code, "{code}");
                    assert_eq!(data.data, Some(json!({"code": code})));
                }
                Ok(result) => {
                    assert_eq!(result.is_error, Some(true), "{code}");
                    let payload = result.structured_content.unwrap_or_default();
                    assert_eq!(payload["error"]["code"], code);
                    assert_eq!(payload["error"]["jsonrpc_code"], row.jsonrpc_code);
                }
            }
        }
    }
}
