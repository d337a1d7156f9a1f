//! `ingest`: add documents, text, or files under the configured roots.

use std::sync::Arc;

use super::wire::{IngestArgs, IngestOut};
use super::{Tool, ToolOptions};
use crate::{Document, Error};

/// The `ingest` tool; file paths are resolved through the options' [`super::FileRoots`].
pub(super) fn tool(options: &ToolOptions) -> Tool {
    let roots = Arc::new(options.file_roots.clone());
    Tool::new(
        "ingest",
        "Ingest sources",
        "Add documents to the store (chunked, embedded, indexed): inline documents or text, \
         and files or directories under the server's configured file roots (JSONL, \
         Markdown, HTML, PDF, text). Unchanged documents are skipped.",
        |o: &IngestOut| {
            format!(
                "{} inserted, {} replaced, {} unchanged, {} chunks{}",
                o.inserted,
                o.replaced,
                o.unchanged,
                o.chunks,
                if o.errors.is_empty() {
                    String::new()
                } else {
                    format!("; {} errors", o.errors.len())
                }
            )
        },
        move |verity, args: IngestArgs| {
            let roots = roots.clone();
            Box::pin(async move {
                if args.documents.is_empty() && args.paths.is_empty() {
                    return Err(Error::invalid_input("give `documents` or `paths`"));
                }
                let mut files = Vec::new();
                let mut errors = Vec::new();
                for p in &args.paths {
                    let r = roots.resolve(p)?;
                    files.extend(r.files);
                    errors.extend(r.refused);
                }
                let mut out = IngestOut {
                    inserted: 0,
                    replaced: 0,
                    unchanged: 0,
                    chunks: 0,
                    errors,
                };
                if !args.documents.is_empty() {
                    let docs = args
                        .documents
                        .into_iter()
                        .map(|d| {
                            let uid = d.uid.unwrap_or_else(|| {
                                verity_core::stable_uid(d.source.as_deref().unwrap_or(""), &d.content)
                            });
                            let mut doc = Document::new(uid, d.content);
                            doc.title = d.title;
                            doc.source = d.source.unwrap_or_else(|| "mcp".into());
                            doc
                        })
                        .collect();
                    let r = verity.ingest(docs, &|_| {}).await?;
                    verity.flush()?;
                    out.inserted += r.upsert.inserted;
                    out.replaced += r.upsert.replaced;
                    out.unchanged += r.upsert.unchanged;
                    out.chunks += r.upsert.chunks;
                    out.errors.extend(r.errors);
                }
                if !files.is_empty() {
                    let o = verity.ingest_paths(&files, false, &|_| {}).await?;
                    out.inserted += o.inserted;
                    out.replaced += o.replaced;
                    out.unchanged += o.unchanged;
                    out.chunks += o.chunks;
                    out.errors.extend(o.read_errors);
                    out.errors.extend(o.rejected);
                }
                Ok(out)
            })
        },
    )
}
