//! Configuration of a [`crate::Verity`] handle: where the store lives and
//! which embedder and generators to use. Everything has a default that works
//! offline with no server; environment variables override the defaults.

use std::path::PathBuf;
use std::time::Duration;

use verity_core::{ConfigError, Error, Result};
use verity_rag::{RagConfig, RetrieverConfig};

/// Which embedder to use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmbedderSpec {
    /// The local model when it is installed, else none (lexical-only, said so).
    Auto,
    /// No embedder: lexical (BM25) search only.
    None,
    /// Local sentence-transformers model from a directory (`None`: the default one).
    Local(Option<PathBuf>),
    /// An Ollama model with a pinned tag (`nomic-embed-text:v1.5`).
    Ollama(String),
    /// An OpenAI-compatible `/v1/embeddings` model.
    OpenAi(String),
}

/// Which generator to use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GeneratorSpec {
    /// Quotes the most relevant sentences with citations; no model, never invents.
    Extractive,
    /// Local GGUF model (`None`: SmolLM2-135M-Instruct from the model cache).
    Local(Option<PathBuf>),
    /// An Ollama model with a pinned tag (`llama3.1:8b-instruct-q4_K_M`).
    Ollama(String),
    /// An OpenAI-compatible `/v1/chat/completions` model.
    OpenAi(String),
}

fn split_spec(spec: &str) -> (&str, Option<&str>) {
    match spec.split_once(':') {
        Some((kind, rest)) => (kind, Some(rest).filter(|r| !r.is_empty())),
        None => (spec, None),
    }
}

impl std::str::FromStr for EmbedderSpec {
    type Err = Error;
    /// `auto`, `none`, `local[:DIR]`, `ollama:MODEL:TAG`, `openai:MODEL`.
    fn from_str(s: &str) -> Result<Self> {
        match split_spec(s.trim()) {
            ("auto", None) => Ok(Self::Auto),
            ("none" | "lexical", None) => Ok(Self::None),
            ("local", dir) => Ok(Self::Local(dir.map(PathBuf::from))),
            ("ollama", Some(m)) => Ok(Self::Ollama(m.to_string())),
            ("openai", Some(m)) => Ok(Self::OpenAi(m.to_string())),
            _ => Err(invalid(
                "embedder",
                s,
                "auto, none, local[:DIR], ollama:MODEL:TAG or openai:MODEL",
            )),
        }
    }
}

impl std::str::FromStr for GeneratorSpec {
    type Err = Error;
    /// `extractive`, `local[:FILE.gguf]`, `ollama:MODEL:TAG`, `openai:MODEL`.
    fn from_str(s: &str) -> Result<Self> {
        match split_spec(s.trim()) {
            ("extractive", None) => Ok(Self::Extractive),
            ("local", path) => Ok(Self::Local(path.map(PathBuf::from))),
            ("ollama", Some(m)) => Ok(Self::Ollama(m.to_string())),
            ("openai", Some(m)) => Ok(Self::OpenAi(m.to_string())),
            _ => Err(invalid(
                "generator",
                s,
                "extractive, local[:FILE], ollama:MODEL:TAG or openai:MODEL",
            )),
        }
    }
}

impl std::fmt::Display for EmbedderSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Auto => f.write_str("auto"),
            Self::None => f.write_str("none"),
            Self::Local(None) => f.write_str("local"),
            Self::Local(Some(d)) => write!(f, "local:{}", d.display()),
            Self::Ollama(m) => write!(f, "ollama:{m}"),
            Self::OpenAi(m) => write!(f, "openai:{m}"),
        }
    }
}

impl std::fmt::Display for GeneratorSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Extractive => f.write_str("extractive"),
            Self::Local(None) => f.write_str("local"),
            Self::Local(Some(p)) => write!(f, "local:{}", p.display()),
            Self::Ollama(m) => write!(f, "ollama:{m}"),
            Self::OpenAi(m) => write!(f, "openai:{m}"),
        }
    }
}

/// A language code as answers use it (`fr`, `en`, `pt-BR`): trimmed and
/// lower-cased; letters and `-` only.
pub(crate) fn check_lang(key: &str, v: &str) -> Result<String> {
    let l = v.trim().to_ascii_lowercase();
    if l.is_empty() || l.len() > 16 || !l.chars().all(|c| c.is_ascii_alphabetic() || c == '-') {
        return Err(invalid(key, v, "a language code such as `fr` or `en`"));
    }
    Ok(l)
}

/// A cache class limit given in MiB: `0` means unlimited.
pub(crate) fn cache_limit_from_mb(mb: u64) -> Option<u64> {
    (mb > 0).then(|| mb.saturating_mul(verity_core::cache::MIB))
}

/// `true` when `target` is an http(s) URL rather than a path.
pub fn is_url(target: &str) -> bool {
    target.starts_with("http://") || target.starts_with("https://")
}

