//! [`CachedEmbedder`]: a vector cache in front of any [`Embedder`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use verity_core::cache::{embedding_key, vector_from_bytes, vector_to_bytes};
use verity_core::{
    embed_spans_separately, Cache, Embedder, EmbedderId, Embedding, ProviderError,
    ProviderErrorKind, Result, SpanEmbeddings, SpanMode, SpanText, TokenEmbeddings,
};

pub use verity_core::CacheStats;

/// Caches vectors under [`embedding_key`] (`sha1(text) | model | embed_version`),
/// as little-endian `f32` bytes, without expiry.
///
/// Only the misses of a call go to the inner embedder, in one call (repeated
/// texts are embedded once). A cache that fails to read or write is logged and
/// bypassed: embedding still succeeds. Queries are cached too, under the key of
/// `"\u{1f}query\u{1f}" + text`, because [`Embedder::embed_query`] may differ from
/// [`Embedder::embed`] (asymmetric prefixes). Span vectors
/// ([`Embedder::embed_spans`]) are cached per text when the inner embedder
/// embeds spans separately, and per whole item (text, context and spans; all
/// its vectors under one key) when it pools them.
pub struct CachedEmbedder {
    inner: Arc<dyn Embedder>,
    cache: Arc<dyn Cache>,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl std::fmt::Debug for CachedEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CachedEmbedder")
            .field("inner", self.inner.id())
            .field("stats", &self.stats())
            .finish()
    }
}

impl CachedEmbedder {
    /// Wrap `inner` with `cache`.
    pub fn new(inner: Arc<dyn Embedder>, cache: Arc<dyn Cache>) -> Self {
        Self {
            inner,
            cache,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// The wrapped embedder.
    pub fn inner(&self) -> &Arc<dyn Embedder> {
        &self.inner
    }

    /// Texts answered from the cache so far.
    pub fn hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }

    /// Texts sent to the inner embedder so far.
    pub fn misses(&self) -> u64 {
        self.misses.load(Ordering::Relaxed)
    }

    /// Both counters.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits(),
            misses: self.misses(),
        }
    }

    /// A cached vector for `key`, if present and plausible.
    async fn lookup(&self, key: &str) -> Option<Embedding> {
        self.lookup_many(&[key.to_string()], &[1])
            .await
            .into_iter()
            .next()
            .flatten()
    }

    /// Cached runs of `rows[i]` vectors stored back to back under each
    /// `keys[i]`, in one round trip to the cache (`None` where absent or
    /// implausible; a cache that fails is bypassed).
    async fn lookup_many(&self, keys: &[String], rows: &[usize]) -> Vec<Option<Embedding>> {
        let found = match self.cache.get_many(keys).await {
            Ok(found) => found,
            Err(e) => {
                tracing::warn!(error = %e, "embedding cache read failed; embedding anyway");
                return vec![None; keys.len()];
            }
        };
        let dim = self.inner.id().dim;
        keys.iter()
            .zip(found)
            .zip(rows.iter().chain(std::iter::repeat(&1)))
            .map(|((key, bytes), &rows)| {
                let v = vector_from_bytes(&bytes?)?;
                let ok = !v.is_empty()
                    && (if dim == 0 {
                        v.len() % rows.max(1) == 0
                    } else {
                        v.len() == dim * rows
                    })
                    && v.iter().all(|x| x.is_finite());
                if !ok {
                    tracing::warn!(key, "ignoring a malformed cached embedding");
                }
                ok.then_some(v)
            })
            .collect()
    }

    /// Store vectors under their keys, in one write to the cache.
    async fn store_many(&self, entries: Vec<(String, Vec<u8>)>) {
        if let Err(e) = self.cache.put_many(&entries, None).await {
            tracing::warn!(error = %e, entries = entries.len(), "embedding cache write failed");
        }
    }

    async fn store(&self, key: &str, v: &[f32]) {
        self.store_many(vec![(key.to_string(), vector_to_bytes(v))])
            .await;
    }
}

fn query_cache_text(text: &str) -> String {
    format!("\u{1f}query\u{1f}{text}")
}

/// The cache text of a pooled span item: context length and spans, then the text.
fn spans_cache_text(item: &SpanText) -> String {
    let spans: Vec<String> = item
        .spans
        .iter()
        .map(|r| format!("{}-{}", r.start, r.end))
        .collect();
    format!(
        "\u{1f}spans\u{1f}{}\u{1f}{}\u{1f}{}",
        item.context,
        spans.join(","),
        item.text
    )
}

#[async_trait]
impl Embedder for CachedEmbedder {
    fn id(&self) -> &EmbedderId {
        self.inner.id()
    }

