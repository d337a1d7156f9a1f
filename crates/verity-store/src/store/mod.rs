//! [`SqliteStore`]: documents, chunks, vectors and FTS5 in SQLite, dense search in memory.

mod catalog;
mod dense;
mod search;
mod write;

pub use catalog::SqliteCatalog;
pub use dense::{dump_basename, DenseLoad};

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, TimeZone, Utc};
use parking_lot::RwLock;
use rusqlite::{params, TransactionBehavior};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use verity_core::{
    Document, EmbedderId, Error, Fingerprint, IndexedDocument, Result, ScoredChunk, SearchQuery,
    StoreError, StoreStats, UpsertReport, VectorStore, WriteGeneration,
};

use crate::bm25::LexicalIndexStats;
use crate::cache::SqliteCache;
use crate::db::{db_err, Db};
use crate::hnsw::{DenseIndex, HnswParams};
use crate::lexical::Accelerator;
use crate::schema::{migrate, DEFAULT_TOKENIZER};
use catalog::{index_row, resolve_alias_tx};

/// File name of the database inside the home directory.
pub const DB_FILE: &str = "verity.db";
/// Name of the index a store binds to by default.
pub const DEFAULT_INDEX: &str = "default";

/// How a [`SqliteStore`] is opened and how it ranks.
#[derive(Debug, Clone, PartialEq)]
pub struct StoreOptions {
    /// Index (or alias, resolved at open) the store binds to; created when missing.
    pub index: String,
    /// How long a writer waits for a lock before failing with a transient error.
    pub busy_timeout: Duration,
    /// FTS5 tokenizer, fixed when the database is created.
    pub fts_tokenizer: String,
    /// BM25 weight of the document title column ([`verity_core::DEFAULT_TITLE_WEIGHT`]).
    pub title_weight: f32,
    /// BM25 weight of the heading-path column.
    pub heading_weight: f32,
    /// BM25 weight of the chunk text column.
    pub text_weight: f32,
    /// Drop common English stop words from lexical queries.
    pub drop_stopwords: bool,
    /// HNSW parameters of the dense index.
    pub hnsw: HnswParams,
    /// Answer lexical queries from an in-memory BM25 index (same terms and
    /// scores as FTS5's `bm25()`, max-score top-k) instead of FTS5's ranking;
    /// FTS5 stays the source of truth and the fallback.
    pub lexical_accelerator: bool,
}

impl Default for StoreOptions {
    fn default() -> Self {
        Self {
            index: DEFAULT_INDEX.to_string(),
            busy_timeout: Duration::from_secs(10),
            fts_tokenizer: DEFAULT_TOKENIZER.to_string(),
            title_weight: verity_core::DEFAULT_TITLE_WEIGHT,
            heading_weight: 1.0,
            text_weight: 1.0,
            drop_stopwords: true,
            hnsw: HnswParams::default(),
            lexical_accelerator: true,
        }
    }
}

impl StoreOptions {
    /// Options bound to another index or alias.
    pub fn index(mut self, name: impl Into<String>) -> Self {
        self.index = name.into();
        self
    }
}

/// Description of one index of the database.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexInfo {
    /// Index name.
    pub name: String,
    /// Embedder its vectors come from (`None`: no vector yet).
    pub embedder: Option<EmbedderId>,
    /// Creation time.
    pub created: DateTime<Utc>,
    /// Write generation (bumped by every write).
    pub generation: u64,
    /// Number of documents.
    pub documents: usize,
    /// Aliases pointing at it.
    pub aliases: Vec<String>,
}

/// The embedded store: SQLite (source of truth, FTS5 BM25) plus an in-memory
/// dense index rebuilt from the vector BLOBs. Bound to one index.
///
/// A cheap handle (clones share the store). The [`VectorStore`] methods run
/// their SQLite and HNSW work on tokio's blocking threads, so that async
/// callers never stall a runtime thread; the inherent methods are synchronous.
#[derive(Clone)]
pub struct SqliteStore {
    inner: Arc<Inner>,
}

