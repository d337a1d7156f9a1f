//! `web_search` (through [`verity_core::WebSearch`]) and `crawl_url`
//! (through [`verity_core::Fetcher`] + its local main-content extraction).

use chrono::Utc;
use verity_core::{ConfigError, Error, FetchError, FetchStatus, Result, WebQuery};

use crate::api::*;
use crate::canon::parse_url;
use crate::text::words;
use crate::{required, Watch};

/// Most results `web_search` returns.
pub const MAX_WEB_RESULTS: usize = 10;

fn missing(what: &str, how: &str) -> Error {
    ConfigError::Missing {
        what: what.into(),
        detail: how.into(),
    }
    .into()
}

/// Cut `s` to at most `max` bytes on a char boundary, preferring a paragraph or line end.
fn cap(s: &str, max: usize) -> (&str, bool) {
    if s.len() <= max {
        return (s, false);
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    let head = s.get(..end).unwrap_or("");
    let cut = head
        .rfind("\n\n")
        .or_else(|| head.rfind('\n'))
        .filter(|i| *i > end / 2)
        .unwrap_or(end);
    (s.get(..cut).unwrap_or(head), true)
}

impl Watch {
    /// `web_search`: at most 10 results in seed 000's shape.
    pub async fn web_search(&self, req: &WebSearchRequest) -> Result<WebSearchResponse> {
        let query = required("query", &req.query)?;
        if req.num_results == 0 || req.num_results > MAX_WEB_RESULTS {
            return Err(Error::invalid_input(format!(
                "`num_results` must be between 1 and {MAX_WEB_RESULTS}, got {}",
                req.num_results
            )));
        }
        let search = self.search.as_ref().ok_or_else(|| {
            missing(
                "web search",
                "no SearXNG instance is configured: set VERITY_SEARXNG_URL (or SEARXNG_URL) \
                 to its address, e.g. http://searxng:8080, and restart (in Rust: \
                 WatchBuilder::web_search); verify_fact also works without it when given `urls`",
            )
        })?;
        let mut q = WebQuery::new(query.clone());
        q.num_results = req.num_results;
        q.time_range = req.time_range;
        let hits = search.search(&q).await?;
        let results: Vec<WebResult> = hits
            .into_iter()
            .take(req.num_results)
            .map(|h| WebResult {
                title: h.title,
                url: h.url,
                snippet: h.snippet,
                source: h.source,
            })
            .collect();
        Ok(WebSearchResponse {
            query,
            total_found: results.len(),
            results,
        })
    }

    /// `crawl_url`: fetch through the configured fetcher (its network guard
    /// refuses private addresses unless allowed), extract the main content,
    /// cap it.
    pub async fn crawl_url(&self, req: &CrawlRequest) -> Result<CrawlResponse> {
        let url = parse_url(&req.url)?;
        let fetcher = self.fetcher.as_ref().ok_or_else(|| {
            missing(
                "fetcher",
                "configure an HTTP fetcher (WatchBuilder::fetcher)",
            )
        })?;
        let fetched = fetcher.fetch(&url).await?;
        let u = url.to_string();
        // One reading of fetch outcomes for every caller: refused
        // connections, DNS, TLS, timeouts, HTTP statuses, the guard and
        // robots.txt each named as what happened.
        if let Some(e) = fetched.error() {
            return Err(e.into());
        }
        let paywalled = match fetched.status {
            FetchStatus::Paywalled if fetched.parsed.is_some() => true,
            FetchStatus::Paywalled => {
                return Err(FetchError::Http {
                    url: u,
                    status: fetched.http_status.unwrap_or(402),
                    retry_after: None,
                }
                .into())
            }
            _ => false,
        };
        let Some(parsed) = fetched.parsed else {
            return Err(FetchError::Network {
                url: u,
                message: "no content could be extracted".into(),
            }
            .into());
        };
        let doc = parsed.document;
        let links = doc
            .metadata
            .get("links")
            .and_then(|v| serde_json::from_value::<Vec<CrawlLink>>(v.clone()).ok())
            .unwrap_or_default();
        let word_count = words(&doc.content).count();
        let (content, truncated) = cap(&doc.content, self.max_crawl_bytes);
        Ok(CrawlResponse {
            url: fetched.final_url.to_string(),
            title: doc.title.unwrap_or_default(),
            content: content.to_string(),
            word_count,
            extracted_at: Utc::now(),
            truncated,
            paywalled,
            links,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::cap;

    #[test]
    fn caps_on_char_and_paragraph_boundaries() {
        assert_eq!(cap("abc", 10), ("abc", false));
        let s = format!("{}\n\n{}", "é".repeat(40), "x".repeat(40));
        let (c, t) = cap(&s, 100);
        assert!(t);
        assert_eq!(c, "é".repeat(40));
        let (c, t) = cap("ééé", 3);
        assert!(t && c == "é");
    }
}
