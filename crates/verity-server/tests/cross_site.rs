//! A default server (loopback, no token) that a web page cannot use:
//! CORS-simple requests (no preflight) are refused on every state-changing
//! route, and foreign `Host` / `Origin` headers (DNS rebinding, cross-site
//! calls) are refused on every route family, `/mcp` included.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::*;
use reqwest::Method;
use serde_json::{json, Value};

/// The bodies and content types a page can send without a CORS preflight
/// (`text/plain`, form encodings, no content type), each with a JSON body a
/// lenient server would accept.
const SIMPLE_SHAPES: &[(&str, Option<&str>)] = &[
    ("text/plain", Some("text/plain")),
    ("text/plain;charset=UTF-8", Some("text/plain;charset=UTF-8")),
    (
        "application/x-www-form-urlencoded",
        Some("application/x-www-form-urlencoded"),
    ),
    (
        "multipart/form-data",
        Some("multipart/form-data; boundary=----x"),
    ),
    ("no content type", None),
];

/// Every POST route of the server (from its OpenAPI operations, path
/// parameters filled in) and `/mcp`, with a body each would act on.
fn post_routes() -> Vec<(String, Value)> {
    let mut routes: Vec<(String, Value)> = verity_server::operations()
        .iter()
        .filter(|o| o.method == verity_server::openapi::Verb::Post)
        .flat_map(|o| {
            std::iter::once(o.path)
                .chain(o.aliases.iter().copied())
                .map(move |p| (o, p))
        })
        .map(|(o, p)| {
            let path = p.replace("{name}", "log_article");
            let body = match o.path {
                "/v1/events" => json!({"content": {"text": "planted"}}),
                "/api/veille/rules" => {
                    json!({"name": "planted", "type": "include", "keywords": ["planted"]})
                }
                "/api/veille/articles" | "/api/tools/{name}" => {
                    json!({"url": "https://example.org/planted", "title": "planted", "score": 9})
                }
                "/v1/ingest" => {
                    json!({"documents": [{"uid": "planted", "content": "planted text"}]})
                }
                _ => json!({"query": "planted", "content": "planted", "texts": ["planted"]}),
            };
            (path, body)
        })
        .collect();
    assert!(
        routes.iter().any(|(p, _)| p == "/v1/events/"),
        "the alias /v1/events/ is tried too"
    );
    routes.push((
        "/mcp".into(),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "remember", "arguments": {"content": "planted"}}}),
    ));
    routes
}

