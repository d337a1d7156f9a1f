//! Ranking maths shared by every store and the RAG pipeline: rank fusion,
//! freshness decay and the low-evidence guardrail. Pure functions.

use std::collections::HashMap;
use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::search::Fusion;

/// Fuse ranked lists of ids (best first) into one, best first, with scores.
///
/// `lexical` and `dense` are `(id, raw score)` lists as returned by each index.
pub fn fuse(
    lexical: &[(String, f32)],
    dense: &[(String, f32)],
    fusion: Fusion,
) -> Vec<(String, f32)> {
    let mut acc: HashMap<&str, f32> = HashMap::new();
    match fusion {
        Fusion::Rrf { k, lexical_weight } => {
            let wl = lexical_weight.clamp(0.0, 1.0);
            let wd = 1.0 - wl;
            for (rank, (id, _)) in lexical.iter().enumerate() {
                *acc.entry(id).or_default() += wl / (k + rank as f32 + 1.0);
            }
            for (rank, (id, _)) in dense.iter().enumerate() {
                *acc.entry(id).or_default() += wd / (k + rank as f32 + 1.0);
            }
        }
        Fusion::Weighted { lexical_weight } => {
            let wl = lexical_weight.clamp(0.0, 1.0);
            for (id, s) in min_max(lexical) {
                *acc.entry(id).or_default() += wl * s;
            }
            for (id, s) in min_max(dense) {
                *acc.entry(id).or_default() += (1.0 - wl) * s;
            }
        }
        Fusion::ZScore { lexical_weight } => {
            let wl = lexical_weight.clamp(0.0, 1.0);
            let (lex, lex_floor) = z_scores(lexical);
            let (den, den_floor) = z_scores(dense);
            for id in lex.keys().chain(den.keys()) {
                acc.entry(id).or_insert_with(|| {
                    wl * lex.get(id).copied().unwrap_or(lex_floor)
                        + (1.0 - wl) * den.get(id).copied().unwrap_or(den_floor)
                });
            }
        }
    }
    let mut out: Vec<(String, f32)> = acc.into_iter().map(|(id, s)| (id.to_string(), s)).collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

fn min_max(list: &[(String, f32)]) -> impl Iterator<Item = (&str, f32)> {
    let (lo, hi) = list
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), (_, s)| {
            (lo.min(*s), hi.max(*s))
        });
    let span = hi - lo;
    list.iter()
        .map(move |(id, s)| (id.as_str(), if span > 0.0 { (s - lo) / span } else { 1.0 }))
}

/// Z-scores of a list (population standard deviation) and the lowest of
/// them, which stands in for ids the list does not contain.
///
/// Scale does not matter: BM25 on a tiny corpus yields scores around 1e-6
/// and their order still counts. A list whose scores are all equal carries
/// no order, only membership: its ids score 0 and absent ids -1, as min-max
/// fusion would rank them.
fn z_scores(list: &[(String, f32)]) -> (HashMap<&str, f32>, f32) {
    if list.is_empty() {
        return (HashMap::new(), 0.0);
    }
    let n = list.len() as f64;
    let mean = list.iter().map(|(_, s)| f64::from(*s)).sum::<f64>() / n;
    let var = list
        .iter()
        .map(|(_, s)| (f64::from(*s) - mean).powi(2))
        .sum::<f64>()
        / n;
    let sd = var.sqrt();
    let magnitude = list
        .iter()
        .map(|(_, s)| f64::from(*s).abs())
        .fold(0.0, f64::max);
    if sd.is_nan() || sd <= magnitude * 1e-9 {
        let out = list.iter().map(|(id, _)| (id.as_str(), 0.0)).collect();
        return (out, -1.0);
    }
    let mut floor = f32::INFINITY;
    let mut out = HashMap::with_capacity(list.len());
    for (id, s) in list {
        let z = ((f64::from(*s) - mean) / sd) as f32;
        floor = floor.min(z);
        // A list may repeat an id; keep its best score.
        let e = out.entry(id.as_str()).or_insert(z);
        *e = e.max(z);
    }
    (out, floor)
}

