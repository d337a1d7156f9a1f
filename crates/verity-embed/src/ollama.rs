//! Embeddings from an [Ollama](https://ollama.com) server (`POST /api/embed`).

use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use verity_core::{Embedder, EmbedderId, Embedding, ProviderErrorKind, Result};

use verity_net::RemoteProviderOptions;

use crate::remote::{config_invalid, default_prefixes, Remote};

/// Default Ollama address.
pub const DEFAULT_OLLAMA_URL: &str = "http://localhost:11434";

/// Builder of an [`OllamaEmbedder`].
#[derive(Debug, Clone)]
pub struct OllamaEmbedderBuilder {
    opts: RemoteProviderOptions,
    model: String,
    allow_latest: bool,
    dim: Option<usize>,
    embed_version: String,
    batch_size: usize,
    truncate: bool,
    keep_alive: Option<String>,
    document_prefix: Option<String>,
    query_prefix: Option<String>,
    max_tokens: usize,
}

impl OllamaEmbedderBuilder {
    verity_net::remote_provider_setters!(opts, request_settings);

    /// Accept a `:latest` or untagged model (refused by default: such a tag can
    /// silently change the embedding space).
    pub fn allow_latest(mut self, allow: bool) -> Self {
        self.allow_latest = allow;
        self
    }

    /// Expected vector dimension, checked on every response (default: learnt
    /// from the first response, then checked).
    pub fn dim(mut self, dim: usize) -> Self {
        self.dim = Some(dim);
        self
    }

    /// `EMBED_VERSION` recorded in the [`EmbedderId`] (default `"1"`).
    pub fn embed_version(mut self, version: impl Into<String>) -> Self {
        self.embed_version = version.into();
        self
    }

    /// Texts per request (default 32, at least 1).
    pub fn batch_size(mut self, n: usize) -> Self {
        self.batch_size = n.max(1);
        self
    }

    /// Let the server truncate inputs longer than the model's context (default
    /// `true`; with `false` such inputs fail with `InvalidRequest`).
    pub fn truncate(mut self, truncate: bool) -> Self {
        self.truncate = truncate;
        self
    }

    /// How long the server keeps the model loaded (`"5m"`, `"1h"`, `"-1"`; default: the server's).
    pub fn keep_alive(mut self, keep_alive: impl Into<String>) -> Self {
        self.keep_alive = Some(keep_alive.into());
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
    pub fn build(self) -> Result<OllamaEmbedder> {
        let model = self.model.trim().to_string();
        if model.is_empty() {
            return Err(config_invalid(
                "embedder.ollama.model",
                "the model name is empty",
            ));
        }
        let tag = model
            .rsplit('/')
            .next()
            .and_then(|last| last.split_once(':'))
            .map(|(_, tag)| tag);
        if !self.allow_latest {
            match tag {
                None | Some("") => {
                    return Err(config_invalid(
                        "embedder.ollama.model",
                        format!("`{model}` has no tag: pin one (e.g. `{model}:v1.5`) or call .allow_latest(true)"),
                    ))
                }
                Some("latest") => {
                    return Err(config_invalid(
                        "embedder.ollama.model",
                        format!("`{model}` uses the moving `latest` tag: pin a version or call .allow_latest(true)"),
                    ))
                }
                Some(_) => {}
            }
        }
        let (doc_default, query_default) = default_prefixes(&model);
        let endpoint = self
            .opts
            .build("ollama", "embedder.ollama")?
            .with_missing_model_advice(format!("run `ollama pull {model}`"));
        let (embed_url, tags_url) = (endpoint.url("api/embed"), endpoint.url("api/tags"));
        let remote = Remote::new(endpoint, model.clone(), self.embed_version, self.dim)?;
        Ok(OllamaEmbedder {
            remote,
            embed_url,
            tags_url,
            model,
            batch_size: self.batch_size,
            truncate: self.truncate,
            keep_alive: self.keep_alive,
            document_prefix: self.document_prefix.unwrap_or(doc_default),
            query_prefix: self.query_prefix.unwrap_or(query_default),
            max_tokens: self.max_tokens,
        })
    }
}

/// An [`Embedder`] backed by an Ollama server.
///
/// Errors: connection refused or 5xx → `Unavailable`, 404 / `model "x" not
/// found` → `ModelNotFound`, 429 → `RateLimited`, deadline → `Timeout`, wrong
/// count, dimension or non-finite values → `BadResponse`. Transient failures
/// are retried per the [`RetryPolicy`].
#[derive(Debug)]
pub struct OllamaEmbedder {
    remote: Remote,
    embed_url: String,
    tags_url: String,
    model: String,
    batch_size: usize,
    truncate: bool,
    keep_alive: Option<String>,
    document_prefix: String,
    query_prefix: String,
    max_tokens: usize,
}

#[derive(Serialize)]
struct EmbedRequest<'a> {
    model: &'a str,
    input: Vec<String>,
    truncate: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    keep_alive: Option<&'a str>,
}

