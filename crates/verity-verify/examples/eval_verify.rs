//! Quality and speed of citation verification.
//!
//! ```text
//! cargo run --release -p verity-verify --example eval_verify -- [scifact|distortion|speed|all] [--data DIR] [--limit N]
//! ```
//!
//! - `scifact`: verdict accuracy and macro-F1 on SciFact train claims with their
//!   cited abstracts as sources (SUPPORT → SUPPORTED, CONTRADICT → NOT_SUPPORTED,
//!   no evidence → INCONCLUSIVE; PARTIAL counts as INCONCLUSIVE), and quote
//!   quality (is the quote a gold rationale sentence: top-1, within top 3).
//! - `distortion`: sentences with a figure from real article pages, verbatim and
//!   with one number changed; caught = not SUPPORTED.
//! - `speed`: a document of 200 citations to pages served on loopback, local judge.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // example code

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use verity_core::{Fetcher, RetryPolicy, Verdict};
use verity_fetch::{FetchConfig, HttpFetcher, NetworkGuard};
use verity_verify::numbers::{change_first_number, quantities, Kind};
use verity_verify::text::{find_verbatim, sentence_spans};
use verity_verify::Verifier;

fn fetcher() -> Arc<dyn Fetcher> {
    let cfg = FetchConfig::default()
        .with_guard(NetworkGuard::new().allow_cidr("127.0.0.0/8").unwrap())
        .with_robots(false)
        .with_per_host_interval(Duration::ZERO)
        .with_retry(RetryPolicy::none());
    Arc::new(HttpFetcher::new(cfg).unwrap())
}

