//! `get_document`: one stored document by uid.

use super::{Tool, ToolHints, ToolOptions};
use crate::api::{GetDocumentRequest, GetDocumentResponse};

/// The `get_document` tool.
pub(super) fn tool(_: &ToolOptions) -> Tool {
    Tool::new(
        "get_document",
        "Get a document",
        "Return the full stored document (content and metadata) for a uid, as cited by \
         `search` and `ask`; `document` is null when no document has that uid.",
        |d: &GetDocumentResponse| match &d.document {
            Some(doc) => match &doc.title {
                Some(t) => format!("# {t}\n\n{}", doc.content),
                None => doc.content.clone(),
            },
            None => "No document with that uid.".into(),
        },
        |verity, req: GetDocumentRequest| Box::pin(async move { verity.document(&req).await }),
    )
    .hints(ToolHints {
        read_only: true,
        idempotent: true,
        ..ToolHints::default()
    })
}
