//! One HTTP client per handle: the `http` settings of a [`VerityConfig`]
//! reach the providers the handle builds. Checked with a proxy: an embedder
//! whose server name does not resolve still gets its answer when, and only
//! when, the handle's client sends its requests through the configured
//! proxy (a loopback fake speaking plain HTTP proxying).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use verity::api::EmbedRequest;
use verity::core::RetryPolicy;
use verity::net::{HttpConfig, ProxySetting};
use verity::{EmbedderSpec, Verity, VerityConfig};

/// A forward proxy that answers every request itself, as Ollama's
/// `/api/embed` would, and records the request lines it saw.
async fn fake_proxy() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let log = log.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                // Read the head, then the body announced by Content-Length.
                let (head_end, length) = loop {
                    let n = sock.read(&mut chunk).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        let head = String::from_utf8_lossy(&buf[..i]).to_ascii_lowercase();
                        let length = head
                            .lines()
                            .find_map(|l| l.strip_prefix("content-length:"))
                            .and_then(|v| v.trim().parse::<usize>().ok())
                            .unwrap_or(0);
                        break (i + 4, length);
                    }
                };
                while buf.len() < head_end + length {
                    let n = sock.read(&mut chunk).await.unwrap_or(0);
                    if n == 0 {
                        break;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                }
                let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
                let line = head.lines().next().unwrap_or_default().to_string();
                log.lock().unwrap().push(line);
                let body = r#"{"model":"proxy-embed","embeddings":[[0.6,0.8,0.0]]}"#;
                let resp = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = sock.write_all(resp.as_bytes()).await;
            });
        }
    });
    (format!("http://{addr}"), seen)
}

fn config(home: &std::path::Path, http: Option<HttpConfig>) -> VerityConfig {
    VerityConfig {
        home: home.to_path_buf(),
        embedder: EmbedderSpec::Ollama("proxy-embed:v1".into()),
        // A name that never resolves: only the proxy can answer.
        ollama_url: "http://ollama.verity-test.invalid:11434".into(),
        http,
        ..VerityConfig::default()
    }
}

#[tokio::test]
async fn the_handles_http_settings_reach_its_embedder() {
    let (proxy, seen) = fake_proxy().await;
    let dir = tempfile::tempdir().unwrap();
    let http = HttpConfig::default()
        .with_proxy(ProxySetting::Url(proxy))
        .with_retry(RetryPolicy::none());
    let v = Verity::open(config(dir.path(), Some(http))).await.unwrap();
    let out = v
        .embed(&EmbedRequest {
            texts: vec!["routing fees".into()],
            model: None,
            embed_version: None,
        })
        .await
        .unwrap();
    assert_eq!(out.embeddings.len(), 1);
    assert_eq!(out.dim, 3);
    let lines = seen.lock().unwrap().clone();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("POST http://ollama.verity-test.invalid:11434/api/embed")),
        "the embedder's request went through the handle's proxy: {lines:?}"
    );
}

#[tokio::test]
async fn without_the_proxy_the_same_embedder_cannot_connect() {
    let dir = tempfile::tempdir().unwrap();
    let http = HttpConfig::default()
        .with_proxy(ProxySetting::None)
        .with_retry(RetryPolicy::none());
    let v = Verity::open(config(dir.path(), Some(http))).await.unwrap();
    let err = v
        .embed(&EmbedRequest {
            texts: vec!["routing fees".into()],
            model: None,
            embed_version: None,
        })
        .await
        .unwrap_err();
    assert!(err.is_transient(), "unreachable server is transient: {err}");
}
