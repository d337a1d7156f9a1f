//! Shared test helpers: real article pages from the shared data set and a
//! loopback server that serves them (plus a dead link, a paywall, a redirect loop).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;
use verity_core::{Fetcher, RetryPolicy};
use verity_fetch::{FetchConfig, HttpFetcher, NetworkGuard};
use verity_verify::numbers::quantities;
use verity_verify::text::{find_verbatim, sentence_spans};

/// The shared data directory (`../shared/data` from the repo root, or /work/shared/data).
pub fn data_dir() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..");
    [root.join("shared/data"), PathBuf::from("/work/shared/data")]
        .into_iter()
        .find(|p| p.join("article-extraction/ground-truth.json").exists())
}

/// A real page and one sentence of it (with a figure) that the parser keeps verbatim.
#[derive(Clone)]
pub struct Page {
    pub html: String,
    pub sentence: String,
}

/// `n` pages with a usable sentence, or `None` (with a printed reason) when the data is absent.
pub fn pages(n: usize) -> Option<Vec<Page>> {
    let Some(dir) = data_dir() else {
        eprintln!("skipped: ../shared/data/article-extraction is absent");
        return None;
    };
    let dir = dir.join("article-extraction");
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
        let found = sentence_spans(body)
            .into_iter()
            .map(|r| body[r].to_string())
            .find(|s| {
                let w = s.split_whitespace().count();
                (12..=40).contains(&w)
                    && s.ends_with('.')
                    && s.chars().next().is_some_and(char::is_uppercase)
                    && !s.contains(['[', ']', '(', ')', '"', '“', '”', '*', '_'])
                    && quantities(s)
                        .iter()
                        .any(|q| q.kind != verity_verify::numbers::Kind::Year)
                    && find_verbatim(&content, s).is_some()
            });
        if let Some(sentence) = found {
            out.push(Page { html, sentence });
            if out.len() == n {
                return Some(out);
            }
        }
    }
    panic!("fewer than {n} usable pages in the article-extraction set");
}

pub struct Server {
    pub base: String,
    hits: Arc<Mutex<HashMap<String, usize>>>,
}

impl Server {
    pub fn hits(&self, path: &str) -> usize {
        self.hits.lock().unwrap().get(path).copied().unwrap_or(0)
    }
}

#[derive(Clone)]
struct AppState {
    pages: Arc<Vec<Page>>,
    hits: Arc<Mutex<HashMap<String, usize>>>,
}

const PAYWALL: &str = r#"<!DOCTYPE html><html><head><title>Premium analysis</title>
<script type="application/ld+json">{"@type":"NewsArticle","isAccessibleForFree":false}</script></head>
<body><article><h1>Premium analysis</h1><p>The outlook for the sector is</p>
<div class="paywall">Subscribe to continue reading. Already a subscriber? Log in.</div></article></body></html>"#;

async fn handle(State(s): State<AppState>, uri: Uri) -> Response {
    let path = uri.path().to_string();
    *s.hits.lock().unwrap().entry(path.clone()).or_default() += 1;
    let html =
        |body: String| ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response();
    if let Some(i) = path
        .strip_prefix("/a/")
        .and_then(|i| i.parse::<usize>().ok())
    {
        if let Some(p) = s.pages.get(i) {
            return html(p.html.clone());
        }
    }
    match path.as_str() {
        "/paywall" => html(PAYWALL.to_string()),
        "/loop" => (StatusCode::FOUND, [(header::LOCATION, "/loop2")]).into_response(),
        "/loop2" => (StatusCode::FOUND, [(header::LOCATION, "/loop")]).into_response(),
        _ => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

/// Serve `pages` at `/a/<i>`, plus `/dead` (404), `/paywall`, `/loop` (redirect loop).
pub async fn serve_sources(pages: &[Page]) -> Server {
    let hits = Arc::new(Mutex::new(HashMap::new()));
    let app = Router::new().fallback(handle).with_state(AppState {
        pages: Arc::new(pages.to_vec()),
        hits: hits.clone(),
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    Server {
        base: format!("http://{addr}"),
        hits,
    }
}

/// Every quote of `r` whose source is one of `pages` (served at
/// `{base}/a/<i>`) is that page's characters; returns how many pieces were
/// checked (callers assert some were).
pub fn assert_quotes_from_pages(r: &verity_verify::Report, base: &str, pages: &[Page]) -> usize {
    let audit = verity_verify::audit::audit_report(r, |u| {
        u.strip_prefix(base)
            .and_then(|p| p.strip_prefix("/a/"))
            .and_then(|i| i.parse::<usize>().ok())
            .and_then(|i| pages.get(i))
            .map(|p| p.html.clone())
    });
    assert!(
        audit.foreign.is_empty(),
        "quotes that are not the page's characters: {:#?}",
        audit.foreign
    );
    audit.checked
}

/// The quote and context of an assessment are the characters of `body`.
pub fn assert_quotes_are_source_text(a: &verity_verify::Assessment, body: &str) {
    let foreign = verity_verify::audit::foreign_in(a, body);
    assert!(
        foreign.is_empty(),
        "not the source's characters: {foreign:#?}"
    );
    assert!(
        a.source_quote.is_some() || !verity_verify::assess::is_decisive(a.verdict),
        "a {} verdict without a quote",
        a.verdict
    );
}

/// A URL where nothing listens.
pub async fn dead_url() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{addr}")
}

/// The shared HTTP fetcher, allowed on loopback (the documented opt-in), no robots, no retries.
pub fn test_fetcher() -> Arc<dyn Fetcher> {
    let cfg = FetchConfig::default()
        .with_guard(NetworkGuard::new().allow_cidr("127.0.0.0/8").unwrap())
        .with_robots(false)
        .with_per_host_interval(Duration::ZERO)
        .with_retry(RetryPolicy::none())
        .with_timeout(Duration::from_secs(10));
    Arc::new(HttpFetcher::new(cfg).unwrap())
}
