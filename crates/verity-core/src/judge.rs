//! The [`Judge`] trait: does this source support this claim?
//!
//! One trait for every "is this claim backed by that text" question: citation
//! verification, tech watch's `verify_fact`, the research report check and
//! RAG answer checking. A judge reads a claim and the best passages of a
//! source and returns a [`Judgement`]: a [`Verdict`], a confidence, a short
//! explanation and the sentence of the source that decides it.
//!
//! Implementations: the local deterministic judge (numbers, units, dates,
//! negation, hedging, coverage) and the LLM judge over any
//! [`Generator`](crate::Generator), both in `verity-verify`.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Result;

/// What the source says about the claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Verdict {
    /// The source confirms the claim.
    Supported,
    /// The source contradicts the claim.
    NotSupported,
    /// Partly true, exaggerated or distorted (e.g. a different figure).
    Partial,
    /// The source does not let one decide.
    Inconclusive,
    /// The source could not be read (fetch failed, paywall, no reference entry).
    SourceUnavailable,
}

impl Verdict {
    /// Every verdict, in report order.
    pub const ALL: [Verdict; 5] = [
        Verdict::Supported,
        Verdict::Partial,
        Verdict::NotSupported,
        Verdict::Inconclusive,
        Verdict::SourceUnavailable,
    ];

    /// Stable wire name (`SUPPORTED`, `NOT_SUPPORTED`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Supported => "SUPPORTED",
            Verdict::NotSupported => "NOT_SUPPORTED",
            Verdict::Partial => "PARTIAL",
            Verdict::Inconclusive => "INCONCLUSIVE",
            Verdict::SourceUnavailable => "SOURCE_UNAVAILABLE",
        }
    }

    /// Parse a wire name, case-insensitively (`supported`, `not-supported`, `NOT SUPPORTED`).
    pub fn parse(s: &str) -> Option<Verdict> {
        let norm: String = s
            .trim()
            .chars()
            .map(|c| match c {
                '-' | ' ' => '_',
                c => c.to_ascii_uppercase(),
            })
            .collect();
        match norm.as_str() {
            "SUPPORTED" | "SUPPORT" | "SUPPORTS" => Some(Verdict::Supported),
            "NOT_SUPPORTED" | "CONTRADICTED" | "CONTRADICT" | "REFUTED" => {
                Some(Verdict::NotSupported)
            }
            "PARTIAL" | "PARTIALLY_SUPPORTED" => Some(Verdict::Partial),
            "INCONCLUSIVE" | "NOT_ENOUGH_INFO" | "UNKNOWN" => Some(Verdict::Inconclusive),
            "SOURCE_UNAVAILABLE" | "UNAVAILABLE" => Some(Verdict::SourceUnavailable),
            _ => None,
        }
    }

    /// `true` for verdicts a report counts as issues (everything but `SUPPORTED`).
    pub fn is_issue(self) -> bool {
        self != Verdict::Supported
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A passage of a source handed to a judge, with where it sits in the source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Passage {
    /// Passage text, verbatim from the source content.
    pub text: String,
    /// Byte offset of `text` in the source content.
    pub start: usize,
    /// Byte offset one past its end.
    pub end: usize,
    /// Retrieval score (higher is better; scale depends on the retriever).
    #[serde(default)]
    pub score: f32,
    /// URL of the source, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_url: Option<String>,
}

impl Passage {
    /// A passage with no position (offsets 0..len).
    pub fn new(text: impl Into<String>) -> Self {
        let text = text.into();
        Self {
            start: 0,
            end: text.len(),
            text,
            score: 0.0,
            source_url: None,
        }
    }
}

/// A judge's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Judgement {
    /// The verdict.
    pub verdict: Verdict,
    /// Confidence in the verdict, 0–1.
    pub confidence: f32,
    /// Why, in one or two sentences ("the source says 78 %").
    pub explanation: String,
    /// The exact sentence of the source that decides the verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_quote: Option<String>,
    /// Index (in the passages given) of the passage the quote comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passage: Option<usize>,
    /// Which judge answered (`local`, `llm:<model>`).
    pub judge: String,
    /// Tokens spent (prompt + completion), for judges that use a model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u32>,
}

impl Judgement {
    /// A judgement with no quote.
    pub fn new(
        verdict: Verdict,
        confidence: f32,
        explanation: impl Into<String>,
        judge: impl Into<String>,
    ) -> Self {
        Self {
            verdict,
            confidence: confidence.clamp(0.0, 1.0),
            explanation: explanation.into(),
            source_quote: None,
            passage: None,
            judge: judge.into(),
            tokens: None,
        }
    }

    /// Attach the deciding quote and the index of its passage.
    pub fn with_quote(mut self, quote: impl Into<String>, passage: Option<usize>) -> Self {
        self.source_quote = Some(quote.into());
        self.passage = passage;
        self
    }
}

/// Decides whether passages of a source support a claim.
///
/// `passages` are ordered best first. A judge never answers
/// [`Verdict::SourceUnavailable`] itself (that comes from fetching) and
/// answers [`Verdict::Inconclusive`] when `passages` is empty. `Err` is for
/// failures of the judge (its model unreachable or answering garbage twice),
/// not for claims it cannot decide.
#[async_trait]
pub trait Judge: Send + Sync {
    /// Short name reported in judgements (`local`, `llm:<model>`).
    fn name(&self) -> &str;

    /// Judge `claim` against `passages`.
    async fn judge(&self, claim: &str, passages: &[Passage]) -> Result<Judgement>;

    /// Judge `claim` against `passages` of a source whose whole text (as a
    /// reader sees it) is `source`: a judge may read beyond the passages —
    /// whether the source mentions the claim's subject at all, framing words
    /// (a speaker, a place, a year) stated in another sentence. The default
    /// reads the passages only ([`Judge::judge`]).
    async fn judge_in(&self, claim: &str, passages: &[Passage], source: &str) -> Result<Judgement> {
        let _ = source;
        self.judge(claim, passages).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn _object_safe(_: &std::sync::Arc<dyn Judge>) {}
    fn _send_sync<T: Send + Sync + ?Sized>() {}

    #[test]
    fn judge_is_a_send_sync_object() {
        _send_sync::<dyn Judge>();
    }

    #[test]
    fn verdict_wire_names_round_trip() {
        for v in Verdict::ALL {
            let json = serde_json::to_string(&v).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", v.as_str()));
            assert_eq!(Verdict::parse(v.as_str()), Some(v));
        }
        assert_eq!(Verdict::parse("not supported"), Some(Verdict::NotSupported));
        assert_eq!(Verdict::parse("maybe"), None);
    }

    #[test]
    fn judgement_schema_names_the_fields() {
        let schema = serde_json::to_value(schemars::schema_for!(Judgement)).unwrap_or_default();
        let props = &schema["properties"];
        for key in [
            "verdict",
            "confidence",
            "explanation",
            "source_quote",
            "judge",
        ] {
            assert!(props.get(key).is_some(), "{key} missing from {schema}");
        }
        let clamped = Judgement::new(Verdict::Supported, 3.0, "x", "t");
        assert_eq!(clamped.confidence, 1.0);
    }
}
