//! Quick throughput check of the local embedder (criterion's `embed` bench is
//! the reference): embeds the first 64 SciFact abstracts once per engine and
//! batch size, after a warm-up, and prints chunks/s and tokens/s.
//! `RAYON_NUM_THREADS=2 cargo run --release -p verity-embed --example throughput`
//! (`ENGINES=packed`, `BATCHES=8` to narrow the run, e.g. under a profiler;
//! `ENGINES=packed,int8` adds the 8-bit dense layers, with their cosine to
//! the f32 vectors; `PASS_TOKENS=2048` caps each pass in word pieces as the
//! embedder does by default — without it, passes are capped by `BATCHES` only).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use verity_core::Embedder;
use verity_embed::{Engine, LocalEmbedder, LocalEmbedderConfig, Precision};

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
    // ENGINES=packed,int8,candle (default packed,candle), BATCHES=8,32 (default 8,32,64).
    let engines: Vec<(&str, Engine, Precision)> = std::env::var("ENGINES")
        .unwrap_or_else(|_| "packed,candle".into())
        .split(',')
        .filter_map(|e| match e.trim() {
            "packed" => Some(("Packed", Engine::Packed, Precision::F32)),
            "int8" => Some(("PackedInt8", Engine::Packed, Precision::Int8)),
            "candle" => Some(("CandleBert", Engine::CandleBert, Precision::F32)),
            _ => None,
        })
        .collect();
    let reference = probe.embed_blocking(&texts)?;
    // PASS_TOKENS=N caps a pass in word pieces (default: the embedder's
    // default); BATCHES then caps it in texts.
    let pass_tokens: usize = std::env::var("PASS_TOKENS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(usize::MAX);
    let batches: Vec<usize> = std::env::var("BATCHES")
        .ok()
        .map(|b| b.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .filter(|b: &Vec<usize>| !b.is_empty())
        .unwrap_or_else(|| vec![8, 32, 64]);
    for (label, engine, precision) in engines {
        for &batch in &batches {
            let e = LocalEmbedderConfig::new(&dir)
                .engine(engine)
                .precision(precision)
                .batch_size(batch)
                .pass_tokens(pass_tokens)
                .build()?;
            e.embed_blocking(&texts[..8])?; // warm-up
            let mut times = Vec::new();
            let mut vs = Vec::new();
            for _ in 0..reps {
                let t = Instant::now();
                vs = e.embed_blocking(&texts)?;
                times.push(t.elapsed().as_secs_f64());
            }
            let cosines: Vec<f32> = vs
                .iter()
                .zip(&reference)
                .map(|(a, b)| verity_core::embed::cosine(a, b))
                .collect();
            times.sort_by(f64::total_cmp);
            let med = times[times.len() / 2];
            let min_cos = cosines.iter().copied().fold(1.0f32, f32::min);
            let mean_cos = cosines.iter().sum::<f32>() / cosines.len().max(1) as f32;
            println!(
                "{label} batch {batch}: median {:.0} ms -> {:.1} chunks/s, {:.0} tokens/s; cosine to f32 packed mean {mean_cos:.5}, min {min_cos:.5}",
                med * 1000.0,
                texts.len() as f64 / med,
                tokens as f64 / med
            );
        }
    }
    Ok(())
}
