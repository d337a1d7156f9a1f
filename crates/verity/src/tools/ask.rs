//! `ask`: answer a question from the sources, with citations.

use super::wire::{AskArgs, AskOut, CitationOut};
use super::{Tool, ToolHints, ToolOptions};
use crate::AskRequest;

/// The `ask` tool.
pub(super) fn tool(_: &ToolOptions) -> Tool {
    Tool::new(
        "ask",
        "Answer from the sources",
        "Answer a question only from the ingested sources, citing them ([1], [2], …). \
         When the evidence is thin the answer says so (`not_enough_evidence`) instead of \
         guessing.",
        render,
        |verity, args: AskArgs| {
            Box::pin(async move {
                let mut req = AskRequest::new(args.question);
                req.lang = args.lang;
                let a = verity.ask(&req).await?;
                Ok(AskOut {
                    text: a.text,
                    citations: a
                        .citations
                        .into_iter()
                        .map(|c| CitationOut {
                            index: c.index,
                            doc_uid: c.doc_uid,
                            source: c.source,
                            url: c.url,
                            quote: c.quote,
                        })
                        .collect(),
                    confidence: a.confidence,
                    not_enough_evidence: a.not_enough_evidence,
                    degraded: a.degraded,
                })
            })
        },
    )
    .hints(ToolHints {
        read_only: true,
        ..ToolHints::default()
    })
}

fn render(a: &AskOut) -> String {
    let mut s = a.text.trim().to_string();
    if !a.citations.is_empty() {
        s.push_str("\n\nSources:");
        for c in &a.citations {
            s.push_str(&format!(
                "\n[{}] {} ({})",
                c.index,
                c.url.as_deref().unwrap_or(&c.doc_uid),
                c.source
            ));
        }
    }
    s
}
