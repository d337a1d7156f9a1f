//! [`JinaReader`]: a `Fetcher` through a Jina Reader endpoint (seed 000 `crawl_url`).

use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use url::Url;
use verity_core::{
    ConfigError, FetchStatus, FetchedSource, Fetcher, ProviderError, ProviderErrorKind, Result,
    RetryPolicy,
};

use crate::guard::NetworkGuard;
use verity_core::Retryable;
use verity_net::HttpClient;

use crate::http::validate_url;
use crate::paywall;
use verity_net::error_chain;

/// Reads pages through Jina Reader: `GET {base}/{url}` with
/// `Accept: application/json`, `X-Respond-With: markdown`, `X-Timeout` and an
/// optional bearer key. Understands both the JSON envelope
/// (`{code, status, data: {title, url, content, publishedTime}}`) and the text
/// format (`Title:` / `URL Source:` / `Published Time:` / `Markdown Content:`).
///
/// The target URL is checked by the [`NetworkGuard`] without DNS resolution
/// (scheme, IP literals, metadata host names): the reader, not this process,
/// connects to it.
#[derive(Debug, Clone)]
pub struct JinaReader {
    client: HttpClient,
    base: String,
    api_key: Option<String>,
    timeout: Duration,
    retry: Option<RetryPolicy>,
    guard: NetworkGuard,
    json: bool,
}

#[derive(Debug, Deserialize)]
struct Envelope {
    #[serde(default)]
    code: Option<u16>,
    #[serde(default)]
    data: Option<EnvelopeData>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default, rename = "readableMessage")]
    readable_message: Option<String>,
}

#[derive(Debug, Deserialize, Default)]
struct EnvelopeData {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    content: Option<String>,
    #[serde(default, rename = "publishedTime")]
    published_time: Option<String>,
    #[serde(default)]
    warning: Option<String>,
}

/// The reader's answer, whatever its format.
#[derive(Debug, Default, PartialEq)]
struct Page {
    title: Option<String>,
    url: Option<String>,
    content: String,
    published: Option<String>,
    warning: Option<String>,
}

impl JinaReader {
    /// A reader at `base` (`https://r.jina.ai` or a self-hosted instance), 30 s
    /// timeout, on the process-wide default network settings.
    pub fn new(base: &str) -> Result<Self> {
        Self::with_client(base, &HttpClient::shared_default()?)
    }

