//! BM25 on a BEIR dataset with configurable FTS5 tokenizer, column weights and stop words.
//!
//! `cargo run --release -p verity-eval --example beir_bm25 -- <dataset dir> <split> [tokenizer] [title_w] [text_w] [stopwords 0|1]`

use std::path::PathBuf;
use std::time::Instant;

use verity_core::{SearchMode, VectorStore};
use verity_eval::{evaluate, load_corpus, load_split, EvalOptions};
use verity_store::{SqliteStore, StoreOptions};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = PathBuf::from(
        args.first()
            .ok_or("usage: beir_bm25 <dir> <split> [tokenizer] [title_w] [text_w] [stopwords]")?,
    );
    let split_name = args.get(1).map(String::as_str).unwrap_or("test");
    let mut opts = StoreOptions::default();
    if let Some(t) = args.get(2) {
        opts.fts_tokenizer = t.clone();
    }
    if let Some(w) = args.get(3) {
        opts.title_weight = w.parse()?;
    }
    if let Some(w) = args.get(4) {
        opts.text_weight = w.parse()?;
    }
    if let Some(s) = args.get(5) {
        opts.drop_stopwords = s == "1";
    }
    let corpus = load_corpus(&dir)?;
    let store = SqliteStore::open_in_memory(opts.clone())?;
    let t = Instant::now();
    for batch in corpus.chunks(1000) {
        store
            .upsert(batch.iter().map(|d| d.to_indexed()).collect())
            .await?;
    }
    let ingest = t.elapsed();
    let split = load_split(&dir, split_name)?;
    let report = evaluate(
        &store,
        None,
        &split,
        &EvalOptions {
            mode: SearchMode::Lexical,
            ..Default::default()
        },
    )
    .await?;
    let mut lat10: Vec<f64> = Vec::new();
    for q in &split.queries {
        let t = Instant::now();
        let hits = store
            .search(
                &verity_core::SearchQuery::new(q.text.clone())
                    .mode(SearchMode::Lexical)
                    .k(10),
            )
            .await?;
        std::hint::black_box(hits);
        lat10.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    println!(
        "BM25 k=10 latency over {} queries: p50 {:.3} ms, p95 {:.3} ms",
        lat10.len(),
        verity_eval::percentile(&lat10, 50.0),
        verity_eval::percentile(&lat10, 95.0)
    );
    // Ingest into a file-backed store (WAL, synchronous=NORMAL), as in production.
    let home = std::env::temp_dir().join(format!("verity-beir-bm25-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let bytes: usize = corpus.iter().map(|d| d.title.len() + d.text.len()).sum();
    let t = Instant::now();
    {
        let fstore = SqliteStore::open(&home, opts.clone())?;
        for batch in corpus.chunks(500) {
            fstore
                .upsert(batch.iter().map(|d| d.to_indexed()).collect())
                .await?;
        }
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "file ingest: {} docs, {:.1} MB in {:.2} s = {:.1} MB/s",
        corpus.len(),
        bytes as f64 / 1e6,
        secs,
        bytes as f64 / 1e6 / secs
    );
    let _ = std::fs::remove_dir_all(&home);
    let mut top1: Vec<f64> = Vec::new();
    for q in split.queries.iter().take(300) {
        let hits = store
            .search(
                &verity_core::SearchQuery::new(q.text.clone())
                    .mode(SearchMode::Lexical)
                    .k(1),
            )
            .await?;
        if let Some(h) = hits.first() {
            top1.push(f64::from(h.score));
        }
    }
    println!(
        "top-1 BM25 score over {} queries: p10 {:.2}, p50 {:.2}, p90 {:.2}",
        top1.len(),
        verity_eval::percentile(&top1, 10.0),
        verity_eval::percentile(&top1, 50.0),
        verity_eval::percentile(&top1, 90.0)
    );
    println!(
        "tokenizer={:?} title_w={} text_w={} stopwords={} ingest={:.2}s docs={} | nDCG@10={:.4} R@5={:.4} R@100={:.4} MRR@10={:.4} p50={:.2}ms p95={:.2}ms",
        opts.fts_tokenizer,
        opts.title_weight,
        opts.text_weight,
        opts.drop_stopwords,
        ingest.as_secs_f64(),
        store.stats().await?.documents,
        report.ndcg_at_10,
        report.recall_at_5,
        report.recall_at_100,
        report.mrr_at_10,
        report.latency_p50_ms,
        report.latency_p95_ms
    );
    Ok(())
}
