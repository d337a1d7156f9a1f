//! An HTTP provider's failure as a typed [`ProviderError`]: the status and
//! the error body give the [`ProviderErrorKind`] (whose
//! [`is_transient`](ProviderErrorKind::is_transient) the retry policy
//! reads), the server's `Retry-After` rides on the error, and the message
//! says what to do next (the variable holding the key on 401/403, the
//! command that installs a missing model).
//!
//! | status | kind | transient |
//! | --- | --- | --- |
//! | 401, 403 (or `invalid_api_key`, `authentication_error`, `permission_error`) | `Auth` | no |
//! | 404 (or `model_not_found`, or a 4xx saying the model is not found) | `ModelNotFound` | no |
//! | 408 | `Timeout` | yes |
//! | 429 | `RateLimited` | yes |
//! | 5xx | `Unavailable` | yes |
//! | other 4xx | `InvalidRequest` | no |
//! | anything else that is not a success | `BadResponse` | no |

use std::time::Duration;

use serde_json::Value;
use verity_core::{ProviderError, ProviderErrorKind};

/// The longest stretch of a non-JSON error body quoted in a message.
const RAW_BODY_CHARS: usize = 500;

/// What a provider's error body says: Ollama's `{"error": "…"}`, the OpenAI
/// envelope `{"error": {"message", "type", "code"}}`, a bare
/// `{"message": "…"}`, or the raw text (trimmed, cut at 500 characters).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProviderErrorBody {
    /// The human-readable part.
    pub message: String,
    /// The envelope's `type`, when given.
    pub kind: Option<String>,
    /// The envelope's `code`, when given.
    pub code: Option<String>,
}

impl ProviderErrorBody {
    /// Read a response body.
    pub fn parse(body: &[u8]) -> Self {
        serde_json::from_slice::<Value>(body)
            .ok()
            .and_then(|v| Self::from_json(&v))
            .unwrap_or_else(|| Self {
                message: String::from_utf8_lossy(body)
                    .trim()
                    .chars()
                    .take(RAW_BODY_CHARS)
                    .collect(),
                ..Self::default()
            })
    }

    /// Read a JSON document (a body, or one event of a stream); `None` when it
    /// carries neither `error` nor `message`.
    pub fn from_json(v: &Value) -> Option<Self> {
        match v.get("error") {
            Some(e) => Some(Self::from_error(e)),
            None => text(v.get("message")).map(|message| Self {
                message,
                ..Self::default()
            }),
        }
    }

    /// Read the value of an `error` member: a string, or an object with
    /// `message`, `type` and `code`.
    pub fn from_error(e: &Value) -> Self {
        match e {
            Value::String(s) => Self {
                message: s.clone(),
                ..Self::default()
            },
            Value::Object(_) => Self {
                message: text(e.get("message")).unwrap_or_else(|| e.to_string()),
                kind: text(e.get("type")),
                code: text(e.get("code")),
            },
            other => Self {
                message: other.to_string(),
                ..Self::default()
            },
        }
    }

    fn tagged(&self, tag: &str) -> bool {
        self.code.as_deref() == Some(tag) || self.kind.as_deref() == Some(tag)
    }

    /// Whether the text says a model is missing (Ollama: `model "x" not
    /// found, try pulling it first`).
    fn says_model_missing(&self) -> bool {
        let lower = self.message.to_ascii_lowercase();
        lower.contains("not found") && (lower.contains("model") || lower.contains("pull"))
    }

