//! The [`IndexCatalog`] trait: named indexes and aliases of one backend, what
//! a re-index (shadow index, gate, alias cutover) needs from a store.

use std::sync::Arc;

use async_trait::async_trait;

use crate::store::VectorStore;
use crate::Result;

/// Name of the shadow index of `name` at embedding version `version`: `<name>:v<version>`.
pub fn versioned_index(name: &str, version: &str) -> String {
    format!("{name}:v{version}")
}

/// Name of the alias readers use: `<name>:current`.
pub fn current_alias(name: &str) -> String {
    format!("{name}:current")
}

/// The indexes and aliases of one backend (SQLite database, Redis server).
///
/// An alias switch is atomic: a reader sees the old index or the new one,
/// never a mix. Implemented by `verity_store::SqliteCatalog` and
/// `verity_redis::RedisCatalog`; the re-index lives in `verity_ingest::reindex`.
#[async_trait]
pub trait IndexCatalog: Send + Sync {
    /// Backend name (`sqlite`, `redis`).
    fn backend(&self) -> &'static str;
    /// Whether its stores index sentence vectors
    /// ([`VectorStore::supports_sentence_vectors`]).
    fn supports_sentence_vectors(&self) -> bool;
    /// Names of the existing indexes, sorted.
    async fn index_names(&self) -> Result<Vec<String>>;
    /// The index an alias points at (`None`: not an alias).
    async fn resolve_alias(&self, alias: &str) -> Result<Option<String>>;
    /// Create or atomically switch `alias` to `index`. An unknown index is
    /// [`StoreError::NotFound`](crate::StoreError::NotFound); an alias named
    /// like an existing index is invalid input.
    async fn set_alias(&self, alias: &str, index: &str) -> Result<()>;
    /// A store bound to `index` (or alias), created empty when missing.
    async fn open(&self, index: &str) -> Result<Arc<dyn VectorStore>>;
    /// Drop an index, its content and the aliases pointing at it. An unknown
    /// index is [`StoreError::NotFound`](crate::StoreError::NotFound).
    async fn drop_index(&self, index: &str) -> Result<()>;
}
