//! The dense index: loaded from its dump or rebuilt from the vector BLOBs,
//! persisted by `flush`, searched with best-vector-per-chunk grouping.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::Ordering;

use rusqlite::Connection;
use verity_core::{Result, SearchQuery, StoreError};

use super::Inner;
use crate::db::db_err;
use crate::hnsw::DenseIndex;
use crate::vector_keys;

/// How the dense index of an open store came to memory.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DenseLoad {
    /// Taken from its dump (`false`: rebuilt from the vectors in SQLite).
    pub from_dump: bool,
    /// Vectors in the index.
    pub vectors: usize,
    /// Time the load or rebuild took, in milliseconds.
    pub millis: f64,
    /// Why the dump was not used, when it was not.
    pub reason: Option<String>,
}

/// The file name stem of an index's HNSW dump: the index name itself when it
/// is made of letters, digits, `_` and `-` only (at most 100), else those
/// characters kept, the others replaced by `_`, and `.` plus the first 12 hex
/// digits of the name's SHA-1 — so `default:v2025-10-15` and any version
/// string give a safe, distinct name (the plain form has no `.`, the hashed
/// one has exactly one, so the two forms never meet).
pub fn dump_basename(index: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if !index.is_empty() && index.len() <= 100 && index.chars().all(plain) {
        return index.to_string();
    }
    let kept: String = index
        .chars()
        .map(|c| if plain(c) { c } else { '_' })
        .take(64)
        .collect();
    let hash = verity_core::hash::sha1_hex(index.as_bytes());
    format!("{kept}.{}", &hash[..12])
}

impl Inner {
    pub(super) fn dump_dir(&self) -> Option<PathBuf> {
        self.home.as_ref().map(|h| h.join("index"))
    }

    fn record_load(&self, load: DenseLoad) {
        *self.dense_load.write() = Some(load);
    }

    /// Load the dense index dump when its generation matches SQLite's,
    /// otherwise rebuild it from the vector BLOBs.
    pub(super) fn load_dense(&self) -> Result<()> {
        let Some(emb) = self.embedder.read().clone() else {
            *self.dense.write() = None;
            return Ok(());
        };
        let generation = self.generation()?;
        let started = std::time::Instant::now();
        let mut reason = None;
        if let Some(dir) = self.dump_dir() {
            match DenseIndex::load(&dir, &dump_basename(&self.index_name), emb.dim, generation) {
                Ok(mut idx) => {
                    idx.apply_search_params(self.opts.hnsw);
                    tracing::debug!(index = %self.index_name, vectors = idx.len(), generation, "dense index loaded from its dump");
                    self.record_load(DenseLoad {
                        from_dump: true,
                        vectors: idx.len(),
                        millis: started.elapsed().as_secs_f64() * 1e3,
                        reason: None,
                    });
                    *self.dense.write() = Some(idx);
                    return Ok(());
                }
                Err(e) => {
                    tracing::info!(index = %self.index_name, reason = %e, "dense index dump unusable; rebuilding from SQLite");
                    reason = Some(e.to_string());
                }
            }
        }
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
        self.record_load(DenseLoad {
            from_dump: false,
            vectors: idx.len(),
            millis: started.elapsed().as_secs_f64() * 1e3,
            reason,
        });
        *self.dense.write() = Some(idx);
        self.dense_dirty.store(true, Ordering::SeqCst);
        Ok(())
    }

