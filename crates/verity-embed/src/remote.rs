//! Shared plumbing of the HTTP embedders: client, retries, status → error
//! mapping, dimension discovery and response validation.

use std::sync::OnceLock;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use verity_core::embed::{l2_normalize, validate_embeddings};
use verity_core::{
    ConfigError, EmbedderId, Embedding, Error, ProviderError, ProviderErrorKind, Result,
    RetryPolicy,
};
use verity_net::HttpClient;

/// Prefixes that nomic-embed-text needs (`search_document: ` / `search_query: `).
pub(crate) const NOMIC_DOCUMENT_PREFIX: &str = "search_document: ";
pub(crate) const NOMIC_QUERY_PREFIX: &str = "search_query: ";

/// Default prefixes for a model name: nomic-embed-text gets its task prefixes.
pub(crate) fn default_prefixes(model: &str) -> (String, String) {
    let base = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    if base.starts_with("nomic-embed-text") {
        (
            NOMIC_DOCUMENT_PREFIX.to_string(),
            NOMIC_QUERY_PREFIX.to_string(),
        )
    } else {
        (String::new(), String::new())
    }
}

pub(crate) fn config_invalid(key: &str, message: impl Into<String>) -> Error {
    ConfigError::Invalid {
        key: key.to_string(),
        message: message.into(),
    }
    .into()
}

/// Check and normalise a base URL (`http`/`https`, no trailing slash).
pub(crate) fn check_base_url(key: &str, base: &str) -> Result<String> {
    let url = reqwest::Url::parse(base)
        .map_err(|e| config_invalid(key, format!("`{base}` is not a URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(config_invalid(
            key,
            format!("`{base}`: only http and https are supported"),
        ));
    }
    Ok(base.trim_end_matches('/').to_string())
}

/// The parts every HTTP embedder shares.
#[derive(Debug)]
pub(crate) struct Remote {
    pub provider: &'static str,
    pub client: HttpClient,
    pub retry: RetryPolicy,
    pub timeout: Duration,
    /// Requests in flight at once for one `embed` call.
    pub concurrency: usize,
    /// Id as configured (`dim` 0 until discovered when no dimension was given).
    placeholder: EmbedderId,
    discovered: OnceLock<EmbedderId>,
}

/// Requests an HTTP embedder keeps in flight at once by default: enough to
/// hide a server's per-request latency (a GPU server answering in ~30 ms),
/// few enough not to swamp one (each honours `Retry-After` through the
/// [`RetryPolicy`]).
pub const DEFAULT_CONCURRENCY: usize = 4;

impl Remote {
    pub fn new(
        provider: &'static str,
        model: String,
        version: String,
        dim: Option<usize>,
        timeout: Duration,
        client: Option<HttpClient>,
        retry: Option<RetryPolicy>,
    ) -> Result<Self> {
        if let Some(0) = dim {
            return Err(config_invalid("dim", "the expected dimension must be > 0"));
        }
        if timeout.is_zero() {
            return Err(config_invalid("timeout", "the timeout must be > 0"));
        }
        let client = match client {
            Some(c) => c,
            None => HttpClient::shared_default()?,
        };
        let retry = retry.unwrap_or_else(|| client.retry());
        let discovered = OnceLock::new();
        let placeholder = EmbedderId::new(model, version, dim.unwrap_or(0));
        if dim.is_some() {
            let _ = discovered.set(placeholder.clone());
        }
        Ok(Self {
            provider,
            client,
            retry,
            timeout,
            concurrency: DEFAULT_CONCURRENCY,
            placeholder,
            discovered,
        })
    }

    /// Run the `requests` (one per batch of texts, in order), at most
    /// [`Self::concurrency`] in flight at once; their vectors in order. The
    /// first failure (after its retries) fails the call.
    pub async fn concurrently<F>(&self, requests: Vec<F>) -> Result<Vec<Embedding>>
    where
        F: std::future::Future<Output = Result<Vec<Embedding>>>,
    {
        use futures::{StreamExt, TryStreamExt};
        let parts: Vec<Vec<Embedding>> = futures::stream::iter(requests)
            .buffered(self.concurrency.max(1))
            .try_collect()
            .await?;
        Ok(parts.into_iter().flatten().collect())
    }

