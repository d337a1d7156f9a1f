//! Search and ask requests.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::core::{Filters, MetadataFilter, SearchMode, SearchQuery};
use crate::{Answer, Result, SearchResults};

pub use crate::core::{check_k, DEFAULT_K, MAX_K};

/// Results of a search: hits best first, the mode that actually ran, the
/// guardrail verdict and notes (e.g. "ran lexical (BM25) search only").
pub type SearchResponse = SearchResults;

/// A grounded answer with its citations and honest flags.
pub type AskResponse = Answer;

/// Filters as hosts give them: lists of accepted values, metadata as
/// `{key: value | [values]}`, and `since`/`until` strings ([`super::time`]).
/// Requests carry them at the top level (`{"query", "tags": […]}`) or, as
/// the `/v1/retrieve` contract has them, in a `filters` object; both are combined.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequestFilters {
    /// Keep documents from these sources.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
    /// Keep documents having any of these tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Keep documents having all of these tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags_all: Vec<String>,
    /// Keep documents in these languages.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub langs: Vec<String>,
    /// `filters.lang`: one language (`"fr"`) or a list; joins `langs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<OneOrMany>,
    /// Keep only these document uids.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub uids: Vec<String>,
    /// Metadata equality (`{"key": value}`) or membership (`{"key": [v1, v2]}`); all must hold.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
    /// Keep documents dated at or after this (RFC 3339, or `YYYY-MM-DD` = that day 00:00 UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Keep documents dated at or before this (RFC 3339, or `YYYY-MM-DD` = the whole day).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
}

