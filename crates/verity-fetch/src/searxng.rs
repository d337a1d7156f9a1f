//! [`SearxngSearch`]: `WebSearch` through a SearXNG instance's JSON API.

use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use serde::Deserialize;
use url::Url;
use verity_core::{
    ConfigError, Error, ProviderError, ProviderErrorKind, Result, RetryPolicy, WebHit, WebQuery,
    WebSearch, WebTimeRange,
};

use verity_net::HttpClient;

use verity_net::error_chain;

const PROVIDER: &str = "searxng";

/// Web search through SearXNG (`GET {base}/search?q=…&format=json`).
///
/// `WebTimeRange::Week` has no SearXNG equivalent (`time_range` accepts
/// `day`, `month`, `year`): it is sent as `month` and the hits are then
/// filtered to those published in the last 7 days; hits without a
/// `publishedDate` are kept (most engines do not date their results).
#[derive(Debug, Clone)]
pub struct SearxngSearch {
    client: HttpClient,
    base: Url,
    categories: Option<String>,
    engines: Option<String>,
    retry: Option<RetryPolicy>,
    timeout: Duration,
}

#[derive(Debug, Deserialize)]
struct SearxResponse {
    #[serde(default)]
    results: Vec<SearxResult>,
}

#[derive(Debug, Deserialize)]
struct SearxResult {
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    engine: Option<String>,
    #[serde(default, rename = "publishedDate")]
    published_date: Option<serde_json::Value>,
    #[serde(default)]
    score: Option<f64>,
}

impl SearxngSearch {
    /// A client for the instance at `base` (e.g. `http://searxng:8080`), 10 s
    /// timeout, on the process-wide default network settings.
    pub fn new(base: &str) -> Result<Self> {
        Self::with_client(base, &HttpClient::shared_default()?)
    }

    /// A client for the instance at `base` on the shared network layer (its
    /// connection pool and, unless [`Self::with_retry`] is called, its retry policy).
    pub fn with_client(base: &str, net: &HttpClient) -> Result<Self> {
        let base = Url::parse(base).map_err(|e| ConfigError::Invalid {
            key: "searxng_url".into(),
            message: format!("`{base}`: {e}"),
        })?;
        if !matches!(base.scheme(), "http" | "https") {
            return Err(ConfigError::Invalid {
                key: "searxng_url".into(),
                message: "must be http or https".into(),
            }
            .into());
        }
        let timeout = Duration::from_secs(10);
        Ok(Self {
            client: net.clone(),
            base,
            categories: None,
            engines: None,
            retry: None,
            timeout,
        })
    }

