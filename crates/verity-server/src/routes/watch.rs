//! The REST routes of seed 000 (`/api/…`, for n8n): each one calls a tool
//! of the one registry (`verity::tools`), so REST and MCP run the same
//! code. They need the server's auth but no `X-API-Version` header (n8n's
//! HTTP nodes do not send one). `POST /api/tools/{name}` calls any tool.

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use verity::watch;

use crate::error::{ApiError, ApiResult};
use crate::extract::{ApiJson, ApiPath};
use crate::openapi::{query_params, schema, Body, Operation};
use crate::server::AppState;

/// Run tool `name` of the server's registry (the one the MCP endpoint
/// serves, with the server's roots) and answer its structured response.
/// Errors, `unknown_tool` and `invalid_arguments` included, take their
/// status from the error table.
async fn call(s: &AppState, name: &str, args: Value) -> ApiResult<Response> {
    let out = s.tools.call(&s.verity, name, args).await?;
    Ok(Json(out.structured).into_response())
}

/// Query string → the tool's request type (so `days=7` reads as a number) → JSON.
#[allow(clippy::result_large_err)] // `ApiError` is the server's one error type
fn query_args<T: DeserializeOwned + Serialize>(
    q: Result<Query<T>, QueryRejection>,
) -> ApiResult<Value> {
    let Query(req) =
        q.map_err(|e| ApiError::invalid(format!("bad query string: {}", e.body_text())))?;
    serde_json::to_value(req).map_err(|e| ApiError::invalid(e.to_string()))
}

async fn get_rules(
    State(s): State<AppState>,
    q: Result<Query<watch::GetRulesRequest>, QueryRejection>,
) -> ApiResult<Response> {
    call(&s, "get_veille_rules", query_args(q)?).await
}

async fn get_articles(
    State(s): State<AppState>,
    q: Result<Query<watch::GetArticlesRequest>, QueryRejection>,
) -> ApiResult<Response> {
    call(&s, "get_articles", query_args(q)?).await
}

async fn get_decisions(
    State(s): State<AppState>,
    q: Result<Query<watch::GetWatchDecisionsRequest>, QueryRejection>,
) -> ApiResult<Response> {
    call(&s, "get_veille_decisions", query_args(q)?).await
}

/// `POST` route → tool.
macro_rules! posts {
    ($($f:ident => $tool:literal),* $(,)?) => {$(
        async fn $f(State(s): State<AppState>, ApiJson(args): ApiJson<Value>) -> ApiResult<Response> {
            call(&s, $tool, args).await
        }
    )*};
}

posts!(
    update_rule => "update_veille_rule",
    check => "check_article_exists",
    log_article => "log_article",
    log_decision => "log_veille_decision",
    score => "score_article",
    search => "web_search",
    crawl => "crawl_url",
    verify => "verify_fact",
);

async fn any_tool(
    State(s): State<AppState>,
    ApiPath(name): ApiPath<String>,
    ApiJson(args): ApiJson<Value>,
) -> ApiResult<Response> {
    call(&s, &name, args).await
}

/// The `/api` routes behind the server's auth.
pub fn protected() -> Router<AppState> {
    Router::new()
        .route("/api/veille/rules", get(get_rules).post(update_rule))
        .route("/api/veille/check", post(check))
        .route("/api/veille/score", post(score))
        .route("/api/veille/articles", get(get_articles).post(log_article))
        .route(
            "/api/veille/decisions",
            get(get_decisions).post(log_decision),
        )
        .route("/api/search", post(search))
        .route("/api/crawl", post(crawl))
        .route("/api/verify", post(verify))
        .route("/api/tools/{name}", post(any_tool))
}

/// `GET /api/health` (public, like `/v1/health`).
pub fn public() -> Router<AppState> {
    Router::new().route("/api/health", get(super::service::health))
}

