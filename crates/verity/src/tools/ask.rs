//! `ask`: answer a question from the sources, with citations.

use super::{Tool, ToolHints, ToolOptions};
use crate::api::{AskRequest, AskResponse};

/// The `ask` tool.
pub(super) fn tool(_: &ToolOptions) -> Tool {
    Tool::new(
        "ask",
        "Answer from the sources",
        "Answer a question only from the ingested sources, citing them ([1], [2], …). \
         When the evidence is thin the answer says so (`not_enough_evidence`) instead of \
         guessing; `degraded` says when a fallback generator answered.",
        render,
        |verity, req: AskRequest| Box::pin(async move { verity.ask(&req).await }),
    )
    .hints(ToolHints {
        read_only: true,
        ..ToolHints::default()
    })
}

fn render(a: &AskResponse) -> String {
    let mut s = a.text.trim().to_string();
    if !a.citations.is_empty() {
        s.push_str("\n\nSources:");
        for c in &a.citations {
            s.push_str(&format!(
                "\n[{}] {} ({}, uid {})",
                c.index,
                c.title
                    .as_deref()
                    .or(c.url.as_deref())
                    .unwrap_or(&c.doc_uid),
                c.source,
                c.doc_uid
            ));
        }
    }
    s
}
