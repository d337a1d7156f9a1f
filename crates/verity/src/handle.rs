//! [`Verity`]: one handle over the embedded store, the embedder, the
//! ingest pipeline and the RAG pipeline. The CLI and the Python/Node
//! bindings are thin shells over it.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use verity_core::cache::{uid_tag, ANSWER_PREFIX, RETRIEVAL_PREFIX};
use verity_core::{
    Answer, Cache, ConfigError, Document, Embedder, EmbedderId, Error, InputError, Result,
    SearchQuery, SearchResults, StoreError, StoreStats, VectorStore,
};
use verity_ingest::{read_paths, IngestProgress, IngestReport, Ingestor};
use verity_rag::{AskRequest, RagPipeline, RagStream, Retriever};
use verity_store::{SqliteCache, SqliteStore, StoreOptions};

use crate::config::VerityConfig;
use crate::providers;

/// Documents read per ingest batch when reading files.
const READ_BATCH: usize = 2_000;
/// Cache key remembering the embedding space the caches were filled with.
const EMBED_SPACE_KEY: &str = "verity:embed_space";

/// Outcome of [`Verity::ingest_paths`].
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct IngestOutcome {
    /// Documents inserted / replaced / unchanged, chunks written.
    pub inserted: usize,
    /// Documents whose previous version was replaced.
    pub replaced: usize,
    /// Documents skipped because nothing changed.
    pub unchanged: usize,
    /// Chunks written.
    pub chunks: usize,
    /// Records or files that could not be read (with file and line), skipped.
    pub read_errors: Vec<String>,
    /// Documents refused by the pipeline (empty content, duplicate uid, …).
    pub rejected: Vec<String>,
    /// Files left out because their type is not supported.
    pub skipped_files: Vec<PathBuf>,
    /// `true` when no embedder ran: only the BM25 index was built.
    pub lexical_only: bool,
    /// Embedder used.
    pub embedder: Option<EmbedderId>,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Content bytes ingested.
    pub bytes: u64,
    /// Documents with unchanged content re-chunked and re-embedded because
    /// they had been indexed with other settings ([`IngestReport::reprocessed`]).
    #[serde(default)]
    pub reprocessed: usize,
}

impl IngestOutcome {
    /// Add one ingest batch's counts.
    pub fn add(&mut self, r: &IngestReport) {
        self.inserted += r.upsert.inserted;
        self.replaced += r.upsert.replaced;
        self.reprocessed += r.reprocessed;
        self.unchanged += r.upsert.unchanged;
        self.chunks += r.upsert.chunks;
        self.rejected.extend(r.errors.iter().cloned());
        self.bytes += r.bytes;
    }
}

/// What [`Verity::stats`] reports.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VerityStats {
    /// Store counts.
    pub store: StoreStats,
    /// Embedder configured for queries and ingestion, if any.
    pub embedder: Option<EmbedderId>,
    /// Generator answering questions.
    pub generator: String,
    /// Store directory.
    pub home: PathBuf,
    /// Warnings about the configuration (lexical-only, embedder mismatch, …).
    pub notes: Vec<String>,
}

/// The embedded Verity: store + embedder + pipelines, opened from a directory.
pub struct Verity {
    config: VerityConfig,
    store: Arc<SqliteStore>,
    cache: Arc<SqliteCache>,
    embedder: Option<Arc<dyn Embedder>>,
    ingestor: Ingestor,
    rag: RagPipeline,
    notes: Vec<String>,
}

impl std::fmt::Debug for Verity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verity")
            .field("home", &self.config.home)
            .field("index", &self.config.index)
            .field(
                "embedder",
                &self.embedder.as_ref().map(|e| e.id().to_string()),
            )
            .field("generator", &self.rag.model())
            .finish()
    }
}

