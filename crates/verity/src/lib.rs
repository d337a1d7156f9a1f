//! # Verity
//!
//! A source of truth for LLM applications: ingest documents, retrieve the
//! passages that answer a question (BM25 ⊕ dense, re-ranked by similarity and
//! freshness), and answer **only** from them, with citations — saying so
//! when the evidence is thin.
//!
//! Embedded by default (SQLite + HNSW + local models, no server); Ollama,
//! OpenAI-compatible servers and Redis when outgrown.
//!
//! ```no_run
//! use verity::{Verity, VerityConfig, SearchQuery, AskRequest};
//!
//! # async fn run() -> verity::Result<()> {
//! let verity = Verity::open(VerityConfig::from_env()?).await?;
//! verity.ingest_paths(&["examples/data".into()], false, &|_| {}).await?;
//! let hits = verity.search(&SearchQuery::new("routing fees")).await?;
//! let answer = verity.ask(&AskRequest::new("How are routing fees set?")).await?;
//! println!("{}", answer.text);
//! # Ok(()) }
//! ```
//!
//! The building blocks are re-exported as modules: [`core`] (types, traits,
//! errors), [`ingest`], [`store`], [`embed`], [`llm`], [`rag`], and with the
//! `sources` feature [`extract`] and [`fetch`].

pub mod config;
pub mod eval;
mod handle;
mod providers;
#[cfg(feature = "sources")]
pub mod sources;
pub mod tools;

pub use config::{EmbedderSpec, GeneratorSpec, VerityConfig};
pub use handle::{IngestOutcome, Verity, VerityStats};
pub use providers::generator;

pub use verity_core as core;
pub use verity_core::{
    Answer, Chunk, Citation, Document, DocumentMeta, Embedder, EmbedderId, Error, Filters, Fusion,
    Generator, MetadataFilter, Result, ScoredChunk, SearchMode, SearchQuery, SearchResults,
    TimeRange, VectorStore,
};
pub use verity_embed as embed;
#[cfg(feature = "sources")]
pub use verity_extract as extract;
#[cfg(feature = "sources")]
pub use verity_fetch as fetch;
pub use verity_ingest as ingest;
pub use verity_ingest::{IngestProgress, IngestReport};
pub use verity_llm as llm;
pub use verity_rag as rag;
pub use verity_rag::{AskRequest, RagEvent};
pub use verity_store as store;
