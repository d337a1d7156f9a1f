//! Best *groups* of vectors (a chunk and its sentences) by their best vector,
//! from one scan of the int8 copy and an exact re-scoring of its best rows.

use std::collections::HashSet;

use verity_core::Result;

use super::{by_similarity, dot, normalized, DenseIndex};
use crate::quantized::in_parts_of;

/// Rows re-scored exactly per group asked for, at first (SciFact chunks own
/// ~10 vectors: a chunk and its sentences).
const ROWS_PER_GROUP: usize = 16;
/// Fewest rows re-scored exactly.
const MIN_RESCORED: usize = 1024;
/// Rows re-scored per rayon thread, at least (each reads a 1.5 KB f32 vector
/// from its own allocation).
const RESCORED_PER_PART: usize = 256;
/// When and how widely the rows are ranked by sign bits before the int8 pass.
#[derive(Debug, Clone, Copy)]
struct Prefilter {
    /// Indexes with fewer vectors skip it (their int8 codes fit in cache: the full pass is
    /// as cheap).
    min_rows: usize,
    /// Rows kept per row re-scored exactly: wide enough that the exact top rows survive
    /// (SciFact: nDCG@10 identical to the full pass, docs/benchmarks.d/quality.md).
    factor: usize,
    /// Fewest rows kept.
    min_kept: usize,
}

const PREFILTER: Prefilter = Prefilter {
    min_rows: 16_384,
    factor: 4,
    min_kept: 8_192,
};
/// How many times cheaper one distance is in the int8 scan than in a graph walk (sequential
/// int8 rows against f32 points in their own allocations, visited in random order).
const SCAN_ADVANTAGE: usize = 4;

/// Exact similarities of the rows an int8 pass picked, as `(id, similarity)`, compiled
/// for the CPU's widest vector unit through `pulp`.
struct Rescore<'a> {
    index: &'a DenseIndex,
    q: &'a [f32],
    rows: &'a [(f32, u32)],
}

impl pulp::WithSimd for Rescore<'_> {
    type Output = Vec<(u64, f32)>;

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) -> Self::Output {
        // A plain loop: a closure would be compiled without the CPU features
        // (see `quantized::Hamming`). The lanes, and so the sums, are the same.
        let mut out = Vec::with_capacity(self.rows.len());
        for &(_, row) in self.rows {
            let Some(s) = self.index.slots.get(row as usize) else {
                continue;
            };
            let Some(v) = s.vector() else {
                continue;
            };
            out.push((s.id, dot(self.q, v).clamp(-1.0, 1.0)));
        }
        out
    }
}

impl DenseIndex {
    /// `true` when finding `k` vectors by walking the graph would compute at least as many
    /// distances, weighted by their cost, as one pass of [`Self::search_grouped`]:
    /// `max(ef_search, k) × 2m × 4 ≥ live points`, or an index small enough to be scanned, or
    /// one without a graph.
    pub fn prefers_scan(&self, k: usize) -> bool {
        let n = self.by_id.len();
        n <= super::EXACT_SCAN_MAX_POINTS
            || !self.has_graph()
            || self
                .params
                .ef_search
                .max(k)
                .saturating_mul(2 * self.params.m)
                .saturating_mul(SCAN_ADVANTAGE)
                >= n
    }

    /// The `groups` best groups of live vectors, best first, as `(group, similarity)`, where
    /// `group_of` maps a vector id to its group and a group's similarity is that of its best
    /// vector (cosine) — the answer of an exhaustive search grouped afterwards, up to the int8
    /// rounding of the last rows that make the cut.
    ///
    /// One pass over the int8 copy of the vectors ranks every allowed vector approximately;
    /// the best `16 × groups` rows (at least 1,024) are re-scored exactly in f32 and grouped,
    /// and the pass is widened only when they hold fewer than `groups` groups. Used for deep
    /// requests over indexes where a group owns several vectors, where a graph walk would have
    /// to be repeated deeper and deeper (docs/benchmarks.d/quality.md).
    pub fn search_grouped(
        &self,
        query: &[f32],
        groups: usize,
        group_of: &dyn Fn(u64) -> u64,
        filter: Option<&(dyn Fn(u64) -> bool + Sync)>,
    ) -> Result<Vec<(u64, f32)>> {
        self.search_grouped_with(query, groups, group_of, filter, PREFILTER)
    }

