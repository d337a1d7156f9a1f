//! Build the configured embedder and generators.

use std::sync::Arc;

use verity_core::{Cache, ConfigError, Embedder, Error, Generator, Result, StoreError};
use verity_embed::{CachedEmbedder, OllamaEmbedder, OpenAiEmbedder};
use verity_llm::{ExtractiveGenerator, OllamaGenerator, OpenAiGenerator};
use verity_net::HttpClient;

use crate::config::{EmbedderSpec, GeneratorSpec, VerityConfig};

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| Error::from(StoreError::Backend(format!("loader task failed: {e}"))))?
}

/// The embedder for `config`, wrapped in the embedding cache.
/// `None` means lexical-only; a note says why.
pub(crate) async fn embedder(
    config: &VerityConfig,
    net: &HttpClient,
    cache: Arc<dyn Cache>,
    notes: &mut Vec<String>,
) -> Result<Option<Arc<dyn Embedder>>> {
    if matches!(config.embedder, EmbedderSpec::Auto | EmbedderSpec::Local(_))
        && config.embed_version.is_some()
    {
        notes.push(
            "EMBED_VERSION is ignored by the local embedder: its version is the hash of its \
             weights (and precision), recorded in the index; `reindex --version` only names \
             the new index"
                .into(),
        );
    }
    let inner: Arc<dyn Embedder> = match &config.embedder {
        EmbedderSpec::None => {
            notes.push("lexical-only: no embedder configured (BM25 search only)".into());
            return Ok(None);
        }
        EmbedderSpec::Auto => match local_embedder(None, true, config).await? {
            Some(e) => e,
            None => {
                notes.push(
                    "lexical-only: the local embedding model is not installed (run scripts/fetch-models.sh \
                     or set VERITY_MODEL_DIR); search uses BM25 only"
                        .into(),
                );
                return Ok(None);
            }
        },
        EmbedderSpec::Local(dir) => match local_embedder(dir.clone(), false, config).await? {
            Some(e) => e,
            None => {
                return Err(missing_model(
                    "local embedding model",
                    &default_embed_dir(dir),
                ))
            }
        },
        EmbedderSpec::Ollama(model) => {
            let mut b = OllamaEmbedder::builder(model.clone())
                .base_url(config.ollama_url.clone())
                .client(net);
            if let Some(v) = &config.embed_version {
                b = b.embed_version(v.clone());
            }
            if let Some(n) = config.embed_concurrency {
                b = b.concurrency(n);
            }
            Arc::new(b.build()?)
        }
        EmbedderSpec::OpenAi(model) => {
            let mut b = OpenAiEmbedder::builder(model.clone())
                .base_url(config.openai_url.clone())
                .client(net);
            if let Some(k) = &config.openai_key {
                b = b.api_key(k.clone());
            }
            if let Some(v) = &config.embed_version {
                b = b.embed_version(v.clone());
            }
            if let Some(n) = config.embed_concurrency {
                b = b.concurrency(n);
            }
            Arc::new(b.build()?)
        }
    };
    Ok(Some(Arc::new(CachedEmbedder::new(inner, cache))))
}

#[cfg(feature = "local-embed")]
fn default_embed_dir(dir: &Option<std::path::PathBuf>) -> std::path::PathBuf {
    dir.clone()
        .unwrap_or_else(verity_embed::LocalEmbedder::default_model_dir)
}

#[cfg(not(feature = "local-embed"))]
fn default_embed_dir(dir: &Option<std::path::PathBuf>) -> std::path::PathBuf {
    dir.clone().unwrap_or_default()
}

/// Where the local models are read from, whether they are installed, and
/// which kernels the embedder and the engine the generator use on this CPU
/// with `config` (`verity models`).
pub fn local_models(config: &VerityConfig) -> crate::api::ModelsResponse {
    let embed = default_embed_dir(&None);
    #[cfg(feature = "local-embed")]
    let kernels = Some(verity_embed::simd::kernel_note());
    #[cfg(not(feature = "local-embed"))]
    let kernels = None;
    #[cfg(feature = "local-llm")]
    let llm = verity_llm::LocalGgufGenerator::default_model_path();
    #[cfg(not(feature = "local-llm"))]
    let llm = std::path::PathBuf::new();
    crate::api::ModelsResponse {
        embedder: crate::api::LocalModel {
            installed: embed.join("model.safetensors").is_file(),
            path: embed,
            kernels,
        },
        generator: crate::api::LocalModel {
            installed: llm.is_file(),
            path: llm,
            kernels: generator_engine(config),
        },
    }
}

