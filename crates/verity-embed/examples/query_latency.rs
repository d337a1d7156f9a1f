//! Latency of embedding one short query (what a hybrid or dense search waits
//! for before it can walk the index): the SciFact train claims embedded one
//! at a time, after a warm-up; prints p50/p95/p99 and the mean length.
//! `RAYON_NUM_THREADS=1 cargo run --release -p verity-embed --example query_latency`
//! (compare `RAYON_NUM_THREADS=2`; `QUERIES=N` to shorten the run;
//! `PRECISION=int8` for the 8-bit dense layers).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use verity_embed::{simd, LocalEmbedder, LocalEmbedderConfig, Precision};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let data = std::env::var("VERITY_DATA_DIR").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data").to_string()
    });
    let n: usize = std::env::var("QUERIES")
        .ok()
        .and_then(|q| q.parse().ok())
        .unwrap_or(400);
    let queries: Vec<String> =
        std::fs::read_to_string(format!("{data}/scifact/queries_train.jsonl"))?
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|v| v["text"].as_str().map(str::to_string))
            .take(n)
            .collect();
    let int8 = std::env::var("PRECISION").is_ok_and(|p| p == "int8");
    let e = LocalEmbedderConfig::new(LocalEmbedder::default_model_dir())
        .precision(if int8 {
            Precision::Int8
        } else {
            Precision::F32
        })
        .build()?;
    let tokens: usize = queries.iter().map(|q| e.count_tokens(q).unwrap_or(0)).sum();
    for q in queries.iter().take(20) {
        e.embed_blocking(&[q])?; // warm-up
    }
    // `VIA=async`: through `Embedder::embed_query` on a tokio runtime, as a
    // search does (a blocking-pool hop before the pass).
    let via_async = std::env::var("VIA").is_ok_and(|v| v == "async");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let mut ms: Vec<f64> = queries
        .iter()
        .map(|q| {
            let t = Instant::now();
            if via_async {
                rt.block_on(verity_core::Embedder::embed_query(&e, q))
                    .map(|_| ())
                    .map_err(|e| e.to_string())?;
            } else {
                e.embed_blocking(&[q]).map_err(|e| e.to_string())?;
            }
            Ok::<_, String>(t.elapsed().as_secs_f64() * 1000.0)
        })
        .collect::<Result<_, _>>()?;
    ms.sort_by(f64::total_cmp);
    let pct = |p: f64| ms[((ms.len() - 1) as f64 * p).round() as usize];
    println!(
        "{} queries{}{}, {:.1} word pieces on average, RAYON_NUM_THREADS={:?}, {}: p50 {:.2} ms, p95 {:.2} ms, p99 {:.2} ms",
        ms.len(),
        if via_async { " via embed_query" } else { "" },
        if int8 { ", int8" } else { "" },
        tokens as f64 / ms.len().max(1) as f64,
        std::env::var("RAYON_NUM_THREADS").ok(),
        simd::kernel_note(),
        pct(0.50),
        pct(0.95),
        pct(0.99)
    );
    Ok(())
}
