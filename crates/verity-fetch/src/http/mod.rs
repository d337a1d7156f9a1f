//! [`HttpFetcher`]: the guarded, polite, retrying HTTP fetcher.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use chrono::Utc;
use reqwest::header::{ACCEPT, CONTENT_TYPE, LOCATION};
use url::Url;
use verity_core::{
    ConfigError, FetchError, FetchStatus, FetchedSource, Fetcher, ParsedDocument, Refusal, Result,
    RetryPolicy, Retryable,
};
use verity_net::{error_chain, HttpClient};

use crate::guard::{find_refusal, GuardedResolver};
use crate::paywall;
use crate::robots::Robots;

mod config;
mod politeness;

pub use config::FetchConfig;
use politeness::{HostLimiter, ResponseCache};

/// `Accept` header sent for page fetches.
pub(crate) const PAGE_ACCEPT: &str =
    "text/html,application/xhtml+xml;q=0.9,application/pdf;q=0.9,text/markdown;q=0.8,text/plain;q=0.8,*/*;q=0.5";

/// What one hop chain produced, before parsing.
#[derive(Debug, Clone)]
pub(crate) struct Raw {
    pub final_url: Url,
    pub status: FetchStatus,
    pub http_status: Option<u16>,
    pub content_type: Option<String>,
    pub body: Option<Vec<u8>>,
    pub detail: Option<String>,
    pub refusal: Option<Refusal>,
}

impl Raw {
    fn outcome(
        final_url: Url,
        status: FetchStatus,
        http_status: Option<u16>,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            final_url,
            status,
            http_status,
            content_type: None,
            body: None,
            detail: Some(detail.into()),
            refusal: None,
        }
    }

    /// A hop refused before any request: `Blocked`, typed, in words.
    fn refused(final_url: Url, refusal: Refusal, detail: impl Into<String>) -> Self {
        Self {
            refusal: Some(refusal),
            ..Self::outcome(final_url, FetchStatus::Blocked, None, detail)
        }
    }
}

/// Options of one retrieval.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Opts<'a> {
    pub accept: &'a str,
    pub max_body: u64,
    /// Keep the first `max_body` bytes instead of failing (robots.txt).
    pub truncate: bool,
    pub robots: bool,
}

// One value per hop, moved and never stored: the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
enum Step {
    Redirect(String),
    Done {
        raw: Raw,
        transient: bool,
        retry_after: Option<Duration>,
    },
}

/// A transient outcome, handed to the retry policy.
struct Transient {
    raw: Raw,
    retry_after: Option<Duration>,
}

impl Retryable for Transient {
    fn is_transient(&self) -> bool {
        true
    }
    fn retry_after(&self) -> Option<Duration> {
        self.retry_after
    }
}

struct Inner {
    client: reqwest::Client,
    retry: RetryPolicy,
    config: FetchConfig,
    limiter: HostLimiter,
    robots: Mutex<HashMap<String, (Instant, Arc<Robots>)>>,
    cache: Mutex<ResponseCache>,
}

/// HTTP(S) fetcher: SSRF guard, manual redirects (each hop re-checked),
/// timeouts, streamed body cap, retries with backoff (`Retry-After` honoured),
/// per-host rate limit, robots.txt, paywall detection, response cache, and
/// parsing through `verity_extract::parse_bytes`. Cheap to clone.
#[derive(Clone)]
pub struct HttpFetcher {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for HttpFetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpFetcher")
            .field("config", &self.inner.config)
            .finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// `scheme://host:port` of a URL (robots.txt and rate-limit key).
fn origin_key(url: &Url) -> String {
    format!(
        "{}://{}:{}",
        url.scheme(),
        url.host_str().unwrap_or(""),
        url.port_or_known_default().unwrap_or(0)
    )
}

/// Check a URL's scheme and host before anything else.
pub(crate) fn validate_url(url: &Url) -> Result<()> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(FetchError::InvalidUrl {
            url: url.to_string(),
            message: format!(
                "unsupported scheme `{}` (only http and https)",
                url.scheme()
            ),
        }
        .into());
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(FetchError::InvalidUrl {
            url: url.to_string(),
            message: "no host".into(),
        }
        .into());
    }
    Ok(())
}

