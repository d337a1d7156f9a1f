//! `recall`: find remembered events by meaning and/or words, metadata and time.

use super::{Tool, ToolHints, ToolOptions};
use crate::api::memory::{EventSearchResponse, RecallRequest};

/// The `recall` tool.
pub(super) fn tool(_: &ToolOptions) -> Tool {
    Tool::new(
        "recall",
        "Recall from memory",
        "Find events stored with `remember` (or the REST event API): by meaning and words \
         (`query`, hybrid by default), by metadata containment (`filter_metadata`, nested \
         objects and arrays) and by time (`ts_start`, `ts_end`, ISO 8601 with a zone). \
         Without `query`, the newest matching events. Expired events never appear.",
        render,
        |verity, req: RecallRequest| Box::pin(async move { verity.recall(&req).await }),
    )
    .hints(ToolHints {
        read_only: true,
        idempotent: true,
        ..ToolHints::default()
    })
}

fn render(r: &EventSearchResponse) -> String {
    let mut s = String::new();
    for (i, e) in r.data.iter().enumerate() {
        let text = ["text", "body", "message", "content", "title"]
            .iter()
            .find_map(|f| e.content.get(*f).and_then(|v| v.as_str()))
            .map(str::to_string)
            .unwrap_or_else(|| serde_json::Value::Object(e.content.clone()).to_string());
        s.push_str(&format!(
            "[{}] {} (id {}, {})\n",
            i + 1,
            text.trim(),
            e.id,
            e.timestamp.to_rfc3339()
        ));
        if !e.metadata.is_empty() {
            s.push_str(&format!(
                "    metadata: {}\n",
                serde_json::Value::Object(e.metadata.clone())
            ));
        }
    }
    if r.data.is_empty() {
        s.push_str("Nothing remembered matches.\n");
    }
    for n in &r.meta.notes {
        s.push_str(&format!("note: {n}\n"));
    }
    s.trim_end().to_string()
}
