//! Event memory over REST, compatible with MnemoLite (seed 004's OpenAPI):
//! `POST /v1/events` (201), `GET|DELETE /v1/events/{id}` (200 / 204),
//! `PATCH /v1/events/{id}/metadata`, `GET /v1/search/`.
//!
//! Compatibility choices, so an existing MnemoLite client keeps working:
//!
//! * **No `X-API-Version` needed**: MnemoLite clients do not send seed 001's
//!   header. When a client sends it, it is checked (and echoed) like on the
//!   other data routes.
//! * **FastAPI-style errors**: a validation error is a 422 whose body has
//!   `detail: [{loc, msg, type}]` (`loc` = `["body"|"query"|"path", field]`);
//!   other errors carry `detail` as a string (`{"detail": "event not found: …"}`).
//!   Both bodies also carry Verity's `code`, `message` and `transient`, so
//!   they are valid `ErrorResponse`s too. Statuses come from the facade's
//!   error table, except that input errors are 422 (FastAPI's validation
//!   status) instead of 400.
//! * Trailing slashes are accepted on `/v1/events/` and `/v1/search` alike.
//!
//! Bearer authentication and rate limits apply as on every data route.

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use verity::api::memory::{EventQuery, EventQueryParams, NewEvent};
use verity::core::InputError;

use crate::error::ApiError;
use crate::server::AppState;

/// Header telling how an event was indexed when it needs saying (no text field, no embedder).
pub const NOTE_HEADER: &str = "x-verity-note";

/// One FastAPI validation issue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ValidationIssue {
    /// Where: `["body", "embedding"]`, `["query", "limit"]`, `["path", "id"]`.
    pub loc: Vec<String>,
    /// What is wrong.
    pub msg: String,
    /// Kind (`missing`, `uuid_parsing`, `json_invalid`, `value_error`).
    #[serde(rename = "type")]
    pub kind: String,
}

/// 422 body: FastAPI's `HTTPValidationError` plus Verity's error fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ValidationErrorResponse {
    /// The issues (FastAPI's shape).
    pub detail: Vec<ValidationIssue>,
    /// Stable code (`invalid_input`).
    pub code: String,
    /// The same, as one sentence.
    pub message: String,
    /// Always `false`.
    pub transient: bool,
}

/// Any other error: MnemoLite's `{"detail": "…"}` plus Verity's error fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DetailErrorResponse {
    /// What went wrong.
    pub detail: String,
    /// Stable code (the facade's error table).
    pub code: String,
    /// Same as `detail`.
    pub message: String,
    /// Whether the same request may succeed later.
    pub transient: bool,
}

/// An error of these routes, already shaped.
#[derive(Debug)]
pub struct EventError(Box<Response>);

impl IntoResponse for EventError {
    fn into_response(self) -> Response {
        *self.0
    }
}

type EventResult<T> = Result<T, EventError>;

impl EventError {
    fn validation(place: &str, field: Option<&str>, msg: String, kind: &str) -> Self {
        let mut loc = vec![place.to_string()];
        if let Some(f) = field.filter(|f| !f.is_empty()) {
            loc.extend(f.split('.').map(str::to_string));
        }
        let message = match field {
            Some(f) => format!("invalid `{f}`: {msg}"),
            None => msg.clone(),
        };
        tracing::info!(status = 422, loc = ?loc, message = %message, "request refused");
        let body = ValidationErrorResponse {
            detail: vec![ValidationIssue {
                loc,
                msg,
                kind: kind.to_string(),
            }],
            code: "invalid_input".into(),
            message,
            transient: false,
        };
        Self(Box::new(
            (StatusCode::UNPROCESSABLE_ENTITY, Json(body)).into_response(),
        ))
    }

    /// A facade error: statuses from the facade's table, input errors as 422 at `place`.
    fn from_verity(e: verity::Error, place: &str) -> Self {
        let body = crate::error::client_body(&e);
        let status = body.mapping().http_status;
        if status == 400 || status == 422 {
            let (field, msg) = match &e {
                verity::Error::Input(InputError::Field { field, message }) => {
                    (Some(field.as_str()), message.clone())
                }
                _ => (None, body.message.clone()),
            };
            let kind = if msg == "field required" {
                "missing"
            } else {
                "value_error"
            };
            return Self::validation(place, field, msg, kind);
        }
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        if status.is_server_error() {
            tracing::error!(status = status.as_u16(), code = %body.code, message = %body.message, "request failed");
        }
        let out = DetailErrorResponse {
            detail: body.message.clone(),
            code: body.code,
            message: body.message,
            transient: body.transient,
        };
        Self(Box::new((status, Json(out)).into_response()))
    }

