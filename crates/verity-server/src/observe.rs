//! Per-request observability: a request id (`x-request-id`, taken from the
//! client when sane, generated otherwise, echoed), a tracing span carrying it,
//! request counts and latency histograms per route, and one access log line.
//! Also turns any bare error response produced by a layer (404, 405, 408,
//! 413, …) into the JSON error body, so every rejection has the same shape.

use std::time::Instant;

use axum::extract::{MatchedPath, Request};
use axum::http::{header, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tracing::Instrument;

use crate::error::ApiError;

/// The request id header.
pub const REQUEST_ID: &str = "x-request-id";

fn sane(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b))
}

/// Middleware (outermost): id, span, metrics, access log, JSON error bodies.
pub async fn observe(req: Request, next: Next) -> Response {
    let started = Instant::now();
    let id = req
        .headers()
        .get(REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|v| sane(v))
        .map(str::to_string)
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let method = req.method().as_str().to_string();
    let path = req.uri().path().to_string();
    // Routing ran before this layer: the template is known even when an
    // inner layer answers on the route's behalf (504 from the timeout).
    let matched = req.extensions().get::<MatchedPath>().cloned();
    let span = tracing::info_span!("request", request_id = %id, method = %method, path = %path);
    let mut resp = next.run(req).instrument(span.clone()).await;

    if resp.status().as_u16() >= 400 && !is_json(&resp) {
        let status = resp.status();
        let kept: Vec<_> = [header::ALLOW, header::RETRY_AFTER, header::WWW_AUTHENTICATE]
            .into_iter()
            .filter_map(|h| resp.headers().get(&h).cloned().map(|v| (h, v)))
            .collect();
        // A layer's own short plain-text reason (the MCP transport's "Session
        // ID is required") is kept as the message.
        let plain = status.is_client_error()
            && resp
                .headers()
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .is_none_or(|v| v.starts_with("text/plain"));
        let reason = if plain {
            axum::body::to_bytes(std::mem::take(resp.body_mut()), 1024)
                .await
                .ok()
                .and_then(|b| String::from_utf8(b.to_vec()).ok())
                .filter(|t| !t.trim().is_empty())
        } else {
            None
        };
        let _enter = span.enter();
        let mut error = ApiError::from_status(status);
        if let Some(r) = reason {
            error.body.message = r.trim().to_string();
        }
        resp = error.into_response();
        for (h, v) in kept {
            resp.headers_mut().insert(h, v);
        }
    }
    // The route template, when the router matched one (set by the inner layers).
    let route = matched
        .as_ref()
        .or_else(|| resp.extensions().get::<MatchedPath>())
        .map(|m| m.as_str().to_string())
        .unwrap_or_else(|| "unmatched".into());
    let status = resp.status().as_u16();
    let secs = started.elapsed().as_secs_f64();
    metrics::counter!("http_requests_total", "method" => method.clone(), "route" => route.clone(), "status" => status.to_string()).increment(1);
    metrics::histogram!("http_request_duration_seconds", "method" => method.clone(), "route" => route.clone()).record(secs);
    if let Ok(v) = HeaderValue::from_str(&id) {
        resp.headers_mut().insert(REQUEST_ID, v);
    }
    span.in_scope(|| {
        tracing::info!(status, route = %route, latency_ms = secs * 1e3, "request done");
    });
    resp
}

fn is_json(resp: &Response) -> bool {
    resp.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.starts_with("application/json") || v.starts_with("application/problem+json")
        })
}

/// Inner middleware: copy the matched route onto the response so the outer
/// layer can label its metrics with the route template, not the raw path.
pub async fn tag_route(req: Request, next: Next) -> Response {
    let matched = req.extensions().get::<MatchedPath>().cloned();
    let mut resp = next.run(req).await;
    if let Some(m) = matched {
        resp.extensions_mut().insert(m);
    }
    resp
}
