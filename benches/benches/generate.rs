//! Generator throughput and latency.
//!
//! * Local GGUF (SmolLM2-135M-Instruct Q4_1 on the CPU with candle):
//!   - prompt processing: a ~250-token grounded prompt, `max_tokens = 1`
//!     (throughput = prompt tokens per second);
//!   - generation: a short prompt, greedy, `max_tokens = 64`
//!     (throughput = generated tokens per second, prompt included in the time).
//! * Extractive generator: answer latency for a question over 5 context
//!   blocks of ~120 words (SciFact abstracts when the shared data is present).
//!
//! Run: `RAYON_NUM_THREADS=2 cargo bench -p verity-benches --bench generate`.
//! The local part skips loudly when the model is absent (`scripts/fetch-models.sh smollm2`).

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use verity_core::{ChatMessage, ChatRequest, ContextBlock, Generator, Grounding};
use verity_llm::{ExtractiveGenerator, LocalGgufConfig, LocalGgufGenerator};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("tokio runtime")
}

fn context_blocks() -> Vec<ContextBlock> {
    let mut texts: Vec<String> = Vec::new();
    if let Some(dir) = verity_benches::data_dir() {
        if let Ok(text) = std::fs::read_to_string(dir.join("scifact/corpus.jsonl")) {
            texts = text
                .lines()
                .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                .filter_map(|v| v.get("text").and_then(|t| t.as_str()).map(str::to_string))
                .filter(|t| t.split_whitespace().count() > 80)
                .take(5)
                .map(|t| t.split_whitespace().take(120).collect::<Vec<_>>().join(" "))
                .collect();
        }
    }
    if texts.len() < 5 {
        eprintln!("generate bench: SciFact not found, using synthetic passages");
        texts = (0..5)
            .map(|i| {
                format!("Passage {i}. Retrieval-augmented generation grounds answers in cited sources. ").repeat(12)
            })
            .collect();
    }
    texts
        .into_iter()
        .enumerate()
        .map(|(i, text)| ContextBlock {
            index: i + 1,
            chunk_id: format!("c{i}"),
            doc_uid: format!("d{i}"),
            text,
        })
        .collect()
}

fn bench_extractive(c: &mut Criterion) {
    let rt = runtime();
    let blocks = context_blocks();
    let question = "Which cells are affected by the treatment and how does it change their growth?";
    let mut req = ChatRequest::new(vec![ChatMessage::user(question)]);
    req.grounding = Some(Grounding {
        question: question.into(),
        blocks,
        lang: Some("en".into()),
    });
    let g = ExtractiveGenerator::new();
    let mut group = c.benchmark_group("generate/extractive");
    group.bench_function("answer_5_blocks", |b| {
        b.to_async(&rt)
            .iter(|| async { black_box(g.generate(black_box(&req)).await.expect("answer")) })
    });
    group.finish();
}

fn bench_local(c: &mut Criterion) {
    let path = LocalGgufGenerator::default_model_path();
    if !path.is_file() {
        eprintln!(
            "\n*** generate bench (local GGUF) SKIPPED: model not found at {} (run scripts/fetch-models.sh smollm2) ***\n",
            path.display()
        );
        return;
    }
    let g = match LocalGgufConfig::new(&path).build() {
        Ok(g) => g,
        Err(e) => {
            eprintln!(
                "\n*** generate bench (local GGUF) SKIPPED: cannot load the model: {e} ***\n"
            );
            return;
        }
    };
    let rt = runtime();

    // Prompt processing.
    let context: String = context_blocks()
        .iter()
        .map(|b| format!("[{}] {}\n", b.index, b.text))
        .take(2)
        .collect();
    let mut pp = ChatRequest::new(vec![
        ChatMessage::system(format!(
            "Answer from the sources, citing them as [n].\n{context}"
        )),
        ChatMessage::user("What do the sources say?"),
    ]);
    pp.params.temperature = 0.0;
    pp.params.max_tokens = 1;
    let prompt_tokens = g.prompt_tokens(&pp.messages).map(|t| t.len()).unwrap_or(0);

    // Generation.
    let mut tg = ChatRequest::new(vec![ChatMessage::user(
        "Write a long story about a dragon who learns to read.",
    )]);
    tg.params.temperature = 0.0;
    tg.params.max_tokens = 64;
    let probe = rt.block_on(g.generate(&tg)).expect("probe generation");
    let generated = probe.usage.completion_tokens.unwrap_or(0) as u64;
    eprintln!(
        "generate bench: prompt-processing prompt = {prompt_tokens} tokens; generation = {generated} tokens \
         after a {}-token prompt ({:?})",
        probe.usage.prompt_tokens.unwrap_or(0),
        probe.finish_reason
    );

    let mut group = c.benchmark_group("generate/local_smollm2_135m_q4_1");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20))
        .warm_up_time(Duration::from_secs(2));
    group.throughput(Throughput::Elements(prompt_tokens as u64));
    group.bench_function("prompt_processing", |b| {
        b.to_async(&rt)
            .iter(|| async { black_box(g.generate(black_box(&pp)).await.expect("generation")) })
    });
    group.throughput(Throughput::Elements(generated));
    group.bench_function("generation_64", |b| {
        b.to_async(&rt)
            .iter(|| async { black_box(g.generate(black_box(&tg)).await.expect("generation")) })
    });
    group.finish();
}

criterion_group!(benches, bench_extractive, bench_local);
criterion_main!(benches);
