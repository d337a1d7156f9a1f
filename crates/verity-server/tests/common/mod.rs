//! A real server on a free loopback port, and a real HTTP client.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use reqwest::{Method, RequestBuilder};
use serde_json::{json, Value};
use verity::api::ConfigOverrides;
use verity_server::{RunningServer, Server, ServerConfig};

/// The bearer token of test servers.
pub const TOKEN: &str = "test-token-0123456789abcdef";
/// The API version header value.
pub const VERSION: &str = "2025-10-15";

pub struct TestServer {
    pub url: String,
    pub client: reqwest::Client,
    pub running: Option<RunningServer>,
    pub home: tempfile::TempDir,
}

/// Config of a test server: loopback port 0, one token, lexical-only store
/// in a temp dir, extractive generator, a generous rate limit.
pub fn config(home: &std::path::Path) -> ServerConfig {
    ServerConfig {
        addr: "127.0.0.1:0".parse().unwrap(),
        tokens: vec![TOKEN.into()],
        rate_limit: verity_server::config::RateLimitConfig {
            per_second: 10_000,
            burst: 10_000,
            ..Default::default()
        },
        verity: ConfigOverrides {
            home: Some(home.join("store").to_string_lossy().into_owned()),
            embedder: Some("none".into()),
            generator: Some("extractive".into()),
            // BM25 scores on a two-document store sit far below the default
            // evidence floor, which is calibrated on real corpora.
            min_relevance: Some(0.0),
            ..ConfigOverrides::default()
        },
        ..ServerConfig::default()
    }
}

pub async fn start(edit: impl FnOnce(&mut ServerConfig)) -> TestServer {
    let home = tempfile::tempdir().unwrap();
    let mut c = config(home.path());
    edit(&mut c);
    let server = Server::open(c).await.expect("server opens");
    let running = server.start().await.unwrap();
    TestServer {
        url: format!("http://{}", running.addr),
        client: reqwest::Client::new(),
        running: Some(running),
        home,
    }
}

/// A test server whose watch is configured with `watch` (SearXNG, private
/// addresses for the loopback fakes, a rules file, …) before it starts.
pub async fn start_watch(watch: verity::watch::WatchConfig) -> TestServer {
    let home = tempfile::tempdir().unwrap();
    let server = Server::open(config(home.path())).await.unwrap();
    server.verity().configure_watch(watch).unwrap();
    let running = server.start().await.unwrap();
    TestServer {
        url: format!("http://{}", running.addr),
        client: reqwest::Client::new(),
        running: Some(running),
        home,
    }
}

impl TestServer {
    /// A request with the token and the version header.
    pub fn req(&self, method: Method, path: &str) -> RequestBuilder {
        self.client
            .request(method, format!("{}{path}", self.url))
            .bearer_auth(TOKEN)
            .header("x-api-version", VERSION)
    }

    /// A request with no header added.
    pub fn bare(&self, method: Method, path: &str) -> RequestBuilder {
        self.client.request(method, format!("{}{path}", self.url))
    }

    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let r = self
            .req(Method::POST, path)
            .json(&body)
            .send()
            .await
            .unwrap();
        status_json(r).await
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        let r = self.req(Method::GET, path).send().await.unwrap();
        status_json(r).await
    }

    pub async fn shutdown(mut self) {
        if let Some(r) = self.running.take() {
            r.shutdown().await.unwrap();
        }
    }
}

/// Status and JSON body; panics when the body is not JSON.
pub async fn status_json(r: reqwest::Response) -> (u16, Value) {
    let status = r.status().as_u16();
    let ct = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let text = r.text().await.unwrap();
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!("status {status}: body is not JSON ({e}; content-type {ct}): {text}")
    });
    (status, v)
}

/// Assert an error response: status, JSON `{code, message}` with a message.
pub fn assert_error(status: u16, body: &Value, want_status: u16, want_code: &str) {
    assert_eq!(status, want_status, "{body}");
    assert_eq!(body["code"], want_code, "{body}");
    let msg = body["message"].as_str().unwrap_or_default();
    assert!(msg.len() > 10, "message should say what to fix: {body}");
}

/// Seed-001 documents about Lightning routing.
pub fn docs(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            json!({
                "uid": format!("doc-{i}"),
                "source": if i % 2 == 0 { "amboss" } else { "lnbits" },
                "lang": "en",
                "title": format!("Routing note {i}"),
                "content": format!(
                    "Routing fees on channel {i} are set with a base fee and a fee rate in parts per million. \
                     Node operators raise the fee rate when the channel is drained, lower it to attract flow. \
                     Rebalancing costs depend on the path length {i}."
                ),
                "tags": ["lightning", "fees"],
            })
        })
        .collect()
}
