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
    assert_eq!(h["services"]["generator"]["status"], "down", "{h}");
    assert_eq!(h["services"]["store"]["status"], "up", "{h}");
    s.shutdown().await;
}