impl HttpFetcher {
    /// Build a fetcher from a configuration, on the process-wide default
    /// network settings ([`HttpClient::shared_default`]).
    pub fn new(config: FetchConfig) -> Result<Self> {
        Self::with_client(config, &HttpClient::shared_default()?)
    }

    /// Build a fetcher on the shared network layer: its open-web client is
    /// derived once from `net`'s configuration (TLS roots; no proxy and no
    /// automatic redirects, so the SSRF guard sees every connection), with
    /// this fetcher's user agent and guarded resolver (the connect timeout is
    /// `net`'s, set in one place: [`verity_net::HttpConfig`]); the
    /// retry policy is `net`'s unless `config` sets one. Build one per
    /// application and share it (clone or `Arc`): the per-host rate limiter,
    /// the robots.txt cache and the response cache live inside.
    pub fn with_client(config: FetchConfig, net: &HttpClient) -> Result<Self> {
        config.validate()?;
        let guard = Arc::new(config.guard.clone());
        let retry = config.retry.unwrap_or_else(|| net.retry());
        let client = net
            .web_client_builder()?
            .user_agent(config.user_agent.clone())
            .dns_resolver(GuardedResolver { guard })
            .build()
            .map_err(|e| ConfigError::Invalid {
                key: "http_client".into(),
                message: e.to_string(),
            })?;
        Ok(Self {
            inner: Arc::new(Inner {
                client,
                retry,
                config,
                limiter: HostLimiter::default(),
                robots: Mutex::new(HashMap::new()),
                cache: Mutex::new(ResponseCache::default()),
            }),
        })
    }

    /// A fetcher with the default configuration.
    pub fn with_defaults() -> Result<Self> {
        Self::new(FetchConfig::default())
    }

    /// The configuration in use.
    pub fn config(&self) -> &FetchConfig {
        &self.inner.config
    }

    /// Drop every cached response and robots.txt.
    pub fn clear_cache(&self) {
        lock(&self.inner.cache).entries.clear();
        lock(&self.inner.robots).clear();
    }

    /// Fetch `url` with a custom `Accept` header and return the raw body
    /// (no parsing, no cache): used for content negotiation (CSL-JSON, …).
    /// Same guard, redirects, robots, retries and size cap as [`Fetcher::fetch`].
    pub async fn fetch_raw(
        &self,
        url: &Url,
        accept: &str,
    ) -> Result<(FetchedSource, Option<Vec<u8>>)> {
        validate_url(url)?;
        let raw = self
            .retrieve(
                url,
                Opts {
                    accept,
                    max_body: self.inner.config.max_body_bytes,
                    truncate: false,
                    robots: self.inner.config.respect_robots,
                },
            )
            .await;
        let src = FetchedSource {
            url: url.clone(),
            final_url: raw.final_url,
            status: raw.status,
            http_status: raw.http_status,
            content_type: raw.content_type,
            parsed: None,
            detail: raw.detail,
            refusal: raw.refusal,
            fetched_at: Utc::now(),
        };
        Ok((src, raw.body))
    }

