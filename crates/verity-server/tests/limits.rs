//! Bounded work per request: oversized rule keywords, queries and filter
//! lists are refused with a 4xx naming the limit (never a 5xx, never SQL
//! text); the SSRF guard's refusals are 4xx; metadata addresses stay refused
//! with private fetching on.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::*;
use serde_json::{json, Value};

fn message(e: &Value) -> String {
    e["message"].as_str().unwrap_or_default().to_string()
}

#[tokio::test]
async fn one_long_rule_keyword_is_refused_and_scoring_stays_quick() {
    let s = start(|_| {}).await;
    // The report's reproduction: one keyword of 100,000 characters.
    let long = "a".repeat(100_000);
    let (st, e) = s
        .post(
            "/api/veille/rules",
            json!({"name": "huge", "type": "include", "keywords": [long]}),
        )
        .await;
    assert_error(st, &e, 400, "invalid_input");
    assert!(message(&e).contains("MAX_KEYWORD_CHARS"), "{e}");
    assert!(message(&e).contains("keywords"), "{e}");

    // Many distinct keywords in one rule: refused before any quadratic work.
    let many: Vec<String> = (0..50_000).map(|i| format!("k{i}")).collect();
    let (st, e) = s
        .post(
            "/api/veille/rules",
            json!({"name": "many", "type": "include", "keywords": many}),
        )
        .await;
    assert_error(st, &e, 400, "invalid_input");
    assert!(message(&e).contains("MAX_RULE_KEYWORDS"), "{e}");

    // The largest rules allowed still score at once, and health answers.
    for r in 0..4 {
        let kws: Vec<String> = (0..256)
            .map(|i| format!("{}{r}{i}", "w".repeat(120)))
            .collect();
        let (st, e) = s
            .post(
                "/api/veille/rules",
                json!({"name": format!("big{r}"), "type": "boost", "keywords": kws}),
            )
            .await;
        assert_eq!(st, 200, "{e}");
    }
    let (st, r) = s.post("/api/veille/score", json!({"title": "hello"})).await;
    assert_eq!(st, 200, "{r}");
    let (st, _) = s.get("/v1/health").await;
    assert_eq!(st, 200);
    s.shutdown().await;
}

#[tokio::test]
async fn total_keywords_and_rules_are_bounded() {
    let s = start(|_| {}).await;
    let mut refused = None;
    // 256 keywords per rule: the 40th rule passes 10,000 keywords in all.
    for r in 0..45 {
        let kws: Vec<String> = (0..256).map(|i| format!("r{r}k{i}")).collect();
        let (st, e) = s
            .post(
                "/api/veille/rules",
                json!({"name": format!("r{r}"), "type": "include", "keywords": kws}),
            )
            .await;
        if st != 200 {
            refused = Some((r, st, e));
            break;
        }
    }
    let (r, st, e) = refused.expect("the keyword total is bounded");
    assert_eq!(r, 39, "{e}");
    assert_error(st, &e, 400, "invalid_input");
    assert!(message(&e).contains("MAX_TOTAL_KEYWORDS"), "{e}");
    // Replacing an existing rule is not adding one.
    let kws: Vec<String> = (0..10).map(|i| format!("x{i}")).collect();
    let (st, e) = s
        .post(
            "/api/veille/rules",
            json!({"name": "r0", "type": "include", "keywords": kws}),
        )
        .await;
    assert_eq!(st, 200, "{e}");
    s.shutdown().await;
}

#[tokio::test]
async fn long_queries_are_refused_naming_the_limit() {
    let s = start(|_| {}).await;
    let words: String = (0..100_000).map(|i| format!("w{i} ")).collect();
    assert!(words.len() > 500_000);
    for (path, body) in [
        ("/v1/retrieve", json!({"query": words})),
        ("/v1/rag", json!({"question": words})),
        ("/api/tools/search", json!({"query": words})),
        ("/api/tools/ask", json!({"question": words})),
    ] {
        let (st, e) = s.post(path, body).await;
        assert_error(st, &e, 400, "invalid_input");
        assert!(message(&e).contains("MAX_QUERY_BYTES"), "{path}: {e}");
    }
    // At the limit it is served.
    let ok: String = "fees ".repeat(verity::core::MAX_QUERY_BYTES / 5);
    let (st, e) = s.post("/v1/retrieve", json!({"query": ok})).await;
    assert_eq!(st, 200, "{e}");
    s.shutdown().await;
}

