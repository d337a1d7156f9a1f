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
    /// `EMBED_VERSION`: bump it when the model, its settings or the
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

    /// Whether this embedder's vectors can be searched in an index built
    /// with `indexed`: same model and version, and the same dimension or one
    /// not known yet (`dim` 0: a remote embedder learns it from its first
    /// answer, which the caller then checks against `indexed.dim`).
    pub fn same_space(&self, indexed: &EmbedderId) -> bool {
        self.model == indexed.model
            && self.version == indexed.version
            && (self.dim == indexed.dim || self.dim == 0)
    }

    /// The version of the same local model running its 8-bit products
    /// (`--fast`): another vector space, so another version.
    pub fn int8_version(base: &str) -> String {
        format!("{base}{INT8_VERSION_SUFFIX}")
    }

    /// Whether this id names a local model's 8-bit products.
    pub fn is_int8(&self) -> bool {
        self.version.ends_with(INT8_VERSION_SUFFIX)
    }

    /// Whether `other` is this same model's 8-bit products.
    pub fn int8_of_this(&self, other: &EmbedderId) -> bool {
        other.model == self.model && other.version == Self::int8_version(&self.version)
    }
}

/// What the 8-bit products add to an embedder id's version
/// ([`EmbedderId::int8_version`]); `v2` since the calibrated scales.
const INT8_VERSION_SUFFIX: &str = "-int8v2";

impl std::fmt::Display for EmbedderId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}@{}/{}d", self.model, self.version, self.dim)
    }
}

/// A text to embed together with byte ranges inside it that also need a
/// vector each (the sentences of a chunk), for [`Embedder::embed_spans`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpanText {
    /// The whole text, context prefix included.
    pub text: String,
    /// Bytes at the start of `text` that are context (a title and heading
    /// path), not content: every span is read with this context.
    pub context: usize,
    /// Byte ranges of `text` (after `context`, on char boundaries), in order.
    pub spans: Vec<std::ops::Range<usize>>,
}

/// What [`Embedder::embed_spans`] returns for one [`SpanText`].
#[derive(Debug, Clone, PartialEq)]
pub struct SpanEmbeddings {
    /// The vector of the whole text (as [`Embedder::embed`] gives it).
    pub text: Embedding,
    /// One vector per span, in order.
    pub spans: Vec<Embedding>,
}

/// What [`Embedder::embed_tokens`] returns for one text: its vector and its
/// word pieces' contextual vectors, for token-level alignment (BERTScore,
/// ColBERT's MaxSim) where one pooled vector blurs a paraphrase.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TokenEmbeddings {
    /// The vector of the whole text (as [`Embedder::embed`] gives it).
    pub text: Embedding,
    /// One L2-normalised vector per word piece read (special tokens
    /// excluded; a text past the model's limit is truncated), in order.
    pub tokens: Vec<Embedding>,
    /// Byte range of each word piece in the text.
    pub offsets: Vec<std::ops::Range<usize>>,
}

/// How an embedder computes span vectors in [`Embedder::embed_spans`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpanMode {
    /// Each span is embedded on its own, as `context + span` (one more model
    /// call per span).
    Separate,
    /// Spans are pooled from the token states of the text's own pass ("late
    /// chunking": each sentence read in the context of its chunk; one pass).
    Pooled,
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

    /// About how many texts one [`embed`](Self::embed) call should carry
    /// for the best throughput; the ingest pipeline sizes its calls by it.
    /// Default 32 (the local model's passes hold fewer); remote embedders
    /// answer their request size times the requests they send at once, so
    /// one call keeps every connection busy.
    fn texts_per_call(&self) -> usize {
        32
    }

    /// How many times faster this embedder would embed a word piece with
    /// 8-bit products (the fast ingest profile) than it does now, measured on
    /// this CPU's kernels; `None` when it has no such option or runs it
    /// already. Feeds the ingest's estimate of the fast profile.
    fn int8_speedup(&self) -> Option<f64> {
        None
    }

    /// How [`embed_spans`](Self::embed_spans) computes span vectors.
    /// Recorded with every indexed document: a change re-processes it.
    fn span_mode(&self) -> SpanMode {
        SpanMode::Separate
    }

    /// Embed texts and spans inside them: per text, its own vector and one
    /// vector per span. The default embeds `context + span` for every span
    /// with [`embed`](Self::embed); local models override it to pool spans
    /// from one pass ([`SpanMode::Pooled`]).
    async fn embed_spans(&self, items: &[SpanText]) -> Result<Vec<SpanEmbeddings>> {
        embed_spans_separately(self, items).await
    }

    /// Embed texts with their word pieces' contextual vectors, or `None`
    /// when the embedder has no access to them (remote APIs: the default).
    /// Local models answer from the same pass as [`embed`](Self::embed).
    async fn embed_tokens(&self, texts: &[String]) -> Result<Option<Vec<TokenEmbeddings>>> {
        let _ = texts;
        Ok(None)
    }

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

/// [`SpanMode::Separate`]: embed every text, and every span as `context +
/// span`, with `embedder.embed` (one call). The default of
/// [`Embedder::embed_spans`]; wrappers that cache per text reuse it.
pub async fn embed_spans_separately<E: Embedder + ?Sized>(
    embedder: &E,
    items: &[SpanText],
) -> Result<Vec<SpanEmbeddings>> {
    let mut texts = Vec::new();
    for item in items {
        texts.push(item.text.clone());
        let context = item.text.get(..item.context).unwrap_or_default();
        for r in &item.spans {
            let span = item.text.get(r.clone()).ok_or_else(|| {
                crate::Error::invalid_input(format!(
                    "span {r:?} is not a char range of a {}-byte text",
                    item.text.len()
                ))
            })?;
            texts.push(format!("{context}{span}"));
        }
    }
    let vectors = embedder.embed(&texts).await?;
    if vectors.len() != texts.len() {
        return Err(crate::ProviderError::new(
            embedder.id().model.clone(),
            crate::ProviderErrorKind::BadResponse,
            format!("expected {} vectors, got {}", texts.len(), vectors.len()),
        )
        .into());
    }
    let mut vectors = vectors.into_iter();
    Ok(items
        .iter()
        .filter_map(|item| {
            Some(SpanEmbeddings {
                text: vectors.next()?,
                spans: vectors.by_ref().take(item.spans.len()).collect(),
            })
        })
        .collect())
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

    #[test]
    fn the_8_bit_products_are_another_version_of_the_same_model() {
        let f32 = EmbedderId::new("m", "abc", 384);
        let int8 = EmbedderId::new("m", EmbedderId::int8_version("abc"), 384);
        assert!(int8.is_int8() && !f32.is_int8());
        assert!(f32.int8_of_this(&int8));
        assert!(!int8.int8_of_this(&f32) && !f32.int8_of_this(&f32));
        assert!(!f32.same_space(&int8));
        // The first, all-8-bit form is neither.
        let old = EmbedderId::new("m", "abc-int8", 384);
        assert!(!old.is_int8() && !f32.int8_of_this(&old));
        assert!(!f32.int8_of_this(&EmbedderId::new("n", EmbedderId::int8_version("abc"), 384)));
    }
}
