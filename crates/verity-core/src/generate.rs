//! The [`Generator`] trait: prompt → text, whole or streamed.

use std::pin::Pin;

use async_trait::async_trait;
use futures_core::Stream;
use serde::{Deserialize, Serialize};

use crate::Result;

/// Who speaks in a chat message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions.
    System,
    /// The user.
    User,
    /// The model.
    Assistant,
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// Speaker.
    pub role: Role,
    /// Text.
    pub content: String,
}

impl ChatMessage {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self {
            role: Role::System,
            content: content.into(),
        }
    }
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: content.into(),
        }
    }
    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

/// Sampling parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenerationParams {
    /// Temperature (default 0.2).
    pub temperature: f32,
    /// Nucleus sampling (default 0.9).
    pub top_p: f32,
    /// Maximum new tokens (default 1536, `max_tokens`).
    pub max_tokens: u32,
    /// Context window requested from the server (default 8192, Ollama `num_ctx`).
    pub num_ctx: u32,
    /// Extra stop sequences.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
    /// Sampling seed, for reproducible runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Time and token budget of the call ([`GenerationBudget`]): a generator
    /// that reaches it stops and fails with a transient timeout, so callers
    /// fall back instead of waiting. Not serialised (it is not a sampling
    /// setting and never part of a cache key).
    #[serde(skip)]
    pub budget: GenerationBudget,
}

/// What one generation may spend before it stops: wall-clock time (prompt
/// processing included) and new tokens. Unlike `max_tokens` — the length the
/// caller asks for, after which the text ends normally
/// ([`FinishReason::Length`]) — reaching a budget means the generator could
/// not finish within what the caller can afford: the call fails with a
/// transient [`ProviderErrorKind::Timeout`](crate::ProviderErrorKind::Timeout)
/// ([`GenerationBudget::exceeded`]) and callers fall back (the RAG pipeline
/// answers with its fallback generator and says `degraded`).
///
/// Budgets compose: a run with a deadline hands each generation the tighter
/// of its own budget and the run's remaining time ([`GenerationBudget::min`]).
/// Generators apply [`GenerationBudget::time`] as their deadline and
/// [`GenerationBudget::tokens`] as a cap on new tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GenerationBudget {
    /// Most wall-clock time for the call (`None`: no limit here).
    pub time: Option<std::time::Duration>,
    /// Most new tokens (`None`: no limit besides `max_tokens`).
    pub tokens: Option<u32>,
}

impl GenerationBudget {
    /// No limit.
    pub const UNLIMITED: Self = Self {
        time: None,
        tokens: None,
    };

    /// A budget of `time` and `tokens`.
    pub fn new(time: std::time::Duration, tokens: u32) -> Self {
        Self {
            time: Some(time),
            tokens: Some(tokens),
        }
    }

    /// The tighter of two budgets, limit by limit.
    #[must_use]
    pub fn min(self, other: Self) -> Self {
        fn tighter<T: Ord>(a: Option<T>, b: Option<T>) -> Option<T> {
            match (a, b) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            }
        }
        Self {
            time: tighter(self.time, other.time),
            tokens: tighter(self.tokens, other.tokens),
        }
    }

    /// Whether no limit is set.
    pub fn is_unlimited(&self) -> bool {
        self.time.is_none() && self.tokens.is_none()
    }

    /// New tokens a call asking for `max_tokens` may produce: the token
    /// budget when it is the smaller, else `max_tokens`; and whether the
    /// budget is what limits it (reaching it is then a budget stop, not the
    /// requested length).
    pub fn token_limit(&self, max_tokens: u32) -> (u32, bool) {
        match self.tokens {
            Some(b) if b < max_tokens => (b, true),
            _ => (max_tokens, false),
        }
    }

    /// The error of a generation stopped by this budget after `spent`
    /// (time) and `tokens` new tokens: a transient timeout of `provider`
    /// saying which limit was reached.
    pub fn exceeded(
        &self,
        provider: &str,
        spent: std::time::Duration,
        tokens: u32,
    ) -> crate::Error {
        let what = match (self.time, self.tokens) {
            (Some(t), _) if spent >= t => format!("time budget of {:.1} s", t.as_secs_f64()),
            (_, Some(n)) if tokens >= n => format!("token budget of {n} new tokens"),
            _ => "budget".to_string(),
        };
        crate::ProviderError::new(
            provider,
            crate::ProviderErrorKind::Timeout,
            format!(
                "generation stopped at its {what} ({tokens} tokens in {:.1} s)",
                spent.as_secs_f64()
            ),
        )
        .into()
    }
}

impl Default for GenerationParams {
    fn default() -> Self {
        Self {
            temperature: 0.2,
            top_p: 0.9,
            max_tokens: 1536,
            num_ctx: 8192,
            stop: Vec::new(),
            seed: None,
            budget: GenerationBudget::UNLIMITED,
        }
    }
}

/// A numbered passage the answer must be grounded in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextBlock {
    /// 1-based number used in `[n]` citations.
    pub index: usize,
    /// Chunk id.
    pub chunk_id: String,
    /// Document uid.
    pub doc_uid: String,
    /// Passage text.
    pub text: String,
}

/// Structured grounding handed along with the prompt, so that generators that
/// do not read prompts (the extractive one) can answer too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Grounding {
    /// The user's question.
    pub question: String,
    /// The numbered context.
    pub blocks: Vec<ContextBlock>,
    /// Answer language (`en`, `fr`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
}

/// What a [`Generator`] takes: chat messages, sampling parameters and the
/// grounding of a grounded answer. (The api's `GenerateRequest` of
/// `POST /v1/generate` is a question plus passages; the facade builds this
/// from it.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// Chat messages (system prompt first).
    pub messages: Vec<ChatMessage>,
    /// Sampling parameters.
    #[serde(default)]
    pub params: GenerationParams,
    /// Structured context, when the request is a grounded answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grounding: Option<Grounding>,
}

impl ChatRequest {
    /// A request from messages with default parameters.
    pub fn new(messages: Vec<ChatMessage>) -> Self {
        Self {
            messages,
            params: GenerationParams::default(),
            grounding: None,
        }
    }
}

/// Why generation stopped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// End of turn or stop sequence.
    #[default]
    Stop,
    /// `max_tokens` reached.
    Length,
    /// Anything else the server reported.
    Other,
}

/// Token accounting, when known.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    pub prompt_tokens: Option<u32>,
    /// Generated tokens.
    pub completion_tokens: Option<u32>,
}

/// A complete generation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Generation {
    /// Generated text.
    pub text: String,
    /// Model that produced it.
    pub model: String,
    /// Why it stopped.
    pub finish_reason: FinishReason,
    /// Token counts.
    pub usage: Usage,
}

/// A stream of text deltas; the stream ends when generation ends.
pub type TokenStream = Pin<Box<dyn Stream<Item = Result<String>> + Send>>;

/// Produces text from a prompt.
///
/// Implementations: Ollama `/api/chat`, OpenAI-compatible
/// `/v1/chat/completions`, local GGUF models (candle), and the extractive
/// generator that only quotes its context.
#[async_trait]
pub trait Generator: Send + Sync {
    /// Model name with its tag, reported in answers.
    fn model(&self) -> &str;

    /// Generate the whole answer.
    async fn generate(&self, req: &ChatRequest) -> Result<Generation>;

    /// Stream the answer as text deltas.
    async fn stream(&self, req: &ChatRequest) -> Result<TokenStream>;

    /// Check that the backend is reachable and the model is there.
    async fn health(&self) -> Result<()> {
        Ok(())
    }
}
