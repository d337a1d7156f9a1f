//! Event memory routes (seed 004, MnemoLite-compatible) against a real
//! server with a real HTTP client: the seed's examples, its status codes and
//! FastAPI-style 422 bodies; on SQLite, and on Redis when it is installed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use common::*;
use reqwest::Method;
use serde_json::{json, Value};

/// A MnemoLite client: no `X-API-Version`, only the bearer token.
async fn call(s: &TestServer, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut r = s.bare(method, path).bearer_auth(TOKEN);
    if let Some(b) = body {
        r = r.json(&b);
    }
    let resp = r.send().await.unwrap();
    if resp.status().as_u16() == 204 {
        return (204, Value::Null);
    }
    status_json(resp).await
}

/// `path?query` with the pairs form-encoded.
fn with_query(path: &str, query: &[(&str, &str)]) -> String {
    let q = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(query)
        .finish();
    format!("{path}?{q}")
}

async fn search(s: &TestServer, query: &[(&str, &str)]) -> (u16, Value) {
    let resp = s
        .bare(Method::GET, &with_query("/v1/search/", query))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    status_json(resp).await
}

/// A unit-ish 4-d vector pointing mostly along axis `i`.
fn axis(i: usize) -> Value {
    let mut v = vec![0.05; 4];
    v[i] = 1.0;
    json!(v)
}

