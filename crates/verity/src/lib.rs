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
//! use verity::api::{AskRequest, IngestRequest, SearchRequest};
//! use verity::{Verity, VerityConfig};
//!
//! # async fn run() -> verity::Result<()> {
//! let verity = Verity::open(VerityConfig::from_env()?).await?;
//! verity.ingest(IngestRequest::paths(["examples/data"], false), &|_| {}).await?;
//! let hits = verity.search(&SearchRequest::new("routing fees")).await?;
//! let answer = verity.ask(&AskRequest::new("How are routing fees set?")).await?;
//! println!("{}", answer.text);
//! # Ok(()) }
//! ```
//!
//! Hosts (CLI, bindings, servers) speak the types of [`api`]: requests in,
//! responses out, errors reported through [`api::error`].
//!
//! The building blocks are re-exported as modules: [`core`] (types, traits,
//! errors), [`ingest`], [`store`], [`embed`], [`llm`], [`rag`], and with the
//! `sources` feature [`extract`] and [`fetch`]; [`net`] is the one HTTP
//! layer (client settings, retry policy) every network call goes through.

#[cfg(feature = "verify")]
mod answer_check;
pub mod api;
mod backend;
pub mod config;
pub mod eval;
mod handle;
mod health;
#[cfg(feature = "memory")]
pub mod memory;
mod providers;
mod reindex;
#[cfg(feature = "research")]
pub mod research;
#[cfg(feature = "sources")]
pub mod sources;
pub mod tools;
#[cfg(feature = "verify")]
mod verify;
#[cfg(feature = "watch")]
pub mod watch;

pub use api::{AskRequest, ConfigOverrides, IngestOutcome, IngestRequest, SearchRequest};
pub use config::{EmbedderSpec, GeneratorSpec, VerityConfig, MAX_EMBED_CONCURRENCY};
pub use handle::{AnswerChannel, Progress, Verity, VerityStats};
pub use providers::{generator, local_models};
#[cfg(feature = "research")]
pub use research::{ResearchOptions, ResearchProgress};
#[cfg(feature = "verify")]
pub use verify::CheckProgress;

pub use verity_core as core;
pub use verity_core::{
    Answer, AnswerVerification, Chunk, Citation, Document, DocumentMeta, Embedder, EmbedderId,
    Error, Filters, Fusion, Generator, MetadataFilter, Result, ScoredChunk, SearchMode,
    SearchQuery, SearchResults, SentenceVerdict, TimeRange, VectorStore, VerifyMode,
};
pub use verity_embed as embed;
#[cfg(feature = "sources")]
pub use verity_extract as extract;
#[cfg(feature = "sources")]
pub use verity_fetch as fetch;
pub use verity_ingest as ingest;
pub use verity_ingest::{IngestPhase, IngestProgress, IngestReport};
pub use verity_llm as llm;
pub use verity_net as net;
pub use verity_rag as rag;
pub use verity_rag::RagEvent;
#[cfg(feature = "redis")]
pub use verity_redis as redis;
pub use verity_store as store;
/// Citation verification's building blocks: the one judging path
/// ([`verification::Assessor`]), the judges, the quote audit
/// ([`verification::audit`]).
#[cfg(feature = "verify")]
pub use verity_verify as verification;
