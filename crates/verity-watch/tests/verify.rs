//! `verify_fact` end to end on real pages (the article-extraction set, read
//! from `../shared/data`) served on loopback, with a SearXNG fake speaking
//! its JSON API: supported figures are verified with verbatim excerpts,
//! distorted figures are not, unreadable pages are listed, a dead SearXNG is
//! a transient error.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use verity_core::Verdict;
use verity_fetch::{FetchConfig, HttpFetcher, NetworkGuard, SearxngSearch};
use verity_store::SqliteWatchStore;
use verity_testkit::{searxng, Hit, Reply};
use verity_watch::{CrawlRequest, VerifyFactRequest, Watch};

fn data_dir() -> Option<PathBuf> {
    verity_testkit::data("article-extraction/ground-truth.json")
        .and_then(|f| f.parent().map(PathBuf::from))
}

/// `id → html` of the first `n` pages (sorted by id).
fn pages(n: usize) -> Option<Vec<(String, String)>> {
    let Some(dir) = data_dir() else {
        verity_testkit::skip("article-extraction data not found (set VERITY_DATA_DIR)");
        return None;
    };
    let truth: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("ground-truth.json")).unwrap())
            .unwrap();
    let mut ids: Vec<&String> = truth.as_object().unwrap().keys().collect();
    ids.sort();
    Some(
        ids.into_iter()
            .take(n)
            .map(|id| {
                let gz = std::fs::read(dir.join("html").join(format!("{id}.html.gz"))).unwrap();
                let mut raw = Vec::new();
                flate2::read::GzDecoder::new(&gz[..])
                    .read_to_end(&mut raw)
                    .unwrap();
                (id.clone(), String::from_utf8_lossy(&raw).into_owned())
            })
            .collect(),
    )
}

/// Loopback server: `/page/<id>` → the page, `/search` → SearXNG JSON
/// listing `search_ids` (and one dead page), else 404.
fn serve(pages: HashMap<String, String>, search_ids: Vec<String>) -> String {
    verity_testkit::serve(move |path, base| {
        if let Some(id) = path.strip_prefix("/page/") {
            pages
                .get(id)
                .map_or_else(Reply::not_found, |h| Reply::html(h.as_str()))
        } else if path.starts_with("/search") {
            let urls: Vec<(String, String)> = search_ids
                .iter()
                .map(|id| (format!("{base}/page/{id}"), format!("page {id}")))
                .chain([(format!("{base}/page/missing"), "dead".to_string())])
                .collect();
            let hits: Vec<Hit<'_>> = urls
                .iter()
                .map(|(url, title)| Hit {
                    url,
                    title,
                    content: "…",
                })
                .collect();
            searxng("", &hits)
        } else {
            Reply::not_found()
        }
    })
    .unwrap()
}

fn watch(searx: &str, sources: usize) -> Watch {
    let cfg = FetchConfig::default()
        .with_guard(NetworkGuard::new().allow_cidr("127.0.0.0/8").unwrap())
        .with_timeout(Duration::from_secs(10))
        .with_per_host_interval(Duration::ZERO);
    Watch::builder()
        .backend(Arc::new(SqliteWatchStore::open_in_memory().unwrap()))
        .web_search(Arc::new(SearxngSearch::new(searx).unwrap()))
        .fetcher(Arc::new(HttpFetcher::new(cfg).unwrap()))
        .max_fact_sources(sources)
        .build()
        .unwrap()
}

/// A sentence of the extracted page with a figure in it (8–40 words).
fn figure_sentence(content: &str) -> Option<String> {
    content
        .split(['\n'])
        .flat_map(|l| l.split_inclusive(". "))
        .map(str::trim)
        .find(|s| {
            let w = s.split_whitespace().count();
            (8..=40).contains(&w)
                && s.chars().any(|c| c.is_ascii_digit())
                && !s.contains(['[', '|', '#', '*'])
                && verity_verify::numbers::change_first_number(s).is_some()
        })
        .map(str::to_string)
}

