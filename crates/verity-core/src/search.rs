//! Search queries, filters and scored results, shared by every store.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::document::{Chunk, DocumentMeta};

/// Which index answers a query.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SearchMode {
    /// BM25 full-text only.
    #[serde(alias = "bm25")]
    Lexical,
    /// Vector similarity only.
    #[serde(alias = "vector")]
    Dense,
    /// Both, fused.
    #[default]
    Hybrid,
}

impl std::fmt::Display for SearchMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SearchMode::Lexical => "lexical",
            SearchMode::Dense => "dense",
            SearchMode::Hybrid => "hybrid",
        })
    }
}

impl std::str::FromStr for SearchMode {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "lexical" | "bm25" => Ok(SearchMode::Lexical),
            "dense" | "vector" => Ok(SearchMode::Dense),
            "hybrid" => Ok(SearchMode::Hybrid),
            other => Err(crate::Error::invalid_input(format!(
                "unknown search mode `{other}` (expected lexical, dense or hybrid)"
            ))),
        }
    }
}

/// How lexical and dense rankings are combined in hybrid mode.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Fusion {
    /// Reciprocal rank fusion: `Σ w_i / (k + rank_i)`.
    Rrf {
        /// The RRF constant (60 in the original paper).
        k: f32,
        /// Weight of the lexical list in `[0, 1]`; the dense list gets `1 - lexical_weight`.
        lexical_weight: f32,
    },
    /// Convex combination of min-max normalised scores.
    Weighted {
        /// Weight of the lexical score in `[0, 1]`.
        lexical_weight: f32,
    },
    /// Convex combination of z-scores (`(s - mean) / std` over each list); an id
    /// missing from a list gets that list's lowest z-score. A list whose scores
    /// are all equal only says which ids matched: they get 0, the others -1.
    ZScore {
        /// Weight of the lexical score in `[0, 1]`.
        lexical_weight: f32,
    },
}

/// Z-score weighted fusion, lexical weight 0.45. On SciFact train (809 claims, BM25 +
/// all-MiniLM-L6-v2 with sentence vectors, whole-abstract chunks) it gives nDCG@10
/// 0.7468 at 100 candidates per list (min-max 0.5: 0.7461; RRF is ~0.02 lower); the
/// optimum is flat over weights 0.4–0.55. Table and command: docs/benchmarks.d/quality.md.
impl Default for Fusion {
    fn default() -> Self {
        Fusion::ZScore {
            lexical_weight: 0.45,
        }
    }
}

/// Inclusive time window on a document's `ts`.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct TimeRange {
    /// Earliest `ts` kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<DateTime<Utc>>,
    /// Latest `ts` kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<DateTime<Utc>>,
}

impl TimeRange {
    /// `true` when neither bound is set.
    pub fn is_unbounded(&self) -> bool {
        self.since.is_none() && self.until.is_none()
    }

    /// Whether `ts` falls in the window. A document without `ts` only
    /// matches an unbounded window.
    pub fn contains(&self, ts: Option<DateTime<Utc>>) -> bool {
        if self.is_unbounded() {
            return true;
        }
        let Some(ts) = ts else { return false };
        self.since.is_none_or(|s| ts >= s) && self.until.is_none_or(|u| ts <= u)
    }
}

/// Equality (one value) or membership (several values) on a metadata key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MetadataFilter {
    /// Metadata key (top-level field of `metadata`).
    pub key: String,
    /// Accepted values: the document matches if its value equals any of them.
    pub values: Vec<Value>,
}

impl MetadataFilter {
    /// Parse `key=value` or `key=v1|v2|v3` (values are JSON when they parse
    /// as JSON scalars, strings otherwise).
    pub fn parse(spec: &str) -> crate::Result<Self> {
        let (key, vals) = spec.split_once('=').ok_or_else(|| {
            crate::Error::invalid_input(format!(
                "filter `{spec}` must look like key=value or key=v1|v2"
            ))
        })?;
        let key = key.trim();
        if key.is_empty() {
            return Err(crate::Error::invalid_input(format!(
                "filter `{spec}` has an empty key"
            )));
        }
        let values = vals
            .split('|')
            .map(|v| match serde_json::from_str::<Value>(v) {
                Ok(j) if !j.is_object() && !j.is_array() => j,
                _ => Value::String(v.to_string()),
            })
            .collect();
        Ok(Self {
            key: key.to_string(),
            values,
        })
    }
}

/// Restrictions applied during search (never after: a filtered search still
/// returns `k` results when `k` matching chunks exist).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Filters {
    /// Keep documents whose `source` is one of these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
    /// Keep documents whose `lang` is one of these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub langs: Vec<String>,
    /// Keep documents having at least one of these tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags_any: Vec<String>,
    /// Keep documents having all of these tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags_all: Vec<String>,
    /// Keep only these document uids.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub uids: Vec<String>,
    /// Metadata equality / membership, all must hold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metadata: Vec<MetadataFilter>,
    /// Time window on `ts`.
    #[serde(default)]
    pub time: TimeRange,
}

