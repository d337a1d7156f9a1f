//! Where the forward passes of a [`LocalGgufGenerator`](super::LocalGgufGenerator)
//! run: llama.cpp (feature `llama-cpp`) or candle. Tokenisation, the chat
//! template, sampling, stop strings and budgets are the generator's own and
//! the same on both; an engine only turns token ids into the next token's
//! logits.

use candle_core::quantized::gguf_file;
use candle_core::{Device, Tensor};
use candle_transformers::models::quantized_llama::ModelWeights;
use verity_core::{Error, ProviderErrorKind, Result};

use crate::http::perr;
use crate::local_engine::LocalEngine;

use super::PROVIDER;

/// A loaded model on one engine (cheap to clone).
#[derive(Clone)]
// One value per loaded model: the variants' size difference costs nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Weights {
    Candle(ModelWeights),
    #[cfg(feature = "llama-cpp")]
    LlamaCpp(std::sync::Arc<super::llama_cpp::Model>),
}

impl Weights {
    /// Load the weights of the GGUF file at `path` on `engine` (resolved).
    pub(crate) fn load(
        engine: LocalEngine,
        ct: gguf_file::Content,
        file: &mut std::fs::File,
        path: &std::path::Path,
        threads: Option<usize>,
    ) -> std::result::Result<Self, String> {
        match engine {
            #[cfg(feature = "llama-cpp")]
            LocalEngine::LlamaCpp => {
                let _ = (ct, file);
                super::llama_cpp::Model::load(path, threads)
                    .map(|m| Self::LlamaCpp(std::sync::Arc::new(m)))
            }
            _ => {
                let _ = (path, threads);
                ModelWeights::from_gguf(ct, file, &Device::Cpu)
                    .map(Self::Candle)
                    .map_err(|e| e.to_string())
            }
        }
    }

    /// The engine these weights run on.
    pub(crate) fn engine(&self) -> LocalEngine {
        match self {
            Self::Candle(_) => LocalEngine::Candle,
            #[cfg(feature = "llama-cpp")]
            Self::LlamaCpp(_) => LocalEngine::LlamaCpp,
        }
    }
}

/// One generation's state on an engine: feed tokens, get the logits of the
/// position after the last one.
pub(crate) trait Session {
    /// Feed `tokens` (the prompt, or a part of it) after what was fed before;
    /// the logits after the last one. `keep_going` is asked between chunks
    /// of a long prompt: `false` stops early (the result is then `Ok(None)`).
    fn feed(
        &mut self,
        tokens: &[u32],
        keep_going: &mut dyn FnMut() -> bool,
    ) -> Result<Option<Vec<f32>>>;
}

pub(crate) fn engine_err(e: impl std::fmt::Display) -> Error {
    perr(
        PROVIDER,
        ProviderErrorKind::BadResponse,
        format!("inference failed: {e}"),
    )
}

/// Prompt tokens fed to candle at once (bounds its attention mask).
const CANDLE_CHUNK: usize = 512;

/// A session on candle's quantized llama.
pub(crate) struct CandleSession {
    model: ModelWeights,
    pos: usize,
}

impl CandleSession {
    pub(crate) fn new(model: ModelWeights) -> Self {
        Self { model, pos: 0 }
    }
}

impl Session for CandleSession {
    fn feed(
        &mut self,
        tokens: &[u32],
        keep_going: &mut dyn FnMut() -> bool,
    ) -> Result<Option<Vec<f32>>> {
        let mut logits = None;
        for chunk in tokens.chunks(CANDLE_CHUNK) {
            if logits.is_some() && !keep_going() {
                return Ok(None);
            }
            let input = Tensor::new(chunk, &Device::Cpu)
                .and_then(|t| t.unsqueeze(0))
                .map_err(engine_err)?;
            logits = Some(self.model.forward(&input, self.pos).map_err(engine_err)?);
            self.pos += chunk.len();
        }
        let Some(logits) = logits else {
            return Err(perr(
                PROVIDER,
                ProviderErrorKind::InvalidRequest,
                "empty prompt",
            ));
        };
        logits
            .squeeze(0)
            .and_then(|t| t.to_dtype(candle_core::DType::F32))
            .and_then(|t| t.to_vec1::<f32>())
            .map(Some)
            .map_err(engine_err)
    }
}
