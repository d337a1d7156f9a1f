//! The event store's vector index on disk: the HNSW graph is dumped with
//! [`DenseIndex::dump`] (the chunk store's mechanism) to
//! `home/index/memory/events.hnsw.*`, stamped with `events_meta.generation`,
//! and taken back at load when that generation is still SQLite's and the
//! dump holds exactly the database's vectors. Anything else (no dump, stale,
//! truncated, corrupt, another dimension, a database edited behind the
//! generation's back) rebuilds the graph from SQLite, as without a dump.
//!
//! Dumped like the chunk index: on [`SqliteEventStore::flush`] (the facade's
//! `Verity::flush`, a server's shutdown), on drop when writes changed the
//! index, and right after a rebuild.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use verity_core::{Result, StoreError};

use super::catalog::Catalog;
use super::{sql, SqliteEventStore};
use crate::hnsw::{DenseIndex, HnswParams};

/// Folder of the dump inside the home's `index/` (where chunk indexes dump
/// as `index/<name>.hnsw.*`: a folder cannot clash with those files).
const DUMP_FOLDER: &str = "memory";
/// Basename of the dump's files.
const DUMP_BASENAME: &str = "events";

/// How the vector index was obtained at the last (re)load of the catalog.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventIndexLoad {
    /// The HNSW graph came from its dump (no rebuild).
    pub loaded_from_dump: bool,
    /// Why the graph was rebuilt from SQLite instead (`None`: loaded from
    /// the dump, nothing to index, or no dump kept — in memory or
    /// [`super::EventStoreOptions::persist_index`] off).
    pub rebuild_reason: Option<String>,
    /// Vectors in the index.
    pub vectors: usize,
}

impl SqliteEventStore {
    /// Folder holding the event index dump of the home `home` (removing it
    /// makes the next open rebuild the index from SQLite).
    pub fn index_dir(home: &Path) -> PathBuf {
        home.join("index").join(DUMP_FOLDER)
    }

    /// Where the dump lives (`None`: in memory, or persistence off).
    fn dump_dir(&self) -> Option<PathBuf> {
        if !self.opts.persist_index {
            return None;
        }
        Some(Self::index_dir(self.db.path()?.parent()?))
    }

    /// Rebuild the catalog from the tables, taking the HNSW graph from its
    /// dump when the dump is current; a rebuilt graph is dumped at once.
    pub(super) fn reload(&self) -> Result<()> {
        let (generation, dim, rows) = self.db.read(sql::load_all)?;
        let mut c = Catalog::new(self.opts.hnsw);
        c.generation = generation;
        c.dim = dim;
        let batch = c.insert_entries(rows);
        let dir = self.dump_dir();
        let mut report = EventIndexLoad::default();
        if let (false, Some(dir)) = (batch.is_empty(), &dir) {
            match load_dump(dir, &c, self.opts.hnsw).and_then(|d| c.adopt(d)) {
                Ok(()) => {
                    report.loaded_from_dump = true;
                    tracing::debug!(
                        vectors = batch.len(),
                        generation,
                        "event index loaded from its dump"
                    );
                }
                Err(reason) => {
                    tracing::info!(%reason, vectors = batch.len(), "event index dump unusable; rebuilding from SQLite");
                    report.rebuild_reason = Some(reason);
                }
            }
        }
        if !report.loaded_from_dump {
            let started = std::time::Instant::now();
            c.index(&batch)?;
            if !batch.is_empty() {
                tracing::info!(
                    vectors = batch.len(),
                    ms = started.elapsed().as_millis() as u64,
                    "event index built from SQLite vectors"
                );
            }
        }
        drop(batch);
        let compacted = c.maybe_compact()?;
        report.vectors = c.vectors();
        let fresh_graph = c.dense().is_some() && (!report.loaded_from_dump || compacted);
        *self.catalog.write() = c;
        *self.last_load.lock() = report;
        if fresh_graph && dir.is_some() {
            self.dirty.store(true, Ordering::SeqCst);
            if let Err(e) = self.flush() {
                tracing::warn!(error = %e, "could not dump the rebuilt event index");
            }
        }
        Ok(())
    }

    /// How the vector index was obtained at the last (re)load: from its dump,
    /// or rebuilt (and why).
    pub fn index_load(&self) -> EventIndexLoad {
        self.last_load.lock().clone()
    }

    /// Persist what is only in memory: the HNSW graph is dumped to
    /// `home/index/memory/events.hnsw.*` with the current write generation.
    /// SQLite writes are already durable at commit. No-op in memory, with
    /// [`super::EventStoreOptions::persist_index`] off, or when clean.
    pub fn flush(&self) -> Result<()> {
        let Some(dir) = self.dump_dir() else {
            return Ok(());
        };
        if !self.dirty.swap(false, Ordering::SeqCst) {
            return Ok(());
        }
        // Writers change the graph and the generation under the catalog's
        // write lock: under the read lock they agree.
        let cat = self.catalog.read();
        let Some(idx) = cat.dense() else {
            return Ok(());
        };
        let res = u64::try_from(cat.generation)
            .map_err(|_| {
                StoreError::Corrupt(format!("events generation {}", cat.generation)).into()
            })
            .and_then(|g| idx.dump(&dir, DUMP_BASENAME, g));
        if res.is_err() {
            self.dirty.store(true, Ordering::SeqCst);
        }
        res
    }

    /// The in-memory index no longer matches its dump (after a write).
    pub(super) fn mark_dirty(&self) {
        self.dirty.store(true, Ordering::SeqCst);
    }
}

/// The dump of `dir` if it is of the catalog's generation and dimension.
fn load_dump(
    dir: &std::path::Path,
    c: &Catalog,
    hnsw: HnswParams,
) -> std::result::Result<DenseIndex, String> {
    let dim = c.dim.ok_or("no vector dimension recorded")?;
    let generation = u64::try_from(c.generation).map_err(|_| "negative generation".to_string())?;
    let mut idx =
        DenseIndex::load(dir, DUMP_BASENAME, dim, generation).map_err(|e| e.to_string())?;
    idx.apply_search_params(hnsw);
    Ok(idx)
}

impl Drop for SqliteEventStore {
    fn drop(&mut self) {
        if self.dirty.load(Ordering::SeqCst) {
            if let Err(e) = self.flush() {
                tracing::warn!(error = %e, "could not persist the event index on drop");
            }
        }
    }
}
