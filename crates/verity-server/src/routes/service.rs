//! Health, metrics, the OpenAPI document and the docs page.

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::Json;

use crate::error::ApiError;
use crate::server::AppState;

/// `GET /v1/health`: 200 when healthy, 503 when degraded (the facade's
/// per-service probes, [`verity::Verity::health`]).
pub async fn health(State(s): State<AppState>) -> Response {
    let body = s.verity.health().await;
    let code = if body.is_healthy() {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (code, Json(body)).into_response()
}

/// `GET /v1/metrics`: Prometheus text format.
pub async fn metrics(State(s): State<AppState>) -> Response {
    match &s.metrics {
        Some(h) => (
            [(
                header::CONTENT_TYPE,
                "text/plain; version=0.0.4; charset=utf-8",
            )],
            h.render(),
        )
            .into_response(),
        None => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "metrics are disabled: another metrics recorder was installed by the embedding program",
        )
        .into_response(),
    }
}

/// `GET /v1/openapi.json`.
pub async fn openapi(State(s): State<AppState>) -> Response {
    Json(s.openapi.as_ref().clone()).into_response()
}

/// `GET /v1/docs`: a self-contained page rendering the OpenAPI document.
pub async fn docs() -> Html<&'static str> {
    Html(include_str!("../../assets/docs.html"))
}
