//! Refusal rates of the retrieval guardrail (`not_enough_evidence`) per
//! search mode, on the frozen set of `crates/verity-eval/guardrail/`:
//! SciFact train claims (answerable) and written off-corpus questions
//! (unanswerable) on the SciFact corpus, and answerable / unanswerable
//! questions on `examples/data`. Each part of the split (`look`, `heldout`)
//! is reported separately.
//!
//! ```text
//! cargo run --release -p verity --example guardrail_eval -- \
//!     --scifact-home /tmp/scifact-home [--examples-home /tmp/examples-home] \
//!     [--data ../shared/data] [--dump hits.jsonl]
//! ```
//! Homes are built on first use (SciFact: `verity ingest corpus.jsonl`, ~15
//! minutes with the local embedder on 2 cores) and reused. `VERITY_EMBEDDER`
//! picks the embedder (`auto` by default). `--dump` writes, per question and
//! mode, the top hits with their scores, for calibration on the `look` part.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use verity::api::{ConfigOverrides, IngestRequest, SearchRequest};
use verity::core::SearchMode;
use verity::Verity;

struct Question {
    corpus: &'static str,
    id: String,
    query: String,
    answerable: bool,
    part: String,
}

fn read_jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn questions(set: &Path, data: &Path) -> Vec<Question> {
    let mut out = Vec::new();
    for (i, q) in read_jsonl(&data.join("scifact/queries_train.jsonl"))
        .into_iter()
        .enumerate()
    {
        out.push(Question {
            corpus: "scifact",
            id: q["_id"].as_str().unwrap().to_string(),
            query: q["text"].as_str().unwrap().to_string(),
            answerable: true,
            part: if i % 2 == 0 { "look" } else { "heldout" }.into(),
        });
    }
    for q in read_jsonl(&set.join("scifact_unanswerable.jsonl")) {
        out.push(Question {
            corpus: "scifact",
            id: q["id"].as_str().unwrap().to_string(),
            query: q["query"].as_str().unwrap().to_string(),
            answerable: false,
            part: q["part"].as_str().unwrap().to_string(),
        });
    }
    for q in read_jsonl(&set.join("examples_questions.jsonl")) {
        out.push(Question {
            corpus: "examples",
            id: q["id"].as_str().unwrap().to_string(),
            query: q["query"].as_str().unwrap().to_string(),
            answerable: q["answerable"].as_bool().unwrap(),
            part: q["part"].as_str().unwrap().to_string(),
        });
    }
    out
}

async fn open(home: &Path, corpus: &Path) -> Verity {
    let overrides = ConfigOverrides {
        home: Some(home.display().to_string()),
        cache: Some(false),
        ..ConfigOverrides::default()
    };
    let v = Verity::open_with(&overrides).await.unwrap();
    if v.stats().await.unwrap().store.documents == 0 {
        eprintln!("building {} from {}", home.display(), corpus.display());
        v.ingest(
            IngestRequest::paths([corpus.display().to_string()], false),
            &|_| {},
        )
        .await
        .unwrap();
    }
    v
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--help") {
        println!(
            "guardrail_eval --scifact-home DIR [--examples-home DIR] [--data DIR] [--dump FILE]"
        );
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let data = arg(&args, "--data")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/data"));
    let set = root.join("crates/verity-eval/guardrail");
    let tmp = std::env::temp_dir();
    let scifact_home = arg(&args, "--scifact-home")
        .map(PathBuf::from)
        .unwrap_or_else(|| tmp.join("verity-guardrail-scifact"));
    let examples_home = arg(&args, "--examples-home")
        .map(PathBuf::from)
        .unwrap_or_else(|| tmp.join("verity-guardrail-examples"));
    let mut dump = arg(&args, "--dump").map(|p| std::fs::File::create(p).unwrap());

    let all = questions(&set, &data);
    let scifact = open(&scifact_home, &data.join("scifact/corpus.jsonl")).await;
    let examples = open(&examples_home, &root.join("examples/data")).await;
    let threshold = scifact.config().retriever.min_relevance;
    // (corpus, answerable, part, mode) -> (refused, total)
    let mut table: BTreeMap<(String, bool, String, String), (usize, usize)> = BTreeMap::new();
    for mode in [SearchMode::Lexical, SearchMode::Dense, SearchMode::Hybrid] {
        for q in &all {
            let v = if q.corpus == "scifact" {
                &scifact
            } else {
                &examples
            };
            let r = v
                .search(&SearchRequest::new(q.query.clone()).k(8).mode(mode))
                .await
                .unwrap();
            if r.mode != mode {
                continue; // no embedder: this mode did not run
            }
            let e = table
                .entry((
                    q.corpus.into(),
                    q.answerable,
                    q.part.clone(),
                    mode.to_string(),
                ))
                .or_default();
            e.0 += usize::from(r.not_enough_evidence);
            e.1 += 1;
            if let Some(f) = dump.as_mut() {
                let hits: Vec<Value> = r
                    .hits
                    .iter()
                    .map(|h| {
                        json!({"uid": h.doc.uid, "score": h.score, "relevance": h.relevance,
                               "lexical": h.lexical, "dense": h.dense,
                               "title": h.doc.title, "text": h.chunk.text})
                    })
                    .collect();
                let line = json!({"corpus": q.corpus, "id": q.id, "query": q.query,
                    "answerable": q.answerable, "part": q.part, "mode": mode.to_string(),
                    "not_enough_evidence": r.not_enough_evidence, "hits": hits});
                writeln!(f, "{line}").unwrap();
            }
        }
    }
    println!("guardrail threshold {threshold}; refusal rate = share of questions answered `not_enough_evidence`");
    println!("| corpus | questions | part | mode | refused | n | refusal rate |");
    println!("|---|---|---|---|---|---|---|");
    for ((corpus, answerable, part, mode), (refused, n)) in &table {
        let kind = if *answerable {
            "answerable"
        } else {
            "unanswerable"
        };
        println!(
            "| {corpus} | {kind} | {part} | {mode} | {refused} | {n} | {:.3} |",
            *refused as f64 / (*n).max(1) as f64
        );
    }
}
