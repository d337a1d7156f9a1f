//! [`FetchConfig`]: what an [`HttpFetcher`](super::HttpFetcher) is built with.

use std::time::Duration;

use verity_core::{ConfigError, Error, Result, RetryPolicy};

use crate::guard::NetworkGuard;

/// Configuration of an [`HttpFetcher`]. Start from [`FetchConfig::default`]
/// (or a preset) and chain the `with_*` setters.
#[derive(Debug, Clone)]
pub struct FetchConfig {
    /// `User-Agent` header.
    pub user_agent: String,
    /// Product token matched against robots.txt `User-agent` lines.
    pub robots_agent: String,
    /// Deadline of one request, body included (default 30 s).
    pub timeout: Duration,
    /// Redirects followed at most (default 5); each hop is re-checked.
    pub max_redirects: usize,
    /// Body size cap in bytes (default 20 MB); larger bodies are refused.
    pub max_body_bytes: u64,
    /// Retries of transient failures (network, timeout, 5xx, 429); `None`
    /// (the default) uses the shared [`HttpClient`](verity_net::HttpClient)'s policy.
    pub retry: Option<RetryPolicy>,
    /// Minimum interval between two requests to the same host (default 250 ms).
    pub per_host_interval: Duration,
    /// Obey robots.txt (default true).
    pub respect_robots: bool,
    /// How long a robots.txt stays cached (default 1 h).
    pub robots_ttl: Duration,
    /// Response cache TTL; zero disables the cache (default 15 min).
    pub cache_ttl: Duration,
    /// Response cache capacity in entries (default 256).
    pub cache_capacity: usize,
    /// Classify paywalled / login-walled pages as `paywalled` (default true).
    pub detect_paywalls: bool,
    /// SSRF guard (on by default).
    pub guard: NetworkGuard,
}

impl Default for FetchConfig {
    fn default() -> Self {
        Self {
            user_agent: format!(
                "VerityBot/{} (+https://example.invalid/verity)",
                env!("CARGO_PKG_VERSION")
            ),
            robots_agent: "VerityBot".into(),
            timeout: Duration::from_secs(30),
            max_redirects: 5,
            max_body_bytes: 20_000_000,
            retry: None,
            per_host_interval: Duration::from_millis(250),
            respect_robots: true,
            robots_ttl: Duration::from_secs(3600),
            cache_ttl: Duration::from_secs(15 * 60),
            cache_capacity: 256,
            detect_paywalls: true,
            guard: NetworkGuard::default(),
        }
    }
}

impl FetchConfig {
    /// Preset for search-time fetches (seed: 10 s total).
    pub fn for_search() -> Self {
        Self {
            timeout: Duration::from_secs(10),
            ..Self::default()
        }
    }
    /// Preset for reading full sources (seed: 30 s total).
    pub fn for_reading() -> Self {
        Self::default()
    }
    /// Set the `User-Agent` header.
    pub fn with_user_agent(mut self, ua: impl Into<String>) -> Self {
        self.user_agent = ua.into();
        self
    }
    /// Set the robots.txt product token.
    pub fn with_robots_agent(mut self, token: impl Into<String>) -> Self {
        self.robots_agent = token.into();
        self
    }
    /// Set the per-request deadline.
    pub fn with_timeout(mut self, d: Duration) -> Self {
        self.timeout = d;
        self
    }
    /// Set the redirect bound.
    pub fn with_max_redirects(mut self, n: usize) -> Self {
        self.max_redirects = n;
        self
    }
    /// Set the body size cap.
    pub fn with_max_body_bytes(mut self, n: u64) -> Self {
        self.max_body_bytes = n;
        self
    }
    /// Use this retry policy instead of the shared client's.
    pub fn with_retry(mut self, p: RetryPolicy) -> Self {
        self.retry = Some(p);
        self
    }
    /// Set the per-host minimum interval (zero disables rate limiting).
    pub fn with_per_host_interval(mut self, d: Duration) -> Self {
        self.per_host_interval = d;
        self
    }
    /// Obey robots.txt or not.
    pub fn with_robots(mut self, respect: bool) -> Self {
        self.respect_robots = respect;
        self
    }
    /// Configure the response cache (`ttl` zero disables it).
    pub fn with_cache(mut self, ttl: Duration, capacity: usize) -> Self {
        self.cache_ttl = ttl;
        self.cache_capacity = capacity;
        self
    }
    /// Turn paywall detection on or off.
    pub fn with_paywall_detection(mut self, on: bool) -> Self {
        self.detect_paywalls = on;
        self
    }
    /// Set the SSRF guard.
    pub fn with_guard(mut self, guard: NetworkGuard) -> Self {
        self.guard = guard;
        self
    }

    pub(super) fn validate(&self) -> Result<()> {
        let bad = |key: &str, message: &str| {
            Err(Error::from(ConfigError::Invalid {
                key: key.into(),
                message: message.into(),
            }))
        };
        if self.timeout.is_zero() {
            return bad("timeout", "must be positive");
        }
        if self.max_body_bytes == 0 {
            return bad("max_body_bytes", "must be positive");
        }
        if self.retry.is_some_and(|r| r.max_attempts == 0) {
            return bad("retry.max_attempts", "must be at least 1");
        }
        Ok(())
    }
}
