//! The seed-000 REST routes for n8n, over a real server on loopback with a
//! SearXNG fake and a page server speaking plain HTTP: the seed's session
//! (rules → check → verify → decision), the article log, the any-tool route,
//! auth without `X-API-Version`, and bad input answering 4xx, never 500.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::{status_json, TestServer, TOKEN};
use reqwest::Method;
use serde_json::{json, Value};
use verity::watch::WatchConfig;

const ARTICLE: &str = r#"<!doctype html><html><head><title>Announcing Ollama 0.5</title></head>
<body><nav><a href="/">Home</a></nav><article><h1>Announcing Ollama 0.5</h1>
<p>Today we're releasing Ollama 0.5, our biggest update yet.</p>
<p>Ollama 0.5 inference is 40-50% faster on Apple Silicon than Ollama 0.4.</p>
<p>We rewrote the scheduler and added new quantisation options that reduce memory use on every platform we support.</p>
</article><footer>© Ollama</footer></body></html>"#;

/// `/article` → the page, `/search` → SearXNG JSON pointing at `/article`.
fn web() -> String {
    verity_testkit::one_article_web(
        "/article",
        ARTICLE,
        "Announcing Ollama 0.5",
        "40-50% faster",
    )
    .unwrap()
}

async fn start(web: &str) -> TestServer {
    common::start_watch(WatchConfig {
        searxng_url: Some(web.to_string()),
        allow_private: true,
        ..WatchConfig::default()
    })
    .await
}

/// A request the way n8n sends it: token, JSON, no `X-API-Version`.
async fn n8n(s: &TestServer, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut r = s
        .client
        .request(method, format!("{}{path}", s.url))
        .bearer_auth(TOKEN);
    if let Some(b) = body {
        r = r.json(&b);
    }
    status_json(r.send().await.unwrap()).await
}

