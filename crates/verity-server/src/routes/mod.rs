//! The operations ([`operations`]: route, handler, OpenAPI description,
//! the registry tool doing the same) and the two routers built from them
//! (public: health, OpenAPI, docs, the page; protected: the rest).

mod data;
pub mod memory;
mod research;
mod service;
mod verify;
mod watch;

use axum::Router;
use verity::api;

use crate::jobs::JobStatus;
use crate::openapi::{query_params, schema, Body, Operation, Verb, VersionHeader};
use crate::server::AppState;

/// Routes anyone may call (probes, documentation, the verification page).
pub fn public(state: AppState) -> Router {
    routed(false).with_state(state)
}

/// Routes behind authentication (the server adds the auth layer).
pub fn protected(state: AppState) -> Router {
    routed(true).with_state(state)
}

/// The router of the operations with this `auth`, each on its path and
/// aliases, behind the `X-API-Version` check its [`VersionHeader`] asks for.
fn routed(auth: bool) -> Router<AppState> {
    let mut required = Router::new();
    let mut optional = Router::new();
    let mut ignored = Router::new();
    let (mut any_required, mut any_optional) = (false, false);
    for op in operations().into_iter().filter(|op| op.auth == auth) {
        let group = match op.version {
            VersionHeader::Required => {
                any_required = true;
                &mut required
            }
            VersionHeader::Optional => {
                any_optional = true;
                &mut optional
            }
            VersionHeader::Ignored => &mut ignored,
        };
        for path in std::iter::once(op.path).chain(op.aliases.iter().copied()) {
            *group = std::mem::take(group).route(path, op.handler.clone());
        }
    }
    // `route_layer` wants routes to wrap.
    if any_required {
        required = required.route_layer(axum::middleware::from_fn(crate::version::require));
    }
    if any_optional {
        optional = optional.route_layer(axum::middleware::from_fn(crate::version::require_if_sent));
    }
    required.merge(optional).merge(ignored)
}

