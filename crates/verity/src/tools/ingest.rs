//! `ingest`: add documents, text, URLs, or files under the configured roots.

use std::sync::Arc;

use super::{Tool, ToolOptions};
use crate::api::{IngestOutcome, IngestRequest};

/// The `ingest` tool; file paths go through the options' [`super::FileRoots`]
/// (URLs through the shared guarded fetcher).
pub(super) fn tool(options: &ToolOptions) -> Tool {
    let roots = Arc::new(options.file_roots.clone());
    Tool::new(
        "ingest",
        "Ingest sources",
        "Add documents to the store (chunked, embedded, indexed): inline `documents` \
         (uid, content, source, title, ts, tags, url, …), http(s) URLs, and files or \
         directories under the server's configured file roots (JSONL, Markdown, HTML, \
         PDF, text). Unchanged documents are skipped; unreadable ones are reported.",
        |o: &IngestOutcome| {
            format!(
                "{} inserted, {} replaced, {} unchanged, {} chunks{}",
                o.inserted,
                o.replaced,
                o.unchanged,
                o.chunks,
                match o.read_errors.len() + o.rejected.len() {
                    0 => String::new(),
                    n => format!("; {n} left out"),
                }
            )
        },
        move |verity, mut req: IngestRequest| {
            let roots = roots.clone();
            Box::pin(async move {
                let refused = roots.confine(&mut req)?;
                let mut out = verity.ingest_within(req, roots.roots(), &|_| {}).await?;
                out.read_errors.extend(refused);
                Ok(out)
            })
        },
    )
}
