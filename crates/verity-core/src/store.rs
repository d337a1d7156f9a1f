//! The [`VectorStore`] trait: documents + chunks + vectors + full text.

use std::collections::HashMap;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::document::{Document, Fingerprint, IndexedDocument, UpsertReport};
use crate::embed::EmbedderId;
use crate::search::{ScoredChunk, SearchQuery};
use crate::Result;

/// Counts describing a store.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StoreStats {
    /// Backend name (`sqlite`, `redis`).
    pub backend: String,
    /// Index name the store is bound to.
    pub index: String,
    /// Documents.
    pub documents: usize,
    /// Chunks.
    pub chunks: usize,
    /// Chunks with a vector.
    pub vectors: usize,
    /// Embedder the index was built with, if any.
    pub embedder: Option<EmbedderId>,
    /// Bytes on disk / in memory, when known.
    pub size_bytes: Option<u64>,
}

/// The state of an index that cached results were computed from.
///
/// Every write that can change a search result (insert, replace, delete)
/// bumps `counter` in the same transaction as the write, and `epoch` tells
/// apart two incarnations of one index name (dropped, then created again),
/// so that a value never comes back. Retrieval and answer caches fold it into
/// their keys ([`VectorStore::write_generation`]): after a write, the entries
/// computed before it are unreachable — no caller has to remember to bust them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WriteGeneration {
    /// Index the searches read (aliases resolved).
    pub index: String,
    /// Set when the index is created.
    pub epoch: String,
    /// Bumped by every write to the index.
    pub counter: u64,
}

impl std::fmt::Display for WriteGeneration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}@{}#{}", self.index, self.epoch, self.counter)
    }
}

/// Where documents, chunks, vectors and the full-text index live.
///
/// Writes are transactional per document: a reader never sees half a
/// document. A store records the [`EmbedderId`] of its vectors and refuses
/// vectors or query vectors from another embedder
/// ([`crate::StoreError::EmbedderMismatch`]).
#[async_trait]
pub trait VectorStore: Send + Sync {
    /// Backend name (`sqlite`, `redis`).
    fn backend(&self) -> &'static str;

    /// Whether [`IndexedDocument::sentence_embeddings`] are indexed (a chunk
    /// then ranks by the best of its vectors). Stores that return `false`
    /// refuse documents carrying them.
    fn supports_sentence_vectors(&self) -> bool {
        false
    }

    /// Embedder recorded in the index (`None` until vectors are written).
    async fn embedder(&self) -> Result<Option<EmbedderId>>;

    /// Fingerprints of the given uids that are stored (missing uids are absent),
    /// so that callers skip unchanged documents before chunking and embedding.
    async fn fingerprints(&self, uids: &[String]) -> Result<HashMap<String, Fingerprint>>;

    /// Insert or replace documents with their chunks (and vectors).
    async fn upsert(&self, docs: Vec<IndexedDocument>) -> Result<UpsertReport>;

    /// Delete documents and their chunks; returns how many existed.
    async fn delete(&self, uids: &[String]) -> Result<usize>;

    /// Fetch one document.
    async fn get(&self, uid: &str) -> Result<Option<Document>>;

    /// Search chunks (lexical, dense or hybrid, with filters).
    async fn search(&self, query: &SearchQuery) -> Result<Vec<ScoredChunk>>;

    /// Counts.
    async fn stats(&self) -> Result<StoreStats>;

    /// The current [`WriteGeneration`] of the index searches read. `None`
    /// (the default) means the store cannot tell, and its results are never
    /// cached — a store that does not implement it is slower, never stale.
    async fn write_generation(&self) -> Result<Option<WriteGeneration>> {
        Ok(None)
    }

    /// The store's own settings that change rankings (field weights, stop
    /// words, HNSW search depth, …), folded into retrieval cache keys.
    fn ranking_fingerprint(&self) -> String {
        String::new()
    }
}
