//! The local embedder's settings: [`LocalEmbedderConfig`] and the choices it names.

use std::path::{Path, PathBuf};

use verity_core::{Result, SpanMode};

use super::LocalEmbedder;

/// How token vectors are pooled into one sentence vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// Mean over the tokens the attention mask keeps (sentence-transformers' default).
    Mean,
    /// The `[CLS]` token's vector.
    Cls,
}

/// Which forward-pass implementation runs the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// Verity's packed encoder (default): no padding, fused QKV, fused
    /// bias/activation/residual passes on all cores, per-text attention.
    #[default]
    Packed,
    /// `candle_transformers::models::bert::BertModel` on padded batches (the
    /// reference implementation; slower on CPU).
    CandleBert,
}

/// Arithmetic of the encoder's dense layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    /// 32-bit floats (default): the reference vectors (cosine ≥ 0.999).
    #[default]
    F32,
    /// Integer dense layers: 8-bit weights and smoothed 7-bit inputs for the
    /// attention output and intermediate products ([`crate::int8mm`]), 16-bit
    /// products for QKV and the feed-forward output ([`crate::int16mm`]). Faster on x86-64 with
    /// AVX2; vectors within cosine 0.999 of the f32 ones
    /// (docs/benchmarks.d/embed.md gives the speed, cosine and nDCG). The
    /// embedder id's version ends in `-int8v2`, so an index embedded in f32
    /// (or by the first, all-8-bit form, `-int8`) is re-embedded, never mixed.
    Int8,
}

/// Settings and builder of a [`LocalEmbedder`].
#[derive(Debug, Clone)]
pub struct LocalEmbedderConfig {
    pub(super) model_dir: PathBuf,
    pub(super) model_name: Option<String>,
    pub(super) embed_version: Option<String>,
    pub(super) max_seq_length: Option<usize>,
    pub(super) batch_size: usize,
    pub(super) pass_tokens: usize,
    pub(super) pooling: Option<Pooling>,
    pub(super) engine: Engine,
    pub(super) span_mode: SpanMode,
    pub(super) precision: Precision,
}

impl Default for LocalEmbedderConfig {
    fn default() -> Self {
        Self::new(LocalEmbedder::default_model_dir())
    }
}

impl LocalEmbedderConfig {
    /// Settings for the model in `model_dir` (a plain directory or a Hugging Face cache entry).
    pub fn new(model_dir: impl Into<PathBuf>) -> Self {
        Self {
            model_dir: model_dir.into(),
            model_name: None,
            embed_version: None,
            max_seq_length: None,
            batch_size: 32,
            pass_tokens: crate::passes::PASS_TOKENS,
            pooling: None,
            engine: Engine::Packed,
            span_mode: SpanMode::Separate,
            precision: Precision::F32,
        }
    }

    /// Model name recorded in the [`EmbedderId`](verity_core::EmbedderId) (default: the directory name).
    pub fn model_name(mut self, name: impl Into<String>) -> Self {
        self.model_name = Some(name.into());
        self
    }

    /// `EMBED_VERSION` recorded in the [`EmbedderId`](verity_core::EmbedderId) (default: a short SHA-1
    /// of `config.json`, the weights' size, the sequence limit and the pooling).
    pub fn embed_version(mut self, version: impl Into<String>) -> Self {
        self.embed_version = Some(version.into());
        self
    }

    /// Truncation limit in word pieces (default: `sentence_bert_config.json`'s
    /// `max_seq_length`, else the model's position limit). Capped at the latter.
    pub fn max_seq_length(mut self, n: usize) -> Self {
        self.max_seq_length = Some(n);
        self
    }

    /// Texts per forward pass (default 32, at least 1).
    pub fn batch_size(mut self, n: usize) -> Self {
        self.batch_size = n.max(1);
        self
    }

    /// Word pieces per forward pass (default 2,048, at least 1; a longer text
    /// gets a pass of its own): long texts run a few per pass, where the
    /// activations stay in cache (docs/benchmarks.d/embed.md, "Passes capped
    /// in word pieces"). `usize::MAX` batches by count only.
    pub fn pass_tokens(mut self, n: usize) -> Self {
        self.pass_tokens = n.max(1);
        self
    }

    /// Pooling (default: read from `1_Pooling/config.json`, else mean).
    pub fn pooling(mut self, pooling: Pooling) -> Self {
        self.pooling = Some(pooling);
        self
    }

    /// Forward-pass implementation (default [`Engine::Packed`]).
    pub fn engine(mut self, engine: Engine) -> Self {
        self.engine = engine;
        self
    }