/// Exponential freshness decay: 1 at `now`, 0.5 after `half_life`.
/// Documents without a timestamp get `undated` (a neutral value such as 0.5).
pub fn freshness(
    ts: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
    half_life: Duration,
    undated: f32,
) -> f32 {
    let Some(ts) = ts else { return undated };
    let age = (now - ts).num_seconds().max(0) as f64;
    let hl = half_life.as_secs_f64().max(1.0);
    (0.5f64).powf(age / hl) as f32
}

/// Revision of the relevance computation ([`relevance`] and its
/// calibration), folded into retrieval cache keys: cached hits carry their
/// relevance, so a change of its definition must make them unreachable.
pub const RELEVANCE_REVISION: u32 = 2;

/// Map a BM25 score to `[0, 1)`: `s / (s + pivot)`. Not used for chunk
/// relevance (a BM25 score's scale depends on the corpus: the same perfect
/// match scores ~4 among 10 documents and ~30 among 5,000); the event
/// memory uses it for its own lexical scores.
pub fn bm25_relevance(score: f32, pivot: f32) -> f32 {
    if score <= 0.0 {
        0.0
    } else {
        score / (score + pivot.max(f32::EPSILON))
    }
}

/// The guardrail's threshold on the relevance scale (seed 001: `score_max < 0.35`).
pub const GUARDRAIL: f32 = 0.35;

/// Cosine similarity at which a dense hit is enough evidence (mapped to
/// [`GUARDRAIL`]), with all-MiniLM-L6-v2: the threshold that maximises the
/// mean over the two corpora of (refusals of unanswerable − refusals of
/// answerable questions) on the `look` half of the guardrail set
/// (`crates/verity-eval/guardrail/`; docs/benchmarks.d/guardrail.md).
/// Off-corpus questions reach cosine 0.34 (p90) on SciFact, answerable
/// claims 0.46 (p05); French questions on the French sample documents reach
/// 0.62, which only the hybrid mode's lexical half catches.
pub const DENSE_KNEE: f32 = 0.44;

/// Hybrid evidence (per hit, the mean of the cosine and the lexical
/// evidence) at which a hybrid hit is enough evidence (mapped to
/// [`GUARDRAIL`]), chosen the same way.
pub const HYBRID_KNEE: f32 = 0.40;

/// The content terms of a query ([`crate::text::content_terms`], distinct),
/// computed once per search for [`relevance`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryTerms {
    terms: Vec<String>,
}

impl QueryTerms {
    /// The distinct content terms of `query`.
    pub fn new(query: &str) -> Self {
        let mut terms: Vec<String> = Vec::new();
        for t in crate::text::content_terms(query) {
            if !terms.contains(&t) {
                terms.push(t);
            }
        }
        Self { terms }
    }

    /// Number of terms.
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// `true` when the query has no content term.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Lexical evidence of a text for this query, in `[0, 1)`: the share `c`
    /// of the query's terms the text holds, times `m / (m + 1)` for the `m`
    /// terms it holds — one shared word is weak evidence even for a one-word
    /// query. Independent of the corpus (unlike a BM25 score, whose scale
    /// grows with the corpus), of the backend and of the mode.
    pub fn lexical_evidence(&self, parts: &[&str]) -> f32 {
        if self.terms.is_empty() {
            return 0.0;
        }
        let mut have: Vec<String> = Vec::new();
        for p in parts {
            have.extend(crate::text::content_terms(p));
        }
        let m = self.terms.iter().filter(|t| have.contains(t)).count() as f32;
        let coverage = m / self.terms.len() as f32;
        coverage * m / (m + 1.0)
    }
}

