//! Sources for ingestion: local files through the parsers, URLs through the
//! guarded HTTP fetcher.

use std::path::Path;

use chrono::Utc;
use url::Url;
use verity_core::{Document, Error, FetchStatus, FetchedSource, Fetcher, Result};
use verity_fetch::{FetchConfig, HttpFetcher, NetworkGuard};

/// `true` when `target` is an http(s) URL rather than a path.
pub fn is_url(target: &str) -> bool {
    target.starts_with("http://") || target.starts_with("https://")
}

/// Fetch a URL (SSRF guard on unless `allow_private`) or parse a local file
/// with the same parsers, so extraction can be scored offline.
pub async fn fetch(target: &str, allow_private: bool) -> Result<FetchedSource> {
    if is_url(target) {
        let url = Url::parse(target).map_err(|e| verity_core::FetchError::InvalidUrl {
            url: target.to_string(),
            message: e.to_string(),
        })?;
        let mut config = FetchConfig::for_reading();
        if allow_private {
            config = config.with_guard(NetworkGuard::disabled());
        }
        let fetcher = HttpFetcher::new(config)?;
        return fetcher.fetch(&url).await;
    }
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
        fetched_at: Utc::now(),
    })
}

/// Fetch URLs into documents; failures are returned as messages, not errors,
/// so one dead link does not stop an ingestion.
pub async fn fetch_documents(urls: &[String], allow_private: bool) -> (Vec<Document>, Vec<String>) {
    let mut docs = Vec::new();
    let mut errors = Vec::new();
    for u in urls {
        match fetch(u, allow_private).await {
            Ok(FetchedSource {
                parsed: Some(p),
                status: FetchStatus::Fetched | FetchStatus::Paywalled,
                ..
            }) => {
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
                    d.url = Some(u.clone());
                }
                docs.push(d);
            }
            Ok(f) => errors.push(format!(
                "{u}: {:?}{}",
                f.status,
                f.detail.map(|d| format!(" ({d})")).unwrap_or_default()
            )),
            Err(e) => errors.push(format!("{u}: {e}")),
        }
    }
    (docs, errors)
}
