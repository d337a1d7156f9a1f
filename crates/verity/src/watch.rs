//! The technology watch of seed 000 and the AuraCore project tools
//! ([`verity_watch::Watch`]) over what a [`Verity`] already has: its backend
//! (the SQLite home or Redis), its one guarded fetcher, the shared network
//! layer for SearXNG, and its store for the raw text of logged articles and
//! for the retrieval of `query_context` over project context entries.
//!
//! ```no_run
//! use verity::watch::{CheckArticleRequest, WatchConfig};
//!
//! # async fn run(verity: &verity::Verity) -> verity::Result<()> {
//! verity.configure_watch(WatchConfig::from_env()?)?; // optional: from_env is the default
//! let watch = verity.watch().await?;
//! let seen = watch
//!     .check_article(&CheckArticleRequest { url: "https://blog.ollama.com/ollama-0-5".into(), content: None })
//!     .await?;
//! println!("{}", seen.message);
//! # Ok(()) }
//! ```

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use tokio::sync::OnceCell;
use verity_core::{
    Article, ConfigError, ContextEntry, Document, Embedder, Error, Fetcher, Filters, Judge, Result,
    ScoringGuide, SearchMode, SearchQuery, VectorStore,
};
use verity_ingest::Ingestor;

pub use verity_watch::*;

use crate::Verity;

/// How [`Verity::watch`] sets up the watch. By default it comes from the
/// handle's configuration ([`crate::config::WebConfig`]):
/// `VERITY_SEARXNG_URL` (or `SEARXNG_URL`), `JINA_READER_URL`,
/// `VERITY_WATCH_RULES`, `VERITY_ALLOW_PRIVATE` (`crawl_url` and
/// `verify_fact` may read private addresses), `VERITY_WATCH_JUDGE` (`local`,
/// the default, or `llm`: the configured generator).
#[derive(Clone, Default)]
pub struct WatchConfig {
    /// SearXNG instance for `web_search` and `verify_fact` (none: those tools
    /// answer a configuration error, `verify_fact` still works with `urls`).
    pub searxng_url: Option<String>,
    /// Jina Reader endpoint: `crawl_url` reads pages through it (none: the
    /// handle's own guarded fetcher and extractor).
    pub jina_reader_url: Option<String>,
    /// A JSON rules file whose rules are created, when the watch starts, if
    /// no rule of that name exists yet (a fresh install gets working scores;
    /// rules edited since are kept).
    pub rules_file: Option<std::path::PathBuf>,
    /// Let `crawl_url` and `verify_fact` read private and loopback addresses.
    pub allow_private: bool,
    /// Scoring guide (default 5 / 7 / 10).
    pub scoring_guide: ScoringGuide,
    /// Judge of `verify_fact` (default: the local judge).
    pub judge: Option<Arc<dyn Judge>>,
    /// Use the configured generator as the judge (ignored when `judge` is set).
    pub llm_judge: bool,
    /// Pages `verify_fact` reads after a web search (default 3).
    pub max_fact_sources: Option<usize>,
    /// Do not index the `raw_content` of logged articles in the store.
    pub no_article_ingest: bool,
}

impl std::fmt::Debug for WatchConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WatchConfig")
            .field("searxng_url", &self.searxng_url)
            .field("jina_reader_url", &self.jina_reader_url)
            .field("rules_file", &self.rules_file)
            .field("allow_private", &self.allow_private)
            .field("scoring_guide", &self.scoring_guide)
            .field("judge", &self.judge.as_ref().map(|j| j.name().to_string()))
            .field("llm_judge", &self.llm_judge)
            .field("max_fact_sources", &self.max_fact_sources)
            .field("no_article_ingest", &self.no_article_ingest)
            .finish()
    }
}

impl WatchConfig {
    /// The configuration from the environment (see the type's documentation).
    pub fn from_env() -> Result<Self> {
        Ok(Self::from_config(&crate::config::WebConfig::from_env(
            &mut Vec::new(),
        )?))
    }

    /// The watch settings of a handle's [`crate::config::WebConfig`].
    pub fn from_config(web: &crate::config::WebConfig) -> Self {
        Self {
            searxng_url: web.searxng_url.clone(),
            jina_reader_url: web.jina_reader_url.clone(),
            rules_file: web.watch_rules.clone(),
            allow_private: web.allow_private,
            llm_judge: web.watch_llm_judge,
            ..Self::default()
        }
    }
}

/// The watch of one [`Verity`]: its configuration until first use, then the service.
#[derive(Default)]
pub(crate) struct WatchCell {
    config: Mutex<Option<WatchConfig>>,
    watch: OnceCell<Watch>,
}

