//! The `X-API-Version` header of seed 001: required on the data routes,
//! echoed on their responses; a missing or unknown version is refused with
//! the list of supported ones.

use axum::extract::Request;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

/// The header name.
pub const HEADER: &str = "x-api-version";
/// The current API version.
pub const CURRENT: &str = "2025-10-15";
/// Every version this server speaks.
pub const SUPPORTED_VERSIONS: &[&str] = &[CURRENT];

/// Middleware: check the version, echo it on the response.
pub async fn require(req: Request, next: Next) -> Response {
    let version = match req.headers().get(HEADER) {
        None => {
            return ApiError::version(
                "missing_api_version",
                format!(
                    "send the `X-API-Version` header; supported versions: {}",
                    SUPPORTED_VERSIONS.join(", ")
                ),
            )
            .into_response()
        }
        Some(v) => match v.to_str().ok().map(str::trim) {
            Some(v) if SUPPORTED_VERSIONS.contains(&v) => HeaderValue::from_str(v).ok(),
            _ => {
                let shown = String::from_utf8_lossy(v.as_bytes())
                    .chars()
                    .take(40)
                    .collect::<String>();
                return ApiError::version(
                    "unsupported_api_version",
                    format!(
                        "X-API-Version `{shown}` is not supported; supported versions: {}",
                        SUPPORTED_VERSIONS.join(", ")
                    ),
                )
                .into_response();
            }
        },
    };
    let mut resp = next.run(req).await;
    if let Some(v) = version {
        resp.headers_mut().insert(HEADER, v);
    }
    resp
}

/// `X-API-Version` checked only when sent (the MnemoLite routes: its clients
/// send none).
pub async fn require_if_sent(req: Request, next: Next) -> Response {
    if req.headers().contains_key(HEADER) {
        require(req, next).await
    } else {
        next.run(req).await
    }
}
