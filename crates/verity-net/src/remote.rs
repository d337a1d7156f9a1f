//! The settings every remote model provider shares (Ollama and
//! OpenAI-compatible generators and embedders): [`RemoteProviderOptions`],
//! set through the builders' common setters
//! ([`remote_provider_setters!`](crate::remote_provider_setters)), checked
//! once into a [`RemoteEndpoint`] that sends the requests and maps their
//! failures ([`crate::status`]).

use std::time::Duration;

use verity_core::{ConfigError, Error, ProviderError, ProviderErrorKind, Result, RetryPolicy};

use crate::status::{self, ProviderErrorBody, Remedies};
use crate::HttpClient;

/// Requests a provider keeps in flight at once for one call by default:
/// enough to hide a server's per-request latency (a GPU server answering in
/// ~30 ms), few enough not to swamp one (each honours `Retry-After` through
/// the [`RetryPolicy`]).
pub const DEFAULT_CONCURRENCY: usize = 4;

/// What a remote provider is configured with, before it is checked.
#[derive(Clone)]
pub struct RemoteProviderOptions {
    /// Server base URL (`http` or `https`).
    pub base_url: String,
    /// Bearer key sent as `Authorization: Bearer …` (none when blank).
    pub api_key: Option<String>,
    /// The environment variable the key is read from by the host
    /// (`OPENAI_API_KEY`): named in the advice of `Auth` errors.
    pub api_key_var: Option<String>,
    /// Deadline of one request (of the whole call for generators).
    pub timeout: Duration,
    /// Requests in flight at once for one call (at least 1).
    pub concurrency: usize,
    /// Retry policy of transient failures; `None`: the client's.
    pub retry: Option<RetryPolicy>,
    /// The shared client; `None`: [`HttpClient::shared_default`]. Its
    /// configuration is the one place the connect timeout, proxy and TLS
    /// roots are set.
    pub client: Option<HttpClient>,
}

impl std::fmt::Debug for RemoteProviderOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteProviderOptions")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("api_key_var", &self.api_key_var)
            .field("timeout", &self.timeout)
            .field("concurrency", &self.concurrency)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

impl RemoteProviderOptions {
    /// Options for a server at `base_url` with a request deadline of `timeout`.
    pub fn new(base_url: impl Into<String>, timeout: Duration) -> Self {
        Self {
            base_url: base_url.into(),
            api_key: None,
            api_key_var: None,
            timeout,
            concurrency: DEFAULT_CONCURRENCY,
            retry: None,
            client: None,
        }
    }

    /// Name the variable the key comes from (builder style).
    pub fn with_api_key_var(mut self, var: impl Into<String>) -> Self {
        self.api_key_var = Some(var.into());
        self
    }

    /// Set the bearer key (a blank one means none).
    pub fn set_api_key(&mut self, key: impl Into<String>) {
        let key = key.into();
        self.api_key = (!key.trim().is_empty()).then_some(key);
    }

    /// Check the options of provider `provider`; configuration errors name
    /// `{key_prefix}.base_url`, `{key_prefix}.timeout`.
    pub fn build(self, provider: &'static str, key_prefix: &str) -> Result<RemoteEndpoint> {
        let base_url = check_base_url(&format!("{key_prefix}.base_url"), &self.base_url)?;
        if self.timeout.is_zero() {
            return Err(invalid(
                &format!("{key_prefix}.timeout"),
                "the timeout must be > 0",
            ));
        }
        let client = match self.client {
            Some(c) => c,
            None => HttpClient::shared_default()?,
        };
        let retry = self.retry.unwrap_or_else(|| client.retry());
        Ok(RemoteEndpoint {
            provider,
            base_url,
            api_key: self.api_key.filter(|k| !k.trim().is_empty()),
            timeout: self.timeout,
            concurrency: self.concurrency.max(1),
            retry,
            client,
            remedies: Remedies {
                api_key_var: self.api_key_var,
                missing_model: None,
            },
        })
    }
}

fn invalid(key: &str, message: impl Into<String>) -> Error {
    ConfigError::Invalid {
        key: key.to_string(),
        message: message.into(),
    }
    .into()
}

/// Check and normalise a base URL (`http`/`https`, no trailing slash).
pub fn check_base_url(key: &str, base: &str) -> Result<String> {
    let url = reqwest::Url::parse(base.trim())
        .map_err(|e| invalid(key, format!("`{base}` is not a URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid(
            key,
            format!("`{base}`: only http and https are supported"),
        ));
    }
    Ok(base.trim().trim_end_matches('/').to_string())
}

