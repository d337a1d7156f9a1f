//! HttpFetcher against a local axum web server on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Path as AxPath, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use url::Url;
use verity_core::{FetchError, FetchStatus, Fetcher, Refusal, RetryPolicy, SourceFormat};
use verity_fetch::{
    resolve_reference_with, FetchConfig, HttpFetcher, NetworkGuard, ReferenceKind, ResolverConfig,
};

#[derive(Clone, Copy, PartialEq)]
enum RobotsMode {
    Missing,
    DisallowPrivate,
    ServerError,
}

#[derive(Default)]
struct Hits {
    counts: Mutex<HashMap<String, u32>>,
    times: Mutex<HashMap<String, Vec<Instant>>>,
}

impl Hits {
    fn hit(&self, k: &str) -> u32 {
        self.times
            .lock()
            .unwrap()
            .entry(k.into())
            .or_default()
            .push(Instant::now());
        let mut c = self.counts.lock().unwrap();
        let e = c.entry(k.into()).or_default();
        *e += 1;
        *e
    }
    fn count(&self, k: &str) -> u32 {
        self.counts.lock().unwrap().get(k).copied().unwrap_or(0)
    }
    fn times(&self, k: &str) -> Vec<Instant> {
        self.times
            .lock()
            .unwrap()
            .get(k)
            .cloned()
            .unwrap_or_default()
    }
}

#[derive(Clone)]
struct AppState {
    hits: Arc<Hits>,
    robots: RobotsMode,
    real_page: Option<Arc<Vec<u8>>>,
    other_port: u16,
}

fn article_html(title: &str, paragraphs: usize) -> String {
    let para = "The committee reviewed the measurements taken during the spring campaign and concluded that the instrument drift \
                remained within the tolerance announced in the original protocol, which allowed the team to publish the full series.";
    let body: String = (0..paragraphs)
        .map(|i| format!("<p>{para} Paragraph {i}.</p>\n"))
        .collect();
    format!(
        "<!DOCTYPE html><html><head><title>{title}</title><meta charset=\"utf-8\"></head><body><nav><a href=\"/\">Home</a></nav><article><h1>{title}</h1>{body}</article><footer>© 2026</footer></body></html>"
    )
}

fn paywalled_html() -> String {
    format!(
        "<!DOCTYPE html><html><head><title>Premium story</title><script type=\"application/ld+json\">{}</script></head><body><article><h1>Premium story</h1><p>The first lines of the story are free to read for everyone, as on most metered news sites.</p><p>The second paragraph gives the context of the story and names the people involved in it, before the wall.</p></article><div class=\"paywall piano-offer\"><p>Subscribe to continue reading this article.</p><p>Already a subscriber? Log in.</p></div></body></html>",
        r#"{"@context":"https://schema.org","@type":"NewsArticle","headline":"Premium story","isAccessibleForFree":false,"hasPart":{"@type":"WebPageElement","isAccessibleForFree":false,"cssSelector":".paywall"}}"#
    )
}

#[cfg_attr(not(feature = "pdf"), allow(dead_code))]
/// A minimal but well-formed one-page PDF with a text layer.
fn minimal_pdf(text: &str) -> Vec<u8> {
    let content = format!("BT /F1 18 Tf 72 720 Td ({text}) Tj ET");
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>".to_string(),
        format!("<< /Length {} >>\nstream\n{content}\nendstream", content.len()),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_string(),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for off in offsets {
        out.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

fn data_dir() -> PathBuf {
    std::env::var_os("VERITY_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"))
}

fn real_pages() -> Vec<(String, Vec<u8>)> {
    let dir = data_dir().join("article-extraction/html");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        eprintln!(
            "!!! SKIPPING real-page checks: {} is absent (set VERITY_DATA_DIR)",
            dir.display()
        );
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".html.gz"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(std::fs::File::open(&p).unwrap())
                .read_to_end(&mut out)
                .unwrap();
            (
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .replace(".html.gz", ""),
                out,
            )
        })
        .collect()
}