/// One string or a list of strings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum OneOrMany {
    /// One value.
    One(String),
    /// Several values.
    Many(Vec<String>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

impl RequestFilters {
    /// These filters and `nested` together: lists and metadata combined; a
    /// date given in both places is refused rather than guessed.
    fn combined(mut self, nested: Option<&RequestFilters>) -> Result<Self> {
        let Some(n) = nested else {
            return Ok(self);
        };
        self.sources.extend(n.sources.iter().cloned());
        self.tags.extend(n.tags.iter().cloned());
        self.tags_all.extend(n.tags_all.iter().cloned());
        self.langs.extend(n.langs.iter().cloned());
        if let Some(l) = n.lang.clone() {
            self.langs.extend(l.into_vec());
        }
        self.uids.extend(n.uids.iter().cloned());
        for (k, v) in &n.metadata {
            if self.metadata.insert(k.clone(), v.clone()).is_some() {
                return Err(crate::Error::invalid_input(format!(
                    "metadata filter `{k}` is given twice (top level and `filters`)"
                )));
            }
        }
        for (name, top, inner) in [
            ("since", &mut self.since, &n.since),
            ("until", &mut self.until, &n.until),
        ] {
            match (top.is_some(), inner) {
                (true, Some(_)) => {
                    return Err(crate::Error::invalid_input(format!(
                        "`{name}` is given twice (top level and `filters`)"
                    )))
                }
                (false, Some(v)) => *top = Some(v.clone()),
                _ => {}
            }
        }
        Ok(self)
    }

    /// The store filters: keys checked, dates parsed.
    pub fn to_filters(&self) -> Result<Filters> {
        let metadata = self
            .metadata
            .iter()
            .map(|(key, v)| {
                if key.trim().is_empty() {
                    return Err(crate::Error::invalid_input(
                        "a metadata filter has an empty key",
                    ));
                }
                Ok(MetadataFilter {
                    key: key.clone(),
                    values: match v {
                        Value::Array(vs) => vs.clone(),
                        one => vec![one.clone()],
                    },
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let mut langs = self.langs.clone();
        if let Some(l) = self.lang.clone() {
            langs.extend(l.into_vec());
        }
        Ok(Filters {
            sources: self.sources.clone(),
            langs,
            tags_any: self.tags.clone(),
            tags_all: self.tags_all.clone(),
            uids: self.uids.clone(),
            metadata,
            time: super::time::range(self.since.as_deref(), self.until.as_deref())?,
        })
    }
}

/// Search the store (`verity search`, `store.search`, `POST /search`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    /// The query text.
    pub query: String,
    /// Hits wanted, 1 to [`MAX_K`] (default [`DEFAULT_K`] = 8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1000))]
    pub k: Option<usize>,
    /// `lexical`, `dense` or `hybrid`. Default: hybrid; a search that cannot
    /// run dense (no embedder, no vectors, another embedding space) runs
    /// lexical and says so in the response's `notes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<SearchMode>,
    /// Keep documents from these sources.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
    /// Keep documents having any of these tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Keep documents having all of these tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags_all: Vec<String>,
    /// Keep documents in these languages.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub langs: Vec<String>,
    /// Keep only these document uids.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub uids: Vec<String>,
    /// Metadata equality (`{"key": value}`) or membership (`{"key": [v1, v2]}`); all must hold.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
    /// Keep documents dated at or after this (RFC 3339, or `YYYY-MM-DD` = that day 00:00 UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Keep documents dated at or before this (RFC 3339, or `YYYY-MM-DD` = the whole day).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// The same filters as one object (`{query, k, filters}`),
    /// combined with the top-level ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters: Option<RequestFilters>,
}

impl SearchRequest {
    /// A request for `query` with the defaults.
    pub fn new(query: impl Into<String>) -> Self {
        Self {
            query: query.into(),
            ..Self::default()
        }
    }

    /// Set `k`.
    pub fn k(mut self, k: usize) -> Self {
        self.k = Some(k);
        self
    }

    /// Set the mode.
    pub fn mode(mut self, mode: SearchMode) -> Self {
        self.mode = Some(mode);
        self
    }

    fn top_level_filters(&self) -> RequestFilters {
        RequestFilters {
            sources: self.sources.clone(),
            tags: self.tags.clone(),
            tags_all: self.tags_all.clone(),
            langs: self.langs.clone(),
            lang: None,
            uids: self.uids.clone(),
            metadata: self.metadata.clone(),
            since: self.since.clone(),
            until: self.until.clone(),
        }
    }

    /// The store query: `k` checked, filters and dates parsed.
    pub fn to_query(&self) -> Result<SearchQuery> {
        let k = self.k.unwrap_or(DEFAULT_K);
        check_k(k)?;
        let filters = self
            .top_level_filters()
            .combined(self.filters.as_ref())?
            .to_filters()?;
        let q = SearchQuery::new(self.query.clone())
            .k(k)
            .mode(self.mode.unwrap_or_default())
            .filters(filters);
        // Before any embedding or store work: bounded input only.
        q.validate()?;
        Ok(q)
    }
}

/// Answer a question from the sources (`verity ask`, `store.ask`,
/// `POST /v1/rag` with `{query, lang}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskRequest {
    /// The question (`query`; `question` is accepted too).
    #[serde(rename = "query", alias = "question")]
    pub question: String,
    /// Answer language (ISO 639-1, e.g. `fr`, `en`); retrieval prefers
    /// documents in it and mixes languages when they hold too little. When
    /// absent, the configured default answer language (`RAG_DEFAULT_LANG`;
    /// `fr` on `verity serve`; `en` elsewhere).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// Chunks given to the generator, 1 to [`MAX_K`] (default: the configured `k`, 8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1000))]
    pub k: Option<usize>,
    /// Retrieval mode, as in [`SearchRequest::mode`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<SearchMode>,
    /// Bypass the answer cache (default `false`).
    #[serde(default)]
    pub no_cache: bool,
    /// As in [`SearchRequest::sources`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
    /// As in [`SearchRequest::tags`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// As in [`SearchRequest::tags_all`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags_all: Vec<String>,
    /// As in [`SearchRequest::langs`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub langs: Vec<String>,
    /// As in [`SearchRequest::uids`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub uids: Vec<String>,
    /// As in [`SearchRequest::metadata`].
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
    /// As in [`SearchRequest::since`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// As in [`SearchRequest::until`] (a bare date includes the day).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// As in [`SearchRequest::filters`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters: Option<RequestFilters>,
    /// Check the answer against its sources before returning it: each
    /// sentence that cites `[n]` is judged against passage `n` (the local
    /// judge of `verity check`). `flag` (default) keeps every sentence and
    /// marks the unsupported ones `[unsupported: VERDICT]`; `strip` removes
    /// them; `off` skips the check. Per-sentence verdicts and quotes are in
    /// the answer's `verification`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<crate::core::VerifyMode>,
}

impl AskRequest {
    /// A request for `question` with the defaults.
    pub fn new(question: impl Into<String>) -> Self {
        Self {
            question: question.into(),
            ..Self::default()
        }
    }

    fn top_level_filters(&self) -> RequestFilters {
        RequestFilters {
            sources: self.sources.clone(),
            tags: self.tags.clone(),
            tags_all: self.tags_all.clone(),
            langs: self.langs.clone(),
            lang: None,
            uids: self.uids.clone(),
            metadata: self.metadata.clone(),
            since: self.since.clone(),
            until: self.until.clone(),
        }
    }

    /// The pipeline request: `k` checked, filters and dates parsed.
    pub fn to_rag(&self) -> Result<verity_rag::RagQuestion> {
        if let Some(k) = self.k {
            check_k(k)?;
        }
        crate::core::check_query_len("question", &self.question)?;
        let filters = self
            .top_level_filters()
            .combined(self.filters.as_ref())?
            .to_filters()?;
        filters.validate()?;
        Ok(verity_rag::RagQuestion {
            question: self.question.clone(),
            lang: self.lang.clone(),
            filters,
            k: self.k,
            mode: self.mode,
            no_cache: self.no_cache,
            verify: self.verify,
        })
    }
}

/// A search hit as the bindings present it: the hit itself (scores, chunk,
/// document) plus, at the top, the fields readers use most — the
/// document's `uid`, `title`, `source` and `url`, the chunk's `chunk_id` and
/// `text`. Python's `Hit` has these as attributes, Node's hits as keys (in
/// camelCase): one serde shape for both.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HitView<'a> {
    /// The document's uid.
    pub uid: &'a str,
    /// The chunk's id.
    pub chunk_id: &'a str,
    /// The chunk's text.
    pub text: &'a str,
    /// The document's title.
    pub title: Option<&'a str>,
    /// The document's source.
    pub source: &'a str,
    /// The document's URL.
    pub url: Option<&'a str>,
    /// Scores, chunk and document.
    #[serde(flatten)]
    pub hit: &'a crate::core::ScoredChunk,
}

impl<'a> From<&'a crate::core::ScoredChunk> for HitView<'a> {
    fn from(h: &'a crate::core::ScoredChunk) -> Self {
        Self {
            uid: &h.doc.uid,
            chunk_id: &h.chunk.id,
            text: &h.chunk.text,
            title: h.doc.title.as_deref(),
            source: &h.doc.source,
            url: h.doc.url.as_deref(),
            hit: h,
        }
    }
}

/// Search results as the bindings present them: [`SearchResults`] with
/// [`HitView`] hits.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SearchResultsView<'a> {
    /// Hits, best first.
    pub hits: Vec<HitView<'a>>,
    /// Mode that ran.
    pub mode: SearchMode,
    /// Best relevance under the guardrail threshold.
    pub not_enough_evidence: bool,
    /// Notes (fallbacks, cache).
    pub notes: &'a [String],
}