#[tokio::test]
async fn the_seed_session_over_rest() {
    let web = web();
    let s = start(&web).await;
    let article = format!("{web}/article");

    let (st, v) = n8n(
        &s,
        Method::POST,
        "/api/veille/rules",
        Some(json!({
        "name": "local_llm", "type": "include", "keywords": ["ollama", "local llm"],
        "score_modifier": 3, "priority": "critical"})),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["created"], true);
    let (st, v) = n8n(&s, Method::GET, "/api/veille/rules?type=include", None).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["rules"][0]["name"], "local_llm");
    assert_eq!(v["scoring_guide"]["base_score"], 5);

    let (st, v) = n8n(
        &s,
        Method::POST,
        "/api/veille/check",
        Some(json!({"url": article})),
    )
    .await;
    assert_eq!((st, v["exists"].clone()), (200, json!(false)), "{v}");

    let (st, v) = n8n(
        &s,
        Method::POST,
        "/api/verify",
        Some(json!({
        "claim": "Ollama 0.5 inference is 40-50% faster on Apple Silicon",
        "context": "inference performance"})),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["verified"], true, "{v}");
    let excerpt = v["sources"][0]["excerpt"].as_str().unwrap();
    assert!(excerpt.contains("40-50% faster"), "{v}");

    let (st, v) = n8n(
        &s,
        Method::POST,
        "/api/veille/score",
        Some(json!({
        "title": "Ollama 0.5 brings 50% faster inference", "url": article})),
    )
    .await;
    assert_eq!((st, v["score"].clone()), (200, json!(8)), "{v}");

    let (st, v) = n8n(
        &s,
        Method::POST,
        "/api/veille/articles",
        Some(json!({
        "url": article, "title": "Announcing Ollama 0.5", "source": "ollama_blog",
        "source_type": "rss", "qwen_score": 8, "phi_validated": true,
        "raw_content": "Ollama 0.5 inference is 40-50% faster on Apple Silicon."})),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    let id = v["article_id"].as_str().unwrap().to_string();
    assert_eq!(v["ingested"], true, "{v}");
    let (_, v) = n8n(
        &s,
        Method::POST,
        "/api/veille/check",
        Some(json!({"url": format!("{article}?utm_source=x")})),
    )
    .await;
    assert_eq!(v["exists"], true, "{v}");
    let (st, v) = n8n(
        &s,
        Method::GET,
        "/api/veille/articles?days=7&validated_only=true&limit=5",
        None,
    )
    .await;
    assert_eq!((st, v["total"].clone()), (200, json!(1)), "{v}");

    let (st, v) = n8n(
        &s,
        Method::POST,
        "/api/veille/decisions",
        Some(json!({
        "article_id": id, "llm": "qwen", "decision_type": "score",
        "decision": "Score 8/10", "confidence": 0.88,
        "tools_used": ["get_veille_rules", "check_article_exists", "verify_fact"]})),
    )
    .await;
    assert_eq!((st, v["logged"].clone()), (200, json!(true)), "{v}");
    let (_, v) = n8n(
        &s,
        Method::GET,
        &format!("/api/veille/decisions?article_id={id}"),
        None,
    )
    .await;
    assert_eq!(v["total"], 1, "{v}");

    let (st, v) = n8n(
        &s,
        Method::POST,
        "/api/search",
        Some(json!({"query": "ollama", "num_results": 5})),
    )
    .await;
    assert_eq!((st, v["total_found"].clone()), (200, json!(1)), "{v}");
    let (st, v) = n8n(
        &s,
        Method::POST,
        "/api/crawl",
        Some(json!({"url": article})),
    )
    .await;
    assert_eq!(
        (st, v["title"].clone()),
        (200, json!("Announcing Ollama 0.5")),
        "{v}"
    );

    // AuraCore tools through the any-tool route.
    let (st, v) = n8n(
        &s,
        Method::POST,
        "/api/tools/create_project",
        Some(json!({"name": "veille"})),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    let pid = v["id"].as_str().unwrap().to_string();
    let (st, v) = n8n(
        &s,
        Method::POST,
        "/api/tools/create_task",
        Some(json!({"project_id": pid, "title": "write the digest", "priority": "high"})),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    let (_, v) = n8n(
        &s,
        Method::POST,
        "/api/tools/get_next_tasks",
        Some(json!({"project_id": pid})),
    )
    .await;
    assert_eq!(v["tasks"][0]["title"], "write the digest", "{v}");

    // Health is public; OpenAPI documents the routes.
    let r = s
        .client
        .get(format!("{}/api/health", s.url))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success() || r.status().as_u16() == 503);
    let (_, doc) = s.get("/v1/openapi.json").await;
    for p in [
        "/api/veille/rules",
        "/api/veille/check",
        "/api/veille/articles",
        "/api/veille/decisions",
        "/api/search",
        "/api/crawl",
        "/api/verify",
        "/api/health",
        "/api/tools/{name}",
    ] {
        assert!(doc["paths"][p].is_object(), "{p} missing from OpenAPI");
    }
    s.shutdown().await;
}

#[tokio::test]
async fn bad_input_is_4xx_never_500() {
    let web = web();
    let s = start(&web).await;
    // No token: 401.
    let r = s
        .client
        .get(format!("{}/api/veille/rules", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);
    let cases: Vec<(Method, &str, Option<Value>, u16, &str)> = vec![
        (
            Method::POST,
            "/api/veille/rules",
            Some(json!({"name": "x", "type": "sometimes", "keywords": ["a"]})),
            422,
            "include",
        ),
        (
            Method::POST,
            "/api/veille/rules",
            Some(json!({"name": "x", "type": "include", "keywords": ["a"], "score_modifier": 9})),
            400,
            "-10",
        ),
        (
            Method::POST,
            "/api/veille/rules",
            Some(json!({"name": "x", "type": "include", "keywords": []})),
            400,
            "keywords",
        ),
        (
            Method::GET,
            "/api/veille/rules?priority=urgent",
            None,
            400,
            "priority",
        ),
        (
            Method::GET,
            "/api/veille/articles?days=soon",
            None,
            400,
            "days",
        ),
        (
            Method::POST,
            "/api/veille/check",
            Some(json!({"url": "not a url"})),
            400,
            "url",
        ),
        (
            Method::POST,
            "/api/veille/decisions",
            Some(json!({"llm": "gpt", "decision_type": "score", "decision": "x"})),
            422,
            "qwen",
        ),
        (
            Method::GET,
            "/api/veille/decisions?article_id=art_nope",
            None,
            404,
            "art_nope",
        ),
        (
            Method::POST,
            "/api/search",
            Some(json!({"query": "x", "num_results": 50})),
            400,
            "between 1 and 10",
        ),
        (
            Method::POST,
            "/api/crawl",
            Some(json!({"url": format!("{web}/missing")})),
            502,
            "404",
        ),
        (
            Method::POST,
            "/api/verify",
            Some(json!({"claim": ""})),
            400,
            "claim",
        ),
        (
            Method::POST,
            "/api/tools/nope",
            Some(json!({})),
            404,
            "available",
        ),
        (
            Method::POST,
            "/api/tools/get_project",
            Some(json!({"project_id": "prj_nope"})),
            404,
            "prj_nope",
        ),
    ];
    for (m, path, body, want, says) in cases {
        let (st, v) = n8n(&s, m.clone(), path, body.clone()).await;
        // Every status is the error table's row for the code.
        let code = v["code"].as_str().unwrap_or("");
        assert_eq!(
            st,
            verity::api::ErrorMapping::for_code(code).http_status,
            "{m} {path}: {v}"
        );
        assert!(st < 500 || want >= 500, "{m} {path} {body:?}: {st} {v}");
        assert_eq!(st, want, "{m} {path} {body:?}: {v}");
        assert!(
            v["message"].as_str().unwrap_or("").contains(says),
            "{m} {path}: {v}"
        );
    }
    s.shutdown().await;
}

/// A call that never reached its tool (unknown name, arguments the schema
/// refuses) and one that ran and failed: each answers its code's row of the
/// error table, the same row MCP and `call_tool` read.
#[tokio::test]
async fn tool_errors_follow_the_error_table() {
    let web = web();
    let s = start(&web).await;
    for (path, body, code) in [
        ("/api/tools/nope", json!({}), "unknown_tool"),
        (
            "/api/tools/search",
            json!({"query": 42}),
            "invalid_arguments",
        ),
        (
            "/api/tools/search",
            json!({"query": "x", "bogus": 1}),
            "invalid_arguments",
        ),
        (
            "/api/tools/get_project",
            json!({"project_id": "prj_nope"}),
            "not_found",
        ),
    ] {
        let (st, v) = n8n(&s, Method::POST, path, Some(body)).await;
        assert_eq!(v["code"], code, "{path}: {v}");
        assert_eq!(
            st,
            verity::api::ErrorMapping::for_code(code).http_status,
            "{path}: {v}"
        );
        assert_eq!(v["transient"], false, "{path}: {v}");
    }
    // A name is echoed at most 80 characters long.
    let long = "x".repeat(500);
    let (st, v) = n8n(
        &s,
        Method::POST,
        &format!("/api/tools/{long}"),
        Some(json!({})),
    )
    .await;
    assert_eq!(st, 404, "{v}");
    assert!(!v["message"].as_str().unwrap_or("").contains(&long), "{v}");
    s.shutdown().await;
}
