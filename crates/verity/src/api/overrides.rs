//! [`ConfigOverrides`]: what a host may change over the environment defaults.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Result, VerityConfig};

/// Settings a host overrides over [`VerityConfig::from_env`] (unset fields
/// keep the environment's value, then the default). The CLI fills it from its
/// flags, Python from `Store.open(...)` keywords, Node from `Verity.open({...})`,
/// the servers from their command line.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ConfigOverrides {
    /// Where the store lives: a directory (embedded SQLite, `VERITY_HOME`,
    /// default `./.verity`) or a `redis://` / `rediss://` URL.
    pub home: Option<String>,
    /// Redis URL (`REDIS_URL`); when set the store and caches live in Redis.
    pub redis_url: Option<String>,
    /// Index or alias (`VERITY_INDEX`, default `default`).
    pub index: Option<String>,
    /// Embedder: `auto`, `none`, `local[:DIR]`, `ollama:MODEL:TAG`, `openai:MODEL` (`VERITY_EMBEDDER`).
    pub embedder: Option<String>,
    /// Generator: `extractive`, `local[:FILE.gguf]`, `ollama:MODEL:TAG`, `openai:MODEL` (`VERITY_GENERATOR`).
    pub generator: Option<String>,
    /// Fallback generator, same syntax (`VERITY_FALLBACK`).
    pub fallback: Option<String>,
    /// Chunks given to the generator (`RAG_TOPK`).
    pub k: Option<usize>,
    /// Guardrail: best relevance under this means "not enough evidence" (`RAG_MIN_SCORE`).
    pub min_relevance: Option<f32>,
    /// Answer language of questions that name none (`RAG_DEFAULT_LANG`;
    /// default `en`, and `fr` on the REST server: [`Self::with_rest_defaults`]).
    pub default_lang: Option<String>,
    /// Cache retrievals and answers (default `true`).
    pub cache: Option<bool>,
    /// Size limit of the retrieval cache in MiB, `0` for none (`VERITY_CACHE_RETRIEVAL_MB`, default 64).
    pub cache_retrieval_mb: Option<u64>,
    /// Size limit of the answer cache in MiB, `0` for none (`VERITY_CACHE_ANSWER_MB`, default 32).
    pub cache_answer_mb: Option<u64>,
    /// Size limit of the embedding cache in MiB, `0` for none (`VERITY_CACHE_EMBEDDING_MB`, default 1024).
    pub cache_embedding_mb: Option<u64>,
    /// Ollama base URL (`OLLAMA_URL`).
    pub ollama_url: Option<String>,
    /// OpenAI-compatible base URL (`OPENAI_BASE_URL`).
    pub openai_url: Option<String>,
    /// Research knowledge base directory (`VERITY_KNOWLEDGE_DIR`, default `<home>/knowledge`).
    pub knowledge_dir: Option<String>,
    /// SearXNG instance for web search (`VERITY_SEARXNG_URL` or `SEARXNG_URL`).
    pub searxng_url: Option<String>,
    /// Jina Reader endpoint for the watch's `crawl_url` (`JINA_READER_URL`).
    pub jina_reader_url: Option<String>,
    /// Let the watch's `crawl_url` and `verify_fact` read private and
    /// loopback addresses (`VERITY_ALLOW_PRIVATE`; intranets and tests).
    pub allow_private: Option<bool>,
    /// The fast ingest profile (`verity ingest --fast`): the local embedder
    /// runs its 8-bit products and pools sentence vectors from the chunk's
    /// pass (`VERITY_EMBED_PRECISION=int8`, `VERITY_SENTENCE_VECTORS=pooled`).
    /// About 2.4× fewer word pieces, each ~1.2× faster, for −0.006 hybrid
    /// nDCG@10 on SciFact (docs/benchmarks.d/ingest.md).
    pub fast: Option<bool>,
}

impl ConfigOverrides {
    /// These overrides layered over `lower`: every field set here wins, every
    /// unset one takes `lower`'s. Hosts with two sources of settings (command
    /// line over a config file) merge them with this, in one place.
    pub fn or(&self, lower: &ConfigOverrides) -> ConfigOverrides {
        fn pick<T: Clone>(high: &Option<T>, low: &Option<T>) -> Option<T> {
            high.clone().or_else(|| low.clone())
        }
        ConfigOverrides {
            home: pick(&self.home, &lower.home),
            redis_url: pick(&self.redis_url, &lower.redis_url),
            index: pick(&self.index, &lower.index),
            embedder: pick(&self.embedder, &lower.embedder),
            generator: pick(&self.generator, &lower.generator),
            fallback: pick(&self.fallback, &lower.fallback),
            k: pick(&self.k, &lower.k),
            min_relevance: pick(&self.min_relevance, &lower.min_relevance),
            default_lang: pick(&self.default_lang, &lower.default_lang),
            cache: pick(&self.cache, &lower.cache),
            cache_retrieval_mb: pick(&self.cache_retrieval_mb, &lower.cache_retrieval_mb),
            cache_answer_mb: pick(&self.cache_answer_mb, &lower.cache_answer_mb),
            cache_embedding_mb: pick(&self.cache_embedding_mb, &lower.cache_embedding_mb),
            ollama_url: pick(&self.ollama_url, &lower.ollama_url),
            openai_url: pick(&self.openai_url, &lower.openai_url),
            knowledge_dir: pick(&self.knowledge_dir, &lower.knowledge_dir),
            searxng_url: pick(&self.searxng_url, &lower.searxng_url),
            jina_reader_url: pick(&self.jina_reader_url, &lower.jina_reader_url),
            allow_private: pick(&self.allow_private, &lower.allow_private),
            fast: pick(&self.fast, &lower.fast),
        }
    }

