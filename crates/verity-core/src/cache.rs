//! The [`Cache`] trait and the seed-001 key space.
//!
//! Keys (seed 001): `rag:embed:hash:{uid}`, `rag:retrieval:{query_hash}`
//! (24 h), `rag:answer:{prompt_hash}` (6 h). Retrieval and answer keys hash,
//! besides the query or prompt, the index's
//! [`WriteGeneration`](crate::WriteGeneration): a write makes every entry
//! computed before it unreachable, whoever made the write, so caches need no
//! busting calls to stay right. Entries can still carry tags and be removed
//! by prefix, to reclaim space early.
//!
//! Each class of entries ([`CacheClass`]) has a size limit ([`CacheLimits`]);
//! past it the oldest entries of that class are evicted, so read-only traffic
//! cannot grow a store without bound.

use std::time::Duration;

use async_trait::async_trait;

use crate::hash::sha1_hex;
use crate::Result;

/// A key-value cache with TTLs, prefix and tag invalidation.
/// Backends: SQLite (embedded) and Redis.
#[async_trait]
pub trait Cache: Send + Sync {
    /// Value for `key`, unless absent or expired.
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>>;

    /// Store `value` under `key` for `ttl` (`None`: no expiry), tagged.
    async fn put(
        &self,
        key: &str,
        value: &[u8],
        ttl: Option<Duration>,
        tags: &[String],
    ) -> Result<()>;

    /// Values for `keys`, in order: `None` where absent or expired. The
    /// default asks [`get`](Self::get) once per key; backends answer in one
    /// round trip (the embedding cache looks up a whole batch of texts).
    async fn get_many(&self, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>> {
        let mut out = Vec::with_capacity(keys.len());
        for k in keys {
            out.push(self.get(k).await?);
        }
        Ok(out)
    }

    /// Store every `(key, value)` for `ttl` (`None`: no expiry), untagged.
    /// The default calls [`put`](Self::put) once per entry; backends write
    /// them in one transaction or round trip.
    async fn put_many(&self, entries: &[(String, Vec<u8>)], ttl: Option<Duration>) -> Result<()> {
        for (k, v) in entries {
            self.put(k, v, ttl, &[]).await?;
        }
        Ok(())
    }

    /// Remove every key starting with `prefix` (literal, not a pattern);
    /// returns how many. An empty prefix is invalid input.
    async fn invalidate_prefix(&self, prefix: &str) -> Result<usize>;

    /// Remove every key carrying `tag`; returns how many.
    async fn invalidate_tag(&self, tag: &str) -> Result<usize>;
}

/// TTL of the retrieval cache (seed 001).
pub const RETRIEVAL_TTL: Duration = Duration::from_secs(24 * 3600);
/// TTL of the answer cache (seed 001).
pub const ANSWER_TTL: Duration = Duration::from_secs(6 * 3600);

/// Prefix of retrieval cache keys.
pub const RETRIEVAL_PREFIX: &str = "rag:retrieval:";
/// Prefix of answer cache keys.
pub const ANSWER_PREFIX: &str = "rag:answer:";
/// Prefix of the per-document embed-hash keys.
pub const EMBED_HASH_PREFIX: &str = "rag:embed:hash:";
/// Prefix of the embedding-vector cache keys.
pub const EMBEDDING_PREFIX: &str = "rag:embedding:";

/// The classes of cache entries, each with its own size limit ([`CacheLimits`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CacheClass {
    /// `rag:retrieval:*`: hits of a search.
    Retrieval,
    /// `rag:answer:*`: generated answers.
    Answer,
    /// `rag:embedding:*`: vectors of texts (chunks, sentences, queries).
    Embedding,
    /// Anything else (bookkeeping such as `rag:embed:hash:*`): not limited.
    Other,
}

impl CacheClass {
    /// Every class.
    pub const ALL: [CacheClass; 4] = [
        CacheClass::Retrieval,
        CacheClass::Answer,
        CacheClass::Embedding,
        CacheClass::Other,
    ];

    /// The class of `key`, by its prefix.
    pub fn of(key: &str) -> Self {
        if key.starts_with(RETRIEVAL_PREFIX) {
            Self::Retrieval
        } else if key.starts_with(ANSWER_PREFIX) {
            Self::Answer
        } else if key.starts_with(EMBEDDING_PREFIX) {
            Self::Embedding
        } else {
            Self::Other
        }
    }

    /// Its name (`retrieval`, `answer`, `embedding`, `other`), as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Retrieval => "retrieval",
            Self::Answer => "answer",
            Self::Embedding => "embedding",
            Self::Other => "other",
        }
    }
}

/// Size limits of the cache classes, in bytes of keys and values (`None`:
/// unlimited). When a write takes a class past its limit, the oldest entries
/// of that class (first written) are evicted until it fits; an entry larger
/// than its class's limit is not stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CacheLimits {
    /// Retrievals (default 64 MiB: ~2,000 searches of 8 long chunks).
    pub retrieval: Option<u64>,
    /// Answers (default 32 MiB).
    pub answer: Option<u64>,
    /// Embeddings (default 1 GiB: ~600k vectors of 384 dimensions, for
    /// corpora of ~50k chunks with their sentences and the queries).
    pub embedding: Option<u64>,
}

