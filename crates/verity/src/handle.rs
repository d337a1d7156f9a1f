//! [`Verity`]: one handle over a store (embedded SQLite or Redis), its
//! caches, the embedder, the ingest pipeline, the retriever and — built on
//! the first question — the generator and RAG pipeline. The CLI, the
//! bindings and the servers are thin shells over it, speaking [`crate::api`].

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::OnceCell;
use verity_core::{
    Cache, Document, Embedder, Generator, InputError, Result, SearchQuery, SearchResults,
    StoreError, VectorStore,
};
use verity_ingest::{read_paths, IngestProgress, IngestReport, Ingestor, RunProgress};
use verity_rag::{RagPipeline, RagStream, Retriever};

use crate::api::{
    AskRequest, DeleteRequest, DeleteResponse, GetDocumentRequest, GetDocumentResponse,
    IngestOutcome, IngestRequest, SearchRequest, StatsResponse,
};
use crate::backend::Backend;
use crate::config::{EmbedderSpec, GeneratorSpec, VerityConfig};
use crate::providers;

/// Paths that do not exist: when every input is one of them, nothing can be
/// ingested and the request is refused (a typo, not a partial success).
fn refuse_missing_paths(paths: &[PathBuf], only_paths: bool) -> Result<()> {
    let missing: Vec<String> = paths
        .iter()
        .filter(|p| std::fs::symlink_metadata(p).is_err())
        .map(|p| p.display().to_string())
        .collect();
    if only_paths && !paths.is_empty() && missing.len() == paths.len() {
        return Err(InputError::Unreadable {
            path: PathBuf::from(missing.join(", ")),
            message: "no such file or directory: check the path (ingest takes files, \
                      directories and http(s) URLs)"
                .into(),
        }
        .into());
    }
    Ok(())
}

/// The files left out because Verity does not read their type (unreadable
/// ones are already in the outcome's `read_errors`).
fn unsupported_files(reader: &verity_ingest::PathReader) -> Vec<PathBuf> {
    reader
        .skipped_files()
        .iter()
        .filter(|s| s.reason == verity_ingest::SkipReason::Unsupported)
        .map(|s| s.path.clone())
        .collect()
}

/// A streamed answer on a channel ([`Verity::ask_channel`]).
pub struct AnswerChannel {
    /// Runs the answer; spawn it on a tokio runtime.
    pub feed: std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>,
    /// The stream's events (text pieces, then the final answer), or its error.
    pub events: tokio::sync::mpsc::Receiver<Result<verity_rag::RagEvent>>,
}

/// Documents read per ingest batch when reading files.
const READ_BATCH: usize = 2_000;

/// What [`Verity::stats`] reports (the api's [`StatsResponse`]).
pub type VerityStats = StatsResponse;

/// Progress callback of long ingestions.
pub type Progress<'a> = &'a (dyn Fn(&IngestProgress) + Sync);

/// Store + caches + embedder + pipelines, opened from a [`VerityConfig`].
pub struct Verity {
    config: VerityConfig,
    backend: Backend,
    store: Arc<dyn VectorStore>,
    cache: Arc<dyn Cache>,
    index: String,
    embedder: Option<Arc<dyn Embedder>>,
    ingestor: Ingestor,
    retriever: Retriever,
    rag: OnceCell<RagPipeline>,
    notes: Vec<String>,
    net: verity_net::HttpClient,
    #[cfg(feature = "sources")]
    pub(crate) fetchers: crate::sources::Fetchers,
    #[cfg(feature = "memory")]
    pub(crate) memory: OnceCell<verity_memory::Memory>,
    /// The embedded event store once loaded, shared by every attempt to open
    /// the memory: a waiter that gives up (a health probe's timeout) leaves
    /// its load running on a blocking thread, and the next attempt takes that
    /// load's result instead of loading (and indexing) the events again.
    pub(crate) event_store:
        std::sync::Arc<std::sync::Mutex<Option<std::sync::Arc<verity_store::SqliteEventStore>>>>,
    #[cfg(feature = "watch")]
    pub(crate) watch: crate::watch::WatchCell,
}

