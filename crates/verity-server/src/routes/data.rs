//! The data routes of seed 001. Each handler: `verity::api` request →
//! facade call → `verity::api` response; errors through the facade's table.

use std::convert::Infallible;

use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use futures::StreamExt;
use verity::api;

use crate::error::{ApiError, ApiResult};
use crate::extract::{ApiJson, ApiPath};
use crate::server::AppState;

/// `POST /v1/ingest`.
pub async fn ingest(
    State(s): State<AppState>,
    ApiJson(mut req): ApiJson<api::IngestRequest>,
) -> ApiResult<Response> {
    // Client-named files are read only under the configured roots; URLs go
    // to the facade's fetcher and its SSRF guard. Confinement refuses a
    // request naming nothing (the library's rule, for every host).
    let refused = s.roots.confine(&mut req)?;
    if req.paths.is_empty() && req.documents.len() <= s.config.sync_ingest_max {
        let mut outcome = s
            .verity
            .ingest_within(req, s.roots.roots(), &|_| {})
            .await?;
        outcome.read_errors.extend(refused);
        return Ok(Json(outcome).into_response());
    }
    let status = s
        .jobs
        .submit(s.verity.clone(), req, refused, s.roots.roots().to_vec())?;
    let location = format!("/v1/jobs/{}", status.id);
    let mut resp = (StatusCode::ACCEPTED, Json(status)).into_response();
    if let Ok(v) = HeaderValue::from_str(&location) {
        resp.headers_mut().insert(header::LOCATION, v);
    }
    Ok(resp)
}

/// `GET /v1/jobs/{id}`.
pub async fn job(State(s): State<AppState>, ApiPath(id): ApiPath<String>) -> ApiResult<Response> {
    match s.jobs.get(&id) {
        Some(status) => Ok(Json(status).into_response()),
        None => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!(
                "no job `{}` (finished jobs are kept for a while, then forgotten)",
                id.chars().take(80).collect::<String>()
            ),
        )),
    }
}

/// `POST /v1/embed`.
pub async fn embed(
    State(s): State<AppState>,
    ApiJson(req): ApiJson<api::EmbedRequest>,
) -> ApiResult<Json<api::EmbedResponse>> {
    Ok(Json(s.verity.embed(&req).await?))
}

/// `POST /v1/retrieve`.
pub async fn retrieve(
    State(s): State<AppState>,
    ApiJson(req): ApiJson<api::SearchRequest>,
) -> ApiResult<Json<api::RetrieveResponse>> {
    let results = s.verity.search(&req).await?;
    Ok(Json(api::RetrieveResponse::from(results)))
}

/// `POST /v1/generate`.
pub async fn generate(
    State(s): State<AppState>,
    ApiJson(req): ApiJson<api::GenerateRequest>,
) -> ApiResult<Json<api::GenerateResponse>> {
    Ok(Json(s.verity.generate(&req).await?))
}

/// `POST /v1/rag`: JSON, or Server-Sent Events when the client accepts them
/// (`delta` events, then one `done` event with the answer, or `error`).
pub async fn rag(
    State(s): State<AppState>,
    headers: HeaderMap,
    ApiJson(req): ApiJson<api::AskRequest>,
) -> ApiResult<Response> {
    let wants_sse = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.contains("text/event-stream"));
    if !wants_sse {
        return Ok(Json(s.verity.ask(&req).await?).into_response());
    }
    // Errors before the first byte (bad input, generator down) are plain JSON errors.
    let stream = s.verity.ask_stream(&req).await?;
    let events = stream.map(|ev| {
        let event = match ev {
            Ok(verity::RagEvent::Delta(d)) => Event::default().event("delta").data(d),
            Ok(verity::RagEvent::Done(a)) => Event::default()
                .event("done")
                .json_data(&*a)
                .unwrap_or_else(|_| {
                    Event::default()
                        .event("error")
                        .data("cannot encode the answer")
                }),
            Err(e) => Event::default()
                .event("error")
                .json_data(ApiError::from(e).body)
                .unwrap_or_else(|_| Event::default().event("error").data("error")),
        };
        Ok::<_, Infallible>(event)
    });
    Ok(Sse::new(events)
        .keep_alive(KeepAlive::default())
        .into_response())
}

/// `GET /v1/documents/{uid}`.
pub async fn get_document(
    State(s): State<AppState>,
    ApiPath(uid): ApiPath<String>,
) -> ApiResult<Json<verity::Document>> {
    let resp = s
        .verity
        .document(&api::GetDocumentRequest { uid: uid.clone() })
        .await?;
    resp.document.map(Json).ok_or_else(|| not_found(&uid))
}

/// `DELETE /v1/documents/{uid}`.
pub async fn delete_document(
    State(s): State<AppState>,
    ApiPath(uid): ApiPath<String>,
) -> ApiResult<Json<api::DeleteResponse>> {
    let resp = s
        .verity
        .delete(&api::DeleteRequest {
            uids: vec![uid.clone()],
        })
        .await?;
    if resp.deleted == 0 {
        return Err(not_found(&uid));
    }
    Ok(Json(resp))
}

/// `GET /v1/stats`.
pub async fn stats(State(s): State<AppState>) -> ApiResult<Json<api::StatsResponse>> {
    Ok(Json(s.verity.stats().await?))
}

fn not_found(uid: &str) -> ApiError {
    verity::Error::from(verity::core::StoreError::NotFound {
        what: "document",
        id: uid.chars().take(200).collect(),
    })
    .into()
}
