//! Embeddings from any OpenAI-compatible server (`POST {base}/v1/embeddings`):
//! OpenAI, vLLM, llama.cpp's server, LM Studio, LocalAI, TEI, …

use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use verity_core::{Embedder, EmbedderId, Embedding, ProviderErrorKind, Result};

use verity_net::RemoteProviderOptions;

use crate::remote::{config_invalid, default_prefixes, Remote};

/// Default base URL.
pub const DEFAULT_OPENAI_URL: &str = "https://api.openai.com";

/// Builder of an [`OpenAiEmbedder`].
#[derive(Debug, Clone)]
pub struct OpenAiEmbedderBuilder {
    opts: RemoteProviderOptions,
    model: String,
    dim: Option<usize>,
    embed_version: String,
    batch_size: usize,
    document_prefix: Option<String>,
    query_prefix: Option<String>,
    max_tokens: usize,
}

impl OpenAiEmbedderBuilder {
    verity_net::remote_provider_setters!(opts, request_settings);

    /// Expected vector dimension, checked on every response (default: learnt from the first response).
    pub fn dim(mut self, dim: usize) -> Self {
        self.dim = Some(dim);
        self
    }

    /// `EMBED_VERSION` recorded in the [`EmbedderId`] (default `"1"`).
    pub fn embed_version(mut self, version: impl Into<String>) -> Self {
        self.embed_version = version.into();
        self
    }

    /// Texts per request (default 64, at least 1).
    pub fn batch_size(mut self, n: usize) -> Self {
        self.batch_size = n.max(1);
        self
    }

    /// Text put before every passage (default: `search_document: ` for nomic-embed-text, else none).
    pub fn document_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.document_prefix = Some(prefix.into());
        self
    }

    /// Text put before every query (default: `search_query: ` for nomic-embed-text, else none).
    pub fn query_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.query_prefix = Some(prefix.into());
        self
    }

    /// Value reported by [`Embedder::max_tokens`], used by the chunker (default 512).
    pub fn max_tokens(mut self, n: usize) -> Self {
        self.max_tokens = n.max(1);
        self
    }

    /// Check the settings and build the embedder (no network call).
    pub fn build(self) -> Result<OpenAiEmbedder> {
        let model = self.model.trim().to_string();
        if model.is_empty() {
            return Err(config_invalid(
                "embedder.openai.model",
                "the model name is empty",
            ));
        }
        let endpoint = self.opts.build("openai", "embedder.openai")?;
        let url = endpoint.v1_url("embeddings");
        let (doc_default, query_default) = default_prefixes(&model);
        let remote = Remote::new(endpoint, model.clone(), self.embed_version, self.dim)?;
        Ok(OpenAiEmbedder {
            remote,
            url,
            model,
            batch_size: self.batch_size,
            document_prefix: self.document_prefix.unwrap_or(doc_default),
            query_prefix: self.query_prefix.unwrap_or(query_default),
            max_tokens: self.max_tokens,
        })
    }
}

/// An [`Embedder`] backed by an OpenAI-compatible `/v1/embeddings` endpoint.
///
/// Errors: 401/403 → `Auth`, 400 → `InvalidRequest`, 404 / `model_not_found`
/// → `ModelNotFound`, 429 → `RateLimited`, 5xx or connection failure →
/// `Unavailable`, deadline → `Timeout`, wrong count, index, dimension or
/// non-finite values → `BadResponse`. The OpenAI error envelope
/// `{error: {message, type, code}}` is carried in the message.
pub struct OpenAiEmbedder {
    remote: Remote,
    url: String,
    model: String,
    batch_size: usize,
    document_prefix: String,
    query_prefix: String,
    max_tokens: usize,
}

impl std::fmt::Debug for OpenAiEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiEmbedder")
            .field("url", &self.url)
            .field("id", self.remote.id())
            .field("endpoint", &self.remote.endpoint)
            .finish_non_exhaustive()
    }
}

#[derive(Serialize)]
struct EmbeddingsRequest<'a> {
    model: &'a str,
    input: Vec<String>,
    encoding_format: &'static str,
}

#[derive(Deserialize)]
struct EmbeddingsResponse {
    data: Vec<EmbeddingData>,
}