    /// Follow redirects from `url`, checking every hop.
    pub(crate) async fn retrieve(&self, url: &Url, opts: Opts<'_>) -> Raw {
        let cfg = &self.inner.config;
        let mut current = url.clone();
        let mut visited: HashSet<String> = HashSet::new();
        visited.insert(current.as_str().to_string());
        let mut hops = 0usize;
        loop {
            if let Err(refusal) = cfg.guard.check_url(&current) {
                return Raw::refused(current, refusal.refusal(), refusal.to_string());
            }
            if opts.robots {
                match self.robots_allow(&current).await {
                    Ok(true) => {}
                    Ok(false) => {
                        let detail = FetchError::RobotsDisallowed(current.to_string()).to_string();
                        return Raw::refused(current, Refusal::RobotsTxt, detail);
                    }
                    // The host refused by the guard (after DNS resolution),
                    // unreachable, or robots.txt failing: the status and
                    // reason as they were found.
                    Err(RobotsUnavailable {
                        status,
                        detail,
                        refusal,
                    }) => {
                        return Raw {
                            refusal,
                            ..Raw::outcome(current, status, None, detail)
                        };
                    }
                }
            }
            match self.with_retries(&current, opts).await {
                Step::Done { mut raw, .. } => {
                    raw.final_url = current;
                    return raw;
                }
                Step::Redirect(location) => {
                    hops += 1;
                    let next = match current.join(&location) {
                        Ok(u) => u,
                        Err(e) => {
                            return Raw::outcome(
                                current,
                                FetchStatus::Failed,
                                None,
                                format!("invalid redirect Location `{location}`: {e}"),
                            )
                        }
                    };
                    if hops > cfg.max_redirects {
                        return Raw::outcome(
                            current,
                            FetchStatus::Failed,
                            None,
                            FetchError::TooManyRedirects(url.to_string()).to_string()
                                + &format!(" (more than {})", cfg.max_redirects),
                        );
                    }
                    if !visited.insert(next.as_str().to_string()) {
                        return Raw::outcome(
                            next,
                            FetchStatus::Failed,
                            None,
                            format!("redirect loop detected at {}", current),
                        );
                    }
                    tracing::debug!(from = %current, to = %next, "redirect");
                    current = next;
                }
            }
        }
    }

    /// One hop, retried on transient failures by the shared retry policy.
    async fn with_retries(&self, url: &Url, opts: Opts<'_>) -> Step {
        let cfg = &self.inner.config;
        let key = origin_key(url);
        let tries = std::sync::atomic::AtomicU32::new(0);
        let result = self
            .inner
            .retry
            .run(|attempt| {
                let key = &key;
                let tries = &tries;
                async move {
                    tries.store(attempt, std::sync::atomic::Ordering::Relaxed);
                    if attempt > 1 {
                        tracing::debug!(url = %url, attempt, "retrying");
                    }
                    self.inner.limiter.wait(key, cfg.per_host_interval).await;
                    let step = match tokio::time::timeout(cfg.timeout, self.request_once(url, opts))
                        .await
                    {
                        Ok(step) => step,
                        Err(_) => Step::Done {
                            raw: Raw::outcome(
                                url.clone(),
                                FetchStatus::Timeout,
                                None,
                                format!(
                                    "{} (no answer within {} s)",
                                    FetchError::Timeout(url.to_string()),
                                    cfg.timeout.as_secs_f64()
                                ),
                            ),
                            transient: true,
                            retry_after: None,
                        },
                    };
                    match step {
                        Step::Done {
                            raw,
                            transient: true,
                            retry_after,
                        } => Err(Transient { raw, retry_after }),
                        other => Ok(other),
                    }
                }
            })
            .await;
        match result {
            Ok(step) => step,
            Err(Transient {
                mut raw,
                retry_after,
            }) => {
                let n = tries.load(std::sync::atomic::Ordering::Relaxed);
                if n > 1 {
                    raw.detail = raw.detail.map(|d| format!("{d} (after {n} attempts)"));
                } else if let Some(after) =
                    retry_after.filter(|_| self.inner.retry.max_attempts > 1)
                {
                    raw.detail = raw.detail.map(|d| {
                        format!(
                            "{d} (Retry-After {}s is beyond the retry cap)",
                            after.as_secs()
                        )
                    });
                }
                Step::Done {
                    raw,
                    transient: true,
                    retry_after,
                }
            }
        }
    }