impl std::fmt::Debug for Verity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verity")
            .field("backend", &self.store.backend())
            .field("home", &self.config.home)
            .field("index", &self.index)
            .field(
                "embedder",
                &self.embedder.as_ref().map(|e| e.id().to_string()),
            )
            .field("generator", &self.config.generator.to_string())
            .finish()
    }
}

impl Verity {
    /// Open (or create) the store `config` describes — SQLite in
    /// `config.home`, or Redis at `config.redis_url` — and set up the embedder.
    /// The generator is loaded on the first question, never by a search.
    pub async fn open(config: VerityConfig) -> Result<Self> {
        config.validate()?;
        let mut notes = config.notes.clone();
        let net = match &config.http {
            Some(http) => verity_net::HttpClient::new(http.clone())?,
            None => verity_net::HttpClient::shared_default()?,
        };
        let opened = Backend::open(&config).await?;
        let (store, cache) = (opened.store, opened.cache);

        let mut embedder = providers::embedder(&config, &net, cache.clone(), &mut notes).await?;
        let indexed_with = store.embedder().await?;
        // An index embedded with the local model's 8-bit products (`--fast`)
        // is searched with them: the same model, another precision.
        if let (Some(e), Some(indexed)) = (&embedder, &indexed_with) {
            let local = matches!(config.embedder, EmbedderSpec::Auto | EmbedderSpec::Local(_));
            if local && !config.embed_int8 && e.id().int8_of_this(indexed) {
                let mut int8 = config.clone();
                int8.embed_int8 = true;
                embedder = providers::embedder(&int8, &net, cache.clone(), &mut notes).await?;
                notes.push(
                    "the index was embedded with 8-bit products (--fast): the local embedder runs them too"
                        .into(),
                );
            }
        }
        if let (Some(e), Some(indexed)) = (&embedder, indexed_with) {
            // A remote embedder without a configured dimension says 0 until
            // its first answer: the same space if model and version match.
            if !e.id().same_space(&indexed) {
                notes.push(format!(
                    "the index was built with {indexed} but the configured embedder is {}: \
                     searches run lexical (BM25) until you re-index (re-ingest into a new index)",
                    e.id()
                ));
            }
        }
        let retriever = Retriever::new(store.clone())
            .with_index(opened.index.clone())
            .with_embedder(embedder.clone())
            .with_cache(config.cache.then(|| cache.clone()))
            .with_config(config.retriever.clone());
        let ingestor = Ingestor::builder(store.clone())
            .embedder(embedder.clone())
            .build()?;
        Ok(Self {
            backend: opened.backend,
            index: opened.index,
            store,
            cache,
            embedder,
            ingestor,
            retriever,
            rag: OnceCell::new(),
            notes,
            #[cfg(feature = "sources")]
            fetchers: crate::sources::Fetchers::new(net.clone()),
            net,
            #[cfg(feature = "memory")]
            memory: OnceCell::new(),
            event_store: Default::default(),
            #[cfg(feature = "watch")]
            watch: Default::default(),
            config,
        })
    }

    /// Open with [`VerityConfig::from_env`].
    pub async fn open_default() -> Result<Self> {
        Self::open(VerityConfig::from_env()?).await
    }

    /// Open with the environment's configuration and `overrides` applied.
    pub async fn open_with(overrides: &crate::api::ConfigOverrides) -> Result<Self> {
        Self::open(overrides.resolve()?).await
    }

    /// The one HTTP client of this handle: every embedder, generator and
    /// fetcher it builds sends its requests through it (one connection pool,
    /// one retry policy).
    pub fn http(&self) -> &verity_net::HttpClient {
        &self.net
    }

    /// Web search on the SearXNG instance of the configuration
    /// ([`crate::config::WebConfig::searxng_url`]: `VERITY_SEARXNG_URL` or
    /// `SEARXNG_URL`), through this handle's HTTP client; `None` when unset.
    /// The watch tools and the research workflow both use it.
    #[cfg(feature = "sources")]
    pub fn web_search_from_env(&self) -> Result<Option<Arc<dyn verity_core::WebSearch>>> {
        self.web_search_at(self.config.web.searxng_url.as_deref())
    }