#[derive(Deserialize)]
struct EmbeddingData {
    index: usize,
    embedding: Embedding,
}

impl OpenAiEmbedder {
    /// Start configuring an embedder for `model` (e.g. `text-embedding-3-small`).
    pub fn builder(model: impl Into<String>) -> OpenAiEmbedderBuilder {
        OpenAiEmbedderBuilder {
            opts: RemoteProviderOptions::new(DEFAULT_OPENAI_URL, Duration::from_secs(60))
                .with_api_key_var("OPENAI_API_KEY"),
            model: model.into(),
            dim: None,
            embed_version: "1".to_string(),
            batch_size: 64,
            document_prefix: None,
            query_prefix: None,
            max_tokens: 512,
        }
    }

    /// The full embeddings URL requests go to.
    pub fn endpoint(&self) -> &str {
        &self.url
    }

    /// The prefixes applied to passages and queries.
    pub fn prefixes(&self) -> (&str, &str) {
        (&self.document_prefix, &self.query_prefix)
    }

    async fn embed_prefixed(&self, texts: &[String], prefix: &str) -> Result<Vec<Embedding>> {
        let requests: Vec<_> = texts
            .chunks(self.batch_size.max(1))
            .map(|batch| self.request(batch, prefix))
            .collect();
        self.remote.concurrently(requests).await
    }

    /// One request for `batch`.
    async fn request(&self, batch: &[String], prefix: &str) -> Result<Vec<Embedding>> {
        let request = EmbeddingsRequest {
            model: &self.model,
            input: batch.iter().map(|t| format!("{prefix}{t}")).collect(),
            encoding_format: "float",
        };
        let resp: EmbeddingsResponse = self.remote.post_json(&self.url, &request).await?;
        // Servers may answer out of order: place each vector by its `index`.
        let mut slots: Vec<Option<Embedding>> = vec![None; batch.len()];
        let received = resp.data.len();
        for item in resp.data {
            match slots.get_mut(item.index) {
                Some(slot @ None) => *slot = Some(item.embedding),
                Some(Some(_)) => {
                    return Err(self.remote.err(
                        ProviderErrorKind::BadResponse,
                        format!("index {} appears twice", item.index),
                    ))
                }
                None => {
                    return Err(self.remote.err(
                        ProviderErrorKind::BadResponse,
                        format!(
                            "index {} out of range for {} inputs",
                            item.index,
                            batch.len()
                        ),
                    ))
                }
            }
        }
        let vectors: Option<Vec<Embedding>> = slots.into_iter().collect();
        let vectors = vectors.ok_or_else(|| {
            self.remote.err(
                ProviderErrorKind::BadResponse,
                format!("expected {} vectors, got {received}", batch.len()),
            )
        })?;
        self.remote.accept(batch.len(), vectors)
    }
}

#[async_trait]
impl Embedder for OpenAiEmbedder {
    fn id(&self) -> &EmbedderId {
        self.remote.id()
    }

    fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Embedding>> {
        self.embed_prefixed(texts, &self.document_prefix).await
    }

    fn texts_per_call(&self) -> usize {
        self.batch_size * self.remote.concurrency()
    }

    async fn embed_query(&self, text: &str) -> Result<Embedding> {
        let mut v = self
            .embed_prefixed(&[text.to_string()], &self.query_prefix)
            .await?;
        v.pop().ok_or_else(|| {
            self.remote.err(
                ProviderErrorKind::BadResponse,
                "no vector returned for the query",
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_accepts_both_base_forms() {
        let e = OpenAiEmbedder::builder("m")
            .base_url("http://127.0.0.1:8080")
            .build()
            .unwrap();
        assert_eq!(e.endpoint(), "http://127.0.0.1:8080/v1/embeddings");
        let e = OpenAiEmbedder::builder("m")
            .base_url("http://127.0.0.1:8080/v1/")
            .build()
            .unwrap();
        assert_eq!(e.endpoint(), "http://127.0.0.1:8080/v1/embeddings");
        assert!(OpenAiEmbedder::builder(" ").build().is_err());
        let dbg = format!(
            "{:?}",
            OpenAiEmbedder::builder("m")
                .api_key("sk-secret")
                .build()
                .unwrap()
        );
        assert!(!dbg.contains("sk-secret"));
    }
}
