//! Seed 001: the generator down makes /v1/generate and /v1/rag answer 503
//! while /v1/retrieve keeps working; /v1/health says degraded.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::*;
use serde_json::json;

#[tokio::test]
async fn generator_down_is_503_retrieval_still_works() {
    // An Ollama generator on a loopback port where nothing listens.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let s = start(move |c| {
        c.verity.generator = Some("ollama:llama3:8b-instruct".into());
        c.verity.ollama_url = Some(format!("http://127.0.0.1:{port}"));
    })
    .await;
    let (st, out) = s.post("/v1/ingest", json!({"documents": docs(3)})).await;
    assert_eq!(st, 200, "{out}");
    let (st, r) = s
        .post("/v1/retrieve", json!({"query": "routing fees"}))
        .await;
    assert_eq!(st, 200, "{r}");
    assert!(!r["uids"].as_array().unwrap().is_empty());

    let (st, e) = s
        .post("/v1/rag", json!({"question": "How are routing fees set?"}))
        .await;
    assert_error(st, &e, 503, "unavailable");
    assert!(e["transient"].as_bool().unwrap());
    // Streamed, the same failure before the first token is the same 503 (not
    // a 200 carrying an `error` event).
    let r = s
        .req(reqwest::Method::POST, "/v1/rag")
        .header("accept", "text/event-stream")
        .json(&json!({"query": "How are routing fees set?"}))
        .send()
        .await
        .unwrap();
    let (st, e) = status_json(r).await;
    assert_error(st, &e, 503, "unavailable");
    let (st, e) = s
        .post("/v1/generate", json!({"query": "fees?", "context_chunks": [{"uid": "a", "text": "Fees are set per channel."}]}))
        .await;
    assert_error(st, &e, 503, "unavailable");

    let r = s
        .bare(reqwest::Method::GET, "/v1/health")
        .send()
        .await
        .unwrap();
    let (st, h) = status_json(r).await;
    assert_eq!(st, 503, "{h}");
    assert_eq!(h["status"], "degraded");
    assert_eq!(h["services"]["generator"]["status"], "error", "{h}");
    assert!(
        h["services"]["generator"]["message"].as_str().is_some(),
        "{h}"
    );
    assert!(
        h["services"]["generator"]["latency_ms"].as_f64().is_some(),
        "{h}"
    );
    assert_eq!(h["services"]["store"]["status"], "ok", "{h}");
    s.shutdown().await;
}
