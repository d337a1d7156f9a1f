//! Seed 002 (citation verification agent), section by section, as a user
//! meets it: the seed's own examples through `verity check` and through the
//! REST `POST /verify` with the seed's exact body, the data model and every
//! status, and the report formats. The cited sources are pages served on
//! loopback; every quote is checked to be the page's characters.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{Read, Write};
use std::path::Path;

use assert_cmd::Command;
use serde_json::{json, Value};
use verity::verification::audit;
use verity_testkit::Reply;

/// Section "OUTPUT": "62% of respondents indicated…".
const DEVS: &str =
    "<!DOCTYPE html><html><head><title>Developer survey 2024</title></head><body><article>\
<h1>Developer survey 2024</h1>\
<p>The survey received 1,200 responses from developers working on data projects.</p>\
<p>62% of respondents indicated that Python is the language they prefer for data analysis.</p>\
<p>SQL came second, ahead of <em>R</em> and Julia.</p></article></body></html>";

/// Section "Flow détaillé": "78% of companies have adopted AI".
const MCKINSEY: &str = "<!DOCTYPE html><html><head><title>The state of AI — McKinsey Global Survey</title></head><body><article>\
<h1>The state of AI — McKinsey Global Survey</h1>\
<p>McKinsey surveyed 1,400 executives across industries and regions.</p>\
<p>In 2023, 78% of companies have adopted AI in at least one business function.</p>\
<p>Adoption was highest in technology and financial services.</p></article></body></html>";

/// Another product: it cannot contradict a claim about Python.
const RUST: &str = "<!DOCTYPE html><html><head><title>Rust 1.0</title></head><body><article><h1>Rust 1.0</h1>\
<p>Rust 1.0 was released on May 15, 2015, after years of development at Mozilla.</p>\
<p>The release promised stability for the language and its standard library.</p></article></body></html>";

/// Section "Gestion des erreurs": a paywall that serves only a teaser.
const TEASER: &str = r#"<!DOCTYPE html><html><head><title>Premium analysis</title>
<script type="application/ld+json">{"@type":"NewsArticle","isAccessibleForFree":false}</script></head>
<body><article><h1>Premium analysis</h1><p>The outlook for the sector is</p>
<div class="paywall">Subscribe to continue reading. Already a subscriber? Log in.</div></article></body></html>"#;

fn serve() -> String {
    verity_testkit::serve(|path, _| match path {
        "/devs" => Reply::html(DEVS),
        "/mckinsey" => Reply::html(MCKINSEY),
        "/rust" => Reply::html(RUST),
        "/teaser" => Reply::html(TEASER),
        _ => Reply::not_found(),
    })
    .unwrap()
}

fn body_of(base: &str, url: &str) -> Option<String> {
    match url.strip_prefix(base)? {
        "/devs" => Some(DEVS.into()),
        "/mckinsey" => Some(MCKINSEY.into()),
        "/rust" => Some(RUST.into()),
        "/teaser" => Some(TEASER.into()),
        _ => None,
    }
}

/// A document as a user writes it: titled "Notes" (not a footnote section),
/// the seed's two examples, and one claim per other status.
fn document(base: &str, dead: &str) -> String {
    format!(
        "# Notes\n\n\
         80% des devs préfèrent Python [1].\n\n\
         Selon McKinsey, 85% des entreprises utilisent l'IA [2].\n\n\
         En 2023, 78% des entreprises ont adopté l'IA dans au moins une fonction [2].\n\n\
         Python 3.12 was released in 2023 [3].\n\n\
         The outlook for the sector is bright, premium analysts say [4].\n\n\
         A page that is gone said so [5].\n\n\
         A host that is down said so too [6].\n\n\
         ## References\n\n\
         1. Developer survey. {base}/devs\n\
         2. McKinsey. {base}/mckinsey\n\
         3. Rust 1.0. {base}/rust\n\
         4. Premium analysis. {base}/teaser\n\
         5. Gone. {base}/gone\n\
         6. Down. {dead}/down\n"
    )
}

