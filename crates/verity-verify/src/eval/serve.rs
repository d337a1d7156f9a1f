//! A loopback HTTP responder for the evaluation sets: fixed bodies by path,
//! 404 for anything else, one request per connection.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use verity_core::{Error, Result};

/// `text/markdown` pages.
pub(crate) const MARKDOWN: &str = "text/markdown; charset=utf-8";
/// HTML pages.
pub(crate) const HTML: &str = "text/html; charset=utf-8";

/// Path → (content type, body).
pub(crate) type Routes = Vec<(String, &'static str, Vec<u8>)>;

/// Serve `routes` at `http://127.0.0.1:PORT` until the returned task is
/// aborted; returns the base URL.
pub(crate) async fn serve(routes: Routes) -> Result<(String, tokio::task::JoinHandle<()>)> {
    let routes: Arc<HashMap<String, (&'static str, Vec<u8>)>> = Arc::new(
        routes
            .into_iter()
            .map(|(path, ct, body)| (path, (ct, body)))
            .collect(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| Error::invalid_input(format!("cannot bind a loopback port: {e}")))?;
    let addr = listener
        .local_addr()
        .map_err(|e| Error::invalid_input(format!("loopback address: {e}")))?;
    let task = tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let routes = routes.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                let mut len = 0;
                while len < buf.len() {
                    match sock.read(&mut buf[len..]).await {
                        Ok(0) | Err(_) => break,
                        Ok(k) => len += k,
                    }
                    if buf[..len].windows(4).any(|w| w == b"\r\n\r\n") {
                        break;
                    }
                }
                let head = String::from_utf8_lossy(&buf[..len]);
                let path = head.split_whitespace().nth(1).unwrap_or("");
                let (status, ct, body): (&str, &str, &[u8]) = match routes.get(path) {
                    Some((ct, body)) => ("200 OK", ct, body),
                    None => ("404 Not Found", "text/plain", b"not found"),
                };
                let head = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: {ct}\r\n\
                     content-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = sock.write_all(head.as_bytes()).await;
                let _ = sock.write_all(body).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    Ok((format!("http://{addr}"), task))
}

/// A loopback URL where nothing listens (a port bound, then released).
pub(crate) async fn refused_url() -> Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| Error::invalid_input(format!("cannot bind a loopback port: {e}")))?;
    let addr = listener
        .local_addr()
        .map_err(|e| Error::invalid_input(format!("loopback address: {e}")))?;
    drop(listener);
    Ok(format!("http://{addr}"))
}