    /// Set the request timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Result<Self> {
        if timeout.is_zero() {
            return Err(ConfigError::Invalid {
                key: "searxng_timeout".into(),
                message: "must be positive".into(),
            }
            .into());
        }
        self.timeout = timeout;
        Ok(self)
    }

    /// Restrict to SearXNG categories (comma-separated, e.g. `general,news`).
    pub fn with_categories(mut self, categories: impl Into<String>) -> Self {
        self.categories = Some(categories.into());
        self
    }

    /// Restrict to engines (comma-separated, e.g. `duckduckgo,wikipedia`).
    pub fn with_engines(mut self, engines: impl Into<String>) -> Self {
        self.engines = Some(engines.into());
        self
    }

    /// Set the retry policy for transient failures (429, 5xx, unreachable, timeout).
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = Some(retry);
        self
    }

    fn search_url(&self, q: &WebQuery) -> Result<Url> {
        let mut url = self.base.join("search").map_err(|e| ConfigError::Invalid {
            key: "searxng_url".into(),
            message: e.to_string(),
        })?;
        if !self.base.path().ends_with('/') {
            // `join` would replace the last segment: append instead.
            let path = format!("{}/search", self.base.path().trim_end_matches('/'));
            url = self.base.clone();
            url.set_path(&path);
        }
        {
            let mut qp = url.query_pairs_mut();
            qp.append_pair("q", q.query.trim());
            qp.append_pair("format", "json");
            qp.append_pair("pageno", &q.page.max(1).to_string());
            if let Some(tr) = q.time_range {
                qp.append_pair(
                    "time_range",
                    match tr {
                        WebTimeRange::Day => "day",
                        WebTimeRange::Week | WebTimeRange::Month => "month",
                        WebTimeRange::Year => "year",
                    },
                );
            }
            if let Some(lang) = q.language.as_deref().filter(|l| !l.trim().is_empty()) {
                qp.append_pair("language", lang.trim());
            }
            if let Some(c) = &self.categories {
                qp.append_pair("categories", c);
            }
            if let Some(e) = &self.engines {
                qp.append_pair("engines", e);
            }
        }
        Ok(url)
    }

    async fn once(&self, url: &Url) -> Result<SearxResponse> {
        let err = |kind, msg: String| Error::from(ProviderError::new(PROVIDER, kind, msg));
        let resp = self
            .client
            .client()
            .get(url.clone())
            .timeout(self.timeout)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| {
                if e.is_timeout() {
                    err(
                        ProviderErrorKind::Timeout,
                        format!("no answer from {} within {:?}", self.base, self.timeout),
                    )
                } else {
                    err(
                        ProviderErrorKind::Unavailable,
                        format!("cannot reach SearXNG at {}: {}", self.base, error_chain(&e)),
                    )
                }
            })?;
        let status = resp.status().as_u16();
        match status {
            200..=299 => {}
            403 => {
                return Err(err(
                    ProviderErrorKind::InvalidRequest,
                    format!("SearXNG at {} answered 403: the JSON output format is disabled on this instance; enable `json` in `search.formats` of settings.yml", self.base),
                ))
            }
            429 => {
                let hint = verity_net::retry_after(resp.headers());
                let after = hint.map(|d| format!(" (Retry-After {}s)", d.as_secs())).unwrap_or_default();
                return Err(ProviderError::new(PROVIDER, ProviderErrorKind::RateLimited, format!("SearXNG at {} is rate limiting us (HTTP 429){after}", self.base)).with_retry_after(hint).into());
            }
            500..=599 => {
                let hint = verity_net::retry_after(resp.headers());
                return Err(ProviderError::new(PROVIDER, ProviderErrorKind::Unavailable, format!("SearXNG at {} failed with HTTP {status}", self.base)).with_retry_after(hint).into());
            }
            _ => return Err(err(ProviderErrorKind::InvalidRequest, format!("SearXNG at {} answered HTTP {status}", self.base))),
        }
        let bytes = resp.bytes().await.map_err(|e| {
            if e.is_timeout() {
                err(
                    ProviderErrorKind::Timeout,
                    format!("SearXNG at {} timed out sending results", self.base),
                )
            } else {
                err(
                    ProviderErrorKind::Unavailable,
                    format!("reading SearXNG results: {}", error_chain(&e)),
                )
            }
        })?;
        serde_json::from_slice(&bytes).map_err(|e| {
            err(
                ProviderErrorKind::BadResponse,
                format!("SearXNG results are not the expected JSON: {e}"),
            )
        })
    }
}

/// Parse SearXNG's `publishedDate` (RFC 3339, naive ISO date-time, or date).
fn parse_date(v: &serde_json::Value) -> Option<DateTime<Utc>> {
    let s = v.as_str()?.trim();
    if let Ok(d) = DateTime::parse_from_rfc3339(s) {
        return Some(d.with_timezone(&Utc));
    }
    for fmt in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%d %H:%M:%S",
    ] {
        if let Ok(n) = NaiveDateTime::parse_from_str(s, fmt) {
            return Some(n.and_utc());
        }
    }
    NaiveDate::parse_from_str(s.get(..10).unwrap_or(s), "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|n| n.and_utc())
}

/// Host of a URL without `www.`.
fn host_of(url: &str) -> String {
    Url::parse(url)
        .ok()
        .and_then(|u| {
            u.host_str()
                .map(|h| h.trim_start_matches("www.").to_string())
        })
        .unwrap_or_default()
}

