//! What the HTTP generators share beyond [`verity_net`] (which maps their
//! failures and holds their common options): timeouts of a streamed answer
//! and line splitting of streamed bodies. Retries are
//! [`RetryPolicy::run`](verity_core::RetryPolicy::run)'s, which honours the
//! `Retry-After` carried by [`ProviderError::retry_after`](verity_core::ProviderError::retry_after).

use std::time::Duration;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use tokio::time::Instant;
use verity_core::{Error, ProviderError, ProviderErrorKind};

/// Timeouts of one HTTP generator. The connect timeout is the shared
/// client's ([`verity_net::HttpConfig::connect_timeout`]): give the builder
/// a client built with the one you want.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// From sending the request to the first generated token (streaming) or
    /// to the response headers (non-streaming). Covers model loading.
    pub first_token: Duration,
    /// The whole call, body included.
    pub total: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            first_token: Duration::from_secs(120),
            total: Duration::from_secs(600),
        }
    }
}

/// What one attempt fails with (the server's `Retry-After` rides on the
/// [`ProviderError`]).
pub(crate) type CallError = Error;

/// A provider error.
pub(crate) fn perr(provider: &str, kind: ProviderErrorKind, message: impl Into<String>) -> Error {
    Error::from(ProviderError::new(provider, kind, message))
}

/// A timeout error.
pub(crate) fn timeout(provider: &str, what: &str, after: Duration) -> Error {
    perr(
        provider,
        ProviderErrorKind::Timeout,
        format!("{what} not received within {after:?}"),
    )
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
        Ok(Some(Err(e))) => {
            Err(verity_net::status::transport_error(provider, url, &e, budget).into())
        }
    }
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
}
