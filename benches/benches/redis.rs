//! Redis backend vs the embedded SQLite store on SciFact (5,183 abstracts),
//! same machine, same chunks and same vectors: bulk ingest rate and query
//! latency (lexical, dense, hybrid). Figures: docs/benchmarks.d/redis.md.
//!
//! Vectors come from a deterministic 384-dimension hashing embedder computed
//! once before timing, so the figures measure the stores, not a model.
//! Needs a local Redis with search+JSON (`scripts/redis.sh`); skips loudly otherwise.
//!
//! `cargo bench -p verity-benches --bench redis`

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use verity_core::{
    Chunk, Document, EmbedderId, IndexedDocument, SearchMode, SearchQuery, VectorStore,
};
use verity_redis::server::RedisServer;
use verity_redis::{RedisStore, RedisStoreOptions};
use verity_store::{SqliteStore, StoreOptions};

const DIM: usize = 384;

fn scifact() -> Option<PathBuf> {
    let dir = verity_benches::data_dir()?.join("scifact");
    dir.join("corpus.jsonl").is_file().then_some(dir)
}

fn bow(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; DIM];
    for w in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 2)
    {
        let h = w
            .to_lowercase()
            .bytes()
            .fold(1469598103934665603u64, |h, b| {
                (h ^ b as u64).wrapping_mul(1099511628211)
            });
        v[(h % DIM as u64) as usize] += 1.0;
    }
    v[0] += 0.01;
    verity_core::embed::l2_normalize(&mut v);
    v
}

fn load(dir: &std::path::Path) -> Vec<IndexedDocument> {
    let text = std::fs::read_to_string(dir.join("corpus.jsonl")).unwrap();
    let id = EmbedderId::new("bench-bow", "1", DIM);
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let mut d = Document::new(v["_id"].as_str().unwrap(), v["text"].as_str().unwrap_or(""));
            d.title = v["title"].as_str().map(str::to_string);
            d.lang = Some("en".into());
            d.source = "scifact".into();
            let chunk = Chunk {
                id: Chunk::make_id(&d.uid, 0),
                doc_uid: d.uid.clone(),
                index: 0,
                text: d.content.clone(),
                start: 0,
                end: d.content.len(),
                heading_path: Vec::new(),
                token_count: d.content.split_whitespace().count() as u32,
            };
            let vec = bow(&format!(
                "{} {}",
                d.title.as_deref().unwrap_or(""),
                d.content
            ));
            let content_hash = d.content_hash();
            IndexedDocument {
                document: d,
                chunks: vec![chunk],
                embeddings: Some(vec![vec]),
                sentence_embeddings: None,
                chunking: None,
                embedder: Some(id.clone()),
                content_hash,
            }
        })
        .collect()
}

fn queries(dir: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("queries_train.jsonl")).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["text"].as_str().map(str::to_string))
        .take(200)
        .collect()
}

async fn ingest(store: &dyn VectorStore, docs: &[IndexedDocument]) {
    for b in docs.chunks(64) {
        store.upsert(b.to_vec()).await.unwrap();
    }
}

fn pct(mut v: Vec<Duration>, p: f64) -> f64 {
    v.sort();
    let i = ((p / 100.0) * v.len() as f64).ceil() as usize;
    v[i.clamp(1, v.len()) - 1].as_secs_f64() * 1e3
}

