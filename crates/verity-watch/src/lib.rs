//! # verity-watch
//!
//! The technology watch of seed 000 and the AuraCore project tools, as one
//! library object, [`Watch`], built with [`WatchBuilder`]:
//!
//! | operation | method |
//! |---|---|
//! | `get_veille_rules`, `update_veille_rule` | [`Watch::get_rules`], [`Watch::update_rule`] |
//! | `score_article` (deterministic, explained) | [`Watch::score_article`] |
//! | `check_article_exists` (canonical URL + near-duplicate content) | [`Watch::check_article`] |
//! | `log_article` (idempotent), `get_articles` | [`Watch::log_article`], [`Watch::get_articles`] |
//! | `log_veille_decision`, reading decisions back | [`Watch::log_decision`], [`Watch::decisions`] |
//! | `web_search`, `crawl_url` | [`Watch::web_search`], [`Watch::crawl_url`] |
//! | `verify_fact` (search → pages → passages → [`Judge`]) | [`Watch::verify_fact`] |
//! | AuraCore projects, context, tasks, decisions | [`Watch::create_project`] … [`Watch::get_project_decisions`] |
//!
//! Storage is pluggable ([`RuleStore`], [`WatchStore`], [`ProjectStore`]:
//! SQLite in `verity-store`, Redis in `verity-redis`); so are web search
//! ([`WebSearch`]), fetching ([`Fetcher`], whose network guard refuses
//! private addresses unless allowed), the ingest of article text
//! ([`ArticleSink`]) and context retrieval ([`ContextIndex`]).
//!
//! ```
//! use verity_watch::{canonical_url, Scorer, ScoreRequest};
//! use verity_core::{RelevanceRule, RuleKind, Priority, ScoringGuide};
//!
//! assert_eq!(
//!     canonical_url("http://www.example.com/post/?utm_source=x#top").unwrap(),
//!     "https://example.com/post"
//! );
//! let rule = RelevanceRule {
//!     name: "local_llm".into(), kind: RuleKind::Include,
//!     keywords: vec!["ollama".into(), "local llm".into()],
//!     score_modifier: 3, priority: Priority::Critical, active: true, description: None,
//! };
//! let scorer = Scorer::new(vec![rule], ScoringGuide::default()).unwrap();
//! let r = scorer.score(&ScoreRequest { title: "Ollama 0.5".into(), ..Default::default() });
//! assert_eq!((r.score, r.valid), (8, true));
//! ```

pub mod api;
mod articles;
pub mod canon;
mod projects;
pub mod score;
pub mod simhash;
pub mod text;
mod verify;
mod web;
pub use verify::MAX_CLAIM_BYTES;
pub use verity_verify::{LlmJudge, LocalJudge};

use std::sync::Arc;

use async_trait::async_trait;
use parking::Mutex;
use verity_core::{
    Article, ConfigError, ContextEntry, Error, Fetcher, Judge, ProjectStore, Result, RuleStore,
    ScoringGuide, WatchStore, WebSearch,
};

pub use api::*;
pub use canon::{canonical_url, parse_url};
pub use score::{Field, KeywordHit, RuleMatch, ScoreRequest, ScoreResult, Scorer};

mod parking {
    /// A poison-free mutex over `std::sync::Mutex`.
    #[derive(Debug, Default)]
    pub struct Mutex<T>(std::sync::Mutex<T>);
    impl<T> Mutex<T> {
        pub fn new(t: T) -> Self {
            Self(std::sync::Mutex::new(t))
        }
        pub fn lock(&self) -> std::sync::MutexGuard<'_, T> {
            self.0.lock().unwrap_or_else(|p| p.into_inner())
        }
    }
}

/// Receives the raw text of logged articles (the facade indexes it so that
/// RAG and fact verification can use it later).
#[async_trait]
pub trait ArticleSink: Send + Sync {
    /// Ingest `raw_content` of `article` (called after the article is logged).
    async fn ingest_article(&self, article: &Article, raw_content: &str) -> Result<()>;
}

/// Retrieval over project context entries (the facade indexes them in its
/// store and searches with a project filter).
#[async_trait]
pub trait ContextIndex: Send + Sync {
    /// Index a new entry.
    async fn index_context(&self, entry: &ContextEntry) -> Result<()>;
    /// Forget an entry.
    async fn remove_context(&self, entry: &ContextEntry) -> Result<()>;
    /// Ids of the best entries of `project_id` for `query`, with scores, best first.
    async fn search_context(
        &self,
        project_id: &str,
        query: &str,
        limit: usize,
    ) -> Result<Vec<(String, f32)>>;
}