#[tokio::test]
async fn simple_requests_never_reach_a_state_changing_route() {
    let s = start(|c| c.tokens.clear()).await;
    let routes = post_routes();
    assert!(routes.len() >= 17, "{} routes", routes.len());
    let mut tried = 0;
    for (path, body) in &routes {
        for (shape, ct) in SIMPLE_SHAPES {
            for origin in [None, Some("http://attacker.example")] {
                let mut rb = s
                    .bare(Method::POST, path)
                    .header("x-api-version", VERSION)
                    .body(body.to_string());
                if let Some(ct) = ct {
                    rb = rb.header("content-type", *ct);
                }
                if let Some(o) = origin {
                    rb = rb.header("origin", o);
                }
                let (st, e) = status_json(rb.send().await.unwrap()).await;
                tried += 1;
                let (want_status, want_code) = match origin {
                    Some(_) => (403, "origin_not_allowed"),
                    None => (415, "unsupported_media_type"),
                };
                assert_eq!(
                    (st, e["code"].as_str().unwrap_or_default()),
                    (want_status, want_code),
                    "POST {path} as {shape}, origin {origin:?}: {e}"
                );
            }
        }
    }
    assert_eq!(tried, routes.len() * SIMPLE_SHAPES.len() * 2);

    // Nothing was written anywhere.
    let (st, page) = s.get("/v1/search/?filter_metadata=%7B%7D").await;
    assert_eq!(st, 200, "{page}");
    assert_eq!(page["meta"]["total_hits"], 0, "{page}");
    let (_, rules) = s.get("/api/veille/rules").await;
    assert!(!rules.to_string().contains("planted"), "{rules}");
    let (_, articles) = s.get("/api/veille/articles?validated_only=false").await;
    assert!(!articles.to_string().contains("planted"), "{articles}");
    let (_, stats) = s.get("/v1/stats").await;
    assert_eq!(stats["store"]["documents"], 0, "{stats}");

    // The same writes as JSON (which a page cannot send cross-site without
    // a preflight, and CORS is closed) are served.
    let r = s
        .bare(Method::POST, "/v1/events")
        .json(&json!({"content": {"text": "kept"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    s.shutdown().await;
}

/// One route of each family: `/v1` data, `/v1` events, `/v1` public, `/api`,
/// the seed's `/verify`, the page at `/`, `/mcp`.
fn families() -> Vec<(&'static str, Method, &'static str)> {
    vec![
        ("v1 data", Method::POST, "/v1/retrieve"),
        ("v1 delete", Method::DELETE, "/v1/documents/doc-1"),
        ("v1 stats", Method::GET, "/v1/stats"),
        ("v1 events", Method::GET, "/v1/search/"),
        ("v1 health", Method::GET, "/v1/health"),
        ("v1 openapi", Method::GET, "/v1/openapi.json"),
        ("v1 docs", Method::GET, "/v1/docs"),
        ("v1 metrics", Method::GET, "/v1/metrics"),
        ("api tools", Method::POST, "/api/tools/stats"),
        ("api rules", Method::GET, "/api/veille/rules"),
        ("api health", Method::GET, "/api/health"),
        ("seed verify", Method::POST, "/verify"),
        ("page", Method::GET, "/"),
        ("mcp", Method::POST, "/mcp"),
        ("unknown route", Method::GET, "/nowhere"),
    ]
}

#[tokio::test]
async fn foreign_host_refused_on_every_route_family() {
    for tokens in [false, true] {
        let s = start(|c| {
            if !tokens {
                c.tokens.clear()
            }
        })
        .await;
        let port = s.url.rsplit(':').next().unwrap().to_string();
        for (family, method, path) in families() {
            for host in [
                format!("attacker.example:{port}"),
                "attacker.example".to_string(),
                format!("127.0.0.1.nip.io:{port}"),
            ] {
                let r = s
                    .req(method.clone(), path)
                    .header("host", &host)
                    .json(&json!({"query": "x"}))
                    .send()
                    .await
                    .unwrap();
                let (st, e) = status_json(r).await;
                assert_error(st, &e, 403, "host_not_allowed");
                assert!(
                    e["message"].as_str().unwrap().contains("allowed_hosts"),
                    "{family}: {e}"
                );
            }
            // Loopback names are served (whatever the answer of the route itself).
            for host in [
                format!("localhost:{port}"),
                format!("127.0.0.1:{port}"),
                "localhost".to_string(),
            ] {
                let r = s
                    .req(method.clone(), path)
                    .header("host", &host)
                    .header("accept", "application/json, text/event-stream")
                    .json(&json!({"query": "x"}))
                    .send()
                    .await
                    .unwrap();
                assert_ne!(r.status(), 403, "{family} {path} with Host {host}");
            }
        }
        s.shutdown().await;
    }
}

#[tokio::test]
async fn foreign_origin_refused_on_every_route_family() {
    let s = start(|c| {
        c.tokens.clear();
        c.cors_origins = vec!["https://app.example".into()];
    })
    .await;
    for (family, method, path) in families() {
        for origin in [
            "http://attacker.example",
            "null",
            "http://localhost.attacker.example",
        ] {
            let r = s
                .req(method.clone(), path)
                .header("origin", origin)
                .json(&json!({"query": "x"}))
                .send()
                .await
                .unwrap();
            let (st, e) = status_json(r).await;
            assert_error(st, &e, 403, "origin_not_allowed");
            assert!(
                e["message"].as_str().unwrap().contains(origin),
                "{family}: {e}"
            );
        }
        // Loopback origins, the configured CORS origins and this server's own
        // origin (the page at `/` posting to `/v1/verify`) pass.
        for origin in [
            "http://localhost:3000".to_string(),
            "https://app.example".to_string(),
            s.url.clone(),
        ] {
            let r = s
                .req(method.clone(), path)
                .header("origin", &origin)
                .header("accept", "application/json, text/event-stream")
                .json(&json!({"query": "x"}))
                .send()
                .await
                .unwrap();
            assert_ne!(r.status(), 403, "{family} {path} from {origin}");
        }
    }
    s.shutdown().await;
}

#[tokio::test]
async fn allowed_hosts_is_configurable() {
    let s = start(|c| {
        c.allowed_hosts = vec!["verity.internal".into()];
    })
    .await;
    let (st, _) = status_json(
        s.req(Method::GET, "/v1/stats")
            .header("host", "verity.internal:8080")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(st, 200);
    // Configured names replace the loopback defaults.
    let (st, e) = status_json(s.req(Method::GET, "/v1/stats").send().await.unwrap()).await;
    assert_error(st, &e, 403, "host_not_allowed");
    s.shutdown().await;

    // `*` turns the check off (a deployment behind a proxy that checks Host).
    let s = start(|c| c.allowed_hosts = vec!["*".into()]).await;
    let r = s
        .req(Method::GET, "/v1/stats")
        .header("host", "anything.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    s.shutdown().await;
}