    /// One request, no retry.
    async fn request_once(&self, url: &Url, opts: Opts<'_>) -> Step {
        let done = |raw: Raw, transient: bool| Step::Done {
            raw,
            transient,
            retry_after: None,
        };
        let resp = match self
            .inner
            .client
            .get(url.clone())
            .header(ACCEPT, opts.accept)
            .send()
            .await
        {
            Ok(r) => r,
            Err(e) => {
                if let Some(refusal) = find_refusal(&e) {
                    return done(
                        Raw::refused(url.clone(), refusal.refusal(), refusal.to_string()),
                        false,
                    );
                }
                if e.is_timeout() {
                    return done(
                        Raw::outcome(
                            url.clone(),
                            FetchStatus::Timeout,
                            None,
                            FetchError::Timeout(url.to_string()).to_string(),
                        ),
                        true,
                    );
                }
                let msg = network_failure(url, &e);
                return done(
                    Raw::outcome(
                        url.clone(),
                        FetchStatus::Failed,
                        None,
                        FetchError::Network {
                            url: url.to_string(),
                            message: msg,
                        }
                        .to_string(),
                    ),
                    true,
                );
            }
        };
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        if matches!(status, 301 | 302 | 303 | 307 | 308) {
            if let Some(loc) = headers.get(LOCATION).and_then(|v| v.to_str().ok()) {
                return Step::Redirect(loc.to_string());
            }
        }
        let content_type = headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let http = Some(status);
        let http_err = || {
            FetchError::Http {
                url: url.to_string(),
                status,
                retry_after: None,
            }
            .to_string()
        };
        let (class, transient) = match status {
            200..=299 | 402 => (None, false),
            404 | 410 => (Some(FetchStatus::NotFound), false),
            401 | 403 => (Some(FetchStatus::Blocked), false),
            429 => (Some(FetchStatus::RateLimited), true),
            408 | 504 => (Some(FetchStatus::Timeout), true),
            500..=599 => (Some(FetchStatus::Failed), true),
            _ => (Some(FetchStatus::Failed), false),
        };
        if let Some(class) = class {
            let retry_after = if matches!(status, 429 | 503) {
                verity_net::retry_after(&headers)
            } else {
                None
            };
            let mut raw = Raw::outcome(url.clone(), class, http, http_err());
            raw.content_type = content_type;
            return Step::Done {
                raw,
                transient,
                retry_after,
            };
        }
        // 2xx (and 402, whose body may hold the teaser): read, capped.
        let mut resp = resp;
        if let Some(len) = resp.content_length() {
            if len > opts.max_body && !opts.truncate {
                let detail = FetchError::TooLarge {
                    url: url.to_string(),
                    limit: opts.max_body,
                }
                .to_string()
                    + &format!(" (Content-Length {len})");
                return done(
                    Raw {
                        content_type,
                        ..Raw::outcome(url.clone(), FetchStatus::Failed, http, detail)
                    },
                    false,
                );
            }
        }
        let mut body: Vec<u8> = Vec::new();
        loop {
            match resp.chunk().await {
                Ok(Some(chunk)) => {
                    body.extend_from_slice(&chunk);
                    if body.len() as u64 > opts.max_body {
                        if opts.truncate {
                            body.truncate(usize::try_from(opts.max_body).unwrap_or(usize::MAX));
                            break;
                        }
                        let detail = FetchError::TooLarge {
                            url: url.to_string(),
                            limit: opts.max_body,
                        }
                        .to_string();
                        return done(
                            Raw {
                                content_type,
                                ..Raw::outcome(url.clone(), FetchStatus::Failed, http, detail)
                            },
                            false,
                        );
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    let (st, msg) = if e.is_timeout() {
                        (
                            FetchStatus::Timeout,
                            FetchError::Timeout(url.to_string()).to_string(),
                        )
                    } else {
                        (
                            FetchStatus::Failed,
                            FetchError::Network {
                                url: url.to_string(),
                                message: format!("reading body: {}", error_chain(&e)),
                            }
                            .to_string(),
                        )
                    };
                    return done(
                        Raw {
                            content_type,
                            ..Raw::outcome(url.clone(), st, http, msg)
                        },
                        true,
                    );
                }
            }
        }
        let (st, detail) = if status == 402 {
            (
                FetchStatus::Paywalled,
                Some("HTTP 402 Payment Required".to_string()),
            )
        } else {
            (FetchStatus::Fetched, None)
        };
        done(
            Raw {
                final_url: url.clone(),
                status: st,
                http_status: http,
                content_type,
                body: Some(body),
                detail,
                refusal: None,
            },
            false,
        )
    }

    /// robots.txt decision for `url` (cached per origin); `Err` when the
    /// host itself could not be asked (the guard's refusal, a timeout, a
    /// network failure) or robots.txt answered a server error.
    fn robots_allow<'a>(
        &'a self,
        url: &'a Url,
    ) -> Pin<Box<dyn Future<Output = std::result::Result<bool, RobotsUnavailable>> + Send + 'a>>
    {
        Box::pin(async move {
            let cfg = &self.inner.config;
            let key = origin_key(url);
            let cached = lock(&self.inner.robots)
                .get(&key)
                .filter(|(at, _)| at.elapsed() < cfg.robots_ttl)
                .map(|(_, r)| r.clone());
            let robots = match cached {
                Some(r) => r,
                None => {
                    let robots = Arc::new(self.load_robots(url).await?);
                    let mut map = lock(&self.inner.robots);
                    if map.len() > 1024 {
                        map.retain(|_, (at, _)| at.elapsed() < cfg.robots_ttl);
                    }
                    map.insert(key, (Instant::now(), robots.clone()));
                    robots
                }
            };
            let mut path = url.path().to_string();
            if let Some(q) = url.query() {
                path.push('?');
                path.push_str(q);
            }
            Ok(robots.allowed(&cfg.robots_agent, &path))
        })
    }

