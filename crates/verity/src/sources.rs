//! Sources for ingestion: local files through the parsers, URLs through the
//! guarded HTTP fetcher. A [`crate::Verity`] holds one [`Fetchers`], so
//! per-host rate limits and the robots.txt cache hold across its calls.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use chrono::Utc;
use url::Url;
use verity_core::{Document, Error, FetchStatus, FetchedSource, Fetcher, Result};
use verity_fetch::{FetchConfig, HttpFetcher, NetworkGuard};

pub use crate::config::is_url;

use crate::api::{EvalExtractionRequest, EvalExtractionResponse, FetchRequest, FetchResponse};

/// The HTTP fetchers of one handle, built on first use: the guarded one and,
/// for `allow_private` requests, one whose guard lets private addresses
/// through (cloud metadata services stay refused).
pub struct Fetchers {
    net: verity_net::HttpClient,
    guarded: OnceLock<Arc<HttpFetcher>>,
    private: OnceLock<Arc<HttpFetcher>>,
}

impl Fetchers {
    /// Fetchers whose clients are built on `net` (its retry policy, timeouts
    /// and root certificates).
    pub fn new(net: verity_net::HttpClient) -> Self {
        Self {
            net,
            guarded: OnceLock::new(),
            private: OnceLock::new(),
        }
    }

    pub(crate) fn get(&self, allow_private: bool) -> Result<Arc<HttpFetcher>> {
        let cell = if allow_private {
            &self.private
        } else {
            &self.guarded
        };
        if let Some(f) = cell.get() {
            return Ok(f.clone());
        }
        let mut config = FetchConfig::for_reading();
        if allow_private {
            // Private and loopback addresses pass; cloud metadata services do not.
            config = config.with_guard(NetworkGuard::private_allowed());
        }
        let made = Arc::new(HttpFetcher::with_client(config, &self.net)?);
        Ok(cell.get_or_init(|| made).clone())
    }

    /// The HTTP fetcher of this handle (the guarded one, or the one without
    /// the guard that lets private addresses through for `allow_private`),
    /// shared by every call.
    pub(crate) fn http(&self, allow_private: bool) -> Result<Arc<HttpFetcher>> {
        self.get(allow_private)
    }

    /// Fetch a URL (SSRF guard on unless `allow_private`) or parse a local file
    /// with the same parsers, so extraction can be scored offline.
    pub async fn fetch(&self, target: &str, allow_private: bool) -> Result<FetchedSource> {
        if is_url(target) {
            let url = Url::parse(target).map_err(|e| verity_core::FetchError::InvalidUrl {
                url: target.to_string(),
                message: e.to_string(),
            })?;
            return self.get(allow_private)?.fetch(&url).await;
        }
        parse_local(target).await
    }

    /// Fetch a URL into a document (uid, source and url filled in when the page has none).
    pub async fn document(&self, u: &str) -> Result<Document> {
        match self.fetch(u, false).await? {
            FetchedSource {
                parsed: Some(p),
                status: FetchStatus::Fetched | FetchStatus::Paywalled,
                ..
            } => {
                let mut d = p.document;
                if d.uid.is_empty() {
                    d.uid = verity_core::stable_uid(u, &d.content);
                }
                if d.source.is_empty() {
                    d.source = Url::parse(u)
                        .ok()
                        .and_then(|x| x.host_str().map(str::to_string))
                        .unwrap_or_default();
                }
                if d.url.is_none() {
                    d.url = Some(u.to_string());
                }
                Ok(d)
            }
            // The one reading of fetch outcomes: a refusal stays a refusal.
            f => Err(f
                .error()
                .unwrap_or_else(|| verity_core::FetchError::Network {
                    url: u.to_string(),
                    message: format!("{:?}: the page held no document", f.status),
                })
                .into()),
        }
    }
}

async fn parse_local(target: &str) -> Result<FetchedSource> {
    let path = Path::new(target).to_path_buf();
    let abs = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
    let url = Url::from_file_path(&abs)
        .map_err(|_| Error::invalid_input(format!("not a usable path: {target}")))?;
    let parsed = tokio::task::spawn_blocking(move || verity_extract::parse_file(&path))
        .await
        .map_err(|e| Error::invalid_input(format!("parser task failed: {e}")))??;
    Ok(FetchedSource {
        url: url.clone(),
        final_url: url,
        status: FetchStatus::Fetched,
        http_status: None,
        content_type: None,
        parsed: Some(parsed),
        detail: None,
        refusal: None,
        fetched_at: Utc::now(),
    })
}

/// The process-wide fetchers behind [`fetch`], for hosts without a store.
fn shared() -> Result<&'static Fetchers> {
    static SHARED: OnceLock<Fetchers> = OnceLock::new();
    if let Some(f) = SHARED.get() {
        return Ok(f);
    }
    let net = verity_net::HttpClient::shared_default()?;
    Ok(SHARED.get_or_init(|| Fetchers::new(net)))
}

/// Fetch without a store (`verity fetch`, `verity.fetch`), through one
/// process-wide set of fetchers on the process-wide HTTP client.
pub async fn fetch(req: &FetchRequest) -> Result<FetchResponse> {
    shared()?.fetch(&req.target, req.allow_private).await
}

/// Main-content extraction quality on the article-extraction benchmark layout.
pub async fn eval_extraction(req: &EvalExtractionRequest) -> Result<EvalExtractionResponse> {
    let dir = req.dir.clone();
    let r =
        tokio::task::spawn_blocking(move || verity_extract::eval::evaluate_article_extraction(dir))
            .await
            .map_err(|e| Error::invalid_input(format!("evaluation task failed: {e}")))??;
    Ok(EvalExtractionResponse {
        pages: r.pages,
        precision: r.precision,
        recall: r.recall,
        f1: r.f1,
        bytes: r.bytes,
        seconds: r.seconds,
        mb_per_s: r.mb_per_s,
    })
}

impl crate::Verity {
    /// Fetch a URL or parse a local file, through this handle's fetchers.
    pub async fn fetch(&self, req: &FetchRequest) -> Result<FetchResponse> {
        self.fetchers.fetch(&req.target, req.allow_private).await
    }

    /// Main-content extraction quality ([`eval_extraction`]).
    pub async fn eval_extraction(
        &self,
        req: &EvalExtractionRequest,
    ) -> Result<EvalExtractionResponse> {
        eval_extraction(req).await
    }
}