#[async_trait]
impl WebSearch for SearxngSearch {
    async fn search(&self, query: &WebQuery) -> Result<Vec<WebHit>> {
        if query.query.trim().is_empty() {
            return Err(Error::invalid_input("empty web search query"));
        }
        if query.num_results == 0 {
            return Ok(Vec::new());
        }
        let n = query.num_results.min(10);
        let url = self.search_url(query)?;
        let policy = self.retry.unwrap_or_else(|| self.client.retry());
        let resp = policy.run(|_| self.once(&url)).await?;
        let week_ago = Utc::now() - chrono::Duration::days(7);
        let mut seen = std::collections::HashSet::new();
        let hits = resp
            .results
            .into_iter()
            .filter_map(|r| {
                let url = r.url.filter(|u| !u.trim().is_empty())?;
                let published = r.published_date.as_ref().and_then(parse_date);
                Some(WebHit {
                    source: host_of(&url),
                    title: r.title.unwrap_or_default().trim().to_string(),
                    snippet: r.content.unwrap_or_default().trim().to_string(),
                    engine: r.engine,
                    published,
                    score: r.score.map(|s| s as f32),
                    url,
                })
            })
            .filter(|h| {
                query.time_range != Some(WebTimeRange::Week)
                    || h.published.is_none_or(|p| p >= week_ago)
            })
            .filter(|h| seen.insert(h.url.clone()))
            .take(n)
            .collect();
        Ok(hits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_building() {
        let s = SearxngSearch::new("http://127.0.0.1:8080")
            .unwrap()
            .with_categories("news")
            .with_engines("wikipedia");
        let mut q = WebQuery::new("rust async");
        q.time_range = Some(WebTimeRange::Week);
        q.language = Some("fr".into());
        q.page = 2;
        let u = s.search_url(&q).unwrap();
        assert_eq!(u.path(), "/search");
        let pairs: Vec<(String, String)> = u
            .query_pairs()
            .map(|(a, b)| (a.into_owned(), b.into_owned()))
            .collect();
        let get = |k: &str| pairs.iter().find(|(a, _)| a == k).map(|(_, b)| b.as_str());
        assert_eq!(get("q"), Some("rust async"));
        assert_eq!(get("format"), Some("json"));
        assert_eq!(get("time_range"), Some("month"));
        assert_eq!(get("language"), Some("fr"));
        assert_eq!(get("pageno"), Some("2"));
        assert_eq!(get("categories"), Some("news"));
        assert_eq!(get("engines"), Some("wikipedia"));
        let sub = SearxngSearch::new("http://127.0.0.1:8080/searx").unwrap();
        assert_eq!(
            sub.search_url(&WebQuery::new("x")).unwrap().path(),
            "/searx/search"
        );
        assert!(SearxngSearch::new("ftp://x").is_err());
    }

    #[test]
    fn dates() {
        let j = |s: &str| serde_json::Value::String(s.into());
        assert_eq!(
            parse_date(&j("2024-11-20T10:00:00")).unwrap().to_rfc3339(),
            "2024-11-20T10:00:00+00:00"
        );
        assert_eq!(
            parse_date(&j("2024-11-20T10:00:00+02:00"))
                .unwrap()
                .to_rfc3339(),
            "2024-11-20T08:00:00+00:00"
        );
        assert_eq!(
            parse_date(&j("2024-11-20 10:00:00.123"))
                .unwrap()
                .to_rfc3339(),
            "2024-11-20T10:00:00.123+00:00"
        );
        assert_eq!(
            parse_date(&j("2024-11-20")).unwrap().to_rfc3339(),
            "2024-11-20T00:00:00+00:00"
        );
        assert!(parse_date(&serde_json::Value::Null).is_none());
        assert!(parse_date(&j("yesterday")).is_none());
        assert_eq!(host_of("https://www.example.com/a"), "example.com");
    }
}