impl Verity {
    /// Open (or create) the store in `config.home` and set up the providers.
    pub async fn open(config: VerityConfig) -> Result<Self> {
        let mut notes = Vec::new();
        let home = config.home.clone();
        let index = config.index.clone();
        let store = tokio::task::spawn_blocking(move || open_current(&home, &index))
            .await
            .map_err(|e| StoreError::Backend(format!("store open task failed: {e}")))??;
        let store = Arc::new(store);
        let cache = Arc::new(store.cache());

        let embedder = providers::embedder(&config, cache.clone(), &mut notes).await?;
        if let (Some(e), Some(indexed)) = (&embedder, store.embedder().await?) {
            if indexed != *e.id() {
                notes.push(format!(
                    "the index was built with {indexed} but the configured embedder is {}: \
                     dense search is refused until you re-index (re-ingest into a new index)",
                    e.id()
                ));
            }
        }
        bust_on_embed_space_change(cache.as_ref(), embedder.as_ref().map(|e| e.id())).await?;

        let generator = providers::generator(&config, &config.generator).await?;
        let fallback = match &config.fallback {
            Some(spec) => Some(providers::generator(&config, spec).await?),
            None => None,
        };
        let cache_dyn: Option<Arc<dyn Cache>> =
            config.cache.then(|| cache.clone() as Arc<dyn Cache>);
        let store_dyn: Arc<dyn VectorStore> = store.clone();
        let retriever = Retriever::new(store_dyn.clone())
            .with_index(store.index_name())
            .with_embedder(embedder.clone())
            .with_cache(cache_dyn.clone())
            .with_config(config.retriever.clone());
        let rag = RagPipeline::builder(retriever, generator)
            .fallback(fallback)
            .cache(cache_dyn)
            .config(config.rag.clone())
            .build();
        let ingestor = Ingestor::builder(store_dyn)
            .embedder(embedder.clone())
            .build()?;
        Ok(Self {
            config,
            store,
            cache,
            embedder,
            ingestor,
            rag,
            notes,
        })
    }

    /// Open with [`VerityConfig::from_env`].
    pub async fn open_default() -> Result<Self> {
        Self::open(VerityConfig::from_env()?).await
    }

    /// The configuration in use.
    pub fn config(&self) -> &VerityConfig {
        &self.config
    }

    /// Warnings gathered while opening (lexical-only mode, embedder mismatch, …).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The embedder, when one is configured.
    pub fn embedder(&self) -> Option<&Arc<dyn Embedder>> {
        self.embedder.as_ref()
    }

    /// The store.
    pub fn store(&self) -> &Arc<SqliteStore> {
        &self.store
    }

    /// The cache (retrievals, answers, embeddings).
    pub fn cache(&self) -> &Arc<SqliteCache> {
        &self.cache
    }

    /// The RAG pipeline.
    pub fn rag(&self) -> &RagPipeline {
        &self.rag
    }

    /// Ingest documents (chunk, embed, index); unchanged ones are skipped and
    /// caches depending on replaced documents are busted.
    pub async fn ingest(
        &self,
        docs: Vec<Document>,
        progress: &(dyn Fn(&IngestProgress) + Sync),
    ) -> Result<IngestReport> {
        let changed = self.changed_uids(&docs).await?;
        let report = self.ingestor.ingest(docs, progress).await?;
        self.bust(&changed).await?;
        Ok(report)
    }

    /// Read files and directories (JSONL seed schema, BEIR corpus, Markdown,
    /// text) and ingest them. Malformed records are reported with file and
    /// line and skipped; with `strict`, any of them refuses the whole batch
    /// before anything is written.
    pub async fn ingest_paths(
        &self,
        paths: &[PathBuf],
        strict: bool,
        progress: &(dyn Fn(&IngestProgress) + Sync),
    ) -> Result<IngestOutcome> {
        let started = std::time::Instant::now();
        let mut outcome = IngestOutcome {
            lexical_only: self.embedder.is_none(),
            embedder: self.embedder.as_ref().map(|e| e.id().clone()),
            ..IngestOutcome::default()
        };
        let mut reader = read_paths(paths);
        if strict {
            let mut docs = Vec::new();
            let mut errors = Vec::new();
            for item in reader.by_ref() {
                match item {
                    Ok(d) => docs.push(d),
                    Err(e) => errors.push(e),
                }
            }
            if let Some(first) = errors.into_iter().next() {
                return Err(first.into());
            }
            outcome.skipped_files = reader.skipped().to_vec();
            let report = self.ingest(docs, progress).await?;
            outcome.add(&report);
        } else {
            loop {
                let mut batch = Vec::with_capacity(READ_BATCH);
                for item in reader.by_ref() {
                    match item {
                        Ok(d) => batch.push(d),
                        Err(e) => outcome.read_errors.push(e.to_string()),
                    }
                    if batch.len() == READ_BATCH {
                        break;
                    }
                }
                if batch.is_empty() {
                    break;
                }
                let report = self.ingest(batch, progress).await?;
                outcome.add(&report);
            }
            outcome.skipped_files = reader.skipped().to_vec();
        }
        self.flush()?;
        outcome.seconds = started.elapsed().as_secs_f64();
        Ok(outcome)
    }

