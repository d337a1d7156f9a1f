//! SQLite store benchmarks on SciFact (5,183 abstracts): lexical-only ingest
//! throughput and BM25 query latency. Figures: docs/benchmarks.d/store.md.
//!
//! `cargo bench -p verity-benches --bench store`

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use verity_core::{Chunk, Document, IndexedDocument, SearchMode, SearchQuery, VectorStore};
use verity_store::{SqliteStore, StoreOptions};

fn scifact() -> Option<PathBuf> {
    let dir = verity_benches::data_dir()?.join("scifact");
    dir.join("corpus.jsonl").is_file().then_some(dir)
}

fn load_corpus(dir: &Path) -> Vec<IndexedDocument> {
    let text = std::fs::read_to_string(dir.join("corpus.jsonl")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let mut d = Document::new(v["_id"].as_str().unwrap(), v["text"].as_str().unwrap_or(""));
            d.title = v["title"].as_str().map(str::to_string);
            let chunk = Chunk {
                id: Chunk::make_id(&d.uid, 0),
                doc_uid: d.uid.clone(),
                index: 0,
                text: d.content.clone(),
                start: 0,
                end: d.content.len(),
                heading_path: vec![],
                token_count: d.content.split_whitespace().count() as u32,
            };
            let content_hash = d.content_hash();
            IndexedDocument {
                document: d,
                chunks: vec![chunk],
                embeddings: None,
                sentence_embeddings: None,
                chunking: None,
                embedder: None,
                content_hash,
            }
        })
        .collect()
}

fn load_queries(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("queries_train.jsonl")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["text"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

fn fresh_dir(tag: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let d = std::env::temp_dir().join(format!(
        "verity-bench-store-{}-{tag}-{n}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn ingest(rt: &tokio::runtime::Runtime, home: &Path, docs: &[IndexedDocument]) -> SqliteStore {
    let store = SqliteStore::open(home, StoreOptions::default()).unwrap();
    for batch in docs.chunks(500) {
        rt.block_on(store.upsert(batch.to_vec())).unwrap();
    }
    store
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

fn bench_store(c: &mut Criterion) {
    let Some(dir) = scifact() else {
        eprintln!("SKIPPED store benches: SciFact not found (set VERITY_DATA_DIR)");
        return;
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let docs = load_corpus(&dir);
    let bytes: u64 = docs
        .iter()
        .map(|d| {
            (d.document.content.len() + d.document.title.as_ref().map_or(0, |t| t.len())) as u64
        })
        .sum();

    let mut g = c.benchmark_group("store");
    g.sample_size(10).measurement_time(Duration::from_secs(30));
    g.throughput(Throughput::Bytes(bytes));
    g.bench_function("ingest_scifact_lexical", |b| {
        b.iter_batched(
            || fresh_dir("ingest"),
            |home| {
                let s = ingest(&rt, &home, &docs);
                drop(s);
                let _ = std::fs::remove_dir_all(&home);
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();

    let home = fresh_dir("query");
    let store = ingest(&rt, &home, &docs);
    // The in-memory lexical index is built on first use; time that build.
    let t = Instant::now();
    store.warm_lexical_index().unwrap();
    if let Some(st) = store.lexical_index_stats() {
        eprintln!(
            "lexical index build: {:.0} ms, {} rows, {} terms, {} postings, ~{:.1} MB",
            t.elapsed().as_secs_f64() * 1000.0,
            st.rows,
            st.terms,
            st.postings,
            st.memory_bytes as f64 / 1e6
        );
    }
    // The same file through FTS5's own ranking, for comparison under the same load.
    let fts5 = SqliteStore::open(
        &home,
        StoreOptions {
            lexical_accelerator: false,
            ..StoreOptions::default()
        },
    )
    .unwrap();
    let queries = load_queries(&dir);
    // Per-query latency distribution (k = 10), printed for the docs.
    for round in 0..2 {
        for (name, s) in [("in-memory index", &store), ("FTS5 bm25()", &fts5)] {
            let mut lat: Vec<f64> = queries
                .iter()
                .map(|q| {
                    let t = Instant::now();
                    let hits = rt
                        .block_on(
                            s.search(&SearchQuery::new(q.clone()).mode(SearchMode::Lexical).k(10)),
                        )
                        .unwrap();
                    std::hint::black_box(hits);
                    t.elapsed().as_secs_f64() * 1000.0
                })
                .collect();
            eprintln!(
                "BM25 k=10 over {} SciFact train queries ({name}, round {round}): p50 {:.3} ms, p95 {:.3} ms, max {:.3} ms",
                lat.len(),
                percentile(&mut lat, 50.0),
                percentile(&mut lat, 95.0),
                percentile(&mut lat, 100.0)
            );
        }
    }
    let mut g = c.benchmark_group("store");
    let mut i = 0usize;
    g.bench_function("bm25_query_k10", |b| {
        b.iter(|| {
            let q = &queries[i % queries.len()];
            i += 1;
            rt.block_on(store.search(&SearchQuery::new(q.clone()).mode(SearchMode::Lexical).k(10)))
                .unwrap()
        })
    });
    g.finish();
    // After the latency runs, the cost of keeping the index in step: 500 new
    // documents written through the FTS5-only handle, then 500 more through the
    // accelerated store (whose index is live, so it is updated in place).
    let copies = |tag: &str| -> Vec<IndexedDocument> {
        docs[..500]
            .iter()
            .map(|d| {
                let mut d = d.clone();
                d.document.uid = format!("{}-{tag}", d.document.uid);
                for c in &mut d.chunks {
                    c.doc_uid = d.document.uid.clone();
                }
                d
            })
            .collect()
    };
    let t = Instant::now();
    rt.block_on(fts5.upsert(copies("a"))).unwrap();
    let plain = t.elapsed();
    store.warm_lexical_index().unwrap();
    let t = Instant::now();
    rt.block_on(store.upsert(copies("b"))).unwrap();
    let live = t.elapsed();
    let builds = store.lexical_index_stats().map_or(0, |s| s.builds);
    eprintln!(
        "upsert of 500 documents: {:.1} ms without the lexical index, {:.1} ms updating it in place (builds so far: {builds})",
        plain.as_secs_f64() * 1000.0,
        live.as_secs_f64() * 1000.0
    );
    drop(fts5);
    drop(store);
    let _ = std::fs::remove_dir_all(&home);
}

criterion_group!(benches, bench_store);
criterion_main!(benches);
