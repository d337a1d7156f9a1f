//! [`SqliteEventStore`]: the embedded [`EventStore`] (seed 004's event memory).
//!
//! * Events live in their own tables of the home's `verity.db` (`events`,
//!   `events_fts`, `events_meta`); SQLite is the source of truth.
//! * An in-memory catalog (timestamps, expiries, metadata posting lists of the
//!   flattened containment terms, unit vectors, an HNSW graph) answers
//!   searches. Filters are applied during the search: small or selective
//!   allowed sets (≤ 10,000 events) are scanned exactly, larger ones walk the
//!   graph with the filter checked at every node.
//! * Lexical search is FTS5 BM25 over each event's text.
//! * Another process writing the same database bumps `events_meta.generation`;
//!   the catalog is reloaded on the next read.
//! * The HNSW graph is dumped to the home (`persist.rs`) and taken back at
//!   open when it matches the database, so opening a large memory does not
//!   rebuild it.

mod catalog;
mod persist;
mod sql;
mod terms;

pub use persist::EventIndexLoad;

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, TimeZone, Utc};
use parking_lot::{Mutex, RwLock};
use serde_json::{Map, Value};
use uuid::Uuid;
use verity_core::events::{check_vector, field_err};
use verity_core::rank::{bm25_relevance, fuse};
use verity_core::{
    Event, EventFilter, EventPage, EventRecord, EventSearch, EventSearchMode, EventStore, Fusion,
    Result, StoreError, TimeOrder,
};

use crate::db::Db;
use crate::hnsw::HnswParams;
use catalog::{Catalog, Resolved};

/// How a [`SqliteEventStore`] is opened and ranks.
#[derive(Debug, Clone, PartialEq)]
pub struct EventStoreOptions {
    /// How long a writer waits for a lock before failing with a transient error.
    pub busy_timeout: Duration,
    /// HNSW parameters of the vector index.
    pub hnsw: HnswParams,
    /// Pivot mapping FTS5 BM25 scores to `[0, 1)` relevance (events are short: ~10).
    pub bm25_pivot: f32,
    /// How hybrid search fuses the vector and lexical lists.
    pub fusion: Fusion,
    /// Candidates fetched per list in hybrid mode (at least `offset + limit`).
    pub hybrid_candidates: usize,
    /// Keep the HNSW graph on disk (`home/index/memory/`) so that opening
    /// does not rebuild it; `false` rebuilds it from SQLite at every open.
    pub persist_index: bool,
}

impl Default for EventStoreOptions {
    fn default() -> Self {
        Self {
            busy_timeout: Duration::from_secs(10),
            hnsw: HnswParams::default(),
            bm25_pivot: 10.0,
            fusion: Fusion::default(),
            hybrid_candidates: 100,
            persist_index: true,
        }
    }
}

/// The embedded event store (SQLite + in-memory HNSW and posting lists).
pub struct SqliteEventStore {
    db: Arc<Db>,
    opts: EventStoreOptions,
    catalog: RwLock<Catalog>,
    /// The HNSW graph changed since it was last dumped.
    dirty: AtomicBool,
    /// How the graph was obtained at the last (re)load.
    last_load: Mutex<EventIndexLoad>,
}

impl std::fmt::Debug for SqliteEventStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteEventStore")
            .field("path", &self.db.path())
            .field("events", &self.catalog.read().len())
            .finish()
    }
}

pub(crate) fn ms_to_dt(ms: i64) -> DateTime<Utc> {
    Utc.timestamp_millis_opt(ms).single().unwrap_or_default()
}

impl SqliteEventStore {
    /// Open (creating) the event tables of `home/verity.db`.
    pub fn open(home: &Path, opts: EventStoreOptions) -> Result<Self> {
        std::fs::create_dir_all(home)
            .map_err(|e| StoreError::Backend(format!("cannot create {}: {e}", home.display())))?;
        let db = Db::open(&home.join(crate::DB_FILE), opts.busy_timeout)?;
        Self::init(Arc::new(db), opts)
    }

    /// A private in-memory store (tests, ephemeral agents).
    pub fn open_in_memory(opts: EventStoreOptions) -> Result<Self> {
        Self::init(Arc::new(Db::open_in_memory()?), opts)
    }

    fn init(db: Arc<Db>, opts: EventStoreOptions) -> Result<Self> {
        db.write(sql::migrate)?;
        let store = Self {
            catalog: RwLock::new(Catalog::new(opts.hnsw)),
            db,
            opts,
            dirty: AtomicBool::new(false),
            last_load: Mutex::new(EventIndexLoad::default()),
        };
        store.reload()?;
        Ok(store)
    }

