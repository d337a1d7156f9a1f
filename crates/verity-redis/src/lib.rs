//! # verity-redis
//!
//! The Redis backend of Verity (Redis 8 with the search and JSON modules;
//! `scripts/redis.sh` installs them offline):
//!
//! * [`RedisStore`] implements [`verity_core::VectorStore`]: documents as
//!   RedisJSON `doc:{index}:{uid}`, chunks as hashes `hv:{index}:{chunk_id}`
//!   indexed by RediSearch `idx:<index>` (BM25 text, TAG/NUMERIC filters, HNSW
//!   cosine vectors), plus one text-less hash `hv:{index}:{chunk_id}~<j>` per
//!   sentence vector (a chunk ranks by its best vector); each document is
//!   written by one Lua script, so a reader never sees half a document.
//! * [`RedisCache`] implements [`verity_core::Cache`] (seed-001 keys, TTLs,
//!   tag sets, `SCAN`-based prefix busting).
//! * [`RedisCatalog`] implements [`verity_core::IndexCatalog`] (indexes and
//!   aliases): `verity_ingest::reindex` re-indexes through it, like through
//!   the embedded store's `SqliteCatalog`.
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
pub mod catalog;
pub mod conn;
pub mod events;
pub mod query;
mod scripts;
pub mod server;
pub mod store;
pub mod watch;

pub use cache::RedisCache;
pub use catalog::{redis_document_uids, RedisCatalog};
pub use conn::ConnectOptions;
pub use events::{RedisEventOptions, RedisEventStore};
pub use store::{RedisStore, RedisStoreOptions};
pub use watch::RedisWatchStore;
