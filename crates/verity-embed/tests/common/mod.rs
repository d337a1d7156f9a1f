//! In-process fake servers on 127.0.0.1 (random port) speaking the Ollama
//! and OpenAI embedding protocols; each test scripts the replies.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde_json::{json, Value};

/// One request the fake received.
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    pub body: Value,
    pub authorization: Option<String>,
}

/// What the fake answers.
pub struct Reply {
    pub status: u16,
    pub body: String,
    pub delay: Duration,
    pub retry_after: Option<String>,
}

impl Reply {
    pub fn json(status: u16, body: Value) -> Self {
        Self {
            status,
            body: body.to_string(),
            delay: Duration::ZERO,
            retry_after: None,
        }
    }
    pub fn raw(status: u16, body: impl Into<String>) -> Self {
        Self {
            status,
            body: body.into(),
            delay: Duration::ZERO,
            retry_after: None,
        }
    }
    pub fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
    /// Send a `Retry-After` header with this value.
    pub fn retry_after(mut self, value: impl Into<String>) -> Self {
        self.retry_after = Some(value.into());
        self
    }
}

/// `behaviour(call number from 1, request)`.
pub type Behaviour = Arc<dyn Fn(usize, &Seen) -> Reply + Send + Sync>;

#[derive(Clone)]
pub struct Fake {
    behaviour: Behaviour,
    pub calls: Arc<AtomicUsize>,
    pub seen: Arc<Mutex<Vec<Seen>>>,
}

impl Fake {
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

async fn handle(State(fake): State<Fake>, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    let seen = Seen {
        path: uri.path().to_string(),
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        authorization: headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string),
    };
    let n = fake.calls.fetch_add(1, Ordering::SeqCst) + 1;
    fake.seen.lock().unwrap().push(seen.clone());
    let reply = (fake.behaviour)(n, &seen);
    if !reply.delay.is_zero() {
        tokio::time::sleep(reply.delay).await;
    }
    let mut resp = (
        StatusCode::from_u16(reply.status).unwrap(),
        [("content-type", "application/json")],
        reply.body,
    )
        .into_response();
    if let Some(ra) = reply.retry_after {
        resp.headers_mut()
            .insert("retry-after", ra.parse().unwrap());
    }
    resp
}

/// Start a fake answering `/api/embed`, `/api/tags` and `/v1/embeddings`; returns its base URL.
pub async fn start(
    behaviour: impl Fn(usize, &Seen) -> Reply + Send + Sync + 'static,
) -> (String, Fake) {
    let fake = Fake {
        behaviour: Arc::new(behaviour),
        calls: Arc::default(),
        seen: Arc::default(),
    };
    let app = Router::new()
        .route("/api/embed", post(handle))
        .route("/api/tags", get(handle))
        .route("/v1/embeddings", post(handle))
        .with_state(fake.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}"), fake)
}

/// A deterministic vector for `text`: `[len, 1, 0, …]` (so tests can tell texts apart after normalisation).
pub fn vector_for(text: &str, dim: usize) -> Vec<f32> {
    let mut v = vec![0.0; dim];
    v[0] = text.chars().count() as f32;
    v[1] = 1.0;
    v
}

/// The length that [`vector_for`] encoded, read back from a normalised vector.
pub fn decoded_len(v: &[f32]) -> f32 {
    (v[0] / v[1]).round()
}

/// The `input` array of a request.
pub fn inputs(seen: &Seen) -> Vec<String> {
    seen.body["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

/// A successful Ollama `/api/embed` body for the request.
pub fn ollama_ok(seen: &Seen, dim: usize) -> Reply {
    let embeddings: Vec<Vec<f32>> = inputs(seen).iter().map(|t| vector_for(t, dim)).collect();
    Reply::json(
        200,
        json!({"model": seen.body["model"], "embeddings": embeddings, "total_duration": 1000, "load_duration": 10, "prompt_eval_count": 3}),
    )
}

/// A successful OpenAI `/v1/embeddings` body for the request (items in reverse order).
pub fn openai_ok(seen: &Seen, dim: usize) -> Reply {
    let mut data: Vec<Value> = inputs(seen)
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"object": "embedding", "index": i, "embedding": vector_for(t, dim)}))
        .collect();
    data.reverse();
    Reply::json(
        200,
        json!({"object": "list", "data": data, "model": seen.body["model"], "usage": {"prompt_tokens": 5, "total_tokens": 5}}),
    )
}

/// A port on 127.0.0.1 where nothing listens.
pub async fn closed_port() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{addr}")
}

/// A server that accepts connections, reads the request and closes without answering.
pub async fn dropping_server() -> (String, Arc<AtomicUsize>) {
    use tokio::io::AsyncReadExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let counter = accepted.clone();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            let mut buf = [0u8; 4096];
            let _ = tokio::time::timeout(Duration::from_millis(200), sock.read(&mut buf)).await;
            drop(sock);
        }
    });
    (format!("http://{addr}"), accepted)
}
