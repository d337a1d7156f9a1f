//! The routes: which exist, their OpenAPI description, and the two routers
//! (public: health, OpenAPI, docs; protected: the data routes and metrics).

mod data;
pub mod events;
mod research;
mod service;
mod verify;
mod watch;

use axum::routing::{get, post};
use axum::Router;
use verity::api;

use crate::jobs::JobStatus;
use crate::openapi::{query_params, schema, Body, Operation};
use crate::server::AppState;

/// Routes anyone may call (probes, documentation).
pub fn public(state: AppState) -> Router {
    Router::new()
        .route("/v1/health", get(service::health))
        .route("/v1/openapi.json", get(service::openapi))
        .route("/v1/docs", get(service::docs))
        .route("/", get(verify::page))
        .merge(watch::public())
        .with_state(state)
}

/// Routes behind authentication; the data routes also need `X-API-Version`.
pub fn protected(state: AppState) -> Router {
    let versioned = Router::new()
        .route("/v1/ingest", post(data::ingest))
        .route("/v1/jobs/{id}", get(data::job))
        .route("/v1/embed", post(data::embed))
        .route("/v1/retrieve", post(data::retrieve))
        .route("/v1/generate", post(data::generate))
        .route("/v1/rag", post(data::rag))
        .route(
            "/v1/documents/{uid}",
            get(data::get_document).delete(data::delete_document),
        )
        .route("/v1/stats", get(data::stats))
        .route("/v1/verify", post(verify::verify))
        .route("/v1/research", post(research::research))
        .route_layer(axum::middleware::from_fn(crate::version::require));
    Router::new()
        .merge(versioned)
        .route("/verify", post(verify::verify))
        .merge(events::router())
        .merge(watch::protected())
        .route("/v1/metrics", get(service::metrics))
        .with_state(state)
}

