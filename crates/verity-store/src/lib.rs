//! The embedded default store: SQLite (documents, chunks, vectors, FTS5 BM25, caches, aliases)
//! with an HNSW index for dense search.

pub mod hnsw;
