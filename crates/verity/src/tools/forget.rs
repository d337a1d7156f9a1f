//! `forget`: delete remembered events, by id or by filter.

use super::{Tool, ToolHints, ToolOptions};
use crate::api::memory::{ForgetRequest, ForgetResponse};

/// The `forget` tool.
pub(super) fn tool(_: &ToolOptions) -> Tool {
    Tool::new(
        "forget",
        "Forget from memory",
        "Delete one event by `id`, or every event matching a filter (`filter_metadata`, \
         `ts_start`, `ts_end`). A call without id or filter is refused: it never deletes \
         everything. Answers how many events were deleted.",
        |r: &ForgetResponse| format!("Forgot {} event(s)", r.deleted),
        |verity, req: ForgetRequest| Box::pin(async move { verity.forget(&req).await }),
    )
    .hints(ToolHints {
        idempotent: true,
        ..ToolHints::default()
    })
}