/// A checked remote provider: where it is, how it authenticates, and how
/// its failures read.
#[derive(Clone)]
pub struct RemoteEndpoint {
    provider: &'static str,
    base_url: String,
    api_key: Option<String>,
    timeout: Duration,
    concurrency: usize,
    retry: RetryPolicy,
    client: HttpClient,
    remedies: Remedies,
}

impl std::fmt::Debug for RemoteEndpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteEndpoint")
            .field("provider", &self.provider)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("timeout", &self.timeout)
            .field("concurrency", &self.concurrency)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

impl RemoteEndpoint {
    /// Advise `advice` when the server says the model is missing
    /// (`run \`ollama pull qwen2.5:7b\``).
    pub fn with_missing_model_advice(mut self, advice: impl Into<String>) -> Self {
        self.remedies.missing_model = Some(advice.into());
        self
    }

    /// The provider's name (`ollama`, `openai`).
    pub fn provider(&self) -> &'static str {
        self.provider
    }
    /// The base URL, without a trailing slash.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }
    /// `base_url` and `path` joined with one slash.
    pub fn url(&self, path: &str) -> String {
        format!("{}/{}", self.base_url, path.trim_start_matches('/'))
    }
    /// The OpenAI-style URL of `path` (`/embeddings`): a base URL that ends
    /// in `/v1` is not given a second one.
    pub fn v1_url(&self, path: &str) -> String {
        if self.base_url.ends_with("/v1") {
            self.url(path)
        } else {
            self.url(&format!("v1/{}", path.trim_start_matches('/')))
        }
    }
    /// Whether a key is configured.
    pub fn has_api_key(&self) -> bool {
        self.api_key.is_some()
    }
    /// Deadline of one request.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }
    /// Requests in flight at once.
    pub fn concurrency(&self) -> usize {
        self.concurrency
    }
    /// The retry policy.
    pub fn retry(&self) -> RetryPolicy {
        self.retry
    }
    /// The shared client.
    pub fn http(&self) -> &HttpClient {
        &self.client
    }
    /// What errors advise.
    pub fn remedies(&self) -> &Remedies {
        &self.remedies
    }

    /// A request to `url`, with the bearer key when one is configured (no
    /// deadline set: the caller picks it).
    pub fn request(&self, method: reqwest::Method, url: &str) -> reqwest::RequestBuilder {
        let rb = self.client.client().request(method, url);
        match &self.api_key {
            Some(key) => rb.bearer_auth(key),
            None => rb,
        }
    }

    /// POST `body` as JSON to `url` (with the key) and return the response
    /// once its headers say success; a transport failure or an error status
    /// is this provider's typed error.
    pub async fn post_json<B: serde::Serialize + ?Sized>(
        &self,
        url: &str,
        body: &B,
    ) -> Result<reqwest::Response> {
        let resp = self
            .request(reqwest::Method::POST, url)
            .json(body)
            .send()
            .await
            .map_err(|e| self.transport_error(url, &e))?;
        if !resp.status().is_success() {
            return Err(self.response_error(url, resp).await);
        }
        Ok(resp)
    }

    /// The body of a successful `response` from `url`, parsed as `T`; a
    /// transport failure or an unparseable body (`BadResponse`, naming
    /// `what`) is this provider's typed error.
    pub async fn read_json<T: serde::de::DeserializeOwned>(
        &self,
        url: &str,
        response: reqwest::Response,
        what: &str,
    ) -> Result<T> {
        let bytes = response
            .bytes()
            .await
            .map_err(|e| self.transport_error(url, &e))?;
        serde_json::from_slice(&bytes).map_err(|e| {
            self.err(
                ProviderErrorKind::BadResponse,
                format!("{url}: unparseable {what}: {e}"),
            )
        })
    }

    /// A provider error.
    pub fn err(&self, kind: ProviderErrorKind, message: impl Into<String>) -> Error {
        ProviderError::new(self.provider, kind, message).into()
    }

    /// [`status::status_error`] for this provider.
    pub fn status_error(
        &self,
        url: &str,
        status: u16,
        retry_after: Option<Duration>,
        body: &[u8],
    ) -> Error {
        status::status_error(
            self.provider,
            url,
            status,
            retry_after,
            body,
            &self.remedies,
        )
        .into()
    }

    /// [`status::response_error`] for this provider.
    pub async fn response_error(&self, url: &str, response: reqwest::Response) -> Error {
        status::response_error(self.provider, url, response, &self.remedies)
            .await
            .into()
    }

    /// [`status::body_error`] for this provider.
    pub fn body_error(&self, context: &str, body: &ProviderErrorBody) -> Error {
        status::body_error(self.provider, context, body, &self.remedies).into()
    }

    /// [`status::transport_error`] for this provider (its deadline in the message).
    pub fn transport_error(&self, url: &str, e: &reqwest::Error) -> Error {
        status::transport_error(self.provider, url, e, self.timeout).into()
    }
}