#[tokio::test]
async fn large_filter_lists_are_4xx_without_sql() {
    let s = start(|_| {}).await;
    s.post("/v1/ingest", json!({"documents": docs(3)})).await;
    let many: Vec<String> = (0..40_000).map(|i| format!("v{i}")).collect();
    for field in ["uids", "tags", "sources", "langs", "tags_all"] {
        let mut body = json!({"query": "routing fees"});
        body[field] = json!(many);
        let (st, e) = s.post("/v1/retrieve", body).await;
        assert_error(st, &e, 400, "invalid_input");
        assert!(message(&e).contains("MAX_FILTER_VALUES"), "{field}: {e}");
        assert!(message(&e).contains(field), "{field}: {e}");
        assert!(!message(&e).contains("SELECT"), "{field}: {e}");
        // The same list inside `filters`.
        let (st, e) = s
            .post(
                "/v1/retrieve",
                json!({"query": "fees", "filters": {field: many}}),
            )
            .await;
        assert!(st == 400 || st == 422, "{field} in filters: {st} {e}");
        assert!(!message(&e).contains("SELECT"), "{e}");
    }
    let (st, e) = s
        .post("/v1/rag", json!({"question": "routing fees", "uids": many}))
        .await;
    assert_error(st, &e, 400, "invalid_input");
    // 1,000 values are served.
    let uids: Vec<String> = (0..1_000).map(|i| format!("doc-{i}")).collect();
    let (st, r) = s
        .post(
            "/v1/retrieve",
            json!({"query": "routing fees", "uids": uids}),
        )
        .await;
    assert_eq!(st, 200, "{r}");
    assert!(!r["uids"].as_array().unwrap().is_empty(), "{r}");
    s.shutdown().await;
}

#[tokio::test]
async fn ssrf_refusals_are_client_errors() {
    let s = start(|_| {}).await;
    let targets = [
        "http://127.0.0.1:9/admin",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/",
        "http://10.0.0.1/",
        "http://metadata.google.internal/",
        "http://0x7f000001/",
    ];
    for url in targets {
        for (path, body) in [
            ("/api/crawl", json!({ "url": url })),
            ("/api/tools/fetch_url", json!({ "url": url })),
            ("/v1/verify", json!({ "url": url })),
        ] {
            let (st, e) = s.post(path, body).await;
            // The document URL of a check is refused as its input (`invalid_input`).
            let want = if path == "/v1/verify" {
                "invalid_input"
            } else {
                "fetch_refused"
            };
            assert_error(st, &e, 400, want);
            let m = message(&e);
            assert_eq!(
                m.matches("refused by the network guard").count(),
                1,
                "{path} {url}: the reason once: {m}"
            );
        }
    }
    s.shutdown().await;
}

#[tokio::test]
async fn metadata_addresses_stay_refused_with_private_fetching_on() {
    let s = start(|c| {
        c.allow_private = true;
    })
    .await;
    for url in [
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/latest/",
        "http://metadata.google.internal/computeMetadata/v1/",
    ] {
        let (st, e) = s
            .post("/v1/verify", json!({ "url": url, "allow_private": true }))
            .await;
        assert_eq!(st, 400, "{url}: {e}");
        assert!(message(&e).contains("metadata"), "{url}: {e}");
    }
    // A private address is reached (nothing listens: a fetch failure, not a refusal).
    let (st, e) = s
        .post(
            "/v1/verify",
            json!({ "url": "http://127.0.0.1:9/doc", "allow_private": true }),
        )
        .await;
    assert_ne!(e["code"], "fetch_refused", "{st} {e}");
    s.shutdown().await;
}
