//! OpenAiGenerator against an in-process fake OpenAI-compatible server (`/v1/chat/completions`, SSE, `/v1/models`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use crate::common;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use common::{dead_url, kind, paced_body, serve};
use futures::StreamExt;
use serde_json::{json, Value};
use verity_core::{
    ChatMessage, ChatRequest, FinishReason, Generator, ProviderErrorKind, RetryPolicy,
};
use verity_llm::OpenAiGenerator;

#[derive(Default)]
struct Fake {
    bodies: Mutex<Vec<Value>>,
    auth: Mutex<Vec<Option<String>>>,
    busy_calls: AtomicU32,
    boom_calls: AtomicU32,
}

const PAUSE: Duration = Duration::from_millis(15);
const KEY: &str = "sk-test-123";

fn chunk(model: &str, delta: Value, finish: Option<&str>) -> Value {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1_790_000_000, "model": model,
           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

fn event(v: &Value) -> String {
    format!("data: {v}\n\n")
}

fn sse(body: axum::body::Body) -> Response {
    (
        [
            ("content-type", "text/event-stream"),
            ("cache-control", "no-cache"),
        ],
        body,
    )
        .into_response()
}

fn envelope(status: StatusCode, message: &str, typ: &str, code: Option<&str>) -> Response {
    (
        status,
        Json(json!({"error": {"message": message, "type": typ, "param": null, "code": code}})),
    )
        .into_response()
}

/// The streamed answer "Hello world", exercising the SSE corner cases.
fn hello_events(m: &str) -> Vec<String> {
    let first = chunk(m, json!({"role": "assistant", "content": ""}), None);
    let hel = chunk(m, json!({"content": "Hel"}), None);
    // A multi-line event: the JSON is split over two `data:` lines (joined with "\n").
    let lo = serde_json::to_string_pretty(&chunk(m, json!({"content": "lo"}), None)).unwrap();
    // (The second line uses `data:` without the optional space.)
    let lo_event: String = lo
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 1 {
                format!("data:{l}\n")
            } else {
                format!("data: {l}\n")
            }
        })
        .collect::<String>()
        + "\n";
    assert!(lo_event.matches("data:").count() > 3);
    let wor = chunk(m, json!({"content": " wor"}), None);
    let ld = chunk(m, json!({"content": "ld"}), None);
    let fin = chunk(m, json!({}), Some("stop"));
    let ld_event = event(&ld);
    let (ld_a, ld_b) = ld_event.split_at(10);
    vec![
        ": keep-alive\n\n".into(),
        event(&first),
        format!("event: message\nid: 1\n{}", event(&hel)),
        lo_event,
        // CRLF line endings.
        format!("data: {wor}\r\n\r\n"),
        // An event split across two TCP chunks.
        ld_a.into(),
        ld_b.into(),
        event(&fin),
        ": keep-alive\n\n".into(),
        "data: [DONE]\n\n".into(),
    ]
}

