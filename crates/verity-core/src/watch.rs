//! Tech-watch records (seed 000): logged articles, the decision audit log,
//! and the [`WatchStore`] trait that keeps them.
//!
//! Validation and the logic around these records (canonical URLs,
//! near-duplicate detection, scoring) live in `verity-watch`; a store only
//! persists and indexes.

use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::rules::string_enum;
use crate::Result;

/// Where an article came from (`source_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SourceType {
    /// RSS / Atom feed.
    Rss,
    /// YouTube video.
    Youtube,
    /// Reddit post.
    Reddit,
    /// Hacker News.
    Hn,
}
string_enum!(SourceType, "source_type", { Rss => "rss", Youtube => "youtube", Reddit => "reddit", Hn => "hn" });

/// A logged article: every field of `log_article`, plus what the
/// watch derives from it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Article {
    /// Stable id (`art_` + 16 hex digits of the canonical URL's SHA-1).
    pub id: String,
    /// URL as first logged.
    pub url: String,
    /// Canonical form of `url` (see `verity_watch::canonical_url`).
    pub canonical_url: String,
    /// Other canonical URLs the same article was seen at (republications).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// Title.
    pub title: String,
    /// Source name (`ollama_blog`, …).
    pub source: String,
    /// Source type.
    pub source_type: SourceType,
    /// Score given by the scoring LLM.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qwen_score: Option<i64>,
    /// Keywords given by the scoring LLM.
    #[serde(default)]
    pub qwen_keywords: Vec<String>,
    /// Whether the validating LLM accepted it.
    #[serde(default)]
    pub phi_validated: bool,
    /// Confidence of the validating LLM (0…1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phi_confidence: Option<f64>,
    /// French summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_fr: Option<String>,
    /// Expected impact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impact: Option<String>,
    /// Hashtags.
    #[serde(default)]
    pub hashtags: Vec<String>,
    /// LinkedIn post draft.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linkedin_draft: Option<String>,
    /// SHA-1 of the normalised raw content, when content was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_sha1: Option<String>,
    /// 64-bit SimHash of the raw content (near-duplicate detection).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simhash: Option<u64>,
    /// Words in the raw content, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub word_count: Option<usize>,
    /// First logged.
    pub processed_at: DateTime<Utc>,
    /// Last logged again.
    pub updated_at: DateTime<Utc>,
}

impl Article {
    /// Every canonical URL this article answers to.
    pub fn all_urls(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.canonical_url.as_str()).chain(self.aliases.iter().map(String::as_str))
    }
}

/// Which articles to list (`get_articles`), newest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ArticleFilter {
    /// Only articles logged at or after this instant.
    pub since: Option<DateTime<Utc>>,
    /// Only this source (exact match).
    pub source: Option<String>,
    /// Only articles with `phi_validated`.
    pub validated_only: bool,
    /// At most this many.
    pub limit: usize,
}

impl ArticleFilter {
    /// Whether `a` passes the filter (the limit aside).
    pub fn matches(&self, a: &Article) -> bool {
        self.since.is_none_or(|s| a.processed_at >= s)
            && self.source.as_ref().is_none_or(|s| &a.source == s)
            && (!self.validated_only || a.phi_validated)
    }
}

/// The LLM that took a decision (`llm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DecisionLlm {
    /// The scoring model.
    Qwen,
    /// The validating model.
    Phi,
}
string_enum!(DecisionLlm, "llm", { Qwen => "qwen", Phi => "phi" });

/// Kind of decision (`decision_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DecisionType {
    /// A relevance score.
    Score,
    /// Accepted for distribution.
    Validate,
    /// Rejected.
    Reject,
    /// A fact check.
    VerifyFact,
}
string_enum!(DecisionType, "decision_type", { Score => "score", Validate => "validate", Reject => "reject", VerifyFact => "verify_fact" });