/// Indexes the raw text of logged articles in the Verity's store, so that
/// search, ask and later verification find it.
struct StoreSink {
    ingestor: Ingestor,
}

#[async_trait]
impl ArticleSink for StoreSink {
    async fn ingest_article(&self, article: &Article, raw_content: &str) -> Result<()> {
        let mut doc = Document::new(format!("watch:{}", article.id), raw_content);
        doc.title = Some(article.title.clone());
        doc.url = Some(article.url.clone());
        doc.source = article.source.clone();
        doc.ts = Some(article.processed_at);
        doc.tags = vec!["veille".into()];
        self.ingestor.ingest(vec![doc], &|_| {}).await?;
        Ok(())
    }
}

/// The store's retrieval over AuraCore context entries: each entry is a
/// document `auracore-context:<id>` with source `auracore:<project id>`,
/// searched with a source filter (hybrid when an embedder is configured,
/// BM25 otherwise).
struct StoreContextIndex {
    store: Arc<dyn VectorStore>,
    embedder: Option<Arc<dyn Embedder>>,
    ingestor: Ingestor,
}

/// The uid of a context entry's document.
fn context_uid(id: &str) -> String {
    format!("auracore-context:{id}")
}

/// The source of a project's context documents.
fn context_source(project_id: &str) -> String {
    format!("auracore:{project_id}")
}

#[async_trait]
impl ContextIndex for StoreContextIndex {
    async fn index_context(&self, entry: &ContextEntry) -> Result<()> {
        let mut doc = Document::new(context_uid(&entry.id), entry.content.clone());
        doc.title = entry.title.clone();
        doc.source = context_source(&entry.project_id);
        doc.ts = Some(entry.created_at);
        doc.tags = entry.tags.clone();
        self.ingestor.ingest(vec![doc], &|_| {}).await?;
        Ok(())
    }

    async fn remove_context(&self, entry: &ContextEntry) -> Result<()> {
        self.store.delete(&[context_uid(&entry.id)]).await?;
        Ok(())
    }

    async fn search_context(
        &self,
        project_id: &str,
        query: &str,
        limit: usize,
    ) -> Result<Vec<(String, f32)>> {
        let filters = Filters {
            sources: vec![context_source(project_id)],
            ..Filters::default()
        };
        // Several chunks may come from one entry: ask for more, keep the best per entry.
        let k = (limit * 4).clamp(1, verity_core::MAX_K);
        let lexical = SearchQuery::new(query)
            .mode(SearchMode::Lexical)
            .k(k)
            .filters(filters);
        let hits = match &self.embedder {
            Some(e) => {
                let mut q = lexical.clone().mode(SearchMode::Hybrid);
                match e.embed_query(query).await {
                    Ok(v) => {
                        q.vector = Some(v);
                        match self.store.search(&q).await {
                            Ok(h) => h,
                            Err(err) => {
                                tracing::debug!(error = %err, "hybrid context search failed; BM25");
                                self.store.search(&lexical).await?
                            }
                        }
                    }
                    Err(err) => {
                        tracing::debug!(error = %err, "query embedding failed; BM25 context search");
                        self.store.search(&lexical).await?
                    }
                }
            }
            None => self.store.search(&lexical).await?,
        };
        let mut out: Vec<(String, f32)> = Vec::new();
        for h in hits {
            let Some(id) = h.chunk.doc_uid.strip_prefix("auracore-context:") else {
                continue;
            };
            if !out.iter().any(|(seen, _)| seen == id) {
                out.push((id.to_string(), h.relevance));
            }
            if out.len() == limit {
                break;
            }
        }
        Ok(out)
    }
}

impl Verity {
    /// Set how [`Verity::watch`] builds the watch; refused once it is built.
    pub fn configure_watch(&self, config: WatchConfig) -> Result<()> {
        if self.watch.watch.initialized() {
            return Err(Error::invalid_input(
                "the watch is already running: configure it before its first use",
            ));
        }
        *self.watch.config.lock().unwrap_or_else(|p| p.into_inner()) = Some(config);
        Ok(())
    }

    /// The watch service over this handle's backend, fetcher and web search,
    /// built on first use (with [`WatchConfig::from_env`] unless
    /// [`Verity::configure_watch`] was called).
    pub async fn watch(&self) -> Result<&Watch> {
        self.watch
            .watch
            .get_or_try_init(|| self.build_watch())
            .await
    }

