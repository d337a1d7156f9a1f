//! The tech watch's per-article loop (seed 000), timed end to end through the
//! tool registry — what an MCP client or n8n runs for every article:
//! `get_veille_rules` → `check_article_exists` → `score_article` →
//! `verify_fact` → `log_article` → `log_veille_decision`.
//!
//! The web is a loopback fake: real pages from the article-extraction
//! benchmark (`shared/data/article-extraction`, served gzip-encoded as they
//! are stored) and a SearXNG `/search` answering in its JSON format with the
//! page of the article under test. The store is a fresh embedded home.
//!
//! ```text
//! VERITY_DATA_DIR=…/shared/data cargo run --release -p verity-ai --example watch_loop -- [ARTICLES]
//! ```
//! `VERITY_EMBEDDER` picks the embedder (`none` by default here: lexical
//! indexing of the logged text; `auto` embeds it with the local model).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use verity::api::ConfigOverrides;
use verity::watch::WatchConfig;
use verity::Verity;

struct Page {
    gz: Vec<u8>,
    body: String,
}

fn pages(limit: usize) -> Vec<Page> {
    let dir = std::env::var_os("VERITY_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"))
        .join("article-extraction");
    let truth: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("ground-truth.json"))
            .unwrap_or_else(|e| panic!("{}: {e} (set VERITY_DATA_DIR)", dir.display())),
    )
    .unwrap();
    let mut keys: Vec<&String> = truth.as_object().unwrap().keys().collect();
    keys.sort();
    keys.into_iter()
        .filter_map(|k| {
            let gz = std::fs::read(dir.join("html").join(format!("{k}.html.gz"))).ok()?;
            let body = truth[k]["articleBody"].as_str()?.to_string();
            (body.split_whitespace().count() > 80).then_some(Page { gz, body })
        })
        .take(limit)
        .collect()
}

/// `/a/<i>` → page i (gzip), `/search` → SearXNG JSON pointing at the current page.
async fn web(pages: Arc<Vec<Page>>, current: Arc<AtomicUsize>) -> String {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", l.local_addr().unwrap());
    let b = base.clone();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = l.accept().await {
            let (base, pages, current) = (b.clone(), pages.clone(), current.clone());
            tokio::spawn(async move {
                let mut buf = vec![0u8; 16_384];
                let mut n = 0;
                while !buf[..n].windows(4).any(|w| w == b"\r\n\r\n") {
                    match s.read(&mut buf[n..]).await {
                        Ok(0) | Err(_) => return,
                        Ok(k) => n += k,
                    }
                }
                let req = String::from_utf8_lossy(&buf[..n]).to_string();
                let path = req.split_whitespace().nth(1).unwrap_or("/").to_string();
                let page = path
                    .strip_prefix("/a/")
                    .and_then(|i| i.parse::<usize>().ok())
                    .and_then(|i| pages.get(i));
                let (head, body): (String, Vec<u8>) = if let Some(p) = page {
                    (
                        "Content-Type: text/html; charset=utf-8\r\nContent-Encoding: gzip".into(),
                        p.gz.clone(),
                    )
                } else if path.starts_with("/search") {
                    let i = current.load(Ordering::SeqCst);
                    let r = json!({"query": "", "results": [{"url": format!("{base}/a/{i}"),
                        "title": "article", "content": "", "engine": "fake"}]});
                    (
                        "Content-Type: application/json".into(),
                        r.to_string().into_bytes(),
                    )
                } else {
                    ("Content-Type: text/plain".into(), b"not found".to_vec())
                };
                let status = if page.is_some() || path.starts_with("/search") {
                    "200 OK"
                } else {
                    "404 Not Found"
                };
                let head = format!(
                    "HTTP/1.1 {status}\r\n{head}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = s.write_all(head.as_bytes()).await;
                let _ = s.write_all(&body).await;
                let _ = s.shutdown().await;
            });
        }
    });
    base
}

