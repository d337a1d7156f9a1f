//! OllamaGenerator against an in-process fake Ollama server speaking `/api/chat` (NDJSON) and `/api/tags`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use crate::common;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use common::{dead_url, kind, paced_body, serve};
use futures::StreamExt;
use serde_json::{json, Value};
use verity_core::{
    ChatMessage, ChatRequest, FinishReason, Generator, ProviderErrorKind, RetryPolicy,
};
use verity_llm::OllamaGenerator;

#[derive(Default)]
struct Fake {
    bodies: Mutex<Vec<Value>>,
    busy_calls: AtomicU32,
    boom_calls: AtomicU32,
}

const PAUSE: Duration = Duration::from_millis(15);

fn line(v: Value) -> String {
    format!("{v}\n")
}

fn token(model: &str, t: &str) -> String {
    line(
        json!({"model": model, "created_at": "2026-11-22T10:00:00Z", "message": {"role": "assistant", "content": t}, "done": false}),
    )
}

fn done(model: &str) -> String {
    line(json!({
        "model": model, "created_at": "2026-11-22T10:00:01Z",
        "message": {"role": "assistant", "content": ""},
        "done": true, "done_reason": "stop",
        "total_duration": 1_000_000, "load_duration": 1000, "prompt_eval_count": 26, "prompt_eval_duration": 1000,
        "eval_count": 4, "eval_duration": 1000
    }))
}

fn ndjson(body: axum::body::Body) -> Response {
    ([("content-type", "application/x-ndjson")], body).into_response()
}

fn not_found(model: &str) -> Response {
    (
        StatusCode::NOT_FOUND,
        Json(json!({"error": format!("model \"{model}\" not found, try pulling it first")})),
    )
        .into_response()
}

async fn chat(State(st): State<Arc<Fake>>, Json(body): Json<Value>) -> Response {
    st.bodies.lock().unwrap().push(body.clone());
    let model = body["model"].as_str().unwrap_or("").to_string();
    let stream = body["stream"].as_bool().unwrap_or(true);
    let m = model.as_str();
    let words = ["Hel", "lo", " wor", "ld"];
    match m {
        "good:1b" | "busy:1b" | "boom:1b" => {
            if m == "busy:1b" && st.busy_calls.fetch_add(1, Ordering::SeqCst) == 0 {
                return (
                    StatusCode::TOO_MANY_REQUESTS,
                    [("retry-after", "1")],
                    Json(json!({"error": "server busy"})),
                )
                    .into_response();
            }
            if m == "boom:1b" {
                st.boom_calls.fetch_add(1, Ordering::SeqCst);
                return (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    Json(json!({"error": "llama runner process has terminated"})),
                )
                    .into_response();
            }
            if body["messages"].as_array().is_some_and(|a| a.is_empty()) {
                // Load request.
                return Json(json!({"model": m, "created_at": "2026-11-22T10:00:00Z", "message": {"role": "assistant", "content": ""}, "done_reason": "load", "done": true})).into_response();
            }
            if stream {
                let mut chunks: Vec<String> = words.iter().map(|w| token(m, w)).collect();
                // One chunk carrying two lines, one line split across two chunks.
                let last = done(m);
                let (a, b) = last.split_at(20);
                chunks.push(a.to_string());
                chunks.push(b.to_string());
                ndjson(paced_body(chunks, PAUSE, false))
            } else {
                Json(json!({
                    "model": m, "created_at": "2026-11-22T10:00:01Z",
                    "message": {"role": "assistant", "content": "Hello world"},
                    "done": true, "done_reason": "stop", "prompt_eval_count": 26, "eval_count": 4
                }))
                .into_response()
            }
        }
        "long:1b" => Json(json!({
            "model": m, "message": {"role": "assistant", "content": "Hello"},
            "done": true, "done_reason": "length", "prompt_eval_count": 26, "eval_count": 1
        }))
        .into_response(),
        "slow:1b" => {
            tokio::time::sleep(Duration::from_secs(3)).await;
            ndjson(paced_body(vec![token(m, "late"), done(m)], PAUSE, false))
        }
        "stall:1b" => ndjson(
            paced_body(
                vec![token(m, "Hel"), token(m, "lo")],
                Duration::from_millis(50),
                false,
            )
            .into_data_stream()
            .chain(futures::stream::pending())
            .into_body(),
        ),
        "truncated:1b" => ndjson(paced_body(
            vec![token(m, "Hel"), token(m, "lo")],
            PAUSE,
            false,
        )),
        "dropped:1b" => ndjson(paced_body(
            vec![token(m, "Hel"), token(m, "lo")],
            PAUSE,
            true,
        )),
        "malformed:1b" => ndjson(paced_body(
            vec![token(m, "Hel"), "{\"message\": oops\n".into(), done(m)],
            PAUSE,
            false,
        )),
        "errline:1b" => ndjson(paced_body(
            vec![
                token(m, "Hel"),
                line(
                    json!({"error": "an error was encountered while running the model: unexpected EOF"}),
                ),
            ],
            PAUSE,
            false,
        )),
        _ => not_found(m),
    }
}

