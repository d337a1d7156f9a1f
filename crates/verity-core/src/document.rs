//! Documents and chunks: what is ingested and what is indexed.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::hash::sha1_hex;

/// A source document, in Verity's ingestion schema
/// (`uid, source, ts, lang, title, content, tags` + free metadata).
///
/// Deserializing one is [`Document::from_record`] (`crate::record`): any
/// field besides these is kept in `metadata`, never dropped.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[schemars(extend("additionalProperties" = true))]
pub struct Document {
    /// Stable identifier. Re-ingesting the same uid replaces the document.
    #[schemars(length(min = 1), regex(pattern = r"\S"))]
    pub uid: String,
    /// Where it comes from (`internal`, a file path, a host, …).
    #[serde(default)]
    pub source: String,
    /// Publication / event time (RFC 3339), used for time filters and freshness.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts: Option<DateTime<Utc>>,
    /// ISO 639-1 language code (`en`, `fr`, …); detected when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// Title, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Full text (Markdown for parsed sources).
    pub content: String,
    /// Free tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Canonical URL, when the document has one (cited in answers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Any other field of the input record (e.g. `node_pubkey`,
    /// `channel_id`, `metrics`, …), filterable; a `metadata` object is merged in.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
}

impl Document {
    /// A document with just a uid and content; other fields empty.
    pub fn new(uid: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            uid: uid.into(),
            source: String::new(),
            ts: None,
            lang: None,
            title: None,
            content: content.into(),
            tags: Vec::new(),
            url: None,
            metadata: Map::new(),
        }
    }

    /// SHA-1 (hex) of everything that affects indexing: content, title and
    /// the metadata used by filters. Same hash + same embed version ⇒ skip.
    pub fn content_hash(&self) -> String {
        let mut h = String::with_capacity(self.content.len() + 64);
        h.push_str(self.title.as_deref().unwrap_or(""));
        h.push('\u{1f}');
        h.push_str(&self.content);
        h.push('\u{1f}');
        h.push_str(&self.source);
        h.push('\u{1f}');
        if let Some(ts) = self.ts {
            h.push_str(&ts.to_rfc3339());
        }
        h.push('\u{1f}');
        h.push_str(self.lang.as_deref().unwrap_or(""));
        h.push('\u{1f}');
        h.push_str(&self.tags.join("\u{1e}"));
        h.push('\u{1f}');
        h.push_str(self.url.as_deref().unwrap_or(""));
        h.push('\u{1f}');
        h.push_str(&Value::Object(self.metadata.clone()).to_string());
        sha1_hex(h.as_bytes())
    }

    /// The document without its content (what search hits carry).
    pub fn meta(&self) -> DocumentMeta {
        DocumentMeta {
            uid: self.uid.clone(),
            source: self.source.clone(),
            ts: self.ts,
            lang: self.lang.clone(),
            title: self.title.clone(),
            tags: self.tags.clone(),
            url: self.url.clone(),
            metadata: self.metadata.clone(),
        }
    }
}

/// A stable uid for a document that has none: SHA-1 of its source path and content
/// (first 20 hex digits), so that re-ingesting the same file is idempotent.
pub fn stable_uid(source_path: &str, content: &str) -> String {
    let mut bytes = Vec::with_capacity(source_path.len() + content.len() + 1);
    bytes.extend_from_slice(source_path.as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(content.as_bytes());
    let mut hex = sha1_hex(&bytes);
    hex.truncate(20);
    hex
}

/// Everything about a document but its content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DocumentMeta {
    /// Document uid.
    pub uid: String,
    /// Source.
    #[serde(default)]
    pub source: String,
    /// Timestamp.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts: Option<DateTime<Utc>>,
    /// Language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// Title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Canonical URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Free metadata.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
}

