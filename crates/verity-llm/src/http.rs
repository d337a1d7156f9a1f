//! Shared plumbing of the HTTP generators: the shared client, error mapping
//! and line splitting of streamed bodies. Retries are
//! [`RetryPolicy::run`](verity_core::RetryPolicy::run)'s, which honours the
//! `Retry-After` carried by [`ProviderError::retry_after`].

use std::time::Duration;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use tokio::time::Instant;
use verity_core::{Error, ProviderError, ProviderErrorKind};
use verity_net::{HttpClient, HttpConfig};

/// Timeouts of one HTTP generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// TCP (and TLS) connection establishment; when the generator is given a
    /// shared [`HttpClient`], that client's connect timeout applies instead.
    pub connect: Duration,
    /// From sending the request to the first generated token (streaming) or
    /// to the response headers (non-streaming). Covers model loading.
    pub first_token: Duration,
    /// The whole call, body included.
    pub total: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            connect: Duration::from_secs(5),
            first_token: Duration::from_secs(120),
            total: Duration::from_secs(600),
        }
    }
}

/// What one attempt fails with (the server's `Retry-After` rides on the
/// [`ProviderError`]).
pub(crate) type CallError = Error;

/// The client a generator uses: the one given, else the process-wide default
/// (or, when only a non-default connect timeout was set, a client with it).
pub(crate) fn client(given: Option<HttpClient>, timeouts: &Timeouts) -> Result<HttpClient, Error> {
    match given {
        Some(c) => Ok(c),
        None if timeouts.connect != Timeouts::default().connect => {
            HttpClient::new(HttpConfig::default().with_connect_timeout(timeouts.connect))
        }
        None => HttpClient::shared_default(),
    }
}

/// A provider error.
pub(crate) fn perr(provider: &str, kind: ProviderErrorKind, message: impl Into<String>) -> Error {
    Error::from(ProviderError::new(provider, kind, message))
}

/// Map a transport-level reqwest failure.
pub(crate) fn map_reqwest(provider: &str, url: &str, e: &reqwest::Error) -> Error {
    let kind = if e.is_timeout() {
        ProviderErrorKind::Timeout
    } else if e.is_builder() {
        ProviderErrorKind::InvalidRequest
    } else {
        // connect refused, reset, dropped or truncated body (reqwest reports
        // those as body/decode errors), …
        ProviderErrorKind::Unavailable
    };
    let mut msg = format!("{url}: {e}");
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        source = s.source();
    }
    perr(provider, kind, msg)
}

/// A timeout error.
pub(crate) fn timeout(provider: &str, what: &str, after: Duration) -> Error {
    perr(
        provider,
        ProviderErrorKind::Timeout,
        format!("{what} not received within {after:?}"),
    )
}

/// Generic status → kind mapping shared by both protocols.
pub(crate) fn kind_for_status(status: u16) -> ProviderErrorKind {
    match status {
        401 | 403 => ProviderErrorKind::Auth,
        404 => ProviderErrorKind::ModelNotFound,
        408 => ProviderErrorKind::Timeout,
        429 => ProviderErrorKind::RateLimited,
        s if s >= 500 => ProviderErrorKind::Unavailable,
        s if (400..500).contains(&s) => ProviderErrorKind::InvalidRequest,
        _ => ProviderErrorKind::BadResponse,
    }
}

/// Cut a byte stream into lines (`\n`, `\r\n` or `\r` terminated). The final
/// unterminated fragment, if any, is yielded as a last line. Transport
/// errors are passed through as `Err`.
pub(crate) struct LineSplitter {
    buf: Vec<u8>,
}

impl LineSplitter {
    pub(crate) fn new() -> Self {
        Self { buf: Vec::new() }
    }

