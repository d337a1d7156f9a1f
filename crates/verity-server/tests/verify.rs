//! Citation verification over REST: `POST /v1/verify` (and the seed's
//! `POST /verify`) on a document citing real article pages served on
//! loopback; bad input as 4xx errors; the web page at `/` in headless Chromium.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use common::*;
use reqwest::Method;
use serde_json::{json, Value};

/// The shared data directory, when present.
fn data_dir() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..");
    [root.join("shared/data"), PathBuf::from("/work/shared/data")]
        .into_iter()
        .find(|p| p.join("article-extraction/ground-truth.json").exists())
}

/// A figure that is not a year, to distort.
fn figure(s: &str) -> Option<(usize, usize)> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let run = &s[start..i];
            let year = run.len() == 4 && (run.starts_with("19") || run.starts_with("20"));
            let glued = (start > 0 && b[start - 1].is_ascii_alphabetic())
                || (i < b.len() && (b[i].is_ascii_alphabetic() || b[i] == b',' || b[i] == b'.'))
                    && i + 1 < b.len()
                    && b[i + 1].is_ascii_alphanumeric();
            if !year && !glued {
                return Some((start, i));
            }
        } else {
            i += 1;
        }
    }
    None
}

/// Real pages (HTML) and one sentence of each with a figure, as the parser keeps it.
fn pages(n: usize) -> Option<Vec<(String, String)>> {
    let Some(dir) = data_dir() else {
        eprintln!("skipped: ../shared/data/article-extraction is absent");
        return None;
    };
    let dir = dir.join("article-extraction");
    let truth: Value =
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
        let Ok(parsed) = verity::extract::parse_html(&html, None) else {
            continue;
        };
        let found = parsed
            .document
            .content
            .lines()
            .flat_map(|l| l.split(". ").map(str::trim).collect::<Vec<_>>())
            .map(|s| s.trim_end_matches('.').to_string() + ".")
            .find(|s| {
                let w = s.split_whitespace().count();
                (12..=35).contains(&w)
                    && s.chars().next().is_some_and(char::is_uppercase)
                    && !s.contains([
                        '[', ']', '(', ')', '"', '“', '”', '*', '_', '#', '|', '>', ':', ';',
                    ])
                    && figure(s).is_some()
                    && s.matches('.').count() == 1
            });
        if let Some(sentence) = found {
            out.push((html, sentence));
            if out.len() == n {
                return Some(out);
            }
        }
    }
    panic!("fewer than {n} usable pages in the article-extraction set");
}