/// Which engine runs the local generator here (`verity models`).
#[cfg(feature = "local-llm")]
fn generator_engine(config: &VerityConfig) -> Option<String> {
    match config.local_engine.resolve() {
        Ok(e) => Some(format!("{} engine", e.name())),
        Err(e) => Some(format!("no engine: {e}")),
    }
}

#[cfg(not(feature = "local-llm"))]
fn generator_engine(_: &VerityConfig) -> Option<String> {
    None
}

/// Load the local embedder; `Ok(None)` when its files are absent and `optional`.
#[cfg(feature = "local-embed")]
async fn local_embedder(
    dir: Option<std::path::PathBuf>,
    optional: bool,
    config: &VerityConfig,
) -> Result<Option<Arc<dyn Embedder>>> {
    let dir = default_embed_dir(&dir);
    if optional && !dir.join("model.safetensors").is_file() {
        return Ok(None);
    }
    let (spans, int8) = (config.sentence_spans, config.embed_int8);
    let e = blocking(move || {
        let mut local = verity_embed::LocalEmbedderConfig::new(dir);
        if let Some(mode) = spans {
            local = local.span_mode(mode);
        }
        if int8 {
            local = local.precision(verity_embed::Precision::Int8);
        }
        verity_embed::LocalEmbedder::load(local)
    })
    .await?;
    Ok(Some(Arc::new(e)))
}

#[cfg(not(feature = "local-embed"))]
async fn local_embedder(
    dir: Option<std::path::PathBuf>,
    optional: bool,
    _config: &VerityConfig,
) -> Result<Option<Arc<dyn Embedder>>> {
    if optional {
        return Ok(None);
    }
    Err(verity_core::ConfigError::Invalid {
        key: "embedder".into(),
        message: format!("`local` needs the `local-embed` feature of the verity crate ({dir:?})"),
    }
    .into())
}

/// The generator described by `spec` (Ollama and OpenAI-compatible ones use the
/// URLs, key and HTTP settings of `config`), for pipelines built outside
/// [`crate::Verity`].
pub async fn generator(config: &VerityConfig, spec: &GeneratorSpec) -> Result<Arc<dyn Generator>> {
    let net = match &config.http {
        Some(http) => HttpClient::new(http.clone())?,
        None => HttpClient::shared_default()?,
    };
    generator_on(config, &net, spec).await
}

/// [`generator`] sending its requests through `net`.
pub(crate) async fn generator_on(
    config: &VerityConfig,
    net: &HttpClient,
    spec: &GeneratorSpec,
) -> Result<Arc<dyn Generator>> {
    Ok(match spec {
        GeneratorSpec::Extractive => Arc::new(ExtractiveGenerator::new()),
        GeneratorSpec::Local(path) => local_generator(path.clone(), config).await?,
        GeneratorSpec::Ollama(model) => Arc::new(
            OllamaGenerator::builder(model.clone())
                .base_url(config.ollama_url.clone())
                .client(net)
                .build()?,
        ),
        GeneratorSpec::OpenAi(model) => {
            let mut b =
                OpenAiGenerator::builder(config.openai_url.clone(), model.clone()).client(net);
            if let Some(k) = &config.openai_key {
                b = b.api_key(k.clone());
            }
            Arc::new(b.build()?)
        }
    })
}

#[cfg(feature = "local-llm")]
async fn local_generator(
    path: Option<std::path::PathBuf>,
    config: &VerityConfig,
) -> Result<Arc<dyn Generator>> {
    let path = path.unwrap_or_else(verity_llm::LocalGgufGenerator::default_model_path);
    if !path.is_file() {
        return Err(missing_model("local GGUF model", &path));
    }
    let mut local = verity_llm::LocalGgufConfig::new(path)
        .answer_format(config.local_answer)
        .engine(config.local_engine);
    if let Some(budget) = config.local_budget {
        local = local.budget(budget);
    }
    let g = blocking(move || verity_llm::LocalGgufGenerator::new(local)).await?;
    Ok(Arc::new(g))
}

#[cfg(not(feature = "local-llm"))]
async fn local_generator(
    path: Option<std::path::PathBuf>,
    _config: &VerityConfig,
) -> Result<Arc<dyn Generator>> {
    Err(verity_core::ConfigError::Invalid {
        key: "generator".into(),
        message: format!("`local` needs the `local-llm` feature of the verity crate ({path:?})"),
    }
    .into())
}

/// Error for a missing local model, with how to get it.
pub(crate) fn missing_model(what: &str, path: &std::path::Path) -> Error {
    ConfigError::Missing {
        what: what.into(),
        detail: format!(
            "{} not found; run scripts/fetch-models.sh (or set VERITY_MODEL_DIR)",
            path.display()
        ),
    }
    .into()
}
