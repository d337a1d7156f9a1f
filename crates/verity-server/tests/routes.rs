//! Every /v1 route against a real server with a real HTTP client.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use std::time::Duration;

use common::*;
use reqwest::Method;
use serde_json::json;

#[tokio::test]
async fn ingest_retrieve_documents_stats() {
    let s = start(|_| {}).await;
    let (st, out) = s.post("/v1/ingest", json!({"documents": docs(5)})).await;
    assert_eq!(st, 200, "{out}");
    assert_eq!(out["inserted"], 5, "{out}");
    assert_eq!(out["lexical_only"], true);

    let (st, r) = s
        .post(
            "/v1/retrieve",
            json!({"query": "routing fee rate drained channel", "k": 3}),
        )
        .await;
    assert_eq!(st, 200, "{r}");
    let uids = r["uids"].as_array().unwrap();
    assert_eq!(uids.len(), 3, "{r}");
    assert_eq!(r["scores"].as_array().unwrap().len(), 3);
    assert_eq!(r["sources"].as_array().unwrap().len(), 3);
    assert_eq!(r["hits"].as_array().unwrap().len(), 3);
    assert_eq!(r["hits"][0]["doc"]["uid"], uids[0]);
    assert_eq!(r["mode"], "lexical");

    // Filters: only lnbits documents.
    let (st, r) = s
        .post(
            "/v1/retrieve",
            json!({"query": "routing fees", "sources": ["lnbits"]}),
        )
        .await;
    assert_eq!(st, 200, "{r}");
    assert!(
        r["sources"]
            .as_array()
            .unwrap()
            .iter()
            .all(|x| x == "lnbits"),
        "{r}"
    );

    let (st, d) = s.get("/v1/documents/doc-2").await;
    assert_eq!(st, 200, "{d}");
    assert_eq!(d["uid"], "doc-2");
    assert!(d["content"].as_str().unwrap().contains("channel 2"));

    let (st, stats) = s.get("/v1/stats").await;
    assert_eq!(st, 200, "{stats}");
    assert_eq!(stats["store"]["documents"], 5, "{stats}");

    let r = s
        .req(Method::DELETE, "/v1/documents/doc-2")
        .send()
        .await
        .unwrap();
    let (st, del) = status_json(r).await;
    assert_eq!(st, 200, "{del}");
    assert_eq!(del["deleted"], 1);
    let (st, e) = s.get("/v1/documents/doc-2").await;
    assert_error(st, &e, 404, "not_found");
    let r = s
        .req(Method::DELETE, "/v1/documents/doc-2")
        .send()
        .await
        .unwrap();
    let (st, e) = status_json(r).await;
    assert_error(st, &e, 404, "not_found");
    s.shutdown().await;
}

