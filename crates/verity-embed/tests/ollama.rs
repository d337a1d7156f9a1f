//! OllamaEmbedder against an in-process fake Ollama server.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use std::time::Duration;

use common::*;
use serde_json::json;
use verity_core::{Embedder, Error, ProviderErrorKind, RetryPolicy};
use verity_embed::OllamaEmbedder;

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
    (0..n).map(|i| "x".repeat(i + 1)).collect()
}

#[tokio::test]
async fn embeds_in_batches_and_keeps_order() {
    let (base, fake) = start(|_, seen| ollama_ok(seen, 8)).await;
    let e = OllamaEmbedder::builder("all-minilm:l6-v2")
        .base_url(&base)
        .batch_size(4)
        .keep_alive("5m")
        .embed_version("v3")
        .build()
        .unwrap();
    assert_eq!(e.id().dim, 0);
    let v = e.embed(&texts(10)).await.unwrap();
    assert_eq!(v.len(), 10);
    for (i, vec) in v.iter().enumerate() {
        assert_eq!(decoded_len(vec), (i + 1) as f32, "order kept");
        let norm: f32 = vec.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5);
    }
    assert_eq!(fake.calls(), 3, "10 texts in batches of 4");
    assert_eq!(e.id().dim, 8, "dimension discovered on the first call");
    assert_eq!(e.id().version, "v3");
    let seen = fake.seen();
    assert_eq!(seen[0].path, "/api/embed");
    assert_eq!(seen[0].body["model"], "all-minilm:l6-v2");
    assert_eq!(seen[0].body["truncate"], true);
    assert_eq!(seen[0].body["keep_alive"], "5m");
    assert_eq!(inputs(&seen[2]), vec!["x".repeat(9), "x".repeat(10)]);
    assert!(e.embed(&[]).await.unwrap().is_empty());
    assert_eq!(fake.calls(), 3, "no request for no text");
}

#[tokio::test]
async fn nomic_prefixes_documents_and_queries() {
    let (base, fake) = start(|_, seen| ollama_ok(seen, 4)).await;
    let e = OllamaEmbedder::builder("nomic-embed-text:v1.5")
        .base_url(&base)
        .dim(4)
        .build()
        .unwrap();
    e.embed(&["doc".to_string()]).await.unwrap();
    let q = e.embed_query("what").await.unwrap();
    assert_eq!(decoded_len(&q), "search_query: what".len() as f32);
    let seen = fake.seen();
    assert_eq!(inputs(&seen[0]), vec!["search_document: doc"]);
    assert_eq!(inputs(&seen[1]), vec!["search_query: what"]);
}

#[tokio::test]
async fn model_not_found_is_not_retried() {
    let (base, fake) = start(|_, seen| {
        Reply::json(404, json!({"error": format!("model \"{}\" not found, try pulling it first", seen.body["model"].as_str().unwrap())}))
    })
    .await;
    let e = OllamaEmbedder::builder("missing:v1")
        .base_url(&base)
        .retry(fast_retry())
        .build()
        .unwrap();
    let err = e.embed(&texts(1)).await.unwrap_err();
    assert_eq!(kind(&err), ProviderErrorKind::ModelNotFound);
    assert!(err.to_string().contains("try pulling it first"), "{err}");
    assert_eq!(fake.calls(), 1);
}

#[tokio::test]
async fn server_error_then_success_is_retried() {
    let (base, fake) = start(|n, seen| {
        if n == 1 {
            Reply::json(500, json!({"error": "llama runner process has terminated"}))
        } else {
            ollama_ok(seen, 3)
        }
    })
    .await;
    let e = OllamaEmbedder::builder("m:1")
        .base_url(&base)
        .retry(fast_retry())
        .build()
        .unwrap();
    let v = e.embed(&texts(2)).await.unwrap();
    assert_eq!(v.len(), 2);
    assert_eq!(fake.calls(), 2, "one failure, one retry");
}

#[tokio::test]
async fn persistent_errors_map_to_kinds() {
    for (status, want) in [
        (429, ProviderErrorKind::RateLimited),
        (503, ProviderErrorKind::Unavailable),
        (400, ProviderErrorKind::InvalidRequest),
    ] {
        let (base, fake) = start(move |_, _| Reply::json(status, json!({"error": "nope"}))).await;
        let e = OllamaEmbedder::builder("m:1")
            .base_url(&base)
            .retry(fast_retry())
            .build()
            .unwrap();
        let err = e.embed(&texts(1)).await.unwrap_err();
        assert_eq!(kind(&err), want, "HTTP {status}");
        let expected_calls = if want.is_transient() { 3 } else { 1 };
        assert_eq!(fake.calls(), expected_calls, "HTTP {status}");
    }
}

