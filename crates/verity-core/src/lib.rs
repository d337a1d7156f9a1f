//! # verity-core
//!
//! The stable vocabulary of [Verity](https://example.invalid/verity): the
//! plain data types that flow between pipeline stages, the traits where
//! users plug in their own implementations, and the typed errors.
//!
//! No I/O happens here; implementations live in the other `verity-*` crates
//! and are re-exported by the `verity` facade crate.
//!
//! | trait | role | implementations |
//! |---|---|---|
//! | [`Embedder`] | text → vectors | local (candle), Ollama, OpenAI-compatible |
//! | [`Generator`] | prompt → text | Ollama, OpenAI-compatible, local GGUF, extractive |
//! | [`VectorStore`] | documents, chunks, vectors, BM25 | SQLite + HNSW (embedded), Redis |
//! | [`Cache`] | TTL key-value with busting | SQLite, Redis |
//! | [`Fetcher`] | URL → parsed document | HTTP, Jina Reader |
//! | [`WebSearch`] | query → web hits | SearXNG |
//! | [`RuleStore`] | tech-watch relevance rules | SQLite, Redis |
//! | [`WatchStore`] | logged articles, decision audit log | SQLite, Redis |
//! | [`ProjectStore`] | AuraCore projects, context, tasks, decisions | SQLite, Redis |
//! | [`RuleStore`] | tech-watch relevance rules | SQLite |
//! | [`EventStore`] | event memory (seed 004) | SQLite + HNSW, Redis |

pub mod answer;
pub mod cache;
pub mod cancel;
pub mod catalog;
pub mod document;
pub mod embed;
pub mod error;
pub mod events;
pub mod generate;
pub mod hash;
pub mod judge;
pub mod project;
pub mod rank;
pub mod record;
pub mod retry;
pub mod rules;
pub mod search;
pub mod source;
pub mod store;
pub mod text;
pub mod validate;
pub mod watch;
pub mod web;

pub use answer::{Answer, AnswerVerification, Citation, SentenceVerdict, Timings, VerifyMode};
pub use cache::{Cache, CacheStats};
pub use catalog::IndexCatalog;
pub use document::{
    stable_uid, Chunk, Document, DocumentMeta, Fingerprint, IndexedDocument, UpsertReport,
};
pub use embed::{
    embed_spans_separately, Embedder, EmbedderId, Embedding, SpanEmbeddings, SpanMode, SpanText,
    TokenEmbeddings,
};
pub use error::{
    ConfigError, Error, FetchError, InputError, ParseError, ProviderError, ProviderErrorKind,
    Result, StoreError,
};
pub use events::{
    Event, EventFilter, EventPage, EventQuery, EventQueryParams, EventRecord, EventSearch,
    EventSearchMode, EventStore, NewEvent, TimeOrder, VectorQuery,
};
pub use generate::{
    ChatMessage, ChatRequest, ContextBlock, FinishReason, Generation, GenerationBudget,
    GenerationParams, Generator, Grounding, Role, TokenStream, Usage,
};
pub use judge::{Judge, Judgement, Passage, Verdict};
pub use project::{
    ContextEntry, Project, ProjectDecision, ProjectStatus, ProjectStore, Task, TaskStatus,
};
pub use retry::{RetryPolicy, Retryable};
pub use rules::{
    Priority, RelevanceRule, RuleKind, RuleStore, RuleUpdate, ScoringGuide, MAX_KEYWORD_CHARS,
    MAX_RULES, MAX_TOTAL_KEYWORDS,
};
pub use search::{
    check_k, check_query_len, Filters, Fusion, MetadataFilter, ScoredChunk, SearchMode,
    SearchQuery, SearchResults, TimeRange, DEFAULT_K, DEFAULT_TITLE_WEIGHT, MAX_FILTER_VALUES,
    MAX_K, MAX_QUERY_BYTES,
};
pub use source::{
    FetchStatus, FetchedSource, Fetcher, PageSpan, ParsedDocument, Refusal, SourceFormat,
};
pub use store::{StoreStats, VectorStore, WriteGeneration};
pub use watch::{
    Article, ArticleFilter, Decision, DecisionFilter, DecisionLlm, DecisionType, SourceType,
    WatchStore,
};
pub use web::{WebHit, WebQuery, WebSearch, WebTimeRange};

#[cfg(test)]
mod object_safety {
    use super::*;
    // Every plug-in trait must be usable as a trait object shared across threads.
    #[allow(clippy::too_many_arguments)]
    fn _assert(
        _: &std::sync::Arc<dyn Embedder>,
        _: &std::sync::Arc<dyn Generator>,
        _: &std::sync::Arc<dyn VectorStore>,
        _: &std::sync::Arc<dyn Cache>,
        _: &std::sync::Arc<dyn Fetcher>,
        _: &std::sync::Arc<dyn WebSearch>,
        _: &std::sync::Arc<dyn RuleStore>,
        _: &std::sync::Arc<dyn IndexCatalog>,
        _: &std::sync::Arc<dyn WatchStore>,
        _: &std::sync::Arc<dyn ProjectStore>,
        _: &std::sync::Arc<dyn EventStore>,
    ) {
    }
    fn _send_sync<T: Send + Sync + ?Sized>() {}
    #[test]
    fn traits_are_send_sync_objects() {
        _send_sync::<dyn Embedder>();
        _send_sync::<dyn Generator>();
        _send_sync::<dyn VectorStore>();
        _send_sync::<dyn Cache>();
        _send_sync::<dyn Fetcher>();
        _send_sync::<dyn WebSearch>();
        _send_sync::<dyn RuleStore>();
        _send_sync::<dyn WatchStore>();
        _send_sync::<dyn ProjectStore>();
        _send_sync::<dyn EventStore>();
    }
}
