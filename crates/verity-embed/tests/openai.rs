//! OpenAiEmbedder against an in-process fake OpenAI-compatible server.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use std::time::Duration;

use common::*;
use serde_json::json;
use verity_core::{Embedder, Error, ProviderErrorKind, RetryPolicy};
use verity_embed::OpenAiEmbedder;

fn fast_retry() -> RetryPolicy {
    RetryPolicy::new(3, Duration::from_millis(5), Duration::from_millis(20))
}

fn kind(e: &Error) -> ProviderErrorKind {
    match e {
        Error::Provider(p) => p.kind,
        other => panic!("expected a provider error, got {other:?}"),
    }
}

fn texts(n: usize) -> Vec<String> {
    (0..n).map(|i| "y".repeat(i + 1)).collect()
}

fn envelope(message: &str, kind: &str, code: &str) -> serde_json::Value {
    json!({"error": {"message": message, "type": kind, "param": null, "code": code}})
}

#[tokio::test]
async fn embeds_reorders_by_index_and_sends_the_key() {
    let (base, fake) = start(|_, seen| openai_ok(seen, 6)).await;
    let e = OpenAiEmbedder::builder("text-embedding-3-small")
        .base_url(&base)
        .api_key("sk-test")
        .batch_size(3)
        .dim(6)
        .build()
        .unwrap();
    let v = e.embed(&texts(7)).await.unwrap();
    assert_eq!(v.len(), 7);
    for (i, vec) in v.iter().enumerate() {
        assert_eq!(decoded_len(vec), (i + 1) as f32, "placed by index");
    }
    let seen = fake.seen();
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[0].path, "/v1/embeddings");
    assert_eq!(seen[0].authorization.as_deref(), Some("Bearer sk-test"));
    assert_eq!(seen[0].body["encoding_format"], "float");
    assert_eq!(seen[0].body["model"], "text-embedding-3-small");
    assert_eq!(inputs(&seen[2]), vec!["y".repeat(7)]);

    // No key: no Authorization header; base URL given with /v1.
    let (base, fake) = start(|_, seen| openai_ok(seen, 6)).await;
    let e = OpenAiEmbedder::builder("m")
        .base_url(format!("{base}/v1"))
        .build()
        .unwrap();
    e.embed_query("q").await.unwrap();
    assert_eq!(fake.seen()[0].authorization, None);
    assert_eq!(e.id().dim, 6);
}

#[tokio::test]
async fn error_envelope_and_status_mapping() {
    for (status, code, want) in [
        (401, "invalid_api_key", ProviderErrorKind::Auth),
        (
            403,
            "unsupported_country_region_territory",
            ProviderErrorKind::Auth,
        ),
        (
            400,
            "context_length_exceeded",
            ProviderErrorKind::InvalidRequest,
        ),
        (404, "model_not_found", ProviderErrorKind::ModelNotFound),
        (429, "rate_limit_exceeded", ProviderErrorKind::RateLimited),
        (500, "server_error", ProviderErrorKind::Unavailable),
    ] {
        let (base, fake) = start(move |_, _| {
            Reply::json(
                status,
                envelope(&format!("message for {code}"), "some_type", code),
            )
        })
        .await;
        let e = OpenAiEmbedder::builder("m")
            .base_url(&base)
            .retry(fast_retry())
            .build()
            .unwrap();
        let err = e.embed(&texts(1)).await.unwrap_err();
        assert_eq!(kind(&err), want, "HTTP {status}");
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("message for {code}")) && msg.contains(code),
            "{msg}"
        );
        assert_eq!(
            fake.calls(),
            if want.is_transient() { 3 } else { 1 },
            "HTTP {status}"
        );
    }
}

#[tokio::test]
async fn transient_failure_then_success() {
    let (base, fake) = start(|n, seen| {
        if n == 1 {
            Reply::json(503, envelope("overloaded", "server_error", "overloaded"))
        } else {
            openai_ok(seen, 4)
        }
    })
    .await;
    let e = OpenAiEmbedder::builder("m")
        .base_url(&base)
        .retry(fast_retry())
        .build()
        .unwrap();
    assert_eq!(e.embed(&texts(2)).await.unwrap().len(), 2);
    assert_eq!(fake.calls(), 2);
}

#[tokio::test]
async fn timeouts_and_transport_failures() {
    let (base, _) = start(|_, seen| openai_ok(seen, 4).after(Duration::from_secs(5))).await;
    let e = OpenAiEmbedder::builder("m")
        .base_url(&base)
        .timeout(Duration::from_millis(150))
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    assert_eq!(
        kind(&e.embed(&texts(1)).await.unwrap_err()),
        ProviderErrorKind::Timeout
    );

    let e = OpenAiEmbedder::builder("m")
        .base_url(closed_port().await)
        .retry(fast_retry())
        .build()
        .unwrap();
    assert_eq!(
        kind(&e.embed(&texts(1)).await.unwrap_err()),
        ProviderErrorKind::Unavailable
    );

    let (base, accepted) = dropping_server().await;
    let e = OpenAiEmbedder::builder("m")
        .base_url(&base)
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    assert_eq!(
        kind(&e.embed(&texts(1)).await.unwrap_err()),
        ProviderErrorKind::Unavailable
    );
    assert_eq!(accepted.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[tokio::test]
async fn bad_payloads_are_rejected() {
    let cases = [
        (
            "wrong dim",
            json!({"data": [{"index": 0, "embedding": [1.0, 0.0, 0.0]}]}),
        ),
        (
            "wrong count",
            json!({"data": [{"index": 0, "embedding": [1.0, 0.0]}]}),
        ),
        (
            "duplicate index",
            json!({"data": [{"index": 0, "embedding": [1.0, 0.0]}, {"index": 0, "embedding": [1.0, 0.0]}]}),
        ),
        (
            "index out of range",
            json!({"data": [{"index": 0, "embedding": [1.0, 0.0]}, {"index": 5, "embedding": [1.0, 0.0]}]}),
        ),
        (
            "null value",
            json!({"data": [{"index": 0, "embedding": [1.0, null]}, {"index": 1, "embedding": [1.0, 0.0]}]}),
        ),
        ("missing data", json!({"object": "list"})),
    ];
    for (name, body) in cases {
        let n_inputs = if name == "wrong dim" { 1 } else { 2 };
        let (base, fake) = start(move |_, _| Reply::json(200, body.clone())).await;
        let e = OpenAiEmbedder::builder("m")
            .base_url(&base)
            .dim(2)
            .retry(fast_retry())
            .build()
            .unwrap();
        let err = e.embed(&texts(n_inputs)).await.unwrap_err();
        assert_eq!(kind(&err), ProviderErrorKind::BadResponse, "{name}: {err}");
        assert_eq!(fake.calls(), 1, "{name}: not retried");
    }
    // Overflowing number (would be +inf as f32).
    let (base, _) =
        start(|_, _| Reply::raw(200, r#"{"data":[{"index":0,"embedding":[1e39,0.0]}]}"#)).await;
    let e = OpenAiEmbedder::builder("m")
        .base_url(&base)
        .build()
        .unwrap();
    assert_eq!(
        kind(&e.embed(&texts(1)).await.unwrap_err()),
        ProviderErrorKind::BadResponse
    );
}
