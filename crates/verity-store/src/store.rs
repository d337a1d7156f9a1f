//! [`SqliteStore`]: documents, chunks, vectors and FTS5 in SQLite, dense search in memory.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, TimeZone, Utc};
use parking_lot::RwLock;
use rusqlite::types::Value as SqlValue;
use rusqlite::{params, Connection, OptionalExtension, Transaction, TransactionBehavior};
use serde::{Deserialize, Serialize};
use verity_core::rank::{bm25_relevance, fuse};
use verity_core::validate::{candidate_depth, validate_batch, validate_query};
use verity_core::{
    Chunk, Document, DocumentMeta, EmbedderId, Error, Fingerprint, IndexedDocument, Result,
    ScoredChunk, SearchMode, SearchQuery, StoreError, StoreStats, UpsertReport, VectorStore,
};

use crate::bm25::LexicalIndexStats;
use crate::cache::SqliteCache;
use crate::db::{db_err, Db};
use crate::filter_sql::filters_to_sql;
use crate::fts::{query_words, words_expression};
use crate::hnsw::{DenseIndex, HnswParams};
use crate::lexical::{Accelerator, DeletedRows, Delta};
use crate::schema::{migrate, DEFAULT_TOKENIZER};
use crate::vector_keys;

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
    /// BM25 weight of the document title column (3 was best on SciFact, see docs/benchmarks.d/store.md).
    pub title_weight: f32,
    /// BM25 weight of the heading-path column.
    pub heading_weight: f32,
    /// BM25 weight of the chunk text column.
    pub text_weight: f32,
    /// Pivot of [`bm25_relevance`]: the BM25 score mapped to relevance 0.5 (top-1 scores on
    /// SciFact claims: p10 ≈ 18, median ≈ 30).
    pub bm25_pivot: f32,
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
            title_weight: 3.0,
            heading_weight: 1.0,
            text_weight: 1.0,
            bm25_pivot: 20.0,
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
pub struct SqliteStore {
    db: Arc<Db>,
    home: Option<PathBuf>,
    index_id: i64,
    index_name: String,
    opts: StoreOptions,
    embedder: RwLock<Option<EmbedderId>>,
    dense: RwLock<Option<DenseIndex>>,
    dense_dirty: AtomicBool,
    lexical: Option<Accelerator>,
    /// A search saw the lexical index out of date: rebuild it after the search.
    lexical_stale: AtomicBool,
    /// A rebuild failed (not transiently): stay on FTS5.
    lexical_off: AtomicBool,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("home", &self.home)
            .field("index", &self.index_name)
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

impl SqliteStore {
    /// Open (creating) `home/verity.db` and bind to `opts.index` (an index
    /// name or an alias; an unknown name creates an empty index).
    pub fn open(home: &Path, opts: StoreOptions) -> Result<Self> {
        std::fs::create_dir_all(home)
            .map_err(|e| StoreError::Backend(format!("cannot create {}: {e}", home.display())))?;
        let db = Db::open(&home.join(DB_FILE), opts.busy_timeout)?;
        Self::init(Arc::new(db), Some(home.to_path_buf()), opts)
    }

    /// A private in-memory store (tests, ephemeral use).
    pub fn open_in_memory(opts: StoreOptions) -> Result<Self> {
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
            lexical,
            lexical_stale: AtomicBool::new(false),
            lexical_off: AtomicBool::new(false),
        };
        store.load_dense()?;
        Ok(store)
    }

    /// Name of the index this store is bound to (aliases resolved).
    pub fn index_name(&self) -> &str {
        &self.index_name
    }

    /// Options in force.
    pub fn options(&self) -> &StoreOptions {
        &self.opts
    }

    /// Build the in-memory lexical index now (it is otherwise built on the
    /// first lexical search); no-op when disabled or already current.
    pub fn warm_lexical_index(&self) -> Result<()> {
        match &self.lexical {
            Some(acc) => self.db.write(|c| acc.rebuild(c)),
            None => Ok(()),
        }
    }

