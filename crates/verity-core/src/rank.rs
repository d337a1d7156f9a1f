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

/// Revision of the relevance computation ([`hit_relevance`] and its
/// calibration), folded into retrieval cache keys: cached hits carry their
/// relevance, so a change of its definition must make them unreachable.
pub const RELEVANCE_REVISION: u32 = 1;

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

/// A hit's relevance for the guardrail: the better of its lexical score (as
/// [`bm25_relevance`]) and its cosine similarity (clamped to `[0, 1]`); 0 for
/// a side the hit did not come from. Every store reports it this way.
pub fn hit_relevance(lexical: Option<f32>, dense: Option<f32>, pivot: f32) -> f32 {
    let lr = lexical.map(|s| bm25_relevance(s, pivot)).unwrap_or(0.0);
    let dr = dense.map(|s| s.clamp(0.0, 1.0)).unwrap_or(0.0);
    lr.max(dr)
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
}
