//! Tech watch (seed 000) at 100,000 logged articles on the embedded store:
//! `check_article_exists` and `score_article` latency.
//!
//! Articles are made from SciFact (`shared/data/scifact/corpus.jsonl`): each
//! one mixes the first sentences of four abstracts chosen by a hash of its
//! number (≈ 250 words, so no two articles are near-duplicates by accident),
//! under the title of the first, at a URL on one of 40 hosts with a
//! per-article path. They are written straight to `SqliteWatchStore` with
//! their canonical URL, SHA-1 and SimHash (what `log_article` stores), so
//! building the set costs the same whatever the lookup does; `log_article`
//! itself is then timed at full size.
//!
//! Queries (300 each, one at a time, after 30 warm-up calls):
//! * URL hit: a logged article's URL in another spelling (upper-case host,
//!   `www.`, `utm_*` parameters, fragment, trailing slash), no content;
//! * URL miss: an unknown URL, no content;
//! * miss with content: an unknown URL with new text (the duplicate check runs);
//! * near-duplicate hit: a logged article's text with a sentence changed and
//!   boilerplate added, at another URL;
//! * `score_article` with 20 rules on a logged article's title, text and URL.
//!
//! `VERITY_DATA_DIR=…/shared/data cargo bench -p verity-benches --bench watch`
//! (`WATCH_BENCH_ARTICLES` to resize).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::Instant;

use chrono::{Duration, TimeZone, Utc};
use serde_json::Value;
use verity_core::hash::sha1_hex;
use verity_core::{
    Article, ArticleFilter, Priority, RelevanceRule, RuleKind, RuleStore, SourceType, WatchStore,
};
use verity_store::SqliteWatchStore;
use verity_watch::simhash::fingerprint;
use verity_watch::{
    canonical_url, CheckArticleRequest, LogArticleRequest, MatchedBy, ScoreRequest, Watch,
    DEFAULT_NEAR_DUP_DISTANCE,
};

const HOSTS: &[&str] = &[
    "arxiv.org",
    "www.nature.com",
    "www.science.org",
    "techcrunch.com",
    "www.theverge.com",
    "arstechnica.com",
    "news.ycombinator.com",
    "www.reddit.com",
    "blog.ollama.com",
    "huggingface.co",
    "www.wired.com",
    "www.technologyreview.com",
    "venturebeat.com",
    "www.zdnet.com",
    "www.lemonde.fr",
    "www.lesechos.fr",
    "www.usine-digitale.fr",
    "www.numerama.com",
    "korben.info",
    "www.developpez.com",
    "medium.com",
    "dev.to",
    "github.blog",
    "openai.com",
    "www.anthropic.com",
    "mistral.ai",
    "ai.meta.com",
    "deepmind.google",
    "www.biorxiv.org",
    "www.medrxiv.org",
    "www.cell.com",
    "www.thelancet.com",
    "www.bmj.com",
    "www.nejm.org",
    "jamanetwork.com",
    "www.sciencedaily.com",
    "phys.org",
    "www.newscientist.com",
    "www.quantamagazine.org",
    "spectrum.ieee.org",
];
const SECTIONS: &[&str] = &[
    "news", "blog", "research", "articles", "posts", "2025/06", "tech/ai",
];

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

struct Doc {
    title: String,
    sentences: Vec<String>,
}

fn corpus() -> Option<Vec<Doc>> {
    let dir = verity_benches::data_dir()?.join("scifact");
    let text = std::fs::read_to_string(dir.join("corpus.jsonl")).ok()?;
    let docs: Vec<Doc> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| {
            let sentences: Vec<String> = v["text"]
                .as_str()?
                .split_inclusive(". ")
                .map(|s| s.trim().to_string())
                .filter(|s| s.split_whitespace().count() >= 5)
                .collect();
            (sentences.len() >= 3).then(|| Doc {
                title: v["title"].as_str().unwrap_or("").to_string(),
                sentences,
            })
        })
        .collect();
    (!docs.is_empty()).then_some(docs)
}

/// Article `i` of the set (`salt` 0), or an unlogged one (`salt` > 0).
struct Art {
    title: String,
    text: String,
    url: String,
}

