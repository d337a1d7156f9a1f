//! `stats`: what the store holds and how Verity is configured.

use super::wire::{StatsArgs, StatsOut};
use super::{Tool, ToolHints, ToolOptions};

/// The `stats` tool.
pub(super) fn tool(_: &ToolOptions) -> Tool {
    Tool::new(
        "stats",
        "Store statistics",
        "Counts of documents and chunks in the store, the embedder and generator in use, \
         and configuration warnings.",
        |s: &StatsOut| {
            format!(
                "{} documents, {} chunks; generator {}",
                s.documents, s.chunks, s.generator
            )
        },
        |verity, _: StatsArgs| {
            Box::pin(async move {
                let s = verity.stats().await?;
                Ok(StatsOut {
                    documents: s.store.documents,
                    chunks: s.store.chunks,
                    generator: s.generator,
                    notes: s.notes,
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