fn first_sentence(body: &str) -> String {
    body.split(". ")
        .map(str::trim)
        .find(|s| s.split_whitespace().count() >= 8)
        .unwrap_or(body)
        .chars()
        .take(300)
        .collect()
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v.get(i).copied().unwrap_or(f64::NAN)
}

#[tokio::main]
async fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(40);
    let pages = Arc::new(pages(n));
    let current = Arc::new(AtomicUsize::new(0));
    let base = web(pages.clone(), current.clone()).await;
    let home = tempfile::tempdir().unwrap();
    let v = Verity::open_with(&ConfigOverrides {
        home: Some(home.path().display().to_string()),
        embedder: Some(std::env::var("VERITY_EMBEDDER").unwrap_or_else(|_| "none".into())),
        ..Default::default()
    })
    .await
    .unwrap();
    v.configure_watch(WatchConfig {
        searxng_url: Some(base.clone()),
        allow_private: true,
        ..WatchConfig::default()
    })
    .unwrap();
    for (name, kind, words, modifier) in [
        (
            "ai",
            "include",
            vec!["artificial intelligence", "model", "data"],
            2,
        ),
        ("policy", "boost", vec!["government", "law", "court"], 1),
        ("ads", "exclude", vec!["sponsored", "advertisement"], -5),
    ] {
        v.call_tool(
            "update_veille_rule",
            json!({"name": name, "type": kind, "keywords": words,
                   "score_modifier": modifier, "priority": "high"}),
        )
        .await
        .unwrap();
    }

    let steps = [
        "get_veille_rules",
        "check_article_exists",
        "score_article",
        "verify_fact",
        "log_article",
        "log_veille_decision",
    ];
    let mut ms: Vec<Vec<f64>> = vec![Vec::new(); steps.len()];
    let mut total = Vec::new();
    let mut verified = 0;
    for (i, p) in pages.iter().enumerate() {
        current.store(i, Ordering::SeqCst);
        let url = format!("{base}/a/{i}");
        let title: String = p
            .body
            .split_whitespace()
            .take(8)
            .collect::<Vec<_>>()
            .join(" ");
        let claim = first_sentence(&p.body);
        let args = [
            json!({}),
            json!({"url": url}),
            json!({"title": title, "content": p.body, "url": url}),
            json!({"claim": claim, "context": title}),
            json!({"url": url, "title": title, "source": "bench", "source_type": "rss",
                   "qwen_score": 7, "phi_validated": true, "summary_fr": claim,
                   "raw_content": p.body}),
            Value::Null, // the decision needs the logged article's id
        ];
        let start = Instant::now();
        let mut article_id = Value::Null;
        for (s, (step, a)) in steps.iter().zip(args).enumerate() {
            let a = if *step == "log_veille_decision" {
                json!({"article_id": article_id, "llm": "phi", "decision_type": "validate",
                       "decision": "validated", "confidence": 0.9, "reasoning": "bench",
                       "tools_used": ["check_article_exists", "verify_fact"]})
            } else {
                a
            };
            let t = Instant::now();
            let out = v
                .call_tool(step, a)
                .await
                .unwrap_or_else(|e| panic!("{step}: {e}"));
            ms[s].push(t.elapsed().as_secs_f64() * 1e3);
            if *step == "verify_fact" && out["verified"] == true {
                verified += 1;
            }
            if *step == "log_article" {
                article_id = out["article_id"].clone();
            }
        }
        total.push(start.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "{} articles, embedder {}, verify_fact verified {verified}/{}",
        pages.len(),
        std::env::var("VERITY_EMBEDDER").unwrap_or_else(|_| "none".into()),
        pages.len()
    );
    println!("| step | p50 ms | p95 ms |\n|---|---|---|");
    for (s, step) in steps.iter().enumerate() {
        println!(
            "| `{step}` | {:.2} | {:.2} |",
            pct(&mut ms[s], 0.5),
            pct(&mut ms[s], 0.95)
        );
    }
    println!(
        "| **whole loop** | {:.2} | {:.2} |",
        pct(&mut total, 0.5),
        pct(&mut total, 0.95)
    );
}