    /// Persist what is only in memory: the dense index is dumped to
    /// `home/index/<index>.hnsw.*` with the current write generation. SQLite
    /// writes are already durable at commit. No-op in memory or when clean.
    pub(super) fn flush(&self) -> Result<()> {
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
            idx.dump(&dir, &dump_basename(&self.index_name), g)
        });
        if res.is_err() {
            self.dense_dirty.store(true, Ordering::SeqCst);
        }
        res
    }

    /// Whether the index has vectors to search (`false`: no embedder yet),
    /// after checking `vector`'s dimension against its embedder.
    pub(super) fn check_query_vector(&self, vector: &[f32]) -> Result<bool> {
        let Some(emb) = self.embedder.read().clone() else {
            return Ok(false);
        };
        if vector.len() != emb.dim {
            return Err(StoreError::EmbedderMismatch {
                expected: emb.to_string(),
                found: format!("a query vector of dimension {}", vector.len()),
            }
            .into());
        }
        Ok(true)
    }

    pub(super) fn dense_candidates(
        &self,
        c: &Connection,
        q: &SearchQuery,
        vector: &[f32],
        limit: usize,
    ) -> Result<Vec<(i64, f32)>> {
        if !self.check_query_vector(vector)? {
            return Ok(Vec::new());
        }
        let allowed = self.allowed_ids(c, q, true)?;
        self.dense_ranked(vector, limit, allowed.as_ref())
    }

    /// The dense candidates among `allowed` chunks (`None`: all), best
    /// first: the part of [`Self::dense_candidates`] that needs no database
    /// connection, so that a hybrid search runs it beside the lexical one.
    pub(super) fn dense_ranked(
        &self,
        vector: &[f32],
        limit: usize,
        allowed: Option<&HashSet<u64>>,
    ) -> Result<Vec<(i64, f32)>> {
        let Some(dim) = self.embedder.read().as_ref().map(|e| e.dim) else {
            return Ok(Vec::new());
        };
        let dense = self.dense.read();
        match dense.as_ref() {
            Some(idx) => rank_chunks(idx, dim, vector, limit, allowed),
            None => Ok(Vec::new()),
        }
    }

    /// [`Self::dense_ranked`] without waiting: `None` when the embedder's or
    /// the dense index's lock is taken (a write in progress). For a rayon
    /// worker, which must never block on a lock: a writer holds the dense
    /// lock while it inserts on the pool, so workers parked on it would
    /// wait for themselves (the async-hygiene test hung that way).
    pub(super) fn try_dense_ranked(
        &self,
        vector: &[f32],
        limit: usize,
        allowed: Option<&HashSet<u64>>,
    ) -> Option<Result<Vec<(i64, f32)>>> {
        let dim = match self.embedder.try_read()?.as_ref() {
            Some(e) => e.dim,
            None => return Some(Ok(Vec::new())),
        };
        let dense = self.dense.try_read()?;
        Some(match dense.as_ref() {
            Some(idx) => rank_chunks(idx, dim, vector, limit, allowed),
            None => Ok(Vec::new()),
        })
    }
}

/// The `limit` best chunks of `idx` (embedder dimension `dim`) among
/// `allowed` chunks (`None`: all), by their best vector.
fn rank_chunks(
    idx: &DenseIndex,
    dim: usize,
    vector: &[f32],
    limit: usize,
    allowed: Option<&HashSet<u64>>,
) -> Result<Vec<(i64, f32)>> {
    if idx.dim() != dim {
        return Err(StoreError::Corrupt(
            "dense index dimension differs from the index embedder".into(),
        )
        .into());
    }
    // Several vectors may belong to one chunk (its own and its
    // sentences'). Deep requests scan the int8 copy once and group
    // (`search_grouped`); shallow ones walk the graph once, asking for all
    // the walk's candidates (no extra cost), and scan only when that walk
    // holds fewer than `limit` chunks. Chunks come back ranked by their
    // best vector either way.
    let limit = limit.max(1);
    let fetch = limit.saturating_mul(4).max(idx.params().ef_search);
    let chunk_of = |key: u64| vector_keys::chunk_of(key) as u64;
    let in_set =
        |key: u64| allowed.is_none_or(|set| set.contains(&(vector_keys::chunk_of(key) as u64)));
    let filter: Option<&(dyn Fn(u64) -> bool + Sync)> = match allowed {
        Some(_) => Some(&in_set),
        None => None,
    };
    if !idx.prefers_scan(fetch) {
        let hits = idx.search(vector, fetch, filter)?;
        let mut chunks = vector_keys::best_per_chunk(&hits);
        if chunks.len() >= limit || hits.len() < fetch {
            chunks.truncate(limit);
            return Ok(chunks);
        }
    }
    Ok(idx
        .search_grouped(vector, limit, &chunk_of, filter)?
        .into_iter()
        .map(|(chunk, sim)| (chunk as i64, sim))
        .collect())
}