    /// Size of the in-memory lexical index (`None`: disabled or not built yet).
    pub fn lexical_index_stats(&self) -> Option<LexicalIndexStats> {
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
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// A [`SqliteCache`] stored in the same database.
    pub fn cache(&self) -> SqliteCache {
        SqliteCache::from_db(self.db.clone())
    }

    fn dump_dir(&self) -> Option<PathBuf> {
        self.home.as_ref().map(|h| h.join("index"))
    }

    /// Load the dense index dump when its generation matches SQLite's,
    /// otherwise rebuild it from the vector BLOBs.
    fn load_dense(&self) -> Result<()> {
        let Some(emb) = self.embedder.read().clone() else {
            *self.dense.write() = None;
            return Ok(());
        };
        let generation = self.generation()?;
        if let Some(dir) = self.dump_dir() {
            match DenseIndex::load(&dir, &self.index_name, emb.dim, generation) {
                Ok(mut idx) => {
                    idx.set_ef_search(self.opts.hnsw.ef_search);
                    tracing::debug!(index = %self.index_name, vectors = idx.len(), generation, "dense index loaded from its dump");
                    *self.dense.write() = Some(idx);
                    return Ok(());
                }
                Err(e) => {
                    tracing::info!(index = %self.index_name, reason = %e, "dense index dump unusable; rebuilding from SQLite")
                }
            }
        }
        let started = std::time::Instant::now();
        let items = self.db.read(|c| {
            let mut st = c
                .prepare(
                    "SELECT c.id, c.vector FROM chunks c JOIN documents d ON d.id = c.doc_id \
                     WHERE d.index_id = ?1 AND c.vector IS NOT NULL",
                )
                .map_err(db_err)?;
            let rows = st
                .query_map([self.index_id], |r| {
                    Ok((r.get::<_, i64>(0)?, r.get::<_, Vec<u8>>(1)?))
                })
                .map_err(db_err)?;
            let mut items = Vec::new();
            for row in rows {
                let (id, blob) = row.map_err(db_err)?;
                let v = verity_core::cache::vector_from_bytes(&blob)
                    .filter(|v| !v.is_empty() && v.len() % emb.dim == 0)
                    .ok_or_else(|| {
                        StoreError::Corrupt(format!(
                            "chunk {id}: vector blob of {} bytes",
                            blob.len()
                        ))
                    })?;
                for (n, part) in v.chunks_exact(emb.dim).enumerate() {
                    items.push((vector_keys::key(id, n), part.to_vec()));
                }
            }
            Ok(items)
        })?;
        let mut idx = DenseIndex::new(emb.dim, self.opts.hnsw, items.len().max(1024));
        idx.insert_batch(&items)?;
        tracing::info!(index = %self.index_name, vectors = idx.len(), ms = started.elapsed().as_millis() as u64,
            "dense index rebuilt from SQLite vectors");
        *self.dense.write() = Some(idx);
        self.dense_dirty.store(true, Ordering::SeqCst);
        Ok(())
    }

    /// Persist what is only in memory: the dense index is dumped to
    /// `home/index/<index>.hnsw.*` with the current write generation. SQLite
    /// writes are already durable at commit. No-op in memory or when clean.
    pub fn flush(&self) -> Result<()> {
        let Some(dir) = self.dump_dir() else {
            return Ok(());
        };
        if !self.dense_dirty.swap(false, Ordering::SeqCst) {
            return Ok(());
        }
        // Writers take the dense lock before committing, so the generation read
        // under the read lock is the one the in-memory index reflects.
        let dense = self.dense.read();
        let Some(idx) = dense.as_ref() else {
            return Ok(());
        };
        let res = self.generation().and_then(|g| {
            std::fs::create_dir_all(&dir).map_err(|e| {
                StoreError::Backend(format!("cannot create {}: {e}", dir.display()))
            })?;
            idx.dump(&dir, &self.index_name, g)
        });
        if res.is_err() {
            self.dense_dirty.store(true, Ordering::SeqCst);
        }
        res
    }

    /// `PRAGMA integrity_check` plus the FTS5 integrity check; `Ok(())` when both pass.
    pub fn integrity_check(&self) -> Result<()> {
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

    /// Create an empty index (optionally pre-recording its embedder).
    pub fn create_index(&self, name: &str, embedder: Option<&EmbedderId>) -> Result<IndexInfo> {
        if name.trim().is_empty() {
            return Err(Error::invalid_input("index name must not be empty"));
        }
        self.db.write(|c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
            if index_row(&tx, name)?.is_some() || resolve_alias_tx(&tx, name)?.is_some() {
                return Err(Error::invalid_input(format!("index or alias `{name}` already exists")));
            }
            tx.execute(
                "INSERT INTO indexes(name, embedder_model, embed_version, dim, created) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    name,
                    embedder.map(|e| e.model.clone()),
                    embedder.map(|e| e.version.clone()),
                    embedder.map(|e| to_i64(e.dim)),
                    now_ms()
                ],
            )
            .map_err(db_err)?;
            let info = list_indexes_tx(&tx, Some(name))?.into_iter().next();
            tx.commit().map_err(db_err)?;
            info.ok_or_else(|| StoreError::NotFound { what: "index", id: name.to_string() }.into())
        })
    }

    /// Point `alias` at `index` (created or switched atomically, in one transaction).
    pub fn set_alias(&self, alias: &str, index: &str) -> Result<()> {
        if alias.trim().is_empty() {
            return Err(Error::invalid_input("alias must not be empty"));
        }
        self.db.write(|c| {
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(db_err)?;
            if index_row(&tx, alias)?.is_some() {
                return Err(Error::invalid_input(format!(
                    "`{alias}` is an index name, it cannot be an alias"
                )));
            }
            let id: Option<i64> = tx
                .query_row("SELECT id FROM indexes WHERE name = ?1", [index], |r| {
                    r.get(0)
                })
                .optional()
                .map_err(db_err)?;
            let id = id.ok_or_else(|| StoreError::NotFound {
                what: "index",
                id: index.to_string(),
            })?;
            tx.execute(
                "INSERT OR REPLACE INTO aliases(alias, index_id) VALUES (?1, ?2)",
                params![alias, id],
            )
            .map_err(db_err)?;
            tx.commit().map_err(db_err)
        })
    }

    /// The index an alias points at (`None` when `name` is not an alias).
    pub fn resolve_alias(&self, name: &str) -> Result<Option<String>> {
        self.db.read(|c| resolve_alias_tx(c, name))
    }

