//! A loopback OpenAI-compatible embeddings server that answers at once, for
//! measuring what Verity's own ingest path costs when the embedder is fast
//! (a GPU server: Ollama, TEI, vLLM). `POST /v1/embeddings` returns one
//! vector per input, computed from the text alone (hashed word features, so
//! the same text always gets the same vector and dense retrieval means
//! something), in reverse order with their `index`, as servers may.
//!
//! ```text
//! cargo run --release -p verity-embed --example fake_openai_server -- [PORT] [DIM] [DELAY_MS]
//! ```
//!
//! Prints `http://127.0.0.1:PORT` on its first line, then serves until
//! killed. Every answer also counts requests and texts (`GET /stats`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};

#[derive(Default)]
struct Counters {
    requests: AtomicU64,
    texts: AtomicU64,
}

#[derive(Clone)]
struct App {
    dim: usize,
    delay: Duration,
    counters: Arc<Counters>,
}

/// FNV-1a, 64 bits.
fn fnv(bytes: &[u8], seed: u64) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ seed;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Hashed bag of lower-cased words (two signed features per word), plus a
/// constant feature so that no text maps to the zero vector.
fn vector_for(text: &str, dim: usize) -> Vec<f32> {
    let mut v = vec![0.0f32; dim];
    if let Some(first) = v.first_mut() {
        *first = 0.05;
    }
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let w = word.to_lowercase();
        for seed in [0u64, 0x9e37_79b9] {
            let h = fnv(w.as_bytes(), seed);
            let slot = (h % dim as u64) as usize;
            let sign = if (h >> 63) == 0 { 1.0 } else { -1.0 };
            if let Some(x) = v.get_mut(slot) {
                *x += sign;
            }
        }
    }
    v
}

async fn embeddings(State(app): State<App>, Json(body): Json<Value>) -> Json<Value> {
    if !app.delay.is_zero() {
        tokio::time::sleep(app.delay).await;
    }
    let inputs: Vec<String> = match &body["input"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a
            .iter()
            .map(|x| x.as_str().unwrap_or_default().to_string())
            .collect(),
        _ => Vec::new(),
    };
    app.counters.requests.fetch_add(1, Ordering::Relaxed);
    app.counters
        .texts
        .fetch_add(inputs.len() as u64, Ordering::Relaxed);
    let mut data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"object": "embedding", "index": i, "embedding": vector_for(t, app.dim)}))
        .collect();
    data.reverse();
    let tokens: usize = inputs.iter().map(|t| t.split_whitespace().count()).sum();
    Json(json!({
        "object": "list",
        "data": data,
        "model": body["model"],
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens}
    }))
}

async fn stats(State(app): State<App>) -> Json<Value> {
    Json(json!({
        "requests": app.counters.requests.load(Ordering::Relaxed),
        "texts": app.counters.texts.load(Ordering::Relaxed),
    }))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let port: u16 = args.next().and_then(|a| a.parse().ok()).unwrap_or(0);
    let dim: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(384);
    let delay_ms: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(0);
    let app = App {
        dim: dim.max(2),
        delay: Duration::from_millis(delay_ms),
        counters: Arc::default(),
    };
    let router = Router::new()
        .route("/v1/embeddings", post(embeddings))
        .route("/stats", get(stats))
        .with_state(app);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    println!("http://{}", listener.local_addr()?);
    axum::serve(listener, router).await?;
    Ok(())
}
