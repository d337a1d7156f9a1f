//! `web_search` through a SearXNG fake speaking its JSON API, and `crawl_url`
//! through the guarded HTTP fetcher against pages served on loopback.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::Duration;

use verity_fetch::{FetchConfig, HttpFetcher, NetworkGuard, SearxngSearch};
use verity_store::SqliteWatchStore;
use verity_testkit::Reply;
use verity_watch::{CrawlRequest, Watch, WebSearchRequest};

const ARTICLE: &str = r#"<!doctype html><html><head><title>Announcing Ollama 0.5</title></head>
<body><nav><a href="/">Home</a> <a href="/blog">Blog</a></nav>
<article><h1>Announcing Ollama 0.5</h1>
<p>Today we're releasing <a href="/blog/0-5">Ollama 0.5</a>, our biggest update yet. Inference is forty to fifty percent faster on Apple Silicon.</p>
<h2>Performance Improvements</h2>
<p>We rewrote the scheduler and added new quantisation options that reduce memory use on every platform we support.</p>
</article><footer>© Ollama</footer></body></html>"#;

fn searx_json() -> String {
    let results: Vec<serde_json::Value> = (0..12)
        .map(|i| {
            serde_json::json!({
                "url": format!("https://github.com/ollama/ollama/releases/tag/v0.5.{i}"),
                "title": format!("Ollama 0.5.{i} Release Notes"),
                "content": "Performance improvements: 40-50% faster inference on Apple Silicon...",
                "engine": "duckduckgo",
                "score": 1.0 / (1.0 + i as f64),
            })
        })
        .collect();
    serde_json::json!({"query": "ollama", "number_of_results": 12, "results": results}).to_string()
}

/// A loopback HTTP/1.1 server: `/article`, `/big`, `/binary`, `/search` (SearXNG JSON), else 404.
fn serve() -> String {
    verity_testkit::serve(|path, _| {
        if path.starts_with("/article") {
            Reply::html(ARTICLE)
        } else if path.starts_with("/big") {
            let para = "<p>Local inference keeps getting faster with every release of the runtime. </p>\n";
            Reply::ok(
                "text/html",
                format!(
                    "<html><head><title>Big</title></head><body><article>{}</article></body></html>",
                    para.repeat(20_000)
                ),
            )
        } else if path.starts_with("/binary") {
            Reply::ok(
                "application/octet-stream",
                (0..200_000u32).map(|i| (i % 251) as u8).collect::<Vec<u8>>(),
            )
        } else if path.starts_with("/search") {
            Reply::ok("application/json", searx_json())
        } else {
            Reply::not_found()
        }
    })
    .unwrap()
}

fn fetcher(allow_loopback: bool) -> Arc<HttpFetcher> {
    let guard = if allow_loopback {
        NetworkGuard::new().allow_cidr("127.0.0.0/8").unwrap()
    } else {
        NetworkGuard::new()
    };
    let cfg = FetchConfig::default()
        .with_guard(guard)
        .with_timeout(Duration::from_secs(10))
        .with_per_host_interval(Duration::ZERO);
    Arc::new(HttpFetcher::new(cfg).unwrap())
}

fn watch(base: &str, allow_loopback: bool, max_crawl: usize) -> Watch {
    Watch::builder()
        .backend(Arc::new(SqliteWatchStore::open_in_memory().unwrap()))
        .web_search(Arc::new(SearxngSearch::new(base).unwrap()))
        .fetcher(fetcher(allow_loopback))
        .max_crawl_bytes(max_crawl)
        .build()
        .unwrap()
}

#[tokio::test]
async fn web_search_in_the_seed_shape() {
    let base = serve();
    let w = watch(&base, true, 200_000);
    let req = |n: usize| WebSearchRequest {
        query: "Ollama 0.5 release performance".into(),
        num_results: n,
        time_range: Some(verity_core::WebTimeRange::Month),
    };
    let r = w.web_search(&req(3)).await.unwrap();
    assert_eq!((r.results.len(), r.total_found), (3, 3));
    assert_eq!(r.query, "Ollama 0.5 release performance");
    assert_eq!(r.results[0].source, "github.com");
    assert!(r.results[0].snippet.contains("40-50%"));
    let v = serde_json::to_value(&r).unwrap();
    let keys: Vec<&str> = v["results"][0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["snippet", "source", "title", "url"]);
    assert_eq!(w.web_search(&req(10)).await.unwrap().total_found, 10);
    for bad in [0, 11] {
        let e = w.web_search(&req(bad)).await.unwrap_err();
        assert_eq!(e.code(), "invalid_input");
        assert!(e.to_string().contains("between 1 and 10"), "{e}");
    }
    // SearXNG down: a transient, typed error naming the instance.
    let dead = verity_testkit::dead_url().unwrap();
    let w = watch(&dead, true, 200_000);
    let e = w.web_search(&req(3)).await.unwrap_err();
    assert!(e.is_transient(), "{e}");
    assert!(e.to_string().contains("searxng"), "{e}");
    // Not configured: a configuration error.
    let w = Watch::builder()
        .backend(Arc::new(SqliteWatchStore::open_in_memory().unwrap()))
        .build()
        .unwrap();
    assert_eq!(
        w.web_search(&req(3)).await.unwrap_err().code(),
        "config_error"
    );
}

#[tokio::test]
async fn crawl_extracts_caps_and_refuses() {
    let base = serve();
    let w = watch(&base, true, 5_000);
    let r = w
        .crawl_url(&CrawlRequest {
            url: format!("{base}/article"),
        })
        .await
        .unwrap();
    assert_eq!(r.title, "Announcing Ollama 0.5");
    assert!(
        r.content.contains("Performance Improvements"),
        "{}",
        r.content
    );
    assert!(
        !r.content.contains("Home"),
        "boilerplate stripped: {}",
        r.content
    );
    assert!(r.word_count > 30 && !r.truncated);
    // Link targets stay out of the content and come back as links.
    assert!(
        r.content.contains("releasing Ollama 0.5, our") && !r.content.contains("http"),
        "{}",
        r.content
    );
    assert_eq!(r.links.len(), 1, "{:?}", r.links);
    assert_eq!(r.links[0].text, "Ollama 0.5");
    assert_eq!(r.links[0].url, format!("{base}/blog/0-5"));
    // A huge page is capped (and says so); the word count is the page's.
    let r = w
        .crawl_url(&CrawlRequest {
            url: format!("{base}/big"),
        })
        .await
        .unwrap();
    assert!(
        r.truncated && r.content.len() <= 5_000,
        "{}",
        r.content.len()
    );
    assert!(r.word_count > 100_000, "{}", r.word_count);
    // Binary and missing pages are typed fetch errors.
    let e = w
        .crawl_url(&CrawlRequest {
            url: format!("{base}/binary"),
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), "fetch_failed", "{e}");
    let e = w
        .crawl_url(&CrawlRequest {
            url: format!("{base}/missing"),
        })
        .await
        .unwrap_err();
    assert!(e.to_string().contains("404"), "{e}");
    assert!(!e.is_transient());
    let e = w
        .crawl_url(&CrawlRequest {
            url: "ftp://example.com/x".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), "invalid_input");
    // Private addresses are refused unless allowed.
    let w = watch(&base, false, 5_000);
    let e = w
        .crawl_url(&CrawlRequest {
            url: format!("{base}/article"),
        })
        .await
        .unwrap_err();
    assert!(e.to_string().contains("network guard"), "{e}");
    assert!(!e.is_transient());
}
