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
/// The facade's one read of the process environment: a variable's value,
/// blank counting as unset. Every other module asks this one.
fn env_var(key: &str) -> Option<String> {
    std::env::var(key).ok().filter(|v| !v.trim().is_empty())
}

/// Whether the environment sets `RAG_DEFAULT_LANG` (the REST contract's
/// default language applies only when it does not).
pub(crate) fn env_sets_default_lang() -> bool {
    env_var("RAG_DEFAULT_LANG").is_some()
}

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

/// Most requests a remote embedder may keep in flight
/// ([`VerityConfig::embed_concurrency`]): beyond it a self-hosted server
/// only queues them.
pub const MAX_EMBED_CONCURRENCY: usize = 64;

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
    /// Requests a remote embedder (Ollama, OpenAI-compatible) keeps in flight
    /// at once (`VERITY_EMBED_CONCURRENCY`, 1 to
    /// [`MAX_EMBED_CONCURRENCY`]; `None`: [`verity_net::DEFAULT_CONCURRENCY`]).
    /// Each request carries up to 64 texts (Ollama: 32) and honours the server's
    /// `Retry-After` through the one retry policy.
    pub embed_concurrency: Option<usize>,
    /// Fewest vectors for which the embedded store builds its HNSW graph
    /// (`VERITY_GRAPH_MIN_VECTORS`; `None`: `verity_store::DEFAULT_MIN_GRAPH_POINTS`;
    /// `0`: always). Smaller indexes are scanned (int8, re-scored exactly) and
    /// their ingest pays no graph insertion (docs/benchmarks.d/ingest.md).
    pub graph_min_vectors: Option<usize>,
    /// How the local generator writes a grounded answer
    /// (`VERITY_LOCAL_ANSWER=quoted|cited|free`, default `quoted`): see
    /// [`verity_llm::LocalAnswerFormat`].
    pub local_answer: verity_llm::LocalAnswerFormat,
    /// Budget of each local generation (`VERITY_LOCAL_BUDGET_SECS`: its
    /// time, with the default 512 new tokens); `None`: the local
    /// generator's default, 30 s and 512 new tokens. Past it the generation
    /// stops and the fallback answers (`degraded`).
    pub local_budget: Option<verity_core::GenerationBudget>,
    /// Engine of the local generator (`VERITY_LLM_ENGINE=auto|candle|llama.cpp`,
    /// default `auto`: llama.cpp where this build and CPU run it, else
    /// candle); for comparisons and benchmarks.
    pub local_engine: verity_llm::LocalEngine,
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
    /// The web sources and watch settings (SearXNG, Jina Reader, private
    /// addresses, rules file, judge).
    pub web: WebConfig,
    /// Deprecation notes gathered while reading the environment (an old
    /// variable name that still works); [`crate::Verity::notes`] shows them.
    pub notes: Vec<String>,
}

/// Web search, page reading and technology-watch settings, read from the
/// environment with the rest of [`VerityConfig`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WebConfig {
    /// SearXNG instance for web search (`VERITY_SEARXNG_URL`, or `SEARXNG_URL`).
    pub searxng_url: Option<String>,
    /// SearXNG request timeout (`SEARXNG_TIMEOUT`, milliseconds).
    pub searxng_timeout: Option<Duration>,
    /// Jina Reader endpoint (`JINA_READER_URL`, e.g. `https://r.jina.ai`):
    /// when set, the watch's `crawl_url` reads pages through it instead of
    /// fetching them itself.
    pub jina_reader_url: Option<String>,
    /// Jina Reader request timeout (`JINA_TIMEOUT`, milliseconds).
    pub jina_timeout: Option<Duration>,
    /// Jina Reader bearer key (`JINA_API_KEY`), optional.
    pub jina_api_key: Option<String>,
    /// Let `crawl_url` and `verify_fact` read private and loopback addresses
    /// (`VERITY_ALLOW_PRIVATE`; intranets and tests; off by default).
    pub allow_private: bool,
    /// Rules file seeded into an empty rule set when the watch starts
    /// (`VERITY_WATCH_RULES`; see `examples/n8n/rules.json`).
    pub watch_rules: Option<PathBuf>,
    /// Judge `verify_fact` with the configured generator
    /// (`VERITY_WATCH_JUDGE=llm`; default `local`, no model).
    pub watch_llm_judge: bool,
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
            embed_concurrency: None,
            graph_min_vectors: None,
            local_answer: verity_llm::LocalAnswerFormat::default(),
            local_budget: None,
            local_engine: verity_llm::LocalEngine::Auto,
            retriever: RetrieverConfig::default(),
            rag: RagConfig::default(),
            cache: true,
            cache_limits: verity_core::cache::CacheLimits::default(),
            http: None,
            knowledge_dir: None,
            web: WebConfig::default(),
            notes: Vec::new(),
        }
    }
}

