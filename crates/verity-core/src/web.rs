//! The [`WebSearch`] trait (seed 000 `web_search`).

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::Result;

/// Recency window for web search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WebTimeRange {
    /// Last day.
    Day,
    /// Last week.
    Week,
    /// Last month.
    Month,
    /// Last year.
    Year,
}

/// A web search request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WebQuery {
    /// Query text.
    pub query: String,
    /// Hits wanted (default 5, at most 10).
    #[serde(default = "default_num_results")]
    pub num_results: usize,
    /// Recency window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_range: Option<WebTimeRange>,
    /// Language code (`en`, `fr`, `all`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// 1-based result page.
    #[serde(default = "default_page")]
    pub page: u32,
}

fn default_num_results() -> usize {
    5
}
fn default_page() -> u32 {
    1
}

impl WebQuery {
    /// A query with defaults.
    pub fn new(query: impl Into<String>) -> Self {
        Self {
            query: query.into(),
            num_results: default_num_results(),
            time_range: None,
            language: None,
            page: 1,
        }
    }
}

/// One web search hit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WebHit {
    /// Result URL.
    pub url: String,
    /// Title.
    pub title: String,
    /// Snippet.
    #[serde(default)]
    pub snippet: String,
    /// Host of the URL.
    pub source: String,
    /// Engine that found it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// Publication date, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<DateTime<Utc>>,
    /// Engine score, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f32>,
}

/// Searches the web (SearXNG by default).
#[async_trait]
pub trait WebSearch: Send + Sync {
    /// Run a query.
    async fn search(&self, query: &WebQuery) -> Result<Vec<WebHit>>;
}