    /// Search (lexical, dense or hybrid) with re-rank and guardrail.
    pub async fn search(&self, query: &SearchQuery) -> Result<SearchResults> {
        self.rag.retriever().retrieve(query).await
    }

    /// Answer a question from the sources, with citations.
    pub async fn ask(&self, req: &AskRequest) -> Result<Answer> {
        self.rag.ask(req).await
    }

    /// Answer a question, streaming the text.
    pub async fn ask_stream(&self, req: &AskRequest) -> Result<RagStream> {
        self.rag.ask_stream(req).await
    }

    /// One document by uid.
    pub async fn get(&self, uid: &str) -> Result<Option<Document>> {
        self.store.get(uid).await
    }

    /// Delete documents (and bust caches that depended on them); returns how many existed.
    pub async fn delete(&self, uids: &[String]) -> Result<usize> {
        if uids.iter().any(|u| u.trim().is_empty()) {
            return Err(InputError::Invalid("empty uid".into()).into());
        }
        let n = self.store.delete(uids).await?;
        self.bust(uids).await?;
        self.flush()?;
        Ok(n)
    }

    /// Counts and configuration.
    pub async fn stats(&self) -> Result<VerityStats> {
        Ok(VerityStats {
            store: self.store.stats().await?,
            embedder: self.embedder.as_ref().map(|e| e.id().clone()),
            generator: self.rag.model().to_string(),
            home: self.config.home.clone(),
            notes: self.notes.clone(),
        })
    }

    /// Persist the dense index dump (also done after each ingest).
    pub fn flush(&self) -> Result<()> {
        self.store.flush()
    }

    /// Uids of `docs` already stored with another content hash.
    async fn changed_uids(&self, docs: &[Document]) -> Result<Vec<String>> {
        let uids: Vec<String> = docs.iter().map(|d| d.uid.clone()).collect();
        let known = self.store.fingerprints(&uids).await?;
        // Re-chunked or re-embedded documents change their cached chunks too.
        Ok(docs
            .iter()
            .filter(|d| {
                known
                    .get(&d.uid)
                    .is_some_and(|f| !self.ingestor.is_current(d, f))
            })
            .map(|d| d.uid.clone())
            .collect())
    }

    /// Seed 001 busting: answers citing a changed uid, and all retrievals.
    async fn bust(&self, uids: &[String]) -> Result<()> {
        if uids.is_empty() {
            return Ok(());
        }
        let unique: HashSet<&String> = uids.iter().collect();
        for uid in unique {
            self.cache.invalidate_tag(&uid_tag(uid)).await?;
        }
        self.cache.invalidate_prefix(RETRIEVAL_PREFIX).await?;
        Ok(())
    }
}

/// Open `index` in `home`, or the index its alias `<index>:current` points at once a
/// re-index has switched it (as `RedisStore::connect_current` does on Redis).
fn open_current(home: &std::path::Path, index: &str) -> Result<SqliteStore> {
    let store = SqliteStore::open(home, StoreOptions::default().index(index))?;
    match store.resolve_alias(&format!("{index}:current"))? {
        Some(target) if target != store.index_name() => {
            drop(store);
            SqliteStore::open(home, StoreOptions::default().index(target))
        }
        _ => Ok(store),
    }
}

/// Seed 001: a change of `EMBED_VERSION` (or model) invalidates retrieval and answer caches.
async fn bust_on_embed_space_change(cache: &SqliteCache, id: Option<&EmbedderId>) -> Result<()> {
    let current = id
        .map(|i| i.to_string())
        .unwrap_or_else(|| "lexical".into());
    let previous = cache.get(EMBED_SPACE_KEY).await?;
    if previous.as_deref() != Some(current.as_bytes()) {
        if previous.is_some() {
            cache.invalidate_prefix(RETRIEVAL_PREFIX).await?;
            cache.invalidate_prefix(ANSWER_PREFIX).await?;
        }
        cache
            .put(EMBED_SPACE_KEY, current.as_bytes(), None, &[])
            .await?;
    }
    Ok(())
}

/// Error for a missing local model, with how to get it.
pub(crate) fn missing_model(what: &str, path: &std::path::Path) -> Error {
    ConfigError::Missing {
        what: what.into(),
        detail: format!(
            "{} not found; run scripts/fetch-models.sh (or set VERITY_MODEL_DIR)",
            path.display()
        ),
    }
    .into()
}