impl<'a> From<&'a SearchResults> for SearchResultsView<'a> {
    fn from(r: &'a SearchResults) -> Self {
        Self {
            hits: r.hits.iter().map(HitView::from).collect(),
            mode: r.mode,
            not_enough_evidence: r.not_enough_evidence,
            notes: &r.notes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_fields_and_bad_values_are_refused() {
        let e = serde_json::from_str::<SearchRequest>(r#"{"query": "x", "colour": 1}"#);
        assert!(e.is_err());
        let e = serde_json::from_str::<SearchRequest>(r#"{"query": "x", "mode": "psychic"}"#);
        assert!(e.unwrap_err().to_string().contains("psychic"));
        for k in [0, MAX_K + 1] {
            let e = SearchRequest::new("x").k(k).to_query().unwrap_err();
            assert_eq!(e.code(), "invalid_input");
            let mut a = AskRequest::new("x?");
            a.k = Some(k);
            assert_eq!(a.to_rag().unwrap_err().to_string(), e.to_string());
        }
    }

    #[test]
    fn filters_and_defaults() {
        let r: SearchRequest = serde_json::from_str(
            r#"{"query": "fees", "tags": ["a"], "metadata": {"ch": [1, 2], "x": "y"}, "until": "2024-01-01"}"#,
        )
        .unwrap();
        let q = r.to_query().unwrap();
        assert_eq!(q.k, DEFAULT_K);
        assert_eq!(q.mode, SearchMode::Hybrid);
        assert_eq!(q.filters.tags_any, vec!["a".to_string()]);
        assert_eq!(q.filters.metadata.len(), 2);
        let until = q.filters.time.until.unwrap();
        assert_eq!(
            until.format("%Y-%m-%d %H:%M").to_string(),
            "2024-01-01 23:59"
        );
    }

    #[test]
    fn seed_filters_object_combines_with_top_level_fields() {
        let r: SearchRequest = serde_json::from_str(
            r#"{"query": "fees", "k": 3, "tags": ["a"],
                "filters": {"tags": ["b"], "langs": ["fr"], "since": "2024-01-01",
                            "metadata": {"team": "core"}}}"#,
        )
        .unwrap();
        let q = r.to_query().unwrap();
        assert_eq!(q.filters.tags_any, vec!["a".to_string(), "b".to_string()]);
        assert_eq!(q.filters.langs, vec!["fr".to_string()]);
        assert_eq!(q.filters.metadata.len(), 1);
        assert!(q.filters.time.since.is_some());

        let twice: SearchRequest = serde_json::from_str(
            r#"{"query": "x", "since": "2024-01-01", "filters": {"since": "2023-01-01"}}"#,
        )
        .unwrap();
        assert_eq!(twice.to_query().unwrap_err().code(), "invalid_input");
        let unknown = serde_json::from_str::<SearchRequest>(
            r#"{"query": "x", "filters": {"colour": "blue"}}"#,
        );
        assert!(unknown.is_err());
    }
}