    /// Run a delete (`remove` returns the new generation and the removed
    /// rows), drop those rows from the catalog, and mark the index dump stale
    /// when anything went.
    fn remove_rows(
        &self,
        remove: impl FnOnce(&mut rusqlite::Connection) -> Result<(i64, Vec<i64>)>,
    ) -> Result<usize> {
        let n = self.db.write(|c| {
            let (generation, removed) = remove(c)?;
            let mut cat = self.catalog.write();
            for rowid in &removed {
                cat.remove(*rowid);
            }
            cat.generation = generation;
            Ok(removed.len())
        })?;
        if n > 0 {
            self.mark_dirty();
        }
        Ok(n)
    }

    /// Reload when another process wrote since (file databases only).
    fn refresh(&self) -> Result<()> {
        if self.db.path().is_none() {
            return Ok(());
        }
        let g = self.db.read(sql::generation)?;
        if g != self.catalog.read().generation {
            self.reload()?;
        }
        Ok(())
    }

    /// Number of live (not purged) events, expired ones included.
    pub fn len(&self) -> usize {
        self.catalog.read().len()
    }

    /// `true` when the store holds no event.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn page(
        &self,
        ranked: Vec<(i64, Option<f32>, Option<f32>)>,
        total: Option<u64>,
        s: (usize, usize, EventSearchMode),
    ) -> Result<EventPage> {
        let (limit, offset, mode) = s;
        let window: Vec<_> = ranked.into_iter().skip(offset).take(limit).collect();
        let ids: Vec<i64> = window.iter().map(|w| w.0).collect();
        let mut rows = self.db.read(|c| sql::events_by_rowid(c, &ids))?;
        let mut data = Vec::with_capacity(window.len());
        for (rowid, dist, rank) in window {
            if let Some(mut e) = rows.remove(&rowid) {
                e.similarity_score = dist;
                e.rank_score = rank;
                data.push(e);
            }
        }
        Ok(EventPage {
            data,
            total_hits: total,
            limit,
            offset,
            mode,
            ..EventPage::default()
        })
    }

    fn lexical(&self, r: &Resolved<'_>, text: &str) -> Result<Vec<(i64, f32)>> {
        let Some(expr) = crate::fts::fts_match_expression(text) else {
            return Ok(Vec::new());
        };
        let raw = self.db.read(|c| sql::fts_match(c, &expr))?;
        let mut hits: Vec<(i64, f32)> = raw;
        self.catalog.read().retain(r, &mut hits);
        for h in &mut hits {
            h.1 = bm25_relevance(h.1, self.opts.bm25_pivot);
        }
        hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(hits)
    }

    fn search_sync(&self, s: &EventSearch) -> Result<EventPage> {
        self.refresh()?;
        let now = s.now.timestamp_millis();
        let r = Resolved::new(&s.filter, now);
        let k = s.offset.saturating_add(s.limit);
        let meta = (s.limit, s.offset, s.mode);
        match s.mode {
            EventSearchMode::MetadataOnly => {
                let ids = self.catalog.read().listing(&r, true);
                let total = ids.len() as u64;
                let ranked = ids.into_iter().map(|id| (id, None, None)).collect();
                self.page(ranked, Some(total), meta)
            }
            EventSearchMode::Vector => {
                let q = need_vector(s)?;
                let (hits, exhaustive) = self.catalog.read().nearest(&r, q, k, s.max_distance)?;
                let total = exhaustive.then_some(hits.len() as u64);
                let ranked = hits
                    .into_iter()
                    .map(|(id, d)| (id, Some(d), None))
                    .collect();
                self.page(ranked, total, meta)
            }
            EventSearchMode::Lexical => {
                let text = need_text(s)?;
                let hits = self.lexical(&r, text)?;
                let total = hits.len() as u64;
                let ranked = hits
                    .into_iter()
                    .map(|(id, rel)| (id, None, Some(rel)))
                    .collect();
                self.page(ranked, Some(total), meta)
            }
            EventSearchMode::Hybrid => {
                let q = need_vector(s)?;
                let text = need_text(s)?;
                let n = k.max(self.opts.hybrid_candidates);
                let (mut dense, exhaustive) =
                    self.catalog.read().nearest(&r, q, n, s.max_distance)?;
                let lexical = self.lexical(&r, text)?;
                let total = exhaustive.then(|| {
                    let mut all: std::collections::HashSet<i64> =
                        dense.iter().map(|h| h.0).collect();
                    all.extend(lexical.iter().map(|h| h.0));
                    all.len() as u64
                });
                dense.truncate(n);
                let lex: Vec<(String, f32)> = lexical
                    .iter()
                    .take(n)
                    .map(|(id, s)| (id.to_string(), *s))
                    .collect();
                let den: Vec<(String, f32)> = dense
                    .iter()
                    .map(|(id, d)| (id.to_string(), 2.0 - d))
                    .collect();
                let fused = fuse(&lex, &den, self.opts.fusion);
                let cat = self.catalog.read();
                let ranked = fused
                    .into_iter()
                    .filter_map(|(id, score)| {
                        let id: i64 = id.parse().ok()?;
                        Some((id, cat.distance(id, q), Some(score)))
                    })
                    .collect();
                drop(cat);
                self.page(ranked, total, meta)
            }
        }
    }
}