    async fn load_robots(&self, url: &Url) -> std::result::Result<Robots, RobotsUnavailable> {
        let mut robots_url = url.clone();
        robots_url.set_path("/robots.txt");
        robots_url.set_query(None);
        robots_url.set_fragment(None);
        let raw = self
            .retrieve(
                &robots_url,
                Opts {
                    accept: "text/plain,*/*;q=0.5",
                    max_body: 512 * 1024,
                    truncate: true,
                    robots: false,
                },
            )
            .await;
        // The host refused by the guard, unreachable (refused, DNS, TLS,
        // timeout): that is what happened to the page too — say so, never
        // "disallowed by robots.txt", which only a fetched robots.txt can say.
        // The failure is reported against the page asked for (the host's
        // state, not a robots.txt rule).
        if raw.http_status.is_none() && raw.status != FetchStatus::Fetched {
            return Err(RobotsUnavailable {
                status: raw.status,
                refusal: raw.refusal,
                detail: raw.detail.map_or_else(
                    || "the host could not be reached".into(),
                    |d| d.replace(robots_url.as_str(), url.as_str()),
                ),
            });
        }
        Ok(match (raw.status, raw.http_status) {
            (FetchStatus::Fetched, _) => {
                Robots::parse(&String::from_utf8_lossy(raw.body.as_deref().unwrap_or(&[])))
            }
            // RFC 9309 §2.3.1.3: 4xx "unavailable" ⇒ allow all (429 is treated as unreachable).
            (_, Some(s)) if (400..500).contains(&s) && s != 429 => Robots::AllowAll,
            // §2.3.1.4: a server error on robots.txt ⇒ treat the site as
            // disallowed until it answers; said as such.
            (_, Some(s)) => {
                return Err(RobotsUnavailable {
                    status: FetchStatus::Blocked,
                    refusal: Some(Refusal::RobotsTxt),
                    detail: format!(
                        "robots.txt could not be read (HTTP {s}); RFC 9309 asks crawlers to stay \
                         away until the site answers it"
                    ),
                })
            }
            _ => Robots::DisallowAll,
        })
    }

    /// Parse a retrieved body and apply the paywall heuristics.
    async fn finish(&self, url: &Url, raw: Raw) -> FetchedSource {
        let mut out = FetchedSource {
            url: url.clone(),
            final_url: raw.final_url.clone(),
            status: raw.status,
            http_status: raw.http_status,
            content_type: raw.content_type.clone(),
            parsed: None,
            detail: raw.detail.clone(),
            refusal: raw.refusal.clone(),
            fetched_at: Utc::now(),
        };
        let Some(body) = raw.body else { return out };
        let ct = raw.content_type.clone();
        let final_url = raw.final_url.clone();
        let detect = self.inner.config.detect_paywalls;
        let parsed = tokio::task::spawn_blocking(move || {
            parse_and_judge(&body, ct.as_deref(), &final_url, detect)
        })
        .await;
        match parsed {
            Ok(Ok((doc, verdict))) => {
                if let Some(reason) = verdict {
                    out.status = FetchStatus::Paywalled;
                    out.detail = Some(reason);
                }
                out.parsed = Some(doc);
            }
            Ok(Err(e)) => {
                out.status = FetchStatus::Failed;
                out.detail = Some(format!("could not parse the response: {e}"));
            }
            Err(e) => {
                out.status = FetchStatus::Failed;
                out.detail = Some(format!("parser task failed: {e}"));
            }
        }
        out
    }
}