/// Default largest content returned by `crawl_url` (bytes of Markdown).
pub const DEFAULT_MAX_CRAWL_BYTES: usize = 200_000;
/// Default number of pages `verify_fact` reads after a web search.
pub const DEFAULT_FACT_SOURCES: usize = 3;
/// Default SimHash distance (bits) under which two texts are the same article.
pub const DEFAULT_NEAR_DUP_DISTANCE: u32 = 7;

/// Builds a [`Watch`].
#[derive(Default)]
pub struct WatchBuilder {
    rules: Option<Arc<dyn RuleStore>>,
    store: Option<Arc<dyn WatchStore>>,
    projects: Option<Arc<dyn ProjectStore>>,
    search: Option<Arc<dyn WebSearch>>,
    fetcher: Option<Arc<dyn Fetcher>>,
    sink: Option<Arc<dyn ArticleSink>>,
    context_index: Option<Arc<dyn ContextIndex>>,
    guide: ScoringGuide,
    near_dup_distance: Option<u32>,
    max_crawl_bytes: Option<usize>,
    judge: Option<Arc<dyn Judge>>,
    assessor: Option<verity_verify::Assessor>,
    max_fact_sources: Option<usize>,
}

impl WatchBuilder {
    /// One backend for rules, articles, decisions and projects.
    pub fn backend<B>(self, backend: Arc<B>) -> Self
    where
        B: RuleStore + WatchStore + ProjectStore + 'static,
    {
        self.rule_store(backend.clone())
            .watch_store(backend.clone())
            .project_store(backend)
    }
    /// Where rules are kept.
    pub fn rule_store(mut self, s: Arc<dyn RuleStore>) -> Self {
        self.rules = Some(s);
        self
    }
    /// Where articles and decisions are kept.
    pub fn watch_store(mut self, s: Arc<dyn WatchStore>) -> Self {
        self.store = Some(s);
        self
    }
    /// Where AuraCore projects are kept.
    pub fn project_store(mut self, s: Arc<dyn ProjectStore>) -> Self {
        self.projects = Some(s);
        self
    }
    /// Web search for `web_search` (SearXNG in production).
    pub fn web_search(mut self, s: Arc<dyn WebSearch>) -> Self {
        self.search = Some(s);
        self
    }
    /// Fetcher for `crawl_url` (the guarded HTTP fetcher, or Jina Reader).
    pub fn fetcher(mut self, f: Arc<dyn Fetcher>) -> Self {
        self.fetcher = Some(f);
        self
    }
    /// Ingest for the raw content of logged articles.
    pub fn article_sink(mut self, s: Arc<dyn ArticleSink>) -> Self {
        self.sink = Some(s);
        self
    }
    /// Retrieval over project context.
    pub fn context_index(mut self, i: Arc<dyn ContextIndex>) -> Self {
        self.context_index = Some(i);
        self
    }
    /// Scoring guide (default 5 / 7 / 10).
    pub fn scoring_guide(mut self, g: ScoringGuide) -> Self {
        self.guide = g;
        self
    }
    /// Near-duplicate threshold in bits (0…7, default 7).
    pub fn near_duplicate_distance(mut self, bits: u32) -> Self {
        self.near_dup_distance = Some(bits);
        self
    }
    /// Cap of the content `crawl_url` returns (default 200 000 bytes).
    pub fn max_crawl_bytes(mut self, n: usize) -> Self {
        self.max_crawl_bytes = Some(n);
        self
    }

    /// The judge of `verify_fact` (default: the local judge of `verity-verify`).
    pub fn judge(mut self, j: Arc<dyn Judge>) -> Self {
        self.judge = Some(j);
        self
    }

    /// The judging path of `verify_fact` (passages, judge, checks): the same
    /// as `verity check` ([`verity_verify::Assessor`]); default: one over the
    /// [`judge`](Self::judge), words only.
    pub fn assessor(mut self, a: verity_verify::Assessor) -> Self {
        self.assessor = Some(a);
        self
    }
    /// Pages `verify_fact` reads when it searches the web (1…10, default 3).
    pub fn max_fact_sources(mut self, n: usize) -> Self {
        self.max_fact_sources = Some(n);
        self
    }

