//! What the HTTP embedders share beyond [`verity_net`] (which holds their
//! options, client, retries and failure mapping): dimension discovery,
//! response validation, batches in flight, nomic's task prefixes.

use std::sync::OnceLock;

use serde::de::DeserializeOwned;
use serde::Serialize;
use verity_core::embed::{l2_normalize, validate_embeddings};
use verity_core::{ConfigError, EmbedderId, Embedding, Error, ProviderErrorKind, Result};
use verity_net::reqwest::{self, Method};
use verity_net::RemoteEndpoint;

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

/// The parts every HTTP embedder shares: the checked endpoint (client,
/// retries, deadline, concurrency, failure mapping) and the dimension,
/// learnt from the first response when none was configured.
#[derive(Debug)]
pub(crate) struct Remote {
    pub endpoint: RemoteEndpoint,
    /// Id as configured (`dim` 0 until discovered when no dimension was given).
    placeholder: EmbedderId,
    discovered: OnceLock<EmbedderId>,
}

impl Remote {
    pub fn new(
        endpoint: RemoteEndpoint,
        model: String,
        version: String,
        dim: Option<usize>,
    ) -> Result<Self> {
        if let Some(0) = dim {
            return Err(config_invalid("dim", "the expected dimension must be > 0"));
        }
        let discovered = OnceLock::new();
        let placeholder = EmbedderId::new(model, version, dim.unwrap_or(0));
        if dim.is_some() {
            let _ = discovered.set(placeholder.clone());
        }
        Ok(Self {
            endpoint,
            placeholder,
            discovered,
        })
    }

    /// Requests in flight at once for one `embed` call.
    pub fn concurrency(&self) -> usize {
        self.endpoint.concurrency()
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
            .buffered(self.concurrency())
            .try_collect()
            .await?;
        Ok(parts.into_iter().flatten().collect())
    }

    /// Current id (its `dim` is 0 until the first response when it was not configured).
    pub fn id(&self) -> &EmbedderId {
        self.discovered.get().unwrap_or(&self.placeholder)
    }

    pub fn err(&self, kind: ProviderErrorKind, msg: impl Into<String>) -> Error {
        self.endpoint.err(kind, msg)
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
        validate_embeddings(self.endpoint.provider(), self.id(), expected, &vectors)?;
        vectors.iter_mut().for_each(|v| l2_normalize(v));
        Ok(vectors)
    }

    /// One `POST url` with a JSON body, with retries on transient failures.
    pub async fn post_json<B: Serialize + Sync, R: DeserializeOwned>(
        &self,
        url: &str,
        body: &B,
    ) -> Result<R> {
        self.endpoint
            .retry()
            .run(|attempt| async move {
                if attempt > 1 {
                    tracing::debug!(
                        provider = self.endpoint.provider(),
                        url,
                        attempt,
                        "retrying"
                    );
                }
                let req = self.endpoint.request(Method::POST, url).json(body);
                self.send(url, req).await
            })
            .await
    }

    /// One `GET url` with retries.
    pub async fn get_json<R: DeserializeOwned>(&self, url: &str) -> Result<R> {
        self.endpoint
            .retry()
            .run(|_| async move {
                self.send(url, self.endpoint.request(Method::GET, url))
                    .await
            })
            .await
    }

    async fn send<R: DeserializeOwned>(
        &self,
        url: &str,
        req: reqwest::RequestBuilder,
    ) -> Result<R> {
        let resp = req
            .timeout(self.endpoint.timeout())
            .send()
            .await
            .map_err(|e| self.endpoint.transport_error(url, &e))?;
        let status = resp.status();
        let retry_after = verity_net::retry_after(resp.headers());
        let bytes = resp
            .bytes()
            .await
            .map_err(|e| self.endpoint.transport_error(url, &e))?;
        if !status.is_success() {
            return Err(self
                .endpoint
                .status_error(url, status.as_u16(), retry_after, &bytes));
        }
        serde_json::from_slice(&bytes).map_err(|e| {
            self.err(
                ProviderErrorKind::BadResponse,
                format!("{url}: unexpected response body: {e}"),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