#[tokio::test]
async fn slow_server_times_out() {
    let (base, fake) = start(|_, seen| ollama_ok(seen, 3).after(Duration::from_secs(5))).await;
    let e = OllamaEmbedder::builder("m:1")
        .base_url(&base)
        .timeout(Duration::from_millis(150))
        .retry(RetryPolicy {
            max_attempts: 2,
            ..fast_retry()
        })
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    let err = e.embed(&texts(1)).await.unwrap_err();
    assert_eq!(kind(&err), ProviderErrorKind::Timeout);
    assert!(err.is_transient());
    assert_eq!(fake.calls(), 2, "timeouts are retried");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "did not wait for the slow reply"
    );
}

#[tokio::test]
async fn connection_refused_and_dropped_are_unavailable() {
    let e = OllamaEmbedder::builder("m:1")
        .base_url(closed_port().await)
        .retry(fast_retry())
        .build()
        .unwrap();
    let err = e.embed(&texts(1)).await.unwrap_err();
    assert_eq!(kind(&err), ProviderErrorKind::Unavailable);
    assert!(e.health().await.is_err());

    let (base, accepted) = dropping_server().await;
    let e = OllamaEmbedder::builder("m:1")
        .base_url(&base)
        .retry(fast_retry())
        .build()
        .unwrap();
    let err = e.embed(&texts(1)).await.unwrap_err();
    assert_eq!(kind(&err), ProviderErrorKind::Unavailable, "{err}");
    assert_eq!(
        accepted.load(std::sync::atomic::Ordering::SeqCst),
        3,
        "retried 3 times"
    );
}

#[tokio::test]
async fn bad_vectors_are_rejected() {
    // Wrong dimension against a configured dim.
    let (base, _) = start(|_, seen| ollama_ok(seen, 5)).await;
    let e = OllamaEmbedder::builder("m:1")
        .base_url(&base)
        .dim(4)
        .build()
        .unwrap();
    assert_eq!(
        kind(&e.embed(&texts(1)).await.unwrap_err()),
        ProviderErrorKind::BadResponse
    );

    // Dimension changing between calls after discovery.
    let (base, _) = start(|n, seen| ollama_ok(seen, if n == 1 { 4 } else { 6 })).await;
    let e = OllamaEmbedder::builder("m:1")
        .base_url(&base)
        .build()
        .unwrap();
    e.embed(&texts(1)).await.unwrap();
    assert_eq!(
        kind(&e.embed(&texts(1)).await.unwrap_err()),
        ProviderErrorKind::BadResponse
    );

    // Mixed dimensions within one response.
    let (base, _) =
        start(|_, _| Reply::json(200, json!({"embeddings": [[1.0, 0.0], [1.0, 0.0, 0.0]]}))).await;
    let e = OllamaEmbedder::builder("m:1")
        .base_url(&base)
        .build()
        .unwrap();
    assert_eq!(
        kind(&e.embed(&texts(2)).await.unwrap_err()),
        ProviderErrorKind::BadResponse
    );

    // NaN cannot travel in JSON: `null`, and a value that overflows f32.
    for body in [
        r#"{"embeddings": [[0.1, null, 0.3]]}"#,
        r#"{"embeddings": [[0.1, 1e39, 0.3]]}"#,
        r#"{"embeddings": [[0.1, 1e999, 0.3]]}"#,
    ] {
        let (base, fake) = start(move |_, _| Reply::raw(200, body)).await;
        let e = OllamaEmbedder::builder("m:1")
            .base_url(&base)
            .retry(fast_retry())
            .build()
            .unwrap();
        let err = e.embed(&texts(1)).await.unwrap_err();
        assert_eq!(kind(&err), ProviderErrorKind::BadResponse, "{body}: {err}");
        assert_eq!(fake.calls(), 1, "bad responses are not retried");
    }

    // Wrong count.
    let (base, _) = start(|_, _| Reply::json(200, json!({"embeddings": [[1.0, 0.0]]}))).await;
    let e = OllamaEmbedder::builder("m:1")
        .base_url(&base)
        .build()
        .unwrap();
    let err = e.embed(&texts(3)).await.unwrap_err();
    assert_eq!(kind(&err), ProviderErrorKind::BadResponse);
    assert!(err.to_string().contains("expected 3 vectors"), "{err}");

    // Not JSON at all.
    let (base, _) = start(|_, _| Reply::raw(200, "<html>proxy</html>")).await;
    let e = OllamaEmbedder::builder("m:1")
        .base_url(&base)
        .build()
        .unwrap();
    assert_eq!(
        kind(&e.embed(&texts(1)).await.unwrap_err()),
        ProviderErrorKind::BadResponse
    );
}