async fn tags() -> Json<Value> {
    Json(json!({"models": [
        {"name": "good:1b", "model": "good:1b", "modified_at": "2026-11-01T00:00:00Z", "size": 1, "digest": "abc", "details": {}},
        {"name": "llama3:latest", "model": "llama3:latest", "modified_at": "2026-11-01T00:00:00Z", "size": 1, "digest": "def", "details": {}}
    ]}))
}

trait IntoBody {
    fn into_body(self) -> axum::body::Body;
}
impl<S> IntoBody for S
where
    S: futures::Stream<Item = Result<axum::body::Bytes, axum::Error>> + Send + 'static,
{
    fn into_body(self) -> axum::body::Body {
        axum::body::Body::from_stream(self)
    }
}

async fn fake() -> (String, Arc<Fake>) {
    let st = Arc::new(Fake::default());
    let app = Router::new()
        .route("/api/chat", post(chat))
        .route("/api/tags", get(tags))
        .with_state(st.clone());
    (serve(app).await, st)
}

fn gen(base: &str, model: &str) -> OllamaGenerator {
    OllamaGenerator::builder(model)
        .base_url(base)
        .retry(RetryPolicy::new(
            3,
            Duration::from_millis(10),
            Duration::from_millis(50),
        ))
        .first_token_timeout(Duration::from_millis(500))
        .total_timeout(Duration::from_secs(5))
        .build()
        .unwrap()
}

fn req() -> ChatRequest {
    ChatRequest::new(vec![
        ChatMessage::system("Answer briefly."),
        ChatMessage::user("Say hello world"),
    ])
}

async fn collect(g: &OllamaGenerator) -> (Vec<String>, Option<verity_core::Error>) {
    let mut s = g.stream(&req()).await.unwrap();
    let mut out = Vec::new();
    while let Some(item) = s.next().await {
        match item {
            Ok(t) => out.push(t),
            Err(e) => {
                assert!(s.next().await.is_none(), "nothing after an error");
                return (out, Some(e));
            }
        }
    }
    (out, None)
}

#[tokio::test]
async fn non_streaming_text_usage_and_body() {
    let (base, st) = fake().await;
    let g = gen(&base, "good:1b");
    let out = g.generate(&req()).await.unwrap();
    assert_eq!(out.text, "Hello world");
    assert_eq!(out.model, "good:1b");
    assert_eq!(out.finish_reason, FinishReason::Stop);
    assert_eq!(out.usage.prompt_tokens, Some(26));
    assert_eq!(out.usage.completion_tokens, Some(4));
    let body = st.bodies.lock().unwrap().last().cloned().unwrap();
    assert_eq!(
        body,
        json!({
            "model": "good:1b",
            "messages": [{"role": "system", "content": "Answer briefly."}, {"role": "user", "content": "Say hello world"}],
            "stream": false,
            "options": {"temperature": 0.2, "top_p": 0.9, "num_ctx": 8192, "num_predict": 1536},
            "keep_alive": "5m"
        })
    );
}

#[tokio::test]
async fn request_body_carries_stop_seed_and_keep_alive() {
    let (base, st) = fake().await;
    let g = OllamaGenerator::builder("good:1b")
        .base_url(&base)
        .keep_alive_forever()
        .build()
        .unwrap();
    let mut r = req();
    r.params.stop = vec!["\n\n".into()];
    r.params.seed = Some(42);
    r.params.max_tokens = 64;
    r.params.temperature = 0.0;
    let mut s = g.stream(&r).await.unwrap();
    while s.next().await.is_some() {}
    let body = st.bodies.lock().unwrap().last().cloned().unwrap();
    assert_eq!(body["stream"], json!(true));
    assert_eq!(body["keep_alive"], json!(-1));
    assert_eq!(
        body["options"],
        json!({"temperature": 0.0, "top_p": 0.9, "num_ctx": 8192, "num_predict": 64, "stop": ["\n\n"], "seed": 42})
    );
    assert_eq!(g.request_body(&r, true), body);
}