    /// A reader at `base` on the shared network layer (its connection pool
    /// and, unless [`Self::with_retry`] is called, its retry policy).
    pub fn with_client(base: &str, net: &HttpClient) -> Result<Self> {
        let parsed = Url::parse(base).map_err(|e| ConfigError::Invalid {
            key: "jina_url".into(),
            message: format!("`{base}`: {e}"),
        })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(ConfigError::Invalid {
                key: "jina_url".into(),
                message: "must be http or https".into(),
            }
            .into());
        }
        let timeout = Duration::from_secs(30);
        Ok(Self {
            client: net.clone(),
            base: base.trim_end_matches('/').to_string(),
            api_key: None,
            timeout,
            retry: None,
            guard: NetworkGuard::default(),
            json: true,
        })
    }

    /// The public endpoint `https://r.jina.ai`.
    pub fn public() -> Result<Self> {
        Self::new("https://r.jina.ai")
    }

    /// Send `Authorization: Bearer <key>`.
    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into()).filter(|k: &String| !k.trim().is_empty());
        self
    }

    /// Set the timeout (also sent as `X-Timeout`, in seconds).
    pub fn with_timeout(mut self, timeout: Duration) -> Result<Self> {
        if timeout.is_zero() {
            return Err(ConfigError::Invalid {
                key: "jina_timeout".into(),
                message: "must be positive".into(),
            }
            .into());
        }
        self.timeout = timeout;
        Ok(self)
    }

    /// Set the retry policy (429 / 5xx / unreachable).
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = Some(retry);
        self
    }

    /// Set the guard applied to target URLs.
    pub fn with_guard(mut self, guard: NetworkGuard) -> Self {
        self.guard = guard;
        self
    }

    /// Ask for the text format instead of JSON (`Accept: text/plain`).
    pub fn with_text_format(mut self) -> Self {
        self.json = false;
        self
    }

    fn outcome(
        &self,
        url: &Url,
        status: FetchStatus,
        http: Option<u16>,
        detail: impl Into<String>,
    ) -> FetchedSource {
        FetchedSource {
            url: url.clone(),
            final_url: url.clone(),
            status,
            http_status: http,
            content_type: None,
            parsed: None,
            detail: Some(detail.into()),
            refusal: None,
            fetched_at: Utc::now(),
        }
    }

    async fn once(
        &self,
        target: &Url,
    ) -> std::result::Result<FetchedSource, (FetchedSource, bool, Option<Duration>)> {
        let endpoint = format!("{}/{}", self.base, target);
        let mut req = self
            .client
            .client()
            .get(&endpoint)
            .timeout(self.timeout + Duration::from_secs(2))
            .header(
                reqwest::header::ACCEPT,
                if self.json {
                    "application/json"
                } else {
                    "text/plain"
                },
            )
            .header("X-Respond-With", "markdown")
            .header("X-Timeout", self.timeout.as_secs().max(1).to_string());
        if let Some(key) = &self.api_key {
            req = req.bearer_auth(key);
        }
        let resp = match req.send().await {
            Ok(r) => r,
            Err(e) if e.is_timeout() => {
                return Err((
                    self.outcome(
                        target,
                        FetchStatus::Timeout,
                        None,
                        format!("Jina Reader did not answer within {:?}", self.timeout),
                    ),
                    true,
                    None,
                ))
            }
            Err(e) => {
                return Err((
                    self.outcome(
                        target,
                        FetchStatus::Failed,
                        None,
                        format!(
                            "cannot reach Jina Reader at {}: {}",
                            self.base,
                            error_chain(&e)
                        ),
                    ),
                    true,
                    None,
                ))
            }
        };
        let status = resp.status().as_u16();
        let retry_after = verity_net::retry_after(resp.headers());
        let ct = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        let body = match resp.bytes().await {
            Ok(b) => b,
            Err(e) if e.is_timeout() => {
                return Err((
                    self.outcome(
                        target,
                        FetchStatus::Timeout,
                        Some(status),
                        "Jina Reader timed out sending the page",
                    ),
                    true,
                    None,
                ))
            }
            Err(e) => {
                return Err((
                    self.outcome(
                        target,
                        FetchStatus::Failed,
                        Some(status),
                        format!("reading Jina Reader answer: {}", error_chain(&e)),
                    ),
                    true,
                    None,
                ))
            }
        };
        let text = String::from_utf8_lossy(&body);
        let envelope: Option<Envelope> =
            if ct.contains("json") || text.trim_start().starts_with('{') {
                serde_json::from_str(&text).ok()
            } else {
                None
            };
        let code = envelope
            .as_ref()
            .and_then(|e| e.code)
            .filter(|c| *c >= 400)
            .unwrap_or(status);
        if !(200..300).contains(&code) {
            let msg = envelope
                .as_ref()
                .and_then(|e| e.readable_message.clone().or_else(|| e.message.clone()))
                .unwrap_or_else(|| text.chars().take(300).collect::<String>());
            let detail = format!("Jina Reader: HTTP {code}: {}", msg.trim());
            let lower = msg.to_ascii_lowercase();
            let (st, transient) = match code {
                401 => {
                    return Err((
                        self.outcome(
                            target,
                            FetchStatus::Failed,
                            Some(code),
                            "Jina Reader refused the API key (HTTP 401)",
                        ),
                        false,
                        None,
                    ))
                }
                404 | 410 => (FetchStatus::NotFound, false),
                403 | 451 => (FetchStatus::Blocked, false),
                402 => (FetchStatus::Failed, false),
                429 => (FetchStatus::RateLimited, true),
                408 | 504 | 524 => (FetchStatus::Timeout, true),
                _ if lower.contains("timeout") || lower.contains("timed out") => {
                    (FetchStatus::Timeout, false)
                }
                _ if lower.contains("404") || lower.contains("not found") => {
                    (FetchStatus::NotFound, false)
                }
                500..=599 => (FetchStatus::Failed, true),
                _ => (FetchStatus::Failed, false),
            };
            return Err((
                self.outcome(target, st, Some(code), detail),
                transient,
                if matches!(code, 429 | 503) {
                    retry_after
                } else {
                    None
                },
            ));
        }
        let page = match envelope {
            Some(env) => {
                let d = env.data.unwrap_or_default();
                Page {
                    title: d.title,
                    url: d.url,
                    content: d.content.unwrap_or_default(),
                    published: d.published_time,
                    warning: d.warning,
                }
            }
            None => parse_text_format(&text),
        };
        Ok(self.page_to_source(target, status, page))
    }

    fn page_to_source(&self, target: &Url, http: u16, page: Page) -> FetchedSource {
        let final_url = page
            .url
            .as_deref()
            .and_then(|u| Url::parse(u).ok())
            .unwrap_or_else(|| target.clone());
        let mut out = self.outcome(&final_url, FetchStatus::Fetched, Some(http), String::new());
        out.url = target.clone();
        out.detail = None;
        out.content_type = Some("text/markdown".into());
        // "Target URL returned error 404: Not Found" and the like.
        if let Some(w) = page.warning.as_deref() {
            let code = w
                .split("error ")
                .nth(1)
                .and_then(|r| r.get(..3))
                .and_then(|c| c.parse::<u16>().ok());
            let st = match code {
                Some(404 | 410) => Some(FetchStatus::NotFound),
                Some(401 | 403 | 451) => Some(FetchStatus::Blocked),
                Some(429) => Some(FetchStatus::RateLimited),
                Some(c) if c >= 500 => Some(FetchStatus::Failed),
                _ => None,
            };
            out.detail = Some(format!("Jina Reader warning: {}", w.trim()));
            if let Some(st) = st {
                out.status = st;
                out.http_status = code;
                return out;
            }
        }
        if page.content.trim().is_empty() {
            out.status = FetchStatus::Failed;
            out.detail = Some("Jina Reader returned no content".into());
            return out;
        }
        match verity_extract::parse_bytes(
            page.content.as_bytes(),
            Some("text/markdown"),
            None,
            Some(&final_url),
        ) {
            Ok(mut doc) => {
                if let Some(t) = page.title.filter(|t| !t.trim().is_empty()) {
                    doc.document.title = Some(t.trim().to_string());
                }
                if let Some(ts) = page.published.as_deref().and_then(parse_published) {
                    doc.document.ts = Some(ts);
                }
                doc.document.url = Some(final_url.to_string());
                if doc.document.source.is_empty() {
                    doc.document.source = final_url.host_str().unwrap_or("").to_string();
                }
                if let Some(reason) = paywall::text_signals(&doc.document.content)
                    .verdict(paywall::word_count(&doc.document.content))
                {
                    out.status = FetchStatus::Paywalled;
                    out.detail = Some(reason);
                }
                out.parsed = Some(doc);
            }
            Err(e) => {
                out.status = FetchStatus::Failed;
                out.detail = Some(format!("could not parse Jina Reader content: {e}"));
            }
        }
        out
    }
}