/// `true` for `redis://…` and `rediss://…` URLs (a store location that is not a directory).
pub fn is_redis_url(s: &str) -> bool {
    let s = s.trim_start();
    s.starts_with("redis://") || s.starts_with("rediss://")
}

fn invalid(key: &str, value: &str, expected: &str) -> Error {
    ConfigError::Invalid {
        key: key.into(),
        message: format!("`{value}`: expected {expected}"),
    }
    .into()
}

/// Everything a [`crate::Verity`] handle needs.
#[derive(Debug, Clone)]
pub struct VerityConfig {
    /// Store directory (default `./.verity`, or `VERITY_HOME`); with Redis,
    /// still where evaluation stores and local files go.
    pub home: PathBuf,
    /// Redis URL (`REDIS_URL`): when set, documents, indexes and caches live
    /// in Redis instead of the embedded SQLite store.
    pub redis_url: Option<String>,
    /// Index or alias to use (default `default`).
    pub index: String,
    /// Embedder (default: auto).
    pub embedder: EmbedderSpec,
    /// Main generator (default: extractive).
    pub generator: GeneratorSpec,
    /// Fallback generator (seed 001: a smaller model).
    pub fallback: Option<GeneratorSpec>,
    /// Ollama base URL (`OLLAMA_URL`, default `http://localhost:11434`).
    pub ollama_url: String,
    /// OpenAI-compatible base URL (`OPENAI_BASE_URL`, default `https://api.openai.com`).
    pub openai_url: String,
    /// Bearer key for the OpenAI-compatible server (`OPENAI_API_KEY`).
    pub openai_key: Option<String>,
    /// `EMBED_VERSION` recorded in the index for remote embedders.
    pub embed_version: Option<String>,
    /// How the local embedder computes sentence vectors
    /// (`VERITY_SENTENCE_VECTORS=pooled|separate`; `None`: its default,
    /// see [`verity_embed::LocalEmbedderConfig::span_mode`]). Remote
    /// embedders always embed sentences separately.
    pub sentence_spans: Option<verity_core::SpanMode>,
    /// Run the local embedder's dense layers in integers
    /// (`VERITY_EMBED_PRECISION=int8|f32`, default f32): faster ingest on
    /// AVX2, vectors within cosine 0.999 of the f32 ones, a different
    /// embedder version (an f32 index is re-embedded). See
    /// `verity_embed::Precision` and docs/benchmarks.d/embed.md.
    pub embed_int8: bool,
    /// Retrieval settings (re-rank, guardrail threshold, cache TTL).
    pub retriever: RetrieverConfig,
    /// Pipeline settings (top-k, context size, low-evidence policy, timeouts, …).
    pub rag: RagConfig,
    /// Cache retrievals and answers.
    pub cache: bool,
    /// Size limit of each cache class (`VERITY_CACHE_RETRIEVAL_MB`,
    /// `VERITY_CACHE_ANSWER_MB`, `VERITY_CACHE_EMBEDDING_MB`; `0`: unlimited).
    pub cache_limits: verity_core::cache::CacheLimits,
    /// HTTP settings (proxy, timeouts, extra root certificates, retry policy)
    /// of every network call the handle makes: embedders, generators,
    /// fetchers. `None`: the process-wide client with the defaults, shared by
    /// every handle.
    pub http: Option<verity_net::HttpConfig>,
    /// Research knowledge base directory (`knowledge_db.json` and its files;
    /// `VERITY_KNOWLEDGE_DIR`); `None`: `<home>/knowledge`.
    pub knowledge_dir: Option<PathBuf>,
}

impl Default for VerityConfig {
    fn default() -> Self {
        Self {
            home: PathBuf::from(".verity"),
            redis_url: None,
            index: verity_store::DEFAULT_INDEX.to_string(),
            embedder: EmbedderSpec::Auto,
            generator: GeneratorSpec::Extractive,
            fallback: None,
            ollama_url: "http://localhost:11434".into(),
            openai_url: "https://api.openai.com".into(),
            openai_key: None,
            embed_version: None,
            sentence_spans: None,
            embed_int8: false,
            retriever: RetrieverConfig::default(),
            rag: RagConfig::default(),
            cache: true,
            cache_limits: verity_core::cache::CacheLimits::default(),
            http: None,
            knowledge_dir: None,
        }
    }
}