fn html(s: String) -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], s).into_response()
}

fn redirect(code: StatusCode, to: &str) -> Response {
    (code, [(header::LOCATION, to.to_string())]).into_response()
}

fn router(state: AppState) -> Router {
    Router::new()
        .route(
            "/robots.txt",
            get(|State(s): State<AppState>| async move {
                s.hits.hit("robots");
                match s.robots {
                    RobotsMode::Missing => StatusCode::NOT_FOUND.into_response(),
                    RobotsMode::ServerError => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
                    RobotsMode::DisallowPrivate => (
                        [(header::CONTENT_TYPE, "text/plain")],
                        "User-agent: *\nDisallow: /\n\nUser-agent: VerityBot\nDisallow: /private\nAllow: /private/ok$\n",
                    )
                        .into_response(),
                }
            }),
        )
        .route("/article", get(|State(s): State<AppState>| async move {
            s.hits.hit("article");
            html(article_html("Spring campaign results", 12))
        }))
        .route("/private/secret", get(|| async { html(article_html("Secret", 5)) }))
        .route("/private/ok", get(|| async { html(article_html("Allowed private page", 5)) }))
        .route("/real", get(|State(s): State<AppState>| async move {
            match s.real_page {
                Some(p) => ([(header::CONTENT_TYPE, "text/html")], p.as_ref().clone()).into_response(),
                None => StatusCode::NOT_FOUND.into_response(),
            }
        }))
        .route("/chain/{n}", get(|AxPath(n): AxPath<u32>| async move {
            if n == 0 { redirect(StatusCode::FOUND, "/article") } else { redirect(StatusCode::MOVED_PERMANENTLY, &format!("/chain/{}", n - 1)) }
        }))
        .route("/loop/a", get(|| async { redirect(StatusCode::FOUND, "/loop/b") }))
        .route("/loop/b", get(|| async { redirect(StatusCode::TEMPORARY_REDIRECT, "/loop/a") }))
        .route("/rel/deep/start", get(|| async { redirect(StatusCode::SEE_OTHER, "../../article") }))
        .route("/to-loopback", get(|State(s): State<AppState>| async move { redirect(StatusCode::FOUND, &format!("http://127.0.0.1:{}/article", s.other_port)) }))
        .route("/to-metadata", get(|| async { redirect(StatusCode::FOUND, "http://169.254.169.254/latest/meta-data/") }))
        .route("/to-file", get(|| async { redirect(StatusCode::FOUND, "file:///etc/passwd") }))
        .route("/slow", get(|| async {
            tokio::time::sleep(Duration::from_secs(5)).await;
            html(article_html("Too late", 3))
        }))
        .route("/slow-body", get(|| async {
            let stream = async_stream_body();
            ([(header::CONTENT_TYPE, "text/html")], Body::from_stream(stream)).into_response()
        }))
        .route("/status/{code}", get(|AxPath(code): AxPath<u16>| async move { StatusCode::from_u16(code).unwrap().into_response() }))
        .route("/429", get(|State(s): State<AppState>| async move {
            s.hits.hit("429");
            (StatusCode::TOO_MANY_REQUESTS, [(header::RETRY_AFTER, "1")], "slow down").into_response()
        }))
        .route("/flaky", get(|State(s): State<AppState>| async move {
            if s.hits.hit("flaky") == 1 { StatusCode::INTERNAL_SERVER_ERROR.into_response() } else { html(article_html("Recovered", 6)) }
        }))
        .route("/503", get(|State(s): State<AppState>| async move {
            s.hits.hit("503");
            StatusCode::SERVICE_UNAVAILABLE.into_response()
        }))
        .route("/huge", get(|| async {
            let chunk = vec![b'a'; 64 * 1024];
            let stream = futures_stream(chunk, 64); // 4 MiB, chunked, no Content-Length
            ([(header::CONTENT_TYPE, "text/plain")], Body::from_stream(stream)).into_response()
        }))
        .route("/huge-len", get(|| async { ([(header::CONTENT_TYPE, "text/plain")], vec![b'b'; 3 << 20]).into_response() }))
        .route("/doc.bin", get(|| async { ([(header::CONTENT_TYPE, "application/pdf")], minimal_pdf("Hello from a PDF source")).into_response() }))
        .route("/paywalled", get(|| async { html(paywalled_html()) }))
        .route("/doi/{*doi}", get(|AxPath(doi): AxPath<String>, headers: HeaderMap| async move {
            let accept = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
            if accept.contains("citationstyles.csl+json") {
                return redirect(StatusCode::SEE_OTHER, &format!("/csl/{doi}"));
            }
            redirect(StatusCode::FOUND, &format!("/landing/{doi}"))
        }))
        .route("/csl/{*doi}", get(|AxPath(doi): AxPath<String>| async move {
            let body = serde_json::json!({"DOI": doi, "type": "article-journal", "title": "A resolved article", "author": [{"family": "Doe", "given": "Jane"}]});
            ([(header::CONTENT_TYPE, "application/vnd.citationstyles.csl+json")], body.to_string()).into_response()
        }))
        .route("/landing/{*doi}", get(|AxPath(doi): AxPath<String>| async move { html(article_html(&format!("Landing page of {doi}"), 8)) }))
        .route("/arxiv/abs/{*id}", get(|AxPath(id): AxPath<String>| async move { html(article_html(&format!("arXiv abstract {id}"), 4)) }))
        .with_state(state)
}

