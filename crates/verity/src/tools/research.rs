//! Research tools (seed 003): the Documentalist's `find_by_name` and
//! `add_reference` on the knowledge base (`<home>/knowledge`), and
//! `research`, a whole run on a syllabus file under the configured roots.

use std::sync::Arc;

use super::{Tool, ToolOptions};
use crate::api::research::{
    AddReferenceRequest, AddReferenceResponse, FindByNameRequest, FindByNameResponse,
    ResearchRequest, ResearchResponse,
};
use crate::research::ResearchOptions;
use crate::Error;

/// The `find_by_name` tool.
pub(super) fn find_by_name(_: &ToolOptions) -> Tool {
    Tool::new(
        "find_by_name",
        "Find a knowledge-base file",
        "Look up a document of the research knowledge base by its file name: its title, \
         source URL, keywords, summary and store id. `found` is false when the knowledge \
         base has no such file.",
        |r: &FindByNameResponse| match &r.entry {
            Some(e) => format!("{}: {}\n{}", e.filename, e.title, e.summary),
            None => "not in the knowledge base".to_string(),
        },
        |verity, req: FindByNameRequest| {
            Box::pin(async move {
                if req.filename.trim().is_empty() {
                    return Err(Error::invalid_input("`filename` is empty"));
                }
                let entry = verity.find_by_name(req.filename.trim(), None)?;
                Ok(FindByNameResponse {
                    found: entry.is_some(),
                    entry: entry.map(Into::into),
                })
            })
        },
    )
}

/// The `add_reference` tool; URLs go through the guarded fetcher (private
/// addresses only when the operator allowed them in [`ToolOptions`]).
pub(super) fn add_reference(options: &ToolOptions) -> Tool {
    let allow_private = options.allow_private_fetch;
    Tool::new(
        "add_reference",
        "Add a knowledge-base reference",
        "Add a reference to the research knowledge base: an http(s) `url` is downloaded \
         (unless already there), saved as Markdown, registered with its title, keywords and \
         summary (given or generated) and indexed once; or `filename`, a file already in the \
         knowledge base directory, is registered and indexed.",
        |r: &AddReferenceResponse| {
            format!(
                "{} ({}){}{}",
                r.entry.filename,
                r.entry.title,
                if r.downloaded { ", downloaded" } else { "" },
                if r.indexed {
                    ", indexed"
                } else {
                    ", already indexed"
                },
            )
        },
        move |verity, req: AddReferenceRequest| {
            Box::pin(async move {
                let reference = req.reference()?;
                let opts = ResearchOptions {
                    allow_private,
                    ..ResearchOptions::default()
                };
                Ok(verity.add_reference(reference, &opts).await?.into())
            })
        },
    )
}

/// The `research` tool; the syllabus path goes through the options'
/// [`super::FileRoots`].
pub(super) fn run(options: &ToolOptions) -> Tool {
    let roots = Arc::new(options.file_roots.clone());
    let allow_private = options.allow_private_fetch;
    Tool::new(
        "research",
        "Research a syllabus",
        "Run the research workflow on a syllabus file (Markdown, PDF or HTML) under the \
         server's file roots: brief, plan, sub-agents (knowledge base, store, web), a \
         written report whose every cited sentence is checked against its sources. Returns \
         the report Markdown, theme coverage, the share of cited sentences the judge \
         supports, what is missing and the run directory. Takes minutes on large syllabi.",
        |r: &ResearchResponse| {
            format!(
                "{}\n\ncoverage {:.0} %, supported {:.0} % of {} cited sentences{}; run {}",
                r.markdown,
                r.coverage * 100.0,
                r.supported_share * 100.0,
                r.cited_sentences,
                if r.degraded { ", degraded" } else { "" },
                r.run_dir
            )
        },
        move |verity, req: ResearchRequest| {
            let roots = roots.clone();
            Box::pin(async move {
                let syllabus = roots
                    .resolve_file(&req.syllabus)
                    .map_err(|e| Error::invalid_input(format!("`syllabus`: {e}")))?;
                let opts = ResearchOptions {
                    allow_private,
                    remove_unsupported: req.remove_unsupported,
                    ..ResearchOptions::default()
                };
                let out = verity.research(&syllabus, &opts, &|_| {}).await?;
                Ok(out.into())
            })
        },
    )
}