    fn max_tokens(&self) -> usize {
        self.inner.max_tokens()
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Embedding>> {
        let mut out: Vec<Option<Embedding>> = vec![None; texts.len()];
        // Distinct texts in first-seen order, with the slots they fill.
        let mut distinct: Vec<&str> = Vec::new();
        let mut slots_of: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, text) in texts.iter().enumerate() {
            match slots_of.get_mut(text.as_str()) {
                Some(slots) => slots.push(i),
                None => {
                    distinct.push(text.as_str());
                    slots_of.insert(text.as_str(), vec![i]);
                }
            }
        }
        let keys: Vec<String> = distinct
            .iter()
            .map(|t| embedding_key(t, self.inner.id()))
            .collect();
        let cached = self.lookup_many(&keys, &vec![1; keys.len()]).await;
        let mut missing: Vec<String> = Vec::new();
        for (text, found) in distinct.iter().zip(cached) {
            match found {
                Some(v) => {
                    self.hits.fetch_add(1, Ordering::Relaxed);
                    for &i in slots_of.get(text).map(Vec::as_slice).unwrap_or_default() {
                        if let Some(slot) = out.get_mut(i) {
                            *slot = Some(v.clone());
                        }
                    }
                }
                None => missing.push((*text).to_string()),
            }
        }
        // Repeats of a text count as hits: they are not sent again.
        let repeats = texts.len() - distinct.len();
        if !missing.is_empty() {
            self.misses
                .fetch_add(missing.len() as u64, Ordering::Relaxed);
            let vectors = self.inner.embed(&missing).await?;
            if vectors.len() != missing.len() {
                return Err(ProviderError::new(
                    self.inner.id().model.clone(),
                    ProviderErrorKind::BadResponse,
                    format!("expected {} vectors, got {}", missing.len(), vectors.len()),
                )
                .into());
            }
            // The inner embedder may only now know its dimension: build keys after the call.
            let mut entries = Vec::with_capacity(missing.len());
            for (text, v) in missing.iter().zip(vectors) {
                entries.push((embedding_key(text, self.inner.id()), vector_to_bytes(&v)));
                for &i in slots_of
                    .get(text.as_str())
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                {
                    if let Some(slot) = out.get_mut(i) {
                        *slot = Some(v.clone());
                    }
                }
            }
            self.store_many(entries).await;
        }
        self.hits.fetch_add(repeats as u64, Ordering::Relaxed);
        crate::filled("cache", out)
    }

    fn texts_per_call(&self) -> usize {
        self.inner.texts_per_call()
    }

    fn int8_speedup(&self) -> Option<f64> {
        self.inner.int8_speedup()
    }

    fn span_mode(&self) -> SpanMode {
        self.inner.span_mode()
    }

    /// Word-piece states are not cached (too large): the inner embedder's.
    async fn embed_tokens(&self, texts: &[String]) -> Result<Option<Vec<TokenEmbeddings>>> {
        self.inner.embed_tokens(texts).await
    }

    async fn embed_spans(&self, items: &[SpanText]) -> Result<Vec<SpanEmbeddings>> {
        if self.inner.span_mode() == SpanMode::Separate {
            return embed_spans_separately(self, items).await;
        }
        let mut out: Vec<Option<SpanEmbeddings>> = vec![None; items.len()];
        let mut missing: Vec<usize> = Vec::new();
        let keys: Vec<String> = items
            .iter()
            .map(|item| embedding_key(&spans_cache_text(item), self.inner.id()))
            .collect();
        let rows: Vec<usize> = items.iter().map(|i| i.spans.len() + 1).collect();
        let found = self.lookup_many(&keys, &rows).await;
        for (i, (flat, &rows)) in found.into_iter().zip(&rows).enumerate() {
            let cached = flat.and_then(|flat| {
                let dim = flat.len() / rows;
                (dim > 0).then(|| {
                    let mut rows = flat.chunks(dim).map(<[f32]>::to_vec);
                    SpanEmbeddings {
                        text: rows.next().unwrap_or_default(),
                        spans: rows.collect(),
                    }
                })
            });
            match (cached, out.get_mut(i)) {
                (Some(v), Some(slot)) => {
                    *slot = Some(v);
                    self.hits.fetch_add(1, Ordering::Relaxed);
                }
                _ => missing.push(i),
            }
        }
        if !missing.is_empty() {
            self.misses
                .fetch_add(missing.len() as u64, Ordering::Relaxed);
            let todo: Vec<SpanText> = missing
                .iter()
                .filter_map(|&i| items.get(i).cloned())
                .collect();
            let fresh = self.inner.embed_spans(&todo).await?;
            if fresh.len() != todo.len() {
                return Err(ProviderError::new(
                    self.inner.id().model.clone(),
                    ProviderErrorKind::BadResponse,
                    format!("expected {} span results, got {}", todo.len(), fresh.len()),
                )
                .into());
            }
            let mut entries = Vec::with_capacity(todo.len());
            for ((&i, item), v) in missing.iter().zip(&todo).zip(fresh) {
                let mut flat = v.text.clone();
                v.spans.iter().for_each(|s| flat.extend_from_slice(s));
                entries.push((
                    embedding_key(&spans_cache_text(item), self.inner.id()),
                    vector_to_bytes(&flat),
                ));
                if let Some(slot) = out.get_mut(i) {
                    *slot = Some(v);
                }
            }
            self.store_many(entries).await;
        }
        crate::filled("cache", out)
    }

    async fn embed_query(&self, text: &str) -> Result<Embedding> {
        let key = embedding_key(&query_cache_text(text), self.inner.id());
        if let Some(v) = self.lookup(&key).await {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(v);
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let v = self.inner.embed_query(text).await?;
        self.store(&key, &v).await;
        Ok(v)
    }
}
