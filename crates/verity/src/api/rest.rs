//! The seed-001 REST contract's requests without a CLI counterpart
//! (`/v1/embed`, `/v1/generate`) and its view of a retrieval (`/v1/retrieve`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::core::{Citation, ScoredChunk, SearchMode};
use crate::SearchResults;

/// Most texts one embed request may carry.
pub const MAX_EMBED_TEXTS: usize = 256;

/// Embed texts with the configured embedder (`POST /v1/embed`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EmbedRequest {
    /// Texts to embed (1 to 256).
    #[schemars(length(min = 1, max = 256))]
    pub texts: Vec<String>,
    /// The model the caller expects; refused when it is not the configured embedder's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The `EMBED_VERSION` the caller expects; refused when different.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embed_version: Option<String>,
}

/// Vectors of an [`EmbedRequest`], in its order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EmbedResponse {
    /// One vector per text.
    pub embeddings: Vec<Vec<f32>>,
    /// Model that computed them.
    pub model: String,
    /// Its `EMBED_VERSION`.
    pub embed_version: String,
    /// Vector dimension.
    pub dim: usize,
}

impl EmbedRequest {
    /// Check the request against the configured embedder's identity.
    pub fn check(&self, id: &crate::EmbedderId) -> crate::Result<()> {
        if self.texts.is_empty() || self.texts.len() > MAX_EMBED_TEXTS {
            return Err(crate::Error::invalid_input(format!(
                "`texts` must hold 1 to {MAX_EMBED_TEXTS} texts, got {}",
                self.texts.len()
            )));
        }
        if let Some(m) = self.model.as_deref().filter(|m| *m != id.model) {
            return Err(crate::Error::invalid_input(format!(
                "model `{m}` requested but this server embeds with `{}`",
                id.model
            )));
        }
        if let Some(v) = self.embed_version.as_deref().filter(|v| *v != id.version) {
            return Err(crate::Error::invalid_input(format!(
                "embed_version `{v}` requested but this server's is `{}`",
                id.version
            )));
        }
        Ok(())
    }
}

/// One passage given to [`GenerateRequest`]: an object, or just its text
/// (`context_chunks` may be a list of strings).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(from = "ContextChunkForm")]
#[schemars(with = "ContextChunkForm")]
pub struct ContextChunk {
    /// Uid of the document the passage comes from (cited as such; default
    /// `chunk-<n>` for the n-th passage).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub uid: String,
    /// The passage.
    pub text: String,
    /// Document title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Document URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Document source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// The two forms of a [`ContextChunk`] in a request.
#[derive(Debug, Clone, JsonSchema)]
#[serde(untagged)]
pub enum ContextChunkForm {
    /// Just the passage's text.
    Text(#[schemars(length(min = 1))] String),
    /// The passage with where it comes from.
    Chunk(ContextChunkFields),
}

/// A passage with where it comes from.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContextChunkFields {
    /// Uid of the document the passage comes from (default `chunk-<n>`).
    #[serde(default)]
    pub uid: Option<String>,
    /// The passage.
    #[schemars(length(min = 1))]
    pub text: String,
    /// Document title.
    #[serde(default)]
    pub title: Option<String>,
    /// Document URL.
    #[serde(default)]
    pub url: Option<String>,
    /// Document source.
    #[serde(default)]
    pub source: Option<String>,
}

/// A string, or an object read field by field (so that an error names the
/// field rather than "no variant matched").
impl<'de> Deserialize<'de> for ContextChunkForm {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(s) => Ok(Self::Text(s)),
            v @ serde_json::Value::Object(_) => serde_json::from_value(v)
                .map(Self::Chunk)
                .map_err(D::Error::custom),
            _ => Err(D::Error::custom(
                "a context chunk is its text (a string) or an object {uid, text, title, url, source}",
            )),
        }
    }
}

impl From<ContextChunkForm> for ContextChunk {
    fn from(f: ContextChunkForm) -> Self {
        match f {
            ContextChunkForm::Text(text) => ContextChunk {
                text,
                ..ContextChunk::default()
            },
            ContextChunkForm::Chunk(c) => ContextChunk {
                uid: c.uid.unwrap_or_default(),
                text: c.text,
                title: c.title,
                url: c.url,
                source: c.source,
            },
        }
    }
}

/// Sampling overrides; unset fields keep the configured values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GenerateParams {
    /// Temperature, 0 to 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 2.0))]
    pub temperature: Option<f32>,
    /// Nucleus sampling, 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub top_p: Option<f32>,
    /// Maximum new tokens, 1 to 8192.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 8192))]
    pub max_tokens: Option<u32>,
}

