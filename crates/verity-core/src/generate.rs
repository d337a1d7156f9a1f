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

/// A generation request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenerateRequest {
    /// Chat messages (system prompt first).
    pub messages: Vec<ChatMessage>,
    /// Sampling parameters.
    #[serde(default)]
    pub params: GenerationParams,
    /// Structured context, when the request is a grounded answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grounding: Option<Grounding>,
}

impl GenerateRequest {
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
    async fn generate(&self, req: &GenerateRequest) -> Result<Generation>;

    /// Stream the answer as text deltas.
    async fn stream(&self, req: &GenerateRequest) -> Result<TokenStream>;

    /// Check that the backend is reachable and the model is there.
    async fn health(&self) -> Result<()> {
        Ok(())
    }
}
