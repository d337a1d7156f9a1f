//! The "Bad input" list: each is a 4xx JSON error saying what to fix,
//! never a 500.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::*;
use reqwest::Method;
use serde_json::json;

async fn raw(s: &TestServer, path: &str, ct: &str, body: &str) -> (u16, serde_json::Value) {
    let r = s
        .req(Method::POST, path)
        .header("content-type", ct)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    status_json(r).await
}

#[tokio::test]
async fn malformed_wrong_unknown_missing() {
    let s = start(|_| {}).await;
    let (st, e) = raw(&s, "/v1/retrieve", "application/json", "{\"query\": ").await;
    assert_error(st, &e, 400, "invalid_input");
    assert!(
        e["message"].as_str().unwrap().contains("malformed JSON"),
        "{e}"
    );

    let (st, e) = raw(&s, "/v1/retrieve", "text/plain", "{\"query\": \"x\"}").await;
    assert_error(st, &e, 415, "unsupported_media_type");

    let (st, e) = s.post("/v1/retrieve", json!({"query": 42})).await;
    assert_error(st, &e, 422, "invalid_input");
    assert!(e["message"].as_str().unwrap().contains("query"), "{e}");

    let (st, e) = s
        .post("/v1/retrieve", json!({"query": "x", "colour": "blue"}))
        .await;
    assert_error(st, &e, 422, "invalid_input");
    assert!(e["message"].as_str().unwrap().contains("colour"), "{e}");

    let (st, e) = s.post("/v1/retrieve", json!({"k": 3})).await;
    assert_error(st, &e, 422, "invalid_input");
    assert!(e["message"].as_str().unwrap().contains("query"), "{e}");

    let (st, e) = s
        .post("/v1/ingest", json!({"documents": [{"content": "no uid"}]}))
        .await;
    assert!(st == 422 || st == 400, "{st} {e}");
    assert!(e["message"].as_str().unwrap().contains("uid"), "{e}");

    // The library's rule, the same error on every host (see the tools' and
    // the facade's tests).
    for body in [json!({}), json!({"documents": []}), json!({"paths": []})] {
        let (st, e) = s.post("/v1/ingest", body.clone()).await;
        assert_error(st, &e, 400, "invalid_input");
        assert!(
            e["message"].as_str().unwrap().contains("nothing to ingest"),
            "{body}: {e}"
        );
    }
    s.shutdown().await;
}

#[tokio::test]
async fn huge_k_and_invalid_filters() {
    let s = start(|_| {}).await;
    s.post("/v1/ingest", json!({"documents": docs(2)})).await;
    for k in [0u64, 1_000_000, u64::MAX] {
        let (st, e) = s
            .post("/v1/retrieve", json!({"query": "fees", "k": k}))
            .await;
        assert!((400..500).contains(&st), "k={k}: {st} {e}");
        assert!(e["message"].as_str().unwrap().contains('k'), "{e}");
    }
    let (st, e) = s
        .post(
            "/v1/retrieve",
            json!({"query": "fees", "since": "last tuesday"}),
        )
        .await;
    assert_error(st, &e, 400, "invalid_input");
    let (st, e) = s
        .post("/v1/retrieve", json!({"query": "fees", "mode": "psychic"}))
        .await;
    assert_error(st, &e, 422, "invalid_input");
    let (st, e) = s
        .post(
            "/v1/retrieve",
            json!({"query": "fees", "metadata": {"": 1}}),
        )
        .await;
    assert_error(st, &e, 400, "invalid_input");
    let (st, e) = s.post("/v1/rag", json!({"question": "   "})).await;
    assert_error(st, &e, 400, "invalid_input");
    let (st, e) = s
        .post("/v1/generate", json!({"query": "q", "context_chunks": []}))
        .await;
    assert_error(st, &e, 400, "invalid_input");
    let (st, e) = s
        .post("/v1/generate", json!({"query": "q", "context_chunks": [{"uid": "a", "text": "t"}], "params": {"temperature": 9}}))
        .await;
    assert_error(st, &e, 400, "invalid_input");
    s.shutdown().await;
}

#[tokio::test]
async fn unknown_routes_and_methods() {
    let s = start(|_| {}).await;
    let r = s.req(Method::GET, "/v1/nope").send().await.unwrap();
    let (st, e) = status_json(r).await;
    assert_error(st, &e, 404, "route_not_found");
    let r = s.bare(Method::GET, "/nope").send().await.unwrap();
    let (st, e) = status_json(r).await;
    assert_error(st, &e, 404, "route_not_found");
    let r = s.req(Method::GET, "/v1/retrieve").send().await.unwrap();
    assert!(r.headers().contains_key("allow"));
    let (st, e) = status_json(r).await;
    assert_error(st, &e, 405, "method_not_allowed");
    let r = s.req(Method::PUT, "/v1/documents/x").send().await.unwrap();
    let (st, e) = status_json(r).await;
    assert_error(st, &e, 405, "method_not_allowed");
    s.shutdown().await;
}