async fn completions(
    State(st): State<Arc<Fake>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    st.bodies.lock().unwrap().push(body.clone());
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    st.auth.lock().unwrap().push(auth.clone());
    let m = body["model"].as_str().unwrap_or("").to_string();
    let m = m.as_str();
    let stream = body["stream"].as_bool().unwrap_or(false);
    match m {
        "secure-model" if auth.as_deref() != Some(&format!("Bearer {KEY}")) => {
            envelope(StatusCode::UNAUTHORIZED, "Incorrect API key provided: sk-wrong.", "invalid_request_error", Some("invalid_api_key"))
        }
        "forbidden-model" => envelope(StatusCode::FORBIDDEN, "You are not allowed to sample from this model", "invalid_request_error", None),
        "gpt-test" | "secure-model" | "busy-model" | "boom-model" => {
            if m == "busy-model" && st.busy_calls.fetch_add(1, Ordering::SeqCst) == 0 {
                let mut r = envelope(StatusCode::TOO_MANY_REQUESTS, "Rate limit reached for requests", "requests", Some("rate_limit_exceeded"));
                r.headers_mut().insert("retry-after", "1".parse().unwrap());
                return r;
            }
            if m == "boom-model" {
                st.boom_calls.fetch_add(1, Ordering::SeqCst);
                return envelope(StatusCode::SERVICE_UNAVAILABLE, "The server is overloaded or not ready yet.", "server_error", None);
            }
            if stream {
                sse(paced_body(hello_events(m), PAUSE, false))
            } else {
                Json(json!({
                    "id": "chatcmpl-1", "object": "chat.completion", "created": 1_790_000_000, "model": m,
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hello world"}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 21, "completion_tokens": 2, "total_tokens": 23}
                }))
                .into_response()
            }
        }
        "long-model" => Json(json!({
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hel"}, "finish_reason": "length"}],
            "usage": {"prompt_tokens": 21, "completion_tokens": 1}
        }))
        .into_response(),
        "slow-model" => {
            tokio::time::sleep(Duration::from_secs(3)).await;
            sse(paced_body(hello_events(m), PAUSE, false))
        }
        "nodone-model" => sse(paced_body(
            vec![event(&chunk(m, json!({"content": "Hel"}), None)), event(&chunk(m, json!({"content": "lo"}), None))],
            PAUSE,
            false,
        )),
        "finish-nodone-model" => sse(paced_body(
            vec![event(&chunk(m, json!({"content": "Hello"}), None)), event(&chunk(m, json!({}), Some("stop")))],
            PAUSE,
            false,
        )),
        "dropped-model" => sse(paced_body(
            vec![event(&chunk(m, json!({"content": "Hel"}), None)), event(&chunk(m, json!({"content": "lo"}), None))],
            PAUSE,
            true,
        )),
        "malformed-model" => sse(paced_body(
            vec![event(&chunk(m, json!({"content": "Hel"}), None)), "data: {\"choices\": [\n\n".into(), "data: [DONE]\n\n".into()],
            PAUSE,
            false,
        )),
        "errevent-model" => sse(paced_body(
            vec![
                event(&chunk(m, json!({"content": "Hel"}), None)),
                event(&json!({"error": {"message": "The server had an error while processing your request.", "type": "server_error", "code": null}})),
            ],
            PAUSE,
            false,
        )),
        _ => envelope(
            StatusCode::NOT_FOUND,
            &format!("The model `{m}` does not exist or you do not have access to it."),
            "invalid_request_error",
            Some("model_not_found"),
        ),
    }
}

async fn models() -> Json<Value> {
    Json(
        json!({"object": "list", "data": [{"id": "gpt-test", "object": "model", "created": 0, "owned_by": "verity"}]}),
    )
}

async fn fake() -> (String, Arc<Fake>) {
    let st = Arc::new(Fake::default());
    let app = Router::new()
        .route("/v1/chat/completions", post(completions))
        .route("/v1/models", get(models))
        .with_state(st.clone());
    (serve(app).await, st)
}

