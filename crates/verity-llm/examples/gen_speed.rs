//! Prompt-processing and generation speed of the local GGUF generator, per
//! engine and thread count, measured the way llama.cpp's `llama-bench`
//! reports them (`pp` tokens/s over a prompt of `PROMPT` tokens, `tg`
//! tokens/s over `GEN` generated tokens), through the public `Generator` API:
//!
//! * pp: one request with `max_tokens = 1` whose prompt has `PROMPT` tokens
//!   (SciFact abstracts as the context of a grounded question);
//! * tg: one greedy request with a short prompt and `max_tokens = GEN`
//!   (a prompt that makes the model write on), minus the short prompt's own
//!   processing time, over the tokens generated after the first.
//!
//! ```text
//! ENGINES=llama.cpp,candle THREADS=1,2 REPS=5 PROMPT=405 GEN=64 \
//!   cargo run --release -p verity-llm --features llama-cpp --example gen_speed
//! ```
//!
//! Prints one line per engine × threads × test with the median of `REPS`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use verity_core::{ChatMessage, ChatRequest, GenerationBudget, Generator};
use verity_llm::{LocalEngine, LocalGgufConfig, LocalGgufGenerator};

fn env_list(name: &str, default: &str) -> Vec<String> {
    std::env::var(name)
        .unwrap_or_else(|_| default.to_string())
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn request(messages: Vec<ChatMessage>, max_tokens: u32) -> ChatRequest {
    let mut r = ChatRequest::new(messages);
    r.params.temperature = 0.0;
    r.params.max_tokens = max_tokens;
    r.params.budget = GenerationBudget::UNLIMITED;
    r
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let data = std::env::var("VERITY_DATA_DIR").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data").to_string()
    });
    let engines = env_list("ENGINES", "llama.cpp,candle");
    let threads = env_list("THREADS", "1,2");
    let reps = env_num("REPS", 5).max(1);
    let prompt_len = env_num("PROMPT", 405);
    let gen = env_num("GEN", 64).max(2);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;

    let abstracts: Vec<String> = std::fs::read_to_string(format!("{data}/scifact/corpus.jsonl"))?
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["text"].as_str().map(str::to_string))
        .take(50)
        .collect();
    let path = LocalGgufGenerator::default_model_path();
    println!("model {}", path.display());
    for engine in &engines {
        let engine = match engine.as_str() {
            "candle" => LocalEngine::Candle,
            _ => LocalEngine::LlamaCpp,
        };
        for t in &threads {
            let t: usize = t.parse()?;
            if engine == LocalEngine::Candle {
                // candle runs on rayon's global pool, sized once per process.
                let pool = std::env::var("RAYON_NUM_THREADS").ok();
                if pool.as_deref() != Some(&t.to_string()) {
                    println!(
                        "candle threads={t}: run with RAYON_NUM_THREADS={t} (this process: {pool:?}); skipped"
                    );
                    continue;
                }
            }
            let g = LocalGgufConfig::new(&path)
                .engine(engine)
                .threads(t)
                .budget(GenerationBudget::UNLIMITED)
                .build()?;
            // A context of `prompt_len` tokens: abstracts, cut to length.
            let mut context = String::new();
            for a in &abstracts {
                context.push_str(a);
                context.push('\n');
                if g.tokenize(&context)?.len() >= prompt_len {
                    break;
                }
            }
            let all = g.tokenize(&context)?;
            let frame = g
                .prompt_tokens(&[
                    ChatMessage::system("Answer from the context."),
                    ChatMessage::user(""),
                ])?
                .len();
            let keep = prompt_len.saturating_sub(frame).min(all.len());
            let context = g.detokenize(&all[..keep]);
            let long = request(
                vec![
                    ChatMessage::system("Answer from the context."),
                    ChatMessage::user(context),
                ],
                1,
            );
            let short_messages = vec![ChatMessage::user(
                "Write a long story about a dragon who learns to fly.",
            )];
            let short = request(short_messages.clone(), 1);
            let gen_req = request(short_messages, u32::try_from(gen)?);
            // Warm-up.
            rt.block_on(g.generate(&short))?;
            let (mut pp, mut tg, mut pp_tokens, mut tg_tokens) = (vec![], vec![], 0, 0);
            for _ in 0..reps {
                let s = Instant::now();
                let out = rt.block_on(g.generate(&long))?;
                let secs = s.elapsed().as_secs_f64();
                pp_tokens = out.usage.prompt_tokens.unwrap_or(0);
                pp.push(f64::from(pp_tokens) / secs);

                let s = Instant::now();
                rt.block_on(g.generate(&short))?;
                let short_secs = s.elapsed().as_secs_f64();
                let s = Instant::now();
                let out = rt.block_on(g.generate(&gen_req))?;
                let secs = s.elapsed().as_secs_f64();
                tg_tokens = out.usage.completion_tokens.unwrap_or(0);
                let after_first = f64::from(tg_tokens.saturating_sub(1));
                tg.push(after_first / (secs - short_secs).max(1e-9));
            }
            println!(
                "{:<9} threads={t} pp{pp_tokens}: {:>8.1} tokens/s",
                engine.name(),
                median(pp)
            );
            println!(
                "{:<9} threads={t} tg{tg_tokens}: {:>8.1} tokens/s",
                engine.name(),
                median(tg)
            );
        }
    }
    Ok(())
}