impl VerityConfig {
    /// Defaults overridden by the environment: `VERITY_HOME`, `REDIS_URL`, `VERITY_INDEX`,
    /// `VERITY_EMBEDDER`, `VERITY_GENERATOR`, `VERITY_FALLBACK`, `OLLAMA_URL`,
    /// `OPENAI_BASE_URL`, `OPENAI_API_KEY`, `EMBED_VERSION`, `VERITY_SENTENCE_VECTORS`,
    /// `VERITY_EMBED_PRECISION`, `VERITY_EMBED_CONCURRENCY`, `VERITY_GRAPH_MIN_VECTORS`,
    /// `VERITY_LOCAL_ANSWER`, `VERITY_LOCAL_BUDGET_SECS`, `RAG_TOPK`, `RAG_MIN_SCORE`, `RAG_TIMEOUT_SECS`,
    /// `RAG_DEFAULT_LANG`, `VERITY_KNOWLEDGE_DIR`, `VERITY_CACHE_RETRIEVAL_MB`,
    /// `VERITY_CACHE_ANSWER_MB`, `VERITY_CACHE_EMBEDDING_MB`; the model names of a Docker Compose stack,
    /// `EMBED_MODEL` and `GEN_MODEL` (Ollama models unless they name a kind,
    /// used when `VERITY_EMBEDDER` / `VERITY_GENERATOR` are unset); and the
    /// web settings of [`WebConfig`]: `VERITY_SEARXNG_URL` (or `SEARXNG_URL`),
    /// `SEARXNG_TIMEOUT`, `JINA_READER_URL`, `JINA_TIMEOUT`, `JINA_API_KEY`,
    /// `VERITY_ALLOW_PRIVATE`, `VERITY_WATCH_RULES`, `VERITY_WATCH_JUDGE`.
    pub fn from_env() -> Result<Self> {
        Self::from_vars(&env_var)
    }