/// One entry of the append-only decision audit log (`log_veille_decision`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Decision {
    /// Id (`dec_…`, time-ordered).
    pub id: String,
    /// Article concerned (absent for general decisions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub article_id: Option<String>,
    /// LLM that decided.
    pub llm: DecisionLlm,
    /// Kind of decision.
    pub decision_type: DecisionType,
    /// The decision.
    pub decision: String,
    /// Confidence (0…1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// Justification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// Tools called for it.
    #[serde(default)]
    pub tools_used: Vec<String>,
    /// When it was logged.
    pub created_at: DateTime<Utc>,
}

/// Which decisions to read back, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DecisionFilter {
    /// Only decisions about this article.
    pub article_id: Option<String>,
    /// Logged at or after.
    pub since: Option<DateTime<Utc>>,
    /// Logged strictly before.
    pub until: Option<DateTime<Utc>>,
    /// At most this many (the most recent ones when more match).
    pub limit: usize,
}

impl DecisionFilter {
    /// Whether `d` passes the filter (the limit aside).
    pub fn matches(&self, d: &Decision) -> bool {
        self.article_id
            .as_ref()
            .is_none_or(|a| d.article_id.as_ref() == Some(a))
            && self.since.is_none_or(|s| d.created_at >= s)
            && self.until.is_none_or(|u| d.created_at < u)
    }
}

/// Number of 8-bit bands a 64-bit SimHash is indexed by in stores that use
/// plain band sets (Redis): two hashes at Hamming distance ≤
/// [`SIMHASH_MAX_DISTANCE`] share at least one band (pigeonhole).
pub const SIMHASH_BANDS: usize = 8;
/// Largest Hamming distance the indexes are guaranteed to find.
pub const SIMHASH_MAX_DISTANCE: u32 = SIMHASH_BANDS as u32 - 1;
/// Number of 16-bit blocks of the multi-index (see [`simhash_probes`]).
pub const SIMHASH_BLOCKS: usize = 4;

/// The `(band, value)` keys of a SimHash (8 bands of 8 bits).
pub fn simhash_bands(h: u64) -> [(u8, u16); SIMHASH_BANDS] {
    let mut out = [(0u8, 0u16); SIMHASH_BANDS];
    for (i, slot) in out.iter_mut().enumerate() {
        *slot = (i as u8, ((h >> (8 * i)) & 0xff) as u16);
    }
    out
}

/// The `(block, value)` keys a SimHash is stored under: 4 blocks of 16 bits.
pub fn simhash_blocks(h: u64) -> [(u8, u16); SIMHASH_BLOCKS] {
    let mut out = [(0u8, 0u16); SIMHASH_BLOCKS];
    for (i, slot) in out.iter_mut().enumerate() {
        *slot = (i as u8, ((h >> (16 * i)) & 0xffff) as u16);
    }
    out
}

/// The keys to probe to find every stored SimHash within
/// [`SIMHASH_MAX_DISTANCE`] bits of `h` (multi-index hashing): each block's
/// value and its 16 one-bit variants, 68 keys. Two hashes at distance ≤ 7
/// differ in at most one bit of some block (four blocks with two or more
/// differing bits each make at least 8), so one of these keys matches;
/// random hashes match one with probability 68 / 65,536, so a lookup reads
/// about N / 1,000 index entries instead of the N / 32 of 8-bit bands.
pub fn simhash_probes(h: u64) -> Vec<(u8, u16)> {
    let mut out = Vec::with_capacity(SIMHASH_BLOCKS * 17);
    for (b, v) in simhash_blocks(h) {
        out.push((b, v));
        out.extend((0..16).map(|bit| (b, v ^ (1 << bit))));
    }
    out
}