impl Filters {
    /// `true` when no restriction is set.
    pub fn is_empty(&self) -> bool {
        self.sources.is_empty()
            && self.langs.is_empty()
            && self.tags_any.is_empty()
            && self.tags_all.is_empty()
            && self.uids.is_empty()
            && self.metadata.is_empty()
            && self.time.is_unbounded()
    }

    /// Refuse lists longer than [`MAX_FILTER_VALUES`], naming the filter.
    pub fn validate(&self) -> crate::Result<()> {
        let metadata_terms: usize = self.metadata.iter().map(|m| m.values.len().max(1)).sum();
        for (name, n) in [
            ("sources", self.sources.len()),
            ("langs", self.langs.len()),
            ("tags", self.tags_any.len()),
            ("tags_all", self.tags_all.len()),
            ("uids", self.uids.len()),
            ("metadata", metadata_terms),
        ] {
            if n > MAX_FILTER_VALUES {
                return Err(crate::InputError::field(
                    name,
                    format!(
                        "{n} values; at most {MAX_FILTER_VALUES} are accepted per filter \
                         (MAX_FILTER_VALUES)"
                    ),
                )
                .into());
            }
        }
        Ok(())
    }

    /// Reference semantics of the filters; every backend must agree with it.
    pub fn matches(&self, doc: &DocumentMeta) -> bool {
        if !self.sources.is_empty() && !self.sources.contains(&doc.source) {
            return false;
        }
        if !self.langs.is_empty() {
            match &doc.lang {
                Some(l) if self.langs.iter().any(|x| x.eq_ignore_ascii_case(l)) => {}
                _ => return false,
            }
        }
        if !self.tags_any.is_empty() && !self.tags_any.iter().any(|t| doc.tags.contains(t)) {
            return false;
        }
        if !self.tags_all.iter().all(|t| doc.tags.contains(t)) {
            return false;
        }
        if !self.uids.is_empty() && !self.uids.contains(&doc.uid) {
            return false;
        }
        for f in &self.metadata {
            match doc.metadata.get(&f.key) {
                Some(v) if f.values.iter().any(|want| want == v) => {}
                _ => return false,
            }
        }
        self.time.contains(doc.ts)
    }
}

/// A search request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SearchQuery {
    /// The query text (used by lexical search, and embedded for dense search
    /// when `vector` is `None`).
    pub text: String,
    /// Pre-computed query embedding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vector: Option<Vec<f32>>,
    /// Lexical, dense or hybrid.
    #[serde(default)]
    pub mode: SearchMode,
    /// How many chunks to return (default 8).
    #[serde(default = "default_k")]
    pub k: usize,
    /// Restrictions.
    #[serde(default)]
    pub filters: Filters,
    /// Fusion used in hybrid mode.
    #[serde(default)]
    pub fusion: Fusion,
}

fn default_k() -> usize {
    DEFAULT_K
}

/// `k` of a query that does not say (8).
pub const DEFAULT_K: usize = 8;

/// BM25 weight of a document's title against its chunk text (×1), the same
/// in every store (3 was best on SciFact, see docs/benchmarks.d/store.md).
pub const DEFAULT_TITLE_WEIGHT: f32 = 3.0;

/// Largest `k` a search accepts; larger ones are refused like `k = 0`.
pub const MAX_K: usize = 1_000;

/// Longest query text a search or a question accepts, in bytes (16 KiB: a
/// long paragraph; work per query grows with its terms).
pub const MAX_QUERY_BYTES: usize = 16 * 1024;

/// Most values in one filter list (`sources`, `langs`, `tags_any`,
/// `tags_all`, `uids`, metadata terms): every backend binds them as
/// parameters, and SQLite allows 32,766 per statement.
pub const MAX_FILTER_VALUES: usize = 1_000;

/// Refuse query text longer than [`MAX_QUERY_BYTES`], naming `field`.
pub fn check_query_len(field: &str, text: &str) -> crate::Result<()> {
    if text.len() > MAX_QUERY_BYTES {
        return Err(crate::InputError::field(
            field,
            format!(
                "{} bytes; at most {MAX_QUERY_BYTES} are accepted (MAX_QUERY_BYTES)",
                text.len()
            ),
        )
        .into());
    }
    Ok(())
}

/// Refuse `k = 0` and `k > MAX_K` with one message in every host and backend.
pub fn check_k(k: usize) -> crate::Result<()> {
    if k == 0 || k > MAX_K {
        return Err(crate::Error::invalid_input(format!(
            "k must be between 1 and {MAX_K}, got {k}"
        )));
    }
    Ok(())
}