    async fn build_watch(&self) -> Result<Watch> {
        let given = self
            .watch
            .config
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let config = match given {
            Some(c) => c,
            None => WatchConfig::from_config(&self.config().web),
        };
        let mut b = Watch::builder().scoring_guide(config.scoring_guide);
        b = match &self.config().redis_url {
            None => {
                let home = self.config().home.clone();
                let store = tokio::task::spawn_blocking(move || {
                    verity_store::SqliteWatchStore::open(&home)
                })
                .await
                .map_err(|e| {
                    verity_core::StoreError::Backend(format!("watch store task failed: {e}"))
                })??;
                b.backend(Arc::new(store))
            }
            Some(url) => b.backend(redis_store(url).await?),
        };
        let fetcher: Arc<dyn Fetcher> = match &config.jina_reader_url {
            Some(base) => self.jina_reader(base, config.allow_private)?,
            None => self.fetchers.get(config.allow_private)?,
        };
        b = b.fetcher(fetcher);
        if let Some(search) = self.web_search_at(config.searxng_url.as_deref())? {
            b = b.web_search(search);
        }
        if let Some(j) = config.judge.clone() {
            b = b.judge(j);
        } else if config.llm_judge {
            let generator =
                crate::providers::generator(self.config(), &self.config().generator).await?;
            b = b.judge(Arc::new(LlmJudge::new(generator)));
        }
        if let Some(n) = config.max_fact_sources {
            b = b.max_fact_sources(n);
        }
        if !config.no_article_ingest {
            let ingestor = Ingestor::builder(self.store().clone())
                .embedder(self.embedder().cloned())
                .build()?;
            b = b.article_sink(Arc::new(StoreSink { ingestor }));
        }
        let ingestor = Ingestor::builder(self.store().clone())
            .embedder(self.embedder().cloned())
            .build()?;
        b = b.context_index(Arc::new(StoreContextIndex {
            store: self.store().clone(),
            embedder: self.embedder().cloned(),
            ingestor,
        }));
        let watch = b.build()?;
        if let Some(path) = &config.rules_file {
            seed_rules(&watch, path).await?;
        }
        Ok(watch)
    }

    /// Jina Reader at `base` on this handle's HTTP client, with the
    /// configured timeout and key.
    fn jina_reader(&self, base: &str, allow_private: bool) -> Result<Arc<dyn Fetcher>> {
        let web = &self.config().web;
        let mut j = verity_fetch::JinaReader::with_client(base, self.http())?;
        if let Some(t) = web.jina_timeout {
            j = j.with_timeout(t)?;
        }
        if let Some(k) = &web.jina_api_key {
            j = j.with_api_key(k.clone());
        }
        if allow_private {
            j = j.with_guard(verity_fetch::NetworkGuard::disabled());
        }
        Ok(Arc::new(j))
    }
}

/// Create the rules of a rules file (a JSON array of `update_veille_rule`
/// requests, or `{"rules": [...]}`) whose names do not exist yet.
async fn seed_rules(watch: &Watch, path: &std::path::Path) -> Result<usize> {
    let text = tokio::fs::read_to_string(path)
        .await
        .map_err(|e| ConfigError::Invalid {
            key: "VERITY_WATCH_RULES".into(),
            message: format!("cannot read the rules file {}: {e}", path.display()),
        })?;
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum RulesFile {
        List(Vec<verity_core::RuleUpdate>),
        Object { rules: Vec<verity_core::RuleUpdate> },
    }
    let rules = match serde_json::from_str::<RulesFile>(&text) {
        Ok(RulesFile::List(r) | RulesFile::Object { rules: r }) => r,
        Err(e) => {
            return Err(ConfigError::Invalid {
                key: "VERITY_WATCH_RULES".into(),
                message: format!(
                    "{}: not a rules file ({e}); expected a JSON array of rules \
                     {{\"name\", \"type\", \"keywords\", \"score_modifier\", …}} \
                     as examples/n8n/rules.json",
                    path.display()
                ),
            }
            .into())
        }
    };
    let created = watch
        .seed_rules(rules)
        .await
        .map_err(|e| ConfigError::Invalid {
            key: "VERITY_WATCH_RULES".into(),
            message: format!("{}: {e}", path.display()),
        })?;
    if created > 0 {
        tracing::info!(created, file = %path.display(), "watch rules seeded");
    }
    Ok(created)
}

#[cfg(feature = "redis")]
async fn redis_store(url: &str) -> Result<Arc<verity_redis::RedisWatchStore>> {
    let opts = verity_redis::ConnectOptions::default();
    Ok(Arc::new(
        verity_redis::RedisWatchStore::connect(url, &opts).await?,
    ))
}

#[cfg(not(feature = "redis"))]
async fn redis_store(url: &str) -> Result<Arc<verity_store::SqliteWatchStore>> {
    Err(ConfigError::Invalid {
        key: "redis_url".into(),
        message: format!(
            "`{}`: Redis needs the `redis` feature of the verity crate",
            crate::backend::without_password(url)
        ),
    }
    .into())
}