#[tokio::test]
async fn long_answer_reports_length() {
    let (base, _) = fake().await;
    let out = gen(&base, "long:1b").generate(&req()).await.unwrap();
    assert_eq!(out.finish_reason, FinishReason::Length);
}

#[tokio::test]
async fn streaming_yields_every_chunk() {
    let (base, _) = fake().await;
    let (pieces, err) = collect(&gen(&base, "good:1b")).await;
    assert!(err.is_none(), "{err:?}");
    assert_eq!(pieces, vec!["Hel", "lo", " wor", "ld"]);
}

#[tokio::test]
async fn model_not_found_is_typed_and_not_retried() {
    let (base, st) = fake().await;
    let g = gen(&base, "missing:7b");
    let e = g.generate(&req()).await.unwrap_err();
    assert_eq!(kind(&e), ProviderErrorKind::ModelNotFound);
    assert!(
        e.to_string().contains("model \"missing:7b\" not found"),
        "{e}"
    );
    assert!(e.to_string().contains("ollama pull missing:7b"), "{e}");
    assert_eq!(
        st.bodies.lock().unwrap().len(),
        1,
        "permanent errors are not retried"
    );
    let e = g.stream(&req()).await.err().unwrap();
    assert_eq!(kind(&e), ProviderErrorKind::ModelNotFound);
    let e = g.health().await.unwrap_err();
    assert_eq!(kind(&e), ProviderErrorKind::ModelNotFound);
}

#[tokio::test]
async fn server_error_is_unavailable_after_retries() {
    let (base, st) = fake().await;
    let e = gen(&base, "boom:1b").generate(&req()).await.unwrap_err();
    assert_eq!(kind(&e), ProviderErrorKind::Unavailable);
    assert!(e.to_string().contains("HTTP 500"), "{e}");
    assert!(
        e.to_string()
            .contains("llama runner process has terminated"),
        "{e}"
    );
    assert_eq!(st.boom_calls.load(Ordering::SeqCst), 3, "3 attempts");
    assert!(e.is_transient());
}

#[tokio::test]
async fn rate_limit_is_retried_after_retry_after() {
    let (base, st) = fake().await;
    let t = Instant::now();
    let out = gen(&base, "busy:1b").generate(&req()).await.unwrap();
    assert_eq!(out.text, "Hello world");
    assert_eq!(st.busy_calls.load(Ordering::SeqCst), 2);
    assert!(
        t.elapsed() >= Duration::from_millis(950),
        "Retry-After: 1 was honoured ({:?})",
        t.elapsed()
    );

    let no_retry = OllamaGenerator::builder("busy:1b")
        .base_url(&base)
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    st.busy_calls.store(0, Ordering::SeqCst);
    let e = no_retry.generate(&req()).await.unwrap_err();
    assert_eq!(kind(&e), ProviderErrorKind::RateLimited);
}

#[tokio::test]
async fn connection_refused_is_unavailable() {
    let base = dead_url().await;
    let g = gen(&base, "good:1b");
    let e = g.generate(&req()).await.unwrap_err();
    assert_eq!(kind(&e), ProviderErrorKind::Unavailable);
    let e = g.health().await.unwrap_err();
    assert_eq!(kind(&e), ProviderErrorKind::Unavailable);
    assert_eq!(
        kind(&g.stream(&req()).await.err().unwrap()),
        ProviderErrorKind::Unavailable
    );
}

#[tokio::test]
async fn slow_first_byte_times_out() {
    let (base, _) = fake().await;
    let g = OllamaGenerator::builder("slow:1b")
        .base_url(&base)
        .retry(RetryPolicy::none())
        .first_token_timeout(Duration::from_millis(300))
        .total_timeout(Duration::from_millis(800))
        .build()
        .unwrap();
    let t = Instant::now();
    let e = g.stream(&req()).await.err().unwrap();
    assert_eq!(kind(&e), ProviderErrorKind::Timeout);
    assert!(e.to_string().contains("first token"), "{e}");
    assert!(t.elapsed() < Duration::from_secs(2));
    let e = g.generate(&req()).await.unwrap_err();
    assert_eq!(kind(&e), ProviderErrorKind::Timeout);
}

#[tokio::test]
async fn stalled_stream_hits_the_total_timeout() {
    let (base, _) = fake().await;
    let g = OllamaGenerator::builder("stall:1b")
        .base_url(&base)
        .total_timeout(Duration::from_millis(600))
        .build()
        .unwrap();
    let (pieces, err) = collect(&g).await;
    assert_eq!(pieces, vec!["Hel", "lo"]);
    assert_eq!(kind(&err.unwrap()), ProviderErrorKind::Timeout);
}

