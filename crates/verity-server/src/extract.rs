//! Extractors whose rejections are JSON errors that say what to fix.

use axum::extract::rejection::{JsonRejection, PathRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::StatusCode;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::ApiError;

/// `axum::Json` read against the type's published schema: wrong content type
/// (415), malformed JSON (400), wrong types, unknown or missing fields and
/// objects sent as arrays (422, with the path of the offending field), body
/// too large (413). Whole floats for integer fields are accepted, as the
/// schema allows them ([`crate::conform`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    T: DeserializeOwned + JsonSchema + 'static,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let mut body = match axum::Json::<Value>::from_request(req, state).await {
            Ok(axum::Json(v)) => v,
            Err(r) => return Err(json_rejection(r)),
        };
        verity::api::conform::conform::<T>(&mut body).map_err(|m| match m {
            verity::api::conform::Mismatch::Shape(m) => schema_mismatch(m),
            verity::api::conform::Mismatch::Format(m) => ApiError::invalid(m),
        })?;
        serde_path_to_error::deserialize(body)
            .map(Self)
            .map_err(|e| schema_mismatch(e.to_string()))
    }
}

fn schema_mismatch(detail_text: String) -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid_input",
        format!("the JSON body does not match the schema: {detail_text}"),
    )
}

fn json_rejection(r: JsonRejection) -> ApiError {
    match r {
        JsonRejection::MissingJsonContentType(_) => ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "send the body as JSON with `Content-Type: application/json`",
        ),
        JsonRejection::JsonSyntaxError(e) => {
            ApiError::invalid(format!("malformed JSON body: {}", detail(&e.body_text())))
        }
        JsonRejection::JsonDataError(e) => ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_input",
            format!(
                "the JSON body does not match the schema: {}",
                detail(&e.body_text())
            ),
        ),
        JsonRejection::BytesRejection(e) => {
            let status = e.status();
            if status == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(
                    status,
                    "payload_too_large",
                    "request body larger than the server's body limit: send smaller batches",
                )
            } else {
                ApiError::new(
                    if status.is_server_error() {
                        StatusCode::BAD_REQUEST
                    } else {
                        status
                    },
                    "invalid_input",
                    format!("cannot read the request body: {}", e.body_text()),
                )
            }
        }
        other => ApiError::new(
            if other.status().is_server_error() {
                StatusCode::BAD_REQUEST
            } else {
                other.status()
            },
            "invalid_input",
            other.body_text(),
        ),
    }
}

/// axum's message without its generic prefix (keeps serde's field path, line and column).
fn detail(text: &str) -> String {
    text.split_once(": ")
        .map(|(_, rest)| rest.to_string())
        .unwrap_or_else(|| text.to_string())
}

/// `axum::extract::Path` with JSON rejections.
#[derive(Debug, Clone)]
pub struct ApiPath<T>(pub T);

impl<S, T> FromRequestParts<S> for ApiPath<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(v)) => Ok(Self(v)),
            Err(r) => Err(path_rejection(r)),
        }
    }
}

fn path_rejection(r: PathRejection) -> ApiError {
    ApiError::invalid(format!("invalid path parameter: {}", r.body_text()))
}
