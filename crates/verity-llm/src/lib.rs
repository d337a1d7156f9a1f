//! # verity-llm
//!
//! [`Generator`](verity_core::Generator) implementations:
//!
//! | type | backend |
//! |---|---|
//! | [`OllamaGenerator`] | Ollama native `POST /api/chat` (NDJSON streaming) |
//! | [`OpenAiGenerator`] | any OpenAI-compatible `POST /v1/chat/completions` (SSE streaming) |
//! | [`LocalGgufGenerator`] | in-process GGUF inference with candle (feature `local`, default on) |
//! | [`ExtractiveGenerator`] | no model: quotes the best source sentences verbatim with `[n]` citations |
//!
//! Every failure is a typed [`verity_core::Error`]; provider failures carry a
//! [`verity_core::ProviderErrorKind`] that says whether a retry may help. A
//! stream never ends silently on a failure: a dropped connection, a
//! malformed line or a mid-stream server error arrives as an `Err` item.

mod extractive;
mod http;
#[cfg(feature = "local")]
mod local;
mod local_answer;
mod local_engine;
mod ollama;
mod openai;
mod stop;

pub use extractive::{ExtractiveGenerator, ExtractiveGeneratorBuilder};
pub use http::Timeouts;
#[cfg(feature = "local")]
pub use local::{
    ContextOverflow, LocalGgufConfig, LocalGgufGenerator, ANSWER_SENTENCES, CITED_ANSWER_TOKENS,
    DEFAULT_LOCAL_BUDGET, PASSAGE_TOKENS,
};
pub use local_answer::LocalAnswerFormat;
pub use local_engine::LocalEngine;
pub use ollama::{unpinned_tag, OllamaGenerator, OllamaGeneratorBuilder, DEFAULT_OLLAMA_URL};
pub use openai::{OpenAiGenerator, OpenAiGeneratorBuilder};
pub use stop::StopMatcher;

use verity_core::{GenerationParams, ProviderErrorKind, Result};

/// Reject sampling parameters no backend can honour.
pub(crate) fn validate_params(provider: &str, p: &GenerationParams) -> Result<()> {
    let bad = |m: String| Err(http::perr(provider, ProviderErrorKind::InvalidRequest, m));
    if !p.temperature.is_finite() || p.temperature < 0.0 {
        return bad(format!(
            "temperature must be a finite number ≥ 0, got {}",
            p.temperature
        ));
    }
    if !p.top_p.is_finite() || p.top_p <= 0.0 || p.top_p > 1.0 {
        return bad(format!("top_p must be in (0, 1], got {}", p.top_p));
    }
    if p.max_tokens == 0 {
        return bad("max_tokens must be ≥ 1".into());
    }
    Ok(())
}

/// An `f32` as the `f64` with the same shortest decimal form, so that `0.2f32`
/// is sent as `0.2` rather than `0.20000000298023224`.
pub(crate) fn json_f32(x: f32) -> f64 {
    x.to_string().parse::<f64>().unwrap_or(f64::from(x))
}