    fn body_rejection(r: BytesRejection) -> Self {
        let status = r.status();
        if status == StatusCode::PAYLOAD_TOO_LARGE {
            return Self(Box::new(ApiError::from_status(status).into_response()));
        }
        Self::validation("body", None, r.body_text(), "value_error")
    }
}

fn parse_id(raw: &str) -> EventResult<uuid::Uuid> {
    uuid::Uuid::parse_str(raw.trim()).map_err(|e| {
        EventError::validation(
            "path",
            Some("id"),
            format!("Input should be a valid UUID: {e}"),
            "uuid_parsing",
        )
    })
}

fn json_body(body: Result<Bytes, BytesRejection>) -> EventResult<Value> {
    let bytes = body.map_err(EventError::body_rejection)?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(EventError::validation(
            "body",
            None,
            "Field required".into(),
            "missing",
        ));
    }
    serde_json::from_slice(&bytes).map_err(|e| {
        EventError::validation(
            "body",
            None,
            format!("JSON decode error: {e}"),
            "json_invalid",
        )
    })
}

/// `POST /v1/events`: 201 with the stored event.
pub async fn add(
    State(s): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> EventResult<Response> {
    let value = json_body(body)?;
    let new = NewEvent::from_json(&value).map_err(|e| EventError::from_verity(e, "body"))?;
    let added = s
        .verity
        .memory_add(new)
        .await
        .map_err(|e| EventError::from_verity(e, "body"))?;
    let mut resp = (StatusCode::CREATED, Json(added.event)).into_response();
    if let Some(v) = added.note.and_then(|n| HeaderValue::from_str(&n).ok()) {
        resp.headers_mut().insert(NOTE_HEADER, v);
    }
    Ok(resp)
}

/// `GET /v1/events/{id}`.
pub async fn get_one(State(s): State<AppState>, Path(id): Path<String>) -> EventResult<Response> {
    let id = parse_id(&id)?;
    let ev = s
        .verity
        .memory_get(id)
        .await
        .map_err(|e| EventError::from_verity(e, "path"))?;
    Ok(Json(ev).into_response())
}

/// `DELETE /v1/events/{id}`: 204.
pub async fn delete_one(
    State(s): State<AppState>,
    Path(id): Path<String>,
) -> EventResult<StatusCode> {
    let id = parse_id(&id)?;
    s.verity
        .memory_delete(id)
        .await
        .map_err(|e| EventError::from_verity(e, "path"))?;
    Ok(StatusCode::NO_CONTENT)
}

/// `PATCH /v1/events/{id}/metadata`: merge the body into the metadata.
pub async fn update_metadata(
    State(s): State<AppState>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> EventResult<Response> {
    let id = parse_id(&id)?;
    let patch = json_body(body)?;
    if !patch.is_object() {
        return Err(EventError::validation(
            "body",
            None,
            "Input should be a valid dictionary".into(),
            "dict_type",
        ));
    }
    let ev = s
        .verity
        .memory_update_metadata(id, &patch)
        .await
        .map_err(|e| EventError::from_verity(e, "body"))?;
    Ok(Json(ev).into_response())
}

/// `GET /v1/search/`: `{data, meta: {total_hits, limit, offset, …}}`.
pub async fn search(
    State(s): State<AppState>,
    params: Result<Query<EventQueryParams>, QueryRejection>,
) -> EventResult<Response> {
    let Query(params) =
        params.map_err(|r| EventError::validation("query", None, r.body_text(), "value_error"))?;
    let q = EventQuery::from_params(&params).map_err(|e| EventError::from_verity(e, "query"))?;
    let page = s
        .verity
        .memory_search(&q)
        .await
        .map_err(|e| EventError::from_verity(e, "query"))?;
    Ok(Json(page).into_response())
}
