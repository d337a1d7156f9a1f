//! Embedders for Verity: text → L2-normalised vectors.
//!
//! | type | backend | notes |
//! |---|---|---|
//! | [`LocalEmbedder`] (feature `local`, default) | BERT-family sentence-transformers models on the CPU with candle | default model all-MiniLM-L6-v2 (384 d) from [`LocalEmbedder::default_model_dir`] |
//! | [`OllamaEmbedder`] | `POST /api/embed` on an Ollama server | pinned model tags, nomic prefixes |
//! | [`OpenAiEmbedder`] | `POST /v1/embeddings` on any OpenAI-compatible server | optional bearer key |
//! | [`CachedEmbedder`] | wraps any of them with a [`verity_core::Cache`] | only misses reach the inner embedder |
//!
//! All implement [`verity_core::Embedder`] and report failures as typed
//! [`verity_core::Error`]s (provider errors say whether a retry may help).
//!
//! ```no_run
//! # async fn demo() -> verity_core::Result<()> {
//! use verity_core::Embedder;
//! let local = verity_embed::LocalEmbedder::load_default()?;
//! let vectors = local.embed(&["Verity cites its sources.".to_string()]).await?;
//! assert_eq!(vectors[0].len(), local.id().dim);
//!
//! let ollama = verity_embed::OllamaEmbedder::builder("nomic-embed-text:v1.5").dim(768).build()?;
//! let q = ollama.embed_query("what is verity?").await?; // sent as "search_query: what is verity?"
//! # let _ = q; Ok(()) }
//! ```

#[cfg(feature = "local")]
mod amx;
#[cfg(feature = "local")]
mod bert;
mod cached;
#[cfg(feature = "local")]
mod calibration;
#[cfg(feature = "local")]
mod fastmath;
#[cfg(feature = "local")]
pub mod int16mm;
#[cfg(feature = "local")]
pub mod int8mm;
#[cfg(feature = "local")]
mod intmm;
#[cfg(feature = "local")]
mod local;
mod ollama;
mod openai;
#[cfg(feature = "local")]
mod passes;
mod remote;
#[cfg(feature = "local")]
pub mod simd;
#[cfg(feature = "local")]
mod smallmm;
#[cfg(feature = "local")]
mod spans;

pub use cached::{CacheStats, CachedEmbedder};

/// Every slot's value, or an error naming `provider` when one was left empty
/// (batches fill their texts' slots out of order).
pub(crate) fn filled<T>(provider: &str, out: Vec<Option<T>>) -> verity_core::Result<Vec<T>> {
    out.into_iter()
        .map(|v| {
            v.ok_or_else(|| {
                verity_core::ProviderError::new(
                    provider,
                    verity_core::ProviderErrorKind::BadResponse,
                    "a text got no vector",
                )
                .into()
            })
        })
        .collect()
}
#[cfg(feature = "local")]
pub use local::{Engine, LocalEmbedder, LocalEmbedderConfig, Pooling, Precision, DEFAULT_MODEL};
pub use ollama::{OllamaEmbedder, OllamaEmbedderBuilder, DEFAULT_OLLAMA_URL};
pub use openai::{OpenAiEmbedder, OpenAiEmbedderBuilder, DEFAULT_OPENAI_URL};