/// The store's state, shared by its handles.
pub(crate) struct Inner {
    db: Arc<Db>,
    home: Option<PathBuf>,
    index_id: i64,
    index_name: String,
    opts: StoreOptions,
    embedder: RwLock<Option<EmbedderId>>,
    dense: RwLock<Option<DenseIndex>>,
    dense_dirty: AtomicBool,
    /// How the dense index was last loaded (`None`: no vectors yet).
    dense_load: RwLock<Option<DenseLoad>>,
    lexical: Option<Accelerator>,
    /// A search saw the lexical index out of date: rebuild it after the search.
    lexical_stale: AtomicBool,
    /// A rebuild failed (not transiently): stay on FTS5.
    lexical_off: AtomicBool,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("home", &self.inner.home)
            .field("index", &self.inner.index_name)
            .finish()
    }
}

fn now_ms() -> i64 {
    Utc::now().timestamp_millis()
}

fn ms_to_dt(ms: i64) -> Option<DateTime<Utc>> {
    Utc.timestamp_millis_opt(ms).single()
}

fn json_err(e: serde_json::Error) -> Error {
    StoreError::Corrupt(format!("bad JSON column: {e}")).into()
}

fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn to_usize(n: i64) -> usize {
    usize::try_from(n).unwrap_or(0)
}

/// Row of the `indexes` table.
fn read_embedder(
    model: Option<String>,
    version: Option<String>,
    dim: Option<i64>,
) -> Option<EmbedderId> {
    match (model, version, dim) {
        (Some(m), Some(v), Some(d)) => Some(EmbedderId::new(m, v, to_usize(d))),
        _ => None,
    }
}

impl Inner {
    /// Open (creating) `home/verity.db` and bind to `opts.index` (an index
    /// name or an alias; an unknown name creates an empty index).
    fn open(home: &Path, opts: StoreOptions) -> Result<Self> {
        std::fs::create_dir_all(home)
            .map_err(|e| StoreError::Backend(format!("cannot create {}: {e}", home.display())))?;
        let db = Db::open(&home.join(DB_FILE), opts.busy_timeout)?;
        Self::init(Arc::new(db), Some(home.to_path_buf()), opts)
    }

    /// A private in-memory store (tests, ephemeral use).
    fn open_in_memory(opts: StoreOptions) -> Result<Self> {
        Self::init(Arc::new(Db::open_in_memory()?), None, opts)
    }

    fn init(db: Arc<Db>, home: Option<PathBuf>, opts: StoreOptions) -> Result<Self> {
        if opts.index.trim().is_empty() {
            return Err(Error::invalid_input("index name must not be empty"));
        }
        let tokenizer = db.write(|c| migrate(c, &opts.fts_tokenizer))?;
        let (index_id, index_name, embedder) = db.write(|c| {
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(db_err)?;
            let name = resolve_alias_tx(&tx, &opts.index)?.unwrap_or_else(|| opts.index.clone());
            let row = index_row(&tx, &name)?;
            let out = match row {
                Some((id, emb)) => (id, name, emb),
                None => {
                    tx.execute(
                        "INSERT INTO indexes(name, created) VALUES (?1, ?2)",
                        params![name, now_ms()],
                    )
                    .map_err(db_err)?;
                    (tx.last_insert_rowid(), name, None)
                }
            };
            tx.commit().map_err(db_err)?;
            Ok(out)
        })?;
        // Trigram tokenizers turn every query word into a phrase, which the
        // accelerator leaves to FTS5: do not build it for them.
        let lexical = if opts.lexical_accelerator && !tokenizer.contains("trigram") {
            let w = [opts.title_weight, opts.heading_weight, opts.text_weight];
            Some(Accelerator::new(index_id, w, &tokenizer)?)
        } else {
            None
        };
        let store = Self {
            db,
            home,
            index_id,
            index_name,
            opts,
            embedder: RwLock::new(embedder),
            dense: RwLock::new(None),
            dense_dirty: AtomicBool::new(false),
            dense_load: RwLock::new(None),
            lexical,
            lexical_stale: AtomicBool::new(false),
            lexical_off: AtomicBool::new(false),
        };
        store.load_dense()?;
        Ok(store)
    }

    /// Name of the index this store is bound to (aliases resolved).
    fn index_name(&self) -> &str {
        &self.index_name
    }

    /// Options in force.
    fn options(&self) -> &StoreOptions {
        &self.opts
    }

