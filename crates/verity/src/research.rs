//! The research workflow (seed 003) on a [`Verity`] handle:
//! [`Verity::research`] builds a [`ResearchPipeline`] over the handle's
//! store and embedder, its one fetcher, the configured web search
//! (`VERITY_SEARXNG_URL`, on the handle's HTTP client) and — when a model generator is configured — that
//! generator for the planner, the writer and the summaries (with the LLM
//! judge), else the deterministic planner, the extractive writer and the
//! local judge. A fixed generation deadline (`RAG_TIMEOUT_SECS`) bounds
//! each plan, draft and summary, and the run's time budget
//! ([`ResearchOptions::budget_secs`]) bounds them all; past it the run degrades,
//! said so.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use verity_core::{Error, Fetcher, Generator, Judge, Result, WebSearch};
pub use verity_research::{
    CheckedReport, DocOutcome, KnowledgeBase, KnowledgeEntry, LlmProgress, LlmState, PlanSource,
    Progress, ResearchOutcome, SentenceCheck, StepTiming, TaskStatus, ThemeCoverage, TraceRecord,
    UrlRef,
};
use verity_research::{ResearchPipeline, UnsupportedPolicy};
use verity_verify::{LlmJudge, LocalJudge};

use crate::api::research::{AddReferenceRequest, FindByNameRequest};
use crate::config::GeneratorSpec;
use crate::Verity;

pub use crate::api::research::ResearchOptions;

/// Default time budget of a research run: room for a small local model on
/// a CPU to plan, write and judge, short enough that a run never hangs.
pub const DEFAULT_RESEARCH_BUDGET: std::time::Duration = std::time::Duration::from_secs(300);

/// Progress callback of [`Verity::research`].
pub type ResearchProgress<'a> = &'a (dyn Fn(&Progress) + Send + Sync);

impl Verity {
    /// Research the syllabus at `syllabus` (Markdown, PDF or HTML); with
    /// `opts.replay`, re-run the writer and the checks of `opts.run_dir`
    /// (`syllabus` may then be empty). Options that do not go together are
    /// refused first ([`ResearchOptions::check_run`]).
    pub async fn research(
        &self,
        syllabus: &Path,
        opts: &ResearchOptions,
        progress: ResearchProgress<'_>,
    ) -> Result<ResearchOutcome> {
        opts.check_run(syllabus)?;
        let home = self.config().home.clone();
        let run_dir = opts.run_dir.clone().unwrap_or_else(|| {
            home.join("runs")
                .join(chrono::Utc::now().format("%Y%m%dT%H%M%S%.3f").to_string())
        });
        let pipeline = self.research_pipeline(opts, !opts.replay).await?;
        let out = if opts.replay {
            pipeline.replay(&run_dir, progress).await
        } else {
            pipeline.run_file(syllabus, &run_dir, progress).await
        };
        out.map_err(verity_core::Error::from)
    }

    /// `find_by_name`: the knowledge-base entry (read from disk) of the
    /// file `req.filename` in `opts.knowledge_dir` (default: the
    /// configured knowledge base), `None` when it has no such file.
    pub fn find_by_name(
        &self,
        req: &FindByNameRequest,
        opts: &ResearchOptions,
    ) -> Result<Option<KnowledgeEntry>> {
        let name = req.filename.trim();
        if name.is_empty() {
            return Err(Error::invalid_input("`filename` is empty"));
        }
        let kb = KnowledgeBase::open(self.knowledge_dir(opts.knowledge_dir.as_deref()))
            .map_err(Error::from)?;
        kb.find_by_name(name).map_err(Error::from)
    }

    /// Add a reference to the knowledge base ([`AddReferenceRequest::reference`]):
    /// with `url`, the Documentalist downloads it with the handle's fetcher
    /// (unless the knowledge base already has it; the SSRF guard on unless
    /// `opts.allow_private`), saves it as Markdown, registers it and indexes
    /// it once; with `filename` instead, the file of that name already in
    /// the knowledge base directory is registered and indexed.
    pub async fn add_reference(
        &self,
        req: &AddReferenceRequest,
        opts: &ResearchOptions,
    ) -> Result<DocOutcome> {
        let reference = req.reference()?;
        let pipeline = self.research_pipeline(opts, true).await?;
        let doc = pipeline.documentalist();
        let out = match reference {
            Reference::Url(r) => doc.add_url(&r).await,
            Reference::File(name) => doc.add_file(&name).await,
        };
        out.map_err(verity_core::Error::from)
    }

    fn knowledge_dir(&self, dir: Option<&Path>) -> PathBuf {
        dir.map(Path::to_path_buf)
            .unwrap_or_else(|| self.config().knowledge_dir())
    }

    /// The research pipeline over this handle; `use_model`: the configured
    /// generator plans, writes and summarises (when one is configured).
    async fn research_pipeline(
        &self,
        opts: &ResearchOptions,
        use_model: bool,
    ) -> Result<ResearchPipeline> {
        let kb = self.knowledge_dir(opts.knowledge_dir.as_deref());
        let model = !matches!(self.config().generator, GeneratorSpec::Extractive);
        let generator: Option<Arc<dyn Generator>> = if model && use_model {
            Some(self.rag().await?.generator().clone())
        } else {
            None
        };
        use crate::api::verify::JudgeChoice;
        let judge: Arc<dyn Judge> = match (opts.judge, &generator) {
            (JudgeChoice::Local, _) | (JudgeChoice::Auto, None) => Arc::new(LocalJudge::new()),
            (JudgeChoice::Auto | JudgeChoice::Llm, Some(g)) => Arc::new(LlmJudge::new(g.clone())),
            // A replay uses no model: `llm` judges with the configured model anyway.
            (JudgeChoice::Llm, None) => self.judge(JudgeChoice::Llm).await?,
        };
        let fetcher: Arc<dyn Fetcher> = self.fetchers.http(opts.allow_private)?;
        let web: Option<Arc<dyn WebSearch>> = self.web_search_from_env()?;
        ResearchPipeline::builder(self.store().clone(), kb)
            .embedder(self.embedder().cloned())
            .fetcher(Some(fetcher))
            .web_search(web)
            .generator(generator)
            .generation_timeout(self.config().rag.timeout.fixed)
            .budget(Some(opts.budget()))
            .judge(judge)
            .unsupported(if opts.remove_unsupported {
                UnsupportedPolicy::Remove
            } else {
                UnsupportedPolicy::Flag
            })
            .build()
            .map_err(verity_core::Error::from)
    }
}

/// A reference to add to the knowledge base ([`Verity::add_reference`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Reference {
    /// A URL to download, with what is known of it.
    Url(UrlRef),
    /// A file already placed in the knowledge base directory, by name.
    File(String),
}