fn need_vector(s: &EventSearch) -> Result<&[f32]> {
    s.vector.as_deref().ok_or_else(|| {
        field_err(
            "vector_query",
            format!("{} search needs a query vector", s.mode),
        )
    })
}

fn need_text(s: &EventSearch) -> Result<&str> {
    s.text
        .as_deref()
        .filter(|t| !t.trim().is_empty())
        .ok_or_else(|| {
            field_err(
                "vector_query",
                format!("{} search needs query text", s.mode),
            )
        })
}

#[async_trait]
impl EventStore for SqliteEventStore {
    fn backend(&self) -> &'static str {
        "sqlite"
    }

    async fn dimension(&self) -> Result<Option<usize>> {
        self.refresh()?;
        Ok(self.catalog.read().dim)
    }

    async fn write(&self, events: Vec<EventRecord>) -> Result<()> {
        if events.is_empty() {
            return Ok(());
        }
        self.refresh()?;
        let mut dim = self.catalog.read().dim;
        for r in &events {
            if let Some(v) = &r.event.embedding {
                check_vector("embedding", v, dim)?;
                dim = Some(v.len());
            }
        }
        self.db.write(|c| {
            let (generation, rows) = sql::write(c, &events, dim)?;
            let mut cat = self.catalog.write();
            cat.dim = dim.or(cat.dim);
            cat.upsert(rows)?;
            cat.generation = generation;
            Ok(())
        })?;
        self.mark_dirty();
        Ok(())
    }

    async fn get(&self, id: Uuid, now: DateTime<Utc>) -> Result<Option<Event>> {
        let ev = self.db.read(|c| sql::event_by_id(c, &id))?;
        Ok(ev.filter(|e| e.expires_at.is_none_or(|x| x > now)))
    }

    async fn delete(&self, ids: &[Uuid]) -> Result<usize> {
        if ids.is_empty() {
            return Ok(0);
        }
        self.refresh()?;
        self.remove_rows(|c| sql::delete(c, ids))
    }

    async fn merge_metadata(
        &self,
        id: Uuid,
        patch: &Map<String, Value>,
        now: DateTime<Utc>,
    ) -> Result<Option<Event>> {
        self.refresh()?;
        let updated = self.db.write(|c| {
            let Some((generation, rowid, ev)) = sql::merge_metadata(c, &id, patch, now)? else {
                return Ok(None);
            };
            let mut cat = self.catalog.write();
            cat.set_metadata(rowid, ev.metadata.clone());
            cat.generation = generation;
            Ok(Some(ev))
        })?;
        self.mark_dirty();
        Ok(updated)
    }

    async fn search(&self, search: &EventSearch) -> Result<EventPage> {
        self.search_sync(search)
    }

    async fn list(
        &self,
        filter: &EventFilter,
        order: TimeOrder,
        limit: usize,
        offset: usize,
        now: DateTime<Utc>,
    ) -> Result<EventPage> {
        self.refresh()?;
        let r = Resolved::new(filter, now.timestamp_millis());
        let ids = self
            .catalog
            .read()
            .listing(&r, order == TimeOrder::NewestFirst);
        let total = ids.len() as u64;
        let ranked = ids.into_iter().map(|id| (id, None, None)).collect();
        self.page(
            ranked,
            Some(total),
            (limit, offset, EventSearchMode::MetadataOnly),
        )
    }

    async fn purge_expired(&self, now: DateTime<Utc>) -> Result<usize> {
        self.refresh()?;
        let ms = now.timestamp_millis();
        self.remove_rows(|c| sql::purge(c, ms))
    }
}