    /// Build the in-memory lexical index now (it is otherwise built on the
    /// first lexical search); no-op when disabled or already current.
    fn warm_lexical_index(&self) -> Result<()> {
        match &self.lexical {
            Some(acc) => self.db.write(|c| acc.rebuild(c)),
            None => Ok(()),
        }
    }

    /// Size of the in-memory lexical index (`None`: disabled or not built yet).
    fn lexical_index_stats(&self) -> Option<LexicalIndexStats> {
        self.lexical.as_ref().and_then(Accelerator::stats)
    }

    fn lexical_accelerator(&self) -> Option<&Accelerator> {
        if self.lexical_off.load(Ordering::Relaxed) {
            return None;
        }
        self.lexical.as_ref()
    }

    /// Rebuild the lexical index when a search found it out of date.
    fn refresh_lexical(&self) {
        if !self.lexical_stale.swap(false, Ordering::SeqCst) {
            return;
        }
        if let Some(acc) = self.lexical_accelerator() {
            match self.db.write(|c| acc.rebuild(c)) {
                Ok(()) => {}
                // Busy: the next search that finds the index stale tries again.
                Err(e) if e.is_transient() => {
                    tracing::debug!(error = %e, "lexical index rebuild postponed")
                }
                Err(e) => {
                    tracing::warn!(error = %e, "lexical index rebuild failed; lexical search stays on FTS5");
                    self.lexical_off.store(true, Ordering::SeqCst);
                }
            }
        }
    }

    /// Home directory (`None` in memory).
    fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// A [`SqliteCache`] stored in the same database.
    fn cache(&self) -> SqliteCache {
        SqliteCache::from_db(self.db.clone())
    }

    /// `PRAGMA integrity_check` plus the FTS5 integrity check; `Ok(())` when both pass.
    fn integrity_check(&self) -> Result<()> {
        self.db.write(|c| {
            let res: String = c
                .query_row("PRAGMA integrity_check", [], |r| r.get(0))
                .map_err(db_err)?;
            if res != "ok" {
                return Err(StoreError::Corrupt(format!("integrity_check: {res}")).into());
            }
            c.execute(
                "INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')",
                [],
            )
            .map_err(|e| StoreError::Corrupt(format!("FTS integrity check: {e}")))?;
            Ok(())
        })
    }
}

/// Run blocking store work on tokio's blocking threads (inline when no
/// tokio runtime is running).
pub(crate) async fn blocking<T, F>(f: F) -> Result<T>
where
    F: FnOnce() -> Result<T> + Send + 'static,
    T: Send + 'static,
{
    match tokio::runtime::Handle::try_current() {
        // The request's cancel flag goes along (reads stop when it is given up).
        Ok(handle) => handle
            .spawn_blocking(verity_core::cancel::carry(f))
            .await
            .map_err(|e| Error::from(StoreError::Backend(format!("store task failed: {e}"))))?,
        Err(_) => f(),
    }
}

impl SqliteStore {
    /// Open (creating) `home/verity.db` and bind to `opts.index` (an index
    /// name or an alias; an unknown name creates an empty index).
    pub fn open(home: &Path, opts: StoreOptions) -> Result<Self> {
        Ok(Self {
            inner: Arc::new(Inner::open(home, opts)?),
        })
    }

    /// A private in-memory store (tests, ephemeral use).
    pub fn open_in_memory(opts: StoreOptions) -> Result<Self> {
        Ok(Self {
            inner: Arc::new(Inner::open_in_memory(opts)?),
        })
    }

    /// Name of the index this store is bound to (aliases resolved).
    pub fn index_name(&self) -> &str {
        self.inner.index_name()
    }

    /// Options in force.
    pub fn options(&self) -> &StoreOptions {
        self.inner.options()
    }

    /// Build the in-memory lexical index now (it is otherwise built on the
    /// first lexical search); no-op when disabled or already current.
    pub fn warm_lexical_index(&self) -> Result<()> {
        self.inner.warm_lexical_index()
    }

    /// Size of the in-memory lexical index (`None`: disabled or not built yet).
    pub fn lexical_index_stats(&self) -> Option<LexicalIndexStats> {
        self.inner.lexical_index_stats()
    }

    /// Home directory (`None` in memory).
    pub fn home(&self) -> Option<&Path> {
        self.inner.home()
    }

