//! `get_document`: one stored document by uid.

use super::wire::{DocArgs, DocOut};
use super::{Tool, ToolHints, ToolOptions};

/// The `get_document` tool.
pub(super) fn tool(_: &ToolOptions) -> Tool {
    Tool::new(
        "get_document",
        "Get a document",
        "Return the full stored document (content and metadata) for a uid, as cited by \
         `search` and `ask`.",
        |d: &DocOut| match &d.document {
            Some(doc) => doc["content"].as_str().unwrap_or_default().to_string(),
            None => "No document with that uid.".into(),
        },
        |verity, args: DocArgs| {
            Box::pin(async move {
                let doc = verity.get(&args.uid).await?;
                Ok(DocOut {
                    found: doc.is_some(),
                    document: doc.map(|d| serde_json::to_value(d).unwrap_or_default()),
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
