//! Local embedder throughput (all-MiniLM-L6-v2 on the CPU with candle).
//!
//! Workload: the first 64 SciFact abstracts (`shared/data/scifact/corpus.jsonl`,
//! truncated by the model at 256 word pieces), or synthetic passages when the
//! data is absent; one iteration embeds all 64 with the given batch size,
//! with Verity's packed encoder and with candle-transformers' `BertModel`.
//! Run: `RAYON_NUM_THREADS=2 cargo bench -p verity-benches --bench embed`.
//! Skips loudly when the model is absent (`scripts/fetch-models.sh minilm`).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use verity_core::Embedder;
use verity_embed::{Engine, LocalEmbedder, LocalEmbedderConfig};

const CHUNKS: usize = 64;

fn workload() -> Vec<String> {
    if let Some(dir) = verity_benches::data_dir() {
        if let Ok(text) = std::fs::read_to_string(dir.join("scifact/corpus.jsonl")) {
            let docs: Vec<String> = text
                .lines()
                .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                .filter_map(|v| v.get("text").and_then(|t| t.as_str()).map(str::to_string))
                .filter(|t| !t.is_empty())
                .take(CHUNKS)
                .collect();
            if docs.len() == CHUNKS {
                return docs;
            }
        }
    }
    eprintln!("embed bench: SciFact not found, using synthetic passages");
    (0..CHUNKS)
        .map(|i| {
            format!(
                "Passage {i}: retrieval-augmented generation grounds answers in cited sources. "
            )
            .repeat(1 + i % 12)
        })
        .collect()
}

fn bench_local(c: &mut Criterion) {
    let dir = LocalEmbedder::default_model_dir();
    if !dir.join("model.safetensors").is_file() {
        eprintln!(
            "\n*** embed bench SKIPPED: all-MiniLM-L6-v2 not found in {} (run scripts/fetch-models.sh minilm) ***\n",
            dir.display()
        );
        return;
    }
    let texts = workload();
    let probe = match LocalEmbedder::builder(&dir).build() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("\n*** embed bench SKIPPED: cannot load the model: {e} ***\n");
            return;
        }
    };
    let tokens: usize = texts
        .iter()
        .map(|t| probe.count_tokens(t).unwrap_or(0).min(probe.max_tokens()))
        .sum();
    eprintln!(
        "embed bench: {CHUNKS} chunks, {tokens} tokens after truncation ({:.0} per chunk); tokens/s = chunks/s x {:.1}; threads: RAYON_NUM_THREADS={}",
        tokens as f64 / CHUNKS as f64,
        tokens as f64 / CHUNKS as f64,
        std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| "unset (all cores)".into())
    );

    let mut group = c.benchmark_group("embed_local_minilm");
    group.sample_size(10);
    group.throughput(Throughput::Elements(CHUNKS as u64));
    for (engine, batch) in [
        (Engine::Packed, 8usize),
        (Engine::Packed, 32),
        (Engine::Packed, 64),
        (Engine::CandleBert, 8),
        (Engine::CandleBert, 32),
        (Engine::CandleBert, 64),
    ] {
        let embedder = match LocalEmbedderConfig::new(&dir)
            .batch_size(batch)
            .engine(engine)
            .build()
        {
            Ok(e) => e,
            Err(e) => {
                eprintln!("embed bench: cannot load the model: {e}");
                return;
            }
        };
        group.bench_with_input(
            BenchmarkId::new(format!("{engine:?}/batch"), batch),
            &texts,
            |b, texts| {
                b.iter(|| black_box(embedder.embed_blocking(texts).map(|v| v.len()).unwrap_or(0)))
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench_local);
criterion_main!(benches);
