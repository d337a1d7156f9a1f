//! Retrieval: query embedding → store search → freshness re-rank → guardrail,
//! with an optional retrieval cache (`rag:retrieval:{query_hash}`, 24 h).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use tracing::{debug, info_span, Instrument};
use verity_core::cache::{retrieval_key, RETRIEVAL_TTL};
use verity_core::rank::{freshness, not_enough_evidence, Rerank};
use verity_core::{
    Cache, Embedder, EmbedderId, Result, ScoredChunk, SearchMode, SearchQuery, SearchResults,
    VectorStore,
};

/// Settings of a [`Retriever`].
#[derive(Debug, Clone, PartialEq)]
pub struct RetrieverConfig {
    /// Freshness re-rank (seed 001: similarity + exponential decay on `ts`).
    pub rerank: Option<Rerank>,
    /// Guardrail: best relevance under this ⇒ `not_enough_evidence` (seed:
    /// 0.35, on the calibrated scale of [`verity_core::rank::relevance`]).
    pub min_relevance: f32,
    /// TTL of cached retrievals (seed: 24 h).
    pub cache_ttl: Duration,
}

impl Default for RetrieverConfig {
    fn default() -> Self {
        Self {
            rerank: Some(Rerank::default()),
            min_relevance: verity_core::rank::GUARDRAIL,
            cache_ttl: RETRIEVAL_TTL,
        }
    }
}

/// Hit/miss counters of a cache, shared by the pipeline stages.
#[derive(Debug, Default)]
pub struct CacheCounters {
    hits: AtomicU64,
    misses: AtomicU64,
}

impl CacheCounters {
    /// Record a hit.
    pub fn hit(&self) {
        self.hits.fetch_add(1, Ordering::Relaxed);
    }
    /// Record a miss.
    pub fn miss(&self) {
        self.misses.fetch_add(1, Ordering::Relaxed);
    }
    /// `(hits, misses)` so far.
    pub fn get(&self) -> (u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
        )
    }
    /// Hits / (hits + misses), 0 when nothing was looked up.
    pub fn ratio(&self) -> f64 {
        let (h, m) = self.get();
        if h + m == 0 {
            0.0
        } else {
            h as f64 / (h + m) as f64
        }
    }
}

/// Runs searches against a store, embedding queries when an embedder is set.
///
/// Without an embedder (or on an index without vectors) dense and hybrid
/// queries run lexically and the results say so in `notes`: that is the
/// honest behaviour of the embedded default before a model is installed.
pub struct Retriever {
    store: Arc<dyn VectorStore>,
    embedder: Option<Arc<dyn Embedder>>,
    cache: Option<Arc<dyn Cache>>,
    config: RetrieverConfig,
    counters: Arc<CacheCounters>,
    index: String,
}

impl Retriever {
    /// A retriever over `store` with default settings and no embedder.
    pub fn new(store: Arc<dyn VectorStore>) -> Self {
        Self {
            store,
            embedder: None,
            cache: None,
            config: RetrieverConfig::default(),
            counters: Arc::new(CacheCounters::default()),
            index: String::new(),
        }
    }

    /// Name of the index searched, part of the retrieval cache key so that
    /// indexes sharing a cache (one home, one Redis server) never see each other's hits.
    pub fn with_index(mut self, index: impl Into<String>) -> Self {
        self.index = index.into();
        self
    }

    /// Embed queries with `embedder` (enables dense and hybrid modes).
    pub fn with_embedder(mut self, embedder: Option<Arc<dyn Embedder>>) -> Self {
        self.embedder = embedder;
        self
    }

    /// Cache retrievals in `cache`.
    pub fn with_cache(mut self, cache: Option<Arc<dyn Cache>>) -> Self {
        self.cache = cache;
        self
    }

    /// Replace the settings.
    pub fn with_config(mut self, config: RetrieverConfig) -> Self {
        self.config = config;
        self
    }

    /// Settings in use.
    pub fn config(&self) -> &RetrieverConfig {
        &self.config
    }

    /// The store searched.
    pub fn store(&self) -> &Arc<dyn VectorStore> {
        &self.store
    }

    /// The query embedder, if any.
    pub fn embedder(&self) -> Option<&Arc<dyn Embedder>> {
        self.embedder.as_ref()
    }

    /// Retrieval cache hit/miss counters.
    pub fn cache_counters(&self) -> &Arc<CacheCounters> {
        &self.counters
    }

