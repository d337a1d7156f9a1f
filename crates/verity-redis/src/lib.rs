//! # verity-redis
//!
//! The Redis backend of Verity (Redis 8 with the search and JSON modules;
//! `scripts/redis.sh` installs them offline):
//!
//! * [`RedisStore`] implements [`verity_core::VectorStore`]: documents as
//!   RedisJSON `doc:{index}:{uid}`, chunks as hashes `hv:{index}:{chunk_id}`
//!   indexed by RediSearch `idx:<index>` (BM25 text, TAG/NUMERIC filters, HNSW
//!   cosine vectors); each document is written by one Lua script, so a reader
//!   never sees half a document.
//! * [`RedisCache`] implements [`verity_core::Cache`] (seed-001 keys, TTLs,
//!   tag sets, `SCAN`-based prefix busting).
//! * [`reindex`](reindex::reindex): shadow re-index `<name>:v<version>`, recall/latency
//!   gate, atomic alias cutover `<name>:current`, for Redis and for the
//!   embedded SQLite store (through [`IndexCatalog`]).
//! * [`server::RedisServer`]: a throw-away local server for tests and benchmarks.
//!
//! ## Filters
//! Sources, languages, tags (any/all), uids and the time range are RediSearch
//! TAG/NUMERIC clauses of the query, so a filtered search returns `k` hits when
//! `k` matching chunks exist. Metadata equality is indexed as a TAG field `mkv`
//! holding `key=<JSON value>` for every scalar top-level metadata value. What a
//! TAG query cannot express exactly (array/object metadata values, values over
//! 512 bytes, empty strings, values with leading/trailing spaces, braces or
//! the separator U+001F) is applied after the search with
//! [`verity_core::Filters::matches`], over-fetching
//! [`RedisStoreOptions::post_filter_factor`] times. Every hit is checked
//! against `Filters::matches` in all cases.

pub mod cache;
pub mod conn;
pub mod events;
pub mod query;
pub mod reindex;
mod scripts;
pub mod server;
pub mod store;

pub use cache::RedisCache;
pub use conn::ConnectOptions;
pub use events::{RedisEventOptions, RedisEventStore};
pub use reindex::{
    current_alias, evaluate, reindex, reindex_paths, versioned_index, DryRunPlan, EvalQuery,
    EvalSet, GateConfig, GateReport, IndexCatalog, RedisCatalog, ReindexOptions, ReindexReport,
    SqliteCatalog,
};
pub use store::{RedisStore, RedisStoreOptions};
