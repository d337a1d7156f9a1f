//! The research workflow on a `Store`: `research`, `find_by_name`
//! and `add_reference`, from the api's requests and `ResearchOptions`
//! (built from the keywords by `conv`), returning its `ResearchResponse`,
//! `KnowledgeEntryView` and `AddReferenceResponse` (typed in `crate::results`).

use std::path::PathBuf;
use std::sync::Arc;

use verity::api::research::{
    AddReferenceRequest, AddReferenceResponse, FindByNameRequest, KnowledgeEntryView,
    ResearchOptions, ResearchResponse,
};
use verity::Verity;

/// The `ResearchOptions` keywords `find_by_name` reads.
pub const FIND_BY_NAME_OPTIONS: &[&str] = &["knowledge_dir"];

/// The `ResearchOptions` keywords `add_reference` reads.
pub const ADD_REFERENCE_OPTIONS: &[&str] = &["knowledge_dir", "allow_private"];

/// Run (or, with `opts.replay`, replay) a research run.
pub async fn research(
    v: Arc<Verity>,
    syllabus: PathBuf,
    opts: ResearchOptions,
) -> verity::Result<ResearchResponse> {
    Ok(v.research(&syllabus, &opts, &|_| {}).await?.into())
}

/// `find_by_name`.
pub async fn find_by_name(
    v: Arc<Verity>,
    req: FindByNameRequest,
    opts: ResearchOptions,
) -> verity::Result<Option<KnowledgeEntryView>> {
    Ok(v.find_by_name(&req, &opts)?.map(Into::into))
}

/// `add_reference`.
pub async fn add_reference(
    v: Arc<Verity>,
    req: AddReferenceRequest,
    opts: ResearchOptions,
) -> verity::Result<AddReferenceResponse> {
    Ok(v.add_reference(&req, &opts).await?.into())
}
