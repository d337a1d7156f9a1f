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
    /// The answer checked against its sources, sentence by sentence, when
    /// asked (`verify`: `flag` by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification: Option<AnswerVerification>,
}

/// What to do with answer sentences their cited sources do not support.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum VerifyMode {
    /// Do not check the answer.
    Off,
    /// Check each cited sentence and mark the unsupported ones in the text
    /// (`[unsupported: VERDICT]`), keeping every word of the answer (default).
    #[default]
    Flag,
    /// Check each cited sentence and remove the unsupported ones from the text.
    Strip,
}

impl VerifyMode {
    /// Parse `off`, `flag` or `strip` (case-insensitive).
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "off" | "none" | "no" => Some(Self::Off),
            "flag" => Some(Self::Flag),
            "strip" | "remove" => Some(Self::Strip),
            _ => None,
        }
    }
}

/// One sentence of an answer and what its cited sources say of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SentenceVerdict {
    /// The sentence, citation markers removed.
    pub text: String,
    /// The `[n]` it cites.
    pub citations: Vec<usize>,
    /// The verdict of its best-supporting citation (`None`: it cites nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<crate::Verdict>,
    /// Confidence, 0–1.
    #[serde(default)]
    pub confidence: f32,
    /// Why.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub explanation: String,
    /// The sentence of the cited passage that decides it (its characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_quote: Option<String>,
    /// The `[n]` the quote comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote_citation: Option<usize>,
    /// Which judge decided.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub judge: String,
    /// Caught: cited, and not SUPPORTED by what it cites.
    pub flagged: bool,
    /// Removed from the answer text (`strip`).
    #[serde(default)]
    pub removed: bool,
}

/// The check of an answer against its sources.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AnswerVerification {
    /// What was done with unsupported sentences.
    pub mode: VerifyMode,
    /// The judge configured for the check.
    pub judge: String,
    /// Every sentence of the answer, in order.
    pub sentences: Vec<SentenceVerdict>,
    /// Sentences that cite a source (and were judged).
    pub checked: usize,
    /// Of which SUPPORTED.
    pub supported: usize,
    /// Of which caught (not SUPPORTED): what `answer_hallucination_flag` counts.
    pub flagged: usize,
    /// Of which removed (`strip`).
    pub removed: usize,
}