    /// Append bytes and take the complete lines now available.
    pub(crate) fn push(&mut self, chunk: &[u8]) -> Vec<String> {
        self.buf.extend_from_slice(chunk);
        let mut lines = Vec::new();
        let mut start = 0;
        let mut i = 0;
        while i < self.buf.len() {
            match self.buf.get(i) {
                Some(b'\n') => {
                    lines.push(
                        String::from_utf8_lossy(self.buf.get(start..i).unwrap_or_default())
                            .into_owned(),
                    );
                    start = i + 1;
                }
                Some(b'\r') => {
                    // A lone `\r` at the very end may be the first half of `\r\n`: wait.
                    if i + 1 == self.buf.len() {
                        break;
                    }
                    lines.push(
                        String::from_utf8_lossy(self.buf.get(start..i).unwrap_or_default())
                            .into_owned(),
                    );
                    if self.buf.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                    start = i + 1;
                }
                _ => {}
            }
            i += 1;
        }
        self.buf.drain(..start.min(self.buf.len()));
        lines
    }

    /// The trailing fragment left when the body ended, if any.
    pub(crate) fn finish(&mut self) -> Option<String> {
        if self.buf.is_empty() {
            return None;
        }
        let mut rest = std::mem::take(&mut self.buf);
        while matches!(rest.last(), Some(b'\r')) {
            rest.pop();
        }
        Some(String::from_utf8_lossy(&rest).into_owned())
    }
}

/// A body byte stream with per-chunk deadlines: the first chunk must come
/// before `first_deadline`, every chunk before `total_deadline`.
pub(crate) type ByteStream = std::pin::Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

/// Wait for the next body chunk under the deadline; `Ok(None)` = end of body.
pub(crate) async fn next_chunk(
    provider: &str,
    url: &str,
    body: &mut ByteStream,
    deadline: Instant,
    what: &str,
    budget: Duration,
) -> Result<Option<Bytes>, Error> {
    match tokio::time::timeout_at(deadline, body.next()).await {
        Err(_) => Err(timeout(provider, what, budget)),
        Ok(None) => Ok(None),
        Ok(Some(Ok(b))) => Ok(Some(b)),
        Ok(Some(Err(e))) => Err(map_reqwest(provider, url, &e)),
    }
}

/// Join a base URL and a path without doubling slashes.
pub(crate) fn join(base: &str, path: &str) -> String {
    format!(
        "{}/{}",
        base.trim_end_matches('/'),
        path.trim_start_matches('/')
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_lines_across_chunks() {
        let mut s = LineSplitter::new();
        assert!(s.push(b"{\"a\":").is_empty());
        assert_eq!(s.push(b"1}\n{\"b\""), vec!["{\"a\":1}".to_string()]);
        assert_eq!(s.push(b":2}\r"), Vec::<String>::new());
        assert_eq!(
            s.push(b"\nx\ry\n"),
            vec!["{\"b\":2}".to_string(), "x".into(), "y".into()]
        );
        assert_eq!(s.push(b"tail"), Vec::<String>::new());
        assert_eq!(s.finish().as_deref(), Some("tail"));
        assert_eq!(s.finish(), None);
    }

    #[test]
    fn splits_utf8_across_chunks() {
        let mut s = LineSplitter::new();
        let text = "é€\n".as_bytes();
        assert!(s.push(&text[..1]).is_empty());
        assert_eq!(s.push(&text[1..]), vec!["é€".to_string()]);
    }

    #[test]
    fn status_kinds() {
        assert_eq!(kind_for_status(401), ProviderErrorKind::Auth);
        assert_eq!(kind_for_status(404), ProviderErrorKind::ModelNotFound);
        assert_eq!(kind_for_status(429), ProviderErrorKind::RateLimited);
        assert_eq!(kind_for_status(503), ProviderErrorKind::Unavailable);
        assert_eq!(kind_for_status(400), ProviderErrorKind::InvalidRequest);
    }

    #[test]
    fn joins_urls() {
        assert_eq!(join("http://h:1/", "/api/chat"), "http://h:1/api/chat");
        assert_eq!(join("http://h:1", "api/chat"), "http://h:1/api/chat");
    }
}