    /// Current id (its `dim` is 0 until the first response when it was not configured).
    pub fn id(&self) -> &EmbedderId {
        self.discovered.get().unwrap_or(&self.placeholder)
    }

    pub fn err(&self, kind: ProviderErrorKind, msg: impl Into<String>) -> Error {
        ProviderError::new(self.provider, kind, msg).into()
    }

    /// Validate a response batch (count, dimension, finite values), learn the
    /// dimension from the first response when none was configured, normalise.
    pub fn accept(&self, expected: usize, mut vectors: Vec<Embedding>) -> Result<Vec<Embedding>> {
        if self.discovered.get().is_none() {
            let dim = vectors.first().map_or(0, Vec::len);
            if dim == 0 {
                return Err(self.err(
                    ProviderErrorKind::BadResponse,
                    "empty vector in the response",
                ));
            }
            let _ = self.discovered.set(EmbedderId {
                dim,
                ..self.placeholder.clone()
            });
        }
        validate_embeddings(self.provider, self.id(), expected, &vectors)?;
        vectors.iter_mut().for_each(|v| l2_normalize(v));
        Ok(vectors)
    }

    /// Map a transport error.
    pub fn transport_error(&self, url: &str, e: &reqwest::Error) -> Error {
        if e.is_timeout() {
            self.err(
                ProviderErrorKind::Timeout,
                format!("{url}: no answer within {:?}", self.timeout),
            )
        } else if e.is_connect() {
            self.err(
                ProviderErrorKind::Unavailable,
                format!("cannot connect to {url}: {}", error_chain(e)),
            )
        } else {
            self.err(
                ProviderErrorKind::Unavailable,
                format!("{url}: connection failed: {}", error_chain(e)),
            )
        }
    }

    /// Map an HTTP error status and its body; `retry_after` is the server's hint.
    pub fn status_error(
        &self,
        status: reqwest::StatusCode,
        body: &[u8],
        retry_after: Option<Duration>,
    ) -> Error {
        let (message, code) = error_message(body);
        let lower = message.to_ascii_lowercase();
        let model_missing = code.as_deref() == Some("model_not_found")
            || (lower.contains("model") && lower.contains("not found"));
        let kind = match status.as_u16() {
            401 | 403 => ProviderErrorKind::Auth,
            404 => ProviderErrorKind::ModelNotFound,
            408 => ProviderErrorKind::Timeout,
            429 => ProviderErrorKind::RateLimited,
            s if s >= 500 => ProviderErrorKind::Unavailable,
            _ if model_missing => ProviderErrorKind::ModelNotFound,
            _ => ProviderErrorKind::InvalidRequest,
        };
        let message = if status.as_u16() == 404 && !lower.contains("model") {
            let detail = if message.is_empty() {
                String::new()
            } else {
                format!(" ({message})")
            };
            format!("HTTP 404{detail}: endpoint or model not found (check the base URL and the model name)")
        } else if message.is_empty() {
            status.to_string()
        } else {
            format!("HTTP {}: {message}", status.as_u16())
        };
        ProviderError::new(self.provider, kind, message)
            .with_retry_after(retry_after)
            .into()
    }

    /// One `POST url` with a JSON body, with retries on transient failures.
    pub async fn post_json<B: Serialize + Sync, R: DeserializeOwned>(
        &self,
        url: &str,
        body: &B,
        bearer: Option<&str>,
    ) -> Result<R> {
        self.retry
            .run(|attempt| async move {
                if attempt > 1 {
                    tracing::debug!(provider = self.provider, url, attempt, "retrying");
                }
                let mut req = self
                    .client
                    .client()
                    .post(url)
                    .timeout(self.timeout)
                    .json(body);
                if let Some(key) = bearer {
                    req = req.bearer_auth(key);
                }
                self.send(url, req).await
            })
            .await
    }

