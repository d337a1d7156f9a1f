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
}