/// Every documented operation (the OpenAPI document is generated from this).
pub fn operations() -> Vec<Operation> {
    let data = |method, path, id, summary, description| Operation {
        method,
        path,
        id,
        summary,
        description,
        versioned: true,
        auth: true,
        path_params: &[],
        request: None,
        query: None,
        success: Vec::new(),
        errors: &[],
    };
    let mut ops = vec![
        Operation {
            request: Some(schema::<api::IngestRequest>),
            success: vec![
                (200, "Small batch ingested", Body::Json(schema::<api::IngestOutcome>)),
                (202, "Large batch accepted as a job; poll `Location` (`/v1/jobs/{id}`)", Body::Json(schema::<JobStatus>)),
            ],
            errors: &[404, 409, 502, 503],
            ..data(
                "post",
                "/v1/ingest",
                "ingest",
                "Ingest documents (inline, or files under the server's roots, or URLs)",
                "Batches of at most `sync_ingest_max` inline documents (default 100) are ingested before answering 200; larger ones, and any batch naming paths, answer 202 with a job. Unchanged documents are skipped; replaced ones bust the caches that depended on them.",
            )
        },
        Operation {
            path_params: &[("id", "Job id returned by `POST /v1/ingest` or `POST /v1/research`")],
            success: vec![(200, "Job progress or result", Body::Json(schema::<JobStatus>))],
            errors: &[404],
            ..data("get", "/v1/jobs/{id}", "get_job", "Progress of an ingest or research job", "")
        },
        Operation {
            request: Some(schema::<api::EmbedRequest>),
            success: vec![(200, "One vector per text", Body::Json(schema::<api::EmbedResponse>))],
            errors: &[409, 502, 503],
            ..data("post", "/v1/embed", "embed", "Embed texts with the configured embedder", "`model` and `embed_version`, when given, must match the embedder's: vectors from two embedding spaces are never mixed.")
        },
        Operation {
            request: Some(schema::<api::SearchRequest>),
            success: vec![(200, "Hits best first, with `uids`, `scores` and `sources`", Body::Json(schema::<api::RetrieveResponse>))],
            errors: &[409, 502, 503],
            ..data("post", "/v1/retrieve", "retrieve", "Retrieve the passages that answer a query", "Lexical, dense or hybrid; re-ranked by similarity and freshness; `not_enough_evidence` when the best relevance is under the guardrail. Works while the generator is down.")
        },
        Operation {
            request: Some(schema::<api::GenerateRequest>),
            success: vec![(200, "Answer from the given context, with citations", Body::Json(schema::<api::GenerateResponse>))],
            errors: &[502, 503, 504],
            ..data("post", "/v1/generate", "generate", "Answer a question from given context chunks", "No retrieval: the answer cites only the chunks sent. 503 when the generator is unavailable.")
        },
        Operation {
            request: Some(schema::<api::AskRequest>),
            success: vec![(200, "Grounded answer (JSON), or a Server-Sent Events stream when `Accept: text/event-stream`", Body::JsonOrSse(schema::<api::AskResponse>))],
            errors: &[409, 502, 503, 504],
            ..data("post", "/v1/rag", "rag", "Retrieve, then answer with citations", "The whole pipeline: retrieve, re-rank, guardrail, generate with citations. 503 when the generator is unavailable (retrieval keeps working at /v1/retrieve).")
        },
        Operation {
            path_params: &[("uid", "Document uid")],
            success: vec![(200, "The document", Body::Json(schema::<verity::Document>))],
            errors: &[404],
            ..data("get", "/v1/documents/{uid}", "get_document", "One document by uid", "")
        },
        Operation {
            path_params: &[("uid", "Document uid")],
            success: vec![(200, "Deleted", Body::Json(schema::<api::DeleteResponse>))],
            errors: &[404],
            ..data("delete", "/v1/documents/{uid}", "delete_document", "Delete a document (and the cached answers that cited it)", "")
        },
        Operation {
            success: vec![(200, "Store counts and configuration", Body::Json(schema::<api::StatsResponse>))],
            ..data("get", "/v1/stats", "stats", "What the store holds", "")
        },
        // Event memory (MnemoLite-compatible; `X-API-Version` optional): routes/events.rs.
        Operation {
            versioned: false,
            request: Some(schema::<api::memory::NewEvent>),
            success: vec![(201, "Event stored (`X-Verity-Note` says when it has no vector)", Body::Json(schema::<api::memory::Event>))],
            errors: &[503],
            ..data("post", "/v1/events", "ingest_event", "Write an event (MnemoLite)", "The content's text field (`text`, `body`, `message`, `content`, `title`) is embedded unless `embedding` is given (dimension and NaN checked); `timestamp` defaults to now. Validation errors are 422 with FastAPI's `detail: [{loc, msg, type}]`. Also at `/v1/events/`.")
        },
        Operation {
            versioned: false,
            path_params: &[("id", "Event id (UUID)")],
            success: vec![(200, "The event", Body::Json(schema::<api::memory::Event>))],
            errors: &[404, 422],
            ..data("get", "/v1/events/{id}", "get_event", "One event (MnemoLite)", "404 when unknown or expired, 422 when the id is not a UUID.")
        },
        Operation {
            versioned: false,
            path_params: &[("id", "Event id (UUID)")],
            success: vec![(204, "Deleted", Body::Empty)],
            errors: &[404, 422],
            ..data("delete", "/v1/events/{id}", "delete_event", "Delete an event (MnemoLite)", "")
        },
        Operation {
            versioned: false,
            path_params: &[("id", "Event id (UUID)")],
            request: Some(schema::<serde_json::Map<String, serde_json::Value>>),
            success: vec![(200, "The updated event", Body::Json(schema::<api::memory::Event>))],
            errors: &[404, 422],
            ..data("patch", "/v1/events/{id}/metadata", "update_event_metadata", "Merge metadata into an event (MnemoLite)", "Keys of the body are added or replaced; other keys are kept.")
        },
        Operation {
            versioned: false,
            query: Some(query_params::<api::memory::EventQueryParams>),
            success: vec![(200, "Events best first (or newest first without `vector_query`)", Body::Json(schema::<api::memory::EventSearchResponse>))],
            errors: &[422, 503],
            ..data("get", "/v1/search/", "search_events", "Search events (MnemoLite)", "Vector (text or JSON vector), metadata containment and time window; `mode` adds lexical, hybrid and metadata-only. Answers `{data, meta: {total_hits, limit, offset}}`. Also at `/v1/search`.")
        },
        Operation {
            versioned: false,
            success: vec![(200, "Prometheus text exposition", Body::Text)],
            ..data("get", "/v1/metrics", "metrics", "Prometheus metrics", "RAG series (rag_retrieval_latency_ms, rag_topk_score_max, rag_topk_score_mean, cache_hit_ratio, timeout_rate, answer_hallucination_flag) and http_requests_total / http_request_duration_seconds per route.")
        },
        Operation {
            versioned: false,
            auth: false,
            success: vec![
                (200, "`healthy`: every configured service answers", Body::Json(schema::<api::health::HealthResponse>)),
                (503, "`degraded`: a service fails (its entry says why)", Body::Json(schema::<api::health::HealthResponse>)),
            ],
            ..data("get", "/v1/health", "health", "Per-service health", "Store (and Redis when used), embedder, event memory, generator; each with `status` (`ok`, `error`, `not_configured`) and `latency_ms`.")
        },
        Operation {
            versioned: false,
            auth: false,
            success: vec![(200, "This document", Body::Json(schema::<serde_json::Map<String, serde_json::Value>>))],
            ..data("get", "/v1/openapi.json", "openapi", "The OpenAPI 3.1 document", "")
        },
        Operation {
            versioned: false,
            auth: false,
            success: vec![(200, "HTML page rendering this API's OpenAPI document (works offline)", Body::Html)],
            ..data("get", "/v1/docs", "docs", "API documentation page", "")
        },
    ];
    ops.extend(verify::operations());
    ops.extend(research::operations());
    ops.extend(watch::operations());
    ops
}