#[tokio::test]
async fn verify_fact_on_real_pages() {
    let Some(pages) = pages(4) else { return };
    let ids: Vec<String> = pages.iter().map(|(id, _)| id.clone()).collect();
    let html: HashMap<String, String> = pages.iter().cloned().collect();
    let is_page_text = |url: &str, quote: &str| {
        let id = url.rsplit('/').next().unwrap_or("");
        html.get(id).is_some_and(|h| {
            verity_verify::audit::is_page_text(&verity_verify::audit::page_text(h), quote)
        })
    };
    let base = serve(pages.into_iter().collect(), ids[..3].to_vec());
    let w = watch(&base, 4);

    let mut checked = 0;
    for id in &ids[..3] {
        let url = format!("{base}/page/{id}");
        let page = w
            .crawl_url(&CrawlRequest { url: url.clone() })
            .await
            .unwrap();
        let Some(claim) = figure_sentence(&page.content) else {
            continue;
        };
        // Given the page: supported, with a verbatim excerpt.
        let r = w
            .verify_fact(&VerifyFactRequest {
                claim: claim.clone(),
                urls: vec![url.clone()],
                ..Default::default()
            })
            .await
            .unwrap();
        assert!(r.verified, "{claim}: {r:#?}");
        assert_eq!(r.verdict, Verdict::Supported);
        assert!(r.confidence > 0.5 && r.searched.is_none() && r.judge == "local");
        assert_eq!(r.sources.len(), 1);
        assert!(!r.sources[0].excerpt.is_empty(), "{r:#?}");
        assert!(is_page_text(&url, &r.sources[0].excerpt), "{r:#?}");

        // Through the web search: the page is among the sources, the dead
        // result is listed as unavailable, every excerpt is verbatim.
        let r = w
            .verify_fact(&VerifyFactRequest {
                claim: claim.clone(),
                context: Some("news".into()),
                urls: vec![],
            })
            .await
            .unwrap();
        assert!(r.verified, "{claim}: {r:#?}");
        assert_eq!(
            r.searched.as_deref(),
            Some(format!("{claim} news").as_str())
        );
        assert_eq!(r.sources[0].url, url, "the supporting page first: {r:#?}");
        assert_eq!(r.unavailable.len(), 1, "{r:#?}");
        assert!(r.unavailable[0].url.ends_with("/page/missing"));
        for s in &r.sources {
            assert!(is_page_text(&s.url, &s.excerpt), "{s:#?}");
        }

        // The same sentence with its figure changed is not verified.
        let (distorted, _, _) = verity_verify::numbers::change_first_number(&claim).unwrap();
        let r = w
            .verify_fact(&VerifyFactRequest {
                claim: distorted.clone(),
                urls: vec![url.clone()],
                ..Default::default()
            })
            .await
            .unwrap();
        assert!(!r.verified, "{distorted}: {r:#?}");
        assert!(
            matches!(r.verdict, Verdict::NotSupported | Verdict::Partial),
            "{distorted}: {r:#?}"
        );
        for s in &r.sources {
            assert!(is_page_text(&s.url, &s.excerpt), "{s:#?}");
        }
        checked += 1;
    }
    assert!(checked >= 2, "pages with a figure sentence: {checked}");

    // A claim none of the pages speak of: not enough evidence, never verified.
    let r = w
        .verify_fact(&VerifyFactRequest {
            claim: "The zorblax quantum teapot ships 7 flavours of moon cheese.".into(),
            urls: vec![format!("{base}/page/{}", ids[3])],
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(!r.verified && r.not_enough_evidence, "{r:#?}");

    // Only dead pages: listed, source unavailable.
    let r = w
        .verify_fact(&VerifyFactRequest {
            claim: "Revenue grew 12% in 2023.".into(),
            urls: vec![format!("{base}/page/missing")],
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(r.verdict, Verdict::SourceUnavailable);
    assert!(r.unavailable[0].error.contains("404"), "{r:#?}");
}

#[tokio::test]
async fn verify_fact_bad_input_and_dead_search() {
    let w = watch("http://127.0.0.1:9", 3);
    for claim in ["", "   "] {
        let e = w
            .verify_fact(&VerifyFactRequest {
                claim: claim.into(),
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(e.code(), "invalid_input");
    }
    let e = w
        .verify_fact(&VerifyFactRequest {
            claim: "x".repeat(5_000),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), "invalid_input");
    // SearXNG down: a transient, typed error.
    let dead = verity_testkit::dead_url().unwrap();
    let e = watch(&dead, 3)
        .verify_fact(&VerifyFactRequest {
            claim: "Ollama 0.5 is 50% faster".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert!(e.is_transient(), "{e}");
    // Misconfiguration is refused at build time.
    assert!(Watch::builder()
        .backend(Arc::new(SqliteWatchStore::open_in_memory().unwrap()))
        .max_fact_sources(11)
        .build()
        .is_err());
}

const RUST_PAGE: &str = "<!DOCTYPE html><html><head><title>Announcing Rust 1.0</title></head><body><article>\
<h1>Announcing Rust 1.0</h1>\
<p>Today we are very proud to announce the 1.0 release of Rust, a new programming language aiming to make it easier to build reliable, efficient systems.</p>\
<p>Rust 1.0 was released on May 15, 2015, after years of development at Mozilla.</p>\
<p>The release promises stability: code that compiles on Rust 1.0 keeps compiling.</p></article></body></html>";

const OLLAMA_PAGE: &str = "<!DOCTYPE html><html><head><title>Ollama v0.5.0 release notes</title></head><body><article>\
<h1>Ollama v0.5.0 release notes</h1>\
<p>This release adds structured outputs, so that a model's answer can follow a JSON schema.</p>\
<p>Model loading was reworked for <strong>large</strong> models and multi-GPU machines.</p>\
<p>On most hardware Ollama 0.5 runs models 40-50% faster than the previous release.</p></article></body></html>";

/// A judge whose model answers garbage: it fails like an LLM judge that
/// answered off-schema twice.
struct BrokenJudge;

#[async_trait::async_trait]
impl verity_core::Judge for BrokenJudge {
    fn name(&self) -> &str {
        "llm:broken"
    }
    async fn judge(
        &self,
        _claim: &str,
        _passages: &[verity_core::Passage],
    ) -> verity_core::Result<verity_core::Judgement> {
        Err(verity_core::Error::Provider(
            verity_core::ProviderError::new(
                "broken",
                verity_core::ProviderErrorKind::BadResponse,
                "the judge's answer was not the expected JSON twice: no JSON object",
            ),
        ))
    }
}

#[tokio::test]
async fn verify_fact_reads_the_matching_passage_and_relevance_comes_first() {
    let base = verity_testkit::serve(|path, _| match path {
        "/rust" => Reply::html(RUST_PAGE),
        "/ollama" => Reply::html(OLLAMA_PAGE),
        _ => Reply::not_found(),
    })
    .unwrap();
    let w = watch(&base, 3);
    let ask = |claim: &str, page: &str| VerifyFactRequest {
        claim: claim.into(),
        urls: vec![format!("{base}/{page}")],
        ..Default::default()
    };
    // A page about another product does not contradict the claim.
    let r = w
        .verify_fact(&ask("Python 3.12 was released in 2023", "rust"))
        .await
        .unwrap();
    assert_eq!(r.verdict, Verdict::Inconclusive, "{r:#?}");
    assert!(r.not_enough_evidence && !r.verified);
    let r = w
        .verify_fact(&ask("Rust 1.0 was released on May 15, 2015", "ollama"))
        .await
        .unwrap();
    assert_eq!(r.verdict, Verdict::Inconclusive, "{r:#?}");
    // The matching passage, not the page's opening.
    let r = w
        .verify_fact(&ask("Ollama 0.5 is 50% faster", "ollama"))
        .await
        .unwrap();
    assert_eq!(r.verdict, Verdict::Supported, "{r:#?}");
    assert_eq!(
        r.sources[0].excerpt,
        "On most hardware Ollama 0.5 runs models 40-50% faster than the previous release."
    );
    // The same subject with another date: contradicted, in the claim's words.
    let r = w
        .verify_fact(&ask("Rust 1.0 was released on May 15, 2016", "rust"))
        .await
        .unwrap();
    assert_eq!(r.verdict, Verdict::NotSupported, "{r:#?}");
    assert!(
        r.summary.contains("2015") && r.summary.contains("2016"),
        "{}",
        r.summary
    );
    for s in &r.sources {
        let page = verity_verify::audit::page_text(RUST_PAGE);
        assert!(
            verity_verify::audit::is_page_text(&page, &s.excerpt),
            "{s:#?}"
        );
    }

    // An LLM judge that fails never aborts: the local judge decides, said so.
    let cfg = FetchConfig::default()
        .with_guard(NetworkGuard::new().allow_cidr("127.0.0.0/8").unwrap())
        .with_per_host_interval(Duration::ZERO);
    let w = Watch::builder()
        .backend(Arc::new(SqliteWatchStore::open_in_memory().unwrap()))
        .fetcher(Arc::new(HttpFetcher::new(cfg).unwrap()))
        .judge(Arc::new(BrokenJudge))
        .build()
        .unwrap();
    let r = w
        .verify_fact(&ask("Ollama 0.5 is 50% faster", "ollama"))
        .await
        .unwrap();
    assert_eq!(r.verdict, Verdict::Supported, "{r:#?}");
    assert_eq!(r.judge, "local");
    assert!(
        r.sources[0].notes.iter().any(|n| n.contains("llm:broken")),
        "{r:#?}"
    );
}