fn article(docs: &[Doc], i: usize, salt: u64) -> Art {
    let h = mix(i as u64 ^ (salt << 40));
    let pick: Vec<&Doc> = (0..4)
        .map(|k| &docs[(mix(h.wrapping_add(k)) % docs.len() as u64) as usize])
        .collect();
    let mut parts = Vec::new();
    for s in 0..3 {
        for d in &pick {
            if let Some(x) = d.sentences.get(s) {
                parts.push(x.as_str());
            }
        }
    }
    let host = HOSTS[(h >> 8) as usize % HOSTS.len()];
    let section = SECTIONS[(h >> 16) as usize % SECTIONS.len()];
    let slug: String = pick[0]
        .title
        .split_whitespace()
        .take(6)
        .map(|w| w.to_lowercase().replace(|c: char| !c.is_alphanumeric(), ""))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    Art {
        title: pick[0].title.clone(),
        text: parts.join(" "),
        url: format!("https://{host}/{section}/{slug}-{salt}x{i}"),
    }
}

fn rules() -> Vec<RelevanceRule> {
    let r = |name: &str, kind: RuleKind, kw: &[&str], m: i32, p: Priority| RelevanceRule {
        name: name.into(),
        kind,
        keywords: kw.iter().map(|s| s.to_string()).collect(),
        score_modifier: m,
        priority: p,
        active: true,
        description: None,
    };
    use Priority::*;
    use RuleKind::*;
    vec![
        r(
            "local_llm",
            Include,
            &["ollama", "local llm", "llama.cpp"],
            3,
            Critical,
        ),
        r(
            "rag",
            Include,
            &["retrieval augmented generation", "rag", "vector search"],
            3,
            Critical,
        ),
        r("agents", Include, &["agent", "tool use", "mcp"], 2, High),
        r(
            "cancer",
            Include,
            &["cancer", "tumor", "tumour", "carcinoma"],
            2,
            High,
        ),
        r(
            "genomics",
            Include,
            &["gene expression", "genome", "dna", "rna"],
            2,
            High,
        ),
        r(
            "immunology",
            Include,
            &["immune", "t cells", "antibody", "cytokine"],
            2,
            Medium,
        ),
        r(
            "cardio",
            Include,
            &["cardiovascular", "heart failure", "blood pressure"],
            1,
            Medium,
        ),
        r(
            "neuro",
            Include,
            &["neuron", "brain", "cortex", "alzheimer"],
            1,
            Medium,
        ),
        r(
            "trials",
            Boost,
            &[
                "randomized controlled trial",
                "meta-analysis",
                "cohort study",
            ],
            2,
            High,
        ),
        r(
            "stats",
            Boost,
            &["significant", "p <", "confidence interval"],
            1,
            Low,
        ),
        r("mice", Boost, &["mice", "mouse model"], 1, Low),
        r(
            "open_source",
            Boost,
            &["open source", "open-source", "apache 2.0"],
            2,
            Medium,
        ),
        r(
            "benchmarks",
            Boost,
            &["benchmark", "state of the art", "sota"],
            1,
            Low,
        ),
        r(
            "french",
            Boost,
            &["étude", "données", "santé publique"],
            1,
            Low,
        ),
        r(
            "crypto",
            Exclude,
            &["bitcoin", "nft", "crypto"],
            -10,
            Critical,
        ),
        r(
            "sponsored",
            Exclude,
            &["sponsored", "advertisement", "partenariat"],
            -5,
            High,
        ),
        r(
            "gossip",
            Exclude,
            &["celebrity", "rumor", "rumeur"],
            -5,
            Medium,
        ),
        r("sports", Exclude, &["football", "transfer window"], -4, Low),
        r("jobs", Exclude, &["we are hiring", "job offer"], -3, Low),
        r("retracted", Exclude, &["retracted", "retraction"], -6, High),
    ]
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v.get(i).copied().unwrap_or(f64::NAN)
}