async fn source_page(State(pages): State<Arc<Vec<(String, String)>>>, uri: Uri) -> Response {
    let page = uri
        .path()
        .strip_prefix("/a/")
        .and_then(|i| i.parse::<usize>().ok())
        .and_then(|i| pages.get(i));
    match page {
        Some((html, _)) => (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            html.clone(),
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

/// Serve the pages at `/a/<i>` on loopback; the base URL.
async fn serve_sources(pages: Vec<(String, String)>) -> String {
    let app = axum::Router::new()
        .fallback(source_page)
        .with_state(Arc::new(pages));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

/// A Markdown document: a faithful claim, the same with its figure changed,
/// a claim citing a second page inline, and one citing a page that is gone.
fn document(base: &str, pages: &[(String, String)]) -> (String, String, String) {
    let faithful = pages[0].1.clone();
    let (a, b) = figure(&faithful).unwrap();
    let n: u64 = faithful[a..b].parse().unwrap_or(7);
    let distorted = format!("{}{}{}", &faithful[..a], n * 3 + 11, &faithful[b..]);
    let doc = format!(
        "# Notes citing their sources\n\n\
         Some context without any citation.\n\n\
         {faithful} [1]\n\n\
         {distorted} [1]\n\n\
         As [this page]({base}/a/1) says, {}\n\n\
         A page that is gone said something else entirely [2].\n\n\
         ## References\n\n\
         1. First page. {base}/a/0\n\
         2. Gone. {base}/gone\n",
        pages[1].1
    );
    (doc, faithful, distorted)
}

fn result<'a>(report: &'a Value, claim: &str) -> &'a Value {
    let norm = |s: &str| s.trim().trim_end_matches('.').to_string();
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| norm(r["claim"].as_str().unwrap_or("")).ends_with(&norm(claim)))
        .unwrap_or_else(|| panic!("no result for `{claim}`: {report:#}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_checks_cited_pages_on_loopback() {
    let Some(pages) = pages(2) else { return };
    let base = serve_sources(pages.clone()).await;
    let (doc, faithful, distorted) = document(&base, &pages);
    let s = start(|c| c.allow_private = true).await;

    let (st, r) = s
        .post(
            "/v1/verify",
            json!({"content": doc, "content_type": "markdown", "allow_private": true, "judge": "local"}),
        )
        .await;
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["summary"]["total"], 4, "{r:#}");
    assert_eq!(r["results"].as_array().unwrap().len(), 4);

    let f = result(&r, &faithful);
    assert_eq!(f["verdict"], "SUPPORTED", "{f:#}");
    let quote = f["source_quote"].as_str().unwrap();
    assert_eq!(f["quote_context"]["quote"], quote);
    let page = verity::extract::parse_html(&pages[0].0, None).unwrap();
    assert!(
        page.document.content.contains(quote),
        "quote not verbatim: {quote}"
    );

    let d = result(&r, &distorted);
    assert!(
        d["verdict"] == "PARTIAL" || d["verdict"] == "NOT_SUPPORTED",
        "distorted figure: {d:#}"
    );
    assert!(d["source_quote"].as_str().is_some(), "{d:#}");

    let inline = result(&r, &pages[1].1);
    assert_eq!(inline["verdict"], "SUPPORTED", "{inline:#}");
    assert_eq!(inline["citation_type"], "url");

    let gone = result(&r, "A page that is gone said something else entirely");
    assert_eq!(gone["verdict"], "SOURCE_UNAVAILABLE", "{gone:#}");
    assert!(
        gone["explanation"].as_str().unwrap().contains("404"),
        "{gone:#}"
    );
    assert_eq!(r["summary"]["supported"], 2);
    assert_eq!(r["summary"]["unavailable"], 1);

    // The seed's route: no version header, same report; Markdown on request.
    let resp = s
        .bare(Method::POST, "/verify")
        .bearer_auth(TOKEN)
        .json(&json!({"content": doc, "allow_private": true, "format": "md", "judge": "local"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert!(resp.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/markdown"));
    let md = resp.text().await.unwrap();
    assert!(
        md.contains("SUPPORTED") && md.contains("SOURCE_UNAVAILABLE"),
        "{md}"
    );

    // Documented in the OpenAPI document.
    let (_, api) = s.get("/v1/openapi.json").await;
    assert!(api["paths"]["/v1/verify"]["post"].is_object());
    assert!(api["paths"]["/verify"]["post"].is_object());
    s.shutdown().await;
}

#[tokio::test]
async fn verify_bad_input_is_a_4xx_with_its_code() {
    let s = start(|_| {}).await;
    let r = s
        .req(Method::POST, "/v1/verify")
        .header("content-type", "application/json")
        .send()
        .await
        .unwrap();
    let (st, e) = status_json(r).await;
    assert_error(st, &e, 400, "invalid_input");

    let cases = [
        (json!({}), 400, "exactly one"),
        (
            json!({"content": "x", "url": "https://example.org/"}),
            400,
            "exactly one",
        ),
        (json!({"url": "not a url"}), 400, "url"),
        (json!({"url": "ftp://example.org/x"}), 400, "http"),
        (
            json!({"url": "http://127.0.0.1:9/doc"}),
            400,
            "allow_private",
        ),
        (
            json!({"url": "http://169.254.169.254/latest"}),
            400,
            "allow_private",
        ),
        (
            json!({"content": "x [1]", "allow_private": true}),
            400,
            "VERITY_ALLOW_PRIVATE",
        ),
        (
            json!({"content": "x", "concurrency": 0}),
            400,
            "concurrency",
        ),
        (json!({"content": "x", "content_type": "pdf"}), 400, "PDF"),
        (json!({"content_base64": "%%%"}), 400, "base64"),
        (json!({"path": "/etc/passwd"}), 400, "no file roots"),
        (json!({"content": "x", "colour": "blue"}), 422, "colour"),
        (json!({"content": "x", "format": "pdf"}), 422, "format"),
    ];
    for (body, status, needle) in cases {
        let (st, e) = s.post("/v1/verify", body.clone()).await;
        assert_error(st, &e, status, "invalid_input");
        assert!(
            e["message"].as_str().unwrap().contains(needle),
            "{body}: {e}"
        );
    }
    // No citation: a report that says so, not an error.
    let (st, r) = s
        .post("/v1/verify", json!({"content": "Nothing cited here."}))
        .await;
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["summary"]["total"], 0);
    assert!(r["summary"]["message"]
        .as_str()
        .unwrap()
        .contains("cites no source"));
    s.shutdown().await;
}

fn chromium() -> Option<String> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| {
            std::process::Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .map(str::to_string);
    if found.is_none() {
        if std::env::var_os("VERITY_REQUIRE_CHROMIUM").is_some() {
            panic!("VERITY_REQUIRE_CHROMIUM is set but chromium is not installed");
        }
        eprintln!("skipped: chromium is not installed (apt-get install -y chromium)");
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_page_in_headless_chromium() {
    let Some(pages) = pages(2) else { return };
    let base = serve_sources(pages.clone()).await;
    let (doc, _, _) = document(&base, &pages);
    // No token: the page calls the API as a browser on this machine would.
    let s = start(|c| {
        c.tokens.clear();
        c.allow_private = true;
    })
    .await;
    let resp = s.bare(Method::GET, "/").send().await.unwrap();
    assert_eq!(resp.status(), 200);
    let csp = resp.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(csp.contains("default-src 'none'") && csp.contains("connect-src 'self'"));
    let html = resp.text().await.unwrap();
    assert!(
        !html.contains("src=\"http") && !html.contains("<link "),
        "self-contained"
    );

    let Some(bin) = chromium() else { return };
    let q = format!(
        "{}/?allow_private=1&judge=local&content_type=markdown&content={}",
        s.url,
        url::form_urlencoded::byte_serialize(doc.as_bytes()).collect::<String>()
    );
    let dir = tempfile::tempdir().unwrap();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(bin)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--virtual-time-budget=20000",
                "--dump-dom",
            ])
            .arg(format!("--user-data-dir={}", dir.path().display()))
            .arg(q)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    assert!(dom.contains("Showing 4 of 4 claims"), "{dom}");
    assert!(dom.contains("2 of 4 cited claims are supported"), "{dom}");
    assert_eq!(dom.matches("class=\"badge SUPPORTED\"").count(), 2, "{dom}");
    assert!(dom.contains("class=\"badge SOURCE_UNAVAILABLE\""), "{dom}");
    assert!(dom.contains("<mark class=\"quote\">"), "{dom}");
    s.shutdown().await;
}