fn bench(c: &mut Criterion) {
    let Some(dir) = scifact() else {
        eprintln!("\n######## SKIPPED redis bench: SciFact not found (VERITY_DATA_DIR) ########\n");
        return;
    };
    let Some(srv) = RedisServer::start_or_skip("redis bench", &[]) else {
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let docs = load(&dir);
    let qs = queries(&dir);
    let subset: Vec<IndexedDocument> = docs.iter().take(1000).cloned().collect();
    let url = srv.url();

    // Bulk ingest, 1,000 abstracts (with vectors) per iteration into a fresh index.
    let mut g = c.benchmark_group("redis/ingest_1000_docs");
    g.sample_size(10)
        .throughput(Throughput::Elements(subset.len() as u64));
    let counter = std::sync::atomic::AtomicUsize::new(0);
    g.bench_function("redis", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let n = counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let s =
                        RedisStore::connect(&url, &format!("ing{n}"), RedisStoreOptions::default())
                            .await
                            .unwrap();
                    let t = Instant::now();
                    ingest(&s, &subset).await;
                    total += t.elapsed();
                }
                total
            })
        })
    });
    g.bench_function("sqlite_file", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let tmp = tempdir();
                    let s = SqliteStore::open(&tmp, StoreOptions::default()).unwrap();
                    let t = Instant::now();
                    ingest(&s, &subset).await;
                    s.flush().unwrap();
                    total += t.elapsed();
                    drop(s);
                    let _ = std::fs::remove_dir_all(&tmp);
                }
                total
            })
        })
    });
    g.finish();

    // Full corpus in both backends, then query latency.
    let redis: Arc<dyn VectorStore> = Arc::new(
        rt.block_on(RedisStore::connect(
            &url,
            "scifact",
            RedisStoreOptions::default(),
        ))
        .unwrap(),
    );
    let tmp = tempdir();
    let sqlite: Arc<dyn VectorStore> =
        Arc::new(SqliteStore::open(&tmp, StoreOptions::default()).unwrap());
    for (name, s) in [("redis", &redis), ("sqlite", &sqlite)] {
        let t = Instant::now();
        rt.block_on(ingest(s.as_ref(), &docs));
        let secs = t.elapsed().as_secs_f64();
        eprintln!(
            "full SciFact ingest into {name}: {} docs in {secs:.2} s = {:.0} docs/s",
            docs.len(),
            docs.len() as f64 / secs
        );
    }
    // Retrieval quality parity on the BEIR train split (lexical BM25, recall@5 over distinct documents).
    if let Ok(eval) = verity_ingest::reindex::EvalSet::from_beir(
        &dir.join("queries_train.jsonl"),
        &dir.join("qrels/train.tsv"),
    ) {
        for (name, s) in [("redis", &redis), ("sqlite", &sqlite)] {
            let g = rt
                .block_on(verity_ingest::reindex::evaluate(
                    s.as_ref(),
                    None,
                    &eval,
                    &verity_ingest::reindex::GateConfig::default(),
                    SearchMode::Lexical,
                ))
                .unwrap();
            eprintln!(
                "{name} lexical recall@5 on SciFact train ({} queries): {:.3}, p50 {:.2} ms, p95 {:.2} ms",
                g.queries,
                g.recall,
                g.p50.as_secs_f64() * 1e3,
                g.p95.as_secs_f64() * 1e3
            );
        }
    }
    let vectors: Vec<Vec<f32>> = qs.iter().map(|q| bow(q)).collect();
    for mode in [SearchMode::Lexical, SearchMode::Dense, SearchMode::Hybrid] {
        let mut g = c.benchmark_group(format!("redis/query_{mode}_k10"));
        g.throughput(Throughput::Elements(1));
        for (name, s) in [("redis", &redis), ("sqlite", &sqlite)] {
            // Percentiles over one pass of the query set (criterion reports the mean).
            let lat: Vec<Duration> = rt.block_on(async {
                let mut lat = Vec::new();
                for (q, v) in qs.iter().zip(&vectors) {
                    let sq = SearchQuery::new(q.clone())
                        .mode(mode)
                        .k(10)
                        .vector(v.clone());
                    let t = Instant::now();
                    s.search(&sq).await.unwrap();
                    lat.push(t.elapsed());
                }
                lat
            });
            eprintln!(
                "{name} {mode} k=10 over {} queries: p50 {:.2} ms, p95 {:.2} ms",
                lat.len(),
                pct(lat.clone(), 50.0),
                pct(lat, 95.0)
            );
            let mut i = 0usize;
            g.bench_function(name, |b| {
                b.iter(|| {
                    i = (i + 1) % qs.len();
                    let sq = SearchQuery::new(qs[i].clone())
                        .mode(mode)
                        .k(10)
                        .vector(vectors[i].clone());
                    rt.block_on(s.search(&sq)).unwrap()
                })
            });
        }
        g.finish();
    }
    drop(sqlite);
    let _ = std::fs::remove_dir_all(&tmp);
}

fn tempdir() -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let p = std::env::temp_dir().join(format!("verity-bench-redis-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&p).unwrap();
    p
}

criterion_group!(benches, bench);
criterion_main!(benches);
