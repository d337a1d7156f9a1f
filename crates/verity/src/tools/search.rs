//! `search`: retrieve the passages that best match a query.

use super::wire::{Hit, SearchArgs, SearchOut};
use super::{Tool, ToolHints, ToolOptions};
use crate::SearchQuery;

/// The `search` tool.
pub(super) fn tool(_: &ToolOptions) -> Tool {
    Tool::new(
        "search",
        "Search the sources",
        "Search the ingested sources (BM25 and dense vectors, re-ranked) and return the \
         passages that best match the query, with their document uid, source and score. \
         `not_enough_evidence` says when nothing relevant enough was found.",
        render,
        |verity, args: SearchArgs| {
            Box::pin(async move {
                let mut q = SearchQuery::new(args.query);
                if verity.embedder().is_none() {
                    q.mode = crate::SearchMode::Lexical;
                }
                if let Some(k) = args.k {
                    q.k = k;
                }
                let r = verity.search(&q).await?;
                Ok(SearchOut {
                    hits: r
                        .hits
                        .into_iter()
                        .map(|h| Hit {
                            uid: h.doc.uid.clone(),
                            source: h.doc.source.clone(),
                            title: h.doc.title.clone(),
                            text: h.chunk.text.clone(),
                            score: h.score,
                        })
                        .collect(),
                    mode: format!("{:?}", r.mode).to_lowercase(),
                    not_enough_evidence: r.not_enough_evidence,
                    notes: r.notes,
                })
            })
        },
    )
    .hints(ToolHints {
        read_only: true,
        idempotent: true,
        ..ToolHints::default()
    })
}

fn render(r: &SearchOut) -> String {
    let mut s = String::new();
    if r.not_enough_evidence {
        s.push_str("Not enough evidence: no passage is relevant enough.\n");
    }
    for (i, h) in r.hits.iter().enumerate() {
        s.push_str(&format!(
            "[{}] {} ({}, score {:.3})\n{}\n\n",
            i + 1,
            h.title.as_deref().unwrap_or(&h.uid),
            h.source,
            h.score,
            h.text.trim()
        ));
    }
    if r.hits.is_empty() {
        s.push_str("No results.\n");
    }
    s.trim_end().to_string()
}
