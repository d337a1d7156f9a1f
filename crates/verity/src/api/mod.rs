//! The request and response types every host speaks.
//!
//! The CLI, the Python and Node bindings and the servers are thin shells:
//! they turn their input into one of these requests, call the matching
//! [`crate::Verity`] method and print or return the response. Requests refuse
//! unknown fields (`deny_unknown_fields`) and document their defaults; every
//! type derives `serde` and [`schemars::JsonSchema`], so REST and MCP schemas
//! are derived from these very types.
//!
//! | request | `Verity` method | response |
//! |---|---|---|
//! | [`IngestRequest`] | [`ingest`](crate::Verity::ingest) | [`IngestOutcome`] |
//! | [`SearchRequest`] | [`search`](crate::Verity::search) | [`SearchResponse`] |
//! | [`AskRequest`] | [`ask`](crate::Verity::ask) | [`AskResponse`] |
//! | [`DeleteRequest`] | [`delete`](crate::Verity::delete) | [`DeleteResponse`] |
//! | [`GetDocumentRequest`] | [`document`](crate::Verity::document) | [`GetDocumentResponse`] |
//! | — | [`stats`](crate::Verity::stats) | [`StatsResponse`] |
//! | [`FetchRequest`] | [`fetch`](crate::Verity::fetch) | [`FetchResponse`] |
//! | [`ReindexRequest`] | [`reindex`](crate::Verity::reindex) | [`ReindexResponse`] |
//! | [`EvalBeirRequest`] | [`eval_beir`](crate::Verity::eval_beir) | [`EvalBeirResponse`] |
//! | [`EmbedRequest`] | [`embed`](crate::Verity::embed) | [`EmbedResponse`] |
//! | [`GenerateRequest`] | [`generate`](crate::Verity::generate) | [`GenerateResponse`] |
//! | — | [`health`](crate::Verity::health) | [`health::HealthResponse`] |
//! | [`EvalExtractionRequest`] | [`eval_extraction`](crate::Verity::eval_extraction) | [`EvalExtractionResponse`] |
//! | [`CheckRequest`] | [`check`](crate::Verity::check) | [`CheckResponse`] (feature `verify`) |
//! | [`watch`]`::*Request` | [`watch`](crate::Verity::watch)`().…` | [`watch`]`::*Response` (feature `watch`) |
//!
//! Configuration: [`ConfigOverrides`] merged over [`crate::VerityConfig::from_env`].
//! Errors: [`error`] maps each [`crate::Error::code`] to what each host reports.

pub mod conform;
pub mod error;
pub mod health;
mod ingest;
#[cfg(feature = "memory")]
pub mod memory;
mod ops;
mod overrides;
#[cfg(feature = "research")]
pub mod research;
mod rest;
mod search;
pub mod time;
#[cfg(feature = "verify")]
pub mod verify;

/// Technology watch and AuraCore project requests and responses (seed 000):
/// what [`crate::watch`]'s operations and their registry tools take and
/// answer, defined by the watch library and named here with the other api
/// types.
#[cfg(feature = "watch")]
pub mod watch {
    pub use verity_core::RuleUpdate;
    pub use verity_watch::api::*;
    pub use verity_watch::{Field, KeywordHit, RuleMatch, ScoreRequest, ScoreResult};
}

pub use error::{ErrorBody, ErrorMapping};
pub use ingest::{IngestOutcome, IngestRequest};
pub use ops::{
    BeirEvalFiles, DeleteRequest, DeleteResponse, EvalBeirRequest, EvalBeirResponse,
    EvalExtractionRequest, EvalExtractionResponse, FetchRequest, FetchResponse, GateOutcome,
    GetDocumentRequest, GetDocumentResponse, LocalModel, ModelsResponse, ReindexIngest,
    ReindexPlan, ReindexRequest, ReindexResponse, StatsResponse,
};
pub use overrides::ConfigOverrides;
pub use rest::{
    ContextChunk, EmbedRequest, EmbedResponse, GenerateParams, GenerateRequest, GenerateResponse,
    RetrieveResponse, MAX_EMBED_TEXTS,
};
pub use search::{
    AskRequest, AskResponse, HitView, RequestFilters, SearchRequest, SearchResponse,
    SearchResultsView, DEFAULT_K, MAX_K,
};
#[cfg(feature = "verify")]
pub use verify::{CheckRequest, CheckResponse};

/// JSON Schema of an api type (draft 2020-12), as the servers publish it.
pub fn schema_of<T: schemars::JsonSchema>() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(T)).unwrap_or(serde_json::Value::Null)
}