    /// Search, re-rank and apply the guardrail.
    pub async fn retrieve(&self, query: &SearchQuery) -> Result<SearchResults> {
        let started = Instant::now();
        query.validate()?;
        let mut notes = Vec::new();
        let mut q = query.clone();
        self.resolve_mode(&mut q, &mut notes).await?;

        let key = match &self.cache {
            Some(_) => self
                .generation()
                .await?
                .map(|generation| retrieval_key(&q.text, &self.scope(&q, &generation))),
            None => None,
        };
        if let (Some(cache), Some(key)) = (&self.cache, &key) {
            if let Some(bytes) = cache.get(key).await? {
                if let Ok(hits) = serde_json::from_slice::<Vec<ScoredChunk>>(&bytes) {
                    self.counters.hit();
                    metrics::counter!("verity_cache_hits_total", "cache" => "retrieval")
                        .increment(1);
                    notes.push("served from the retrieval cache".into());
                    return Ok(self.finish(hits, q.mode, notes, started));
                }
            }
            self.counters.miss();
            metrics::counter!("verity_cache_misses_total", "cache" => "retrieval").increment(1);
        }

        let hits = self
            .store
            .search(&q)
            .instrument(info_span!("search", mode = %q.mode, k = q.k))
            .await?;
        let hits = {
            let _span = info_span!("rerank", n = hits.len()).entered();
            match &self.config.rerank {
                Some(r) => rerank(hits, r),
                None => hits,
            }
        };
        if let (Some(cache), Some(key)) = (&self.cache, &key) {
            if let Ok(bytes) = serde_json::to_vec(&hits) {
                cache
                    .put(key, &bytes, Some(self.config.cache_ttl), &[])
                    .await?;
            }
        }
        Ok(self.finish(hits, q.mode, notes, started))
    }

    fn finish(
        &self,
        hits: Vec<ScoredChunk>,
        mode: SearchMode,
        notes: Vec<String>,
        started: Instant,
    ) -> SearchResults {
        let rel: Vec<f32> = hits.iter().map(|h| h.relevance).collect();
        let max = rel.iter().copied().fold(0.0f32, f32::max);
        let mean = if rel.is_empty() {
            0.0
        } else {
            rel.iter().sum::<f32>() / rel.len() as f32
        };
        metrics::histogram!("rag_retrieval_latency_ms")
            .record(started.elapsed().as_secs_f64() * 1000.0);
        metrics::gauge!("rag_topk_score_max").set(max as f64);
        metrics::gauge!("rag_topk_score_mean").set(mean as f64);
        metrics::gauge!("cache_hit_ratio", "cache" => "retrieval").set(self.counters.ratio());
        let not_enough = not_enough_evidence(rel, self.config.min_relevance);
        debug!(hits = hits.len(), max, not_enough, "retrieved");
        SearchResults {
            hits,
            mode,
            not_enough_evidence: not_enough,
            notes,
        }
    }

    /// Pick the mode that can actually run and embed the query when needed —
    /// the one place where a search falls back to lexical: no embedder, no
    /// vectors in the index, or vectors from another embedding space. The
    /// fallback is said in the results' notes, which every host shows.
    async fn resolve_mode(&self, q: &mut SearchQuery, notes: &mut Vec<String>) -> Result<()> {
        if q.mode == SearchMode::Lexical || q.vector.is_some() {
            return Ok(());
        }
        let Some(embedder) = &self.embedder else {
            notes.push(match self.empty_store_note().await {
                Some(n) => n,
                None => format!(
                    "{} search requested but no embedding model is configured: ran lexical (BM25) search only. \
                     Install the local model with scripts/fetch-models.sh or configure an embedder.",
                    q.mode
                ),
            });
            q.mode = SearchMode::Lexical;
            return Ok(());
        };
        let indexed = match self.store.embedder().await? {
            None => {
                notes.push(match self.empty_store_note().await {
                    Some(n) => n,
                    None => format!(
                        "{} search requested but this store was ingested without an embedder, so it \
                         holds no vectors: ran lexical (BM25) search only. For dense search, ingest \
                         the documents again with an embedder (`verity ingest PATH --embedder local`, \
                         or VERITY_EMBEDDER=local)",
                        q.mode
                    ),
                });
                q.mode = SearchMode::Lexical;
                return Ok(());
            }
            Some(indexed) => indexed,
        };
        let other_space = |notes: &mut Vec<String>, q: &mut SearchQuery, id: &EmbedderId| {
            notes.push(format!(
                "{} search requested but the index was built with {indexed} and the configured \
                 embedder is {id}: ran lexical (BM25) search only. Re-index to search densely.",
                q.mode,
            ));
            q.mode = SearchMode::Lexical;
        };
        if !embedder.id().same_space(&indexed) {
            other_space(notes, q, embedder.id());
            return Ok(());
        }
        let v = embedder
            .embed_query(&q.text)
            .instrument(info_span!("embed", n = 1))
            .await?;
        // A remote embedder's dimension is known from its first answer only.
        if v.len() != indexed.dim {
            let answered = EmbedderId::new(&embedder.id().model, &embedder.id().version, v.len());
            other_space(notes, q, &answered);
            return Ok(());
        }
        q.vector = Some(v);
        Ok(())
    }

    /// The note for a search on an empty store, which says what to do first
    /// (rather than what the search fell back to).
    async fn empty_store_note(&self) -> Option<String> {
        let empty = self
            .store
            .stats()
            .await
            .map(|s| s.documents == 0)
            .unwrap_or(false);
        empty.then(|| {
            "the store is empty: ingest documents first (CLI: `verity ingest PATH`; \
             REST: POST /v1/ingest)"
                .to_string()
        })
    }

