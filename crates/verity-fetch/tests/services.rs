//! SearxngSearch and JinaReader against in-process fakes on 127.0.0.1
//! speaking the documented protocols.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use chrono::Utc;
use serde_json::json;
use url::Url;
use verity_core::{
    Error, FetchStatus, Fetcher, ProviderErrorKind, Refusal, RetryPolicy, WebQuery, WebSearch,
    WebTimeRange,
};
use verity_fetch::{JinaReader, SearxngSearch};

#[derive(Clone, Default)]
struct Seen {
    queries: Arc<Mutex<Vec<HashMap<String, String>>>>,
    headers: Arc<Mutex<Vec<HeaderMap>>>,
    paths: Arc<Mutex<Vec<String>>>,
}

async fn serve(router: Router) -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.set_nonblocking(true).unwrap();
    let port = l.local_addr().unwrap().port();
    let listener = tokio::net::TcpListener::from_std(l).unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    port
}

fn searx_results() -> serde_json::Value {
    let recent = (Utc::now() - chrono::Duration::days(2))
        .format("%Y-%m-%dT%H:%M:%S")
        .to_string();
    let old = (Utc::now() - chrono::Duration::days(20))
        .format("%Y-%m-%dT%H:%M:%S")
        .to_string();
    let mut results = vec![
        json!({"url": "https://github.com/ollama/ollama/releases/tag/v0.5.0", "title": "Ollama 0.5.0 Release Notes", "content": "Performance improvements", "engine": "duckduckgo", "engines": ["duckduckgo"], "publishedDate": recent, "score": 2.5, "category": "general"}),
        json!({"url": "https://news.ycombinator.com/item?id=1", "title": "Ollama 0.5 benchmarks", "content": "Real-world tests", "engine": "bing", "publishedDate": old, "score": 1.0}),
        json!({"url": "https://www.example.org/undated", "title": "Undated", "content": "", "engine": "wikipedia", "publishedDate": null}),
    ];
    for i in 0..12 {
        results.push(json!({"url": format!("https://site{i}.example.com/p"), "title": format!("Filler {i}"), "content": "x", "engine": "brave"}));
    }
    json!({"query": "ollama", "number_of_results": 0, "results": results, "answers": [], "corrections": [], "infoboxes": [], "suggestions": [], "unresponsive_engines": []})
}