/// Where logged articles and decisions are kept (SQLite, Redis).
///
/// Articles are keyed by id and found by any of their canonical URLs; the
/// decision log is append-only (an id can be written once).
#[async_trait]
pub trait WatchStore: Send + Sync {
    /// The article answering to this canonical URL (its own or an alias).
    async fn article_by_url(&self, canonical_url: &str) -> Result<Option<Article>>;
    /// The article with this id.
    async fn article(&self, id: &str) -> Result<Option<Article>>;
    /// Create or replace the article `article.id`, indexing all its URLs
    /// and its SimHash.
    async fn put_article(&self, article: &Article) -> Result<()>;
    /// Every article whose SimHash is within `max_distance` bits of
    /// `simhash` (`max_distance` ≤ [`SIMHASH_MAX_DISTANCE`]; larger values
    /// are clamped), in no particular order. Found through an index
    /// ([`simhash_probes`] or [`simhash_bands`]), not a scan.
    async fn near_duplicates(&self, simhash: u64, max_distance: u32) -> Result<Vec<Article>>;
    /// Articles matching the filter, newest first.
    async fn articles(&self, filter: &ArticleFilter) -> Result<Vec<Article>>;
    /// Number of logged articles.
    async fn article_count(&self) -> Result<usize>;
    /// Append a decision; a decision id already present is refused.
    async fn append_decision(&self, decision: &Decision) -> Result<()>;
    /// Decisions matching the filter, oldest first.
    async fn decisions(&self, filter: &DecisionFilter) -> Result<Vec<Decision>>;
}

static ID_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A fresh, time-ordered id: `{prefix}_{ms:012x}{seq:04x}{rand:04x}`.
pub fn new_id(prefix: &str) -> String {
    let now = Utc::now();
    let ms = u64::try_from(now.timestamp_millis()).unwrap_or(0);
    let seq = ID_COUNTER.fetch_add(1, Ordering::Relaxed);
    let salt = crate::hash::sha1_hex(
        format!(
            "{}:{}:{seq}",
            std::process::id(),
            now.timestamp_subsec_nanos()
        )
        .as_bytes(),
    );
    format!(
        "{prefix}_{ms:012x}{:04x}{}",
        seq & 0xffff,
        salt.get(..4).unwrap_or("0000")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_find_near_hashes() {
        let a: u64 = 0xDEAD_BEEF_0123_4567;
        let b = a ^ (1 << 3) ^ (1 << 20) ^ (1 << 40); // distance 3, bands 0, 2, 5 differ
        let shared = simhash_bands(a)
            .iter()
            .zip(simhash_bands(b).iter())
            .filter(|(x, y)| x == y)
            .count();
        assert_eq!(shared, 5);
    }

    #[test]
    fn probes_find_every_hash_within_seven_bits() {
        let mut x: u64 = 0x0123_4567_89ab_cdef;
        for _ in 0..2000 {
            // xorshift: a pseudo-random hash and a pseudo-random 0…7-bit flip mask.
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mut mask = 0u64;
            for k in 0..(x % 8) {
                mask |= 1 << ((x >> (6 * k + 3)) & 63);
            }
            let near = x ^ mask;
            let keys = simhash_blocks(near);
            assert!(
                simhash_probes(x).iter().any(|p| keys.contains(p)),
                "{x:x} vs {near:x}"
            );
        }
        // Eight bits, two in each block: no probe matches.
        let far = 0b11 | 0b11 << 16 | 0b11 << 32 | 0b11 << 48;
        let keys = simhash_blocks(far);
        assert!(!simhash_probes(0).iter().any(|p| keys.contains(p)));
        assert_eq!(simhash_probes(0).len(), 68);
    }

    #[test]
    fn enums_and_ids() {
        let e = "gpt".parse::<DecisionLlm>().unwrap_err().to_string();
        assert!(e.contains("`qwen`, `phi`"), "{e}");
        assert_eq!(
            "verify_fact".parse::<DecisionType>().unwrap(),
            DecisionType::VerifyFact
        );
        let e = "blog".parse::<SourceType>().unwrap_err().to_string();
        assert!(e.contains("`rss`, `youtube`, `reddit`, `hn`"), "{e}");
        let a = new_id("dec");
        let b = new_id("dec");
        assert!(a.starts_with("dec_") && a != b && a.len() == 4 + 20, "{a}");
    }
}
