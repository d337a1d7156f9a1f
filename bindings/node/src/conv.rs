//! The one place where JavaScript values meet Verity's Rust types: option
//! objects (deserialized with serde, unknown keys refused) → queries and
//! configs, results → plain JSON objects, and `verity_core::Error` → a
//! rejection that `node/index.js` turns into a `VerityError` with `code`.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use futures::FutureExt;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use verity::{
    AskRequest, EmbedderSpec, Filters, GeneratorSpec, MetadataFilter, SearchQuery, TimeRange,
    VerityConfig,
};

/// Prefix of the error reasons produced here; `index.js` parses
/// `VERITY:<code>:<transient>:<message>`.
pub const ERROR_PREFIX: &str = "VERITY";

/// A rejection carrying the Verity error code and transience.
pub fn napi_error(code: &str, transient: bool, message: &str) -> napi::Error {
    napi::Error::from_reason(format!("{ERROR_PREFIX}:{code}:{transient}:{message}"))
}

/// A `verity_core::Error` as a rejection.
pub fn to_napi(e: verity::Error) -> napi::Error {
    napi_error(e.code(), e.is_transient(), &e.to_string())
}

/// Deserialize an options object (`undefined`/`null` = defaults).
pub fn options<T: DeserializeOwned + Default>(v: Option<Value>, what: &str) -> napi::Result<T> {
    match v {
        None | Some(Value::Null) => Ok(T::default()),
        Some(v) => serde_json::from_value(v).map_err(|e| {
            napi_error(
                "invalid_input",
                false,
                &format!("invalid {what} options: {e}"),
            )
        }),
    }
}

/// Deserialize a value of a required argument.
pub fn value<T: DeserializeOwned>(v: Value, what: &str) -> napi::Result<T> {
    serde_json::from_value(v)
        .map_err(|e| napi_error("invalid_input", false, &format!("invalid {what}: {e}")))
}

/// Serialize a result to a plain JSON value (becomes a plain JS object).
pub fn json<T: Serialize>(v: &T) -> napi::Result<Value> {
    serde_json::to_value(v)
        .map_err(|e| napi_error("internal", false, &format!("cannot serialize result: {e}")))
}

/// Options of `Verity.open`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct OpenOptions {
    /// Store directory.
    pub home: Option<PathBuf>,
    /// Index or alias.
    pub index: Option<String>,
    /// Embedder spec (`auto`, `none`, `local[:DIR]`, `ollama:M:T`, `openai:M`).
    pub embedder: Option<String>,
    /// Generator spec.
    pub generator: Option<String>,
    /// Fallback generator spec.
    pub fallback: Option<String>,
    /// Top-k for answers.
    pub k: Option<usize>,
    /// Guardrail threshold.
    pub min_relevance: Option<f32>,
    /// Cache retrievals and answers.
    pub cache: Option<bool>,
}

impl OpenOptions {
    /// The environment defaults overridden by the options given.
    pub fn config(self) -> verity::Result<VerityConfig> {
        let mut c = VerityConfig::from_env()?;
        if let Some(p) = self.home {
            c.home = p;
        }
        if let Some(i) = self.index {
            c.index = i;
        }
        if let Some(e) = self.embedder {
            c.embedder = e.parse::<EmbedderSpec>()?;
        }
        if let Some(g) = self.generator {
            c.generator = g.parse::<GeneratorSpec>()?;
        }
        if let Some(f) = self.fallback {
            c.fallback = Some(f.parse::<GeneratorSpec>()?);
        }
        if let Some(k) = self.k {
            c.rag.k = k;
        }
        if let Some(m) = self.min_relevance {
            c.retriever.min_relevance = m;
        }
        if let Some(cache) = self.cache {
            c.cache = cache;
        }
        Ok(c)
    }
}

/// Filters shared by `search` and `ask`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct FilterOptions {
    /// Document sources kept.
    pub sources: Vec<String>,
    /// Tags (any of them).
    pub tags: Vec<String>,
    /// Languages kept.
    pub langs: Vec<String>,
    /// Uids kept.
    pub uids: Vec<String>,
    /// `{key: value | [values]}`.
    pub metadata: Map<String, Value>,
    /// Earliest `ts` (RFC 3339).
    pub since: Option<DateTime<Utc>>,
    /// Latest `ts` (RFC 3339).
    pub until: Option<DateTime<Utc>>,
}

impl FilterOptions {
    fn filters(self) -> Filters {
        let metadata = self
            .metadata
            .into_iter()
            .map(|(key, v)| MetadataFilter {
                key,
                values: match v {
                    Value::Array(vs) => vs,
                    one => vec![one],
                },
            })
            .collect();
        Filters {
            sources: self.sources,
            langs: self.langs,
            tags_any: self.tags,
            uids: self.uids,
            metadata,
            time: TimeRange {
                since: self.since,
                until: self.until,
            },
            ..Filters::default()
        }
    }
}

/// Options of `search`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct SearchOptions {
    /// Hits wanted (default 8).
    pub k: Option<usize>,
    /// `lexical`, `dense` or `hybrid`.
    pub mode: Option<String>,
    /// Filters.
    #[serde(flatten)]
    pub filters: FilterOptions,
}

impl SearchOptions {
    /// The search query for `text`.
    pub fn query(self, text: String) -> verity::Result<SearchQuery> {
        let mut q = SearchQuery::new(text).filters(self.filters.filters());
        if let Some(k) = self.k {
            q = q.k(k);
        }
        if let Some(m) = self.mode {
            q = q.mode(m.parse()?);
        }
        Ok(q)
    }
}

/// Options of `ask`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct AskOptions {
    /// Answer language.
    pub lang: Option<String>,
    /// Override of k.
    pub k: Option<usize>,
    /// Retrieval mode.
    pub mode: Option<String>,
    /// Bypass the answer cache.
    pub no_cache: bool,
    /// Filters.
    #[serde(flatten)]
    pub filters: FilterOptions,
}

impl AskOptions {
    /// The ask request for `question`.
    pub fn request(self, question: String) -> verity::Result<AskRequest> {
        Ok(AskRequest {
            question,
            lang: self.lang,
            filters: self.filters.filters(),
            k: self.k,
            mode: self.mode.map(|m| m.parse()).transpose()?,
            no_cache: self.no_cache,
        })
    }
}

/// What `ingest` reports.
pub fn ingest_report(r: &verity::IngestReport) -> Value {
    serde_json::json!({
        "inserted": r.upsert.inserted,
        "replaced": r.upsert.replaced,
        "unchanged": r.upsert.unchanged,
        "chunks": r.upsert.chunks,
        "rejected": r.errors,
        "lexical_only": r.lexical_only,
        "seconds": r.seconds,
        "bytes": r.bytes,
        "reprocessed": r.reprocessed,
    })
}

/// Await a Verity future, turning its error or panic into a rejection.
pub async fn run<T, F>(fut: F) -> napi::Result<T>
where
    F: Future<Output = verity::Result<T>>,
{
    match AssertUnwindSafe(fut).catch_unwind().await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(to_napi(e)),
        Err(p) => {
            let what = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(napi_error(
                "internal",
                false,
                &format!("internal error (Rust panic): {what}"),
            ))
        }
    }
}
