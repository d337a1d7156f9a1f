//! The REST routes of seed 000 (`/api/…`, for n8n): each one calls a tool
//! of the one registry (`verity::tools`), so REST and MCP run the same
//! code. They need the server's auth but no `X-API-Version` header (n8n's
//! HTTP nodes do not send one). `POST /api/tools/{name}` calls any tool.

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use verity::api::watch;

use crate::error::{ApiError, ApiResult};
use crate::extract::{ApiJson, ApiPath};
use crate::openapi::{query_params, schema, Body, Operation, Verb, VersionHeader};
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

/// `POST` route → tool, the body as the tool's arguments.
async fn post_tool(s: AppState, tool: &'static str, args: Value) -> ApiResult<Response> {
    call(&s, tool, args).await
}

/// `POST /api/tools/{name}`: any tool of the registry.
async fn any_tool(
    State(s): State<AppState>,
    ApiPath(name): ApiPath<String>,
    ApiJson(args): ApiJson<Value>,
) -> ApiResult<Response> {
    call(&s, &name, args).await
}

/// An `/api` operation that runs registry tool `tool` on the JSON body.
fn tool_post(path: &'static str, tool: &'static str, summary: &'static str) -> Operation {
    let handler =
        move |State(s): State<AppState>, ApiJson(args): ApiJson<Value>| post_tool(s, tool, args);
    Operation {
        tool: Some(tool),
        ..api_op(Operation::new(Verb::Post, path, tool, summary, handler))
    }
}

/// An `/api` `GET` operation that runs registry tool `tool` on the query
/// string, read as the tool's request type `T` (so `days=7` is a number).
fn tool_get<T>(
    path: &'static str,
    id: &'static str,
    tool: &'static str,
    summary: &'static str,
) -> Operation
where
    T: DeserializeOwned + Serialize + JsonSchema + Send + 'static,
{
    let handler = move |State(s): State<AppState>, q: Result<Query<T>, QueryRejection>| async move {
        call(&s, tool, query_args(q)?).await
    };
    Operation {
        tool: Some(tool),
        query: Some(query_params::<T>),
        ..api_op(Operation::new(Verb::Get, path, id, summary, handler))
    }
}

/// The `/api` defaults: no `X-API-Version` (n8n sends none), the tool errors.
fn api_op(op: Operation) -> Operation {
    Operation {
        version: VersionHeader::Ignored,
        errors: &[404, 422, 502, 503],
        ..op
    }
}

/// The `/api` operations: each runs the registry tool it names.
pub fn operations() -> Vec<Operation> {
    vec![
        Operation {
            success: vec![(200, "Active rules and the scoring guide", Body::Json(schema::<watch::RulesResponse>))],
            ..tool_get::<watch::GetRulesRequest>("/api/veille/rules", "get_veille_rules", "get_veille_rules", "Relevance rules (tool get_veille_rules)")
        },
        Operation {
            request: Some(schema::<watch::RuleUpdate>),
            success: vec![(200, "The rule as stored", Body::Json(schema::<watch::UpdateRuleResponse>))],
            ..tool_post("/api/veille/rules", "update_veille_rule", "Create or replace a rule by name (tool update_veille_rule)")
        },
        Operation {
            request: Some(schema::<watch::CheckArticleRequest>),
            success: vec![(200, "Whether the article (URL or content) was already processed", Body::Json(schema::<watch::CheckArticleResponse>))],
            ..tool_post("/api/veille/check", "check_article_exists", "Duplicate check (tool check_article_exists)")
        },
        Operation {
            request: Some(schema::<watch::ScoreRequest>),
            success: vec![(200, "Score with the matched rules and words", Body::Json(schema::<watch::ScoreResult>))],
            ..tool_post("/api/veille/score", "score_article", "Deterministic, explained score (tool score_article)")
        },
        Operation {
            success: vec![(200, "Recent articles, newest first", Body::Json(schema::<watch::ArticlesResponse>))],
            ..tool_get::<watch::GetArticlesRequest>("/api/veille/articles", "get_articles", "get_articles", "Recent articles (tool get_articles)")
        },
        Operation {
            request: Some(schema::<watch::LogArticleRequest>),
            success: vec![(200, "Logged (idempotent)", Body::Json(schema::<watch::LogArticleResponse>))],
            ..tool_post("/api/veille/articles", "log_article", "Log an analysed article (tool log_article)")
        },
        Operation {
            success: vec![(200, "Decisions, oldest first", Body::Json(schema::<watch::WatchDecisionsResponse>))],
            ..tool_get::<watch::GetWatchDecisionsRequest>("/api/veille/decisions", "get_veille_decisions", "get_veille_decisions", "The decision audit log (tool get_veille_decisions)")
        },
        Operation {
            request: Some(schema::<watch::LogDecisionRequest>),
            success: vec![(200, "Logged", Body::Json(schema::<watch::LogDecisionResponse>))],
            ..tool_post("/api/veille/decisions", "log_veille_decision", "Log a decision for the audit (tool log_veille_decision)")
        },
        Operation {
            request: Some(schema::<watch::WebSearchRequest>),
            success: vec![(200, "Title, URL, snippet and source of each result", Body::Json(schema::<watch::WebSearchResponse>))],
            ..tool_post("/api/search", "web_search", "Web search through SearXNG (tool web_search)")
        },
        Operation {
            request: Some(schema::<watch::CrawlRequest>),
            success: vec![(200, "Main content of the page", Body::Json(schema::<watch::CrawlResponse>))],
            ..tool_post("/api/crawl", "crawl_url", "Fetch and extract a page (tool crawl_url)")
        },
        Operation {
            request: Some(schema::<watch::VerifyFactRequest>),
            success: vec![(200, "Verdict with verbatim excerpts", Body::Json(schema::<watch::VerifyFactResponse>))],
            ..tool_post("/api/verify", "verify_fact", "Verify a claim against web sources (tool verify_fact)")
        },
        Operation {
            path_params: &[("name", "Tool name (as listed by MCP tools/list)")],
            request: Some(schema::<serde_json::Map<String, Value>>),
            success: vec![(200, "The tool's structured response", Body::Json(schema::<serde_json::Map<String, Value>>))],
            description: "Calls any tool of the registry with a JSON object of arguments (the tool's input schema), e.g. the AuraCore tools create_project, create_task, get_next_tasks.",
            ..api_op(Operation::new(Verb::Post, "/api/tools/{name}", "call_tool", "Call a tool by name", any_tool))
        },
        Operation {
            auth: false,
            errors: &[],
            success: vec![
                (200, "`healthy`: every configured service answers", Body::Json(schema::<verity::api::health::HealthResponse>)),
                (503, "`degraded`: a service fails", Body::Json(schema::<verity::api::health::HealthResponse>)),
            ],
            ..api_op(Operation::new(Verb::Get, "/api/health", "api_health", "Health check (same as /v1/health)", super::service::health))
        },
    ]
}
