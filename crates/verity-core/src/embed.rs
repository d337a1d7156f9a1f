//! The [`Embedder`] trait: text → vectors.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::Result;

/// A dense vector.
pub type Embedding = Vec<f32>;

/// Identity of an embedding space. Recorded in every index: vectors from two
/// different ids are never mixed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EmbedderId {
    /// Model name with its immutable tag (`all-MiniLM-L6-v2`, `nomic-embed-text:v1.5`).
    pub model: String,
    /// `EMBED_VERSION` (seed 001): bump it when the model, its settings or the
    /// chunking change; a change requires a full re-index.
    pub version: String,
    /// Vector dimension.
    pub dim: usize,
}

impl EmbedderId {
    /// Build an id.
    pub fn new(model: impl Into<String>, version: impl Into<String>, dim: usize) -> Self {
        Self {
            model: model.into(),
            version: version.into(),
            dim,
        }
    }
}

impl std::fmt::Display for EmbedderId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}@{}/{}d", self.model, self.version, self.dim)
    }
}

/// Turns text into vectors.
///
/// Implementations: local BERT-family models (candle), Ollama, any
/// OpenAI-compatible server. Returned vectors are L2-normalised, finite and
/// of dimension `id().dim`; implementations must check what servers send.
#[async_trait]
pub trait Embedder: Send + Sync {
    /// Identity of the embedding space.
    fn id(&self) -> &EmbedderId;

    /// Longest input, in the model's tokens, that is read without truncation.
    /// The chunker sizes chunks to fit.
    fn max_tokens(&self) -> usize;

    /// Embed passages (documents / chunks), one vector per text, in order.
    async fn embed(&self, texts: &[String]) -> Result<Vec<Embedding>>;

    /// Embed a search query. Models with asymmetric prefixes
    /// (`search_query:` for nomic) override this.
    async fn embed_query(&self, text: &str) -> Result<Embedding> {
        let mut v = self.embed(&[text.to_string()]).await?;
        v.pop().ok_or_else(|| {
            crate::ProviderError::new(
                self.id().model.clone(),
                crate::ProviderErrorKind::BadResponse,
                "no vector returned for the query",
            )
            .into()
        })
    }
}

/// Check a batch of vectors returned by a provider: count, dimension, finite values.
pub fn validate_embeddings(
    provider: &str,
    id: &EmbedderId,
    expected: usize,
    vectors: &[Embedding],
) -> Result<()> {
    use crate::{ProviderError, ProviderErrorKind::BadResponse};
    if vectors.len() != expected {
        return Err(ProviderError::new(
            provider,
            BadResponse,
            format!("expected {expected} vectors, got {}", vectors.len()),
        )
        .into());
    }
    for (i, v) in vectors.iter().enumerate() {
        if v.len() != id.dim {
            return Err(ProviderError::new(
                provider,
                BadResponse,
                format!(
                    "vector {i} has dimension {}, expected {} for {id}",
                    v.len(),
                    id.dim
                ),
            )
            .into());
        }
        if v.iter().any(|x| !x.is_finite()) {
            return Err(ProviderError::new(
                provider,
                BadResponse,
                format!("vector {i} contains NaN or infinity"),
            )
            .into());
        }
    }
    Ok(())
}

/// L2-normalise in place (no-op on the zero vector).
pub fn l2_normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

/// Cosine similarity of two vectors (0 when either is zero).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let (mut dot, mut na, mut nb) = (0.0f32, 0.0f32, 0.0f32);
    for (x, y) in a.iter().zip(b) {
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na.sqrt() * nb.sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_catches_bad_vectors() {
        let id = EmbedderId::new("m", "v1", 2);
        assert!(validate_embeddings("p", &id, 1, &[vec![0.1, 0.2]]).is_ok());
        assert!(validate_embeddings("p", &id, 2, &[vec![0.1, 0.2]]).is_err());
        assert!(validate_embeddings("p", &id, 1, &[vec![0.1]]).is_err());
        assert!(validate_embeddings("p", &id, 1, &[vec![f32::NAN, 0.0]]).is_err());
    }

    #[test]
    fn normalize_and_cosine() {
        let mut v = vec![3.0, 4.0];
        l2_normalize(&mut v);
        assert!((v[0] - 0.6).abs() < 1e-6);
        assert!((cosine(&[1.0, 0.0], &[0.0, 1.0])).abs() < 1e-6);
        assert!((cosine(&[1.0, 1.0], &[2.0, 2.0]) - 1.0).abs() < 1e-6);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
        assert_eq!(
            EmbedderId::new("m", "2025-10-01", 384).to_string(),
            "m@2025-10-01/384d"
        );
    }
}