fn norm(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

fn same_sentence(q: &str, g: &str) -> bool {
    let (q, g) = (norm(q), norm(g));
    if q == g {
        return true;
    }
    let (short, long) = if q.len() < g.len() {
        (&q, &g)
    } else {
        (&g, &q)
    };
    long.contains(short.as_str()) && short.len() * 10 >= long.len() * 6
}

const LABELS: [Verdict; 3] = [
    Verdict::Supported,
    Verdict::NotSupported,
    Verdict::Inconclusive,
];

fn three_way(v: Verdict) -> Verdict {
    match v {
        Verdict::Supported => Verdict::Supported,
        Verdict::NotSupported => Verdict::NotSupported,
        _ => Verdict::Inconclusive,
    }
}

async fn scifact(data: &Path, limit: usize) {
    let corpus: HashMap<String, Vec<String>> =
        std::fs::read_to_string(data.join("scifact/corpus.jsonl"))
            .unwrap()
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .map(|v| {
                let id = v["_id"].as_str().unwrap_or("").to_string();
                let s = v["sentences"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default();
                (id, s)
            })
            .collect();
    let claims: Vec<serde_json::Value> =
        std::fs::read_to_string(data.join("scifact/claims_train.jsonl"))
            .unwrap()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .take(limit)
            .collect();
    let v = Verifier::builder(fetcher()).build();
    let mut confusion: HashMap<(Verdict, Verdict), usize> = HashMap::new();
    let (mut with_ev, mut top1, mut top3) = (0usize, 0usize, 0usize);
    let t0 = Instant::now();
    let mut judged = 0usize;
    for c in &claims {
        let claim = c["claim"].as_str().unwrap_or("");
        let evidence = c["evidence"].as_object().cloned().unwrap_or_default();
        let gold = match evidence
            .values()
            .next()
            .and_then(|e| e[0]["label"].as_str())
        {
            Some("SUPPORT") => Verdict::Supported,
            Some("CONTRADICT") => Verdict::NotSupported,
            _ => Verdict::Inconclusive,
        };
        // Predicted: over the cited abstracts, the most confident decisive verdict.
        let mut best: Option<(Verdict, f32)> = None;
        for d in c["cited_doc_ids"].as_array().into_iter().flatten() {
            let id = d.to_string();
            let Some(sents) = corpus.get(&id) else {
                continue;
            };
            let content = sents.join(" ");
            let (j, passages, _) = v.judge_against(claim, &content, None).await.unwrap();
            judged += 1;
            let p = three_way(j.verdict);
            if p != Verdict::Inconclusive
                && best.is_none_or(|(bv, bc)| bv == Verdict::Inconclusive || j.confidence > bc)
            {
                best = Some((p, j.confidence));
            } else if best.is_none() {
                best = Some((Verdict::Inconclusive, j.confidence));
            }
            if let Some(ev) = evidence.get(&id) {
                let gold_sents: Vec<&str> = ev
                    .as_array()
                    .into_iter()
                    .flatten()
                    .flat_map(|e| e["sentences"].as_array().cloned().unwrap_or_default())
                    .filter_map(|i| {
                        i.as_u64()
                            .and_then(|i| sents.get(i as usize))
                            .map(String::as_str)
                    })
                    .collect();
                with_ev += 1;
                let q = j
                    .source_quote
                    .as_deref()
                    .or(passages.first().map(|p| p.text.as_str()))
                    .unwrap_or("");
                if gold_sents.iter().any(|g| same_sentence(q, g)) {
                    top1 += 1;
                }
                if passages
                    .iter()
                    .take(3)
                    .any(|p| gold_sents.iter().any(|g| same_sentence(&p.text, g)))
                {
                    top3 += 1;
                }
            }
        }
        let pred = best.map_or(Verdict::Inconclusive, |b| b.0);
        *confusion.entry((gold, pred)).or_default() += 1;
    }
    let n: usize = confusion.values().sum();
    let correct: usize = LABELS
        .iter()
        .map(|l| confusion.get(&(*l, *l)).copied().unwrap_or(0))
        .sum();
    let mut f1s = Vec::new();
    println!("SciFact train, {n} claims ({judged} claim–abstract pairs judged, local judge, BM25 passages)");
    println!("confusion (gold → predicted SUPPORTED / NOT_SUPPORTED / INCONCLUSIVE):");
    for g in LABELS {
        let row: Vec<usize> = LABELS
            .iter()
            .map(|p| confusion.get(&(g, *p)).copied().unwrap_or(0))
            .collect();
        println!("  {:<14} {:?}", g.as_str(), row);
        let tp = confusion.get(&(g, g)).copied().unwrap_or(0) as f64;
        let pred: usize = LABELS
            .iter()
            .map(|x| confusion.get(&(*x, g)).copied().unwrap_or(0))
            .sum();
        let gold: usize = row.iter().sum();
        let p = if pred > 0 { tp / pred as f64 } else { 0.0 };
        let r = if gold > 0 { tp / gold as f64 } else { 0.0 };
        f1s.push(if p + r > 0.0 {
            2.0 * p * r / (p + r)
        } else {
            0.0
        });
    }
    println!(
        "accuracy {:.3}, macro-F1 {:.3}",
        correct as f64 / n.max(1) as f64,
        f1s.iter().sum::<f64>() / 3.0
    );
    println!(
        "quote quality on {with_ev} claim–abstract pairs with evidence: top-1 {:.3}, top-3 {:.3}",
        top1 as f64 / with_ev.max(1) as f64,
        top3 as f64 / with_ev.max(1) as f64
    );
    println!(
        "time {:.1} ms per pair",
        t0.elapsed().as_secs_f64() * 1e3 / judged.max(1) as f64
    );
}

/// (page content as parsed, sentences with a figure found verbatim in it).
fn article_sentences(data: &Path) -> Vec<(String, Vec<String>)> {
    let dir = data.join("article-extraction");
    let truth: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("ground-truth.json")).unwrap())
            .unwrap();
    let mut ids: Vec<&String> = truth.as_object().unwrap().keys().collect();
    ids.sort();
    let mut out = Vec::new();
    for id in ids {
        let gz = std::fs::read(dir.join(format!("html/{id}.html.gz"))).unwrap();
        let mut html = String::new();
        if flate2::read::GzDecoder::new(&gz[..])
            .read_to_string(&mut html)
            .is_err()
        {
            continue;
        }
        let Ok(parsed) = verity_extract::parse_html(&html, None) else {
            continue;
        };
        let content = parsed.document.content;
        let body = truth[id]["articleBody"].as_str().unwrap_or("");
        let sents: Vec<String> = sentence_spans(body)
            .into_iter()
            .map(|r| body[r].to_string())
            .filter(|s| {
                let w = s.split_whitespace().count();
                (8..=60).contains(&w)
                    && quantities(s)
                        .iter()
                        .any(|q| q.kind != Kind::Year || quantities(s).len() == 1)
                    && find_verbatim(&content, s).is_some()
            })
            .collect();
        if !sents.is_empty() {
            out.push((content, sents));
        }
    }
    out
}