async fn searx_app(mode: &'static str) -> (u16, Seen) {
    let seen = Seen::default();
    let app = Router::new()
        .route(
            "/search",
            get(
                |State((seen, mode)): State<(Seen, &'static str)>,
                 Query(q): Query<HashMap<String, String>>| async move {
                    seen.queries.lock().unwrap().push(q.clone());
                    match mode {
                        "403" => (StatusCode::FORBIDDEN, "Forbidden").into_response(),
                        "429" => (
                            StatusCode::TOO_MANY_REQUESTS,
                            [(header::RETRY_AFTER, "0")],
                            "Too Many Requests",
                        )
                            .into_response(),
                        "garbage" => (StatusCode::OK, "<html>not json</html>").into_response(),
                        _ if q.get("format").map(String::as_str) != Some("json") => {
                            (StatusCode::FORBIDDEN, "format").into_response()
                        }
                        _ => Json(searx_results()).into_response(),
                    }
                },
            ),
        )
        .with_state((seen.clone(), mode));
    (serve(app).await, seen)
}

fn quick() -> RetryPolicy {
    RetryPolicy::new(3, Duration::from_millis(10), Duration::from_millis(20))
}

#[tokio::test]
async fn searxng_maps_and_truncates() {
    let (port, seen) = searx_app("ok").await;
    let s = SearxngSearch::new(&format!("http://127.0.0.1:{port}"))
        .unwrap()
        .with_retry(quick());
    let mut q = WebQuery::new("ollama 0.5");
    q.num_results = 50;
    q.language = Some("en".into());
    let hits = s.search(&q).await.unwrap();
    assert_eq!(hits.len(), 10, "capped at 10");
    assert_eq!(
        hits[0].url,
        "https://github.com/ollama/ollama/releases/tag/v0.5.0"
    );
    assert_eq!(hits[0].source, "github.com");
    assert_eq!(hits[0].title, "Ollama 0.5.0 Release Notes");
    assert_eq!(hits[0].snippet, "Performance improvements");
    assert_eq!(hits[0].engine.as_deref(), Some("duckduckgo"));
    assert_eq!(hits[0].score, Some(2.5));
    assert!(hits[0].published.is_some());
    assert_eq!(hits[2].source, "example.org");
    let got = seen.queries.lock().unwrap().last().cloned().unwrap();
    assert_eq!(got.get("q").map(String::as_str), Some("ollama 0.5"));
    assert_eq!(got.get("format").map(String::as_str), Some("json"));
    assert_eq!(got.get("language").map(String::as_str), Some("en"));
    assert_eq!(got.get("pageno").map(String::as_str), Some("1"));
    assert!(!got.contains_key("time_range"));

    let mut q = WebQuery::new("ollama");
    q.num_results = 2;
    assert_eq!(s.search(&q).await.unwrap().len(), 2);
}

#[tokio::test]
async fn searxng_week_maps_to_month_and_filters() {
    let (port, seen) = searx_app("ok").await;
    let s = SearxngSearch::new(&format!("http://127.0.0.1:{port}/")).unwrap();
    let mut q = WebQuery::new("ollama");
    q.time_range = Some(WebTimeRange::Week);
    q.num_results = 10;
    let hits = s.search(&q).await.unwrap();
    assert_eq!(
        seen.queries
            .lock()
            .unwrap()
            .last()
            .unwrap()
            .get("time_range")
            .map(String::as_str),
        Some("month")
    );
    assert!(
        hits.iter().any(|h| h.title == "Ollama 0.5.0 Release Notes"),
        "recent hit kept"
    );
    assert!(
        !hits.iter().any(|h| h.title == "Ollama 0.5 benchmarks"),
        "20-day-old hit dropped"
    );
    assert!(
        hits.iter().any(|h| h.title == "Undated"),
        "undated hits kept"
    );
    q.time_range = Some(WebTimeRange::Day);
    s.search(&q).await.unwrap();
    assert_eq!(
        seen.queries
            .lock()
            .unwrap()
            .last()
            .unwrap()
            .get("time_range")
            .map(String::as_str),
        Some("day")
    );
}

#[tokio::test]
async fn searxng_errors_are_clear() {
    let (port, _) = searx_app("403").await;
    let s = SearxngSearch::new(&format!("http://127.0.0.1:{port}"))
        .unwrap()
        .with_retry(quick());
    let err = s.search(&WebQuery::new("x")).await.unwrap_err();
    assert!(!err.is_transient());
    assert!(err.to_string().contains("search.formats"), "{err}");

    let (port, seen) = searx_app("429").await;
    let s = SearxngSearch::new(&format!("http://127.0.0.1:{port}"))
        .unwrap()
        .with_retry(quick());
    let err = s.search(&WebQuery::new("x")).await.unwrap_err();
    match &err {
        Error::Provider(p) => assert_eq!(p.kind, ProviderErrorKind::RateLimited),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        seen.queries.lock().unwrap().len(),
        3,
        "retried as transient"
    );

    let (port, _) = searx_app("garbage").await;
    let s = SearxngSearch::new(&format!("http://127.0.0.1:{port}"))
        .unwrap()
        .with_retry(quick());
    match s.search(&WebQuery::new("x")).await.unwrap_err() {
        Error::Provider(p) => assert_eq!(p.kind, ProviderErrorKind::BadResponse),
        other => panic!("{other:?}"),
    }

    // Unreachable: a port that was bound then released.
    let dead = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let s = SearxngSearch::new(&format!("http://127.0.0.1:{dead}"))
        .unwrap()
        .with_retry(RetryPolicy::none());
    match s.search(&WebQuery::new("x")).await.unwrap_err() {
        Error::Provider(p) => {
            assert_eq!(p.kind, ProviderErrorKind::Unavailable);
            assert!(p.message.contains("cannot reach"), "{}", p.message);
        }
        other => panic!("{other:?}"),
    }
    assert!(s.search(&WebQuery::new("  ")).await.is_err());
}

const BODY: &str = "Today we're releasing Ollama 0.5, our biggest update yet.\n\n## Performance Improvements\n\nWe've achieved 40-50% faster inference on Apple Silicon thanks to a rewritten scheduler and better batching of requests.";

async fn jina_app() -> (u16, Seen) {
    let seen = Seen::default();
    let app = Router::new()
        .fallback(get(
            |State(seen): State<Seen>, uri: Uri, headers: HeaderMap| async move {
                seen.headers.lock().unwrap().push(headers.clone());
                let path = uri
                    .path_and_query()
                    .map(|p| p.as_str().to_string())
                    .unwrap_or_default();
                seen.paths.lock().unwrap().push(path.clone());
                let target = path.trim_start_matches('/').to_string();
                let json = headers
                    .get(header::ACCEPT)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .contains("json");
                jina_answer(&target, json)
            },
        ))
        .with_state(seen.clone());
    (serve(app).await, seen)
}

fn jina_answer(target: &str, json: bool) -> Response {
    if target.contains("fail.example") {
        let e = json!({"data": null, "code": 422, "name": "AssertionFailureError", "status": 42206, "message": "Failed to goto https://fail.example/: Error: net::ERR_NAME_NOT_RESOLVED", "readableMessage": "AssertionFailureError: Failed to goto https://fail.example/: Error: net::ERR_NAME_NOT_RESOLVED"});
        return (StatusCode::UNPROCESSABLE_ENTITY, Json(e)).into_response();
    }
    if target.contains("busy.example") {
        return (
            StatusCode::TOO_MANY_REQUESTS,
            Json(json!({"code": 429, "readableMessage": "RateLimitTriggeredError: too many"})),
        )
            .into_response();
    }
    let warning = target
        .contains("gone.example")
        .then_some("Target URL returned error 404: Not Found");
    if json {
        let mut data = json!({"title": "Announcing Ollama 0.5", "url": target, "content": BODY, "publishedTime": "2024-12-05T14:30:00Z", "usage": {"tokens": 42}});
        if let Some(w) = warning {
            data["warning"] = json!(w);
        }
        Json(json!({"code": 200, "status": 20000, "data": data})).into_response()
    } else {
        let w = warning
            .map(|w| format!("Warning: {w}\n\n"))
            .unwrap_or_default();
        let text = format!("Title: Announcing Ollama 0.5\n\nURL Source: {target}\n\nPublished Time: 2024-12-05T14:30:00Z\n\n{w}Markdown Content:\n{BODY}\n");
        ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response()
    }
}

#[tokio::test]
async fn jina_json_and_text_formats() {
    let (port, seen) = jina_app().await;
    let base = format!("http://127.0.0.1:{port}");
    let target = Url::parse("https://blog.example.com/ollama-0-5").unwrap();
    for reader in [
        JinaReader::new(&base).unwrap().with_api_key("secret"),
        JinaReader::new(&base).unwrap().with_text_format(),
    ] {
        let r = reader.fetch(&target).await.unwrap();
        assert_eq!(r.status, FetchStatus::Fetched, "{:?}", r.detail);
        assert_eq!(r.url, target);
        let doc = r.parsed.unwrap();
        assert_eq!(doc.document.title.as_deref(), Some("Announcing Ollama 0.5"));
        assert_eq!(
            doc.document.url.as_deref(),
            Some("https://blog.example.com/ollama-0-5")
        );
        assert_eq!(
            doc.document.ts.unwrap().to_rfc3339(),
            "2024-12-05T14:30:00+00:00"
        );
        assert!(doc.document.content.contains("40-50% faster inference"));
        assert!(!doc.document.content.contains("Markdown Content:"));
    }
    let paths = seen.paths.lock().unwrap().clone();
    assert_eq!(paths[0], "/https://blog.example.com/ollama-0-5");
    let headers = seen.headers.lock().unwrap().clone();
    assert_eq!(headers[0].get("authorization").unwrap(), "Bearer secret");
    assert_eq!(headers[0].get("x-respond-with").unwrap(), "markdown");
    assert_eq!(headers[0].get("x-timeout").unwrap(), "30");
    assert_eq!(headers[0].get("accept").unwrap(), "application/json");
    assert!(headers[1].get("authorization").is_none());
}

#[tokio::test]
async fn jina_errors_to_statuses() {
    let (port, seen) = jina_app().await;
    let reader = JinaReader::new(&format!("http://127.0.0.1:{port}/"))
        .unwrap()
        .with_retry(quick());
    let r = reader
        .fetch(&Url::parse("https://fail.example/").unwrap())
        .await
        .unwrap();
    assert_eq!(r.status, FetchStatus::Failed);
    assert_eq!(r.http_status, Some(422));
    assert!(r.detail.unwrap().contains("ERR_NAME_NOT_RESOLVED"));

    let r = reader
        .fetch(&Url::parse("https://gone.example/x").unwrap())
        .await
        .unwrap();
    assert_eq!(r.status, FetchStatus::NotFound, "{:?}", r.detail);
    let r = reader
        .clone()
        .with_text_format()
        .fetch(&Url::parse("https://gone.example/x").unwrap())
        .await
        .unwrap();
    assert_eq!(r.status, FetchStatus::NotFound, "{:?}", r.detail);

    let before = seen.paths.lock().unwrap().len();
    let r = reader
        .fetch(&Url::parse("https://busy.example/").unwrap())
        .await
        .unwrap();
    assert_eq!(r.status, FetchStatus::RateLimited);
    assert_eq!(seen.paths.lock().unwrap().len() - before, 3);

    // Guarded targets and invalid schemes never reach the reader.
    let before = seen.paths.lock().unwrap().len();
    let r = reader
        .fetch(&Url::parse("http://169.254.169.254/latest/").unwrap())
        .await
        .unwrap();
    assert_eq!(r.status, FetchStatus::Blocked);
    assert!(matches!(r.refusal, Some(Refusal::NetworkGuard { .. })));
    assert!(reader
        .fetch(&Url::parse("file:///etc/passwd").unwrap())
        .await
        .is_err());
    assert_eq!(seen.paths.lock().unwrap().len(), before);

    let dead = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let r = JinaReader::new(&format!("http://127.0.0.1:{dead}"))
        .unwrap()
        .with_retry(RetryPolicy::none())
        .fetch(&Url::parse("https://a.example/").unwrap())
        .await
        .unwrap();
    assert_eq!(r.status, FetchStatus::Failed);
    assert!(r.detail.unwrap().contains("cannot reach Jina Reader"));
}
