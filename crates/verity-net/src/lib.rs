//! Verity's one network layer.
//!
//! One [`HttpConfig`] (user agent, timeouts, proxy, extra TLS roots, the
//! [`RetryPolicy`]) builds one [`HttpClient`]: a cheap-to-clone handle on one
//! `reqwest::Client` (one connection pool) that every HTTP component takes —
//! embedders, generators, Jina Reader, SearXNG. The open-web fetcher derives
//! its own SSRF-guarded client once from the same configuration
//! ([`HttpClient::web_client_builder`]: no proxy, no automatic redirects, its
//! resolver refuses internal addresses), because a proxy or a redirect
//! followed by the client would bypass the guard.
//!
//! Servers' `Retry-After` hints are read by [`retry_after`] and carried on
//! the error (`ProviderError::retry_after`, `FetchError::Http::retry_after`)
//! for [`RetryPolicy::run`] to honour.
//!
//! The plumbing every remote model provider shares lives here too:
//! [`status`] maps an HTTP failure to a typed
//! [`ProviderErrorKind`](verity_core::ProviderErrorKind),
//! [`RemoteProviderOptions`] are the settings of the Ollama and
//! OpenAI-compatible builders, [`error_chain`] writes an error and its
//! sources on one line, and [`models_dir`] finds the local models.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use reqwest::header::{HeaderMap, RETRY_AFTER};
pub use verity_core::RetryPolicy;
use verity_core::{ConfigError, Error, Result};

pub use reqwest;

mod chain;
mod model_dir;
mod remote;
pub mod status;

pub use chain::error_chain;
pub use model_dir::{models_dir, models_dir_from};
pub use remote::{check_base_url, RemoteEndpoint, RemoteProviderOptions, DEFAULT_CONCURRENCY};

/// Which proxy the service client uses.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ProxySetting {
    /// The environment's (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`), the default.
    #[default]
    System,
    /// No proxy at all.
    None,
    /// Every request through this proxy URL (`http://…`, `socks5://…` not supported).
    Url(String),
}

/// The one configuration of Verity's HTTP traffic.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// `User-Agent` of service calls (the fetcher sends its own robots-aware one).
    pub user_agent: String,
    /// TCP + TLS connect timeout (default 10 s).
    pub connect_timeout: Duration,
    /// Default deadline of one request for components that set none (default 60 s).
    pub timeout: Duration,
    /// Proxy of service calls (the open-web fetcher never uses one).
    pub proxy: ProxySetting,
    /// Extra trusted root certificates (PEM bundles), added to the built-in roots.
    pub extra_root_certificates: Vec<Vec<u8>>,
    /// Refuse plain `http://` service URLs (default false: Ollama is usually local HTTP).
    pub https_only: bool,
    /// The retry policy every component uses unless given its own.
    pub retry: RetryPolicy,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            user_agent: format!("verity/{}", env!("CARGO_PKG_VERSION")),
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(60),
            proxy: ProxySetting::System,
            extra_root_certificates: Vec::new(),
            https_only: false,
            retry: RetryPolicy::default(),
        }
    }
}

impl HttpConfig {
    /// Set the user agent.
    pub fn with_user_agent(mut self, ua: impl Into<String>) -> Self {
        self.user_agent = ua.into();
        self
    }
    /// Set the connect timeout.
    pub fn with_connect_timeout(mut self, d: Duration) -> Self {
        self.connect_timeout = d;
        self
    }
    /// Set the default request deadline.
    pub fn with_timeout(mut self, d: Duration) -> Self {
        self.timeout = d;
        self
    }
    /// Set the proxy of service calls.
    pub fn with_proxy(mut self, proxy: ProxySetting) -> Self {
        self.proxy = proxy;
        self
    }
    /// Trust the certificates of a PEM bundle as well as the built-in roots.
    pub fn with_root_certificates_pem(mut self, pem: impl Into<Vec<u8>>) -> Self {
        self.extra_root_certificates.push(pem.into());
        self
    }
    /// Refuse plain-HTTP service URLs.
    pub fn with_https_only(mut self, on: bool) -> Self {
        self.https_only = on;
        self
    }
    /// Set the shared retry policy.
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    fn invalid(key: &str, message: impl Into<String>) -> Error {
        ConfigError::Invalid {
            key: key.into(),
            message: message.into(),
        }
        .into()
    }

    fn validate(&self) -> Result<()> {
        if self.connect_timeout.is_zero() {
            return Err(Self::invalid("http.connect_timeout", "must be positive"));
        }
        if self.timeout.is_zero() {
            return Err(Self::invalid("http.timeout", "must be positive"));
        }
        if self.retry.max_attempts == 0 {
            return Err(Self::invalid(
                "http.retry.max_attempts",
                "must be at least 1",
            ));
        }
        Ok(())
    }