    /// Web search on the SearXNG instance at `url` through this handle's
    /// HTTP client; `None` for `None`.
    #[cfg(feature = "sources")]
    pub fn web_search_at(
        &self,
        url: Option<&str>,
    ) -> Result<Option<Arc<dyn verity_core::WebSearch>>> {
        let timeout = self.config.web.searxng_timeout;
        url.map(|u| {
            let mut s = verity_fetch::SearxngSearch::with_client(u, &self.net)?;
            if let Some(t) = timeout {
                s = s.with_timeout(t)?;
            }
            Ok(Arc::new(s) as Arc<dyn verity_core::WebSearch>)
        })
        .transpose()
    }

    /// The configuration in use.
    pub fn config(&self) -> &VerityConfig {
        &self.config
    }

    /// Whether the fast ingest profile (`ConfigOverrides::fast`: 8-bit
    /// products, pooled sentence vectors) would change how this handle
    /// embeds: a local embedder in f32 computing sentence vectors separately.
    pub fn fast_ingest_available(&self) -> bool {
        matches!(
            self.config.embedder,
            EmbedderSpec::Auto | EmbedderSpec::Local(_)
        ) && self
            .embedder
            .as_ref()
            .is_some_and(|e| !e.id().is_int8() && e.span_mode() == verity_core::SpanMode::Separate)
    }

    /// Warnings gathered while opening (lexical-only mode, embedder mismatch, …).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The embedder, when one is configured.
    pub fn embedder(&self) -> Option<&Arc<dyn Embedder>> {
        self.embedder.as_ref()
    }

    /// The store (SQLite or Redis).
    pub fn store(&self) -> &Arc<dyn VectorStore> {
        &self.store
    }

    /// The cache (retrievals, answers, embeddings), on the store's backend.
    pub fn cache(&self) -> &Arc<dyn Cache> {
        &self.cache
    }

    /// Where the store lives: its directory, or the Redis URL (password masked).
    pub fn location(&self) -> String {
        self.backend
            .redis_display()
            .unwrap_or_else(|| self.config.home.display().to_string())
    }

    /// Name of the index served (the target of `<index>:current` after a re-index).
    pub fn index_name(&self) -> &str {
        &self.index
    }

    /// The retriever behind [`Verity::search`].
    pub fn retriever(&self) -> &Retriever {
        &self.retriever
    }

    /// The RAG pipeline, built (and its generator loaded) on first use.
    pub async fn rag(&self) -> Result<&RagPipeline> {
        self.rag
            .get_or_try_init(|| async {
                let generator =
                    providers::generator_on(&self.config, &self.net, &self.config.generator)
                        .await?;
                let fallback = match &self.config.fallback {
                    Some(spec) => {
                        Some(providers::generator_on(&self.config, &self.net, spec).await?)
                    }
                    // A local model stops at its budget or may not cite: the
                    // extractive generator answers then (the answer says `degraded`).
                    None if matches!(self.config.generator, GeneratorSpec::Local(_)) => {
                        Some(Arc::new(verity_llm::ExtractiveGenerator::new()) as Arc<dyn Generator>)
                    }
                    None => None,
                };
                let retriever = Retriever::new(self.store.clone())
                    .with_index(self.index.clone())
                    .with_embedder(self.embedder.clone())
                    .with_cache(self.answer_cache())
                    .with_config(self.config.retriever.clone());
                let rag = RagPipeline::builder(retriever, generator)
                    .fallback(fallback)
                    .cache(self.answer_cache())
                    .config(self.config.rag.clone());
                // Answers check themselves against what they cite.
                #[cfg(feature = "verify")]
                let rag =
                    rag.answer_check(Some(Arc::new(crate::answer_check::AssessorCheck::local())));
                Ok(rag.build())
            })
            .await
    }

    /// Whether the generator has been loaded (by a first question).
    pub fn generator_loaded(&self) -> bool {
        self.rag.initialized()
    }

    fn answer_cache(&self) -> Option<Arc<dyn Cache>> {
        self.config.cache.then(|| self.cache.clone())
    }

