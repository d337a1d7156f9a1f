//! The llama.cpp engine (feature `llama-cpp`): the model's forward passes
//! run in llama.cpp through the `llama-cpp-2` binding; everything else (the
//! tokenizer, the chat template, sampling, stop strings, budgets) is the
//! generator's own, as on candle, so both engines are driven the same way.
//!
//! Why: on this project's 2-core AVX2 machine llama.cpp processes
//! SmolLM2-135M prompts 10–30× faster than candle's quantized llama and
//! generates 4–6× faster (docs/benchmarks.d/generate.md, docs/architecture.md).

use std::num::NonZeroU32;
use std::path::Path;
use std::sync::{Mutex, OnceLock};

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::token::LlamaToken;
use verity_core::Result;

use super::engine::{engine_err, Session};

/// llama.cpp's backend can be initialised once per process.
fn backend() -> std::result::Result<&'static LlamaBackend, String> {
    static BACKEND: OnceLock<std::result::Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            let mut b = LlamaBackend::init().map_err(|e| e.to_string())?;
            // llama.cpp logs every load and context to stderr; the library stays quiet.
            b.void_logs();
            Ok(b)
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Creating contexts of one model in parallel is not sound in llama.cpp
/// (it adjusts the model while creating one): one at a time.
static NEW_CONTEXT: Mutex<()> = Mutex::new(());

/// Prompt tokens per decode call (llama.cpp's default batch).
const BATCH: usize = 512;

/// A model loaded in llama.cpp.
pub(crate) struct Model {
    model: LlamaModel,
    threads: usize,
}

impl Model {
    /// Load the GGUF file at `path` (memory-mapped), to run on `threads` threads.
    pub(crate) fn load(path: &Path, threads: usize) -> std::result::Result<Self, String> {
        let backend = backend()?;
        let model = LlamaModel::load_from_file(backend, path, &LlamaModelParams::default())
            .map_err(|e| e.to_string())?;
        Ok(Self {
            model,
            threads: threads.max(1),
        })
    }

    /// A session with room for `n_ctx` tokens.
    pub(crate) fn session(&self, n_ctx: usize) -> Result<LlamaSession<'_>> {
        let backend = backend().map_err(engine_err)?;
        let threads = i32::try_from(self.threads).unwrap_or(1);
        let n_ctx = u32::try_from(n_ctx.max(16)).unwrap_or(u32::MAX);
        let batch = u32::try_from(BATCH).unwrap_or(512);
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(n_ctx))
            .with_n_batch(batch)
            .with_n_ubatch(batch)
            .with_n_threads(threads)
            .with_n_threads_batch(threads);
        let ctx = {
            let _one = NEW_CONTEXT.lock().unwrap_or_else(|p| p.into_inner());
            self.model
                .new_context(backend, params)
                .map_err(engine_err)?
        };
        Ok(LlamaSession {
            ctx,
            batch: LlamaBatch::new(BATCH, 1),
            pos: 0,
        })
    }
}

/// One generation's context (its KV cache) in llama.cpp.
pub(crate) struct LlamaSession<'m> {
    ctx: LlamaContext<'m>,
    batch: LlamaBatch<'static>,
    pos: i32,
}

impl Session for LlamaSession<'_> {
    fn feed(
        &mut self,
        tokens: &[u32],
        keep_going: &mut dyn FnMut() -> bool,
    ) -> Result<Option<Vec<f32>>> {
        let mut last = None;
        for chunk in tokens.chunks(BATCH) {
            if last.is_some() && !keep_going() {
                return Ok(None);
            }
            self.batch.clear();
            for (i, &t) in chunk.iter().enumerate() {
                let id = i32::try_from(t).map_err(engine_err)?;
                let is_last = i + 1 == chunk.len();
                self.batch
                    .add(LlamaToken(id), self.pos, &[0], is_last)
                    .map_err(engine_err)?;
                self.pos += 1;
            }
            self.ctx.decode(&mut self.batch).map_err(engine_err)?;
            last = Some(i32::try_from(chunk.len() - 1).map_err(engine_err)?);
        }
        match last {
            Some(i) => Ok(Some(self.ctx.get_logits_ith(i).to_vec())),
            None => Err(engine_err("empty prompt")),
        }
    }
}
