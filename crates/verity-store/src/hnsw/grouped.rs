//! Best *groups* of vectors (a chunk and its sentences) by their best vector,
//! from one scan of the int8 copy and an exact re-scoring of its best rows.

use std::collections::HashSet;

use verity_core::Result;

use super::{by_similarity, dot, normalized, DenseIndex};

/// Rows re-scored exactly per group asked for, at first (SciFact chunks own
/// ~10 vectors: a chunk and its sentences).
const ROWS_PER_GROUP: usize = 16;
/// Fewest rows re-scored exactly.
const MIN_RESCORED: usize = 1024;
/// How many times cheaper one distance is in the int8 scan than in a graph walk (sequential
/// int8 rows against f32 points in their own allocations, visited in random order).
const SCAN_ADVANTAGE: usize = 4;

impl DenseIndex {
    /// `true` when finding `k` vectors by walking the graph would compute at least as many
    /// distances, weighted by their cost, as one pass of [`Self::search_grouped`]:
    /// `max(ef_search, k) × 2m × 4 ≥ live points`, or an index small enough to be scanned.
    pub fn prefers_scan(&self, k: usize) -> bool {
        let n = self.by_id.len();
        n <= super::EXACT_SCAN_MAX_POINTS
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
        let q = normalized(query, self.dim, "query")?;
        if groups == 0 || self.by_id.is_empty() {
            return Ok(Vec::new());
        }
        let qq = self.quant.query(&q);
        let mut approx = self
            .quant
            .scan(&qq, |row| self.allowed(row, filter).is_some());
        let mut take = groups
            .saturating_mul(ROWS_PER_GROUP)
            .max(MIN_RESCORED)
            .min(approx.len());
        loop {
            if take < approx.len() {
                approx.select_nth_unstable_by(take - 1, |a, b| b.0.total_cmp(&a.0));
            }
            let mut exact: Vec<(u64, f32)> = approx
                .iter()
                .take(take)
                .filter_map(|&(_, row)| {
                    let s = self.slots.get(row as usize)?;
                    let p = s.point.as_ref()?;
                    Some((s.id, dot(&q, p.get_v()).clamp(-1.0, 1.0)))
                })
                .collect();
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
            if best.len() >= groups || take >= approx.len() {
                return Ok(best);
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
