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

/// Models whose GGUF file is smaller than this run on one thread unless the
/// configuration names a count: a new token of SmolLM2-135M (a 92 MB file)
/// is too little work to share, and with two threads ggml spends most of
/// the time in its barrier waiting for the other one — 58% of the cycles
/// of a local `ask` on the 2-core machine (perf). On a shared machine (load
/// 8–10) one thread answered in 8–11 s where two took 19–21 s, prompts
/// included (docs/benchmarks.d/generate.md); idle, a second thread would
/// save well under a second on the short grounded prompt.
const SMALL_MODEL_BYTES: u64 = 512 << 20;

/// A model loaded in llama.cpp.
pub(crate) struct Model {
    model: LlamaModel,
    /// Threads of a prompt's batches.
    threads: usize,
    /// Threads of one new token.
    token_threads: usize,
}

impl Model {
    /// Load the GGUF file at `path` (memory-mapped), to run on `threads`
    /// threads (`None`: the CPUs available, one for a small model:
    /// [`SMALL_MODEL_BYTES`]; a small model generates on one thread anyway).
    pub(crate) fn load(path: &Path, threads: Option<usize>) -> std::result::Result<Self, String> {
        let backend = backend()?;
        let model = LlamaModel::load_from_file(backend, path, &LlamaModelParams::default())
            .map_err(|e| e.to_string())?;
        let small = std::fs::metadata(path).is_ok_and(|m| m.len() < SMALL_MODEL_BYTES);
        let cpus = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        let threads = match (threads, small) {
            (Some(n), _) => n.max(1),
            (None, true) => 1,
            (None, false) => cpus,
        };
        Ok(Self {
            model,
            threads,
            token_threads: if small { 1 } else { threads },
        })
    }

    /// A session with room for `n_ctx` tokens.
    pub(crate) fn session(&self, n_ctx: usize) -> Result<LlamaSession<'_>> {
        let backend = backend().map_err(engine_err)?;
        let threads = i32::try_from(self.threads).unwrap_or(1);
        let token_threads = i32::try_from(self.token_threads).unwrap_or(1);
        let n_ctx = u32::try_from(n_ctx.max(16)).unwrap_or(u32::MAX);
        let batch = u32::try_from(BATCH).unwrap_or(512);
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(n_ctx))
            .with_n_batch(batch)
            .with_n_ubatch(batch)
            .with_n_threads(token_threads)
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