#[derive(Deserialize)]
struct EmbedResponse {
    embeddings: Vec<Embedding>,
}

#[derive(Deserialize)]
struct TagsResponse {
    #[serde(default)]
    models: Vec<TagEntry>,
}

#[derive(Deserialize)]
struct TagEntry {
    name: String,
    #[serde(default)]
    model: Option<String>,
}

impl OllamaEmbedder {
    /// Start configuring an embedder for `model` (with a pinned tag, e.g. `nomic-embed-text:v1.5`).
    pub fn builder(model: impl Into<String>) -> OllamaEmbedderBuilder {
        OllamaEmbedderBuilder {
            opts: RemoteProviderOptions::new(DEFAULT_OLLAMA_URL, Duration::from_secs(60)),
            model: model.into(),
            allow_latest: false,
            dim: None,
            embed_version: "1".to_string(),
            batch_size: 32,
            truncate: true,
            keep_alive: None,
            document_prefix: None,
            query_prefix: None,
            max_tokens: 512,
        }
    }

    /// The prefixes applied to passages and queries.
    pub fn prefixes(&self) -> (&str, &str) {
        (&self.document_prefix, &self.query_prefix)
    }

    /// Models the server has pulled (`GET /api/tags`).
    pub async fn list_models(&self) -> Result<Vec<String>> {
        let tags: TagsResponse = self.remote.get_json(&self.tags_url).await?;
        Ok(tags
            .models
            .into_iter()
            .flat_map(|m| std::iter::once(m.name).chain(m.model))
            .collect())
    }

    /// Check that the server answers and has the model (`GET /api/tags`);
    /// `ModelNotFound` with the `ollama pull` command when it is missing.
    pub async fn health(&self) -> Result<()> {
        let models = self.list_models().await?;
        let wanted = &self.model;
        let found = models
            .iter()
            .any(|m| m == wanted || (!wanted.contains(':') && *m == format!("{wanted}:latest")));
        if found {
            Ok(())
        } else {
            Err(self.remote.err(
                ProviderErrorKind::ModelNotFound,
                format!(
                    "model `{wanted}` is not installed on the server; run `ollama pull {wanted}`"
                ),
            ))
        }
    }

    async fn embed_prefixed(&self, texts: &[String], prefix: &str) -> Result<Vec<Embedding>> {
        let requests: Vec<_> = texts
            .chunks(self.batch_size.max(1))
            .map(|batch| self.request(batch, prefix))
            .collect();
        self.remote.concurrently(requests).await
    }

    /// One `/api/embed` request for `batch`.
    async fn request(&self, batch: &[String], prefix: &str) -> Result<Vec<Embedding>> {
        let request = EmbedRequest {
            model: &self.model,
            input: batch.iter().map(|t| format!("{prefix}{t}")).collect(),
            truncate: self.truncate,
            keep_alive: self.keep_alive.as_deref(),
        };
        let resp: EmbedResponse = self.remote.post_json(&self.embed_url, &request).await?;
        self.remote.accept(batch.len(), resp.embeddings)
    }
}

#[async_trait]
impl Embedder for OllamaEmbedder {
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
    fn tags_must_be_pinned() {
        assert!(OllamaEmbedder::builder("nomic-embed-text").build().is_err());
        assert!(OllamaEmbedder::builder("nomic-embed-text:latest")
            .build()
            .is_err());
        assert!(OllamaEmbedder::builder("nomic-embed-text:latest")
            .allow_latest(true)
            .build()
            .is_ok());
        assert!(OllamaEmbedder::builder("registry.local:5000/lib/bge-m3")
            .build()
            .is_err());
        assert!(
            OllamaEmbedder::builder("registry.local:5000/lib/bge-m3:567m")
                .build()
                .is_ok()
        );
        assert!(OllamaEmbedder::builder("")
            .allow_latest(true)
            .build()
            .is_err());
    }

    #[test]
    fn nomic_prefixes_by_default_and_overridable() {
        let e = OllamaEmbedder::builder("nomic-embed-text:v1.5")
            .build()
            .unwrap();
        assert_eq!(e.prefixes(), ("search_document: ", "search_query: "));
        let e = OllamaEmbedder::builder("nomic-embed-text:v1.5")
            .document_prefix("")
            .query_prefix("q: ")
            .build()
            .unwrap();
        assert_eq!(e.prefixes(), ("", "q: "));
        let e = OllamaEmbedder::builder("all-minilm:l6-v2").build().unwrap();
        assert_eq!(e.prefixes(), ("", ""));
        assert_eq!(e.id().dim, 0, "dimension unknown until the first response");
        let e = OllamaEmbedder::builder("all-minilm:l6-v2")
            .dim(384)
            .embed_version("v7")
            .build()
            .unwrap();
        assert_eq!(e.id(), &EmbedderId::new("all-minilm:l6-v2", "v7", 384));
    }
}
