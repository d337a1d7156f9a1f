//! Every failure the server reports, as one JSON shape.
//!
//! Library errors go through the facade's one table
//! ([`verity::api::error::ErrorMapping`]): the server never decides a status
//! of its own for them. The server's own rejections (authentication, rate
//! limit, API version, routing, body size) have their own codes here.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::version::SUPPORTED_VERSIONS;

/// The JSON body of every error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorResponse {
    /// Stable machine-readable code (the library's `Error::code`, or one of
    /// the server's: `unauthorized_client`, `rate_limited`, `payload_too_large`,
    /// `unsupported_media_type`, `missing_api_version`, `unsupported_api_version`,
    /// `route_not_found`, `method_not_allowed`, `request_timeout`, `internal`).
    pub code: String,
    /// What went wrong and what to change.
    pub message: String,
    /// Whether the same request may succeed later.
    pub transient: bool,
    /// API versions this server speaks (version errors only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supported_versions: Option<Vec<String>>,
    /// Seconds to wait before retrying (rate limits only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_secs: Option<u64>,
}

/// An error on its way to becoming a response.
#[derive(Debug, Clone)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// Body.
    pub body: ErrorResponse,
    /// Extra response headers (`WWW-Authenticate`, `Retry-After`, `Allow`).
    pub headers: Vec<(header::HeaderName, HeaderValue)>,
}

impl ApiError {
    /// A server-side rejection with its own code.
    pub fn new(status: StatusCode, code: &str, message: impl Into<String>) -> Self {
        Self {
            status,
            body: ErrorResponse {
                code: code.into(),
                message: message.into(),
                transient: matches!(
                    status,
                    StatusCode::TOO_MANY_REQUESTS
                        | StatusCode::SERVICE_UNAVAILABLE
                        | StatusCode::GATEWAY_TIMEOUT
                        | StatusCode::REQUEST_TIMEOUT
                ),
                supported_versions: None,
                retry_after_secs: None,
            },
            headers: Vec::new(),
        }
    }

    /// 400 `invalid_input`.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "invalid_input", message)
    }

    /// 401 with `WWW-Authenticate: Bearer`.
    pub fn unauthorized(message: impl Into<String>) -> Self {
        let mut e = Self::new(StatusCode::UNAUTHORIZED, "unauthorized_client", message);
        e.headers.push((
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"verity\""),
        ));
        e
    }

    /// 400 naming the supported API versions.
    pub fn version(code: &str, message: impl Into<String>) -> Self {
        let mut e = Self::new(StatusCode::BAD_REQUEST, code, message);
        e.body.supported_versions =
            Some(SUPPORTED_VERSIONS.iter().map(|s| s.to_string()).collect());
        e
    }

    /// 429 with `Retry-After`.
    pub fn rate_limited(wait_secs: u64) -> Self {
        let wait = wait_secs.max(1);
        let mut e = Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            format!("too many requests from this client: retry in {wait} s"),
        );
        e.body.retry_after_secs = Some(wait);
        e.headers
            .push((header::RETRY_AFTER, HeaderValue::from(wait)));
        e
    }

    /// The standard error of a bare status produced by a layer (404, 405, 408, 413, …).
    pub fn from_status(status: StatusCode) -> Self {
        let (code, message) = match status {
            StatusCode::NOT_FOUND => (
                "route_not_found",
                "no such route: see /v1/openapi.json (or /v1/docs) for the routes".to_string(),
            ),
            StatusCode::METHOD_NOT_ALLOWED => (
                "method_not_allowed",
                "method not allowed on this route: the Allow header lists the methods".into(),
            ),
            StatusCode::PAYLOAD_TOO_LARGE => (
                "payload_too_large",
                "request body too large: send smaller batches".into(),
            ),
            StatusCode::REQUEST_TIMEOUT | StatusCode::GATEWAY_TIMEOUT => (
                "request_timeout",
                "the request took longer than the server's request timeout".into(),
            ),
            StatusCode::UNSUPPORTED_MEDIA_TYPE => (
                "unsupported_media_type",
                "send the body as JSON with `Content-Type: application/json`".into(),
            ),
            s if s.is_server_error() => ("internal", format!("server error ({s})")),
            s => ("invalid_input", format!("request refused ({s})")),
        };
        Self::new(status, code, message)
    }
}

/// The error body a client sees: a backend's own words (SQL text, Redis
/// replies, file paths) stay in the server log; clients get what happened,
/// not how the store is built.
pub fn client_body(e: &verity::Error) -> verity::api::ErrorBody {
    let mut body = verity::api::ErrorBody::from(e);
    if body.code == "store_error" {
        tracing::error!(error = %e, "store failure (detail withheld from the client)");
        body.message = "the store failed on this request (the detail is in the server's log, \
                        with the request id)"
            .into();
    }
    body
}

impl From<verity::tools::ToolError> for ApiError {
    /// A tool call's error: its code's row of the table, like any library error.
    fn from(e: verity::tools::ToolError) -> Self {
        Self::from(verity::Error::from(e))
    }
}

impl From<verity::Error> for ApiError {
    fn from(e: verity::Error) -> Self {
        let body = client_body(&e);
        let status = StatusCode::from_u16(body.mapping().http_status)
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        Self {
            status,
            body: ErrorResponse {
                code: body.code,
                message: body.message,
                transient: body.transient,
                supported_versions: None,
                retry_after_secs: None,
            },
            headers: Vec::new(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        // Logged once, here; the request span carries the request id.
        if self.status.is_server_error() {
            tracing::error!(status = self.status.as_u16(), code = %self.body.code, message = %self.body.message, "request failed");
        } else {
            tracing::info!(status = self.status.as_u16(), code = %self.body.code, message = %self.body.message, "request refused");
        }
        let mut resp = (self.status, axum::Json(self.body)).into_response();
        for (k, v) in self.headers {
            resp.headers_mut().insert(k, v);
        }
        resp
    }
}

/// Result of a handler.
pub type ApiResult<T> = Result<T, ApiError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_errors_do_not_leak_backend_text() {
        let e = verity::Error::from(verity::core::StoreError::Backend(
            "sqlite: too many SQL variables in SELECT chunks_fts.rowid, bm25(chunks_fts) FROM …"
                .into(),
        ));
        let api = ApiError::from(e);
        assert_eq!(api.body.code, "store_error");
        assert!(!api.body.message.contains("SELECT"), "{}", api.body.message);
        assert!(!api.body.message.contains("sqlite"), "{}", api.body.message);
    }

    #[test]
    fn tool_errors_take_their_status_from_the_table() {
        use verity::api::ErrorMapping;
        use verity::tools::ToolError;
        let samples = || {
            vec![
                ToolError::UnknownTool {
                    name: "nope".into(),
                    available: "search".into(),
                },
                ToolError::InvalidArguments {
                    tool: "search".into(),
                    message: "query: missing field".into(),
                },
                ToolError::Failed(verity::Error::invalid_input("x")),
                ToolError::Failed(verity::Error::Timeout(std::time::Duration::from_secs(1))),
            ]
        };
        for e in samples() {
            let (code, message, row) = (e.code(), e.to_string(), ErrorMapping::of_tool(&e));
            let api = ApiError::from(e);
            assert_eq!(api.body.code, code);
            assert_eq!(api.status.as_u16(), row.http_status, "{code}");
            assert!(
                api.body.message.starts_with(&message),
                "{}",
                api.body.message
            );
        }
    }
}