/// Another spelling of a logged URL that canonicalises to the same one.
fn respelled(url: &str, i: usize) -> String {
    let rest = url.trim_start_matches("https://");
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let host = host.trim_start_matches("www.");
    match i % 3 {
        0 => format!(
            "http://WWW.{}/{path}/?utm_source=rss&utm_medium=feed#comments",
            host.to_uppercase()
        ),
        1 => format!("https://{host}:443/{path}?fbclid=abc{i}"),
        _ => format!("https://www.{host}/{path}#top"),
    }
}

fn main() {
    let n = env_usize("WATCH_BENCH_ARTICLES", 100_000);
    let Some(docs) = corpus() else {
        eprintln!("\n*** watch bench SKIPPED: SciFact not found (shared/data/scifact) ***\n");
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteWatchStore::open(home.path()).unwrap());
    for r in rules() {
        rt.block_on(store.upsert_rule(r)).unwrap();
    }
    let watch = Watch::builder().backend(store.clone()).build().unwrap();

    // The logged articles.
    let t0 = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).single().unwrap();
    let t = Instant::now();
    for i in 0..n {
        let a = article(&docs, i, 0);
        let canonical = canonical_url(&a.url).unwrap();
        let fp = fingerprint(&a.text).expect("≥ 40 words");
        let at = t0 + Duration::seconds(i as i64 * 300);
        let rec = Article {
            id: format!("art_{}", &sha1_hex(canonical.as_bytes())[..16]),
            url: a.url,
            canonical_url: canonical,
            aliases: Vec::new(),
            title: a.title,
            source: HOSTS[i % HOSTS.len()].to_string(),
            source_type: SourceType::Rss,
            qwen_score: Some((i % 11) as i64),
            qwen_keywords: vec!["scifact".into()],
            phi_validated: i % 3 == 0,
            phi_confidence: Some(0.8),
            summary_fr: None,
            impact: None,
            hashtags: Vec::new(),
            linkedin_draft: None,
            content_sha1: Some(fp.sha1),
            simhash: Some(fp.simhash),
            word_count: Some(fp.words),
            processed_at: at,
            updated_at: at,
        };
        rt.block_on(store.put_article(&rec)).unwrap();
        if i > 0 && i % 20_000 == 0 {
            eprintln!(
                "  {i} / {n} articles ({:.0}/s)",
                i as f64 / t.elapsed().as_secs_f64()
            );
        }
    }
    let build_s = t.elapsed().as_secs_f64();
    let count = rt.block_on(store.article_count()).unwrap();
    println!(
        "articles: {count} ({:.1} s to write, {:.0}/s)",
        build_s,
        count as f64 / build_s
    );

    let q = 300usize;
    let pick = |k: usize| (mix(k as u64 + 77) % n as u64) as usize;
    type Case<'a> = Box<dyn Fn(usize) -> CheckArticleRequest + 'a>;
    let cases: Vec<(&str, Case<'_>, Option<MatchedBy>)> = vec![
        (
            "check: URL hit (other spelling, no content)",
            Box::new(|k| CheckArticleRequest {
                url: respelled(&article(&docs, pick(k), 0).url, k),
                content: None,
            }),
            Some(MatchedBy::Url),
        ),
        (
            "check: URL miss (no content)",
            Box::new(|k| CheckArticleRequest {
                url: article(&docs, k, 1).url,
                content: None,
            }),
            None,
        ),
        (
            "check: miss with content (duplicate check runs)",
            Box::new(|k| {
                let a = article(&docs, k, 2);
                CheckArticleRequest {
                    url: a.url,
                    content: Some(a.text),
                }
            }),
            None,
        ),
        (
            "check: near-duplicate hit (edited text, other URL)",
            Box::new(|k| {
                let a = article(&docs, pick(k), 0);
                let edited = a.text.replacen(" the ", " this ", 1);
                CheckArticleRequest {
                    url: format!("https://mirror-{k}.example.net/repost"),
                    content: Some(format!(
                        "{edited} Share this article. Subscribe to our newsletter."
                    )),
                }
            }),
            Some(MatchedBy::NearDuplicate),
        ),
    ];
    println!("\n| call ({q} queries, {count} articles) | p50 ms | p95 ms | found as expected |");
    println!("|---|---|---|---|");
    for (name, make, want) in &cases {
        for k in 0..30 {
            let _ = rt.block_on(watch.check_article(&make(k + 10_000)));
        }
        let reqs: Vec<CheckArticleRequest> = (0..q).map(make).collect();
        let mut ms = Vec::with_capacity(q);
        let mut ok = 0usize;
        for r in &reqs {
            let t = Instant::now();
            let out = rt.block_on(watch.check_article(r)).unwrap();
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            let good = match want {
                None => !out.exists,
                Some(MatchedBy::NearDuplicate) => matches!(
                    out.matched_by,
                    Some(MatchedBy::NearDuplicate | MatchedBy::SameContent)
                ),
                Some(w) => out.matched_by.as_ref() == Some(w),
            };
            ok += usize::from(good);
        }
        println!(
            "| {name} | {:.3} | {:.3} | {ok}/{q} |",
            pct(&mut ms, 0.5),
            pct(&mut ms, 0.95)
        );
    }

    // How many near-duplicate queries are within the detector's distance of
    // their original (the others are correctly not found).
    let within = (0..q)
        .filter(|&k| {
            let a = article(&docs, pick(k), 0);
            let edited = a.text.replacen(" the ", " this ", 1);
            let e = format!("{edited} Share this article. Subscribe to our newsletter.");
            let (x, y) = (fingerprint(&a.text).unwrap(), fingerprint(&e).unwrap());
            (x.simhash ^ y.simhash).count_ones() <= DEFAULT_NEAR_DUP_DISTANCE
        })
        .count();
    println!("near-duplicate queries within {DEFAULT_NEAR_DUP_DISTANCE} bits of their original: {within}/{q}");

    // Reference for the former 8-bit band index: a content check read and
    // decoded every article sharing one of 8 bands, ~8·N/256 of them.
    let band_reads = 8 * count / 256;
    let mut ms = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        let got = rt
            .block_on(store.articles(&ArticleFilter {
                since: None,
                source: None,
                validated_only: false,
                limit: band_reads,
            }))
            .unwrap();
        ms.push(t.elapsed().as_secs_f64() * 1e3);
        assert_eq!(got.len(), band_reads);
    }
    println!(
        "reference: reading and decoding {band_reads} articles (the former band lookup's load per content check): p50 {:.3} ms",
        pct(&mut ms, 0.5)
    );

    // score_article.
    let reqs: Vec<ScoreRequest> = (0..q)
        .map(|k| {
            let a = article(&docs, pick(k), 0);
            ScoreRequest {
                title: a.title,
                content: a.text,
                url: a.url,
            }
        })
        .collect();
    for r in reqs.iter().take(30) {
        let _ = rt.block_on(watch.score_article(r));
    }
    let mut ms = Vec::with_capacity(q);
    let mut valid = 0usize;
    for r in &reqs {
        let t = Instant::now();
        let out = rt.block_on(watch.score_article(r)).unwrap();
        ms.push(t.elapsed().as_secs_f64() * 1e3);
        valid += usize::from(out.valid);
    }
    println!(
        "| score_article (20 rules, ~250-word text) | {:.3} | {:.3} | {valid}/{q} valid |",
        pct(&mut ms, 0.5),
        pct(&mut ms, 0.95)
    );

    // log_article of new articles at full size (duplicate check included).
    let mut ms = Vec::with_capacity(q);
    for k in 0..q {
        let a = article(&docs, k, 3);
        let req = LogArticleRequest {
            url: a.url,
            title: a.title,
            source: "bench".into(),
            source_type: SourceType::Rss,
            qwen_score: Some(7),
            qwen_keywords: Vec::new(),
            phi_validated: Some(true),
            phi_confidence: Some(0.9),
            summary_fr: None,
            impact: None,
            hashtags: Vec::new(),
            linkedin_draft: None,
            raw_content: Some(a.text),
        };
        let t = Instant::now();
        rt.block_on(watch.log_article(req)).unwrap();
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "| log_article (new article with content) | {:.3} | {:.3} | |",
        pct(&mut ms, 0.5),
        pct(&mut ms, 0.95)
    );
}
