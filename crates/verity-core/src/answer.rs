//! Grounded answers and their citations.

use serde::{Deserialize, Serialize};

/// A source cited by an answer: `[n]` ↔ chunk ↔ document ↔ URL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Citation {
    /// The `n` of `[n]` in the answer text.
    pub index: usize,
    /// Cited chunk.
    pub chunk_id: String,
    /// Cited document.
    pub doc_uid: String,
    /// Document source.
    #[serde(default)]
    pub source: String,
    /// Document title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Document URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Exact quote from the chunk supporting the statement, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
    /// Byte range of the chunk in its document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<(usize, usize)>,
}

/// Time spent in each stage, in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Timings {
    /// Retrieval (embedding the query + search).
    pub retrieval_ms: f64,
    /// Re-ranking.
    pub rerank_ms: f64,
    /// Generation (all attempts).
    pub generation_ms: f64,
    /// End to end.
    pub total_ms: f64,
}

/// A grounded answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Answer {
    /// Answer text with `[n]` markers.
    pub text: String,
    /// Valid citations, by `index`.
    pub citations: Vec<Citation>,
    /// Confidence in `[0, 1]`.
    pub confidence: f32,
    /// `true` when the fallback generator answered or evidence was thin.
    pub degraded: bool,
    /// `true` when the answer is not backed by the sources: the guardrail
    /// found too little evidence, or the answer cites no source (the
    /// generator said the sources lack the answer, or wrote something uncited).
    pub not_enough_evidence: bool,
    /// `[n]` markers that pointed to no context block and were removed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invalid_citations: Vec<usize>,
    /// Model that produced the text.
    pub model: String,
    /// Served from the answer cache.
    #[serde(default)]
    pub cached: bool,
    /// Stage timings.
    pub timings: Timings,
    /// Notes for the reader (fallback used, lexical-only, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}