fn parse_and_judge(
    body: &[u8],
    ct: Option<&str>,
    url: &Url,
    detect: bool,
) -> Result<(ParsedDocument, Option<String>)> {
    let name = url
        .path_segments()
        .and_then(|mut s| s.next_back())
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    let mut doc = verity_extract::parse_bytes(body, ct, name.as_deref(), Some(url))?;
    if doc.document.url.is_none() {
        doc.document.url = Some(url.to_string());
    }
    let verdict = if detect {
        let words = paywall::word_count(&doc.document.content);
        match verity_extract::sniff(body, ct, name.as_deref(), Some(url)) {
            verity_extract::Sniffed::Html => {
                paywall::html_signals(&String::from_utf8_lossy(body)).verdict(words)
            }
            verity_extract::Sniffed::Pdf => None,
            _ => paywall::text_signals(&doc.document.content).verdict(words),
        }
    } else {
        None
    };
    Ok((doc, verdict))
}

/// What a request failure was, in words a user can act on: connection
/// refused, DNS failure, TLS failure, connection reset, or the error chain.
fn network_failure(url: &Url, e: &reqwest::Error) -> String {
    let chain = error_chain(e);
    let lower = chain.to_lowercase();
    let host = url.host_str().unwrap_or("");
    let port = url.port_or_known_default().unwrap_or(0);
    if lower.contains("connection refused") {
        format!("connection refused by {host}:{port} (nothing listens there)")
    } else if lower.contains("dns error")
        || lower.contains("failed to lookup address")
        || lower.contains("name or service not known")
        || lower.contains("no address")
        || lower.contains("nodename nor servname")
        || lower.contains("temporary failure in name resolution")
    {
        format!("DNS failure: {host} could not be resolved ({chain})")
    } else if lower.contains("certificate")
        || lower.contains("tls")
        || lower.contains("ssl")
        || lower.contains("handshake")
    {
        format!("TLS failure with {host}: {chain}")
    } else if lower.contains("connection reset") || lower.contains("broken pipe") {
        format!("connection reset by {host}:{port}")
    } else if lower.contains("network is unreachable") || lower.contains("no route to host") {
        format!("{host} is unreachable from here (no route): {chain}")
    } else {
        chain
    }
}

#[async_trait]
impl Fetcher for HttpFetcher {
    async fn fetch(&self, url: &Url) -> Result<FetchedSource> {
        validate_url(url)?;
        let cfg = &self.inner.config;
        let use_cache = !cfg.cache_ttl.is_zero() && cfg.cache_capacity > 0;
        if use_cache {
            if let Some(hit) = lock(&self.inner.cache).get(url.as_str(), cfg.cache_ttl) {
                return Ok(hit);
            }
        }
        let raw = self
            .retrieve(
                url,
                Opts {
                    accept: PAGE_ACCEPT,
                    max_body: cfg.max_body_bytes,
                    truncate: false,
                    robots: cfg.respect_robots,
                },
            )
            .await;
        let out = self.finish(url, raw).await;
        if use_cache
            && matches!(
                out.status,
                FetchStatus::Fetched | FetchStatus::Paywalled | FetchStatus::NotFound
            )
        {
            lock(&self.inner.cache).put(url.as_str().to_string(), out.clone(), cfg.cache_capacity);
        }
        Ok(out)
    }
}

/// Why robots.txt gave no decision: the page's fetch status (`Blocked` for
/// the guard's refusal or a robots.txt server error, `Timeout`, `Failed`)
/// and the reason, as the request that failed reported them.
struct RobotsUnavailable {
    status: FetchStatus,
    detail: String,
    refusal: Option<Refusal>,
}
