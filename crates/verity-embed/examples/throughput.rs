//! Quick throughput check of the local embedder (criterion's `embed` bench is
//! the reference): embeds the first 64 SciFact abstracts once per engine and
//! batch size, after a warm-up, and prints chunks/s and tokens/s.
//! `RAYON_NUM_THREADS=2 cargo run --release -p verity-embed --example throughput`
//! (`ENGINES=packed`, `BATCHES=8` to narrow the run, e.g. under a profiler).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use verity_core::Embedder;
use verity_embed::{Engine, LocalEmbedder, LocalEmbedderConfig};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let data = std::env::var("VERITY_DATA_DIR").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data").to_string()
    });
    let corpus = std::fs::read_to_string(format!("{data}/scifact/corpus.jsonl"))?;
    let texts: Vec<String> = corpus
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["text"].as_str().map(str::to_string))
        .filter(|t| !t.is_empty())
        .take(64)
        .collect();
    let dir = LocalEmbedder::default_model_dir();
    let probe = LocalEmbedder::builder(&dir).build()?;
    let tokens: usize = texts
        .iter()
        .map(|t| probe.count_tokens(t).unwrap_or(0).min(probe.max_tokens()))
        .sum();
    let reps: usize = std::env::var("REPS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    println!(
        "{} chunks, {tokens} tokens, RAYON_NUM_THREADS={:?}",
        texts.len(),
        std::env::var("RAYON_NUM_THREADS").ok()
    );
    // ENGINES=packed|candle|both (default both), BATCHES=8,32 (default 8,32,64).
    let engines = match std::env::var("ENGINES").as_deref() {
        Ok("packed") => vec![Engine::Packed],
        Ok("candle") => vec![Engine::CandleBert],
        _ => vec![Engine::Packed, Engine::CandleBert],
    };
    let batches: Vec<usize> = std::env::var("BATCHES")
        .ok()
        .map(|b| b.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .filter(|b: &Vec<usize>| !b.is_empty())
        .unwrap_or_else(|| vec![8, 32, 64]);
    for engine in engines {
        for &batch in &batches {
            let e = LocalEmbedderConfig::new(&dir)
                .engine(engine)
                .batch_size(batch)
                .build()?;
            e.embed_blocking(&texts[..8])?; // warm-up
            let mut times = Vec::new();
            for _ in 0..reps {
                let t = Instant::now();
                e.embed_blocking(&texts)?;
                times.push(t.elapsed().as_secs_f64());
            }
            times.sort_by(f64::total_cmp);
            let med = times[times.len() / 2];
            println!(
                "{engine:?} batch {batch}: median {:.0} ms -> {:.1} chunks/s, {:.0} tokens/s",
                med * 1000.0,
                texts.len() as f64 / med,
                tokens as f64 / med
            );
        }
    }
    Ok(())
}