    /// The message with the envelope's type and code, as quoted in errors.
    pub fn describe(&self) -> String {
        let tags: Vec<String> = [
            self.kind.as_ref().map(|t| format!("type {t}")),
            self.code.as_ref().map(|c| format!("code {c}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        if tags.is_empty() {
            self.message.clone()
        } else {
            format!("{} ({})", self.message, tags.join(", "))
        }
    }
}

/// A JSON member as text (`null` and absent are none).
fn text(v: Option<&Value>) -> Option<String> {
    match v {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Null) | None => None,
        Some(other) => Some(other.to_string()),
    }
}

/// The kind an HTTP error status stands for, before the body is read (see
/// the table of the module).
pub fn kind_for_status(status: u16) -> ProviderErrorKind {
    match status {
        401 | 403 => ProviderErrorKind::Auth,
        404 => ProviderErrorKind::ModelNotFound,
        408 => ProviderErrorKind::Timeout,
        429 => ProviderErrorKind::RateLimited,
        s if s >= 500 => ProviderErrorKind::Unavailable,
        s if (400..500).contains(&s) => ProviderErrorKind::InvalidRequest,
        _ => ProviderErrorKind::BadResponse,
    }
}

/// The kind of a failure from its status (`None` for an error carried in a
/// successful body or in a stream) and what its body says: the envelope's
/// tags first, then the status, then the text.
pub fn kind_for(status: Option<u16>, body: &ProviderErrorBody) -> ProviderErrorKind {
    if body.tagged("model_not_found") {
        return ProviderErrorKind::ModelNotFound;
    }
    if [
        "invalid_api_key",
        "authentication_error",
        "permission_error",
    ]
    .iter()
    .any(|t| body.tagged(t))
    {
        return ProviderErrorKind::Auth;
    }
    match status.map(kind_for_status) {
        Some(ProviderErrorKind::InvalidRequest) if body.says_model_missing() => {
            ProviderErrorKind::ModelNotFound
        }
        Some(kind) => kind,
        None if body.says_model_missing() => ProviderErrorKind::ModelNotFound,
        None if body.tagged("rate_limit_exceeded") => ProviderErrorKind::RateLimited,
        None if body.tagged("invalid_request_error") => ProviderErrorKind::InvalidRequest,
        None => ProviderErrorKind::Unavailable,
    }
}

/// What a provider's errors should tell the user to do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Remedies {
    /// The environment variable that holds the API key (`OPENAI_API_KEY`),
    /// named in `Auth` errors.
    pub api_key_var: Option<String>,
    /// How to install a missing model (`run \`ollama pull qwen2.5:7b\``),
    /// added to `ModelNotFound` errors.
    pub missing_model: Option<String>,
}

impl Remedies {
    /// The advice for a failure of `kind`, if any; `model_named` says the
    /// server named the model as missing (a bare 404 may be a wrong base URL).
    pub fn advice(&self, kind: ProviderErrorKind, model_named: bool) -> Option<String> {
        match kind {
            ProviderErrorKind::Auth => Some(match &self.api_key_var {
                Some(var) => format!("set {var} to a key this server accepts"),
                None => "the server refused the request's credentials".to_string(),
            }),
            ProviderErrorKind::ModelNotFound => Some(
                self.missing_model
                    .clone()
                    .filter(|_| model_named)
                    .unwrap_or_else(|| "check the base URL and the model name".to_string()),
            ),
            _ => None,
        }
    }

    fn finish(&self, kind: ProviderErrorKind, body: &ProviderErrorBody, message: String) -> String {
        let model_named = body.tagged("model_not_found") || body.says_model_missing();
        match self.advice(kind, model_named) {
            Some(advice) => format!("{message} ({advice})"),
            None => message,
        }
    }
}

