//! Retrieval and the grounded RAG pipeline of Verity.
//!
//! - [`Retriever`]: search a [`verity_core::VectorStore`] (embedding the
//!   query when an embedder is set), re-rank by similarity + freshness, and
//!   flag thin evidence (seed 001 guardrail).
//! - [`RagPipeline`]: the whole question → cited answer flow, with fallback
//!   generator, answer cache and prompt-injection filter.

pub mod citations;
pub mod config;
pub mod injection;
pub mod observe;
pub mod prompt;
pub mod rag;
pub mod retrieve;

pub use injection::{InjectionFilter, InjectionPolicy};
pub use observe::register_metrics;
pub use rag::{
    AnswerCheck, LowEvidencePolicy, RagConfig, RagEvent, RagPipeline, RagPipelineBuilder,
    RagQuestion, RagStream, TimeoutPolicy,
};
pub use retrieve::{rerank, CacheCounters, Retriever, RetrieverConfig};