/// `publishedTime`: RFC 3339, RFC 2822, or a naive date.
fn parse_published(s: &str) -> Option<DateTime<Utc>> {
    let s = s.trim();
    DateTime::parse_from_rfc3339(s)
        .or_else(|_| DateTime::parse_from_rfc2822(s))
        .map(|d| d.with_timezone(&Utc))
        .ok()
        .or_else(|| {
            chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f")
                .ok()
                .map(|n| n.and_utc())
        })
        .or_else(|| {
            chrono::NaiveDate::parse_from_str(s.get(..10).unwrap_or(s), "%Y-%m-%d")
                .ok()
                .and_then(|d| d.and_hms_opt(0, 0, 0))
                .map(|n| n.and_utc())
        })
}

/// Parse Jina's text format: header lines, then `Markdown Content:` and the body.
fn parse_text_format(text: &str) -> Page {
    let mut page = Page::default();
    let mut lines = text.lines();
    let mut body_started = false;
    let mut body = Vec::new();
    for line in lines.by_ref() {
        if let Some(v) = line.strip_prefix("Title:") {
            page.title = Some(v.trim().to_string());
        } else if let Some(v) = line.strip_prefix("URL Source:") {
            page.url = Some(v.trim().to_string());
        } else if let Some(v) = line.strip_prefix("Published Time:") {
            page.published = Some(v.trim().to_string());
        } else if let Some(v) = line.strip_prefix("Warning:") {
            page.warning = Some(v.trim().to_string());
        } else if let Some(v) = line.strip_prefix("Markdown Content:") {
            body_started = true;
            if !v.trim().is_empty() {
                body.push(v.trim_start());
            }
            break;
        }
    }
    if body_started {
        body.extend(lines);
    } else {
        // Not the header format: take everything as the content.
        body = text.lines().collect();
    }
    page.content = body.join("\n").trim().to_string();
    page
}