    /// Ingest documents given inline and read from paths and URLs; unchanged
    /// documents are skipped. Every write moves the index's write generation,
    /// which is part of every retrieval and answer cache key: what was cached
    /// before is unreachable afterwards (no busting call to forget).
    /// Files are read and written in batches. Unreadable records, files and
    /// URLs are reported in the outcome and skipped; with `strict`, any of
    /// them refuses the whole request before anything is written. A request
    /// naming nothing (no documents, no paths) is refused
    /// ([`IngestRequest::validate`]).
    pub async fn ingest(
        &self,
        req: IngestRequest,
        progress: Progress<'_>,
    ) -> Result<IngestOutcome> {
        req.validate()?;
        self.ingest_reading(req, None, progress).await
    }

    /// [`Verity::ingest`] for a request whose paths were confined to file
    /// roots ([`crate::tools::FileRoots::confine`], which validated the
    /// request as sent: confinement may leave nothing, e.g. an empty
    /// directory, and that is an empty outcome, not an error): each file is opened only
    /// if it still lies in one of `roots` (canonical directories) at open
    /// time — no symbolic link followed, the opened file's real path
    /// checked — so a link swapped in after the check is reported, not read.
    pub async fn ingest_within(
        &self,
        req: IngestRequest,
        roots: &[PathBuf],
        progress: Progress<'_>,
    ) -> Result<IngestOutcome> {
        self.ingest_reading(req, Some(roots), progress).await
    }