    /// [`Self::from_env`] over any source of variables (tests, a host's own
    /// table); blank values count as unset.
    pub fn from_vars(vars: &dyn Fn(&str) -> Option<String>) -> Result<Self> {
        let mut c = Self::default();
        let var = |k: &str| vars(k).filter(|v| !v.trim().is_empty());
        c.web = WebConfig::from_vars(vars, &mut c.notes)?;
        if let Some(v) = var("EMBED_MODEL") {
            c.embedder = bare_model_spec(&v).parse()?;
        }
        if let Some(v) = var("GEN_MODEL") {
            c.generator = bare_model_spec(&v).parse()?;
        }
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
        if let Some(v) = var("VERITY_EMBED_CONCURRENCY") {
            let expected = format!("an integer from 1 to {MAX_EMBED_CONCURRENCY}");
            c.embed_concurrency = Some(
                v.trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|n| (1..=MAX_EMBED_CONCURRENCY).contains(n))
                    .ok_or_else(|| invalid("VERITY_EMBED_CONCURRENCY", &v, &expected))?,
            );
        }
        if let Some(v) = var("VERITY_GRAPH_MIN_VECTORS") {
            c.graph_min_vectors = Some(v.trim().parse::<usize>().map_err(|_| {
                invalid(
                    "VERITY_GRAPH_MIN_VECTORS",
                    &v,
                    "a number of vectors (0: always build the graph)",
                )
            })?);
        }
        if let Some(v) = var("VERITY_LOCAL_ANSWER") {
            c.local_answer = v
                .parse()
                .map_err(|_| invalid("VERITY_LOCAL_ANSWER", &v, "`quoted`, `cited` or `free`"))?;
        }
        if let Some(v) = var("VERITY_LLM_ENGINE") {
            c.local_engine = v
                .parse()
                .map_err(|_| invalid("VERITY_LLM_ENGINE", &v, "`auto`, `candle` or `llama.cpp`"))?;
        }
        if let Some(v) = var("VERITY_LOCAL_BUDGET_SECS") {
            let secs: f64 = v
                .parse()
                .ok()
                .filter(|s: &f64| s.is_finite() && *s > 0.0)
                .ok_or_else(|| invalid("VERITY_LOCAL_BUDGET_SECS", &v, "seconds (> 0)"))?;
            c.local_budget = Some(verity_core::GenerationBudget::new(
                Duration::from_secs_f64(secs),
                512,
            ));
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

    /// Check the settings a handle relies on (`k` bounds, the Redis URL's
    /// scheme) and refuse a provider that cannot work before any work is
    /// done: an Ollama model without a pinned tag, an OpenAI model with no
    /// key for api.openai.com.
    pub fn validate(&self) -> Result<()> {
        verity_core::check_k(self.rag.k)
            .map_err(|e| invalid("k (RAG_TOPK)", &self.rag.k.to_string(), &e.to_string()))?;
        if let Some(u) = &self.redis_url {
            if !is_redis_url(u) {
                return Err(invalid("redis_url", u, "a redis:// or rediss:// URL"));
            }
        }
        let mut models: Vec<(&str, &str, Option<&str>)> = Vec::new();
        match &self.embedder {
            EmbedderSpec::Ollama(m) => models.push(("embedder", m, Some("ollama"))),
            EmbedderSpec::OpenAi(m) => models.push(("embedder", m, Some("openai"))),
            _ => {}
        }
        for (role, spec) in [
            ("generator", Some(&self.generator)),
            ("fallback", self.fallback.as_ref()),
        ] {
            match spec {
                Some(GeneratorSpec::Ollama(m)) => models.push((role, m, Some("ollama"))),
                Some(GeneratorSpec::OpenAi(m)) => models.push((role, m, Some("openai"))),
                _ => {}
            }
        }
        for (role, model, kind) in models {
            match kind {
                Some("ollama") => check_ollama_model(role, model)?,
                _ => self.check_openai_key(role, model)?,
            }
        }
        Ok(())
    }

    /// api.openai.com needs a key; a self-hosted OpenAI-compatible server
    /// (`OPENAI_BASE_URL`: llama.cpp, vLLM, LM Studio) may not.
    fn check_openai_key(&self, role: &str, model: &str) -> Result<()> {
        let official = url::Url::parse(&self.openai_url)
            .ok()
            .and_then(|u| {
                u.host_str()
                    .map(|h| h.eq_ignore_ascii_case("api.openai.com"))
            })
            .unwrap_or(false);
        if official
            && self
                .openai_key
                .as_deref()
                .is_none_or(|k| k.trim().is_empty())
        {
            return Err(ConfigError::Missing {
                what: "OPENAI_API_KEY".into(),
                detail: format!(
                    "the {role} `openai:{model}` calls api.openai.com, which needs a key: \
                     `export OPENAI_API_KEY=sk-…`, or set OPENAI_BASE_URL to an OpenAI-compatible \
                     server that needs none (llama.cpp, vLLM, LM Studio)"
                ),
            }
            .into());
        }
        Ok(())
    }
}

/// The flag and variables that set a provider role, for messages.
fn role_settings(role: &str) -> &'static str {
    match role {
        "embedder" => "--embedder, VERITY_EMBEDDER or EMBED_MODEL",
        "fallback" => "--fallback or VERITY_FALLBACK",
        _ => "--generator, VERITY_GENERATOR or GEN_MODEL",
    }
}