/// Piecewise-linear map of `[0, 1]` onto itself sending `knee` to [`GUARDRAIL`].
fn to_scale(x: f32, knee: f32) -> f32 {
    let x = if x.is_finite() {
        x.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let knee = knee.clamp(f32::EPSILON, 1.0 - f32::EPSILON);
    if x < knee {
        GUARDRAIL * x / knee
    } else {
        GUARDRAIL + (1.0 - GUARDRAIL) * (x - knee) / (1.0 - knee)
    }
}

/// A hit's relevance, the one scale the guardrail reads (threshold
/// [`GUARDRAIL`] = 0.35 whatever the mode), calibrated per mode on data:
///
/// - lexical: the [lexical evidence](QueryTerms::lexical_evidence) of the
///   hit's title and text (its knee is the guardrail itself);
/// - dense: the cosine, [`DENSE_KNEE`] mapped to 0.35;
/// - hybrid: the mean of the cosine (0 when the hit has no dense score) and
///   the lexical evidence, [`HYBRID_KNEE`] mapped to 0.35 — a passage must
///   be close in meaning *and* share words with the question (the English
///   embedder finds any two French texts similar).
///
/// Every store reports relevance this way, so the guardrail agrees across
/// backends and corpus sizes.
pub fn relevance(
    mode: crate::SearchMode,
    query: &QueryTerms,
    dense: Option<f32>,
    title: Option<&str>,
    text: &str,
) -> f32 {
    let lexical = || query.lexical_evidence(&[title.unwrap_or(""), text]);
    let cosine = dense
        .filter(|d| d.is_finite())
        .unwrap_or(0.0)
        .clamp(0.0, 1.0);
    match mode {
        crate::SearchMode::Lexical => lexical(),
        crate::SearchMode::Dense => to_scale(cosine, DENSE_KNEE),
        crate::SearchMode::Hybrid => to_scale((cosine + lexical()) / 2.0, HYBRID_KNEE),
    }
}

/// Re-rank settings (seed 001: top-3 by similarity + freshness).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rerank {
    /// Weight of freshness in `[0, 1]`; similarity gets `1 - freshness_weight`.
    pub freshness_weight: f32,
    /// Freshness half-life.
    pub half_life: Duration,
    /// How many of the top hits are re-ordered (3 in seed 001).
    pub top: usize,
}

impl Default for Rerank {
    fn default() -> Self {
        Self {
            freshness_weight: 0.2,
            half_life: Duration::from_secs(180 * 24 * 3600),
            top: 3,
        }
    }
}