/// One 422 issue at `loc`.
fn assert_422(status: u16, body: &Value, loc: &[&str]) {
    assert_eq!(status, 422, "{body}");
    let d = &body["detail"][0];
    assert_eq!(d["loc"], json!(loc), "{body}");
    assert!(d["msg"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
    assert!(d["type"].is_string(), "{body}");
    assert_eq!(body["code"], "invalid_input", "{body}");
}

/// The whole MnemoLite flow on one server.
async fn mnemolite_flow(s: &TestServer) {
    // Seed example: a prompt event, no embedder on the test server → stored, said so.
    let (st, ev) = call(
        s,
        Method::POST,
        "/v1/events",
        Some(json!({
            "content": {"type": "prompt", "role": "user", "text": "Explique X."},
            "metadata": {"event_type": "user_interaction", "session_id": "xyz"}
        })),
    )
    .await;
    assert_eq!(st, 201, "{ev}");
    let prompt_id = ev["id"].as_str().unwrap().to_string();
    assert_eq!(ev["content"]["text"], "Explique X.");
    assert_eq!(ev["metadata"]["session_id"], "xyz");
    assert!(ev["timestamp"].as_str().unwrap().contains('T'), "{ev}");

    // Events with caller-supplied vectors (the embedding bypasses auto-embedding).
    let mut ids = Vec::new();
    for (i, (kind, ts)) in [
        ("decision", "2025-03-01T10:00:00Z"),
        ("decision", "2025-03-05T10:00:00+02:00"),
        ("observation", "2025-04-01T10:00:00Z"),
    ]
    .iter()
    .enumerate()
    {
        let (st, ev) = call(
            s,
            Method::POST,
            "/v1/events/",
            Some(json!({
                "content": {"text": format!("event {i}")},
                "metadata": {"event_type": kind, "rule_id": "M-UpdateLogic", "tags": ["a", "b"]},
                "embedding": axis(i),
                "timestamp": ts,
            })),
        )
        .await;
        assert_eq!(st, 201, "{ev}");
        assert_eq!(ev["embedding"].as_array().unwrap().len(), 4);
        ids.push(ev["id"].as_str().unwrap().to_string());
    }

    let (st, got) = call(s, Method::GET, &format!("/v1/events/{}", ids[0]), None).await;
    assert_eq!(st, 200, "{got}");
    assert_eq!(got["metadata"]["event_type"], "decision");

    // Seed example filter: metadata containment (nested arrays too) + time.
    let (st, r) = search(
        s,
        &[
            (
                "filter_metadata",
                r#"{"event_type": "decision", "rule_id": "M-UpdateLogic"}"#,
            ),
            ("ts_start", "2025-01-01T00:00:00Z"),
        ],
    )
    .await;
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["data"].as_array().unwrap().len(), 2, "{r}");
    assert_eq!(r["meta"]["total_hits"], 2, "{r}");
    assert_eq!(r["meta"]["limit"], 10);
    assert_eq!(r["meta"]["offset"], 0);
    // Newest first without a vector query.
    assert_eq!(r["data"][0]["id"], ids[1].as_str(), "{r}");
    let (st, r) = search(s, &[("filter_metadata", r#"{"tags": ["b"]}"#)]).await;
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["data"].as_array().unwrap().len(), 3, "{r}");
    let (st, r) = search(
        s,
        &[
            ("filter_metadata", r#"{"event_type": "decision"}"#),
            ("ts_end", "2025-03-03T00:00:00Z"),
        ],
    )
    .await;
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["data"].as_array().unwrap().len(), 1, "{r}");
    assert_eq!(r["data"][0]["id"], ids[0].as_str());

    // Vector query as a JSON string; the nearest first, with its L2 distance.
    let (st, r) = search(s, &[("vector_query", "[1, 0.05, 0.05, 0.05]")]).await;
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["data"][0]["id"], ids[0].as_str(), "{r}");
    let d0 = r["data"][0]["similarity_score"].as_f64().unwrap();
    assert!(d0 < 0.01, "{r}");
    // A strict threshold with nothing that close falls back to the top-K (pure vector search).
    let (st, r) = search(
        s,
        &[
            ("vector_query", "[-1, 0, 0, 0]"),
            ("distance_threshold", "0.1"),
            ("limit", "2"),
        ],
    )
    .await;
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["data"].as_array().unwrap().len(), 2, "{r}");
    assert_eq!(r["meta"]["threshold_fallback"], true, "{r}");
    // Pagination.
    let (st, r) = search(
        s,
        &[
            ("vector_query", "[1, 0.05, 0.05, 0.05]"),
            ("distance_threshold", "2"),
            ("limit", "1"),
            ("offset", "1"),
        ],
    )
    .await;
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["data"].as_array().unwrap().len(), 1, "{r}");
    assert_ne!(r["data"][0]["id"], ids[0].as_str(), "{r}");
    assert_eq!(r["meta"]["offset"], 1);
    // Without the trailing slash too; a text query without embedder runs lexical, said so.
    let resp = s
        .bare(
            Method::GET,
            &with_query("/v1/search", &[("vector_query", "Explique")]),
        )
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    let (st, r) = status_json(resp).await;
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["data"][0]["id"], prompt_id.as_str(), "{r}");
    assert_eq!(r["meta"]["mode"], "lexical", "{r}");
    assert!(!r["meta"]["notes"].as_array().unwrap().is_empty(), "{r}");

    // PATCH merges: keys added or replaced, others kept.
    let (st, ev) = call(
        s,
        Method::PATCH,
        &format!("/v1/events/{}/metadata", ids[0]),
        Some(json!({"tag": "corrected", "reviewed": true, "event_type": "decision-v2"})),
    )
    .await;
    assert_eq!(st, 200, "{ev}");
    assert_eq!(ev["metadata"]["tag"], "corrected");
    assert_eq!(ev["metadata"]["event_type"], "decision-v2");
    assert_eq!(ev["metadata"]["rule_id"], "M-UpdateLogic");

    // DELETE: 204, then 404 with a `detail` string.
    let (st, _) = call(s, Method::DELETE, &format!("/v1/events/{}", ids[2]), None).await;
    assert_eq!(st, 204);
    let (st, body) = call(s, Method::GET, &format!("/v1/events/{}", ids[2]), None).await;
    assert_eq!(st, 404, "{body}");
    assert!(
        body["detail"].as_str().unwrap().contains("not found"),
        "{body}"
    );
    assert_eq!(body["code"], "not_found");
    let (st, body) = call(s, Method::DELETE, &format!("/v1/events/{}", ids[2]), None).await;
    assert_eq!(st, 404, "{body}");
    let (st, body) = call(
        s,
        Method::PATCH,
        &format!("/v1/events/{}/metadata", ids[2]),
        Some(json!({"a": 1})),
    )
    .await;
    assert_eq!(st, 404, "{body}");
}