    /// Drop an index, its documents, chunks, vectors and aliases. The index
    /// this store is bound to cannot be dropped.
    pub fn drop_index(&self, name: &str) -> Result<()> {
        if name == self.index_name {
            return Err(Error::invalid_input(format!(
                "index `{name}` is in use by this store"
            )));
        }
        self.db.write(|c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
            let id: Option<i64> = tx
                .query_row("SELECT id FROM indexes WHERE name = ?1", [name], |r| r.get(0))
                .optional()
                .map_err(db_err)?;
            let id = id.ok_or_else(|| StoreError::NotFound { what: "index", id: name.to_string() })?;
            let mut deleted = DeletedRows::default();
            deleted.record_where(&tx, "c.doc_id IN (SELECT id FROM documents WHERE index_id = ?1)", id)?;
            tx.execute(
                "DELETE FROM chunks_fts WHERE rowid IN (SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.index_id = ?1)",
                [id],
            )
            .map_err(db_err)?;
            tx.execute("DELETE FROM chunks WHERE doc_id IN (SELECT id FROM documents WHERE index_id = ?1)", [id])
                .map_err(db_err)?;
            tx.execute("DELETE FROM documents WHERE index_id = ?1", [id]).map_err(db_err)?;
            tx.execute("DELETE FROM aliases WHERE index_id = ?1", [id]).map_err(db_err)?;
            tx.execute("DELETE FROM indexes WHERE id = ?1", [id]).map_err(db_err)?;
            deleted.settle(&tx)?;
            tx.commit().map_err(db_err)
        })?;
        if let Some(home) = &self.home {
            remove_dumps(&home.join("index"), name);
        }
        Ok(())
    }

    /// Every index of the database, by name.
    pub fn list_indexes(&self) -> Result<Vec<IndexInfo>> {
        self.db.read(|c| list_indexes_tx(c, None))
    }

    /// Current write generation of the bound index.
    pub fn generation(&self) -> Result<u64> {
        self.db.read(|c| {
            c.query_row(
                "SELECT generation FROM indexes WHERE id = ?1",
                [self.index_id],
                |r| r.get::<_, i64>(0),
            )
            .map(|g| g as u64)
            .map_err(db_err)
        })
    }

    fn upsert_sync(&self, docs: Vec<IndexedDocument>) -> Result<UpsertReport> {
        let mut report = UpsertReport::default();
        if docs.is_empty() {
            return Ok(report);
        }
        let mut removed: Vec<u64> = Vec::new();
        let mut added: Vec<(u64, Vec<f32>)> = Vec::new();
        let new_embedder = self.db.write(|c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
            let current = index_embedder(&tx, self.index_id)?;
            let emb = validate_batch(&docs, current.as_ref(), &self.index_name, true)?;
            let lex = match self.lexical_accelerator() {
                Some(acc) if acc.in_sync(&tx)? => Some(acc),
                _ => None,
            };
            let mut delta = Delta::default();
            let mut deleted = DeletedRows::default();
            let new_embedder = if current.is_none() { emb.clone() } else { None };
            if let Some(e) = &new_embedder {
                tx.execute(
                    "UPDATE indexes SET embedder_model = ?1, embed_version = ?2, dim = ?3 WHERE id = ?4",
                    params![e.model, e.version, to_i64(e.dim), self.index_id],
                )
                .map_err(db_err)?;
            }
            {
                let mut find = tx
                    .prepare_cached("SELECT id, content_hash, embed_version, chunking FROM documents WHERE index_id = ?1 AND uid = ?2")
                    .map_err(db_err)?;
                let mut old_chunks = tx.prepare_cached("SELECT id FROM chunks WHERE doc_id = ?1").map_err(db_err)?;
                let mut del_fts = tx.prepare_cached("DELETE FROM chunks_fts WHERE rowid = ?1").map_err(db_err)?;
                let mut del_chunks = tx.prepare_cached("DELETE FROM chunks WHERE doc_id = ?1").map_err(db_err)?;
                let mut upd_doc = tx
                    .prepare_cached(
                        "UPDATE documents SET source = ?2, ts = ?3, lang = ?4, title = ?5, url = ?6, tags = ?7, \
                         metadata = ?8, content = ?9, content_hash = ?10, embed_version = ?11, n_chunks = ?12, chunking = ?13 WHERE id = ?1",
                    )
                    .map_err(db_err)?;
                let mut ins_doc = tx
                    .prepare_cached(
                        "INSERT INTO documents(index_id, uid, source, ts, lang, title, url, tags, metadata, content, \
                         content_hash, embed_version, n_chunks, chunking) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
                    )
                    .map_err(db_err)?;
                let mut ins_chunk = tx
                    .prepare_cached(
                        "INSERT INTO chunks(doc_id, idx, text, start, end, heading_path, token_count, vector) \
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    )
                    .map_err(db_err)?;
                let mut ins_fts = tx
                    .prepare_cached("INSERT INTO chunks_fts(rowid, title, heading, text) VALUES (?1, ?2, ?3, ?4)")
                    .map_err(db_err)?;
                for d in &docs {
                    let doc = &d.document;
                    let ev = d.embeddings.as_ref().and_then(|_| d.embedder.as_ref().map(|e| e.version.clone()));
                    let existing: Option<(i64, String, Option<String>, Option<String>)> = find
                        .query_row(params![self.index_id, doc.uid], |r| {
                            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                        })
                        .optional()
                        .map_err(db_err)?;
                    let tags = serde_json::to_string(&doc.tags).map_err(json_err)?;
                    let metadata = serde_json::to_string(&doc.metadata).map_err(json_err)?;
                    let ts = doc.ts.map(|t| t.timestamp_millis());
                    let n = to_i64(d.chunks.len());
                    let doc_id = match existing {
                        Some((_, ref h, ref e, ref c)) if *h == d.content_hash && *e == ev && *c == d.chunking => {
                            report.unchanged += 1;
                            continue;
                        }
                        Some((id, _, _, _)) => {
                            let ids: Vec<i64> = old_chunks
                                .query_map([id], |r| r.get(0))
                                .map_err(db_err)?
                                .collect::<rusqlite::Result<_>>()
                                .map_err(db_err)?;
                            for cid in ids {
                                deleted.record(&tx, cid)?;
                                del_fts.execute([cid]).map_err(db_err)?;
                                removed.push(cid as u64);
                            }
                            del_chunks.execute([id]).map_err(db_err)?;
                            upd_doc
                                .execute(params![
                                    id,
                                    doc.source,
                                    ts,
                                    doc.lang,
                                    doc.title,
                                    doc.url,
                                    tags,
                                    metadata,
                                    doc.content,
                                    d.content_hash,
                                    ev,
                                    n,
                                    d.chunking
                                ])
                                .map_err(db_err)?;
                            report.replaced += 1;
                            id
                        }
                        None => {
                            ins_doc
                                .execute(params![
                                    self.index_id,
                                    doc.uid,
                                    doc.source,
                                    ts,
                                    doc.lang,
                                    doc.title,
                                    doc.url,
                                    tags,
                                    metadata,
                                    doc.content,
                                    d.content_hash,
                                    ev,
                                    n,
                                    d.chunking
                                ])
                                .map_err(db_err)?;
                            report.inserted += 1;
                            tx.last_insert_rowid()
                        }
                    };
                    let title = doc.title.as_deref().unwrap_or("");
                    for (i, ch) in d.chunks.iter().enumerate() {
                        // The chunk's own vector, then its sentences', in one BLOB.
                        let vectors: Vec<&Vec<f32>> = match d.embeddings.as_ref().and_then(|v| v.get(i)) {
                            Some(v) => std::iter::once(v)
                                .chain(
                                    d.sentence_embeddings
                                        .as_ref()
                                        .and_then(|s| s.get(i))
                                        .into_iter()
                                        .flatten(),
                                )
                                .collect(),
                            None => Vec::new(),
                        };
                        let blob = (!vectors.is_empty()).then(|| {
                            vectors
                                .iter()
                                .flat_map(|v| verity_core::cache::vector_to_bytes(v))
                                .collect::<Vec<u8>>()
                        });
                        let heading = serde_json::to_string(&ch.heading_path).map_err(json_err)?;
                        ins_chunk
                            .execute(params![
                                doc_id,
                                i64::from(ch.index),
                                ch.text,
                                to_i64(ch.start),
                                to_i64(ch.end),
                                heading,
                                i64::from(ch.token_count),
                                blob
                            ])
                            .map_err(db_err)?;
                        let cid = tx.last_insert_rowid();
                        let heading = ch.heading_path.join(" / ");
                        ins_fts.execute(params![cid, title, heading, ch.text]).map_err(db_err)?;
                        if lex.is_some() {
                            delta.added.push((cid, title.to_string(), heading, ch.text.clone()));
                        }
                        for (n, v) in vectors.into_iter().enumerate() {
                            added.push((vector_keys::key(cid, n), v.clone()));
                        }
                        report.chunks += 1;
                    }
                }
            }
            tx.execute("UPDATE indexes SET generation = generation + 1 WHERE id = ?1", [self.index_id])
                .map_err(db_err)?;
            // The lexical index is updated from the uncommitted write and its lock
            // held across the commit (dropped if the commit fails).
            deleted.settle(&tx)?;
            delta.removed = removed.iter().map(|&id| id as i64).collect();
            let mut lex_guard = lex.map(|acc| acc.apply(&tx, &delta));
            // Apply to the dense index while holding its lock across the commit, so
            // that a dense search never sees ids that SQLite does not have yet.
            let mut dense = self.dense.write();
            if let Err(e) = tx.commit() {
                if let Some(g) = lex_guard.as_mut() {
                    **g = None;
                }
                return Err(db_err(e));
            }
            drop(lex_guard);
            if let Some(e) = &new_embedder {
                *self.embedder.write() = Some(e.clone());
                if dense.is_none() {
                    *dense = Some(DenseIndex::new(e.dim, self.opts.hnsw, 1024));
                }
            }
            if let Some(idx) = dense.as_mut() {
                for id in &removed {
                    vector_keys::remove_chunk(idx, *id as i64);
                }
                // Vectors were validated before the commit; a failure here leaves
                // SQLite right and the cache stale, so rebuild it at next open.
                if let Err(e) = idx.insert_batch(&added) {
                    tracing::error!(error = %e, "dense index update failed; it will be rebuilt from SQLite");
                    *dense = None;
                    return Err(e);
                }
                if idx.needs_rebuild() {
                    idx.rebuild()?;
                }
            }
            Ok(new_embedder)
        })?;
        if new_embedder.is_some() || !added.is_empty() || !removed.is_empty() {
            self.dense_dirty.store(true, Ordering::SeqCst);
        }
        Ok(report)
    }

    fn delete_sync(&self, uids: &[String]) -> Result<usize> {
        let mut removed: Vec<u64> = Vec::new();
        let mut count = 0;
        self.db.write(|c| {
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(db_err)?;
            let lex = match self.lexical_accelerator() {
                Some(acc) if acc.in_sync(&tx)? => Some(acc),
                _ => None,
            };
            let mut deleted = DeletedRows::default();
            {
                let mut find = tx
                    .prepare_cached("SELECT id FROM documents WHERE index_id = ?1 AND uid = ?2")
                    .map_err(db_err)?;
                let mut chunks = tx
                    .prepare_cached("SELECT id FROM chunks WHERE doc_id = ?1")
                    .map_err(db_err)?;
                for uid in uids {
                    let Some(id): Option<i64> = find
                        .query_row(params![self.index_id, uid], |r| r.get(0))
                        .optional()
                        .map_err(db_err)?
                    else {
                        continue;
                    };
                    let ids: Vec<i64> = chunks
                        .query_map([id], |r| r.get(0))
                        .map_err(db_err)?
                        .collect::<rusqlite::Result<_>>()
                        .map_err(db_err)?;
                    for cid in ids {
                        deleted.record(&tx, cid)?;
                        tx.execute("DELETE FROM chunks_fts WHERE rowid = ?1", [cid])
                            .map_err(db_err)?;
                        removed.push(cid as u64);
                    }
                    tx.execute("DELETE FROM chunks WHERE doc_id = ?1", [id])
                        .map_err(db_err)?;
                    tx.execute("DELETE FROM documents WHERE id = ?1", [id])
                        .map_err(db_err)?;
                    count += 1;
                }
            }
            if count > 0 {
                tx.execute(
                    "UPDATE indexes SET generation = generation + 1 WHERE id = ?1",
                    [self.index_id],
                )
                .map_err(db_err)?;
            }
            deleted.settle(&tx)?;
            let delta = Delta {
                removed: removed.iter().map(|&id| id as i64).collect(),
                added: Vec::new(),
            };
            let mut lex_guard = lex.map(|acc| acc.apply(&tx, &delta));
            let mut dense = self.dense.write();
            if let Err(e) = tx.commit() {
                if let Some(g) = lex_guard.as_mut() {
                    **g = None;
                }
                return Err(db_err(e));
            }
            drop(lex_guard);
            if let Some(idx) = dense.as_mut() {
                for id in &removed {
                    vector_keys::remove_chunk(idx, *id as i64);
                }
            }
            Ok(())
        })?;
        if !removed.is_empty() {
            self.dense_dirty.store(true, Ordering::SeqCst);
        }
        Ok(count)
    }

    /// Lexical candidates: `(chunk id, positive BM25)`, best first.
    fn lexical(&self, c: &Connection, q: &SearchQuery, limit: usize) -> Result<Vec<(i64, f32)>> {
        let words = query_words(&q.text, self.opts.drop_stopwords);
        if words.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(acc) = self.lexical_accelerator() {
            match acc.current(c)? {
                Some(index) => {
                    // `None`: a word is not exactly one FTS5 token (FTS5 would
                    // match it as a phrase); leave that query to FTS5.
                    if let Some(terms) = acc.query_terms(&words)? {
                        let terms: Vec<&str> = terms.iter().map(String::as_str).collect();
                        let allowed = self.allowed_ids(c, q, false)?;
                        let accept = allowed.as_ref().map(|set| {
                            move |id: i64| u64::try_from(id).is_ok_and(|id| set.contains(&id))
                        });
                        let hits = index.top_k(
                            &terms,
                            limit,
                            accept.as_ref().map(|f| f as &dyn Fn(i64) -> bool),
                        );
                        acc.served();
                        return Ok(hits.into_iter().map(|(id, s)| (id, s as f32)).collect());
                    }
                }
                None => self.lexical_stale.store(true, Ordering::SeqCst),
            }
        }
        self.lexical_fts5(c, q, &words, limit)
    }

    /// Lexical candidates ranked by FTS5 itself (`bm25()`).
    fn lexical_fts5(
        &self,
        c: &Connection,
        q: &SearchQuery,
        words: &[String],
        limit: usize,
    ) -> Result<Vec<(i64, f32)>> {
        let Some(expr) = words_expression(words) else {
            return Ok(Vec::new());
        };
        // Fast path: without filters and with a single index in the database,
        // FTS5 ranks and cuts by itself (`ORDER BY rank LIMIT`), which avoids
        // joining every matching row.
        if q.filters.is_empty() {
            let n_indexes: i64 = c
                .query_row("SELECT count(*) FROM indexes", [], |r| r.get(0))
                .map_err(db_err)?;
            if n_indexes == 1 {
                let rank = format!(
                    "bm25({}, {}, {})",
                    self.opts.title_weight, self.opts.heading_weight, self.opts.text_weight
                );
                let mut st = c
                    .prepare_cached(
                        "SELECT rowid, rank FROM chunks_fts WHERE chunks_fts MATCH ?1 AND rank MATCH ?2 \
                         ORDER BY rank LIMIT ?3",
                    )
                    .map_err(db_err)?;
                let rows = st
                    .query_map(params![expr, rank, to_i64(limit)], |r| {
                        Ok((r.get::<_, i64>(0)?, -(r.get::<_, f64>(1)? as f32)))
                    })
                    .map_err(db_err)?;
                return rows.collect::<rusqlite::Result<Vec<_>>>().map_err(db_err);
            }
        }
        let pred = filters_to_sql(&q.filters);
        let sql = format!(
            "SELECT chunks_fts.rowid, bm25(chunks_fts, ?, ?, ?) AS s FROM chunks_fts \
             JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.id = c.doc_id \
             WHERE chunks_fts MATCH ? AND d.index_id = ? AND {} ORDER BY s, chunks_fts.rowid LIMIT ?",
            pred.sql
        );
        let mut params: Vec<SqlValue> = vec![
            SqlValue::Real(f64::from(self.opts.title_weight)),
            SqlValue::Real(f64::from(self.opts.heading_weight)),
            SqlValue::Real(f64::from(self.opts.text_weight)),
            SqlValue::Text(expr),
            SqlValue::Integer(self.index_id),
        ];
        params.extend(pred.params);
        params.push(SqlValue::Integer(to_i64(limit)));
        let mut st = c.prepare_cached(&sql).map_err(db_err)?;
        let rows = st
            .query_map(rusqlite::params_from_iter(params), |r| {
                Ok((r.get::<_, i64>(0)?, -(r.get::<_, f64>(1)? as f32)))
            })
            .map_err(db_err)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(db_err)
    }

    /// Chunk ids of the bound index allowed by the filters (`None`: no filter).
    fn allowed_ids(
        &self,
        c: &Connection,
        q: &SearchQuery,
        with_vector: bool,
    ) -> Result<Option<HashSet<u64>>> {
        if q.filters.is_empty() {
            return Ok(None);
        }
        let pred = filters_to_sql(&q.filters);
        let sql = format!(
            "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.index_id = ? {} AND {}",
            if with_vector { "AND c.vector IS NOT NULL" } else { "" },
            pred.sql
        );
        let mut params = vec![SqlValue::Integer(self.index_id)];
        params.extend(pred.params);
        let mut st = c.prepare_cached(&sql).map_err(db_err)?;
        let rows = st
            .query_map(rusqlite::params_from_iter(params), |r| r.get::<_, i64>(0))
            .map_err(db_err)?;
        let mut set = HashSet::new();
        for r in rows {
            set.insert(r.map_err(db_err)? as u64);
        }
        Ok(Some(set))
    }

    fn dense_candidates(
        &self,
        c: &Connection,
        q: &SearchQuery,
        vector: &[f32],
        limit: usize,
    ) -> Result<Vec<(i64, f32)>> {
        let Some(emb) = self.embedder.read().clone() else {
            return Ok(Vec::new());
        };
        if vector.len() != emb.dim {
            return Err(StoreError::EmbedderMismatch {
                expected: emb.to_string(),
                found: format!("a query vector of dimension {}", vector.len()),
            }
            .into());
        }
        let allowed = self.allowed_ids(c, q, true)?;
        let dense = self.dense.read();
        let Some(idx) = dense.as_ref() else {
            return Ok(Vec::new());
        };
        if idx.dim() != emb.dim {
            return Err(StoreError::Corrupt(
                "dense index dimension differs from the index embedder".into(),
            )
            .into());
        }
        // Several vectors may belong to one chunk: fetch deeper until `limit`
        // distinct chunks are found or the index is exhausted. Chunks that
        // appear are then exactly the best by their best vector.
        let mut fetch = limit.max(1);
        loop {
            let hits = match &allowed {
                Some(set) => {
                    let f = |key: u64| set.contains(&(vector_keys::chunk_of(key) as u64));
                    idx.search(vector, fetch, Some(&f))?
                }
                None => idx.search(vector, fetch, None)?,
            };
            let mut chunks = vector_keys::best_per_chunk(&hits);
            if chunks.len() >= limit || hits.len() < fetch || fetch >= idx.len() {
                chunks.truncate(limit);
                return Ok(chunks);
            }
            fetch = (fetch * 4).min(idx.len());
        }
    }

    fn search_sync(&self, q: &SearchQuery) -> Result<Vec<ScoredChunk>> {
        validate_query(q, self.embedder.read().as_ref())?;
        if q.k == 0 {
            return Ok(Vec::new());
        }
        let pivot = self.opts.bm25_pivot;
        let out = self.db.read(|c| {
            let tx = c.transaction().map_err(db_err)?;
            let depth = candidate_depth(q.k);
            let ranked: Vec<(i64, f32, Option<f32>, Option<f32>)> = match q.mode {
                SearchMode::Lexical => self
                    .lexical(&tx, q, q.k)?
                    .into_iter()
                    .map(|(id, s)| (id, s, Some(s), None))
                    .collect(),
                SearchMode::Dense => {
                    let v = q.vector.as_deref().unwrap_or(&[]);
                    self.dense_candidates(&tx, q, v, q.k)?
                        .into_iter()
                        .map(|(id, s)| (id, s, None, Some(s)))
                        .collect()
                }
                SearchMode::Hybrid => {
                    let lex = self.lexical(&tx, q, depth)?;
                    let dense = match &q.vector {
                        Some(v) => self.dense_candidates(&tx, q, v, depth)?,
                        None => Vec::new(),
                    };
                    let lex_map: HashMap<i64, f32> = lex.iter().copied().collect();
                    let dense_map: HashMap<i64, f32> = dense.iter().copied().collect();
                    let as_str = |l: &[(i64, f32)]| {
                        l.iter()
                            .map(|(id, s)| (id.to_string(), *s))
                            .collect::<Vec<_>>()
                    };
                    fuse(&as_str(&lex), &as_str(&dense), q.fusion)
                        .into_iter()
                        .filter_map(|(id, s)| id.parse::<i64>().ok().map(|id| (id, s)))
                        .take(q.k)
                        .map(|(id, s)| {
                            (
                                id,
                                s,
                                lex_map.get(&id).copied(),
                                dense_map.get(&id).copied(),
                            )
                        })
                        .collect()
                }
            };
            let ids: Vec<i64> = ranked.iter().map(|r| r.0).collect();
            let mut rows = hydrate(&tx, &ids)?;
            let mut out = Vec::with_capacity(ranked.len());
            for (id, score, lexical, dense) in ranked {
                let Some((chunk, doc)) = rows.remove(&id) else {
                    continue;
                };
                let lr = lexical.map(|s| bm25_relevance(s, pivot)).unwrap_or(0.0);
                let dr = dense.map(|s| s.clamp(0.0, 1.0)).unwrap_or(0.0);
                out.push(ScoredChunk {
                    chunk,
                    doc,
                    score,
                    relevance: lr.max(dr),
                    lexical,
                    dense,
                    freshness: None,
                });
            }
            Ok(out)
        });
        self.refresh_lexical();
        out
    }
}

