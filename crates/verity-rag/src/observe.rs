//! The metric series the pipeline emits (seed 001's, plus counters), and
//! [`register_metrics`], which makes each of them exist — at zero — before
//! its first use, so that a Prometheus scrape right after start lists them all.

/// Seed 001's series: retrieval latency histogram, top-k score gauges, cache
/// hit ratio, timeout rate, and the hallucination flag counter.
pub const SEED_SERIES: [&str; 6] = [
    "rag_retrieval_latency_ms",
    "rag_topk_score_max",
    "rag_topk_score_mean",
    "cache_hit_ratio",
    "timeout_rate",
    "answer_hallucination_flag",
];

/// Register every series the pipeline emits with the installed `metrics`
/// recorder, at zero (a no-op without a recorder). Hosts call it once after
/// installing their exporter.
pub fn register_metrics() {
    let _ = metrics::histogram!("rag_retrieval_latency_ms");
    metrics::gauge!("rag_topk_score_max").set(0.0);
    metrics::gauge!("rag_topk_score_mean").set(0.0);
    metrics::gauge!("timeout_rate").set(0.0);
    metrics::counter!("answer_hallucination_flag").increment(0);
    metrics::counter!("rag_fallback_total").increment(0);
    metrics::counter!("rag_not_enough_evidence_total").increment(0);
    metrics::counter!("timeout_total").increment(0);
    metrics::counter!("verity_prompt_injection_flagged_total").increment(0);
    for cache in ["retrieval", "answer"] {
        metrics::gauge!("cache_hit_ratio", "cache" => cache).set(0.0);
        metrics::counter!("verity_cache_hits_total", "cache" => cache).increment(0);
        metrics::counter!("verity_cache_misses_total", "cache" => cache).increment(0);
    }
}
