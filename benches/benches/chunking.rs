//! Chunking throughput (MB/s) on a ~10 MB Markdown document built from SciFact
//! abstracts (sections with headings, bullet lists and fenced code blocks).
//!
//! Run: `cargo bench -p verity-benches --bench chunking`. Skips when shared/data is absent.

use std::io::BufRead;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use verity_ingest::{Chunker, ChunkerConfig};

/// ~`target` bytes of Markdown from the SciFact corpus, or `None` without data.
fn build_markdown(target: usize) -> Option<String> {
    let path = verity_benches::data_dir()?.join("scifact/corpus.jsonl");
    let file = std::fs::File::open(path).ok()?;
    let mut records = Vec::new();
    for line in std::io::BufReader::new(file).lines() {
        let v: serde_json::Value = serde_json::from_str(&line.ok()?).ok()?;
        let title = v["title"].as_str().unwrap_or("").to_string();
        let text = v["text"].as_str().unwrap_or("").to_string();
        records.push((title, text));
    }
    let mut md = String::with_capacity(target + 4096);
    let mut i = 0usize;
    while md.len() < target {
        let (title, text) = &records[i % records.len()];
        if i.is_multiple_of(20) {
            md.push_str(&format!("# Part {}\n\n", i / 20 + 1));
        }
        md.push_str(&format!("## {title}\n\n"));
        if i % 3 == 1 {
            // Sentences as a bullet list.
            for s in text.split(". ").filter(|s| !s.is_empty()) {
                md.push_str(&format!("- {s}.\n"));
            }
            md.push('\n');
        } else {
            md.push_str(text);
            md.push_str("\n\n");
        }
        if i.is_multiple_of(5) {
            md.push_str("```python\nimport pandas as pd\ndf = pd.read_csv(\"results.csv\")\n");
            md.push_str(&format!("print(df[df.doc_id == {i}].describe())\n```\n\n"));
        }
        if i.is_multiple_of(7) {
            md.push_str("---\n\n");
        }
        i += 1;
    }
    Some(md)
}

fn bench(c: &mut Criterion) {
    let Some(md) = build_markdown(10 * 1024 * 1024) else {
        eprintln!("SKIPPED chunking bench: shared/data/scifact not found (set VERITY_DATA_DIR)");
        return;
    };
    let mut group = c.benchmark_group("chunking");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(md.len() as u64));
    for (name, cfg) in [
        ("default_900", ChunkerConfig::default()),
        ("for_embedder_256", ChunkerConfig::for_embedder(256)),
    ] {
        let chunker = Chunker::new(cfg).expect("bundled tokenizer loads");
        // Warm the word memo once, as a long-running ingest would.
        let n = chunker.chunk("bench", &md).len();
        eprintln!("{name}: {} bytes -> {n} chunks", md.len());
        group.bench_function(name, |b| {
            b.iter(|| chunker.chunk("bench", std::hint::black_box(&md)))
        });
    }
    // Cold: a fresh tokenizer memo on each iteration (worst case, first document of a run).
    group.bench_function("default_900_cold_memo", |b| {
        b.iter_batched(
            || {
                Chunker::from_tokenizer_bytes(
                    verity_ingest::BUNDLED_TOKENIZER_JSON,
                    ChunkerConfig::default(),
                )
                .expect("loads")
            },
            |chunker| chunker.chunk("bench", std::hint::black_box(&md)),
            criterion::BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