#[tokio::test]
async fn mnemolite_client_flow_on_sqlite() {
    let s = start(|_| {}).await;
    mnemolite_flow(&s).await;
    s.shutdown().await;
}

#[tokio::test]
async fn mnemolite_client_flow_on_redis() {
    let Some(redis) =
        verity::redis::server::RedisServer::start_or_skip("mnemolite_client_flow_on_redis", &[])
    else {
        return;
    };
    let url = redis.url();
    let s = start(move |c| c.verity.redis_url = Some(url)).await;
    mnemolite_flow(&s).await;
    s.shutdown().await;
}

#[tokio::test]
async fn validation_errors_are_fastapi_422s_and_write_nothing() {
    let s = start(|_| {}).await;
    let post = |body: Value| call(&s, Method::POST, "/v1/events", Some(body));

    let (st, b) = post(json!({"metadata": {}})).await;
    assert_422(st, &b, &["body", "content"]);
    assert_eq!(b["detail"][0]["type"], "missing");
    let (st, b) = post(json!({"content": "not an object"})).await;
    assert_422(st, &b, &["body", "content"]);
    let (st, b) = post(json!({"content": {"text": "x"}, "timestamp": "2025-01-01T10:00:00"})).await;
    assert_422(st, &b, &["body", "timestamp"]);
    let (st, b) = post(json!({"content": {"text": "x"}, "embedding": [1.0, "NaN"]})).await;
    assert_422(st, &b, &["body", "embedding"]);
    // The vector check's own words, as the bindings give for a NaN float.
    assert!(
        b["detail"][0]["msg"]
            .as_str()
            .is_some_and(|m| m.contains("element 1 is NaN or infinite")),
        "{b}"
    );
    let (st, b) = post(json!({"content": {"text": "x"}, "embedding": [1.0, "x"]})).await;
    assert_422(st, &b, &["body", "embedding"]);
    // The first vector fixes the dimension; another dimension is refused.
    let (st, b) = post(json!({"content": {"text": "x"}, "embedding": [1.0, 0.0]})).await;
    assert_eq!(st, 201, "{b}");
    let (st, b) = post(json!({"content": {"text": "y"}, "embedding": [1.0, 0.0, 0.0]})).await;
    assert_422(st, &b, &["body", "embedding"]);
    let huge = "x".repeat(300 * 1024);
    let (st, b) = post(json!({"content": {"text": huge}})).await;
    assert!(st == 422 || st == 413, "{st} {b}");
    // Malformed JSON.
    let resp = s
        .bare(Method::POST, "/v1/events")
        .bearer_auth(TOKEN)
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    let (st, b) = status_json(resp).await;
    assert_422(st, &b, &["body"]);
    assert_eq!(b["detail"][0]["type"], "json_invalid");

    // Content without any text field and no embedding: stored, said so, found by metadata.
    let resp = s
        .bare(Method::POST, "/v1/events")
        .bearer_auth(TOKEN)
        .json(&json!({"content": {"score": 3}, "metadata": {"k": "no-text"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 201);
    assert!(resp.headers().get("x-verity-note").is_some());
    let (st, r) = search(&s, &[("filter_metadata", r#"{"k": "no-text"}"#)]).await;
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["data"].as_array().unwrap().len(), 1, "{r}");

    // Path ids.
    let (st, b) = call(&s, Method::GET, "/v1/events/not-a-uuid", None).await;
    assert_422(st, &b, &["path", "id"]);
    assert_eq!(b["detail"][0]["type"], "uuid_parsing");
    let (st, b) = call(&s, Method::DELETE, "/v1/events/123", None).await;
    assert_422(st, &b, &["path", "id"]);
    let (st, b) = call(
        &s,
        Method::PATCH,
        &format!("/v1/events/{}/metadata", uuid::Uuid::new_v4()),
        Some(json!([1, 2])),
    )
    .await;
    assert_422(st, &b, &["body"]);

    // Query parameters.
    for (q, field) in [
        (("filter_metadata", "{bad json"), "filter_metadata"),
        (("filter_metadata", "[1]"), "filter_metadata"),
        (("limit", "0"), "limit"),
        (("limit", "101"), "limit"),
        (("limit", "ten"), "limit"),
        (("offset", "-1"), "offset"),
        (("distance_threshold", "2.5"), "distance_threshold"),
        (("ts_start", "2025-01-01T10:00:00"), "ts_start"),
        (("vector_query", "[0.1, \"x\"]"), "vector_query"),
        (("vector_query", "[1, 0, 0, 0, 0]"), "vector_query"),
    ] {
        let (st, b) = search(&s, &[q]).await;
        assert_422(st, &b, &["query", field]);
    }

    // Nothing half-written: only the two valid events exist.
    let (st, r) = search(&s, &[("limit", "100")]).await;
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["meta"]["total_hits"], 2, "{r}");
    s.shutdown().await;
}

#[tokio::test]
async fn api_version_is_optional_but_checked_when_sent() {
    let s = start(|_| {}).await;
    // No header: fine (MnemoLite clients).
    let (st, r) = search(&s, &[]).await;
    assert_eq!(st, 200, "{r}");
    // The supported one: echoed.
    let resp = s.req(Method::GET, "/v1/search/").send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(resp.headers()["x-api-version"], VERSION);
    // An unknown one: refused like on every data route.
    let resp = s
        .bare(Method::GET, "/v1/search/")
        .bearer_auth(TOKEN)
        .header("x-api-version", "1999-01-01")
        .send()
        .await
        .unwrap();
    let (st, b) = status_json(resp).await;
    assert_error(st, &b, 400, "unsupported_api_version");
    // Authentication still applies.
    let resp = s.bare(Method::GET, "/v1/search/").send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 401);
    s.shutdown().await;
}

#[tokio::test]
async fn openapi_documents_the_event_routes() {
    let s = start(|_| {}).await;
    let (st, doc) = s.get("/v1/openapi.json").await;
    assert_eq!(st, 200);
    let paths = &doc["paths"];
    assert!(
        paths["/v1/events"]["post"]["responses"]["201"].is_object(),
        "{paths}"
    );
    assert!(paths["/v1/events/{id}"]["get"].is_object());
    assert!(paths["/v1/events/{id}"]["delete"]["responses"]["204"].is_object());
    assert!(paths["/v1/events/{id}/metadata"]["patch"].is_object());
    let params = paths["/v1/search/"]["get"]["parameters"]
        .as_array()
        .unwrap();
    let names: Vec<&str> = params.iter().filter_map(|p| p["name"].as_str()).collect();
    for n in [
        "vector_query",
        "filter_metadata",
        "ts_start",
        "ts_end",
        "distance_threshold",
        "limit",
        "offset",
    ] {
        assert!(names.contains(&n), "{names:?}");
    }
    // MnemoLite clients send no X-API-Version: documented optional (checked when sent).
    let version = params
        .iter()
        .find(|p| p["name"] == "X-API-Version")
        .unwrap_or_else(|| panic!("{names:?}"));
    assert_eq!(version["required"], false, "{version}");
    s.shutdown().await;
}

#[tokio::test]
async fn health_reports_the_event_memory() {
    let s = start(|_| {}).await;
    let r = s.bare(Method::GET, "/v1/health").send().await.unwrap();
    let (st, h) = status_json(r).await;
    assert_eq!(st, 200, "{h}");
    let m = &h["services"]["memory"];
    assert_eq!(m["status"], "ok", "{h}");
    let detail = m["detail"].as_str().unwrap();
    assert!(detail.starts_with("sqlite event store"), "{detail}");
    assert!(detail.contains("no vectors yet"), "{detail}");
    assert!(detail.contains("auto-embedding off"), "{detail}");
    assert!(m["latency_ms"].as_f64().unwrap() >= 0.0, "{h}");

    // Once a vector is stored, health names its dimension.
    let (st, b) = call(
        &s,
        Method::POST,
        "/v1/events",
        Some(json!({"content": {"text": "probe"}, "embedding": axis(0)})),
    )
    .await;
    assert_eq!(st, 201, "{b}");
    let (_, h) = status_json(s.bare(Method::GET, "/v1/health").send().await.unwrap()).await;
    let detail = h["services"]["memory"]["detail"].as_str().unwrap();
    assert!(detail.contains("vectors of dimension 4"), "{h}");
    s.shutdown().await;
}
