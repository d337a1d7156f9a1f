//! The seed-002 data model: claims that cite, fetched sources, results.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use verity_core::{Passage, Verdict};

/// How a claim cites its source (`citation_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CitationType {
    /// An inline link or a bare URL.
    Url,
    /// A DOI.
    Doi,
    /// An arXiv identifier.
    Arxiv,
    /// A numbered reference (`[3]`) resolved through the bibliography.
    Bibliography,
    /// A Markdown footnote (`[^2]`).
    Footnote,
    /// An author–year reference (`(Smith et al., 2020)`).
    AuthorYear,
}

/// Where a claim sits in the document text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Location {
    /// 1-based line of the claim's first character.
    pub line: usize,
    /// Byte offset of the claim's sentence (or clause) in the document text.
    pub start: usize,
    /// Byte offset one past its end.
    pub end: usize,
}

/// A claim and the source it cites.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClaimCitation {
    /// The claim: its sentence or clause, citation markers removed.
    pub claim_text: String,
    /// What it cites: a URL, a DOI, an arXiv id or the reference entry text.
    pub citation_ref: String,
    /// Where the claim is in the document.
    pub location: Location,
    /// How it cites.
    pub citation_type: CitationType,
    /// The marker as written (`[3]`, `[^2]`, `(Smith, 2020)`, the URL).
    pub marker: String,
    /// The URL to fetch, when the citation resolves to one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Why there is no URL to fetch (`[7]` with no entry 7, an entry with no link…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unresolved: Option<String>,
}

/// How fetching the source went (`fetch_status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SourceStatus {
    /// Content obtained.
    Success,
    /// Not obtained (network, 404, timeout, redirect loop, blocked, unresolvable…).
    Failed,
    /// Behind a paywall or login wall.
    Paywalled,
}

/// A fetched source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SourceContent {
    /// The URL asked for (or the reference, when there is none).
    pub url: String,
    /// URL after redirects, when different.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_url: Option<String>,
    /// The source's text as a reader sees it (markup removed; quotes are
    /// taken from it); `None` when the fetch failed. A paywalled page keeps
    /// the text it served.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Outcome.
    pub fetch_status: SourceStatus,
    /// `html`, `pdf`, `markdown`, `text`, `json`, or `unknown`.
    pub content_type: String,
    /// Why it is unavailable, for non-success outcomes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Page title, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Time spent fetching, in milliseconds.
    pub fetch_ms: u64,
}

/// The quote with a little of the source around it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QuoteContext {
    /// Text before the quote.
    pub before: String,
    /// The quote, verbatim.
    pub quote: String,
    /// Text after the quote.
    pub after: String,
    /// Byte offset of the quote in the source content.
    pub start: usize,
    /// Byte offset one past its end.
    pub end: usize,
}

/// The verdict on one claim, with the claim and citation it is about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CheckResult {
    /// The claim text.
    pub claim: String,
    /// What it cites.
    pub citation_ref: String,
    /// How it cites.
    pub citation_type: CitationType,
    /// The URL fetched, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_url: Option<String>,
    /// The verdict.
    pub verdict: Verdict,
    /// Confidence, 0–1.
    pub confidence: f32,
    /// Why.
    pub explanation: String,
    /// The exact sentence of the source that decides it (verbatim in the fetched source).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_quote: Option<String>,
    /// The quote in its context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote_context: Option<QuoteContext>,
    /// Where the claim is in the document.
    pub location: Location,
    /// Which judge decided (`local`, `llm:<model>`; `fetch` for unavailable sources).
    pub judge: String,
    /// What the deterministic checks changed, if anything.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<String>,
    /// The best passages of the source, best first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub passages: Vec<Passage>,
    /// Time spent on this claim after fetching (retrieval + judge + checks), ms.
    pub elapsed_ms: f64,
}