    /// One `GET url` with retries.
    pub async fn get_json<R: DeserializeOwned>(
        &self,
        url: &str,
        bearer: Option<&str>,
    ) -> Result<R> {
        self.retry
            .run(|_| async move {
                let mut req = self.client.client().get(url).timeout(self.timeout);
                if let Some(key) = bearer {
                    req = req.bearer_auth(key);
                }
                self.send(url, req).await
            })
            .await
    }

    async fn send<R: DeserializeOwned>(
        &self,
        url: &str,
        req: reqwest::RequestBuilder,
    ) -> Result<R> {
        let resp = req
            .send()
            .await
            .map_err(|e| self.transport_error(url, &e))?;
        let status = resp.status();
        let retry_after = verity_net::retry_after(resp.headers());
        let bytes = resp
            .bytes()
            .await
            .map_err(|e| self.transport_error(url, &e))?;
        if !status.is_success() {
            return Err(self.status_error(status, &bytes, retry_after));
        }
        serde_json::from_slice(&bytes).map_err(|e| {
            self.err(
                ProviderErrorKind::BadResponse,
                format!("{url}: unexpected response body: {e}"),
            )
        })
    }
}

/// The error text of a body: Ollama's `{"error": "…"}`, the OpenAI envelope
/// `{"error": {"message", "type", "code"}}`, or the raw text (truncated).
fn error_message(body: &[u8]) -> (String, Option<String>) {
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(body) {
        match v.get("error") {
            Some(serde_json::Value::String(s)) => return (s.clone(), None),
            Some(serde_json::Value::Object(o)) => {
                let text = |k: &str| match o.get(k) {
                    Some(serde_json::Value::String(s)) => Some(s.clone()),
                    Some(serde_json::Value::Null) | None => None,
                    Some(other) => Some(other.to_string()),
                };
                let message = text("message").unwrap_or_default();
                let code = text("code");
                let extra: Vec<String> = [
                    text("type").map(|t| format!("type {t}")),
                    code.clone().map(|c| format!("code {c}")),
                ]
                .into_iter()
                .flatten()
                .collect();
                let full = if extra.is_empty() {
                    message
                } else {
                    format!("{message} ({})", extra.join(", "))
                };
                return (full, code);
            }
            _ => {}
        }
    }
    let text = String::from_utf8_lossy(body);
    (text.trim().chars().take(300).collect(), None)
}

fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![e.to_string()];
    let mut source = e.source();
    while let Some(s) = source {
        let t = s.to_string();
        if !parts.iter().any(|p| p.contains(&t)) {
            parts.push(t);
        }
        source = s.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bodies_are_read() {
        let (m, c) = error_message(br#"{"error":"model \"x\" not found, try pulling it first"}"#);
        assert_eq!(m, "model \"x\" not found, try pulling it first");
        assert!(c.is_none());
        let (m, c) = error_message(br#"{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}}"#);
        assert_eq!(
            m,
            "bad key (type invalid_request_error, code invalid_api_key)"
        );
        assert_eq!(c.as_deref(), Some("invalid_api_key"));
        let (m, _) = error_message(b"  plain text  ");
        assert_eq!(m, "plain text");
    }

    #[test]
    fn nomic_gets_prefixes() {
        assert_eq!(
            default_prefixes("nomic-embed-text:v1.5").0,
            NOMIC_DOCUMENT_PREFIX
        );
        assert_eq!(
            default_prefixes("hf.co/nomic-ai/nomic-embed-text-v1.5:Q8").1,
            NOMIC_QUERY_PREFIX
        );
        assert_eq!(default_prefixes("mxbai-embed-large:335m").0, "");
    }

    #[test]
    fn base_urls_are_checked() {
        assert_eq!(
            check_base_url("k", "http://localhost:11434/").unwrap(),
            "http://localhost:11434"
        );
        assert!(check_base_url("k", "ftp://x").is_err());
        assert!(check_base_url("k", "not a url").is_err());
    }
}
