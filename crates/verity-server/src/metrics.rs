//! Prometheus text exposition of everything recorded through the `metrics`
//! crate: the library's seed-001 series (`rag_retrieval_latency_ms`,
//! `rag_topk_score_max`, `rag_topk_score_mean`, `cache_hit_ratio`,
//! `timeout_rate`, `answer_hallucination_flag`, …) and the server's
//! `http_requests_total` / `http_request_duration_seconds` per route.

use std::sync::OnceLock;
use std::time::Duration;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// Latency buckets of `http_request_duration_seconds`.
const HTTP_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];
/// Buckets of `rag_retrieval_latency_ms`.
const RETRIEVAL_BUCKETS: &[f64] = &[
    0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 25.0, 50.0, 100.0, 250.0, 500.0, 1000.0, 2500.0,
];

/// The process-wide recorder (installed once; `None` when another recorder
/// was installed first by the embedding program).
pub fn handle() -> Option<PrometheusHandle> {
    HANDLE
        .get_or_init(|| {
            let builder = PrometheusBuilder::new()
                .set_buckets_for_metric(
                    Matcher::Full("http_request_duration_seconds".into()),
                    HTTP_BUCKETS,
                )
                .and_then(|b| {
                    b.set_buckets_for_metric(
                        Matcher::Full("rag_retrieval_latency_ms".into()),
                        RETRIEVAL_BUCKETS,
                    )
                })
                .ok()?;
            let handle = builder.install_recorder().ok()?;
            describe();
            // Every seed series from the first scrape, not after first use.
            verity::rag::register_metrics();
            Some(handle)
        })
        .clone()
}

/// Keep histograms bounded: run the exporter's upkeep periodically.
pub fn spawn_upkeep(handle: PrometheusHandle) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(5));
        loop {
            tick.tick().await;
            handle.run_upkeep();
        }
    });
}

fn describe() {
    metrics::describe_counter!(
        "http_requests_total",
        "HTTP requests by method, route and status"
    );
    metrics::describe_histogram!(
        "http_request_duration_seconds",
        metrics::Unit::Seconds,
        "HTTP request latency by method and route"
    );
    metrics::describe_histogram!(
        "rag_retrieval_latency_ms",
        metrics::Unit::Milliseconds,
        "Retrieval latency (query embedding + search + re-rank)"
    );
    metrics::describe_gauge!("rag_topk_score_max", "Best relevance of the last retrieval");
    metrics::describe_gauge!(
        "rag_topk_score_mean",
        "Mean relevance of the last retrieval's top k"
    );
    metrics::describe_gauge!("cache_hit_ratio", "Cache hit ratio by cache");
    metrics::describe_gauge!("timeout_rate", "Share of generations that timed out");
    metrics::describe_counter!(
        "answer_hallucination_flag",
        "Answers flagged as possibly not grounded (no valid citation)"
    );
}