impl VerityConfig {
    /// Defaults overridden by the environment: `VERITY_HOME`, `REDIS_URL`, `VERITY_INDEX`,
    /// `VERITY_EMBEDDER`, `VERITY_GENERATOR`, `VERITY_FALLBACK`, `OLLAMA_URL`,
    /// `OPENAI_BASE_URL`, `OPENAI_API_KEY`, `EMBED_VERSION`, `VERITY_SENTENCE_VECTORS`,
    /// `VERITY_EMBED_PRECISION`, `RAG_TOPK`, `RAG_MIN_SCORE`, `RAG_TIMEOUT_SECS`,
    /// `RAG_DEFAULT_LANG`, `VERITY_KNOWLEDGE_DIR`, `VERITY_CACHE_RETRIEVAL_MB`, `VERITY_CACHE_ANSWER_MB`,
    /// `VERITY_CACHE_EMBEDDING_MB`.
    pub fn from_env() -> Result<Self> {
        let mut c = Self::default();
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        if let Some(v) = var("VERITY_HOME") {
            if is_redis_url(&v) {
                c.redis_url = Some(v);
            } else {
                c.home = PathBuf::from(v);
            }
        }
        if let Some(v) = var("REDIS_URL") {
            c.redis_url = Some(v);
        }
        if let Some(v) = var("VERITY_INDEX") {
            c.index = v;
        }
        if let Some(v) = var("VERITY_EMBEDDER") {
            c.embedder = v.parse()?;
        }
        if let Some(v) = var("VERITY_GENERATOR") {
            c.generator = v.parse()?;
        }
        if let Some(v) = var("VERITY_FALLBACK") {
            c.fallback = Some(v.parse()?);
        }
        if let Some(v) = var("OLLAMA_URL") {
            c.ollama_url = v;
        }
        if let Some(v) = var("OPENAI_BASE_URL") {
            c.openai_url = v;
        }
        c.openai_key = var("OPENAI_API_KEY");
        c.embed_version = var("EMBED_VERSION");
        if let Some(v) = var("VERITY_SENTENCE_VECTORS") {
            c.sentence_spans = Some(match v.trim() {
                "pooled" => verity_core::SpanMode::Pooled,
                "separate" => verity_core::SpanMode::Separate,
                _ => {
                    return Err(invalid(
                        "VERITY_SENTENCE_VECTORS",
                        &v,
                        "`pooled` or `separate`",
                    ))
                }
            });
        }
        if let Some(v) = var("VERITY_EMBED_PRECISION") {
            c.embed_int8 = match v.trim() {
                "int8" => true,
                "f32" => false,
                _ => return Err(invalid("VERITY_EMBED_PRECISION", &v, "`int8` or `f32`")),
            };
        }
        if let Some(v) = var("RAG_TOPK") {
            c.rag.k = v
                .parse()
                .map_err(|_| invalid("RAG_TOPK", &v, "a positive integer"))?;
        }
        if let Some(v) = var("RAG_DEFAULT_LANG") {
            c.rag.default_lang = check_lang("RAG_DEFAULT_LANG", &v)?;
        }
        if let Some(v) = var("RAG_MIN_SCORE") {
            let s: f32 = v
                .parse()
                .map_err(|_| invalid("RAG_MIN_SCORE", &v, "a number in [0, 1]"))?;
            c.retriever.min_relevance = s;
        }
        if let Some(v) = var("RAG_TIMEOUT_SECS") {
            let s: f64 = v
                .parse()
                .map_err(|_| invalid("RAG_TIMEOUT_SECS", &v, "seconds"))?;
            c.rag.timeout.fixed = Some(Duration::from_secs_f64(s.max(0.001)));
        }
        if let Some(v) = var("VERITY_KNOWLEDGE_DIR") {
            c.knowledge_dir = Some(PathBuf::from(v));
        }
        for (key, slot) in [
            ("VERITY_CACHE_RETRIEVAL_MB", &mut c.cache_limits.retrieval),
            ("VERITY_CACHE_ANSWER_MB", &mut c.cache_limits.answer),
            ("VERITY_CACHE_EMBEDDING_MB", &mut c.cache_limits.embedding),
        ] {
            if let Some(v) = var(key) {
                let mb: u64 = v
                    .trim()
                    .parse()
                    .map_err(|_| invalid(key, &v, "a size in MiB (0: unlimited)"))?;
                *slot = cache_limit_from_mb(mb);
            }
        }
        c.validate()?;
        Ok(c)
    }

    /// The research knowledge base directory: [`Self::knowledge_dir`], else
    /// `<home>/knowledge`.
    pub fn knowledge_dir(&self) -> PathBuf {
        self.knowledge_dir
            .clone()
            .unwrap_or_else(|| self.home.join("knowledge"))
    }

    /// Check the settings a handle relies on (`k` bounds, the Redis URL's scheme).
    pub fn validate(&self) -> Result<()> {
        verity_core::check_k(self.rag.k)
            .map_err(|e| invalid("k (RAG_TOPK)", &self.rag.k.to_string(), &e.to_string()))?;
        if let Some(u) = &self.redis_url {
            if !is_redis_url(u) {
                return Err(invalid("redis_url", u, "a redis:// or rediss:// URL"));
            }
        }
        Ok(())
    }
}