impl Drop for SqliteStore {
    fn drop(&mut self) {
        if self.dense_dirty.load(Ordering::SeqCst) {
            if let Err(e) = self.flush() {
                tracing::warn!(error = %e, "could not persist the dense index on drop");
            }
        }
    }
}

fn remove_dumps(dir: &Path, name: &str) {
    let prefix = format!("{name}.hnsw.");
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

fn resolve_alias_tx(c: &Connection, name: &str) -> Result<Option<String>> {
    c.query_row(
        "SELECT i.name FROM aliases a JOIN indexes i ON i.id = a.index_id WHERE a.alias = ?1",
        [name],
        |r| r.get(0),
    )
    .optional()
    .map_err(db_err)
}

fn index_row(c: &Connection, name: &str) -> Result<Option<(i64, Option<EmbedderId>)>> {
    c.query_row(
        "SELECT id, embedder_model, embed_version, dim FROM indexes WHERE name = ?1",
        [name],
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                read_embedder(r.get(1)?, r.get(2)?, r.get(3)?),
            ))
        },
    )
    .optional()
    .map_err(db_err)
}

fn index_embedder(tx: &Transaction<'_>, id: i64) -> Result<Option<EmbedderId>> {
    tx.query_row(
        "SELECT embedder_model, embed_version, dim FROM indexes WHERE id = ?1",
        [id],
        |r| Ok(read_embedder(r.get(0)?, r.get(1)?, r.get(2)?)),
    )
    .map_err(db_err)
}