/// Answer a question from given passages, without retrieval (`POST /v1/generate`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GenerateRequest {
    /// The question.
    #[schemars(length(min = 1))]
    pub query: String,
    /// Passages the answer may cite; `[1]` is the first (1 to 50).
    #[schemars(length(min = 1, max = 50))]
    pub context_chunks: Vec<ContextChunk>,
    /// Sampling overrides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<GenerateParams>,
    /// Answer language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
}

/// The answer of a [`GenerateRequest`]: `{answer, citations, confidence}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GenerateResponse {
    /// Answer text with `[n]` markers.
    pub answer: String,
    /// The passages cited.
    pub citations: Vec<Citation>,
    /// Confidence in `[0, 1]`.
    pub confidence: f32,
    /// `true` when the fallback generator answered.
    pub degraded: bool,
    /// Model that answered.
    pub model: String,
    /// Notes (removed citations, uncited answer, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl From<crate::Answer> for GenerateResponse {
    fn from(a: crate::Answer) -> Self {
        Self {
            answer: a.text,
            citations: a.citations,
            confidence: a.confidence,
            degraded: a.degraded,
            model: a.model,
            notes: a.notes,
        }
    }
}

/// A retrieval as the `/v1/retrieve` contract returns it: `uids`, `scores`, `sources` in rank
/// order, plus the full hits and flags.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RetrieveResponse {
    /// Document uid of each hit.
    pub uids: Vec<String>,
    /// Score of each hit.
    pub scores: Vec<f32>,
    /// Source of each hit.
    pub sources: Vec<String>,
    /// The hits, best first.
    pub hits: Vec<ScoredChunk>,
    /// Mode that ran (lexical when dense was impossible; see `notes`).
    pub mode: SearchMode,
    /// Best relevance under the guardrail: do not answer from these.
    pub not_enough_evidence: bool,
    /// Notes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl From<SearchResults> for RetrieveResponse {
    fn from(r: SearchResults) -> Self {
        Self {
            uids: r.hits.iter().map(|h| h.doc.uid.clone()).collect(),
            scores: r.hits.iter().map(|h| h.score).collect(),
            sources: r.hits.iter().map(|h| h.doc.source.clone()).collect(),
            hits: r.hits,
            mode: r.mode,
            not_enough_evidence: r.not_enough_evidence,
            notes: r.notes,
        }
    }
}

impl GenerateRequest {
    /// Check sizes and ranges the schema states.
    pub fn check(&self) -> crate::Result<()> {
        let bad = |m: String| Err(crate::Error::invalid_input(m));
        if self.query.trim().is_empty() {
            return bad("`query` is empty".into());
        }
        if self.context_chunks.is_empty() || self.context_chunks.len() > 50 {
            return bad(format!(
                "`context_chunks` must hold 1 to 50 passages, got {}",
                self.context_chunks.len()
            ));
        }
        if let Some(i) = self
            .context_chunks
            .iter()
            .position(|c| c.text.trim().is_empty())
        {
            return bad(format!("context_chunks[{i}]: `text` must not be empty"));
        }
        if let Some(p) = &self.params {
            if p.temperature.is_some_and(|t| !(0.0..=2.0).contains(&t)) {
                return bad("params.temperature must be in [0, 2]".into());
            }
            if p.top_p.is_some_and(|t| !(0.0..=1.0).contains(&t)) {
                return bad("params.top_p must be in [0, 1]".into());
            }
            if p.max_tokens.is_some_and(|m| !(1..=8192).contains(&m)) {
                return bad("params.max_tokens must be in [1, 8192]".into());
            }
        }
        Ok(())
    }

    /// The uid a passage is cited under: its own, else `chunk-<n>`.
    fn uid_of(i: usize, c: &ContextChunk) -> String {
        if c.uid.trim().is_empty() {
            format!("chunk-{}", i + 1)
        } else {
            c.uid.clone()
        }
    }

    /// The passages as scored chunks (`[n]` is the n-th).
    pub fn passages(&self) -> Vec<ScoredChunk> {
        self.context_chunks
            .iter()
            .enumerate()
            .map(|(i, c)| (i, c, Self::uid_of(i, c)))
            .map(|(i, c, uid)| ScoredChunk {
                chunk: crate::core::Chunk {
                    id: crate::core::Chunk::make_id(&uid, i as u32),
                    doc_uid: uid.clone(),
                    index: i as u32,
                    text: c.text.clone(),
                    start: 0,
                    end: c.text.len(),
                    heading_path: Vec::new(),
                    token_count: 0,
                },
                doc: crate::core::DocumentMeta {
                    uid,
                    source: c.source.clone().unwrap_or_default(),
                    ts: None,
                    lang: None,
                    title: c.title.clone(),
                    tags: Vec::new(),
                    url: c.url.clone(),
                    metadata: Default::default(),
                },
                score: 1.0,
                relevance: 1.0,
                lexical: None,
                dense: None,
                freshness: None,
            })
            .collect()
    }
}