fn gen(base: &str, model: &str) -> OpenAiGenerator {
    OpenAiGenerator::builder(base, model)
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

async fn collect(g: &OpenAiGenerator) -> (Vec<String>, Option<verity_core::Error>) {
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
    let out = gen(&base, "gpt-test").generate(&req()).await.unwrap();
    assert_eq!(out.text, "Hello world");
    assert_eq!(out.model, "gpt-test");
    assert_eq!(out.finish_reason, FinishReason::Stop);
    assert_eq!(out.usage.prompt_tokens, Some(21));
    assert_eq!(out.usage.completion_tokens, Some(2));
    let body = st.bodies.lock().unwrap().last().cloned().unwrap();
    assert_eq!(
        body,
        json!({
            "model": "gpt-test",
            "messages": [{"role": "system", "content": "Answer briefly."}, {"role": "user", "content": "Say hello world"}],
            "temperature": 0.2, "top_p": 0.9, "max_tokens": 1536, "stream": false
        })
    );
    assert_eq!(
        st.auth.lock().unwrap().last().cloned().unwrap(),
        None,
        "no key, no Authorization header"
    );
}

#[tokio::test]
async fn streaming_handles_sse_details() {
    let (base, st) = fake().await;
    let g = gen(&base, "gpt-test");
    let (pieces, err) = collect(&g).await;
    assert!(err.is_none(), "{err:?}");
    assert_eq!(pieces, vec!["Hel", "lo", " wor", "ld"]);
    let mut r = req();
    r.params.stop = vec!["END".into()];
    r.params.seed = Some(3);
    let mut s = g.stream(&r).await.unwrap();
    while s.next().await.is_some() {}
    let body = st.bodies.lock().unwrap().last().cloned().unwrap();
    assert_eq!(body["stream"], json!(true));
    assert_eq!(body["stop"], json!(["END"]));
    assert_eq!(body["seed"], json!(3));
    assert_eq!(g.request_body(&r, true), body);
}

#[tokio::test]
async fn base_url_with_v1_is_not_doubled() {
    let (base, _) = fake().await;
    let out = gen(&format!("{base}/v1/"), "gpt-test")
        .generate(&req())
        .await
        .unwrap();
    assert_eq!(out.text, "Hello world");
}

#[tokio::test]
async fn bearer_key_and_auth_errors() {
    let (base, st) = fake().await;
    let ok = OpenAiGenerator::builder(&base, "secure-model")
        .api_key(KEY)
        .build()
        .unwrap();
    assert_eq!(ok.generate(&req()).await.unwrap().text, "Hello world");
    assert_eq!(
        st.auth.lock().unwrap().last().cloned().unwrap().as_deref(),
        Some("Bearer sk-test-123")
    );
    assert!(
        !format!("{ok:?}").contains(KEY),
        "the key is redacted from Debug"
    );

    let bad = OpenAiGenerator::builder(&base, "secure-model")
        .api_key("sk-wrong")
        .build()
        .unwrap();
    let e = bad.generate(&req()).await.unwrap_err();
    assert_eq!(kind(&e), ProviderErrorKind::Auth);
    assert!(e.to_string().contains("Incorrect API key provided"), "{e}");
    assert!(e.to_string().contains("invalid_api_key"), "{e}");
    let e = gen(&base, "forbidden-model")
        .generate(&req())
        .await
        .unwrap_err();
    assert_eq!(kind(&e), ProviderErrorKind::Auth);
}

#[tokio::test]
async fn model_not_found() {
    let (base, st) = fake().await;
    let g = gen(&base, "gpt-missing");
    let e = g.generate(&req()).await.unwrap_err();
    assert_eq!(kind(&e), ProviderErrorKind::ModelNotFound);
    assert!(
        e.to_string()
            .contains("The model `gpt-missing` does not exist"),
        "{e}"
    );
    assert_eq!(st.bodies.lock().unwrap().len(), 1);
    assert_eq!(
        kind(&g.stream(&req()).await.err().unwrap()),
        ProviderErrorKind::ModelNotFound
    );
    assert_eq!(
        kind(&g.health().await.unwrap_err()),
        ProviderErrorKind::ModelNotFound
    );
    gen(&base, "gpt-test").health().await.unwrap();
}

#[tokio::test]
async fn rate_limit_honours_retry_after() {
    let (base, st) = fake().await;
    let t = Instant::now();
    let out = gen(&base, "busy-model").generate(&req()).await.unwrap();
    assert_eq!(out.text, "Hello world");
    assert_eq!(st.busy_calls.load(Ordering::SeqCst), 2);
    assert!(
        t.elapsed() >= Duration::from_millis(950),
        "waited {:?}",
        t.elapsed()
    );

    st.busy_calls.store(0, Ordering::SeqCst);
    let e = OpenAiGenerator::builder(&base, "busy-model")
        .retry(RetryPolicy::none())
        .build()
        .unwrap()
        .generate(&req())
        .await
        .unwrap_err();
    assert_eq!(kind(&e), ProviderErrorKind::RateLimited);
    assert!(e.to_string().contains("Rate limit reached"), "{e}");

    // Streaming opens are retried too (nothing was emitted yet).
    st.busy_calls.store(0, Ordering::SeqCst);
    let (pieces, err) = collect(&gen(&base, "busy-model")).await;
    assert!(err.is_none());
    assert_eq!(pieces.concat(), "Hello world");
}

#[tokio::test]
async fn server_errors_are_unavailable() {
    let (base, st) = fake().await;
    let e = gen(&base, "boom-model").generate(&req()).await.unwrap_err();
    assert_eq!(kind(&e), ProviderErrorKind::Unavailable);
    assert!(e.to_string().contains("HTTP 503"), "{e}");
    assert_eq!(st.boom_calls.load(Ordering::SeqCst), 3);
    let e = gen(&dead_url().await, "gpt-test")
        .generate(&req())
        .await
        .unwrap_err();
    assert_eq!(kind(&e), ProviderErrorKind::Unavailable);
}

#[tokio::test]
async fn length_finish_reason() {
    let (base, _) = fake().await;
    assert_eq!(
        gen(&base, "long-model")
            .generate(&req())
            .await
            .unwrap()
            .finish_reason,
        FinishReason::Length
    );
}

#[tokio::test]
async fn slow_first_byte_times_out() {
    let (base, _) = fake().await;
    let g = OpenAiGenerator::builder(&base, "slow-model")
        .retry(RetryPolicy::none())
        .first_token_timeout(Duration::from_millis(300))
        .total_timeout(Duration::from_millis(800))
        .build()
        .unwrap();
    let e = g.stream(&req()).await.err().unwrap();
    assert_eq!(kind(&e), ProviderErrorKind::Timeout);
    let e = g.generate(&req()).await.unwrap_err();
    assert_eq!(kind(&e), ProviderErrorKind::Timeout);
}

#[tokio::test]
async fn missing_done_is_an_error_unless_finished() {
    let (base, _) = fake().await;
    let (pieces, err) = collect(&gen(&base, "nodone-model")).await;
    assert_eq!(pieces, vec!["Hel", "lo"]);
    let e = err.expect("truncated stream surfaces");
    assert_eq!(kind(&e), ProviderErrorKind::Unavailable);
    assert!(e.to_string().contains("[DONE]"), "{e}");

    let (pieces, err) = collect(&gen(&base, "finish-nodone-model")).await;
    assert!(
        err.is_none(),
        "finish_reason then close is a complete answer: {err:?}"
    );
    assert_eq!(pieces, vec!["Hello"]);
}

#[tokio::test]
async fn dropped_connection_malformed_and_error_events() {
    let (base, _) = fake().await;
    let (pieces, err) = collect(&gen(&base, "dropped-model")).await;
    assert_eq!(pieces, vec!["Hel", "lo"]);
    assert_eq!(kind(&err.unwrap()), ProviderErrorKind::Unavailable);

    let (pieces, err) = collect(&gen(&base, "malformed-model")).await;
    assert_eq!(pieces, vec!["Hel"]);
    let e = err.unwrap();
    assert_eq!(kind(&e), ProviderErrorKind::BadResponse);
    assert!(e.to_string().contains("malformed SSE event"), "{e}");

    let (pieces, err) = collect(&gen(&base, "errevent-model")).await;
    assert_eq!(pieces, vec!["Hel"]);
    let e = err.unwrap();
    assert_eq!(kind(&e), ProviderErrorKind::Unavailable);
    assert!(e.to_string().contains("The server had an error"), "{e}");
}

#[tokio::test]
async fn health_without_model_listing_only_checks_reachability() {
    let app = Router::new().route("/v1/chat/completions", post(|| async { "unused" }));
    let base = serve(app).await;
    gen(&base, "anything").health().await.unwrap();
    let e = gen(&dead_url().await, "anything")
        .health()
        .await
        .unwrap_err();
    assert_eq!(kind(&e), ProviderErrorKind::Unavailable);
}
