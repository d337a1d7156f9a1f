//! Latency of `check_article_exists` and `score_article` with many logged
//! articles (default 100 000), on the embedded SQLite store.
//!
//! Articles are synthetic but made of real text: each one is 25 sentences
//! drawn from the article-extraction benchmark's reference bodies
//! (`$VERITY_DATA_DIR/article-extraction`, else `../shared/data/article-extraction`).
//!
//! ```text
//! cargo run --release -p verity-watch --example watch_latency -- [ARTICLES] [QUERIES]
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::Instant;

use verity_core::{Priority, RuleKind, RuleUpdate, SourceType, WatchStore};
use verity_store::SqliteWatchStore;
use verity_watch::{CheckArticleRequest, LogArticleRequest, ScoreRequest, Watch};

fn sentences() -> Vec<String> {
    let dir = verity_testkit::data_dir().join("article-extraction");
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("ground-truth.json"))
            .unwrap_or_else(|e| panic!("{}: {e} (set VERITY_DATA_DIR)", dir.display())),
    )
    .unwrap();
    let mut out = Vec::new();
    for v in truth.as_object().unwrap().values() {
        for s in v["articleBody"].as_str().unwrap_or("").split(". ") {
            if s.split_whitespace().count() >= 6 {
                out.push(format!("{}.", s.trim()));
            }
        }
    }
    out
}

/// xorshift64*: deterministic article texts.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

fn text(pool: &[String], rng: &mut Rng) -> String {
    (0..25)
        .map(|_| pool[(rng.next() % pool.len() as u64) as usize].as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

fn percentiles(mut v: Vec<f64>) -> String {
    v.sort_by(f64::total_cmp);
    let p = |q: f64| v[((v.len() as f64 - 1.0) * q).round() as usize];
    format!(
        "p50 {:.1} µs, p95 {:.1} µs, p99 {:.1} µs",
        p(0.5),
        p(0.95),
        p(0.99)
    )
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let queries: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2_000);
    let pool = sentences();
    let dir = std::env::temp_dir().join(format!("verity-watch-latency-{}", std::process::id()));
    let store = Arc::new(SqliteWatchStore::open(&dir).unwrap());
    let w = Watch::builder().backend(store.clone()).build().unwrap();
    for (i, kws) in [
        vec!["ollama", "llama.cpp", "local llm", "on-device ai"],
        vec!["n8n", "workflow automation", "no-code"],
        vec!["crypto", "blockchain", "nft", "web3"],
        vec!["model context protocol", "mcp server", "mcp client"],
        vec!["apple silicon", "gpu", "inference"],
        vec!["open source", "license", "apache"],
        vec!["privacy", "gdpr", "data protection"],
        vec!["startup", "funding", "venture capital"],
        vec!["election", "government", "policy"],
        vec!["climate", "energy", "emissions"],
    ]
    .into_iter()
    .enumerate()
    {
        w.update_rule(RuleUpdate {
            name: format!("rule_{i}"),
            kind: if i == 2 {
                RuleKind::Exclude
            } else {
                RuleKind::Include
            },
            keywords: kws.into_iter().map(str::to_string).collect(),
            score_modifier: None,
            priority: Some(Priority::High),
            active: None,
            description: None,
        })
        .await
        .unwrap();
    }

    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let t0 = Instant::now();
    let mut created = 0usize;
    for k in 0..n {
        let r = w
            .log_article(LogArticleRequest {
                url: format!(
                    "https://site{}.example/2024/post-{k}?utm_source=rss",
                    k % 500
                ),
                title: format!("Article {k}"),
                source: format!("source_{}", k % 50),
                source_type: SourceType::Rss,
                qwen_score: Some((k % 11) as i64),
                qwen_keywords: vec![],
                phi_validated: Some(k % 3 == 0),
                phi_confidence: None,
                summary_fr: None,
                impact: None,
                hashtags: vec![],
                linkedin_draft: None,
                raw_content: Some(text(&pool, &mut rng)),
            })
            .await
            .unwrap();
        created += usize::from(r.created);
        if (k + 1) % 20_000 == 0 {
            eprintln!("logged {} articles in {:.1?}", k + 1, t0.elapsed());
        }
    }
    let load = t0.elapsed();
    let count = store.article_count().await.unwrap();
    println!(
        "logged {n} articles ({created} new, {count} stored) in {load:.1?}: {:.0} µs per log_article",
        load.as_micros() as f64 / n as f64
    );

    let mut url_hit = Vec::new();
    let mut url_miss = Vec::new();
    let mut content_miss = Vec::new();
    let mut score = Vec::new();
    let mut rng = Rng(42);
    for q in 0..queries {
        let k = (rng.next() % n as u64) as usize;
        let t = Instant::now();
        let r = w
            .check_article(&CheckArticleRequest {
                url: format!("http://www.site{}.example/2024/post-{k}/#top", k % 500),
                content: None,
            })
            .await
            .unwrap();
        url_hit.push(t.elapsed().as_secs_f64() * 1e6);
        assert!(r.exists);
        let t = Instant::now();
        let r = w
            .check_article(&CheckArticleRequest {
                url: format!("https://new.example/post-{q}"),
                content: None,
            })
            .await
            .unwrap();
        url_miss.push(t.elapsed().as_secs_f64() * 1e6);
        assert!(!r.exists);
        let body = text(&pool, &mut rng);
        let t = Instant::now();
        let r = w
            .check_article(&CheckArticleRequest {
                url: format!("https://new.example/post-{q}"),
                content: Some(body.clone()),
            })
            .await
            .unwrap();
        content_miss.push(t.elapsed().as_secs_f64() * 1e6);
        assert!(!r.exists, "{r:?}");
        let t = Instant::now();
        let s = w
            .score_article(&ScoreRequest {
                title: format!("Article {q}"),
                content: body,
                url: format!("https://new.example/post-{q}"),
            })
            .await
            .unwrap();
        score.push(t.elapsed().as_secs_f64() * 1e6);
        assert!(s.score <= 10);
    }
    println!(
        "check_article_exists, URL known:             {}",
        percentiles(url_hit)
    );
    println!(
        "check_article_exists, URL unknown:           {}",
        percentiles(url_miss)
    );
    println!(
        "check_article_exists, unknown URL + content: {}",
        percentiles(content_miss)
    );
    println!(
        "score_article (10 rules, ~600-word text):    {}",
        percentiles(score)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