/// Guardrail verdict: `true` when the best relevance is under `threshold`
/// (seed 001: `score_max < 0.35` ⇒ not enough evidence). Empty ⇒ `true`.
pub fn not_enough_evidence(relevances: impl IntoIterator<Item = f32>, threshold: f32) -> bool {
    relevances.into_iter().fold(f32::NEG_INFINITY, f32::max) < threshold
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn l(ids: &[&str]) -> Vec<(String, f32)> {
        ids.iter()
            .enumerate()
            .map(|(i, s)| (s.to_string(), 10.0 - i as f32))
            .collect()
    }

    #[test]
    fn rrf_prefers_agreement() {
        let out = fuse(
            &l(&["a", "b", "c"]),
            &l(&["b", "d", "a"]),
            Fusion::Rrf {
                k: 60.0,
                lexical_weight: 0.5,
            },
        );
        assert_eq!(out[0].0, "b");
        assert_eq!(out[1].0, "a");
        assert_eq!(out.len(), 4);
    }

    #[test]
    fn weighted_fusion_respects_weight() {
        let out = fuse(
            &l(&["a", "b"]),
            &l(&["b", "a"]),
            Fusion::Weighted {
                lexical_weight: 0.9,
            },
        );
        assert_eq!(out[0].0, "a");
        let out = fuse(
            &l(&["a", "b"]),
            &l(&["b", "a"]),
            Fusion::Weighted {
                lexical_weight: 0.1,
            },
        );
        assert_eq!(out[0].0, "b");
    }

    #[test]
    fn z_score_fusion_matches_hand_computation() {
        // lexical a=3, b=1 -> z = +1, -1; dense b=0.9, c=0.5, d=0.1 -> z = 1.2247, 0, -1.2247.
        let lex = vec![("a".to_string(), 3.0), ("b".to_string(), 1.0)];
        let den = vec![
            ("b".to_string(), 0.9),
            ("c".to_string(), 0.5),
            ("d".to_string(), 0.1),
        ];
        let out = fuse(
            &lex,
            &den,
            Fusion::ZScore {
                lexical_weight: 0.5,
            },
        );
        let score = |id: &str| out.iter().find(|(i, _)| i == id).map(|(_, s)| *s);
        let z = 1.224_745;
        // a: lexical +1, missing from dense -> dense floor -z.
        assert!((score("a").unwrap() - 0.5 * (1.0 - z)).abs() < 1e-5);
        assert!((score("b").unwrap() - 0.5 * (-1.0 + z)).abs() < 1e-5);
        // c: missing from lexical -> lexical floor -1.
        assert!((score("c").unwrap() - 0.5 * (-1.0 + 0.0)).abs() < 1e-5);
        assert_eq!(out[0].0, "b");
        assert_eq!(out.len(), 4);
        // Weight 1: lexical order, ids absent from it last.
        let out = fuse(
            &lex,
            &den,
            Fusion::ZScore {
                lexical_weight: 1.0,
            },
        );
        assert_eq!(out[0].0, "a");
        // Constant list: no division by zero; membership still counts.
        let flat = vec![("x".to_string(), 2.0), ("y".to_string(), 2.0)];
        let out = fuse(
            &flat,
            &[("w".to_string(), 0.5)],
            Fusion::ZScore {
                lexical_weight: 0.9,
            },
        );
        assert!(out.iter().all(|(_, s)| s.is_finite()), "{out:?}");
        assert_eq!(out[2].0, "w", "{out:?}");
        // Tiny scores (BM25 on a three-document corpus) keep their order.
        let tiny = vec![("p".to_string(), 1.5e-6), ("q".to_string(), 1.0e-6)];
        let out = fuse(
            &tiny,
            &[],
            Fusion::ZScore {
                lexical_weight: 1.0,
            },
        );
        assert!((out[0].1 - 1.0).abs() < 1e-4 && out[0].0 == "p", "{out:?}");
    }

    #[test]
    fn freshness_halves_at_half_life() {
        let now = Utc.with_ymd_and_hms(2025, 1, 11, 0, 0, 0).unwrap();
        let ts = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
        let f = freshness(Some(ts), now, Duration::from_secs(10 * 86400), 0.5);
        assert!((f - 0.5).abs() < 1e-4);
        assert_eq!(freshness(None, now, Duration::from_secs(1), 0.3), 0.3);
        assert_eq!(freshness(Some(now), now, Duration::from_secs(1), 0.3), 1.0);
    }

    #[test]
    fn guardrail() {
        assert!(not_enough_evidence([0.1, 0.2], 0.35));
        assert!(!not_enough_evidence([0.1, 0.5], 0.35));
        assert!(not_enough_evidence([], 0.35));
        assert!(bm25_relevance(10.0, 10.0) == 0.5);
        assert_eq!(bm25_relevance(-1.0, 10.0), 0.0);
    }

    #[test]
    fn relevance_is_one_scale_per_mode() {
        use crate::SearchMode::*;
        let q = QueryTerms::new("How is the fee of a forward computed?");
        assert_eq!(q.len(), 3);
        let text = "The fee a routing node earns for one forward is computed from the base fee.";
        // All three terms: 1 × 3/4.
        assert!((relevance(Lexical, &q, None, None, text) - 0.75).abs() < 1e-6);
        // One of three: 1/3 × 1/2, under the guardrail.
        let weak = relevance(Lexical, &q, None, Some("Fees"), "Nothing else here.");
        assert!(weak < GUARDRAIL && weak > 0.0, "{weak}");
        // The knees land on the guardrail; the scale keeps its ends.
        assert!((relevance(Dense, &q, Some(DENSE_KNEE), None, "") - GUARDRAIL).abs() < 1e-6);
        assert!((relevance(Dense, &q, Some(1.0), None, "") - 1.0).abs() < 1e-6);
        assert_eq!(relevance(Dense, &q, Some(-0.2), None, ""), 0.0);
        assert_eq!(relevance(Dense, &q, Some(f32::NAN), None, ""), 0.0);
        let h = relevance(Hybrid, &q, Some(0.8), None, text);
        assert!((h - to_scale((0.8 + 0.75) / 2.0, HYBRID_KNEE)).abs() < 1e-6);
        // Similar in meaning, no shared word: not enough in hybrid.
        assert!(relevance(Hybrid, &q, Some(0.6), None, "Autre chose.") < GUARDRAIL);
        assert_eq!(
            relevance(Lexical, &QueryTerms::new("the of"), None, None, text),
            0.0
        );
    }
}
