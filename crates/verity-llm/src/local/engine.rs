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

use super::PROVIDER;

/// Which engine runs a local model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LocalEngine {
    /// llama.cpp when this build has it (feature `llama-cpp`) and the CPU
    /// runs what it was compiled for, else candle. `VERITY_LLM_ENGINE=candle`
    /// or `llama.cpp` picks one (comparisons, benchmarks).
    #[default]
    Auto,
    /// candle's quantized llama (pure Rust).
    Candle,
    /// llama.cpp (feature `llama-cpp`).
    LlamaCpp,
}

impl LocalEngine {
    /// The engine to load: `Auto` resolved from `VERITY_LLM_ENGINE`, the
    /// build and the CPU. Asking for llama.cpp where it cannot run is an error.
    pub fn resolve(self) -> Result<Self> {
        let wanted = match self {
            Self::Auto => match std::env::var("VERITY_LLM_ENGINE")
                .ok()
                .as_deref()
                .map(str::trim)
            {
                Some("candle") => Self::Candle,
                Some("llama.cpp" | "llama-cpp" | "llamacpp") => Self::LlamaCpp,
                Some("" | "auto") | None => {
                    return Ok(if llama_cpp_usable().is_ok() {
                        Self::LlamaCpp
                    } else {
                        Self::Candle
                    })
                }
                Some(other) => {
                    return Err(verity_core::ConfigError::Invalid {
                        key: "VERITY_LLM_ENGINE".into(),
                        message: format!("`{other}`: expected `candle`, `llama.cpp` or `auto`"),
                    }
                    .into())
                }
            },
            other => other,
        };
        if wanted == Self::LlamaCpp {
            llama_cpp_usable().map_err(|why| {
                Error::from(verity_core::ConfigError::Invalid {
                    key: "local.engine".into(),
                    message: format!("llama.cpp cannot run here: {why}"),
                })
            })?;
        }
        Ok(wanted)
    }

    /// `llama.cpp` or `candle`.
    pub fn name(self) -> &'static str {
        match self {
            Self::LlamaCpp => "llama.cpp",
            Self::Candle | Self::Auto => "candle",
        }
    }
}

/// Whether the llama.cpp engine can run in this build on this CPU, or why not.
pub(crate) fn llama_cpp_usable() -> std::result::Result<(), &'static str> {
    if !cfg!(feature = "llama-cpp") {
        return Err("this build has no llama.cpp (cargo feature `llama-cpp` of verity-llm)");
    }
    // The workspace builds ggml for x86-64-v3 (.cargo/config.toml): never call
    // it on a CPU without those instructions.
    #[cfg(target_arch = "x86_64")]
    {
        if !(std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("f16c"))
        {
            return Err("the CPU lacks AVX2/FMA/F16C, which this llama.cpp build needs");
        }
    }
    Ok(())
}

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
