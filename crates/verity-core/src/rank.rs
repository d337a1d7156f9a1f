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

/// Map a BM25 score to `[0, 1)` so that lexical hits can be compared with the
/// guardrail threshold: `s / (s + pivot)`. With `pivot` ≈ a typical good
/// score, a strong match lands around 0.5 and above.
pub fn bm25_relevance(score: f32, pivot: f32) -> f32 {
    if score <= 0.0 {
        0.0
    } else {
        score / (score + pivot.max(f32::EPSILON))
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
}