/// A failed attempt, classified for the retry policy.
struct Failed {
    src: FetchedSource,
    transient: bool,
    retry_after: Option<Duration>,
}

impl Retryable for Failed {
    fn is_transient(&self) -> bool {
        // A refused key is never retried.
        self.transient && self.src.http_status != Some(401)
    }
    fn retry_after(&self) -> Option<Duration> {
        self.retry_after
    }
}

#[async_trait]
impl Fetcher for JinaReader {
    async fn fetch(&self, url: &Url) -> Result<FetchedSource> {
        validate_url(url)?;
        if self.guard.is_enabled() {
            if let Err(refusal) = self.guard.check_url(url) {
                return Ok(FetchedSource {
                    refusal: Some(refusal.refusal()),
                    ..self.outcome(url, FetchStatus::Blocked, None, refusal.to_string())
                });
            }
        }
        let policy = self.retry.unwrap_or_else(|| self.client.retry());
        let once = |_| async {
            self.once(url)
                .await
                .map_err(|(src, transient, retry_after)| Failed {
                    src,
                    transient,
                    retry_after,
                })
        };
        match policy.run(once).await {
            Ok(src) => Ok(src),
            Err(Failed { src, .. }) if src.http_status == Some(401) => Err(ProviderError::new(
                "jina",
                ProviderErrorKind::Auth,
                src.detail.unwrap_or_default(),
            )
            .into()),
            Err(Failed { src, .. }) => Ok(src),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_format() {
        let t = "Title: Announcing Ollama 0.5\n\nURL Source: https://blog.example.com/ollama-0-5\n\nPublished Time: 2024-12-05T14:30:00Z\n\nMarkdown Content:\nToday we're releasing Ollama 0.5.\n\n## Performance\n\nFaster.\n";
        let p = parse_text_format(t);
        assert_eq!(p.title.as_deref(), Some("Announcing Ollama 0.5"));
        assert_eq!(
            p.url.as_deref(),
            Some("https://blog.example.com/ollama-0-5")
        );
        assert_eq!(p.published.as_deref(), Some("2024-12-05T14:30:00Z"));
        assert!(p.content.starts_with("Today we're releasing"));
        assert!(p.content.ends_with("Faster."));
        let p = parse_text_format("just some text");
        assert_eq!(p.content, "just some text");
        assert_eq!(
            parse_published("Thu, 05 Dec 2024 14:30:00 GMT")
                .unwrap()
                .to_rfc3339(),
            "2024-12-05T14:30:00+00:00"
        );
        assert_eq!(
            parse_published("2024-12-05").unwrap().to_rfc3339(),
            "2024-12-05T00:00:00+00:00"
        );
    }
}
