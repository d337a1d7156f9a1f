//! The research workflow on a `Store`: `research`, `find_by_name`
//! and `add_reference`, returning the api's `ResearchResponse`,
//! `KnowledgeEntryView` and `AddReferenceResponse` (typed in `crate::results`).

use std::path::PathBuf;
use std::sync::Arc;

use verity::api::research::{
    AddReferenceRequest, AddReferenceResponse, KnowledgeEntryView, ResearchResponse,
};
use verity::research::ResearchOptions;
use verity::Verity;

/// Run (or, with `opts.replay`, replay) a research run.
pub async fn research(
    v: Arc<Verity>,
    syllabus: PathBuf,
    opts: ResearchOptions,
) -> verity::Result<ResearchResponse> {
    if !opts.replay && syllabus.as_os_str().is_empty() {
        return Err(verity::Error::invalid_input(
            "`syllabus` is required (or `replay=True` with `run_dir`)",
        ));
    }
    if opts.replay && opts.run_dir.is_none() {
        return Err(verity::Error::invalid_input(
            "`replay=True` needs `run_dir`, the run to replay",
        ));
    }
    Ok(v.research(&syllabus, &opts, &|_| {}).await?.into())
}

/// `find_by_name`.
pub fn find_by_name(
    v: &Verity,
    filename: &str,
    knowledge_dir: Option<PathBuf>,
) -> verity::Result<Option<KnowledgeEntryView>> {
    if filename.trim().is_empty() {
        return Err(verity::Error::invalid_input("`filename` is empty"));
    }
    Ok(v.find_by_name(filename.trim(), knowledge_dir.as_deref())?
        .map(Into::into))
}

/// `add_reference`.
pub async fn add_reference(
    v: Arc<Verity>,
    req: AddReferenceRequest,
    opts: ResearchOptions,
) -> verity::Result<AddReferenceResponse> {
    let reference = req.reference()?;
    Ok(v.add_reference(reference, &opts).await?.into())
}
