//! `search`: retrieve the passages that best match a query.
//!
//! It answers the very shape of `POST /v1/retrieve` ([`RetrieveResponse`]:
//! seed 001's `uids`, `scores`, `sources`, then the hits and flags), so one
//! operation has one response shape on every host.

use super::{Tool, ToolHints, ToolOptions};
use crate::api::{RetrieveResponse, SearchRequest};

/// The `search` tool.
pub(super) fn tool(_: &ToolOptions) -> Tool {
    Tool::new(
        "search",
        "Search the sources",
        "Search the ingested sources (BM25 and dense vectors, re-ranked) and return the \
         passages that best match the query, with their document, source and scores. \
         `not_enough_evidence` says when nothing relevant enough was found; filters \
         (sources, tags, langs, since/until, metadata) narrow the search.",
        render,
        |verity, req: SearchRequest| {
            Box::pin(async move { verity.search(&req).await.map(RetrieveResponse::from) })
        },
    )
    .hints(ToolHints {
        read_only: true,
        idempotent: true,
        ..ToolHints::default()
    })
}

fn render(r: &RetrieveResponse) -> String {
    let mut s = String::new();
    if r.not_enough_evidence {
        s.push_str("Not enough evidence: no passage is relevant enough.\n");
    }
    for (i, h) in r.hits.iter().enumerate() {
        s.push_str(&format!(
            "[{}] {} ({}, uid {}, relevance {:.3})\n{}\n\n",
            i + 1,
            h.doc.title.as_deref().unwrap_or(&h.doc.uid),
            h.doc.source,
            h.doc.uid,
            h.relevance,
            h.chunk.text.trim()
        ));
    }
    if r.hits.is_empty() {
        s.push_str("No results.\n");
    }
    for n in &r.notes {
        s.push_str(&format!("note: {n}\n"));
    }
    s.trim_end().to_string()
}