fn futures_stream(
    chunk: Vec<u8>,
    n: usize,
) -> impl futures_core_stream::Stream<Item = Result<Vec<u8>, std::io::Error>> {
    futures_core_stream::iter((0..n).map(move |_| Ok(chunk.clone())))
}

fn async_stream_body() -> impl futures_core_stream::Stream<Item = Result<Vec<u8>, std::io::Error>> {
    futures_core_stream::unfold(0u32, |i| async move {
        if i >= 20 {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        Some((Ok(format!("<p>chunk {i}</p>").into_bytes()), i + 1))
    })
}

mod futures_core_stream {
    pub use futures_util::stream::{iter, unfold, Stream};
}

struct Server {
    port: u16,
    hits: Arc<Hits>,
}

impl Server {
    fn url(&self, path: &str) -> Url {
        Url::parse(&format!("http://127.0.0.1:{}{path}", self.port)).unwrap()
    }
}

async fn spawn(robots: RobotsMode, other_port: u16, real_page: Option<Vec<u8>>) -> Server {
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    std_listener.set_nonblocking(true).unwrap();
    let port = std_listener.local_addr().unwrap().port();
    let listener = tokio::net::TcpListener::from_std(std_listener).unwrap();
    let hits = Arc::new(Hits::default());
    let state = AppState {
        hits: hits.clone(),
        robots,
        real_page: real_page.map(Arc::new),
        other_port,
    };
    tokio::spawn(async move {
        axum::serve(listener, router(state)).await.unwrap();
    });
    Server { port, hits }
}

fn config(port: u16) -> FetchConfig {
    FetchConfig::default()
        .with_guard(NetworkGuard::default().allow_host(&format!("127.0.0.1:{port}")))
        .with_timeout(Duration::from_secs(2))
        .with_retry(RetryPolicy::new(
            3,
            Duration::from_millis(20),
            Duration::from_millis(100),
        ))
        .with_per_host_interval(Duration::ZERO)
        .with_max_body_bytes(1 << 20)
        .with_cache(Duration::ZERO, 0)
}

async fn setup(robots: RobotsMode) -> (Server, Server, HttpFetcher) {
    let other = spawn(RobotsMode::Missing, 0, None).await;
    let main = spawn(robots, other.port, None).await;
    let f = HttpFetcher::new(config(main.port)).unwrap();
    (main, other, f)
}

#[tokio::test]
async fn fetches_and_parses_html() {
    let (s, _o, f) = setup(RobotsMode::Missing).await;
    let r = f.fetch(&s.url("/article")).await.unwrap();
    assert_eq!(r.status, FetchStatus::Fetched, "{:?}", r.detail);
    assert_eq!(r.http_status, Some(200));
    assert!(r.content_type.as_deref().unwrap().starts_with("text/html"));
    let doc = r.parsed.expect("parsed");
    assert_eq!(doc.format, SourceFormat::Html);
    assert!(
        doc.document.content.contains("instrument drift"),
        "{}",
        doc.document.content
    );
    assert!(!doc.document.content.contains("<p>"));
}

#[tokio::test]
async fn invalid_urls_are_errors_not_statuses() {
    let (_s, _o, f) = setup(RobotsMode::Missing).await;
    for u in [
        "ftp://example.com/x",
        "file:///etc/passwd",
        "data:text/plain,hello",
    ] {
        assert!(f.fetch(&Url::parse(u).unwrap()).await.is_err(), "{u}");
    }
}

#[tokio::test]
async fn redirects_chain_relative_loop_and_limit() {
    let (s, _o, f) = setup(RobotsMode::Missing).await;
    let r = f.fetch(&s.url("/chain/3")).await.unwrap();
    assert_eq!(r.status, FetchStatus::Fetched, "{:?}", r.detail);
    assert_eq!(r.final_url, s.url("/article"));
    assert_eq!(r.url, s.url("/chain/3"));

    let r = f.fetch(&s.url("/chain/9")).await.unwrap();
    assert_eq!(r.status, FetchStatus::Failed);
    assert!(r.detail.unwrap().contains("too many redirects"));

    let r = f.fetch(&s.url("/loop/a")).await.unwrap();
    assert_eq!(r.status, FetchStatus::Failed);
    assert!(r.detail.unwrap().contains("loop"));

    let r = f.fetch(&s.url("/rel/deep/start")).await.unwrap();
    assert_eq!(r.status, FetchStatus::Fetched, "{:?}", r.detail);
    assert_eq!(r.final_url, s.url("/article"));
}

#[tokio::test]
async fn guard_refuses_internal_redirects_and_names() {
    let (s, o, f) = setup(RobotsMode::Missing).await;
    // The other server really listens on 127.0.0.1, but its port is not allow-listed.
    let r = f.fetch(&s.url("/to-loopback")).await.unwrap();
    assert_eq!(r.status, FetchStatus::Blocked, "{:?}", r.detail);
    assert!(
        r.detail.as_deref().unwrap().contains("loopback"),
        "{:?}",
        r.detail
    );
    assert_eq!(
        o.hits.count("article"),
        0,
        "the refused server must not be contacted"
    );

    let r = f.fetch(&s.url("/to-metadata")).await.unwrap();
    assert_eq!(r.status, FetchStatus::Blocked);
    assert!(
        r.detail.as_deref().unwrap().contains("metadata"),
        "{:?}",
        r.detail
    );
    assert_eq!(
        r.final_url.as_str(),
        "http://169.254.169.254/latest/meta-data/"
    );

    let r = f.fetch(&s.url("/to-file")).await.unwrap();
    assert_eq!(r.status, FetchStatus::Blocked, "{:?}", r.detail);

    // A host name resolving to loopback (checked after DNS resolution, same allowed port).
    let by_name = Url::parse(&format!("http://localhost:{}/article", s.port)).unwrap();
    let r = f.fetch(&by_name).await.unwrap();
    assert_eq!(r.status, FetchStatus::Blocked, "{:?}", r.detail);
    assert!(
        r.detail.as_deref().unwrap().contains("loopback"),
        "{:?}",
        r.detail
    );
    assert_eq!(s.hits.count("article"), 0);
    // The refusal is typed where it is decided: the address after DNS and
    // the rule, and the one typed error every caller gets from it.
    match &r.refusal {
        Some(Refusal::NetworkGuard { addr, reason }) => {
            assert_eq!(addr, "127.0.0.1");
            assert!(reason.contains("loopback"), "{reason}");
        }
        other => panic!("a typed guard refusal, got {other:?}"),
    }
    assert!(matches!(
        r.error(),
        Some(FetchError::Blocked { addr, .. }) if addr == "127.0.0.1"
    ));

    // Direct fetches of internal literals.
    for u in [
        "http://10.0.0.1/",
        "http://[::ffff:127.0.0.1]:80/",
        "http://[fd00:ec2::254]/",
        "http://metadata.google.internal/computeMetadata/v1/",
    ] {
        let r = f.fetch(&Url::parse(u).unwrap()).await.unwrap();
        assert_eq!(r.status, FetchStatus::Blocked, "{u}: {:?}", r.detail);
        assert!(
            matches!(r.refusal, Some(Refusal::NetworkGuard { .. })),
            "{u}: {:?}",
            r.refusal
        );
    }

    // Same fetch with the guard off reaches the other server.
    let open = HttpFetcher::new(config(s.port).with_guard(NetworkGuard::disabled())).unwrap();
    let r = open.fetch(&s.url("/to-loopback")).await.unwrap();
    assert_eq!(r.status, FetchStatus::Fetched, "{:?}", r.detail);
    assert_eq!(o.hits.count("article"), 1);
}

#[tokio::test]
async fn status_classification() {
    let (s, _o, f) = setup(RobotsMode::Missing).await;
    for (code, want) in [
        (404, FetchStatus::NotFound),
        (410, FetchStatus::NotFound),
        (403, FetchStatus::Blocked),
        (401, FetchStatus::Blocked),
        (400, FetchStatus::Failed),
        (500, FetchStatus::Failed),
        (504, FetchStatus::Timeout),
    ] {
        let r = f.fetch(&s.url(&format!("/status/{code}"))).await.unwrap();
        assert_eq!(r.status, want, "HTTP {code}: {:?}", r.detail);
        assert_eq!(r.http_status, Some(code));
        assert!(r.parsed.is_none());
    }
}

#[tokio::test]
async fn retries_transient_then_succeeds_or_gives_up() {
    let (s, _o, f) = setup(RobotsMode::Missing).await;
    let r = f.fetch(&s.url("/flaky")).await.unwrap();
    assert_eq!(r.status, FetchStatus::Fetched, "{:?}", r.detail);
    assert_eq!(s.hits.count("flaky"), 2, "500 then 200: one retry");

    let r = f.fetch(&s.url("/503")).await.unwrap();
    assert_eq!(r.status, FetchStatus::Failed);
    assert_eq!(r.http_status, Some(503));
    assert_eq!(s.hits.count("503"), 3, "3 attempts");
    assert!(r.detail.unwrap().contains("after 3 attempts"));
}

#[tokio::test]
async fn rate_limited_honours_retry_after() {
    let (s, _o, f) = setup(RobotsMode::Missing).await;
    let r = f.fetch(&s.url("/429")).await.unwrap();
    assert_eq!(r.status, FetchStatus::RateLimited);
    assert_eq!(r.http_status, Some(429));
    let times = s.hits.times("429");
    assert_eq!(times.len(), 3);
    for w in times.windows(2) {
        // Retry-After: 1 beats the 20 ms backoff of the test policy.
        assert!(
            w[1] - w[0] >= Duration::from_millis(900),
            "gap {:?}",
            w[1] - w[0]
        );
    }
    // A Retry-After beyond the policy's cap is not waited for: one attempt, and
    // the transient outcome says why.
    let capped = HttpFetcher::new(
        config(s.port).with_retry(
            RetryPolicy::new(3, Duration::from_millis(20), Duration::from_millis(100))
                .with_max_retry_after(Duration::from_millis(50)),
        ),
    )
    .unwrap();
    let r = capped.fetch(&s.url("/429")).await.unwrap();
    assert_eq!(r.status, FetchStatus::RateLimited);
    assert_eq!(s.hits.times("429").len(), 4);
    assert!(r.detail.unwrap().contains("beyond the retry cap"));
}

#[tokio::test]
async fn timeouts() {
    let (s, _o, f) = setup(RobotsMode::Missing).await;
    let quick = HttpFetcher::new(
        config(s.port)
            .with_timeout(Duration::from_millis(300))
            .with_retry(RetryPolicy::none()),
    )
    .unwrap();
    let r = quick.fetch(&s.url("/slow")).await.unwrap();
    assert_eq!(r.status, FetchStatus::Timeout, "{:?}", r.detail);
    // Headers arrive at once but the body trickles for 4 s: the deadline covers the body too.
    let r = quick.fetch(&s.url("/slow-body")).await.unwrap();
    assert_eq!(r.status, FetchStatus::Timeout, "{:?}", r.detail);
    drop(f);
}

#[tokio::test]
async fn body_cap() {
    let (s, _o, f) = setup(RobotsMode::Missing).await;
    for path in ["/huge", "/huge-len"] {
        let r = f.fetch(&s.url(path)).await.unwrap();
        assert_eq!(r.status, FetchStatus::Failed, "{path}");
        assert!(
            r.detail
                .as_deref()
                .unwrap()
                .contains("larger than 1048576 bytes"),
            "{path}: {:?}",
            r.detail
        );
        assert!(r.parsed.is_none());
    }
}

#[tokio::test]
async fn robots_disallow_and_group_rules() {
    let (s, _o, f) = setup(RobotsMode::DisallowPrivate).await;
    let config_with_robots = config(s.port).with_robots(true);
    let f2 = HttpFetcher::new(config_with_robots).unwrap();
    drop(f);
    let r = f2.fetch(&s.url("/private/secret")).await.unwrap();
    assert_eq!(r.status, FetchStatus::Blocked);
    assert_eq!(r.refusal, Some(Refusal::RobotsTxt));
    assert!(matches!(r.error(), Some(FetchError::RobotsDisallowed(_))));
    assert!(r.detail.unwrap().contains("robots.txt"));
    // VerityBot's own group applies (not `*`, which disallows everything).
    let r = f2.fetch(&s.url("/article")).await.unwrap();
    assert_eq!(r.status, FetchStatus::Fetched, "{:?}", r.detail);
    let r = f2.fetch(&s.url("/private/ok")).await.unwrap();
    assert_eq!(r.status, FetchStatus::Fetched, "{:?}", r.detail);
    assert_eq!(s.hits.count("robots"), 1, "robots.txt is cached per host");
    // Another product token falls into the `*` group.
    let other = HttpFetcher::new(config(s.port).with_robots_agent("OtherBot")).unwrap();
    assert_eq!(
        other.fetch(&s.url("/article")).await.unwrap().status,
        FetchStatus::Blocked
    );
    // Robots off.
    let off = HttpFetcher::new(config(s.port).with_robots(false)).unwrap();
    assert_eq!(
        off.fetch(&s.url("/private/secret")).await.unwrap().status,
        FetchStatus::Fetched
    );
}

#[tokio::test]
async fn robots_404_allows_and_500_disallows() {
    let (s, _o, f) = setup(RobotsMode::Missing).await;
    assert_eq!(
        f.fetch(&s.url("/article")).await.unwrap().status,
        FetchStatus::Fetched
    );
    let (s5, _o5, f5) = setup(RobotsMode::ServerError).await;
    let r = f5.fetch(&s5.url("/article")).await.unwrap();
    assert_eq!(r.status, FetchStatus::Blocked, "{:?}", r.detail);
    assert_eq!(r.refusal, Some(Refusal::RobotsTxt));
    assert_eq!(s5.hits.count("article"), 0);
}

#[tokio::test]
async fn an_unreachable_host_is_failed_not_refused_by_robots() {
    // A port nobody listens on: robots.txt cannot be asked, and the page's
    // status is that of the request that failed (Failed), never Blocked.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let f = HttpFetcher::new(config(port).with_retry(RetryPolicy::none())).unwrap();
    let page = Url::parse(&format!("http://127.0.0.1:{port}/article")).unwrap();
    let r = f.fetch(&page).await.unwrap();
    assert_eq!(r.status, FetchStatus::Failed, "{:?}", r.detail);
    let detail = r.detail.unwrap_or_default();
    assert!(detail.contains("/article"), "{detail}");
    assert!(!detail.contains("robots.txt"), "{detail}");
}

#[cfg(feature = "pdf")]
#[tokio::test]
async fn pdf_routed_by_content_type() {
    let (s, _o, f) = setup(RobotsMode::Missing).await;
    // The path has no .pdf extension: only the Content-Type says PDF.
    let r = f.fetch(&s.url("/doc.bin")).await.unwrap();
    assert_eq!(r.content_type.as_deref(), Some("application/pdf"));
    assert_eq!(r.status, FetchStatus::Fetched, "{:?}", r.detail);
    let doc = r.parsed.unwrap();
    assert_eq!(doc.format, SourceFormat::Pdf);
    assert!(
        doc.document.content.contains("Hello from a PDF source"),
        "{}",
        doc.document.content
    );
}

#[tokio::test]
async fn paywall_detected_content_kept() {
    let (s, _o, f) = setup(RobotsMode::Missing).await;
    let r = f.fetch(&s.url("/paywalled")).await.unwrap();
    assert_eq!(r.status, FetchStatus::Paywalled, "{:?}", r.detail);
    assert!(r.detail.as_deref().unwrap().contains("isAccessibleForFree"));
    assert!(r.parsed.unwrap().document.content.contains("free to read"));
    let off = HttpFetcher::new(config(s.port).with_paywall_detection(false)).unwrap();
    assert_eq!(
        off.fetch(&s.url("/paywalled")).await.unwrap().status,
        FetchStatus::Fetched
    );
}

#[tokio::test]
async fn cache_and_rate_limit() {
    let (s, _o, _f) = setup(RobotsMode::Missing).await;
    let cached = HttpFetcher::new(config(s.port).with_cache(Duration::from_secs(60), 8)).unwrap();
    let a = cached.fetch(&s.url("/article")).await.unwrap();
    let b = cached.fetch(&s.url("/article")).await.unwrap();
    assert_eq!(a, b);
    assert_eq!(s.hits.count("article"), 1, "second fetch served from cache");
    cached.clear_cache();
    cached.fetch(&s.url("/article")).await.unwrap();
    assert_eq!(s.hits.count("article"), 2);

    let limited =
        HttpFetcher::new(config(s.port).with_per_host_interval(Duration::from_millis(300)))
            .unwrap();
    let article = s.url("/article");
    let (x, y) = tokio::join!(limited.fetch(&article), limited.fetch(&article));
    assert_eq!(x.unwrap().status, FetchStatus::Fetched);
    assert_eq!(y.unwrap().status, FetchStatus::Fetched);
    let t = s.hits.times("article");
    let gap = t[t.len() - 1] - t[t.len() - 2];
    assert!(
        gap >= Duration::from_millis(250),
        "same-host requests spaced by the interval, got {gap:?}"
    );
}

#[tokio::test]
async fn doi_and_arxiv_through_the_fetcher() {
    let (s, _o, f) = setup(RobotsMode::Missing).await;
    let cfg = ResolverConfig::new(
        &format!("http://127.0.0.1:{}/doi/", s.port),
        &format!("http://127.0.0.1:{}/arxiv/", s.port),
    )
    .unwrap();
    let r = resolve_reference_with("https://doi.org/10.1234/ABC.5", &cfg).unwrap();
    assert_eq!(r.kind, ReferenceKind::Doi);
    let page = f.fetch_reference(&r).await.unwrap();
    assert_eq!(page.status, FetchStatus::Fetched, "{:?}", page.detail);
    assert_eq!(page.final_url, s.url("/landing/10.1234/abc.5"));
    let meta = f.reference_metadata(&r).await.unwrap().expect("CSL-JSON");
    assert_eq!(meta["title"], "A resolved article");
    assert_eq!(meta["DOI"], "10.1234/abc.5");

    let a = resolve_reference_with("arXiv:2401.01234v2", &cfg).unwrap();
    let page = f.fetch_reference(&a).await.unwrap();
    assert_eq!(page.status, FetchStatus::Fetched, "{:?}", page.detail);
    assert!(
        page.parsed
            .unwrap()
            .document
            .content
            .contains("2401.01234v2")
            || page.final_url.path().ends_with("2401.01234v2")
    );
    assert!(f.reference_metadata(&a).await.unwrap().is_none());
}

#[tokio::test]
async fn real_pages_fetch_and_mostly_not_paywalled() {
    let pages = real_pages();
    if pages.is_empty() {
        return;
    }
    let mut paywalled = Vec::new();
    let mut fetched = 0;
    for (id, bytes) in pages.iter() {
        let s = spawn(RobotsMode::Missing, 0, Some(bytes.clone())).await;
        let f = HttpFetcher::new(config(s.port).with_max_body_bytes(20_000_000)).unwrap();
        let r = f.fetch(&s.url("/real")).await.unwrap();
        match r.status {
            FetchStatus::Fetched => fetched += 1,
            FetchStatus::Paywalled => paywalled.push(id.clone()),
            other => panic!("{id}: {other:?} {:?}", r.detail),
        }
        assert!(r.parsed.is_some(), "{id}: no parsed document");
    }
    eprintln!("real pages: {fetched} fetched, paywalled: {paywalled:?}");
    // The benchmark pages are full articles: at most 10% may be judged paywalled.
    assert!(
        paywalled.len() * 10 <= pages.len(),
        "flagged as paywalled: {paywalled:?}"
    );
}

#[tokio::test]
async fn one_shared_fetcher_keeps_rate_limit_and_robots_across_calls() {
    let (s, _o, _f) = setup(RobotsMode::DisallowPrivate).await;
    let net = verity_net::HttpClient::new(verity_net::HttpConfig::default()).unwrap();
    let shared: Arc<dyn Fetcher> = Arc::new(
        HttpFetcher::with_client(
            config(s.port)
                .with_robots(true)
                .with_per_host_interval(Duration::from_millis(300)),
            &net,
        )
        .unwrap(),
    );
    // Two independent callers (two tasks, as two requests to one `Verity` would be).
    let article = s.url("/article");
    for _ in 0..2 {
        let (f, u) = (shared.clone(), article.clone());
        let r = tokio::spawn(async move { f.fetch(&u).await })
            .await
            .unwrap()
            .unwrap();
        assert_eq!(r.status, FetchStatus::Fetched, "{:?}", r.detail);
    }
    assert_eq!(
        s.hits.count("robots"),
        1,
        "the second call uses the cached robots.txt"
    );
    let t = s.hits.times("article");
    assert_eq!(t.len(), 2);
    assert!(
        t[1] - t[0] >= Duration::from_millis(250),
        "the second call waits for the host's interval, got {:?}",
        t[1] - t[0]
    );
    // robots.txt still applies to the second caller: the disallowed path is refused without a new robots.txt request.
    let r = shared.fetch(&s.url("/private/secret")).await.unwrap();
    assert_eq!(r.status, FetchStatus::Blocked);
    assert_eq!(s.hits.count("robots"), 1);
}
