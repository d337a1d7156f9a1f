//! `verify_citations`: check that each source a document cites supports the
//! claim citing it (seed 002), through [`crate::Verity::check`].

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Tool, ToolHints, ToolOptions};
use crate::api::verify::{
    ignore_progress, render, CheckRequest, JudgeChoice, Report, ReportFormat,
};

/// The client-facing part of [`CheckRequest`]: text or an http(s) URL.
/// Local paths and `allow_private` (which disables the SSRF guard) are
/// operator choices a tool caller never gets.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct VerifyCitationsRequest {
    /// The document as text (Markdown, HTML or plain text) with its links and references.
    #[serde(default)]
    pub content: Option<String>,
    /// Or the http(s) URL of the document.
    #[serde(default)]
    pub url: Option<String>,
    /// `markdown`, `html` or `text`; detected when absent.
    #[serde(default)]
    pub content_type: Option<String>,
    /// `auto` (default), `local` (no model) or `llm`.
    #[serde(default)]
    pub judge: Option<JudgeChoice>,
}

/// The `verify_citations` tool.
pub(super) fn tool(_: &ToolOptions) -> Tool {
    Tool::new(
        "verify_citations",
        "Check citations",
        "Check a document's citations: find every claim that cites a source (links, URLs, DOIs, \
         arXiv ids, numbered references, footnotes, author-year), fetch each source, and say \
         whether it supports the claim: SUPPORTED, NOT_SUPPORTED, PARTIAL, INCONCLUSIVE or \
         SOURCE_UNAVAILABLE, with an explanation and a quote that occurs verbatim in the source. \
         Give `content` or `url`. Private and loopback addresses are refused.",
        |r: &Report| render(r, ReportFormat::Md, false),
        |verity, req: VerifyCitationsRequest| {
            Box::pin(async move {
                let check = CheckRequest {
                    content: req.content,
                    url: req.url,
                    content_type: req.content_type,
                    judge: req.judge,
                    ..CheckRequest::default()
                };
                verity.check(&check, &ignore_progress).await
            })
        },
    )
    .hints(ToolHints {
        read_only: true,
        open_world: true,
        ..ToolHints::default()
    })
}
