//! The `ask` path on SciFact through the facade's embedded default:
//! retrieval without generation (seed gate p95 ≤ 2.5 s, aim < 20 ms), the
//! extractive answer end to end, and retrieval / answer cache hits.
//! Figures: docs/benchmarks.d/generate.md.
//!
//! ```text
//! cargo bench -p verity-benches --bench rag
//! # hybrid with the local model, on a store already embedded by the beir_hybrid example:
//! VERITY_BENCH_RAG_HOME=/tmp/quality-work/ctx1-max254-ov33 cargo bench -p verity-benches --bench rag
//! ```
//!
//! Without `VERITY_BENCH_RAG_HOME` the corpus is ingested lexically (no model)
//! into a temporary store: the embedded default when no model is installed.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use verity::{AskRequest, EmbedderSpec, GeneratorSpec, SearchQuery, Verity, VerityConfig};

fn scifact() -> Option<PathBuf> {
    let dir = verity_benches::data_dir()?.join("scifact");
    dir.join("corpus.jsonl").is_file().then_some(dir)
}

fn queries(dir: &std::path::Path) -> Vec<String> {
    let text =
        std::fs::read_to_string(dir.join("queries_train.jsonl")).expect("queries_train.jsonl");
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["text"].as_str().map(str::to_string))
        .collect()
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let i = ((p / 100.0) * (v.len().saturating_sub(1)) as f64).round() as usize;
    v.get(i).copied().unwrap_or(f64::NAN)
}

fn report(name: &str, mut ms: Vec<f64>) {
    let n = ms.len();
    let (p50, p95, p99) = (pct(&mut ms, 50.0), pct(&mut ms, 95.0), pct(&mut ms, 99.0));
    eprintln!(
        "RAG {name:<44} p50 {p50:>8.3} ms  p95 {p95:>8.3} ms  p99 {p99:>8.3} ms  ({n} queries)"
    );
}

async fn open(home: PathBuf, embedded: bool, cache: bool) -> Verity {
    let config = VerityConfig {
        home,
        embedder: if embedded {
            EmbedderSpec::Local(None)
        } else {
            EmbedderSpec::None
        },
        generator: GeneratorSpec::Extractive,
        cache,
        ..VerityConfig::default()
    };
    Verity::open(config).await.expect("open the store")
}

/// Milliseconds of one `search` (k = 8) per query.
async fn time_searches(v: &Verity, qs: &[String]) -> Vec<f64> {
    let mut ms = Vec::with_capacity(qs.len());
    for q in qs {
        let t = Instant::now();
        std::hint::black_box(
            v.search_query(&SearchQuery::new(q.clone()).k(8))
                .await
                .expect("search"),
        );
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    ms
}

fn bench_rag(c: &mut Criterion) {
    let Some(dir) = scifact() else {
        eprintln!("rag bench: SciFact data not found (set VERITY_DATA_DIR); skipped");
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let qs = queries(&dir);
    let tmp = tempfile::tempdir().expect("tempdir");
    let (home, embedded) = match std::env::var_os("VERITY_BENCH_RAG_HOME") {
        Some(h) => (PathBuf::from(h), true),
        None => (tmp.path().join("store"), false),
    };
    let label = if embedded {
        "hybrid (local MiniLM)"
    } else {
        "lexical (no model)"
    };

    rt.block_on(async {
        if !embedded {
            let v = open(home.clone(), false, false).await;
            let t = Instant::now();
            let out = v
                .ingest_paths(&[dir.join("corpus.jsonl")], false, &|_| {})
                .await
                .expect("ingest SciFact");
            v.flush().expect("flush");
            eprintln!(
                "RAG ingest SciFact (lexical, facade defaults): {} documents in {:.2} s",
                out.inserted,
                t.elapsed().as_secs_f64()
            );
        }
        // Uncached: retrieval only (embed query + search + re-rank + guardrail), then the whole ask.
        let v = open(home.clone(), embedded, false).await;
        let first = Instant::now();
        v.search_query(&SearchQuery::new(qs[0].clone()).k(8))
            .await
            .expect("warm-up search");
        eprintln!(
            "RAG first search after open: {:.1} ms",
            first.elapsed().as_secs_f64() * 1e3
        );
        report(
            &format!("retrieve k=8, {label}"),
            time_searches(&v, &qs).await,
        );
        let mut ms = Vec::new();
        let mut answered = 0;
        for q in &qs {
            let t = Instant::now();
            let a = v.ask(&AskRequest::new(q.clone())).await.expect("ask");
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            answered += usize::from(!a.citations.is_empty());
        }
        report(&format!("ask, extractive, {label}"), ms);
        eprintln!("RAG answers with citations: {answered}/{}", qs.len());
        drop(v);

        // Cached: one pass to fill, one pass of hits.
        let v = open(home.clone(), embedded, true).await;
        for q in &qs {
            v.ask(&AskRequest::new(q.clone())).await.expect("ask");
        }
        report(
            &format!("retrieval cache hit, {label}"),
            time_searches(&v, &qs).await,
        );
        let mut ms = Vec::new();
        for q in &qs {
            let t = Instant::now();
            std::hint::black_box(v.ask(&AskRequest::new(q.clone())).await.expect("ask"));
            ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
        report(&format!("answer cache hit, {label}"), ms);
    });

    let v = rt.block_on(open(home.clone(), embedded, false));
    let mut group = c.benchmark_group("rag");
    group.measurement_time(Duration::from_secs(8));
    let mut i = 0usize;
    group.bench_function("retrieve_k8", |b| {
        b.iter(|| {
            i = (i + 1) % qs.len();
            rt.block_on(v.search_query(&SearchQuery::new(qs[i].clone()).k(8)))
                .expect("search")
        })
    });
    group.bench_function("ask_extractive", |b| {
        b.iter(|| {
            i = (i + 1) % qs.len();
            rt.block_on(v.ask(&AskRequest::new(qs[i].clone())))
                .expect("ask")
        })
    });
    group.finish();
}

criterion_group!(benches, bench_rag);
criterion_main!(benches);