async fn distortion(data: &Path) {
    let v = Verifier::builder(fetcher()).build();
    let (mut n, mut caught, mut false_alarms, mut bad_supported) = (0usize, 0usize, 0usize, 0usize);
    let mut examples = Vec::new();
    let t0 = Instant::now();
    for (content, sents) in article_sentences(data) {
        for s in sents {
            let Some((distorted, old, new)) = change_first_number(&s) else {
                continue;
            };
            n += 1;
            let (jf, _, _) = v.judge_against(&s, &content, None).await.unwrap();
            if jf.verdict != Verdict::Supported {
                false_alarms += 1;
                if examples.len() < 5 {
                    examples.push(format!(
                        "false alarm {:?}: {} — {}",
                        jf.verdict, s, jf.explanation
                    ));
                }
            }
            let (jd, _, _) = v.judge_against(&distorted, &content, None).await.unwrap();
            if jd.verdict != Verdict::Supported {
                caught += 1;
            } else {
                examples.push(format!(
                    "missed {old}→{new}: {distorted} — quote: {:?}",
                    jd.source_quote
                ));
            }
            for (claim, j) in [(&s, &jf), (&distorted, &jd)] {
                if j.verdict == Verdict::Supported {
                    let qq = quantities(j.source_quote.as_deref().unwrap_or(""));
                    if quantities(claim).iter().any(|c| {
                        !matches!(
                            verity_verify::numbers::check(c, &qq),
                            verity_verify::numbers::NumberCheck::Matches(_)
                        )
                    }) {
                        bad_supported += 1;
                    }
                }
            }
        }
    }
    println!("numeric distortion: {n} sentences with a figure from real pages (verbatim) and the same with one number changed");
    println!(
        "caught {:.3} ({caught}/{n}), false alarms {:.3} ({false_alarms}/{n}), SUPPORTED with a quote lacking a claim figure: {bad_supported}",
        caught as f64 / n.max(1) as f64,
        false_alarms as f64 / n.max(1) as f64
    );
    println!(
        "time {:.1} ms per judgement",
        t0.elapsed().as_secs_f64() * 1e3 / (2 * n).max(1) as f64
    );
    for e in examples.iter().take(8) {
        println!("  {e}");
    }
}

async fn speed(data: &Path) {
    use axum::http::header;
    use axum::response::IntoResponse;
    let pages = article_sentences(data);
    let pages: Vec<(String, Vec<String>)> = pages.into_iter().take(20).collect();
    // Serve the parsed pages as Markdown-ish text under /p/<i>.
    let contents: Arc<Vec<String>> = Arc::new(pages.iter().map(|p| p.0.clone()).collect());
    let c2 = contents.clone();
    let app = axum::Router::new().route(
        "/p/{i}",
        axum::routing::get(move |axum::extract::Path(i): axum::extract::Path<usize>| {
            let c = c2.clone();
            async move {
                (
                    [(header::CONTENT_TYPE, "text/markdown; charset=utf-8")],
                    c.get(i).cloned().unwrap_or_default(),
                )
                    .into_response()
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let mut doc = String::from("# Speed test\n\n");
    let mut count = 0;
    'outer: for round in 0..20 {
        for (i, (_, sents)) in pages.iter().enumerate() {
            if let Some(s) = sents.get(round) {
                doc.push_str(&format!("{s} [{}]\n\n", i + 1));
                count += 1;
                if count == 200 {
                    break 'outer;
                }
            }
        }
    }
    doc.push_str("## References\n");
    for i in 0..pages.len() {
        doc.push_str(&format!("{}. http://{addr}/p/{i}\n", i + 1));
    }
    let v = Verifier::builder(fetcher()).concurrency(4).build();
    let r = v.check_text(&doc).await.unwrap();
    let st = &r.statistics;
    println!(
        "speed: {} citations to {} loopback sources, local judge: {:.2} ms per citation after fetching, {:.2} ms per citation in total (fetch {:.0} ms, run {:.0} ms); {} supported",
        st.claims, st.distinct_sources, st.ms_per_citation, st.total_ms_per_citation, st.fetch_ms, st.elapsed_ms, r.summary.supported
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let what = args.first().cloned().unwrap_or_else(|| "all".into());
    let mut data = [
        PathBuf::from("../shared/data"),
        PathBuf::from("/work/shared/data"),
    ]
    .into_iter()
    .find(|p| p.join("scifact").exists())
    .unwrap_or_else(|| PathBuf::from("../shared/data"));
    let mut limit = usize::MAX;
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--data" => data = PathBuf::from(it.next().expect("--data DIR")),
            "--limit" => limit = it.next().and_then(|s| s.parse().ok()).expect("--limit N"),
            other => panic!("unknown argument {other}"),
        }
    }
    if what == "scifact" || what == "all" {
        scifact(&data, limit).await;
    }
    if what == "distortion" || what == "all" {
        distortion(&data).await;
    }
    if what == "speed" || what == "all" {
        speed(&data).await;
    }
}
