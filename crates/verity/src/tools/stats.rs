//! `stats`: what the store holds and how Verity is configured.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Tool, ToolHints, ToolOptions};
use crate::api::StatsResponse;

/// `stats` takes no arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct StatsRequest {}

/// The `stats` tool.
pub(super) fn tool(_: &ToolOptions) -> Tool {
    Tool::new(
        "stats",
        "Store statistics",
        "Counts of documents, chunks and vectors in the store, the embedder and generator \
         in use, and configuration warnings.",
        |s: &StatsResponse| {
            let mut t = format!(
                "{} documents, {} chunks, {} vectors ({} index `{}`); generator {}",
                s.store.documents,
                s.store.chunks,
                s.store.vectors,
                s.store.backend,
                s.store.index,
                s.generator
            );
            for n in &s.notes {
                t.push_str(&format!("\nnote: {n}"));
            }
            t
        },
        |verity, _: StatsRequest| Box::pin(async move { verity.stats().await }),
    )
    .hints(ToolHints {
        read_only: true,
        idempotent: true,
        ..ToolHints::default()
    })
}
