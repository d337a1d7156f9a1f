//! The frozen claim set (`data/claims.jsonl`) with the local judge or with
//! an LLM judge whose model always answers malformed output.
//!
//! ```text
//! cargo run --release -p verity-verify --example claims_eval -- <shared/data> \
//!     [--judge local|malformed-llm] [--show look|held-out|all] [--json]
//! ```
//!
//! The malformed judge is the real `LlmJudge` over the real
//! `OpenAiGenerator`, talking to an OpenAI-compatible server on a loopback
//! port whose every completion is prose instead of the JSON verdict. Prints
//! per-verdict precision and recall on the part looked at and on the
//! held-out part, quotes that are not the page's characters, unrelated pages
//! called NOT_SUPPORTED and time per citation; `--show` lists the claims whose
//! verdict is not the expected one (the look part by default).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use verity_core::{Fetcher, Generator, Judge, RetryPolicy};
use verity_fetch::{FetchConfig, HttpFetcher, NetworkGuard};
use verity_verify::eval::claims::{self, ClaimsEval, Part, PartScore};
use verity_verify::{LlmJudge, LocalJudge, Verifier};

type Res<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// An OpenAI-compatible chat endpoint answering prose, never the JSON asked for.
async fn malformed_openai() -> Res<String> {
    async fn chat(Json(body): Json<Value>) -> Json<Value> {
        Json(json!({
            "id": "c1", "object": "chat.completion", "created": 1, "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant",
                "content": "Sure! Having read the passages, the claim looks broadly fine to me."},
                "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
        }))
    }
    let app = Router::new().route("/v1/chat/completions", post(chat));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok(format!("http://{addr}"))
}

fn print_part(name: &str, p: &PartScore) {
    println!(
        "{name}: {} claims, {} right ({:.1} %)",
        p.claims,
        p.correct,
        p.accuracy * 100.0
    );
    println!("  verdict              expected  predicted  correct  precision  recall");
    for v in &p.verdicts {
        println!(
            "  {:<20} {:>8} {:>10} {:>8} {:>10.3} {:>7.3}",
            v.verdict.as_str(),
            v.expected,
            v.predicted,
            v.correct,
            v.precision,
            v.recall
        );
    }
}

#[tokio::main]
async fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = PathBuf::from(
        args.iter()
            .find(|a| {
                !a.starts_with("--")
                    && !matches!(
                        a.as_str(),
                        "local" | "malformed-llm" | "look" | "held-out" | "all"
                    )
            })
            .cloned()
            .unwrap_or_else(|| "../shared/data".into()),
    );
    let opt = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let judge_name = opt("--judge").unwrap_or_else(|| "local".into());
    let show = opt("--show").unwrap_or_else(|| "look".into());
    if !dir.join("article-extraction/html").is_dir() {
        eprintln!(
            "skipped: {} has no article-extraction/html (the pages are read from the shared data set)",
            dir.display()
        );
        return Ok(());
    }
    let judge: Arc<dyn Judge> = match judge_name.as_str() {
        "local" => Arc::new(LocalJudge::new()),
        "malformed-llm" => {
            let base = malformed_openai().await?;
            let g: Arc<dyn Generator> = Arc::new(
                verity_llm::OpenAiGenerator::builder(&base, "malformed-model")
                    .retry(RetryPolicy::none())
                    .build()?,
            );
            Arc::new(LlmJudge::new(g))
        }
        other => return Err(format!("unknown judge `{other}` (local, malformed-llm)").into()),
    };
    let cfg = FetchConfig::default()
        .with_guard(NetworkGuard::new().allow_cidr("127.0.0.0/8")?)
        .with_robots(false)
        .with_per_host_interval(Duration::ZERO)
        .with_retry(RetryPolicy::none())
        .with_timeout(Duration::from_secs(10));
    let fetcher: Arc<dyn Fetcher> = Arc::new(HttpFetcher::new(cfg)?);
    let v = Verifier::builder(fetcher).judge(judge).build();
    let r: ClaimsEval = claims::run(&v, &dir, None).await?;
    if args.iter().any(|a| a == "--json") {
        println!("{}", serde_json::to_string_pretty(&r)?);
        return Ok(());
    }
    println!(
        "judge {judge_name}: {} claims over {} pages",
        r.claims, r.pages
    );
    print_part("look", &r.look);
    print_part("held-out", &r.held_out);
    print_part("all", &r.all);
    println!(
        "quotes not the page's characters: {} of {} checked; unrelated pages called NOT_SUPPORTED: {}; \
         expected source sentences not on their page: {}; {:.2} ms per citation; judges: {:?}",
        r.quotes_not_in_source,
        r.quotes_checked,
        r.unrelated_not_supported,
        r.source_sentences_missing,
        r.ms_per_citation,
        r.judges
    );
    let wanted = |p: Part| match show.as_str() {
        "all" => true,
        "held-out" => p == Part::HeldOut,
        _ => p == Part::Look,
    };
    for o in r
        .outcomes
        .iter()
        .filter(|o| wanted(o.part) && o.verdict != o.expected)
    {
        println!(
            "  {} expected {} got {} — {} | quote: {}",
            o.id,
            o.expected.as_str(),
            o.verdict.as_str(),
            o.explanation,
            o.quote.as_deref().unwrap_or("-")
        );
    }
    Ok(())
}