/// The setters every remote provider builder shares, as inherent methods on
/// a builder whose `RemoteProviderOptions` field is named `$opts`:
/// `base_url`, `api_key`, `api_key_var`, `retry`, `client`; with
/// `, request_settings` also `timeout` (deadline of one request) and
/// `concurrency`.
#[macro_export]
macro_rules! remote_provider_setters {
    ($opts:ident) => {
        /// Server base URL (`http` or `https`; a trailing slash is dropped).
        pub fn base_url(mut self, url: impl Into<String>) -> Self {
            self.$opts.base_url = url.into();
            self
        }

        /// Bearer key sent as `Authorization: Bearer …` (default none; a
        /// blank key means none).
        pub fn api_key(mut self, key: impl Into<String>) -> Self {
            self.$opts.set_api_key(key);
            self
        }

        /// The environment variable the key comes from, named in `Auth`
        /// errors so that they say what to set.
        pub fn api_key_var(mut self, var: impl Into<String>) -> Self {
            self.$opts.api_key_var = Some(var.into());
            self
        }

        /// Retry policy of transient failures (default: the client's; a
        /// `Retry-After` lengthens the delay).
        pub fn retry(mut self, policy: $crate::RetryPolicy) -> Self {
            self.$opts.retry = Some(policy);
            self
        }

        /// Send requests through the shared network layer (its connection
        /// pool, connect timeout, proxy and TLS settings, and its retry
        /// policy unless `retry` is called). Default: the process-wide client.
        pub fn client(mut self, client: &$crate::HttpClient) -> Self {
            self.$opts.client = Some(client.clone());
            self
        }
    };
    ($opts:ident, request_settings) => {
        $crate::remote_provider_setters!($opts);

        /// Deadline of one HTTP request (default 60 s).
        pub fn timeout(mut self, timeout: std::time::Duration) -> Self {
            self.$opts.timeout = timeout;
            self
        }

        /// Requests in flight at once for one call (default
        /// [`DEFAULT_CONCURRENCY`]($crate::DEFAULT_CONCURRENCY), at least 1);
        /// each honours the server's `Retry-After` through the retry policy.
        pub fn concurrency(mut self, n: usize) -> Self {
            self.$opts.concurrency = n.max(1);
            self
        }
    };
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    struct Builder {
        opts: RemoteProviderOptions,
    }

    impl Builder {
        crate::remote_provider_setters!(opts, request_settings);
    }

    #[test]
    fn options_are_checked_once() {
        let b = Builder {
            opts: RemoteProviderOptions::new("http://h:1/", Duration::from_secs(60)),
        }
        .api_key_var("OPENAI_API_KEY")
        .api_key("  ")
        .retry(RetryPolicy::none())
        .client(&HttpClient::shared_default().unwrap())
        .concurrency(0)
        .timeout(Duration::from_secs(5));
        let e = b.opts.clone().build("openai", "embedder.openai").unwrap();
        assert_eq!(e.base_url(), "http://h:1");
        assert!(!e.has_api_key(), "a blank key is no key");
        assert_eq!(e.concurrency(), 1);
        assert_eq!(e.timeout(), Duration::from_secs(5));
        assert_eq!(e.url("/api/embed"), "http://h:1/api/embed");
        assert_eq!(e.v1_url("embeddings"), "http://h:1/v1/embeddings");
        assert_eq!(e.remedies().api_key_var.as_deref(), Some("OPENAI_API_KEY"));

        let keyed = b.api_key("sk-secret").base_url("https://h/v1").opts;
        assert!(!format!("{keyed:?}").contains("sk-secret"));
        let e = keyed.build("openai", "k").unwrap();
        assert!(!format!("{e:?}").contains("sk-secret"));
        assert_eq!(e.v1_url("/embeddings"), "https://h/v1/embeddings");

        let bad = |url: &str, t: u64| {
            RemoteProviderOptions::new(url, Duration::from_secs(t))
                .build("ollama", "llm.ollama")
                .unwrap_err()
                .to_string()
        };
        assert!(bad("ftp://x", 1).contains("llm.ollama.base_url"));
        assert!(bad("not a url", 1).contains("not a URL"));
        assert!(bad("http://x", 0).contains("llm.ollama.timeout"));
    }
}