/// One mebibyte.
pub const MIB: u64 = 1024 * 1024;

impl Default for CacheLimits {
    fn default() -> Self {
        Self {
            retrieval: Some(64 * MIB),
            answer: Some(32 * MIB),
            embedding: Some(1024 * MIB),
        }
    }
}

impl CacheLimits {
    /// No limit on any class.
    pub const UNLIMITED: CacheLimits = CacheLimits {
        retrieval: None,
        answer: None,
        embedding: None,
    };

    /// The limit of `class` (`None`: unlimited; [`CacheClass::Other`] always is).
    pub fn of(&self, class: CacheClass) -> Option<u64> {
        match class {
            CacheClass::Retrieval => self.retrieval,
            CacheClass::Answer => self.answer,
            CacheClass::Embedding => self.embedding,
            CacheClass::Other => None,
        }
    }
}

/// Size an entry counts for against its class's limit: key plus value bytes.
pub fn entry_size(key: &str, value: &[u8]) -> u64 {
    (key.len() + value.len()) as u64
}

/// Normalise a query before hashing: Unicode lower case, whitespace collapsed, trimmed.
pub fn normalize_query(q: &str) -> String {
    q.split_whitespace()
        .map(|w| w.to_lowercase())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `rag:retrieval:{sha1(normalised query | scope)}`; `scope` carries
/// whatever else changes the result (the index's write generation, k, mode,
/// filters, ranking settings, embed version).
pub fn retrieval_key(query: &str, scope: &str) -> String {
    format!(
        "{RETRIEVAL_PREFIX}{}",
        sha1_hex(format!("{}\u{1f}{scope}", normalize_query(query)).as_bytes())
    )
}

/// `rag:answer:{sha1(material)}`: `material` is the prompt plus whatever
/// else the answer depends on (model, parameters, the index's write generation).
pub fn answer_key(prompt: &str) -> String {
    format!("{ANSWER_PREFIX}{}", sha1_hex(prompt.as_bytes()))
}

/// `rag:embed:hash:{uid}` (its value is `sha1(content)|EMBED_VERSION`).
pub fn embed_hash_key(uid: &str) -> String {
    format!("{EMBED_HASH_PREFIX}{uid}")
}

/// Value stored under [`embed_hash_key`].
pub fn embed_hash_value(content_sha1: &str, embed_version: &str) -> String {
    format!("{content_sha1}|{embed_version}")
}

/// Embedding cache key: `rag:embedding:{sha1(text)}|{embedder model}|{embed_version}`.
pub fn embedding_key(text: &str, id: &crate::EmbedderId) -> String {
    format!(
        "{EMBEDDING_PREFIX}{}|{}|{}",
        sha1_hex(text.as_bytes()),
        id.model,
        id.version
    )
}

/// Tag attached to cache entries that depend on document `uid`.
pub fn uid_tag(uid: &str) -> String {
    format!("uid:{uid}")
}

/// Encode a vector as little-endian `f32` bytes (cache and blob format).
pub fn vector_to_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Decode little-endian `f32` bytes; `None` when the length is not a multiple of 4.
pub fn vector_from_bytes(b: &[u8]) -> Option<Vec<f32>> {
    if b.len() % 4 != 0 {
        return None;
    }
    Some(
        b.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

/// Hit and miss counts of a cache's lookups (an answer cache handle's `get`
/// calls, a cached embedder's texts).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CacheStats {
    /// Lookups answered from the cache.
    pub hits: u64,
    /// Lookups that found nothing (or an expired entry) and went on.
    pub misses: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_normalised() {
        assert_eq!(
            retrieval_key("  Hello   World ", "k8"),
            retrieval_key("hello world", "k8")
        );
        assert_ne!(retrieval_key("hello", "k8"), retrieval_key("hello", "k5"));
        assert!(retrieval_key("x", "").starts_with("rag:retrieval:"));
        assert!(answer_key("p").starts_with("rag:answer:"));
        assert_eq!(embed_hash_key("u1"), "rag:embed:hash:u1");
        assert_eq!(embed_hash_value("abc", "2025-10-01"), "abc|2025-10-01");
    }

    #[test]
    fn classes_follow_prefixes() {
        assert_eq!(
            CacheClass::of(&retrieval_key("q", "s")),
            CacheClass::Retrieval
        );
        assert_eq!(CacheClass::of(&answer_key("p")), CacheClass::Answer);
        let id = crate::EmbedderId::new("m", "v", 3);
        assert_eq!(
            CacheClass::of(&embedding_key("t", &id)),
            CacheClass::Embedding
        );
        assert_eq!(CacheClass::of(&embed_hash_key("u")), CacheClass::Other);
        assert_eq!(CacheLimits::default().of(CacheClass::Other), None);
        assert_eq!(CacheLimits::UNLIMITED.of(CacheClass::Retrieval), None);
    }

    #[test]
    fn vector_bytes_roundtrip() {
        let v = vec![0.5, -1.25, 3.0];
        assert_eq!(vector_from_bytes(&vector_to_bytes(&v)).unwrap(), v);
        assert!(vector_from_bytes(&[1, 2, 3]).is_none());
    }
}
