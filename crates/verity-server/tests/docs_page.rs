//! The API documentation: operations grouped by capability (OpenAPI tags,
//! the `/api` routes included and `/mcp` described), request bodies rendered
//! from their schemas, every method with its badge; the citation-checking
//! page links to it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use reqwest::Method;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn operations_are_grouped_by_capability() {
    let s = common::start(|_| {}).await;
    let doc: serde_json::Value = s
        .bare(Method::GET, "/v1/openapi.json")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let tags: Vec<&str> = doc["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for want in [
        "Documents",
        "Retrieval and answers",
        "Technology watch (n8n)",
        "MCP",
        "Service",
    ] {
        assert!(tags.contains(&want), "{want} missing: {tags:?}");
    }
    let mcp = doc["tags"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "MCP")
        .unwrap();
    assert!(mcp["description"].as_str().unwrap().contains("/mcp"));
    let mut seen_api = false;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let tag = op["tags"][0]
                .as_str()
                .unwrap_or_else(|| panic!("{method} {path} has no tag"));
            assert!(tags.contains(&tag), "{method} {path}: unknown tag {tag}");
            if path.starts_with("/api/veille") {
                seen_api = true;
                assert_eq!(tag, "Technology watch (n8n)", "{path}");
            }
            let text = format!("{} {}", op["summary"], op["description"]).to_lowercase();
            assert!(!text.contains("seed "), "{method} {path}: {text}");
        }
    }
    assert!(seen_api, "the /api routes are documented");
    // Users read the schemas' descriptions too: no internal references there.
    let text = doc.to_string().to_lowercase();
    for internal in [
        "seed 00",
        "seed-00",
        "seed's",
        "seed `",
        "the seed ",
        "seed:",
    ] {
        let at = text.find(internal);
        assert!(
            at.is_none(),
            "internal wording `{internal}` in the OpenAPI document: …{}…",
            at.map_or(String::new(), |i| {
                let before: String = text[..i].chars().rev().take(120).collect();
                let after: String = text[i..].chars().take(60).collect();
                before.chars().rev().chain(after.chars()).collect()
            })
        );
    }

    let page = s
        .bare(Method::GET, "/v1/docs")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for needle in [".patch {", "function bodyView", "function md(", "doc.tags"] {
        assert!(page.contains(needle), "{needle} missing from the docs page");
    }
    let verify = s
        .bare(Method::GET, "/")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        verify.contains("href=\"/v1/docs"),
        "the checking page links to the API docs"
    );
    assert!(
        verify.contains("source not read"),
        "no confidence shown for an unread source"
    );
    s.shutdown().await;
}