    /// A [`SqliteCache`] stored in the same database.
    pub fn cache(&self) -> SqliteCache {
        self.inner.cache()
    }

    /// Persist what is only in memory: the dense index is dumped to
    /// `home/index/<index>.hnsw.*` with the current write generation. SQLite
    /// writes are already durable at commit. No-op in memory or when clean.
    pub fn flush(&self) -> Result<()> {
        self.inner.flush()
    }

    /// `PRAGMA integrity_check` plus the FTS5 integrity check; `Ok(())` when both pass.
    pub fn integrity_check(&self) -> Result<()> {
        self.inner.integrity_check()
    }

    /// Create an empty index (optionally pre-recording its embedder).
    pub fn create_index(&self, name: &str, embedder: Option<&EmbedderId>) -> Result<IndexInfo> {
        self.inner.create_index(name, embedder)
    }

    /// Point `alias` at `index` (created or switched atomically, in one transaction).
    pub fn set_alias(&self, alias: &str, index: &str) -> Result<()> {
        self.inner.set_alias(alias, index)
    }

    /// The index an alias points at (`None` when `name` is not an alias).
    pub fn resolve_alias(&self, name: &str) -> Result<Option<String>> {
        self.inner.resolve_alias(name)
    }

    /// Drop an index, its documents, chunks, vectors and aliases. The index
    /// this store is bound to cannot be dropped.
    pub fn drop_index(&self, name: &str) -> Result<()> {
        self.inner.drop_index(name)
    }

    /// Every index of the database, by name.
    pub fn list_indexes(&self) -> Result<Vec<IndexInfo>> {
        self.inner.list_indexes()
    }

    /// Current write generation of the bound index.
    pub fn generation(&self) -> Result<u64> {
        self.inner.generation()
    }

    /// How the dense index came to memory at open: from its dump, or rebuilt
    /// from SQLite (and why). `None` when the index has no vectors.
    pub fn dense_load(&self) -> Option<DenseLoad> {
        self.inner.dense_load.read().clone()
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        if self.dense_dirty.load(Ordering::SeqCst) {
            if let Err(e) = self.flush() {
                tracing::warn!(error = %e, "could not persist the dense index on drop");
            }
        }
    }
}

#[async_trait]
impl VectorStore for SqliteStore {
    fn backend(&self) -> &'static str {
        "sqlite"
    }

    fn supports_sentence_vectors(&self) -> bool {
        true
    }

    async fn embedder(&self) -> Result<Option<EmbedderId>> {
        Ok(self.inner.embedder.read().clone())
    }

    async fn fingerprints(&self, uids: &[String]) -> Result<HashMap<String, Fingerprint>> {
        let (inner, uids) = (self.inner.clone(), uids.to_vec());
        blocking(move || inner.fingerprints_sync(&uids)).await
    }

    async fn upsert(&self, docs: Vec<IndexedDocument>) -> Result<UpsertReport> {
        let inner = self.inner.clone();
        blocking(move || inner.upsert_sync(docs)).await
    }

    async fn delete(&self, uids: &[String]) -> Result<usize> {
        let (inner, uids) = (self.inner.clone(), uids.to_vec());
        blocking(move || inner.delete_sync(&uids)).await
    }

    async fn get(&self, uid: &str) -> Result<Option<Document>> {
        let (inner, uid) = (self.inner.clone(), uid.to_string());
        blocking(move || inner.get_sync(&uid)).await
    }

    async fn search(&self, query: &SearchQuery) -> Result<Vec<ScoredChunk>> {
        let _slot = self.inner.db.read_slot().await;
        let (inner, query) = (self.inner.clone(), query.clone());
        blocking(move || inner.search_sync(&query)).await
    }

    async fn stats(&self) -> Result<StoreStats> {
        let inner = self.inner.clone();
        blocking(move || inner.stats_sync()).await
    }

    async fn write_generation(&self) -> Result<Option<WriteGeneration>> {
        let inner = self.inner.clone();
        blocking(move || inner.write_generation().map(Some)).await
    }

    fn ranking_fingerprint(&self) -> String {
        let o = &self.inner.opts;
        format!(
            "sqlite|w{},{},{}|s{}|{:?}",
            o.title_weight, o.heading_weight, o.text_weight, o.drop_stopwords, o.hnsw
        )
    }
}