#[tokio::test]
async fn large_batches_become_jobs_with_progress() {
    let s = start(|c| c.sync_ingest_max = 10).await;
    let r = s
        .req(Method::POST, "/v1/ingest")
        .json(&json!({"documents": docs(300)}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let location = r.headers()["location"].to_str().unwrap().to_string();
    let (_, job) = status_json(r).await;
    assert_eq!(
        location,
        format!("/v1/jobs/{}", job["id"].as_str().unwrap())
    );
    assert!(
        ["queued", "running"].contains(&job["state"].as_str().unwrap()),
        "{job}"
    );
    assert_eq!(job["docs_total"], 300);
    let mut last = json!(null);
    for _ in 0..600 {
        let (st, j) = s.get(&location).await;
        assert_eq!(st, 200, "{j}");
        if j["state"] == "succeeded" || j["state"] == "failed" {
            last = j;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(last["state"], "succeeded", "{last}");
    assert_eq!(last["docs_done"], 300, "{last}");
    assert_eq!(last["outcome"]["inserted"], 300, "{last}");
    let (st, e) = s.get("/v1/jobs/no-such-job").await;
    assert_error(st, &e, 404, "not_found");
    s.shutdown().await;
}

#[tokio::test]
async fn rag_json_and_sse() {
    let s = start(|_| {}).await;
    s.post("/v1/ingest", json!({"documents": docs(4)})).await;
    let q = json!({"question": "How are routing fees set on a channel?"});
    let (st, a) = s.post("/v1/rag", q.clone()).await;
    assert_eq!(st, 200, "{a}");
    assert!(a["text"].as_str().unwrap().contains("[1]"), "{a}");
    assert!(!a["citations"].as_array().unwrap().is_empty(), "{a}");

    let r = s
        .req(Method::POST, "/v1/rag")
        .header("accept", "text/event-stream")
        .json(&json!({"question": "How are routing fees set on a channel?", "no_cache": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    assert_eq!(r.headers()["x-api-version"], VERSION);
    let body = r.text().await.unwrap();
    assert!(body.contains("event: delta"), "{body}");
    let done = body
        .split("\n\n")
        .find(|e| e.contains("event: done"))
        .expect("a done event");
    let data: String = done
        .lines()
        .filter_map(|l| l.strip_prefix("data: ").or_else(|| l.strip_prefix("data:")))
        .collect();
    let answer: serde_json::Value = serde_json::from_str(&data).unwrap();
    assert!(
        !answer["citations"].as_array().unwrap().is_empty(),
        "{answer}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn generate_from_given_context() {
    let s = start(|_| {}).await;
    let (st, g) = s
        .post(
            "/v1/generate",
            json!({
                "query": "How are routing fees set?",
                "context_chunks": [
                    {"uid": "a", "text": "Routing fees are set with a base fee and a proportional fee rate."},
                    {"uid": "b", "text": "Channels are opened with an on-chain transaction."}
                ],
                "params": {"temperature": 0.1}
            }),
        )
        .await;
    assert_eq!(st, 200, "{g}");
    assert!(g["answer"].as_str().unwrap().contains("[1]"), "{g}");
    assert_eq!(g["citations"][0]["doc_uid"], "a", "{g}");
    assert!(g["confidence"].as_f64().unwrap() > 0.0);
    s.shutdown().await;
}

#[tokio::test]
async fn embed_with_the_configured_embedder() {
    let model = verity::embed::LocalEmbedder::default_model_dir();
    if !model.join("model.safetensors").is_file() {
        eprintln!(
            "skipped: local embedding model absent at {} (scripts/fetch-models.sh)",
            model.display()
        );
        return;
    }
    let s = start(|c| c.verity.embedder = Some("local".into())).await;
    let (st, e) = s
        .post("/v1/embed", json!({"texts": ["routing fees", "channel"]}))
        .await;
    assert_eq!(st, 200, "{e}");
    let dim = e["dim"].as_u64().unwrap() as usize;
    assert_eq!(e["embeddings"].as_array().unwrap().len(), 2);
    assert_eq!(e["embeddings"][0].as_array().unwrap().len(), dim);
    let (st, err) = s
        .post("/v1/embed", json!({"texts": ["x"], "model": "other-model"}))
        .await;
    assert_error(st, &err, 400, "invalid_input");
    assert!(err["message"].as_str().unwrap().contains("other-model"));
    s.shutdown().await;
}

#[tokio::test]
async fn embed_without_embedder_is_a_clear_error() {
    let s = start(|_| {}).await;
    let (st, e) = s.post("/v1/embed", json!({"texts": ["x"]})).await;
    assert!(st == 503 || st == 400, "{st} {e}");
    assert!(e["message"].as_str().unwrap().contains("embedder"), "{e}");
    s.shutdown().await;
}

#[tokio::test]
async fn health_metrics_openapi_docs() {
    let s = start(|_| {}).await;
    // Health is public (probes carry no token).
    let r = s.bare(Method::GET, "/v1/health").send().await.unwrap();
    let (st, h) = status_json(r).await;
    assert_eq!(st, 200, "{h}");
    assert_eq!(h["status"], "healthy");
    assert_eq!(h["services"]["store"]["status"], "ok", "{h}");
    assert_eq!(h["services"]["embedder"]["status"], "not_configured", "{h}");
    assert_eq!(h["services"]["generator"]["status"], "ok", "{h}");

    s.post("/v1/ingest", json!({"documents": docs(2)})).await;
    s.post("/v1/retrieve", json!({"query": "routing fees"}))
        .await;
    let r = s.req(Method::GET, "/v1/metrics").send().await.unwrap();
    assert_eq!(r.status(), 200);
    let text = r.text().await.unwrap();
    assert!(text.contains("http_requests_total{"), "{text}");
    assert!(text.contains("route=\"/v1/retrieve\""), "{text}");
    assert!(
        text.contains("http_request_duration_seconds_bucket"),
        "{text}"
    );
    assert!(text.contains("rag_retrieval_latency_ms"), "{text}");
    assert!(text.contains("rag_topk_score_max"), "{text}");
    // Metrics need the token.
    let r = s.bare(Method::GET, "/v1/metrics").send().await.unwrap();
    assert_eq!(r.status(), 401);

    let r = s
        .bare(Method::GET, "/v1/openapi.json")
        .send()
        .await
        .unwrap();
    let (st, doc) = status_json(r).await;
    assert_eq!(st, 200);
    assert_eq!(doc["openapi"], "3.1.0");
    for p in [
        "/v1/ingest",
        "/v1/embed",
        "/v1/retrieve",
        "/v1/generate",
        "/v1/rag",
        "/v1/documents/{uid}",
        "/v1/stats",
        "/v1/jobs/{id}",
        "/v1/health",
        "/v1/metrics",
    ] {
        assert!(doc["paths"][p].is_object(), "{p} missing");
    }
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    assert!(
        schemas.contains_key("SearchRequest"),
        "{:?}",
        schemas.keys()
    );
    // Every $ref resolves.
    let text = doc.to_string();
    for part in text.split("\"$ref\":\"#/components/schemas/").skip(1) {
        let name = part.split('"').next().unwrap();
        assert!(schemas.contains_key(name), "dangling $ref {name}");
    }
    let r = s.bare(Method::GET, "/v1/docs").send().await.unwrap();
    assert_eq!(r.status(), 200);
    let html = r.text().await.unwrap();
    assert!(
        html.contains("openapi.json") && !html.contains("https://cdn"),
        "offline page"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn request_ids_are_echoed_or_made() {
    let s = start(|_| {}).await;
    let r = s
        .req(Method::GET, "/v1/stats")
        .header("x-request-id", "abc-123")
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["x-request-id"], "abc-123");
    let r = s
        .req(Method::GET, "/v1/stats")
        .header("x-request-id", "bad id\twith spaces")
        .send()
        .await
        .unwrap();
    let id = r.headers()["x-request-id"].to_str().unwrap().to_string();
    assert_eq!(id.len(), 36, "{id}");
    s.shutdown().await;
}

#[tokio::test]
async fn shutdown_lets_jobs_finish_and_closes_the_store() {
    let s = start(|c| c.sync_ingest_max = 1).await;
    let r = s
        .req(Method::POST, "/v1/ingest")
        .json(&json!({"documents": docs(200)}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let home = s.home.path().join("store");
    let TestServer {
        running,
        home: _keep,
        ..
    } = s;
    running.unwrap().shutdown().await.unwrap();
    // Reopen the same store: every document of the job is there.
    let v = verity::Verity::open_with(&verity::api::ConfigOverrides {
        home: Some(home.to_string_lossy().into_owned()),
        embedder: Some("none".into()),
        ..Default::default()
    })
    .await
    .unwrap();
    assert_eq!(v.stats().await.unwrap().store.documents, 200);
}
