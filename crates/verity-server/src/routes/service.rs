//! Health, metrics, the OpenAPI document and the docs page.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::Json;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ApiError;
use crate::server::AppState;

/// Time each health probe may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// State of one service.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ServiceState {
    /// Answering.
    Up,
    /// Failing or unreachable.
    Down,
    /// Not configured (e.g. lexical-only: no embedder), which is not a failure.
    NotConfigured,
}

/// Health of one service.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServiceHealth {
    /// State.
    pub status: ServiceState,
    /// What it is (model, backend) or why it is down.
    pub detail: String,
    /// Time the probe took, in milliseconds.
    pub latency_ms: f64,
}

/// `GET /v1/health`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HealthResponse {
    /// `ok` when every configured service is up, else `degraded`.
    pub status: String,
    /// Per service: `store`, `redis` (when used), `embedder`, `memory`
    /// (the event store), `generator`.
    pub services: BTreeMap<String, ServiceHealth>,
}

async fn probe<F, T>(f: F) -> (Result<T, String>, f64)
where
    F: std::future::Future<Output = verity::Result<T>>,
{
    let t = Instant::now();
    let r = match tokio::time::timeout(PROBE_TIMEOUT, f).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err(format!("no answer within {PROBE_TIMEOUT:?}")),
    };
    (r, t.elapsed().as_secs_f64() * 1e3)
}

fn health_of<T>(r: Result<T, String>, ms: f64, up: impl FnOnce(T) -> String) -> ServiceHealth {
    match r {
        Ok(v) => ServiceHealth {
            status: ServiceState::Up,
            detail: up(v),
            latency_ms: ms,
        },
        Err(e) => ServiceHealth {
            status: ServiceState::Down,
            detail: e,
            latency_ms: ms,
        },
    }
}

/// `GET /v1/health`: 200 when healthy, 503 when degraded.
pub async fn health(State(s): State<AppState>) -> Response {
    let v = &s.verity;
    let mut services = BTreeMap::new();
    let (stats, ms) = probe(v.stats()).await;
    let redis = stats.as_ref().ok().and_then(|st| st.redis.clone());
    let store = health_of(stats, ms, |st| {
        format!(
            "{} documents, {} chunks",
            st.store.documents, st.store.chunks
        )
    });
    if let Some(url) = redis {
        services.insert(
            "redis".into(),
            ServiceHealth {
                detail: url,
                ..store.clone()
            },
        );
    }
    services.insert("store".into(), store);
    let embedder = match v.embedder() {
        None => ServiceHealth {
            status: ServiceState::NotConfigured,
            detail: "lexical-only: no embedder".into(),
            latency_ms: 0.0,
        },
        Some(e) => {
            let id = e.id().to_string();
            let (r, ms) = probe(e.embed_query("health check")).await;
            health_of(r, ms, |_| id)
        }
    };
    services.insert("embedder".into(), embedder);
    let (r, ms) = probe(v.memory_health()).await;
    services.insert("memory".into(), health_of(r, ms, |detail| detail));
    let (r, ms) = probe(v.generator_health()).await;
    services.insert("generator".into(), health_of(r, ms, |model| model));
    let healthy = services.values().all(|h| h.status != ServiceState::Down);
    let body = HealthResponse {
        status: if healthy { "ok" } else { "degraded" }.into(),
        services,
    };
    let code = if healthy {
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