/// Every documented operation (the OpenAPI document is generated from this).
pub fn operations() -> Vec<Operation> {
    let mut ops = vec![
        Operation {
            request: Some(schema::<api::IngestRequest>),
            success: vec![
                (200, "Small batch ingested", Body::Json(schema::<api::IngestOutcome>)),
                (202, "Large batch accepted as a job; poll `Location` (`/v1/jobs/{id}`)", Body::Json(schema::<JobStatus>)),
            ],
            errors: &[404, 409, 502, 503],
            description: "Batches of at most `sync_ingest_max` inline documents (default 100) are ingested before answering 200; larger ones, and any batch naming paths, answer 202 with a job. Unchanged documents are skipped; replaced ones bust the caches that depended on them.",
            tool: Some("ingest"),
            ..Operation::new(Verb::Post, "/v1/ingest", "ingest", "Ingest documents (inline, or files under the server's roots, or URLs)", data::ingest)
        },
        Operation {
            path_params: &[("id", "Job id returned by `POST /v1/ingest` or `POST /v1/research`")],
            success: vec![(200, "Job progress or result", Body::Json(schema::<JobStatus>))],
            errors: &[404],
            ..Operation::new(Verb::Get, "/v1/jobs/{id}", "get_job", "Progress of an ingest or research job", data::job)
        },
        Operation {
            request: Some(schema::<api::EmbedRequest>),
            success: vec![(200, "One vector per text", Body::Json(schema::<api::EmbedResponse>))],
            errors: &[409, 502, 503],
            description: "`model` and `embed_version`, when given, must match the embedder's: vectors from two embedding spaces are never mixed.",
            ..Operation::new(Verb::Post, "/v1/embed", "embed", "Embed texts with the configured embedder", data::embed)
        },
        Operation {
            request: Some(schema::<api::SearchRequest>),
            success: vec![(200, "Hits best first, with `uids`, `scores` and `sources`", Body::Json(schema::<api::RetrieveResponse>))],
            errors: &[409, 502, 503],
            description: "Lexical, dense or hybrid; re-ranked by similarity and freshness; `not_enough_evidence` when the best relevance is under the guardrail. Works while the generator is down.",
            tool: Some("search"),
            ..Operation::new(Verb::Post, "/v1/retrieve", "retrieve", "Retrieve the passages that answer a query", data::retrieve)
        },
        Operation {
            request: Some(schema::<api::GenerateRequest>),
            success: vec![(200, "Answer from the given context, with citations", Body::Json(schema::<api::GenerateResponse>))],
            errors: &[502, 503, 504],
            description: "No retrieval: the answer cites only the chunks sent. 503 when the generator is unavailable.",
            ..Operation::new(Verb::Post, "/v1/generate", "generate", "Answer a question from given context chunks", data::generate)
        },
        Operation {
            request: Some(schema::<api::AskRequest>),
            success: vec![(200, "Grounded answer (JSON), or a Server-Sent Events stream when `Accept: text/event-stream`", Body::JsonOrSse(schema::<api::AskResponse>))],
            errors: &[409, 502, 503, 504],
            description: "The whole pipeline: retrieve, re-rank, guardrail, generate with citations. 503 when the generator is unavailable (retrieval keeps working at /v1/retrieve).",
            tool: Some("ask"),
            ..Operation::new(Verb::Post, "/v1/rag", "rag", "Retrieve, then answer with citations", data::rag)
        },
        Operation {
            path_params: &[("uid", "Document uid")],
            success: vec![(200, "The document", Body::Json(schema::<verity::Document>))],
            errors: &[404],
            ..Operation::new(Verb::Get, "/v1/documents/{uid}", "get_document", "One document by uid", data::get_document)
        },
        Operation {
            path_params: &[("uid", "Document uid")],
            success: vec![(200, "Deleted", Body::Json(schema::<api::DeleteResponse>))],
            errors: &[404],
            ..Operation::new(Verb::Delete, "/v1/documents/{uid}", "delete_document", "Delete a document (and the cached answers that cited it)", data::delete_document)
        },
        Operation {
            success: vec![(200, "Store counts and configuration", Body::Json(schema::<api::StatsResponse>))],
            tool: Some("stats"),
            ..Operation::new(Verb::Get, "/v1/stats", "stats", "What the store holds", data::stats)
        },
        // Event memory (MnemoLite-compatible; `X-API-Version` optional): routes/memory.rs.
        Operation {
            version: VersionHeader::Optional,
            request: Some(schema::<api::memory::NewEvent>),
            success: vec![(201, "Event stored (`X-Verity-Note` says when it has no vector)", Body::Json(schema::<api::memory::Event>))],
            errors: &[503],
            description: "The content's text field (`text`, `body`, `message`, `content`, `title`) is embedded unless `embedding` is given (dimension and NaN checked); `timestamp` defaults to now. Validation errors are 422 with FastAPI's `detail: [{loc, msg, type}]`. Also at `/v1/events/`.",
            aliases: &["/v1/events/"],
            ..Operation::new(Verb::Post, "/v1/events", "ingest_event", "Write an event (MnemoLite)", memory::add)
        },
        Operation {
            version: VersionHeader::Optional,
            path_params: &[("id", "Event id (UUID)")],
            success: vec![(200, "The event", Body::Json(schema::<api::memory::Event>))],
            errors: &[404, 422],
            description: "404 when unknown or expired, 422 when the id is not a UUID.",
            ..Operation::new(Verb::Get, "/v1/events/{id}", "get_event", "One event (MnemoLite)", memory::get_one)
        },
        Operation {
            version: VersionHeader::Optional,
            path_params: &[("id", "Event id (UUID)")],
            success: vec![(204, "Deleted", Body::Empty)],
            errors: &[404, 422],
            ..Operation::new(Verb::Delete, "/v1/events/{id}", "delete_event", "Delete an event (MnemoLite)", memory::delete_one)
        },
        Operation {
            version: VersionHeader::Optional,
            path_params: &[("id", "Event id (UUID)")],
            request: Some(schema::<serde_json::Map<String, serde_json::Value>>),
            success: vec![(200, "The updated event", Body::Json(schema::<api::memory::Event>))],
            errors: &[404, 422],
            description: "Keys of the body are added or replaced; other keys are kept.",
            ..Operation::new(Verb::Patch, "/v1/events/{id}/metadata", "update_event_metadata", "Merge metadata into an event (MnemoLite)", memory::update_metadata)
        },
        Operation {
            version: VersionHeader::Optional,
            query: Some(query_params::<api::memory::EventQueryParams>),
            success: vec![(200, "Events best first (or newest first without `vector_query`)", Body::Json(schema::<api::memory::EventSearchResponse>))],
            errors: &[422, 503],
            description: "Vector (text or JSON vector), metadata containment and time window; `mode` adds lexical, hybrid and metadata-only. Answers `{data, meta: {total_hits, limit, offset}}`. Also at `/v1/search`.",
            aliases: &["/v1/search"],
            ..Operation::new(Verb::Get, "/v1/search/", "search_events", "Search events (MnemoLite)", memory::search)
        },
        Operation {
            version: VersionHeader::Ignored,
            success: vec![(200, "Prometheus text exposition", Body::Text)],
            description: "RAG series (rag_retrieval_latency_ms, rag_topk_score_max, rag_topk_score_mean, cache_hit_ratio, timeout_rate, answer_hallucination_flag) and http_requests_total / http_request_duration_seconds per route.",
            ..Operation::new(Verb::Get, "/v1/metrics", "metrics", "Prometheus metrics", service::metrics)
        },
        Operation {
            version: VersionHeader::Ignored,
            auth: false,
            success: vec![
                (200, "`healthy`: every configured service answers", Body::Json(schema::<api::health::HealthResponse>)),
                (503, "`degraded`: a service fails (its entry says why)", Body::Json(schema::<api::health::HealthResponse>)),
            ],
            description: "Store (and Redis when used), embedder, event memory, generator; each with `status` (`ok`, `error`, `not_configured`) and `latency_ms`.",
            ..Operation::new(Verb::Get, "/v1/health", "health", "Per-service health", service::health)
        },
        Operation {
            version: VersionHeader::Ignored,
            auth: false,
            success: vec![(200, "This document", Body::Json(schema::<serde_json::Map<String, serde_json::Value>>))],
            ..Operation::new(Verb::Get, "/v1/openapi.json", "openapi", "The OpenAPI 3.1 document", service::openapi)
        },
        Operation {
            version: VersionHeader::Ignored,
            auth: false,
            success: vec![(200, "HTML page rendering this API's OpenAPI document (works offline)", Body::Html)],
            ..Operation::new(Verb::Get, "/v1/docs", "docs", "API documentation page", service::docs)
        },
    ];
    ops.extend(verify::operations());
    ops.extend(research::operations());
    ops.extend(watch::operations());
    ops
}
