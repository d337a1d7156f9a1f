//! Research tools (seed 003): the Documentalist's `find_by_name` and
//! `add_reference` on the knowledge base (`VERITY_KNOWLEDGE_DIR`, default
//! `<home>/knowledge`), and
//! `research`, a whole run on a syllabus file under the configured roots.

use std::sync::Arc;
use std::time::Duration;

use verity_core::{ProviderError, ProviderErrorKind};

use super::{Tool, ToolOptions};
use crate::api::research::{
    AddReferenceRequest, AddReferenceResponse, FindByNameRequest, FindByNameResponse,
    ResearchOptions, ResearchRequest, ResearchResponse,
};
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
                let entry = verity.find_by_name(&req, &ResearchOptions::default())?;
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
                let opts = ResearchOptions {
                    allow_private,
                    ..ResearchOptions::default()
                };
                Ok(verity.add_reference(&req, &opts).await?.into())
            })
        },
    )
}

/// The typed error of a `research` call stopped by its time limit.
fn too_long(limit: Duration) -> Error {
    ProviderError::new(
        "research",
        ProviderErrorKind::Timeout,
        format!(
            "the run did not finish within this call's {:.0} s limit (the server's request \
             timeout); start long runs with `POST /v1/research`, a job that reports its \
             progress and keeps the report until it is fetched",
            limit.as_secs_f64()
        ),
    )
    .into()
}

/// The `research` tool; the syllabus path goes through the options'
/// [`super::FileRoots`], the run is bounded by
/// [`ToolOptions::research_time_limit`].
pub(super) fn run(options: &ToolOptions) -> Tool {
    let roots = Arc::new(options.file_roots.clone());
    let allow_private = options.allow_private_fetch;
    let limit = options.research_time_limit;
    Tool::new(
        "research",
        "Research a syllabus",
        "Run the research workflow on a syllabus file (Markdown, PDF or HTML) under the \
         server's file roots: brief, plan, sub-agents (knowledge base, store, web), a \
         written report whose every cited sentence is checked against its sources. Returns \
         the report Markdown, theme coverage, the share of cited sentences the judge \
         supports, what is missing and the run directory. Takes minutes on large syllabi: \
         a call over HTTP stops at the server's request timeout (error `unavailable`), so \
         start long runs with the REST job `POST /v1/research` instead.",
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
                let run = verity.research(&syllabus, &opts, &|_| {});
                let out = match limit {
                    Some(d) => tokio::time::timeout(d, run)
                        .await
                        .map_err(|_| too_long(d))??,
                    None => run.await?,
                };
                Ok(out.into())
            })
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_research_tool_points_long_runs_at_the_job_route() {
        let tool = run(&ToolOptions::default());
        assert!(tool.description().contains("POST /v1/research"));
        let e = too_long(Duration::from_secs(58));
        assert_eq!(e.code(), "unavailable");
        assert!(e.is_transient());
        let msg = e.to_string();
        assert!(
            msg.contains("58 s") && msg.contains("POST /v1/research"),
            "{msg}"
        );
    }
}
