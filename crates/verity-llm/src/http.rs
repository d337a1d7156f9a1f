//! What the HTTP generators share beyond [`verity_net`] (which maps their
//! failures and holds their common options): timeouts of a streamed answer
//! and line splitting of streamed bodies. Retries are
//! [`RetryPolicy::run`](verity_core::RetryPolicy::run)'s, which honours the
//! `Retry-After` carried by [`ProviderError::retry_after`](verity_core::ProviderError::retry_after).

use std::collections::VecDeque;
use std::future::Future;
use std::time::Duration;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use tokio::time::Instant;
use verity_core::{Error, ProviderError, ProviderErrorKind};
use verity_net::RemoteEndpoint;

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
struct LineSplitter {
    buf: Vec<u8>,
}

impl LineSplitter {
    fn new() -> Self {
        Self { buf: Vec::new() }
    }

    /// Append bytes and take the complete lines now available.
    fn push(&mut self, chunk: &[u8]) -> Vec<String> {
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
    fn finish(&mut self) -> Option<String> {
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

/// A body byte stream.
type ByteStream = std::pin::Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

/// Send a streaming request (`post` builds one attempt) under the retry
/// policy until its response headers arrive within the first-token
/// deadline; the response and when its attempt started.
pub(crate) async fn open_stream<F, Fut>(
    endpoint: &RemoteEndpoint,
    timeouts: Timeouts,
    post: F,
) -> Result<(reqwest::Response, Instant), Error>
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<reqwest::Response, Error>>,
{
    endpoint
        .retry()
        .run(|_| {
            let attempt = post();
            async move {
                let start = Instant::now();
                let deadline = start + timeouts.first_token.min(timeouts.total);
                match tokio::time::timeout_at(deadline, attempt).await {
                    Ok(r) => r.map(|resp| (resp, start)),
                    Err(_) => Err(timeout(
                        endpoint.provider(),
                        "first token",
                        timeouts.first_token,
                    )),
                }
            }
        })
        .await
}

/// The lines of a streamed body under a generator's deadlines: until
/// [`Self::started`] is set (the first token arrived) each read must end
/// within the first-token timeout, and all of them within the total one.
pub(crate) struct StreamedLines {
    provider: &'static str,
    /// The endpoint streamed from (for messages).
    pub url: String,
    body: ByteStream,
    lines: LineSplitter,
    /// Complete lines not yet consumed.
    queue: VecDeque<String>,
    first_deadline: Instant,
    total_deadline: Instant,
    timeouts: Timeouts,
    /// Set by the protocol once the first token was produced.
    pub started: bool,
    eof: bool,
}

impl StreamedLines {
    /// Read `response`, whose attempt began at `start`.
    pub(crate) fn new(
        provider: &'static str,
        url: String,
        response: reqwest::Response,
        start: Instant,
        timeouts: Timeouts,
    ) -> Self {
        Self {
            provider,
            url,
            body: Box::pin(response.bytes_stream()),
            lines: LineSplitter::new(),
            queue: VecDeque::new(),
            first_deadline: start + timeouts.first_token,
            total_deadline: start + timeouts.total,
            timeouts,
            started: false,
            eof: false,
        }
    }

    /// The next line (an unterminated last one included); `Ok(None)` once
    /// the body has ended and every line was taken.
    pub(crate) async fn next_line(&mut self) -> Result<Option<String>, Error> {
        loop {
            if let Some(line) = self.queue.pop_front() {
                return Ok(Some(line));
            }
            if self.eof {
                return Ok(None);
            }
            let (deadline, what, budget) = if self.started {
                (self.total_deadline, "complete answer", self.timeouts.total)
            } else if self.first_deadline <= self.total_deadline {
                (
                    self.first_deadline,
                    "first token",
                    self.timeouts.first_token,
                )
            } else {
                (self.total_deadline, "complete answer", self.timeouts.total)
            };
            match tokio::time::timeout_at(deadline, self.body.next()).await {
                Err(_) => return Err(timeout(self.provider, what, budget)),
                Ok(Some(Ok(bytes))) => {
                    let lines = self.lines.push(&bytes);
                    self.queue.extend(lines);
                }
                Ok(None) => {
                    self.eof = true;
                    if let Some(rest) = self.lines.finish() {
                        self.queue.push_back(rest);
                    }
                }
                Ok(Some(Err(e))) => {
                    return Err(verity_net::status::transport_error(
                        self.provider,
                        &self.url,
                        &e,
                        budget,
                    )
                    .into())
                }
            }
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