    /// A client builder with this configuration's user agent, connect
    /// timeout and TLS roots (no proxy decision, no redirect decision).
    fn base_builder(&self) -> Result<reqwest::ClientBuilder> {
        #[allow(unused_mut)]
        let mut b = reqwest::Client::builder()
            .user_agent(self.user_agent.clone())
            .connect_timeout(self.connect_timeout);
        #[cfg(feature = "tls")]
        for pem in &self.extra_root_certificates {
            let certs = reqwest::Certificate::from_pem_bundle(pem)
                .map_err(|e| Self::invalid("http.extra_root_certificates", e.to_string()))?;
            b = b.tls_certs_merge(certs);
        }
        #[cfg(not(feature = "tls"))]
        if !self.extra_root_certificates.is_empty() {
            return Err(Self::invalid(
                "http.extra_root_certificates",
                "TLS support is not compiled in (feature `tls`)",
            ));
        }
        Ok(b)
    }
}

struct Inner {
    client: reqwest::Client,
    config: HttpConfig,
}

/// A handle on the one HTTP client (one connection pool) and its
/// configuration; clone it freely, every clone shares the client.
#[derive(Clone)]
pub struct HttpClient {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpClient")
            .field("config", &self.inner.config)
            .finish()
    }
}

impl HttpClient {
    /// Build the client from a configuration (checked).
    pub fn new(config: HttpConfig) -> Result<Self> {
        config.validate()?;
        let mut b = config.base_builder()?.https_only(config.https_only);
        b = match &config.proxy {
            ProxySetting::System => b,
            ProxySetting::None => b.no_proxy(),
            ProxySetting::Url(u) => b.proxy(
                reqwest::Proxy::all(u)
                    .map_err(|e| HttpConfig::invalid("http.proxy", format!("`{u}`: {e}")))?,
            ),
        };
        let client = b
            .build()
            .map_err(|e| HttpConfig::invalid("http_client", e.to_string()))?;
        Ok(Self {
            inner: Arc::new(Inner { client, config }),
        })
    }

    /// The process-wide client with the default configuration, built once:
    /// what the convenience constructors (`OllamaEmbedder::builder(…).build()`,
    /// `JinaReader::new`, …) use when given no client.
    pub fn shared_default() -> Result<Self> {
        static DEFAULT: OnceLock<std::result::Result<HttpClient, String>> = OnceLock::new();
        DEFAULT
            .get_or_init(|| Self::new(HttpConfig::default()).map_err(|e| e.to_string()))
            .clone()
            .map_err(|e| HttpConfig::invalid("http_client", e))
    }

    /// The underlying `reqwest::Client`.
    pub fn client(&self) -> &reqwest::Client {
        &self.inner.client
    }

    /// The configuration it was built from.
    pub fn config(&self) -> &HttpConfig {
        &self.inner.config
    }

    /// The shared retry policy.
    pub fn retry(&self) -> RetryPolicy {
        self.inner.config.retry
    }

    /// `true` when both handles share the same underlying client.
    pub fn same_client(&self, other: &HttpClient) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// A builder for the open-web client, from the same configuration: same
    /// connect timeout and TLS roots, no proxy (it would resolve names past
    /// the SSRF guard), no automatic redirects (each hop is checked by the
    /// caller). The fetcher adds its guarded resolver and builds it once.
    pub fn web_client_builder(&self) -> Result<reqwest::ClientBuilder> {
        Ok(self
            .inner
            .config
            .base_builder()?
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none()))
    }
}

/// The server's `Retry-After` hint: delta-seconds (integer or decimal) or an
/// HTTP-date (RFC 9110 IMF-fixdate / RFC 2822), as a delay from now.
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    parse_retry_after(headers.get(RETRY_AFTER)?.to_str().ok()?)
}

/// [`retry_after`] on the header's value.
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let v = value.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    if let Some(d) = v
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0 && *s < 1e9)
    {
        return Some(Duration::from_secs_f64(d));
    }
    let at = chrono::DateTime::parse_from_rfc2822(v).ok()?;
    let delta = at.with_timezone(&chrono::Utc) - chrono::Utc::now();
    Some(delta.to_std().unwrap_or(Duration::ZERO))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_forms() {
        assert_eq!(parse_retry_after(" 7 "), Some(Duration::from_secs(7)));
        assert_eq!(parse_retry_after("1.5"), Some(Duration::from_millis(1500)));
        let later = chrono::Utc::now() + chrono::Duration::seconds(120);
        let d = parse_retry_after(&later.format("%a, %d %b %Y %H:%M:%S GMT").to_string()).unwrap();
        assert!(
            d > Duration::from_secs(110) && d <= Duration::from_secs(120),
            "{d:?}"
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"),
            Some(Duration::ZERO),
            "a date in the past means now"
        );
        assert_eq!(parse_retry_after("soon"), None);
        assert_eq!(parse_retry_after("-3"), None);
    }

    #[test]
    fn clients_are_shared_and_configs_checked() {
        let a = HttpClient::shared_default().unwrap();
        let b = HttpClient::shared_default().unwrap();
        assert!(a.same_client(&b));
        let c = HttpClient::new(HttpConfig::default()).unwrap();
        assert!(!a.same_client(&c));
        assert!(a.same_client(&a.clone()));
        assert!(HttpClient::new(HttpConfig::default().with_timeout(Duration::ZERO)).is_err());
        assert!(HttpClient::new(
            HttpConfig::default().with_proxy(ProxySetting::Url("::not a url".into()))
        )
        .is_err());
    }
}