    /// These overrides with the defaults of seed 001's REST contract where
    /// neither they nor the environment say otherwise: `RagReq.lang`
    /// defaults to `fr`. `verity serve` opens its store with them.
    pub fn with_rest_defaults(&self) -> ConfigOverrides {
        let mut o = self.clone();
        if o.default_lang.is_none() && !crate::config::env_sets_default_lang() {
            o.default_lang = Some("fr".into());
        }
        o
    }

    /// The environment defaults with these overrides applied.
    pub fn resolve(&self) -> Result<VerityConfig> {
        self.apply(VerityConfig::from_env()?)
    }

    /// `base` with these overrides applied.
    pub fn apply(&self, mut c: VerityConfig) -> Result<VerityConfig> {
        if let Some(h) = self.home.as_deref().filter(|h| !h.trim().is_empty()) {
            if crate::config::is_redis_url(h) {
                c.redis_url = Some(h.to_string());
            } else {
                c.home = PathBuf::from(h);
            }
        }
        if let Some(u) = self.redis_url.as_deref() {
            c.redis_url = Some(u.to_string()).filter(|u| !u.trim().is_empty());
        }
        if let Some(i) = &self.index {
            c.index = i.clone();
        }
        if let Some(e) = &self.embedder {
            c.embedder = e.parse()?;
        }
        if let Some(g) = &self.generator {
            c.generator = g.parse()?;
        }
        if let Some(f) = &self.fallback {
            c.fallback = Some(f.parse()?);
        }
        if let Some(k) = self.k {
            crate::api::search::check_k(k)?;
            c.rag.k = k;
        }
        if let Some(m) = self.min_relevance {
            if !(0.0..=1.0).contains(&m) {
                return Err(crate::Error::invalid_input(format!(
                    "min_relevance must be in [0, 1], got {m}"
                )));
            }
            c.retriever.min_relevance = m;
        }
        if let Some(l) = &self.default_lang {
            c.rag.default_lang = crate::config::check_lang("default_lang", l)?;
        }
        if let Some(cache) = self.cache {
            c.cache = cache;
        }
        for (mb, slot) in [
            (self.cache_retrieval_mb, &mut c.cache_limits.retrieval),
            (self.cache_answer_mb, &mut c.cache_limits.answer),
            (self.cache_embedding_mb, &mut c.cache_limits.embedding),
        ] {
            if let Some(mb) = mb {
                *slot = crate::config::cache_limit_from_mb(mb);
            }
        }
        if let Some(u) = &self.ollama_url {
            c.ollama_url = u.clone();
        }
        if let Some(u) = &self.openai_url {
            c.openai_url = u.clone();
        }
        if let Some(d) = self
            .knowledge_dir
            .as_deref()
            .filter(|d| !d.trim().is_empty())
        {
            c.knowledge_dir = Some(PathBuf::from(d));
        }
        if let Some(u) = self.searxng_url.as_deref().filter(|u| !u.trim().is_empty()) {
            c.web.searxng_url = Some(u.to_string());
        }
        if let Some(u) = self
            .jina_reader_url
            .as_deref()
            .filter(|u| !u.trim().is_empty())
        {
            c.web.jina_reader_url = Some(u.to_string());
        }
        if let Some(a) = self.allow_private {
            c.web.allow_private = a;
        }
        if self.fast == Some(true) {
            c.embed_int8 = true;
            c.sentence_spans = Some(verity_core::SpanMode::Pooled);
        }
        c.validate()?;
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_win_and_redis_urls_select_redis() {
        let base = VerityConfig::default();
        let o = ConfigOverrides {
            home: Some("/tmp/x".into()),
            embedder: Some("none".into()),
            k: Some(3),
            ..Default::default()
        };
        let c = o.apply(base.clone()).unwrap();
        assert_eq!(c.home, PathBuf::from("/tmp/x"));
        assert_eq!(c.rag.k, 3);
        assert!(c.redis_url.is_none());
        let r = ConfigOverrides {
            home: Some("redis://127.0.0.1:6379".into()),
            ..Default::default()
        }
        .apply(base.clone())
        .unwrap();
        assert_eq!(r.redis_url.as_deref(), Some("redis://127.0.0.1:6379"));
        assert_eq!(r.home, base.home);
    }

    #[test]
    fn bad_values_are_typed_errors() {
        let bad = |o: ConfigOverrides| o.apply(VerityConfig::default()).unwrap_err().code();
        let o = ConfigOverrides {
            embedder: Some("telepathy".into()),
            ..Default::default()
        };
        assert_eq!(bad(o), "config_error");
        let o = ConfigOverrides {
            k: Some(0),
            ..Default::default()
        };
        assert_eq!(bad(o), "invalid_input");
        let o = ConfigOverrides {
            min_relevance: Some(2.0),
            ..Default::default()
        };
        assert_eq!(bad(o), "invalid_input");
        let unknown = serde_json::from_str::<ConfigOverrides>(r#"{"colour": "blue"}"#);
        assert!(unknown.is_err());
    }

    #[test]
    fn layering_keeps_the_higher_fields_and_fills_the_rest() {
        let flags = ConfigOverrides {
            home: Some("/flags".into()),
            k: Some(3),
            ..Default::default()
        };
        let file = ConfigOverrides {
            home: Some("/file".into()),
            index: Some("docs".into()),
            k: Some(9),
            cache: Some(false),
            ..Default::default()
        };
        let merged = flags.or(&file);
        assert_eq!(merged.home.as_deref(), Some("/flags"));
        assert_eq!(merged.k, Some(3));
        assert_eq!(merged.index.as_deref(), Some("docs"));
        assert_eq!(merged.cache, Some(false));
        assert_eq!(merged.embedder, None);
        assert_eq!(ConfigOverrides::default().or(&file), file);
    }
}
