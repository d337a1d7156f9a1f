//! Sources: parsed documents and the [`Fetcher`] trait.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use url::Url;

use crate::document::Document;
use crate::{FetchError, Result};

/// Format a source was parsed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SourceFormat {
    /// PDF.
    Pdf,
    /// HTML page (main content extracted).
    Html,
    /// Markdown.
    Markdown,
    /// Plain text.
    Text,
    /// JSON / JSONL records.
    Json,
}

/// Where a span of the content sits in the original (a PDF page, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PageSpan {
    /// 1-based page number.
    pub page: u32,
    /// Byte offset in `Document::content` where the page starts.
    pub start: usize,
    /// Byte offset one past its end.
    pub end: usize,
}

/// A parsed source: a document whose content is Markdown, and where its
/// pieces came from, so that a quote can be located later.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ParsedDocument {
    /// The document (title, lang, url, ts and `metadata.author` filled when known).
    pub document: Document,
    /// Original format.
    pub format: SourceFormat,
    /// Page map (PDF); empty for formats without pages.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages: Vec<PageSpan>,
}

impl ParsedDocument {
    /// Page holding byte offset `offset` of the content, if known.
    pub fn page_of(&self, offset: usize) -> Option<u32> {
        self.pages
            .iter()
            .find(|p| p.start <= offset && offset < p.end)
            .map(|p| p.page)
    }
}

/// Outcome class of a fetch (`fetch_status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FetchStatus {
    /// Content obtained.
    Fetched,
    /// Failed for another reason (network, parse, 5xx after retries).
    Failed,
    /// Behind a paywall or login wall (partial content may be present).
    Paywalled,
    /// 404 / 410.
    NotFound,
    /// Deadline elapsed.
    Timeout,
    /// 429 after retries.
    RateLimited,
    /// Refused: network guard, robots.txt, 401/403.
    Blocked,
}

/// The result of fetching one URL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FetchedSource {
    /// URL asked for.
    pub url: Url,
    /// URL after redirects.
    pub final_url: Url,
    /// Outcome class.
    pub status: FetchStatus,
    /// Last HTTP status, when a response was received.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
    /// Content type of the response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// Parsed content (`Some` when `status` is `Fetched`, possibly for `Paywalled`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parsed: Option<ParsedDocument>,
    /// Human-readable detail for non-`Fetched` outcomes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Why the fetch was refused before any page was read (`Blocked` with
    /// no HTTP status): the guard's address and rule, or robots.txt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<Refusal>,
    /// When it was fetched.
    pub fetched_at: DateTime<Utc>,
}

/// Why a fetch was refused before the page was read, typed where it is
/// decided so that nobody reads it back from [`FetchedSource::detail`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Refusal {
    /// The network guard refused the address the host resolves to.
    NetworkGuard {
        /// The refused address (or the host name when refused by name).
        addr: String,
        /// Which rule refused it.
        reason: String,
    },
    /// The site's robots.txt disallows the page, or answers with a server
    /// error (RFC 9309 §2.3.1.4: stay away until it answers).
    RobotsTxt,
}

impl FetchedSource {
    /// The typed error of a fetch that gave no page (`None` for a fetched or
    /// paywalled page): HTTP statuses as [`FetchError::Http`], the guard's
    /// refusal as [`FetchError::Blocked`], robots.txt's as
    /// [`FetchError::RobotsDisallowed`], timeouts as [`FetchError::Timeout`],
    /// everything else (refused connections, DNS, TLS, a parse failure) as
    /// [`FetchError::Network`] with the fetcher's own words.
    pub fn error(&self) -> Option<FetchError> {
        let url = self.url.to_string();
        let detail = self.detail.clone().unwrap_or_default();
        let http = |status: u16| FetchError::Http {
            url: url.clone(),
            status,
            retry_after: None,
        };
        Some(match (self.status, self.http_status, &self.refusal) {
            (FetchStatus::Fetched | FetchStatus::Paywalled, _, _) => return None,
            (_, Some(status), _) if status >= 400 => http(status),
            (FetchStatus::NotFound, _, _) => http(404),
            (FetchStatus::RateLimited, _, _) => http(429),
            (FetchStatus::Timeout, _, _) => FetchError::Timeout(url),
            (_, _, Some(Refusal::NetworkGuard { addr, reason })) => FetchError::Blocked {
                url,
                addr: addr.clone(),
                reason: reason.clone(),
            },
            (_, _, Some(Refusal::RobotsTxt)) => FetchError::RobotsDisallowed(url),
            // A refusal from a fetcher that did not type it: its own words.
            (FetchStatus::Blocked, _, None) => FetchError::Blocked {
                url,
                addr: self.final_url.host_str().unwrap_or_default().to_string(),
                reason: detail,
            },
            _ => FetchError::Network {
                url,
                message: if detail.is_empty() {
                    "the page could not be fetched".into()
                } else {
                    detail
                },
            },
        })
    }
}

/// Retrieves and parses a URL.
///
/// Outcomes of an attempted fetch (404, paywall, timeout, refusal…) are
/// reported in [`FetchedSource::status`]; `Err` is kept for requests that
/// cannot be attempted at all (invalid URL, bad configuration).
#[async_trait]
pub trait Fetcher: Send + Sync {
    /// Fetch and parse `url`.
    async fn fetch(&self, url: &Url) -> Result<FetchedSource>;
}