fn list_indexes_tx(c: &Connection, only: Option<&str>) -> Result<Vec<IndexInfo>> {
    let mut st = c
        .prepare(
            "SELECT i.id, i.name, i.embedder_model, i.embed_version, i.dim, i.created, i.generation, \
             (SELECT count(*) FROM documents d WHERE d.index_id = i.id) FROM indexes i \
             WHERE ?1 IS NULL OR i.name = ?1 ORDER BY i.name",
        )
        .map_err(db_err)?;
    let rows = st
        .query_map([only], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                IndexInfo {
                    name: r.get(1)?,
                    embedder: read_embedder(r.get(2)?, r.get(3)?, r.get(4)?),
                    created: ms_to_dt(r.get(5)?).unwrap_or_default(),
                    generation: r.get::<_, i64>(6)? as u64,
                    documents: to_usize(r.get(7)?),
                    aliases: Vec::new(),
                },
            ))
        })
        .map_err(db_err)?
        .collect::<rusqlite::Result<Vec<_>>>()
        .map_err(db_err)?;
    let mut st = c
        .prepare("SELECT alias FROM aliases WHERE index_id = ?1 ORDER BY alias")
        .map_err(db_err)?;
    let mut out = Vec::with_capacity(rows.len());
    for (id, mut info) in rows {
        info.aliases = st
            .query_map([id], |r| r.get(0))
            .map_err(db_err)?
            .collect::<rusqlite::Result<Vec<String>>>()
            .map_err(db_err)?;
        out.push(info);
    }
    Ok(out)
}

