//! Provisional request/response shapes (replaced by `verity::api` types).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// The query.
    pub query: String,
    /// Number of passages (1-100, default 8).
    #[serde(default)]
    pub k: Option<usize>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Hit {
    pub uid: String,
    pub source: String,
    pub title: Option<String>,
    pub text: String,
    pub score: f32,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchOut {
    pub hits: Vec<Hit>,
    pub mode: String,
    pub not_enough_evidence: bool,
    pub notes: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskArgs {
    /// The question.
    pub question: String,
    /// Answer language.
    #[serde(default)]
    pub lang: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CitationOut {
    pub index: usize,
    pub doc_uid: String,
    pub source: String,
    pub url: Option<String>,
    pub quote: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct AskOut {
    pub text: String,
    pub citations: Vec<CitationOut>,
    pub confidence: f32,
    pub not_enough_evidence: bool,
    pub degraded: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DocArgs {
    pub uid: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DocOut {
    pub found: bool,
    pub document: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatsArgs {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct StatsOut {
    pub documents: usize,
    pub chunks: usize,
    pub generator: String,
    pub notes: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FetchArgs {
    pub url: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct FetchOut {
    pub url: String,
    pub status: String,
    pub title: Option<String>,
    pub content: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IngestDoc {
    pub uid: Option<String>,
    pub title: Option<String>,
    pub source: Option<String>,
    pub content: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IngestArgs {
    #[serde(default)]
    pub documents: Vec<IngestDoc>,
    #[serde(default)]
    pub paths: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct IngestOut {
    pub inserted: usize,
    pub replaced: usize,
    pub unchanged: usize,
    pub chunks: usize,
    pub errors: Vec<String>,
}
