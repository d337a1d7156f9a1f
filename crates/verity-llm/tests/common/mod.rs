//! In-process fake servers on 127.0.0.1 (random port).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
#![allow(dead_code)]

use std::time::Duration;

use axum::body::{Body, Bytes};
use futures::StreamExt;
use verity_core::{Error, ProviderErrorKind};

/// Serve `app` on 127.0.0.1:0 and return its base URL.
pub async fn serve(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    format!("http://{addr}")
}

/// A URL where nothing listens (connection refused).
pub async fn dead_url() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{addr}")
}

/// A body that sends `chunks` with `pause` before each, then (optionally) aborts the connection.
pub fn paced_body(chunks: Vec<String>, pause: Duration, abort_at_end: bool) -> Body {
    let mut items: Vec<Result<Bytes, std::io::Error>> =
        chunks.into_iter().map(|c| Ok(Bytes::from(c))).collect();
    if abort_at_end {
        items.push(Err(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "server dropped the connection",
        )));
    }
    let s = futures::stream::iter(items).then(move |item| async move {
        tokio::time::sleep(pause).await;
        item
    });
    Body::from_stream(s)
}

/// Provider kind of an error, panicking on other variants.
pub fn kind(e: &Error) -> ProviderErrorKind {
    match e {
        Error::Provider(p) => p.kind,
        other => panic!("expected a provider error, got {other:?}"),
    }
}