/// A piece of a document sized for the embedder, with where it came from.
///
/// Invariant: `text == document.content[start..end]` (byte offsets on UTF-8
/// boundaries), so a quote can always be located in the original.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Chunk {
    /// `"{doc_uid}#{index}"`.
    pub id: String,
    /// Owning document.
    pub doc_uid: String,
    /// 0-based position in the document.
    pub index: u32,
    /// The chunk text.
    pub text: String,
    /// Byte offset of the first byte in the document content.
    pub start: usize,
    /// Byte offset one past the last byte.
    pub end: usize,
    /// Headings enclosing the chunk, outermost first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub heading_path: Vec<String>,
    /// Number of tokens of `text` for the chunking tokenizer.
    pub token_count: u32,
}

impl Chunk {
    /// The canonical chunk id for a document uid and position.
    pub fn make_id(doc_uid: &str, index: u32) -> String {
        format!("{doc_uid}#{index}")
    }
}

/// What a store knows about an already indexed document, to skip unchanged ones.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// [`Document::content_hash`] at indexing time.
    pub content_hash: String,
    /// Embedding version the chunks were embedded with (`None`: lexical only).
    pub embed_version: Option<String>,
    /// [`IndexedDocument::chunking`] at indexing time (`None`: not recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunking: Option<String>,
}

/// A document ready to be written: chunked and (optionally) embedded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexedDocument {
    /// The document.
    pub document: Document,
    /// Its chunks, in order.
    pub chunks: Vec<Chunk>,
    /// One vector per chunk, or `None` in lexical-only mode.
    pub embeddings: Option<Vec<Vec<f32>>>,
    /// Optional extra vectors per chunk, one per sentence ("small-to-big"
    /// retrieval): `sentence_embeddings[i]` belongs to chunk `i` and may be
    /// empty. A chunk's dense score is then the best of its own vector and
    /// its sentences' vectors. Only stores whose
    /// [`VectorStore::supports_sentence_vectors`](crate::VectorStore::supports_sentence_vectors)
    /// is `true` accept them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sentence_embeddings: Option<Vec<Vec<Vec<f32>>>>,
    /// Identity of the embedder that produced `embeddings`.
    pub embedder: Option<crate::EmbedderId>,
    /// [`Document::content_hash`].
    pub content_hash: String,
    /// Fingerprint of the settings that cut `chunks` and built the embedded
    /// texts (chunk sizes, tokenizer, embedded context, sentence vectors). An
    /// ingest whose settings differ re-processes the document even when its
    /// content is unchanged (seed 001: a chunking change needs a re-index).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunking: Option<String>,
}

/// Outcome of a batch write.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UpsertReport {
    /// New documents.
    pub inserted: usize,
    /// Documents whose previous version was replaced.
    pub replaced: usize,
    /// Documents skipped because hash and embed version were unchanged.
    pub unchanged: usize,
    /// Chunks written.
    pub chunks: usize,
}

impl UpsertReport {
    /// Add another report's counts to this one.
    pub fn merge(&mut self, other: &UpsertReport) {
        self.inserted += other.inserted;
        self.replaced += other.replaced;
        self.unchanged += other.unchanged;
        self.chunks += other.chunks;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_record_roundtrip() {
        let line = r#"{"uid":"a1","source":"amboss","ts":"2025-10-01T12:00:00Z","lang":"en","title":"Fees","content":"Routing fees.","tags":["lightning"],"metadata":{"node_pubkey":"02ab"}}"#;
        let d: Document = serde_json::from_str(line).unwrap();
        assert_eq!(d.uid, "a1");
        assert_eq!(d.tags, vec!["lightning"]);
        assert_eq!(d.metadata["node_pubkey"], "02ab");
        let back: Document = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
        assert_eq!(back, d);
    }

    #[test]
    fn hash_and_uid_are_stable_and_sensitive() {
        let a = Document::new("x", "hello");
        let mut b = a.clone();
        assert_eq!(a.content_hash(), b.content_hash());
        b.content.push('!');
        assert_ne!(a.content_hash(), b.content_hash());
        assert_eq!(stable_uid("a.md", "t"), stable_uid("a.md", "t"));
        assert_ne!(stable_uid("a.md", "t"), stable_uid("b.md", "t"));
        assert_eq!(stable_uid("a.md", "t").len(), 20);
    }
}