/// The `/api` operations of the OpenAPI document.
pub fn operations() -> Vec<Operation> {
    let op = |method, path, id, summary| Operation {
        method,
        path,
        id,
        summary,
        description: "",
        versioned: false,
        auth: true,
        path_params: &[],
        query: None,
        request: None,
        success: Vec::new(),
        errors: &[404, 422, 502, 503],
    };
    vec![
        Operation {
            success: vec![(200, "Active rules and the scoring guide", Body::Json(schema::<watch::RulesResponse>))],
            query: Some(query_params::<watch::GetRulesRequest>),
            ..op("get", "/api/veille/rules", "get_veille_rules", "Relevance rules (tool get_veille_rules)")
        },
        Operation {
            request: Some(schema::<verity::core::RuleUpdate>),
            success: vec![(200, "The rule as stored", Body::Json(schema::<watch::UpdateRuleResponse>))],
            ..op("post", "/api/veille/rules", "update_veille_rule", "Create or replace a rule by name (tool update_veille_rule)")
        },
        Operation {
            request: Some(schema::<watch::CheckArticleRequest>),
            success: vec![(200, "Whether the article (URL or content) was already processed", Body::Json(schema::<watch::CheckArticleResponse>))],
            ..op("post", "/api/veille/check", "check_article_exists", "Duplicate check (tool check_article_exists)")
        },
        Operation {
            request: Some(schema::<watch::ScoreRequest>),
            success: vec![(200, "Score with the matched rules and words", Body::Json(schema::<watch::ScoreResult>))],
            ..op("post", "/api/veille/score", "score_article", "Deterministic, explained score (tool score_article)")
        },
        Operation {
            success: vec![(200, "Recent articles, newest first", Body::Json(schema::<watch::ArticlesResponse>))],
            query: Some(query_params::<watch::GetArticlesRequest>),
            ..op("get", "/api/veille/articles", "get_articles", "Recent articles (tool get_articles)")
        },
        Operation {
            request: Some(schema::<watch::LogArticleRequest>),
            success: vec![(200, "Logged (idempotent)", Body::Json(schema::<watch::LogArticleResponse>))],
            ..op("post", "/api/veille/articles", "log_article", "Log an analysed article (tool log_article)")
        },
        Operation {
            success: vec![(200, "Decisions, oldest first", Body::Json(schema::<watch::WatchDecisionsResponse>))],
            query: Some(query_params::<watch::GetWatchDecisionsRequest>),
            ..op("get", "/api/veille/decisions", "get_veille_decisions", "The decision audit log (tool get_veille_decisions)")
        },
        Operation {
            request: Some(schema::<watch::LogDecisionRequest>),
            success: vec![(200, "Logged", Body::Json(schema::<watch::LogDecisionResponse>))],
            ..op("post", "/api/veille/decisions", "log_veille_decision", "Log a decision for the audit (tool log_veille_decision)")
        },
        Operation {
            request: Some(schema::<watch::WebSearchRequest>),
            success: vec![(200, "Title, URL, snippet and source of each result", Body::Json(schema::<watch::WebSearchResponse>))],
            ..op("post", "/api/search", "web_search", "Web search through SearXNG (tool web_search)")
        },
        Operation {
            request: Some(schema::<watch::CrawlRequest>),
            success: vec![(200, "Main content of the page", Body::Json(schema::<watch::CrawlResponse>))],
            ..op("post", "/api/crawl", "crawl_url", "Fetch and extract a page (tool crawl_url)")
        },
        Operation {
            request: Some(schema::<watch::VerifyFactRequest>),
            success: vec![(200, "Verdict with verbatim excerpts", Body::Json(schema::<watch::VerifyFactResponse>))],
            ..op("post", "/api/verify", "verify_fact", "Verify a claim against web sources (tool verify_fact)")
        },
        Operation {
            path_params: &[("name", "Tool name (as listed by MCP tools/list)")],
            request: Some(schema::<serde_json::Map<String, Value>>),
            success: vec![(200, "The tool's structured response", Body::Json(schema::<serde_json::Map<String, Value>>))],
            description: "Calls any tool of the registry with a JSON object of arguments (the tool's input schema), e.g. the AuraCore tools create_project, create_task, get_next_tasks.",
            ..op("post", "/api/tools/{name}", "call_tool", "Call a tool by name")
        },
        Operation {
            auth: false,
            errors: &[],
            success: vec![
                (200, "`healthy`: every configured service answers", Body::Json(schema::<verity::api::health::HealthResponse>)),
                (503, "`degraded`: a service fails", Body::Json(schema::<verity::api::health::HealthResponse>)),
            ],
            ..op("get", "/api/health", "api_health", "Health check (same as /v1/health)")
        },
    ]
}