    fn search_grouped_with(
        &self,
        query: &[f32],
        groups: usize,
        group_of: &dyn Fn(u64) -> u64,
        filter: Option<&(dyn Fn(u64) -> bool + Sync)>,
        pre: Prefilter,
    ) -> Result<Vec<(u64, f32)>> {
        let q = normalized(query, self.dim, "query")?;
        if groups == 0 || self.by_id.is_empty() {
            return Ok(Vec::new());
        }
        let qq = self.quant.query(&q);
        let allowed = |row: usize| self.allowed(row, filter).is_some();
        let mut take = groups.saturating_mul(ROWS_PER_GROUP).max(MIN_RESCORED);
        // Large indexes: int8 scores for the rows nearest in sign bits only; the full pass
        // runs if those hold too few groups.
        let mut whole = self.quant.len() < pre.min_rows;
        let mut approx = if whole {
            self.quant.scan(&qq, allowed)
        } else {
            let keep = take.saturating_mul(pre.factor).max(pre.min_kept);
            let kept = self.quant.scan_prefiltered(&qq, allowed, keep);
            whole = kept.len() < keep; // every allowed row made it
            kept
        };
        take = take.min(approx.len());
        loop {
            if take < approx.len() {
                approx.select_nth_unstable_by(take - 1, |a, b| b.0.total_cmp(&a.0));
            }
            let rows = approx.get(..take).unwrap_or(&approx);
            let mut exact = in_parts_of(rows.len(), RESCORED_PER_PART, |range| {
                pulp::Arch::new().dispatch(Rescore {
                    index: self,
                    q: &q,
                    rows: &rows[range],
                })
            });
            exact.sort_by(by_similarity);
            let mut seen = HashSet::with_capacity(groups);
            let best: Vec<(u64, f32)> = exact
                .iter()
                .filter_map(|&(id, sim)| {
                    let g = group_of(id);
                    seen.insert(g).then_some((g, sim))
                })
                .take(groups)
                .collect();
            if best.len() >= groups {
                return Ok(best);
            }
            if take >= approx.len() {
                if whole {
                    return Ok(best);
                }
                approx = self.quant.scan(&qq, allowed);
                whole = true;
            }
            take = take.saturating_mul(4).min(approx.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::super::HnswParams;
    use super::*;

    const DIM: usize = 24;

    fn vector(seed: u64) -> Vec<f32> {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        (0..DIM)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 2001) as f32 / 1000.0 - 1.0
            })
            .collect()
    }

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = v.iter().map(|a| a * a).sum::<f32>().sqrt();
        v.iter().map(|a| a / n).collect()
    }

    /// Exhaustive reference: every live vector scored in f32, best per group.
    fn reference(items: &[(u64, Vec<f32>)], q: &[f32], groups: usize) -> Vec<(u64, f32)> {
        let q = unit(q);
        let mut best: HashMap<u64, f32> = HashMap::new();
        for (id, v) in items {
            let s: f32 = unit(v).iter().zip(&q).map(|(a, b)| a * b).sum();
            let e = best.entry(id >> 8).or_insert(f32::MIN);
            *e = e.max(s);
        }
        let mut out: Vec<(u64, f32)> = best.into_iter().collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out.truncate(groups);
        out
    }

    #[test]
    fn grouped_search_matches_exhaustive_grouping() {
        // 150 groups of 1 to 12 vectors; ids `group << 8 | n`.
        let mut items = Vec::new();
        for g in 0..150u64 {
            for n in 0..(1 + g % 12) {
                items.push((g << 8 | n, vector(g * 1000 + n)));
            }
        }
        let mut idx = DenseIndex::new(DIM, HnswParams::default(), items.len());
        idx.insert_batch(&items).unwrap();
        let group_of = |id: u64| id >> 8;
        for (qi, groups) in [(1u64, 1usize), (2, 10), (3, 100), (4, 150), (5, 400)] {
            let q = vector(77_000 + qi);
            let got = idx.search_grouped(&q, groups, &group_of, None).unwrap();
            let want = reference(&items, &q, groups);
            assert_eq!(got.len(), want.len(), "groups={groups}");
            for (g, w) in got.iter().zip(&want) {
                assert_eq!(g.0, w.0, "groups={groups}: {got:?} vs {want:?}");
                assert!((g.1 - w.1).abs() < 1e-5);
            }
        }
    }

    /// A sign-bit pass small enough to run on test-sized indexes.
    const TINY: Prefilter = Prefilter {
        min_rows: 0,
        factor: 1,
        min_kept: 64,
    };

    #[test]
    fn the_sign_bit_prefilter_keeps_the_nearest_groups_on_clustered_vectors() {
        // 60 clusters of 40 vectors (5 groups of 8 per cluster); the query sits near one
        // centre. The pre-filter keeps 1,024 of 2,400 rows.
        let dim = 64;
        // 64 components from three 24-component pseudo-random vectors.
        let long = |seed: u64| -> Vec<f32> {
            (0..3)
                .flat_map(|k| vector(seed * 3 + k))
                .take(dim)
                .collect()
        };
        let mut items = Vec::new();
        for c in 0..60u64 {
            let base = unit(&long(c));
            for n in 0..40u64 {
                let noise = long(90_000 + c * 100 + n);
                let v: Vec<f32> = base.iter().zip(&noise).map(|(b, e)| b + 0.15 * e).collect();
                items.push(((c * 5 + n / 8) << 8 | (n % 8), v));
            }
        }
        let mut idx = DenseIndex::new(dim, HnswParams::default(), items.len());
        idx.insert_batch(&items).unwrap();
        let group_of = |id: u64| id >> 8;
        let pre = Prefilter {
            min_rows: 0,
            factor: 1,
            min_kept: 1_024,
        };
        for c in [7u64, 31, 50] {
            let noise = long(5_000 + c);
            let q: Vec<f32> = unit(&long(c))
                .iter()
                .zip(&noise)
                .map(|(b, e)| b + 0.1 * e)
                .collect();
            let got = idx
                .search_grouped_with(&q, 64, &group_of, None, pre)
                .unwrap();
            let want = reference(&items, &q, 64);
            // The query's own cluster (its 5 groups) comes back exactly, in order…
            for (g, w) in got.iter().zip(&want).take(5) {
                assert_eq!(g.0, w.0, "cluster {c}: {got:?} vs {want:?}");
                assert!((g.1 - w.1).abs() < 1e-5);
            }
            // …and the far tail (cosine ~0.2 on 64 sign bits) mostly: this is a pre-filter.
            let wanted: HashSet<u64> = want.iter().map(|w| w.0).collect();
            let found = got.iter().filter(|g| wanted.contains(&g.0)).count();
            assert!(found >= 54, "cluster {c}: {found} of 64 groups");
        }
    }

    #[test]
    fn grouped_search_widens_past_a_crowded_group_and_honours_filters() {
        // Group 0 owns 3,000 vectors all close to the query: the first 1,024 rows re-scored
        // hold one group only, so the scan must widen to find the others.
        let q = vector(1);
        let mut items: Vec<(u64, Vec<f32>)> = (0..3_000u64)
            .map(|n| {
                let noise = vector(10_000 + n);
                let v: Vec<f32> = q.iter().zip(&noise).map(|(a, b)| a + 0.05 * b).collect();
                (n, v)
            })
            .collect();
        for g in 1..40u64 {
            items.push((g << 12, vector(500 + g)));
        }
        let mut idx = DenseIndex::new(DIM, HnswParams::default(), items.len());
        idx.insert_batch(&items).unwrap();
        let group_of = |id: u64| id >> 12;
        let got = idx.search_grouped(&q, 5, &group_of, None).unwrap();
        assert_eq!(got.len(), 5);
        assert_eq!(got[0].0, 0);
        assert!(got.windows(2).all(|w| w[0].1 >= w[1].1));
        // With a sign-bit pass keeping 64 rows (all of group 0), the full pass runs and
        // finds the same groups.
        let pre = idx
            .search_grouped_with(&q, 5, &group_of, None, TINY)
            .unwrap();
        assert_eq!(pre, got);

        // A filter that rejects group 0 and every odd group.
        let even = |id: u64| (id >> 12) % 2 == 0 && id >> 12 != 0;
        let got = idx.search_grouped(&q, 100, &group_of, Some(&even)).unwrap();
        assert_eq!(got.len(), 19, "groups 2, 4, …, 38");
        assert!(got.iter().all(|(g, _)| g % 2 == 0 && *g != 0));

        // Removed vectors are never returned; a bad query is a typed error.
        for n in 0..3_000u64 {
            idx.remove(n);
        }
        let got = idx.search_grouped(&q, 3, &group_of, None).unwrap();
        assert!(got.iter().all(|(g, _)| *g != 0));
        assert!(idx.search_grouped(&[1.0; 3], 3, &group_of, None).is_err());
        assert!(idx
            .search_grouped(&q, 0, &group_of, None)
            .unwrap()
            .is_empty());
    }

    #[test]
    fn the_int8_copy_survives_dump_load_and_rebuild() {
        let items: Vec<(u64, Vec<f32>)> = (0..300u64).map(|i| (i, vector(i))).collect();
        let mut idx = DenseIndex::new(DIM, HnswParams::default(), items.len());
        idx.insert_batch(&items).unwrap();
        let q = vector(4242);
        let group_of = |id: u64| id;
        let before = idx.search_grouped(&q, 10, &group_of, None).unwrap();
        let dir = tempfile::tempdir().unwrap();
        idx.dump(dir.path(), "t", 1).unwrap();
        let loaded = DenseIndex::load(dir.path(), "t", DIM, 1).unwrap();
        assert_eq!(
            loaded.search_grouped(&q, 10, &group_of, None).unwrap(),
            before
        );
        for i in 0..100u64 {
            idx.remove(i);
        }
        idx.rebuild().unwrap();
        let after = idx.search_grouped(&q, 10, &group_of, None).unwrap();
        let want: Vec<(u64, f32)> = before.iter().copied().filter(|h| h.0 >= 100).collect();
        assert_eq!(&after[..want.len()], &want[..]);
    }
}
