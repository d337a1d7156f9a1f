//! Settings, requests and events of the RAG pipeline ([`crate::rag`]):
//! what a caller configures and receives.

use std::pin::Pin;
use std::time::Duration;

use futures::Stream;
use verity_core::cache::ANSWER_TTL;
use verity_core::{Answer, Filters, GenerationParams, Result, ScoredChunk, SearchMode, VerifyMode};

use crate::injection::InjectionPolicy;

/// What to do when the guardrail finds too little evidence.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LowEvidencePolicy {
    /// Answer "not enough evidence" without calling the generator.
    #[default]
    Refuse,
    /// Answer from what there is, flag it, and ask the user for a source.
    AnswerAndAskForSources,
}

/// When a generation counts as timed out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeoutPolicy {
    /// A fixed deadline; when `None` the deadline is `p95_factor ×` the
    /// rolling p95 of recent generations (once `min_samples` are known).
    pub fixed: Option<Duration>,
    /// Multiplier of the rolling p95 (seed: 2).
    pub p95_factor: f64,
    /// Never time out sooner than this.
    pub floor: Duration,
    /// Samples needed before the rolling p95 is trusted.
    pub min_samples: usize,
    /// Size of the rolling window.
    pub window: usize,
}

impl Default for TimeoutPolicy {
    fn default() -> Self {
        Self {
            fixed: None,
            p95_factor: 2.0,
            floor: Duration::from_secs(5),
            min_samples: 10,
            window: 200,
        }
    }
}

/// Settings of a [`RagPipeline`] (seed-001 defaults).
#[derive(Debug, Clone, PartialEq)]
pub struct RagConfig {
    /// Chunks retrieved (seed: 8).
    pub k: usize,
    /// Chunks kept as context after re-ranking (seed: 3).
    pub context_chunks: usize,
    /// Retrieval mode.
    pub mode: SearchMode,
    /// Behaviour under the guardrail.
    pub low_evidence: LowEvidencePolicy,
    /// Below this confidence the fallback generator is tried.
    pub min_confidence: f32,
    /// Generation deadline.
    pub timeout: TimeoutPolicy,
    /// Retrieved passages that look like prompt injections.
    pub injection: InjectionPolicy,
    /// Refuse questions that look like prompt injections.
    pub reject_injected_questions: bool,
    /// TTL of cached answers (seed: 6 h).
    pub answer_ttl: Duration,
    /// Sampling parameters.
    pub params: GenerationParams,
    /// Answer language when the request has none.
    pub default_lang: String,
    /// What to do with answer sentences their sources do not support, when
    /// the request does not say (default `flag`: every word of the answer is
    /// kept and the unsupported sentences are marked — the local judge calls
    /// some faithful paraphrases PARTIAL, and removing them would lose true
    /// content; `strip` is the stricter choice).
    pub verify: VerifyMode,
}

impl Default for RagConfig {
    fn default() -> Self {
        Self {
            k: 8,
            context_chunks: 3,
            mode: SearchMode::Hybrid,
            low_evidence: LowEvidencePolicy::Refuse,
            min_confidence: 0.2,
            timeout: TimeoutPolicy::default(),
            injection: InjectionPolicy::Drop,
            reject_injected_questions: true,
            answer_ttl: ANSWER_TTL,
            params: GenerationParams::default(),
            default_lang: "en".into(),
            verify: VerifyMode::Flag,
        }
    }
}

/// A checked question for [`RagPipeline::ask`]: filters parsed, bounds
/// checked; `k`, `mode` and `verify` left unset take the pipeline's
/// [`RagConfig`]. Hosts build it from `verity::api::AskRequest` (its one
/// conversion, `AskRequest::to_rag`), which also takes the top-level filter
/// fields and dates in their request form.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RagQuestion {
    /// The question.
    pub question: String,
    /// Answer language; retrieval prefers documents in it (mixing when none match).
    #[serde(default)]
    pub lang: Option<String>,
    /// Retrieval filters.
    #[serde(default)]
    pub filters: Filters,
    /// Override of `k`.
    #[serde(default)]
    pub k: Option<usize>,
    /// Override of the retrieval mode.
    #[serde(default)]
    pub mode: Option<SearchMode>,
    /// Bypass the answer cache.
    #[serde(default)]
    pub no_cache: bool,
    /// Check the answer against its sources before returning it (default:
    /// the pipeline's, `flag`); needs an [`AnswerCheck`].
    #[serde(default)]
    pub verify: Option<VerifyMode>,
}

/// Checks an answer's cited sentences against the context blocks they cite
/// (`context[n - 1]` is `[n]`) and applies the mode: the answer's text, its
/// `verification`. Implemented over the one judging path of citation
/// verification (the `verity` facade plugs it in).
#[async_trait::async_trait]
pub trait AnswerCheck: Send + Sync {
    /// Check `answer` in `mode` (never [`VerifyMode::Off`]).
    async fn check(&self, answer: &mut Answer, context: &[ScoredChunk], mode: VerifyMode);
}

impl RagQuestion {
    /// A request with defaults.
    pub fn new(question: impl Into<String>) -> Self {
        Self {
            question: question.into(),
            ..Self::default()
        }
    }
}

/// Events of a streamed answer.
#[derive(Debug, Clone, PartialEq)]
pub enum RagEvent {
    /// A piece of the answer as generated (markers not yet checked).
    Delta(String),
    /// The final answer (markers checked, citations resolved).
    Done(Box<Answer>),
}

/// A stream of [`RagEvent`]s.
pub type RagStream = Pin<Box<dyn Stream<Item = Result<RagEvent>> + Send>>;