#[tokio::test]
async fn stream_without_done_is_an_error() {
    let (base, _) = fake().await;
    let (pieces, err) = collect(&gen(&base, "truncated:1b")).await;
    assert_eq!(pieces, vec!["Hel", "lo"]);
    let e = err.expect("a truncated stream must end with an error");
    assert_eq!(kind(&e), ProviderErrorKind::Unavailable);
    assert!(e.to_string().contains("before `done: true`"), "{e}");
}

#[tokio::test]
async fn dropped_connection_is_an_error() {
    let (base, _) = fake().await;
    let (pieces, err) = collect(&gen(&base, "dropped:1b")).await;
    assert_eq!(pieces, vec!["Hel", "lo"]);
    assert_eq!(
        kind(&err.expect("dropped connection surfaces")),
        ProviderErrorKind::Unavailable
    );
}

#[tokio::test]
async fn malformed_line_is_bad_response() {
    let (base, _) = fake().await;
    let (pieces, err) = collect(&gen(&base, "malformed:1b")).await;
    assert_eq!(pieces, vec!["Hel"]);
    let e = err.unwrap();
    assert_eq!(kind(&e), ProviderErrorKind::BadResponse);
    assert!(e.to_string().contains("malformed stream line"), "{e}");
}

#[tokio::test]
async fn error_line_mid_stream_is_typed() {
    let (base, _) = fake().await;
    let (pieces, err) = collect(&gen(&base, "errline:1b")).await;
    assert_eq!(pieces, vec!["Hel"]);
    let e = err.unwrap();
    assert_eq!(kind(&e), ProviderErrorKind::Unavailable);
    assert!(e.to_string().contains("unexpected EOF"), "{e}");
}

#[tokio::test]
async fn health_and_warm_up() {
    let (base, st) = fake().await;
    gen(&base, "good:1b").health().await.unwrap();
    let latest = OllamaGenerator::builder("llama3")
        .base_url(&base)
        .allow_latest(true)
        .build()
        .unwrap();
    latest.health().await.unwrap();
    gen(&base, "good:1b").warm_up().await.unwrap();
    let body = st.bodies.lock().unwrap().last().cloned().unwrap();
    assert_eq!(
        body,
        json!({"model": "good:1b", "messages": [], "stream": false, "keep_alive": "5m"})
    );
    let e = gen(&base, "missing:1b").warm_up().await.unwrap_err();
    assert_eq!(kind(&e), ProviderErrorKind::ModelNotFound);
}

#[test]
fn latest_and_untagged_models_are_refused() {
    for m in ["llama3", "llama3:latest", "ns/llama3"] {
        let e = OllamaGenerator::builder(m).build().unwrap_err();
        assert_eq!(e.code(), "config_error", "{m}");
        assert!(e.to_string().contains("allow_latest"), "{e}");
    }
    assert!(OllamaGenerator::builder("llama3:8b-instruct-q4_K_M")
        .build()
        .is_ok());
    assert!(OllamaGenerator::builder("good:1b")
        .base_url("not a url")
        .build()
        .is_err());
}

#[tokio::test]
async fn invalid_params_are_rejected_before_any_call() {
    let (base, st) = fake().await;
    let mut r = req();
    r.params.top_p = 0.0;
    let e = gen(&base, "good:1b").generate(&r).await.unwrap_err();
    assert_eq!(kind(&e), ProviderErrorKind::InvalidRequest);
    assert!(st.bodies.lock().unwrap().is_empty());
}

#[tokio::test]
async fn retry_after_beyond_the_cap_gives_up_at_once() {
    let (base, st) = fake().await;
    let net = verity_net::HttpClient::new(verity_net::HttpConfig::default()).unwrap();
    let g = OllamaGenerator::builder("busy:1b")
        .base_url(&base)
        .client(&net)
        .retry(
            RetryPolicy::new(3, Duration::from_millis(10), Duration::from_millis(50))
                .with_max_retry_after(Duration::from_millis(500)),
        )
        .build()
        .unwrap();
    let t = Instant::now();
    let e = g.generate(&req()).await.unwrap_err();
    assert_eq!(kind(&e), ProviderErrorKind::RateLimited);
    assert!(e.is_transient());
    assert_eq!(e.retry_after(), Some(Duration::from_secs(1)));
    assert_eq!(st.busy_calls.load(Ordering::SeqCst), 1, "not retried");
    assert!(t.elapsed() < Duration::from_millis(900));
}