    /// How [`Embedder::embed_spans`](verity_core::Embedder::embed_spans) computes sentence vectors (default
    /// [`SpanMode::Separate`]). [`SpanMode::Pooled`] needs the packed engine
    /// and a tokenizer that frames texts with two special tokens (BERT's
    /// `[CLS]`/`[SEP]`); otherwise the embedder falls back to separate.
    pub fn span_mode(mut self, mode: SpanMode) -> Self {
        self.span_mode = mode;
        self
    }

    /// Dense-layer arithmetic (default [`Precision::F32`]).
    /// [`Precision::Int8`] needs the packed engine; the reference engine
    /// refuses it.
    pub fn precision(mut self, precision: Precision) -> Self {
        self.precision = precision;
        self
    }

    /// The configured model directory.
    pub fn model_dir(&self) -> &Path {
        &self.model_dir
    }

    /// Load the model (blocking: reads the weights). See [`LocalEmbedder::load`].
    pub fn build(self) -> Result<LocalEmbedder> {
        LocalEmbedder::load(self)
    }
}

/// Process-wide switches that force a kernel family or turn one
/// optimisation off, for comparisons and benchmarks
/// (docs/benchmarks.d/embed.md). Read once, here only; every other setting
/// of a local embedder is in [`LocalEmbedderConfig`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct KernelSwitches {
    /// `VERITY_EMBED_SIMD` (trimmed): `avx2` keeps the AMX tiles off,
    /// `baseline`/`scalar` also the SIMD element-wise kernels.
    simd: Option<String>,
    /// `VERITY_EMBED_IN_POOL=off`: a pass runs on the caller's thread.
    in_pool_off: bool,
    /// `VERITY_EMBED_PANELS=off`: no pre-packed panels for short passes.
    panels_off: bool,
}

impl KernelSwitches {
    /// The switches as the environment `var` sets them.
    pub(crate) fn from_vars(var: &dyn Fn(&str) -> Option<String>) -> Self {
        let off = |key| var(key).is_some_and(|v| matches!(v.trim(), "off" | "0" | "false"));
        Self {
            simd: var("VERITY_EMBED_SIMD").map(|v| v.trim().to_string()),
            in_pool_off: off("VERITY_EMBED_IN_POOL"),
            panels_off: off("VERITY_EMBED_PANELS"),
        }
    }

    /// Whether a kernel family is forced at all (tests that check the best
    /// kernel runs stand down then).
    #[cfg(test)]
    pub(crate) fn simd_forced(&self) -> bool {
        self.simd.is_some()
    }

    /// AMX tiles refused (`avx2`, `baseline`, `scalar`).
    pub(crate) fn tiles_refused(&self) -> bool {
        matches!(self.simd.as_deref(), Some("avx2" | "baseline" | "scalar"))
    }

    /// The portable element-wise kernels forced (`baseline`, `scalar`).
    pub(crate) fn baseline(&self) -> bool {
        matches!(self.simd.as_deref(), Some("baseline" | "scalar"))
    }

    /// Whether a pass moves onto a rayon worker.
    pub(crate) fn in_pool(&self) -> bool {
        !self.in_pool_off
    }

    /// Whether short passes use pre-packed weight panels.
    pub(crate) fn panels(&self) -> bool {
        !self.panels_off
    }
}

/// This process's [`KernelSwitches`].
pub(crate) fn kernel_switches() -> &'static KernelSwitches {
    static SWITCHES: std::sync::OnceLock<KernelSwitches> = std::sync::OnceLock::new();
    SWITCHES.get_or_init(|| KernelSwitches::from_vars(&|k| std::env::var(k).ok()))
}

#[cfg(test)]
mod tests {
    use super::KernelSwitches;

    fn with(pairs: &[(&str, &str)]) -> KernelSwitches {
        KernelSwitches::from_vars(&|k| {
            pairs
                .iter()
                .find(|(key, _)| *key == k)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn the_switches_are_read_as_documented() {
        let none = with(&[]);
        assert!(!none.simd_forced() && !none.tiles_refused() && !none.baseline());
        assert!(none.in_pool() && none.panels());
        let avx2 = with(&[("VERITY_EMBED_SIMD", " avx2 ")]);
        assert!(avx2.simd_forced() && avx2.tiles_refused() && !avx2.baseline());
        let base = with(&[("VERITY_EMBED_SIMD", "scalar")]);
        assert!(base.tiles_refused() && base.baseline());
        let odd = with(&[("VERITY_EMBED_SIMD", "neon")]);
        assert!(odd.simd_forced() && !odd.tiles_refused());
        let off = with(&[
            ("VERITY_EMBED_IN_POOL", "off"),
            ("VERITY_EMBED_PANELS", "0"),
        ]);
        assert!(!off.in_pool() && !off.panels());
        assert!(with(&[("VERITY_EMBED_PANELS", "on")]).panels());
    }
}