    /// The store's current [`WriteGeneration`] and ranking settings, as
    /// folded into cache keys (`None`: the store cannot tell, so nothing is
    /// cached). Read before searching: a write that commits during the
    /// search moves the generation, and the entry written after it is never
    /// read under the new one.
    pub async fn generation(&self) -> Result<Option<String>> {
        Ok(self.store.write_generation().await?.map(|g| {
            format!(
                "{g}|{}|{}|{}",
                self.store.backend(),
                self.store.ranking_fingerprint(),
                verity_core::rank::RELEVANCE_REVISION
            )
        }))
    }

    /// What, besides the query text, changes a retrieval result: the state of
    /// the index (`generation`, from [`Self::generation`]), the query's
    /// settings and the retriever's.
    fn scope(&self, q: &SearchQuery, generation: &str) -> String {
        let embedder = self
            .embedder
            .as_ref()
            .map(|e| e.id().to_string())
            .unwrap_or_default();
        let filters = serde_json::to_string(&q.filters).unwrap_or_default();
        let fusion = serde_json::to_string(&q.fusion).unwrap_or_default();
        let rerank = self
            .config
            .rerank
            .map(|r| format!("{}:{}:{}", r.freshness_weight, r.half_life.as_secs(), r.top));
        format!(
            "{generation}|{}|{}|{}|{}|{}|{:?}|{}",
            self.index, q.mode, q.k, filters, fusion, rerank, embedder
        )
    }
}

/// Re-order the best `rerank.top` hits (all when 0) by
/// `(1 − w) · score/score_max + w · freshness`. When no hit is dated the
/// order is unchanged.
pub fn rerank(mut hits: Vec<ScoredChunk>, rerank: &Rerank) -> Vec<ScoredChunk> {
    if hits.is_empty() {
        return hits;
    }
    let now = Utc::now();
    let window = if rerank.top == 0 {
        hits.len()
    } else {
        rerank.top.min(hits.len())
    };
    let max = hits.iter().map(|h| h.score).fold(f32::MIN, f32::max);
    let w = rerank.freshness_weight.clamp(0.0, 1.0);
    let mut keyed: Vec<(f32, ScoredChunk)> = hits
        .drain(..window)
        .map(|mut h| {
            let f = freshness(h.doc.ts, now, rerank.half_life, 0.5);
            h.freshness = Some(f);
            let norm = if max > 0.0 { h.score / max } else { 0.0 };
            ((1.0 - w) * norm + w * f, h)
        })
        .collect();
    keyed.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut out: Vec<ScoredChunk> = keyed.into_iter().map(|(_, h)| h).collect();
    out.append(&mut hits);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration as CDuration;
    use verity_core::{Chunk, DocumentMeta};

    pub(crate) fn hit(uid: &str, score: f32, age_days: Option<i64>) -> ScoredChunk {
        ScoredChunk {
            chunk: Chunk {
                id: Chunk::make_id(uid, 0),
                doc_uid: uid.into(),
                index: 0,
                text: format!("text of {uid}"),
                start: 0,
                end: 10,
                heading_path: vec![],
                token_count: 3,
            },
            doc: DocumentMeta {
                uid: uid.into(),
                source: "s".into(),
                ts: age_days.map(|d| Utc::now() - CDuration::days(d)),
                lang: None,
                title: None,
                tags: vec![],
                url: None,
                metadata: Default::default(),
            },
            score,
            relevance: score,
            lexical: None,
            dense: Some(score),
            freshness: None,
        }
    }

    #[test]
    fn rerank_promotes_fresh_documents_within_the_window() {
        let r = Rerank {
            freshness_weight: 0.5,
            half_life: Duration::from_secs(30 * 86400),
            top: 3,
        };
        let hits = vec![
            hit("old", 0.80, Some(3650)),
            hit("new", 0.75, Some(1)),
            hit("mid", 0.7, Some(60)),
            hit("tail", 0.1, Some(0)),
        ];
        let out = rerank(hits, &r);
        let order: Vec<_> = out.iter().map(|h| h.doc.uid.as_str()).collect();
        assert_eq!(
            order,
            vec!["new", "mid", "old", "tail"],
            "tail is outside the window"
        );
        assert!(out[0].freshness.unwrap() > 0.9);
    }

    #[test]
    fn rerank_keeps_order_of_undated_hits() {
        let r = Rerank {
            top: 0,
            ..Rerank::default()
        };
        let hits = vec![
            hit("a", 0.9, None),
            hit("b", 0.5, None),
            hit("c", 0.4, None),
        ];
        let out = rerank(hits, &r);
        let order: Vec<_> = out.iter().map(|h| h.doc.uid.as_str()).collect();
        assert_eq!(order, vec!["a", "b", "c"]);
    }
}