impl SearchQuery {
    /// A query with defaults (hybrid, k = 8, no filters).
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            vector: None,
            mode: SearchMode::default(),
            k: default_k(),
            filters: Filters::default(),
            fusion: Fusion::default(),
        }
    }

    /// Set the mode.
    pub fn mode(mut self, mode: SearchMode) -> Self {
        self.mode = mode;
        self
    }

    /// Set `k`.
    pub fn k(mut self, k: usize) -> Self {
        self.k = k;
        self
    }

    /// Set the filters.
    pub fn filters(mut self, filters: Filters) -> Self {
        self.filters = filters;
        self
    }

    /// Set the query vector.
    pub fn vector(mut self, v: Vec<f32>) -> Self {
        self.vector = Some(v);
        self
    }

    /// Check what every backend relies on: `k` in `1..=MAX_K` ([`check_k`]),
    /// the text within [`MAX_QUERY_BYTES`], filter lists within
    /// [`MAX_FILTER_VALUES`] and, when a query vector is given, a non-empty
    /// vector of finite numbers.
    /// Stores check the vector's dimension against their index.
    pub fn validate(&self) -> crate::Result<()> {
        check_k(self.k)?;
        check_query_len("query", &self.text)?;
        self.filters.validate()?;
        if let Some(v) = &self.vector {
            if v.is_empty() {
                return Err(crate::Error::invalid_input("the query vector is empty"));
            }
            if v.iter().any(|x| !x.is_finite()) {
                return Err(crate::Error::invalid_input(
                    "the query vector holds NaN or infinite values",
                ));
            }
        }
        Ok(())
    }

    /// Candidates taken from each list before fusion in hybrid mode, the same
    /// on every backend ([`crate::validate::candidate_depth`] of `k`).
    pub fn candidate_depth(&self) -> usize {
        crate::validate::candidate_depth(self.k)
    }
}

/// One search result: a chunk, its document and its scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScoredChunk {
    /// The chunk.
    pub chunk: Chunk,
    /// Its document (without content).
    pub doc: DocumentMeta,
    /// Final score used for ordering (higher is better; meaning depends on mode).
    pub score: f32,
    /// Relevance in `[0, 1]` comparable across modes (cosine similarity for
    /// dense, a normalised BM25 for lexical, the better of both for hybrid);
    /// this is what the low-evidence guardrail reads.
    pub relevance: f32,
    /// Raw BM25 score, when the lexical index saw this chunk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lexical: Option<f32>,
    /// Cosine similarity, when the dense index saw this chunk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dense: Option<f32>,
    /// Freshness factor in `[0, 1]` applied by the re-ranker, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freshness: Option<f32>,
}

/// Results of a retrieval, with what the caller must know about them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SearchResults {
    /// Hits, best first.
    pub hits: Vec<ScoredChunk>,
    /// Mode actually used (may be lexical when no embedder is available).
    pub mode: SearchMode,
    /// Best relevance is under the guardrail threshold: do not answer from these.
    pub not_enough_evidence: bool,
    /// Human-readable notes (e.g. "lexical-only: no embedding model").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn meta() -> DocumentMeta {
        let mut m = serde_json::Map::new();
        m.insert("channel".into(), Value::from(7));
        DocumentMeta {
            uid: "u".into(),
            source: "amboss".into(),
            ts: Some(Utc.with_ymd_and_hms(2025, 5, 1, 0, 0, 0).unwrap()),
            lang: Some("en".into()),
            title: None,
            tags: vec!["a".into(), "b".into()],
            url: None,
            metadata: m,
        }
    }

    #[test]
    fn filters_semantics() {
        let d = meta();
        assert!(Filters::default().matches(&d));
        assert!(Filters {
            sources: vec!["amboss".into()],
            ..Default::default()
        }
        .matches(&d));
        assert!(!Filters {
            sources: vec!["x".into()],
            ..Default::default()
        }
        .matches(&d));
        assert!(Filters {
            tags_any: vec!["z".into(), "b".into()],
            ..Default::default()
        }
        .matches(&d));
        assert!(!Filters {
            tags_all: vec!["a".into(), "z".into()],
            ..Default::default()
        }
        .matches(&d));
        assert!(Filters {
            langs: vec!["EN".into()],
            ..Default::default()
        }
        .matches(&d));
        let f = Filters {
            metadata: vec![MetadataFilter::parse("channel=7|8").unwrap()],
            ..Default::default()
        };
        assert!(f.matches(&d));
        let f = Filters {
            metadata: vec![MetadataFilter::parse("channel=9").unwrap()],
            ..Default::default()
        };
        assert!(!f.matches(&d));
        let t = TimeRange {
            since: Some(Utc.with_ymd_and_hms(2025, 6, 1, 0, 0, 0).unwrap()),
            until: None,
        };
        assert!(!Filters {
            time: t,
            ..Default::default()
        }
        .matches(&d));
        let mut undated = d.clone();
        undated.ts = None;
        assert!(!Filters {
            time: t,
            ..Default::default()
        }
        .matches(&undated));
    }

    #[test]
    fn parse_errors_are_typed() {
        assert!(MetadataFilter::parse("novalue").is_err());
        assert!(MetadataFilter::parse("=x").is_err());
        assert!("bogus".parse::<SearchMode>().is_err());
        assert_eq!("BM25".parse::<SearchMode>().unwrap(), SearchMode::Lexical);
    }
}
