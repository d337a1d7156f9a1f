//! Provider failures read off real responses: the shared client against
//! a loopback server, through `RemoteEndpoint` as the providers use it.

#![allow(clippy::expect_used, clippy::panic)] // test helpers

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use verity_core::{Error, ProviderErrorKind, RetryPolicy};
use verity_net::reqwest::Method;
use verity_net::{RemoteEndpoint, RemoteProviderOptions};
use verity_testkit::{serve, Reply};

const ENVELOPE_429: &str =
    r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#;

fn endpoint(base: &str) -> RemoteEndpoint {
    let mut opts =
        RemoteProviderOptions::new(base, Duration::from_secs(5)).with_api_key_var("OPENAI_API_KEY");
    opts.retry = Some(RetryPolicy::new(
        3,
        Duration::from_millis(1),
        Duration::from_millis(5),
    ));
    opts.build("openai", "llm.openai").expect("valid options")
}

/// One GET through the endpoint: the body on success, else the typed error.
async fn get(ep: &RemoteEndpoint, path: &str) -> Result<String, Error> {
    let url = ep.url(path);
    let resp = ep
        .request(Method::GET, &url)
        .timeout(ep.timeout())
        .send()
        .await
        .map_err(|e| ep.transport_error(&url, &e))?;
    if !resp.status().is_success() {
        return Err(ep.response_error(&url, resp).await);
    }
    resp.text().await.map_err(|e| ep.transport_error(&url, &e))
}

fn provider(e: &Error) -> &verity_core::ProviderError {
    match e {
        Error::Provider(p) => p,
        other => panic!("not a provider error: {other}"),
    }
}

#[tokio::test]
async fn statuses_become_typed_errors() {
    let base = serve(|path, _| match path {
        "/429" => Reply::status("429 Too Many Requests", "application/json", ENVELOPE_429)
            .with_header("Retry-After", "3"),
        "/401" => Reply::status(
            "401 Unauthorized",
            "application/json",
            r#"{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}"#,
        ),
        "/403" => Reply::status("403 Forbidden", "text/plain", "forbidden"),
        "/503" => Reply::status("503 Service Unavailable", "text/plain", ""),
        "/404" => Reply::status(
            "404 Not Found",
            "application/json",
            r#"{"error":"model \"m:1b\" not found, try pulling it first"}"#,
        ),
        _ => Reply::ok("text/plain", "fine"),
    })
    .expect("loopback port");
    let ep = endpoint(&base);
    assert_eq!(get(&ep, "/ok").await.expect("200"), "fine");

    let e = get(&ep, "/429").await.unwrap_err();
    let p = provider(&e);
    assert_eq!(p.kind, ProviderErrorKind::RateLimited);
    assert!(p.is_transient());
    assert_eq!(
        p.retry_after,
        Some(Duration::from_secs(3)),
        "Retry-After is carried"
    );
    assert!(p.message.contains("Rate limit reached"), "{}", p.message);

    for path in ["/401", "/403"] {
        let e = get(&ep, path).await.unwrap_err();
        let p = provider(&e);
        assert_eq!(p.kind, ProviderErrorKind::Auth, "{path}");
        assert!(!p.is_transient(), "{path}");
        assert!(
            p.message.contains("set OPENAI_API_KEY"),
            "{path}: {}",
            p.message
        );
    }

    let e = get(&ep, "/503").await.unwrap_err();
    let p = provider(&e);
    assert_eq!(p.kind, ProviderErrorKind::Unavailable);
    assert!(p.is_transient());
    assert!(
        p.message.ends_with("HTTP 503 Service Unavailable"),
        "{}",
        p.message
    );

    let ollama = endpoint(&base).with_missing_model_advice("run `ollama pull m:1b`");
    let e = get(&ollama, "/404").await.unwrap_err();
    let p = provider(&e);
    assert_eq!(p.kind, ProviderErrorKind::ModelNotFound);
    assert!(
        p.message.contains("run `ollama pull m:1b`"),
        "{}",
        p.message
    );
}

#[tokio::test]
async fn the_retry_policy_waits_out_retry_after_then_succeeds() {
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = calls.clone();
    let base = serve(move |_, _| {
        if seen.fetch_add(1, Ordering::SeqCst) == 0 {
            Reply::status("429 Too Many Requests", "application/json", ENVELOPE_429)
                .with_header("Retry-After", "0")
        } else {
            Reply::ok("text/plain", "fine")
        }
    })
    .expect("loopback port");
    let ep = endpoint(&base);
    let body = ep
        .retry()
        .run(|_| get(&ep, "/x"))
        .await
        .expect("second attempt succeeds");
    assert_eq!(body, "fine");
    assert_eq!(calls.load(Ordering::SeqCst), 2);

    let auth =
        serve(|_, _| Reply::status("401 Unauthorized", "text/plain", "no")).expect("loopback port");
    let ep = endpoint(&auth);
    let e = ep.retry().run(|_| get(&ep, "/x")).await.unwrap_err();
    assert_eq!(
        provider(&e).kind,
        ProviderErrorKind::Auth,
        "not retried: {e}"
    );
}

#[tokio::test]
async fn a_refused_connection_is_transient_and_names_the_url() {
    let dead = verity_testkit::dead_url().expect("loopback port");
    let ep = endpoint(&dead);
    let e = get(&ep, "/x").await.unwrap_err();
    let p = provider(&e);
    assert_eq!(p.kind, ProviderErrorKind::Unavailable);
    assert!(p.is_transient());
    assert!(
        p.message
            .starts_with(&format!("cannot connect to {dead}/x")),
        "{}",
        p.message
    );
    assert!(
        p.message.to_lowercase().contains("refused"),
        "{}",
        p.message
    );
}