fn verity(home: &Path) -> Command {
    let mut c = Command::cargo_bin("verity").unwrap();
    c.env("VERITY_HOME", home)
        .env("VERITY_EMBEDDER", "none")
        .env_remove("VERITY_GENERATOR")
        .arg("--quiet");
    c
}

fn verdicts(r: &Value) -> Vec<String> {
    r["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["verdict"].as_str().unwrap().to_string())
        .collect()
}

/// The report's quotes are the pages' characters (some were checked).
fn assert_quotes_are_the_pages(r: &Value, base: &str) {
    let report: verity::api::verify::Report = serde_json::from_value(r.clone()).unwrap();
    let a = audit::audit_report(&report, |u| body_of(base, u));
    assert!(a.foreign.is_empty(), "{:#?}", a.foreign);
    assert!(a.checked >= 3, "{a:?}");
}

/// The seed's expectations of the report of [`document`].
fn assert_seed_semantics(r: &Value, base: &str) {
    assert_eq!(
        verdicts(r),
        [
            "NOT_SUPPORTED",
            "PARTIAL",
            "SUPPORTED",
            "INCONCLUSIVE",
            "SOURCE_UNAVAILABLE",
            "SOURCE_UNAVAILABLE",
            "SOURCE_UNAVAILABLE"
        ],
        "{r:#}"
    );
    let res = &r["results"];
    // OUTPUT: "La source dit 62%, pas 80%", with the exact source sentence.
    let e = res[0]["explanation"].as_str().unwrap();
    assert!(e.contains("62%") && e.contains("80%"), "{e}");
    assert_eq!(
        res[0]["source_quote"],
        "62% of respondents indicated that Python is the language they prefer for data analysis."
    );
    assert_eq!(res[0]["source_url"], format!("{base}/devs"));
    // Flow détaillé: 85% against 78% is an exaggeration, confidence 0.9.
    let e = res[1]["explanation"].as_str().unwrap();
    assert!(e.contains("78%") && e.contains("85%"), "{e}");
    assert!(res[1]["confidence"].as_f64().unwrap() >= 0.85, "{}", res[1]);
    assert_eq!(
        res[1]["source_quote"],
        "In 2023, 78% of companies have adopted AI in at least one business function."
    );
    // Another product's page does not discuss the claim.
    let e = res[3]["explanation"].as_str().unwrap();
    assert!(e.contains("does not discuss Python"), "{e}");
    // Gestion des erreurs: paywall, 404, host down — each named.
    let e = |i: usize| res[i]["explanation"].as_str().unwrap().to_string();
    assert!(e(4).contains("paywalled"), "{}", e(4));
    assert!(e(5).contains("HTTP 404"), "{}", e(5));
    assert!(e(6).contains("connection refused"), "{}", e(6));
    for i in 4..7 {
        assert!(!e(i).contains("robots.txt"), "{}", e(i));
    }
    // Summary: total, supported, issues.
    assert_eq!(r["summary"]["total"], 7);
    assert_eq!(r["summary"]["supported"], 1);
    assert_eq!(r["summary"]["issues"], 6);
    assert_quotes_are_the_pages(r, base);
}

#[test]
fn seed_002_section_by_section() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("store");
    let base = serve();
    let dead = verity_testkit::dead_url().unwrap();
    let doc = tmp.path().join("notes.md");
    std::fs::write(&doc, document(&base, &dead)).unwrap();

    // CLI `check` (priorité haute), JSON output in the seed's shape.
    let out = verity(&home)
        .args(["check", "--allow-private", "--format", "json"])
        .arg(&doc)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_seed_semantics(&r, &base);

    // Data models: ClaimCitation, VerificationResult, SourceContent statuses.
    let first = &r["results"][0];
    for key in [
        "claim",
        "citation_ref",
        "citation_type",
        "location",
        "verdict",
        "confidence",
        "explanation",
        "source_quote",
    ] {
        assert!(first.get(key).is_some(), "{key} missing: {first}");
    }
    assert_eq!(first["citation_type"], "bibliography");
    assert_eq!(first["location"]["line"], 3);
    let statuses: Vec<&str> = r["statistics"]["unavailable_sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["status"].as_str().unwrap())
        .collect();
    assert!(
        statuses.contains(&"paywalled") && statuses.contains(&"failed"),
        "{statuses:?}"
    );

    // Report formats: Markdown, HTML, terminal — summary, details, statistics.
    let md = verity(&home)
        .args(["check", "--allow-private", "--format", "md"])
        .arg(&doc)
        .output()
        .unwrap();
    let md = String::from_utf8_lossy(&md.stdout);
    assert!(
        md.contains("NOT_SUPPORTED") && md.contains("62% of respondents"),
        "{md}"
    );
    let html = tmp.path().join("report.html");
    let out = verity(&home)
        .args(["check", "--allow-private", "--format", "html", "-o"])
        .arg(&html)
        .arg(&doc)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<html") && page.contains("PARTIAL"), "{page}");
    let term = verity(&home)
        .args(["check", "--allow-private"])
        .arg(&doc)
        .output()
        .unwrap();
    let term = String::from_utf8_lossy(&term.stdout);
    assert!(
        term.contains("SUPPORTED") && !term.contains('\x1b'),
        "{term}"
    );
    // `--fail-on` for CI.
    let out = verity(&home)
        .args(["check", "--allow-private", "--fail-on", "not_supported"])
        .arg(&doc)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(9));
}