/// An Ollama model must be pinned to a tag: a moving one changes the
/// answers (or the vectors) under a running index.
fn check_ollama_model(role: &str, model: &str) -> Result<()> {
    let Some(problem) = verity_llm::unpinned_tag(model) else {
        return Ok(());
    };
    let base = model.trim().split(':').next().unwrap_or(model).trim();
    let example = if role == "embedder" {
        format!("ollama:{base}:v1.5")
    } else {
        format!("ollama:{base}:8b-instruct-q4_K_M")
    };
    Err(ConfigError::Invalid {
        key: role.into(),
        message: format!(
            "`ollama:{model}` {problem}: pin the tag you pulled, e.g. `{example}` \
             (`ollama list` shows them), in {}",
            role_settings(role)
        ),
    }
    .into())
}

/// `EMBED_MODEL` / `GEN_MODEL` name an Ollama model (`nomic-embed-text:v1.5`)
/// unless they start with a provider kind (`openai:…`, `local…`, …).
fn bare_model_spec(v: &str) -> String {
    let v = v.trim();
    let kind = v.split(':').next().unwrap_or(v);
    if matches!(
        kind,
        "ollama" | "openai" | "local" | "auto" | "none" | "extractive"
    ) {
        v.to_string()
    } else {
        format!("ollama:{v}")
    }
}

/// Milliseconds from a variable (`SEARXNG_TIMEOUT=10000`).
fn millis(key: &str, v: &str) -> Result<Duration> {
    match v.trim().parse::<u64>() {
        Ok(ms) if ms > 0 => Ok(Duration::from_millis(ms)),
        _ => Err(invalid(key, v, "a positive number of milliseconds")),
    }
}

/// `true`/`1`/`yes`/`on` or `false`/`0`/`no`/`off`.
pub(crate) fn parse_bool(key: &str, v: &str) -> Result<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(invalid(key, v, "true or false")),
    }
}

impl WebConfig {
    /// The web settings of the environment; an old variable name adds a
    /// deprecation note to `notes`.
    pub fn from_env(notes: &mut Vec<String>) -> Result<Self> {
        Self::from_vars(&env_var, notes)
    }