    /// Check the configuration and build.
    pub fn build(self) -> Result<Watch> {
        let missing = |what: &str| -> Error {
            ConfigError::Missing {
                what: what.into(),
                detail: "set it on WatchBuilder (or use WatchBuilder::backend)".into(),
            }
            .into()
        };
        let near = self.near_dup_distance.unwrap_or(DEFAULT_NEAR_DUP_DISTANCE);
        if near > verity_core::watch::SIMHASH_MAX_DISTANCE {
            return Err(ConfigError::Invalid {
                key: "near_duplicate_distance".into(),
                message: format!(
                    "{near} bits: the band index finds at most {} bits",
                    verity_core::watch::SIMHASH_MAX_DISTANCE
                ),
            }
            .into());
        }
        let max_crawl = self.max_crawl_bytes.unwrap_or(DEFAULT_MAX_CRAWL_BYTES);
        if max_crawl == 0 {
            return Err(ConfigError::Invalid {
                key: "max_crawl_bytes".into(),
                message: "must be positive".into(),
            }
            .into());
        }
        let max_fact_sources = self.max_fact_sources.unwrap_or(DEFAULT_FACT_SOURCES);
        if max_fact_sources == 0 || max_fact_sources > web::MAX_WEB_RESULTS {
            return Err(ConfigError::Invalid {
                key: "max_fact_sources".into(),
                message: format!(
                    "{max_fact_sources}: must be between 1 and {}",
                    web::MAX_WEB_RESULTS
                ),
            }
            .into());
        }
        let assessor = match (self.assessor, self.judge) {
            (Some(a), Some(j)) => a.with_judge(j),
            (Some(a), None) => a,
            (None, j) => verity_verify::Assessor::builder()
                .judge(j.unwrap_or_else(|| Arc::new(verity_verify::LocalJudge::new())))
                .build(),
        };
        Ok(Watch {
            assessor,
            max_fact_sources,
            rules: self.rules.ok_or_else(|| missing("rule store"))?,
            store: self.store.ok_or_else(|| missing("watch store"))?,
            projects: self.projects.ok_or_else(|| missing("project store"))?,
            search: self.search,
            fetcher: self.fetcher,
            sink: self.sink,
            context_index: self.context_index,
            guide: self.guide.validated()?,
            near_dup_distance: near,
            max_crawl_bytes: max_crawl,
            scorer: Mutex::new(None),
        })
    }
}

/// The watch and AuraCore operations over pluggable stores and services.
pub struct Watch {
    rules: Arc<dyn RuleStore>,
    store: Arc<dyn WatchStore>,
    projects: Arc<dyn ProjectStore>,
    search: Option<Arc<dyn WebSearch>>,
    fetcher: Option<Arc<dyn Fetcher>>,
    sink: Option<Arc<dyn ArticleSink>>,
    context_index: Option<Arc<dyn ContextIndex>>,
    guide: ScoringGuide,
    near_dup_distance: u32,
    max_crawl_bytes: usize,
    /// `verify_fact`'s judging path (the one of `verity check`).
    assessor: verity_verify::Assessor,
    max_fact_sources: usize,
    /// Compiled rules, rebuilt when the stored rules change.
    scorer: Mutex<Option<Arc<Scorer>>>,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watch")
            .field("guide", &self.guide)
            .field("web_search", &self.search.is_some())
            .field("fetcher", &self.fetcher.is_some())
            .field("judge", &self.assessor.judge().name())
            .field("article_sink", &self.sink.is_some())
            .field("context_index", &self.context_index.is_some())
            .finish_non_exhaustive()
    }
}

impl Watch {
    /// A builder.
    pub fn builder() -> WatchBuilder {
        WatchBuilder::default()
    }

    /// The scoring guide in force.
    pub fn scoring_guide(&self) -> ScoringGuide {
        self.guide
    }

    /// Near-duplicate threshold in bits.
    pub fn near_duplicate_distance(&self) -> u32 {
        self.near_dup_distance
    }
}

/// Trim and refuse blank required text fields.
pub(crate) fn required(field: &str, value: &str) -> Result<String> {
    let v = value.trim();
    if v.is_empty() {
        return Err(Error::invalid_input(format!("`{field}` must not be empty")));
    }
    Ok(v.to_string())
}

/// Refuse a number outside `0..=1`.
pub(crate) fn unit_interval(field: &str, v: Option<f64>) -> Result<()> {
    match v {
        Some(x) if !(0.0..=1.0).contains(&x) => Err(Error::invalid_input(format!(
            "`{field}` must be between 0 and 1, got {x}"
        ))),
        _ => Ok(()),
    }
}

/// `NotFound` for an id.
pub(crate) fn not_found(what: &'static str, id: &str) -> Error {
    verity_core::StoreError::NotFound {
        what,
        id: id.to_string(),
    }
    .into()
}