/// One HTTP/1.1 request on a fresh connection; (status, JSON body).
fn post(addr: &str, path: &str, token: &str, body: &Value) -> (u16, Value) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    let body = body.to_string();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw);
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let (_, rest) = text.split_once("\r\n\r\n").unwrap_or(("", ""));
    // Chunked or not, the JSON object is the outermost braces.
    let json = match (rest.find('{'), rest.rfind('}')) {
        (Some(a), Some(b)) if b > a => serde_json::from_str(&rest[a..=b]).unwrap_or(Value::Null),
        _ => Value::Null,
    };
    (status, json)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seed_002_rest_verify_with_the_seeds_body() {
    let tmp = tempfile::tempdir().unwrap();
    let base = serve();
    let dead = verity_testkit::dead_url().unwrap();
    let token = "seed-002-token-0123456789";
    let config = verity_server::ServerConfig {
        addr: "127.0.0.1:0".parse().unwrap(),
        tokens: vec![token.into()],
        allow_private: true,
        verity: verity::api::ConfigOverrides {
            home: Some(tmp.path().join("store").to_string_lossy().into_owned()),
            embedder: Some("none".into()),
            generator: Some("extractive".into()),
            ..Default::default()
        },
        ..verity_server::ServerConfig::default()
    };
    let server = verity_server::Server::open(config).await.unwrap();
    let running = server.start().await.unwrap();
    let addr = running.addr.to_string();
    let content = document(&base, &dead);
    let addr2 = addr.clone();
    // API REST (priorité moyenne): the seed's exact body. Sources on a
    // loopback address are refused by the SSRF guard unless the request
    // allows them: every claim is SOURCE_UNAVAILABLE, saying which switch.
    let body = json!({"content": content, "content_type": "markdown"});
    let (status, r) = tokio::task::spawn_blocking(move || post(&addr2, "/verify", token, &body))
        .await
        .unwrap();
    assert_eq!(status, 200, "{r}");
    assert!(r["results"].is_array() && r["summary"].is_object(), "{r}");
    assert!(
        verdicts(&r).iter().all(|v| v == "SOURCE_UNAVAILABLE"),
        "{r:#}"
    );
    let why = r["results"][0]["explanation"].as_str().unwrap();
    assert!(
        why.contains("network guard") && why.contains("allow_private"),
        "{why}"
    );
    // The same body with the operator's permission used: the seed's verdicts.
    let body = json!({"content": content, "content_type": "markdown", "allow_private": true});
    let (status, r) = tokio::task::spawn_blocking(move || post(&addr, "/verify", token, &body))
        .await
        .unwrap();
    assert_eq!(status, 200, "{r}");
    assert_seed_semantics(&r, &base);
    drop(running);
}