#[tokio::test]
async fn health_checks_the_model_list() {
    let (base, fake) = start(|_, _| {
        Reply::json(
            200,
            json!({"models": [{"name": "nomic-embed-text:v1.5", "model": "nomic-embed-text:v1.5", "size": 274302450, "digest": "0a109f422b47"}]}),
        )
    })
    .await;
    let ok = OllamaEmbedder::builder("nomic-embed-text:v1.5")
        .base_url(&base)
        .build()
        .unwrap();
    ok.health().await.unwrap();
    let missing = OllamaEmbedder::builder("bge-m3:567m")
        .base_url(&base)
        .build()
        .unwrap();
    let err = missing.health().await.unwrap_err();
    assert_eq!(kind(&err), ProviderErrorKind::ModelNotFound);
    assert!(err.to_string().contains("ollama pull bge-m3:567m"));
    assert_eq!(fake.seen()[0].path, "/api/tags");
}

#[tokio::test]
async fn retry_after_is_waited_for_then_succeeds() {
    // 429 with Retry-After: 1 (seconds), then 503 with an HTTP date ~1 s ahead, then success.
    let (base, fake) = start(|n, seen| match n {
        1 => Reply::json(429, json!({"error": "slow down"})).retry_after("1"),
        2 => {
            let at = chrono_like_http_date(2);
            Reply::json(503, json!({"error": "busy"})).retry_after(at)
        }
        _ => ollama_ok(seen, 3),
    })
    .await;
    let net = verity_net::HttpClient::new(verity_net::HttpConfig::default()).unwrap();
    let e = OllamaEmbedder::builder("m:1")
        .base_url(&base)
        .client(&net)
        .retry(fast_retry())
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    let v = e.embed(&texts(1)).await.unwrap();
    assert_eq!(v.len(), 1);
    assert_eq!(fake.calls(), 3);
    // The backoff alone is ≤ 20 ms: only the hints explain the wait.
    assert!(
        started.elapsed() >= Duration::from_millis(1900),
        "waited {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn retry_after_beyond_the_cap_gives_up_with_a_typed_transient_error() {
    let (base, fake) =
        start(|_, _| Reply::json(429, json!({"error": "quota"})).retry_after("120")).await;
    let e = OllamaEmbedder::builder("m:1")
        .base_url(&base)
        .retry(fast_retry().with_max_retry_after(Duration::from_secs(5)))
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    let err = e.embed(&texts(1)).await.unwrap_err();
    assert_eq!(kind(&err), ProviderErrorKind::RateLimited);
    assert!(err.is_transient());
    assert_eq!(err.code(), "unavailable");
    assert_eq!(err.retry_after(), Some(Duration::from_secs(120)));
    assert_eq!(fake.calls(), 1, "a hint beyond the cap is not waited for");
    assert!(started.elapsed() < Duration::from_secs(2));

    // Hints within the cap, but attempts run out: the last transient error comes back.
    let (base, fake) =
        start(|_, _| Reply::json(503, json!({"error": "busy"})).retry_after("0")).await;
    let e = OllamaEmbedder::builder("m:1")
        .base_url(&base)
        .retry(fast_retry())
        .build()
        .unwrap();
    let err = e.embed(&texts(1)).await.unwrap_err();
    assert_eq!(kind(&err), ProviderErrorKind::Unavailable);
    assert_eq!(fake.calls(), 3);
}

/// An IMF-fixdate `secs` seconds from now (whole seconds, so ≥ secs − 1 ahead).
fn chrono_like_http_date(secs: u64) -> String {
    let t = std::time::SystemTime::now() + Duration::from_secs(secs);
    httpdate(t)
}

fn httpdate(t: std::time::SystemTime) -> String {
    let secs = t.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (h, m, s) = (rem / 3600, (rem % 3600) / 60, rem % 60);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(mo <= 2);
    let wd = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][(days % 7) as usize];
    let mon = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ][(mo - 1) as usize];
    format!("{wd}, {d:02} {mon} {y} {h:02}:{m:02}:{s:02} GMT")
}
