//! The embedded default store: SQLite (documents, chunks, vectors, FTS5 BM25, caches, aliases)
//! with an HNSW index for dense search.
//!
//! * [`SqliteStore`] implements [`verity_core::VectorStore`]: SQLite is the source of truth
//!   (`home/verity.db`, WAL), the dense index is a rebuildable cache dumped beside it
//!   (`home/index/<name>.hnsw.*`, `<name>` made file-safe by [`dump_basename`]).
//! * Lexical search is answered by an in-memory BM25 index built from FTS5's own tokenisation,
//!   with FTS5's exact `bm25()` scores and max-score top-k; FTS5 ranks when it is off or stale.
//! * [`SqliteCache`] implements [`verity_core::Cache`] in the same database.
//! * [`SqliteCatalog`] implements [`verity_core::IndexCatalog`] (indexes and aliases, for re-indexing).

mod bm25;
mod cache;
mod db;
pub mod events;
mod filter_sql;
mod fts;
pub mod hnsw;
mod lexical;
mod quantized;
mod schema;
mod store;
mod vector_keys;
mod watch;

pub use bm25::LexicalIndexStats;
pub use cache::{CacheStats, ClassUsage, SqliteCache};
pub use events::{EventIndexLoad, EventStoreOptions, SqliteEventStore};
pub use fts::fts_match_expression;
pub use hnsw::{DenseIndex, HnswParams, DEFAULT_MIN_GRAPH_POINTS, EXACT_SCAN_MAX_POINTS};
pub use store::{
    dump_basename, DenseLoad, IndexInfo, SqliteCatalog, SqliteStore, StoreOptions, DB_FILE,
    DEFAULT_INDEX,
};
pub use watch::SqliteWatchStore;