/// The error of a non-success answer: `provider` is the provider's name,
/// `url` the endpoint called, `retry_after` the server's hint (see
/// [`retry_after`](crate::retry_after)).
///
/// ```
/// use verity_core::ProviderErrorKind;
/// use verity_net::status::{status_error, Remedies};
///
/// let remedies = Remedies { api_key_var: Some("OPENAI_API_KEY".into()), ..Remedies::default() };
/// let e = status_error("openai", "http://h/v1/embeddings", 401, None, br#"{"error":{"message":"bad key"}}"#, &remedies);
/// assert_eq!(e.kind, ProviderErrorKind::Auth);
/// assert!(!e.is_transient());
/// assert!(e.message.contains("OPENAI_API_KEY"));
/// ```
pub fn status_error(
    provider: &str,
    url: &str,
    status: u16,
    retry_after: Option<Duration>,
    body: &[u8],
    remedies: &Remedies,
) -> ProviderError {
    let body = ProviderErrorBody::parse(body);
    let kind = kind_for(Some(status), &body);
    let text = body.describe();
    let message = if text.is_empty() {
        let reason = reqwest::StatusCode::from_u16(status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("error");
        format!("{url}: HTTP {status} {reason}")
    } else {
        format!("{url}: HTTP {status}: {text}")
    };
    ProviderError::new(provider, kind, remedies.finish(kind, &body, message))
        .with_retry_after(retry_after)
}

/// [`status_error`] of a received response: reads its `Retry-After` and its body.
pub async fn response_error(
    provider: &str,
    url: &str,
    response: reqwest::Response,
    remedies: &Remedies,
) -> ProviderError {
    let status = response.status().as_u16();
    let retry_after = crate::retry_after(response.headers());
    let body = response.bytes().await.unwrap_or_default();
    status_error(provider, url, status, retry_after, &body, remedies)
}

/// The error a server reported inside a successful answer or a stream
/// (`{"error": …}` after the headers): kind from the body alone.
pub fn body_error(
    provider: &str,
    context: &str,
    body: &ProviderErrorBody,
    remedies: &Remedies,
) -> ProviderError {
    let kind = kind_for(None, body);
    let message = format!("{context}: {}", body.describe());
    ProviderError::new(provider, kind, remedies.finish(kind, body, message))
}

/// The error of a request that got no usable answer (refused, reset,
/// timed out, truncated body): `Timeout` or `Unavailable` (both transient),
/// `InvalidRequest` for a request reqwest could not build.
pub fn transport_error(
    provider: &str,
    url: &str,
    e: &reqwest::Error,
    deadline: Duration,
) -> ProviderError {
    let chain = crate::error_chain(e);
    let (kind, message) = if e.is_timeout() {
        (
            ProviderErrorKind::Timeout,
            format!("{url}: no answer within {deadline:?}"),
        )
    } else if e.is_builder() {
        (ProviderErrorKind::InvalidRequest, format!("{url}: {chain}"))
    } else if e.is_connect() {
        (
            ProviderErrorKind::Unavailable,
            format!("cannot connect to {url}: {chain}"),
        )
    } else {
        (
            ProviderErrorKind::Unavailable,
            format!("{url}: connection failed: {chain}"),
        )
    };
    ProviderError::new(provider, kind, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn openai(status: u16, body: &str) -> ProviderError {
        let remedies = Remedies {
            api_key_var: Some("OPENAI_API_KEY".into()),
            ..Remedies::default()
        };
        status_error(
            "openai",
            "http://h/v1",
            status,
            None,
            body.as_bytes(),
            &remedies,
        )
    }

    #[test]
    fn status_table() {
        use ProviderErrorKind::*;
        for (status, kind, transient) in [
            (400, InvalidRequest, false),
            (401, Auth, false),
            (403, Auth, false),
            (404, ModelNotFound, false),
            (408, Timeout, true),
            (409, InvalidRequest, false),
            (422, InvalidRequest, false),
            (429, RateLimited, true),
            (500, Unavailable, true),
            (502, Unavailable, true),
            (503, Unavailable, true),
            (504, Unavailable, true),
            (302, BadResponse, false),
        ] {
            assert_eq!(kind_for_status(status), kind, "HTTP {status}");
            let e = openai(status, "");
            assert_eq!(e.kind, kind, "HTTP {status}");
            assert_eq!(e.is_transient(), transient, "HTTP {status}");
        }
    }

    #[test]
    fn auth_names_the_variable_to_set() {
        for status in [401, 403] {
            let e = openai(
                status,
                r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#,
            );
            assert_eq!(e.kind, ProviderErrorKind::Auth);
            assert!(!e.is_transient());
            assert!(e.message.contains("set OPENAI_API_KEY"), "{}", e.message);
            assert!(
                e.message.contains("Incorrect API key provided"),
                "{}",
                e.message
            );
            assert!(e.message.contains("code invalid_api_key"), "{}", e.message);
        }
        let e = status_error("ollama", "u", 401, None, b"", &Remedies::default());
        assert!(
            e.message.contains("refused the request's credentials"),
            "{}",
            e.message
        );
    }

    #[test]
    fn retry_after_rides_on_the_error() {
        let e = status_error(
            "openai",
            "u",
            429,
            Some(Duration::from_secs(7)),
            b"slow down",
            &Remedies::default(),
        );
        assert_eq!(e.kind, ProviderErrorKind::RateLimited);
        assert!(e.is_transient());
        assert_eq!(e.retry_after, Some(Duration::from_secs(7)));
        assert_eq!(e.message, "u: HTTP 429: slow down");
    }

    #[test]
    fn bodies_refine_the_kind() {
        let missing = br#"{"error":"model \"x:1b\" not found, try pulling it first"}"#;
        let remedies = Remedies {
            missing_model: Some("run `ollama pull x:1b`".into()),
            ..Remedies::default()
        };
        let e = status_error("ollama", "u", 400, None, missing, &remedies);
        assert_eq!(e.kind, ProviderErrorKind::ModelNotFound);
        assert!(
            e.message.ends_with("(run `ollama pull x:1b`)"),
            "{}",
            e.message
        );
        let e = status_error("ollama", "u", 404, None, b"404 page not found", &remedies);
        assert!(
            e.message.contains("check the base URL and the model name"),
            "{}",
            e.message
        );
        assert_eq!(
            openai(400, r#"{"error":{"message":"m","code":"model_not_found"}}"#).kind,
            ProviderErrorKind::ModelNotFound
        );
        assert_eq!(
            openai(400, r#"{"error":{"message":"m","code":"invalid_api_key"}}"#).kind,
            ProviderErrorKind::Auth
        );
        assert_eq!(
            openai(429, r#"{"error":"model not found"}"#).kind,
            ProviderErrorKind::RateLimited,
            "a status with its own kind keeps it"
        );
    }

    #[test]
    fn error_bodies_are_read() {
        let b = ProviderErrorBody::parse(br#"{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}}"#);
        assert_eq!(
            b.describe(),
            "bad key (type invalid_request_error, code invalid_api_key)"
        );
        assert_eq!(
            ProviderErrorBody::parse(br#"{"error":"plain"}"#).message,
            "plain"
        );
        assert_eq!(
            ProviderErrorBody::parse(br#"{"message":"loose"}"#).message,
            "loose"
        );
        assert_eq!(
            ProviderErrorBody::parse(b"  plain text  ").message,
            "plain text"
        );
        assert_eq!(
            ProviderErrorBody::parse("é".repeat(600).as_bytes())
                .message
                .chars()
                .count(),
            500
        );
        assert!(ProviderErrorBody::from_json(&serde_json::json!({"choices": []})).is_none());
    }

    #[test]
    fn errors_inside_bodies() {
        let kind = |v: serde_json::Value| {
            body_error(
                "p",
                "u",
                &ProviderErrorBody::from_json(&v).unwrap_or_default(),
                &Remedies::default(),
            )
            .kind
        };
        assert_eq!(
            kind(serde_json::json!({"error":"model 'x' not found"})),
            ProviderErrorKind::ModelNotFound
        );
        assert_eq!(
            kind(serde_json::json!({"error":{"message":"m","type":"rate_limit_exceeded"}})),
            ProviderErrorKind::RateLimited
        );
        assert_eq!(
            kind(serde_json::json!({"error":{"message":"m","type":"invalid_request_error"}})),
            ProviderErrorKind::InvalidRequest
        );
        assert_eq!(
            kind(serde_json::json!({"error":"The server had an error"})),
            ProviderErrorKind::Unavailable
        );
    }
}