    async fn ingest_reading(
        &self,
        req: IngestRequest,
        roots: Option<&[PathBuf]>,
        progress: Progress<'_>,
    ) -> Result<IngestOutcome> {
        let started = std::time::Instant::now();
        let mut outcome = IngestOutcome {
            lexical_only: self.embedder.is_none(),
            embedder: self.embedder.as_ref().map(|e| e.id().clone()),
            ..IngestOutcome::default()
        };
        let (urls, paths): (Vec<String>, Vec<String>) = req
            .paths
            .into_iter()
            .partition(|p| crate::config::is_url(p));
        let paths: Vec<PathBuf> = paths.into_iter().map(PathBuf::from).collect();
        refuse_missing_paths(&paths, urls.is_empty() && req.documents.is_empty())?;
        let mut inline = req.documents;
        let fetched = self.fetch_urls(&urls, req.strict, &mut outcome).await?;
        inline.extend(fetched);

        let mut reader = read_paths(&paths).excluding(&self.config().home);
        if let Some(roots) = roots {
            reader = reader.confined_to(roots);
        }
        // One run's progress over every batch: documents and input bytes as
        // they are read, counts that never restart at zero.
        let mut run = RunProgress::new(
            paths.is_empty().then_some(inline.len()),
            (!paths.is_empty()).then(|| reader.bytes_total()),
        );
        if req.strict {
            for item in reader.by_ref() {
                inline.push(item?);
            }
            outcome.skipped_files = unsupported_files(&reader);
            run.start_batch(inline.len(), reader.bytes_read());
            let (report, _) = self.ingest_batch_in(&run, inline, progress).await?;
            outcome.add(&report);
        } else {
            if !inline.is_empty() {
                run.start_batch(inline.len(), 0);
                let (report, last) = self.ingest_batch_in(&run, inline, progress).await?;
                run.end_batch(&last);
                outcome.add(&report);
            }
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
                run.start_batch(batch.len(), reader.bytes_read());
                let (report, last) = self.ingest_batch_in(&run, batch, progress).await?;
                run.end_batch(&last);
                outcome.add(&report);
            }
            outcome.skipped_files = unsupported_files(&reader);
        }
        self.backend.flush().await?;
        // A remote embedder learns its dimension from its first answer.
        outcome.embedder = self.embedder.as_ref().map(|e| e.id().clone());
        outcome.seconds = started.elapsed().as_secs_f64();
        Ok(outcome)
    }

    /// [`Self::ingest_batch`] reporting its progress as part of `run`; also
    /// returns the batch's last report.
    async fn ingest_batch_in(
        &self,
        run: &RunProgress,
        docs: Vec<Document>,
        progress: Progress<'_>,
    ) -> Result<(IngestReport, IngestProgress)> {
        let last = std::sync::Mutex::new(IngestProgress::default());
        let report = self
            .ingest_batch(docs, &|p: &IngestProgress| {
                if let Ok(mut l) = last.lock() {
                    *l = p.clone();
                }
                progress(&run.view(p));
            })
            .await?;
        let last = last.into_inner().unwrap_or_default();
        Ok((report, last))
    }

    /// Ingest documents (Rust surface of [`Verity::ingest`]); the batch's report.
    pub async fn ingest_documents(
        &self,
        docs: Vec<Document>,
        progress: Progress<'_>,
    ) -> Result<IngestReport> {
        let report = self.ingest_batch(docs, progress).await?;
        self.backend.flush().await?;
        Ok(report)
    }

    /// Read files and directories and ingest them (Rust surface of [`Verity::ingest`]).
    pub async fn ingest_paths(
        &self,
        paths: &[PathBuf],
        strict: bool,
        progress: Progress<'_>,
    ) -> Result<IngestOutcome> {
        let req = IngestRequest::paths(paths.iter().map(|p| p.display().to_string()), strict);
        self.ingest(req, progress).await
    }

    /// One batch through the ingest pipeline.
    async fn ingest_batch(
        &self,
        docs: Vec<Document>,
        progress: Progress<'_>,
    ) -> Result<IngestReport> {
        self.ingestor.ingest(docs, progress).await
    }

    #[cfg(feature = "sources")]
    async fn fetch_urls(
        &self,
        urls: &[String],
        strict: bool,
        outcome: &mut IngestOutcome,
    ) -> Result<Vec<Document>> {
        let mut docs = Vec::new();
        for u in urls {
            match self.fetchers.document(u).await {
                Ok(d) => docs.push(d),
                Err(e) if strict => return Err(e),
                Err(e) => outcome.read_errors.push(format!("{u}: {e}")),
            }
        }
        Ok(docs)
    }

    #[cfg(not(feature = "sources"))]
    async fn fetch_urls(
        &self,
        urls: &[String],
        _strict: bool,
        _outcome: &mut IngestOutcome,
    ) -> Result<Vec<Document>> {
        match urls.first() {
            None => Ok(Vec::new()),
            Some(u) => Err(verity_core::ConfigError::Invalid {
                key: "paths".into(),
                message: format!("{u}: URLs need the `sources` feature of the verity crate"),
            }
            .into()),
        }
    }

    /// Search (lexical, dense or hybrid) with re-rank and guardrail.
    pub async fn search(&self, req: &SearchRequest) -> Result<SearchResults> {
        self.search_query(&req.to_query()?).await
    }

    /// Search with a store query (Rust surface of [`Verity::search`]).
    pub async fn search_query(&self, query: &SearchQuery) -> Result<SearchResults> {
        self.retriever.retrieve(query).await
    }

    /// Answer a question from the sources, with citations.
    pub async fn ask(&self, req: &AskRequest) -> Result<crate::Answer> {
        let r = req.to_rag()?;
        self.rag().await?.ask(&r).await
    }

    /// Answer a question, streaming the text.
    pub async fn ask_stream(&self, req: &AskRequest) -> Result<RagStream> {
        let r = req.to_rag()?;
        self.rag().await?.ask_stream(&r).await
    }

    /// [`Verity::ask_stream`] moved onto a channel, for hosts that read the
    /// events from another thread or runtime (the Python and Node
    /// bindings): spawn [`AnswerChannel::feed`] on a tokio runtime and read
    /// [`AnswerChannel::events`], which yields the stream's events (or its
    /// error) and then closes. Dropping the receiver stops the answer.
    pub fn ask_channel(self: &Arc<Self>, req: AskRequest) -> AnswerChannel {
        let (tx, events) = tokio::sync::mpsc::channel(64);
        let verity = self.clone();
        let feed = Box::pin(async move {
            use futures::StreamExt;
            let mut stream = match verity.ask_stream(&req).await {
                Ok(s) => s,
                Err(e) => {
                    let _ = tx.send(Err(e)).await;
                    return;
                }
            };
            while let Some(ev) = stream.next().await {
                let stop = ev.is_err();
                if tx.send(ev).await.is_err() || stop {
                    return;
                }
            }
        });
        AnswerChannel { feed, events }
    }

    /// One document by uid.
    pub async fn get(&self, uid: &str) -> Result<Option<Document>> {
        self.store.get(uid).await
    }

    /// One document by uid (api form of [`Verity::get`]).
    pub async fn document(&self, req: &GetDocumentRequest) -> Result<GetDocumentResponse> {
        Ok(GetDocumentResponse {
            document: self.get(&req.uid).await?,
        })
    }

    /// Delete documents (the write generation moves: cached retrievals and
    /// answers computed before are unreachable).
    pub async fn delete(&self, req: &DeleteRequest) -> Result<DeleteResponse> {
        if req.uids.iter().any(|u| u.trim().is_empty()) {
            return Err(InputError::Invalid("empty uid".into()).into());
        }
        let n = self.store.delete(&req.uids).await?;
        self.backend.flush().await?;
        Ok(DeleteResponse {
            deleted: n,
            requested: req.uids.len(),
        })
    }

    /// Counts and configuration.
    pub async fn stats(&self) -> Result<StatsResponse> {
        Ok(StatsResponse {
            store: self.store.stats().await?,
            embedder: self.embedder.as_ref().map(|e| e.id().clone()),
            generator: match self.rag.get() {
                Some(rag) => rag.model().to_string(),
                None => self.config.generator.to_string(),
            },
            home: self.config.home.clone(),
            redis: self.backend.redis_display(),
            notes: self.notes.clone(),
        })
    }

    /// Embed texts with the configured embedder (seed 001 `/v1/embed`).
    pub async fn embed(&self, req: &crate::api::EmbedRequest) -> Result<crate::api::EmbedResponse> {
        let e = self.embedder.as_ref().ok_or_else(|| {
            crate::Error::from(verity_core::ProviderError::new(
                "embedder",
                verity_core::ProviderErrorKind::ModelNotFound,
                "no embedder is configured on this server (lexical-only): set VERITY_EMBEDDER",
            ))
        })?;
        req.check(e.id())?;
        let embeddings = e.embed(&req.texts).await?;
        Ok(crate::api::EmbedResponse {
            embeddings,
            model: e.id().model.clone(),
            embed_version: e.id().version.clone(),
            dim: e.id().dim,
        })
    }

    /// Answer from given passages, without retrieval (seed 001 `/v1/generate`).
    pub async fn generate(
        &self,
        req: &crate::api::GenerateRequest,
    ) -> Result<crate::api::GenerateResponse> {
        req.check()?;
        let rag = self.rag().await?;
        let params = req.params.as_ref().map(|p| {
            let mut g = rag.config().params.clone();
            if let Some(t) = p.temperature {
                g.temperature = t;
            }
            if let Some(t) = p.top_p {
                g.top_p = t;
            }
            if let Some(m) = p.max_tokens {
                g.max_tokens = m;
            }
            g
        });
        let passages = req.passages();
        let answer = rag
            .answer_from(&req.query, req.lang.as_deref(), passages, params)
            .await?;
        Ok(answer.into())
    }

    /// Check that the generator answers (loading it on first use); its model.
    pub async fn generator_health(&self) -> Result<String> {
        let rag = self.rag().await?;
        rag.generator_health().await?;
        Ok(rag.model().to_string())
    }

    /// Persist what the backend keeps in memory (done after each ingest and
    /// delete): the chunk index and, once loaded, the event store's index.
    pub async fn flush(&self) -> Result<()> {
        self.backend.flush().await?;
        // A load still running holds the slot: it dumps what it rebuilds itself.
        let events = self.event_store.try_lock().ok().and_then(|s| s.clone());
        if let Some(s) = events {
            tokio::task::spawn_blocking(move || s.flush())
                .await
                .map_err(|e| StoreError::Backend(format!("flush task failed: {e}")))??;
        }
        Ok(())
    }

    pub(crate) fn backend(&self) -> &Backend {
        &self.backend
    }
}