    /// [`Self::from_env`] over any source of variables.
    pub fn from_vars(
        vars: &dyn Fn(&str) -> Option<String>,
        notes: &mut Vec<String>,
    ) -> Result<Self> {
        let var = |k: &str| vars(k).filter(|v| !v.trim().is_empty());
        let mut w = WebConfig {
            searxng_url: var("VERITY_SEARXNG_URL").or_else(|| var("SEARXNG_URL")),
            jina_reader_url: var("JINA_READER_URL"),
            jina_api_key: var("JINA_API_KEY"),
            watch_rules: var("VERITY_WATCH_RULES").map(PathBuf::from),
            ..WebConfig::default()
        };
        if let Some(v) = var("SEARXNG_TIMEOUT") {
            w.searxng_timeout = Some(millis("SEARXNG_TIMEOUT", &v)?);
        }
        if let Some(v) = var("JINA_TIMEOUT") {
            w.jina_timeout = Some(millis("JINA_TIMEOUT", &v)?);
        }
        match (
            var("VERITY_ALLOW_PRIVATE"),
            var("VERITY_WATCH_ALLOW_PRIVATE"),
        ) {
            (Some(v), _) => w.allow_private = parse_bool("VERITY_ALLOW_PRIVATE", &v)?,
            (None, Some(v)) => {
                w.allow_private = parse_bool("VERITY_WATCH_ALLOW_PRIVATE", &v)?;
                notes.push(
                    "VERITY_WATCH_ALLOW_PRIVATE is deprecated: use VERITY_ALLOW_PRIVATE".into(),
                );
            }
            (None, None) => {}
        }
        w.watch_llm_judge = match var("VERITY_WATCH_JUDGE").as_deref().map(str::trim) {
            None | Some("local") => false,
            Some("llm") => true,
            Some(other) => return Err(invalid("VERITY_WATCH_JUDGE", other, "local or llm")),
        };
        Ok(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn with(pairs: &[(&str, &str)]) -> Result<VerityConfig> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        VerityConfig::from_vars(&|k| map.get(k).cloned())
    }

    fn ok(pairs: &[(&str, &str)]) -> VerityConfig {
        with(pairs).unwrap_or_else(|e| panic!("{pairs:?}: {e}"))
    }

    fn err(pairs: &[(&str, &str)]) -> String {
        match with(pairs) {
            Ok(c) => panic!("{pairs:?} accepted: {c:?}"),
            Err(e) => {
                assert_eq!(e.code(), "config_error", "{e}");
                crate::api::error::ErrorBody::from(&e).message
            }
        }
    }

    #[test]
    fn graph_min_vectors_is_read() {
        assert_eq!(ok(&[]).graph_min_vectors, None);
        assert_eq!(
            ok(&[("VERITY_GRAPH_MIN_VECTORS", "0")]).graph_min_vectors,
            Some(0)
        );
        let m = err(&[("VERITY_GRAPH_MIN_VECTORS", "many")]);
        assert!(m.contains("VERITY_GRAPH_MIN_VECTORS"), "{m}");
    }

    #[test]
    fn embed_concurrency_is_read_and_bounded() {
        assert_eq!(ok(&[]).embed_concurrency, None);
        assert_eq!(
            ok(&[("VERITY_EMBED_CONCURRENCY", " 8 ")]).embed_concurrency,
            Some(8)
        );
        for bad in ["0", "65", "four", "-1"] {
            let m = err(&[("VERITY_EMBED_CONCURRENCY", bad)]);
            assert!(
                m.contains("VERITY_EMBED_CONCURRENCY") && m.contains("from 1 to 64"),
                "{bad}: {m}"
            );
        }
    }

    #[test]
    fn the_stacks_variables_are_read() {
        assert_eq!(
            ok(&[("OLLAMA_URL", "http://ollama:11434")]).ollama_url,
            "http://ollama:11434"
        );
        assert_eq!(
            ok(&[("REDIS_URL", "redis://redis:6379/0")])
                .redis_url
                .as_deref(),
            Some("redis://redis:6379/0")
        );
        assert_eq!(ok(&[("RAG_TOPK", "8")]).rag.k, 8);
        assert_eq!(
            ok(&[("EMBED_VERSION", "2025-10-15")])
                .embed_version
                .as_deref(),
            Some("2025-10-15")
        );
        assert_eq!(
            ok(&[("EMBED_MODEL", "nomic-embed-text:v1.5")]).embedder,
            EmbedderSpec::Ollama("nomic-embed-text:v1.5".into())
        );
        assert_eq!(
            ok(&[("GEN_MODEL", "llama3:70b-instruct-2025-07-01")]).generator,
            GeneratorSpec::Ollama("llama3:70b-instruct-2025-07-01".into())
        );
        // A kind prefix is taken as it is; VERITY_* wins over the stack's names.
        assert_eq!(
            ok(&[("GEN_MODEL", "extractive")]).generator,
            GeneratorSpec::Extractive
        );
        let both = ok(&[
            ("GEN_MODEL", "llama3:8b"),
            ("VERITY_GENERATOR", "extractive"),
        ]);
        assert_eq!(both.generator, GeneratorSpec::Extractive);
    }

    #[test]
    fn web_variables_are_read() {
        let c = ok(&[
            ("SEARXNG_URL", "http://searxng:8080"),
            ("SEARXNG_TIMEOUT", "10000"),
            ("JINA_READER_URL", "https://r.jina.ai"),
            ("JINA_TIMEOUT", "30000"),
            ("VERITY_WATCH_RULES", "/etc/verity/rules.json"),
            ("VERITY_ALLOW_PRIVATE", "true"),
            ("VERITY_WATCH_JUDGE", "llm"),
        ]);
        assert_eq!(c.web.searxng_url.as_deref(), Some("http://searxng:8080"));
        assert_eq!(c.web.searxng_timeout, Some(Duration::from_secs(10)));
        assert_eq!(c.web.jina_reader_url.as_deref(), Some("https://r.jina.ai"));
        assert_eq!(c.web.jina_timeout, Some(Duration::from_secs(30)));
        assert_eq!(
            c.web.watch_rules,
            Some(PathBuf::from("/etc/verity/rules.json"))
        );
        assert!(c.web.allow_private && c.web.watch_llm_judge);
        assert!(c.notes.is_empty(), "{:?}", c.notes);
        // VERITY_SEARXNG_URL wins over the stack's SEARXNG_URL.
        let c = ok(&[
            ("SEARXNG_URL", "http://a"),
            ("VERITY_SEARXNG_URL", "http://b"),
        ]);
        assert_eq!(c.web.searxng_url.as_deref(), Some("http://b"));
        assert!(err(&[("SEARXNG_TIMEOUT", "soon")]).contains("milliseconds"));
    }

    #[test]
    fn the_old_private_switch_still_works_with_a_note() {
        let c = ok(&[("VERITY_WATCH_ALLOW_PRIVATE", "1")]);
        assert!(c.web.allow_private);
        assert!(
            c.notes
                .iter()
                .any(|n| n.contains("use VERITY_ALLOW_PRIVATE")),
            "{:?}",
            c.notes
        );
        assert!(err(&[("VERITY_ALLOW_PRIVATE", "maybe")]).contains("true or false"));
    }

    #[test]
    fn misconfigured_providers_are_refused_naming_the_fix() {
        // An Ollama model without a pinned tag: the flag and variables to set, no Rust API.
        let m = err(&[("VERITY_GENERATOR", "ollama:llama3.1")]);
        assert!(
            m.contains("ollama:llama3.1:") && m.contains("--generator"),
            "{m}"
        );
        assert!(!m.contains("allow_latest"), "{m}");
        let m = err(&[("EMBED_MODEL", "nomic-embed-text")]);
        assert!(m.contains("--embedder") && m.contains("EMBED_MODEL"), "{m}");
        assert!(err(&[("VERITY_GENERATOR", "ollama:qwen:latest")]).contains("latest"));
        // OpenAI without a key for api.openai.com: the variable to set.
        let m = err(&[("VERITY_EMBEDDER", "openai:text-embedding-3-small")]);
        assert!(m.contains("OPENAI_API_KEY"), "{m}");
        assert!(ok(&[
            ("VERITY_EMBEDDER", "openai:text-embedding-3-small"),
            ("OPENAI_API_KEY", "sk-test")
        ])
        .openai_key
        .is_some());
        // A self-hosted OpenAI-compatible server may need no key.
        ok(&[
            ("VERITY_GENERATOR", "openai:qwen"),
            ("OPENAI_BASE_URL", "http://127.0.0.1:8080"),
        ]);
        // An unknown model form lists the accepted ones.
        let m = err(&[("VERITY_GENERATOR", "gpt4")]);
        assert!(
            m.contains("ollama:MODEL:TAG") && m.contains("openai:MODEL"),
            "{m}"
        );
    }
}