const DOC_META_COLS: &str = "d.uid, d.source, d.ts, d.lang, d.title, d.url, d.tags, d.metadata";

fn doc_meta(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<(DocumentMeta, String, String)> {
    let ts: Option<i64> = r.get(at + 2)?;
    Ok((
        DocumentMeta {
            uid: r.get(at)?,
            source: r.get(at + 1)?,
            ts: ts.and_then(ms_to_dt),
            lang: r.get(at + 3)?,
            title: r.get(at + 4)?,
            url: r.get(at + 5)?,
            tags: Vec::new(),
            metadata: serde_json::Map::new(),
        },
        r.get(at + 6)?,
        r.get(at + 7)?,
    ))
}

fn finish_meta((mut m, tags, meta): (DocumentMeta, String, String)) -> Result<DocumentMeta> {
    m.tags = serde_json::from_str(&tags).map_err(json_err)?;
    m.metadata = serde_json::from_str(&meta).map_err(json_err)?;
    Ok(m)
}

/// Load chunks and their document metadata by chunk id.
fn hydrate(c: &Connection, ids: &[i64]) -> Result<HashMap<i64, (Chunk, DocumentMeta)>> {
    let mut out = HashMap::with_capacity(ids.len());
    for batch in ids.chunks(500) {
        let sql = format!(
            "SELECT c.id, c.idx, c.text, c.start, c.end, c.heading_path, c.token_count, {DOC_META_COLS} \
             FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id IN ({})",
            vec!["?"; batch.len()].join(", ")
        );
        let mut st = c.prepare_cached(&sql).map_err(db_err)?;
        let rows = st
            .query_map(rusqlite::params_from_iter(batch.iter()), |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, i64>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, i64>(6)?,
                    doc_meta(r, 7)?,
                ))
            })
            .map_err(db_err)?;
        for row in rows {
            let (id, idx, text, start, end, heading, tokens, meta) = row.map_err(db_err)?;
            let meta = finish_meta(meta)?;
            let index = u32::try_from(idx).unwrap_or(0);
            let chunk = Chunk {
                id: Chunk::make_id(&meta.uid, index),
                doc_uid: meta.uid.clone(),
                index,
                text,
                start: to_usize(start),
                end: to_usize(end),
                heading_path: serde_json::from_str(&heading).map_err(json_err)?,
                token_count: u32::try_from(tokens).unwrap_or(0),
            };
            out.insert(id, (chunk, meta));
        }
    }
    Ok(out)
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
        Ok(self.embedder.read().clone())
    }

    async fn fingerprints(&self, uids: &[String]) -> Result<HashMap<String, Fingerprint>> {
        self.db.read(|c| {
            let mut st = c
                .prepare_cached(
                    "SELECT content_hash, embed_version, chunking FROM documents WHERE index_id = ?1 AND uid = ?2",
                )
                .map_err(db_err)?;
            let mut out = HashMap::new();
            for uid in uids {
                let fp = st
                    .query_row(params![self.index_id, uid], |r| {
                        Ok(Fingerprint { content_hash: r.get(0)?, embed_version: r.get(1)?, chunking: r.get(2)? })
                    })
                    .optional()
                    .map_err(db_err)?;
                if let Some(fp) = fp {
                    out.insert(uid.clone(), fp);
                }
            }
            Ok(out)
        })
    }

    async fn upsert(&self, docs: Vec<IndexedDocument>) -> Result<UpsertReport> {
        self.upsert_sync(docs)
    }

    async fn delete(&self, uids: &[String]) -> Result<usize> {
        self.delete_sync(uids)
    }

    async fn get(&self, uid: &str) -> Result<Option<Document>> {
        self.db.read(|c| {
            let sql = format!("SELECT {DOC_META_COLS}, d.content FROM documents d WHERE d.index_id = ?1 AND d.uid = ?2");
            let row = c
                .query_row(&sql, params![self.index_id, uid], |r| Ok((doc_meta(r, 0)?, r.get::<_, String>(8)?)))
                .optional()
                .map_err(db_err)?;
            let Some((meta, content)) = row else { return Ok(None) };
            let m = finish_meta(meta)?;
            Ok(Some(Document {
                uid: m.uid,
                source: m.source,
                ts: m.ts,
                lang: m.lang,
                title: m.title,
                content,
                tags: m.tags,
                url: m.url,
                metadata: m.metadata,
            }))
        })
    }

    async fn search(&self, query: &SearchQuery) -> Result<Vec<ScoredChunk>> {
        self.search_sync(query)
    }

    async fn stats(&self) -> Result<StoreStats> {
        let (documents, chunks, vectors, size) = self.db.read(|c| {
            let (d, ch, v): (i64, i64, i64) = c
                .query_row(
                    "SELECT (SELECT count(*) FROM documents WHERE index_id = ?1), \
                     (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.index_id = ?1), \
                     (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.index_id = ?1 AND c.vector IS NOT NULL)",
                    [self.index_id],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .map_err(db_err)?;
            let size: i64 = c
                .query_row("SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()", [], |r| r.get(0))
                .map_err(db_err)?;
            Ok((d, ch, v, size))
        })?;
        Ok(StoreStats {
            backend: "sqlite".into(),
            index: self.index_name.clone(),
            documents: to_usize(documents),
            chunks: to_usize(chunks),
            vectors: to_usize(vectors),
            embedder: self.embedder.read().clone(),
            size_bytes: Some(size as u64),
        })
    }
}
