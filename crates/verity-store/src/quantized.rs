//! A contiguous int8 copy of the dense index's vectors, for scans that must
//! look at every vector.
//!
//! Why: a chunk may own a dozen vectors (its own and one per sentence), and a
//! hybrid search needs the best 100 *chunks* — often more vectors than a graph
//! walk returns cheaply, so the store used to re-walk deeper and then scan the
//! f32 vectors, which live in one heap allocation each (~160 ns per vector,
//! ~8 ms at 50k; docs/benchmarks.d/quality.md). One pass over a contiguous
//! int8 matrix reads a quarter of the bytes sequentially; the few thousand
//! best candidates are then re-scored exactly in f32, so the order of what is
//! returned is the exact one.
//!
//! Quantisation: symmetric, one scale per vector (`max |x| / 127`). The
//! vectors are unit length, so the approximate dot product is within ~1e-3 of
//! the exact one — far inside the re-scoring margin.
//!
//! Each row also keeps its sign bits (48 bytes for 384 dimensions). At ~50k
//! rows the int8 pass reads 19 MB per query and runs at memory speed; the
//! sign bits are 2.4 MB, which stay in cache between queries, so a deep
//! search first ranks rows by Hamming distance to the query's sign bits and
//! scores only the best few thousand with their int8 codes
//! ([`QuantizedVectors::scan_prefiltered`]).

/// Below this many rows per thread a scan stays on the calling thread.
const ROWS_PER_PART: usize = 8_192;
/// The same for the rows a sign-bit pre-filter kept (scattered rows: each
/// costs more than in a sequential scan).
const LISTED_ROWS_PER_PART: usize = 2_048;

/// Int8 codes of every slot's vector, row after row, with one scale per row.
#[derive(Debug, Default)]
pub(crate) struct QuantizedVectors {
    dim: usize,
    codes: Vec<i8>,
    scales: Vec<f32>,
    /// Sign bits of every row, [`words`](Self::words) `u64`s per row.
    bits: Vec<u64>,
}

/// Sign bits of `v` (bit `i` set when `v[i] > 0`), 64 dimensions per word.
fn signs_into(v: &[f32], out: &mut Vec<u64>) {
    for block in v.chunks(64) {
        let mut w = 0u64;
        for (i, x) in block.iter().enumerate() {
            if *x > 0.0 {
                w |= 1 << i;
            }
        }
        out.push(w);
    }
}

/// Symmetric int8 quantisation of `v` into `out`; returns the scale.
fn quantize_into(v: &[f32], out: &mut Vec<i8>) -> f32 {
    let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    if max == 0.0 || !max.is_finite() {
        out.extend(std::iter::repeat_n(0, v.len()));
        return 0.0;
    }
    let inv = 127.0 / max;
    out.extend(
        v.iter()
            .map(|x| (x * inv).round().clamp(-127.0, 127.0) as i8),
    );
    max / 127.0
}

/// Integer dot product of two code rows. Each product fits in an `i16`
/// (|codes| ≤ 127), which lets the compiler use widening multiply-adds once
/// the loop is compiled for the CPU's vector unit ([`Scan`], through `pulp`).
#[inline(always)]
fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    let mut acc = [0i32; 16];
    let ca = a.chunks_exact(16);
    let cb = b.chunks_exact(16);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..16 {
            acc[i] += i32::from(i16::from(x[i]) * i16::from(y[i]));
        }
    }
    let tail: i32 = ra
        .iter()
        .zip(rb)
        .map(|(x, y)| i32::from(*x) * i32::from(*y))
        .sum();
    acc.iter().sum::<i32>() + tail
}

/// The scan loop, compiled inside `pulp`'s `#[target_feature]` function for
/// the widest vector unit the CPU has (AVX2 here: 4.5× the baseline SSE2 code,
/// which the compiler leaves scalar).
struct Scan<'a, F> {
    rows: &'a QuantizedVectors,
    q: &'a QuantizedQuery,
    allowed: &'a F,
    range: std::ops::Range<usize>,
}

impl<F: Fn(usize) -> bool> pulp::WithSimd for Scan<'_, F> {
    type Output = Vec<(f32, u32)>;

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) -> Self::Output {
        let Scan {
            rows,
            q,
            allowed,
            range,
        } = self;
        let mut out = Vec::with_capacity(range.len());
        let codes = &rows.codes[range.start * rows.dim..range.end * rows.dim];
        for (row, (codes, scale)) in codes
            .chunks_exact(rows.dim)
            .zip(&rows.scales[range.clone()])
            .enumerate()
        {
            let row = range.start + row;
            if !allowed(row) {
                continue;
            }
            let sim = dot_i8(codes, &q.codes) as f32 * scale * q.scale;
            out.push((sim, row as u32));
        }
        out
    }
}

/// Hamming distances between the query's sign bits and every allowed row's in
/// `range`, as `(distance, row)` (compiled like [`Scan`]: `popcnt` needs it).
struct Hamming<'a, F> {
    rows: &'a QuantizedVectors,
    q: &'a QuantizedQuery,
    allowed: &'a F,
    range: std::ops::Range<usize>,
}

impl<F: Fn(usize) -> bool> pulp::WithSimd for Hamming<'_, F> {
    type Output = Vec<(u32, u32)>;

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) -> Self::Output {
        let Hamming {
            rows,
            q,
            allowed,
            range,
        } = self;
        let w = rows.words();
        let mut out = Vec::with_capacity(range.len());
        let bits = &rows.bits[range.start * w..range.end * w];
        for (row, words) in bits.chunks_exact(w).enumerate() {
            let row = range.start + row;
            if !allowed(row) {
                continue;
            }
            // A plain loop, not an iterator closure: a closure is compiled
            // apart, without the `#[target_feature]`s, so `count_ones`
            // would fall back to the bit-twiddling sequence.
            let mut d = 0u32;
            for (a, b) in words.iter().zip(&q.bits) {
                d += (a ^ b).count_ones();
            }
            out.push((d, row as u32));
        }
        out
    }
}

/// Int8 similarities of the listed rows (compiled like [`Scan`]).
struct ScoreRows<'a> {
    rows: &'a QuantizedVectors,
    q: &'a QuantizedQuery,
    list: &'a [u32],
}

impl pulp::WithSimd for ScoreRows<'_> {
    type Output = Vec<(f32, u32)>;

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) -> Self::Output {
        let ScoreRows { rows, q, list } = self;
        let d = rows.dim;
        // A plain loop (see [`Hamming`]): inside a `filter_map` closure the
        // dot product compiled without AVX2 and took ~0.3 µs a row, 8× the
        // scan's.
        let mut out = Vec::with_capacity(list.len());
        for &row in list {
            let r = row as usize;
            let (Some(codes), Some(scale)) =
                (rows.codes.get(r * d..(r + 1) * d), rows.scales.get(r))
            else {
                continue;
            };
            out.push((dot_i8(codes, &q.codes) as f32 * scale * q.scale, row));
        }
        out
    }
}

/// A query quantised once for a scan.
pub(crate) struct QuantizedQuery {
    codes: Vec<i8>,
    scale: f32,
    bits: Vec<u64>,
}

impl QuantizedVectors {
    pub(crate) fn new(dim: usize) -> Self {
        Self {
            dim,
            codes: Vec::new(),
            scales: Vec::new(),
            bits: Vec::new(),
        }
    }

    /// `u64` words of sign bits per row.
    fn words(&self) -> usize {
        self.dim.div_ceil(64)
    }

    /// Number of rows.
    pub(crate) fn len(&self) -> usize {
        self.scales.len()
    }

    /// Drop the rows from `len` on (before re-appending them).
    pub(crate) fn truncate(&mut self, len: usize) {
        self.scales.truncate(len);
        self.codes.truncate(len * self.dim);
        self.bits.truncate(len * self.words());
    }

    /// Append one row; `v` must have `dim` components.
    pub(crate) fn push(&mut self, v: &[f32]) {
        debug_assert_eq!(v.len(), self.dim);
        let scale = quantize_into(v, &mut self.codes);
        self.scales.push(scale);
        signs_into(v, &mut self.bits);
    }

    pub(crate) fn query(&self, q: &[f32]) -> QuantizedQuery {
        let mut codes = Vec::with_capacity(q.len());
        let scale = quantize_into(q, &mut codes);
        let mut bits = Vec::with_capacity(self.words());
        signs_into(q, &mut bits);
        QuantizedQuery { codes, scale, bits }
    }

    /// Approximate dot products of `q` with every row `allowed` accepts, as
    /// `(similarity, row)`.
    ///
    /// Large matrices are split into one contiguous part per rayon thread
    /// (at least [`ROWS_PER_PART`] rows each): the scan reads memory at
    /// about one core's bandwidth, and a hybrid search waits for it.
    pub(crate) fn scan(
        &self,
        q: &QuantizedQuery,
        allowed: impl Fn(usize) -> bool + Sync,
    ) -> Vec<(f32, u32)> {
        if self.dim == 0 || q.codes.len() != self.dim {
            return Vec::new();
        }
        in_parts(self.len(), |range| {
            pulp::Arch::new().dispatch(Scan {
                rows: self,
                q,
                allowed: &allowed,
                range,
            })
        })
    }

    /// Like [`scan`](Self::scan), but only for the `keep` allowed rows whose sign bits are
    /// nearest the query's (Hamming distance; ties broken by row, so the answer is
    /// deterministic). Returns every allowed row when there are at most `keep`.
    pub(crate) fn scan_prefiltered(
        &self,
        q: &QuantizedQuery,
        allowed: impl Fn(usize) -> bool + Sync,
        keep: usize,
    ) -> Vec<(f32, u32)> {
        if self.dim == 0 || q.codes.len() != self.dim || q.bits.len() != self.words() {
            return Vec::new();
        }
        let mut near = in_parts(self.len(), |range| {
            pulp::Arch::new().dispatch(Hamming {
                rows: self,
                q,
                allowed: &allowed,
                range,
            })
        });
        if keep == 0 {
            return Vec::new();
        }
        if near.len() > keep {
            near.select_nth_unstable(keep - 1);
            near.truncate(keep);
        }
        // Rows in storage order: the int8 pass then reads memory forwards.
        let mut list: Vec<u32> = near.into_iter().map(|(_, row)| row).collect();
        list.sort_unstable();
        in_parts_of(list.len(), LISTED_ROWS_PER_PART, |range| {
            pulp::Arch::new().dispatch(ScoreRows {
                rows: self,
                q,
                list: &list[range],
            })
        })
    }

    /// Heap bytes held (codes, scales and sign bits).
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.codes.len() + self.scales.len() * 4 + self.bits.len() * 8
    }
}

/// `part(range)` over `0..n`: one contiguous range per rayon thread (at least
/// [`ROWS_PER_PART`] rows each), results concatenated in row order.
fn in_parts<T: Send>(n: usize, part: impl Fn(std::ops::Range<usize>) -> Vec<T> + Sync) -> Vec<T> {
    in_parts_of(n, ROWS_PER_PART, part)
}

/// `part(range)` over `0..n`, split into one contiguous range per rayon
/// thread when each holds at least `min_part` items; the results are
/// concatenated in order, so the answer is the single-threaded one.
pub(crate) fn in_parts_of<T: Send>(
    n: usize,
    min_part: usize,
    part: impl Fn(std::ops::Range<usize>) -> Vec<T> + Sync,
) -> Vec<T> {
    use rayon::prelude::*;
    let parts = rayon::current_num_threads().min(n / min_part.max(1)).max(1);
    if parts == 1 {
        return part(0..n);
    }
    let per = n.div_ceil(parts);
    let pieces: Vec<Vec<T>> = (0..parts)
        .into_par_iter()
        .map(|p| part(p * per..((p + 1) * per).min(n)))
        .collect();
    let mut out = Vec::with_capacity(pieces.iter().map(Vec::len).sum());
    for piece in pieces {
        out.extend(piece);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(seed: u64, dim: usize) -> Vec<f32> {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut v: Vec<f32> = (0..dim)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 2001) as f32 / 1000.0 - 1.0
            })
            .collect();
        let n = v.iter().map(|a| a * a).sum::<f32>().sqrt();
        v.iter_mut().for_each(|a| *a /= n);
        v
    }

    #[test]
    fn approximate_dot_is_close_to_exact() {
        let dim = 384;
        let mut qv = QuantizedVectors::new(dim);
        let rows: Vec<Vec<f32>> = (0..200).map(|i| unit(i, dim)).collect();
        for r in &rows {
            qv.push(r);
        }
        assert_eq!(qv.len(), 200);
        assert_eq!(qv.bytes(), 200 * dim + 200 * 4 + 200 * 6 * 8);
        let q = unit(999, dim);
        let hits = qv.scan(&qv.query(&q), |_| true);
        assert_eq!(hits.len(), 200);
        for (sim, row) in hits {
            let exact: f32 = rows[row as usize].iter().zip(&q).map(|(a, b)| a * b).sum();
            assert!((sim - exact).abs() < 5e-3, "row {row}: {sim} vs {exact}");
        }
    }

    #[test]
    fn filter_truncate_and_zero_vectors() {
        let dim = 20; // not a multiple of 16: the tail path runs
        let mut qv = QuantizedVectors::new(dim);
        qv.push(&unit(1, dim));
        qv.push(&vec![0.0; dim]);
        qv.push(&unit(3, dim));
        let q = qv.query(&unit(1, dim));
        let hits = qv.scan(&q, |row| row != 2);
        assert_eq!(hits.iter().map(|h| h.1).collect::<Vec<_>>(), vec![0, 1]);
        assert!(
            (hits[0].0 - 1.0).abs() < 5e-3,
            "self-similarity {}",
            hits[0].0
        );
        assert_eq!(hits[1].0, 0.0);
        qv.truncate(1);
        assert_eq!(qv.len(), 1);
        assert_eq!(qv.scan(&q, |_| true).len(), 1);
    }

    #[test]
    fn a_scan_split_across_threads_returns_every_allowed_row_once() {
        let dim = 24;
        let n = 3 * ROWS_PER_PART + 17; // several parts on a multi-core pool, a ragged last one
        let mut qv = QuantizedVectors::new(dim);
        let rows: Vec<Vec<f32>> = (0..n as u64).map(|i| unit(i, dim)).collect();
        for r in &rows {
            qv.push(r);
        }
        let q = unit(7_777, dim);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .expect("pool");
        let mut hits = pool.install(|| qv.scan(&qv.query(&q), |row| row % 3 != 1));
        hits.sort_by_key(|h| h.1);
        let want: Vec<u32> = (0..n as u32).filter(|r| r % 3 != 1).collect();
        assert_eq!(hits.iter().map(|h| h.1).collect::<Vec<_>>(), want);
        for (sim, row) in hits {
            let exact: f32 = rows[row as usize].iter().zip(&q).map(|(a, b)| a * b).sum();
            assert!((sim - exact).abs() < 2e-2, "row {row}: {sim} vs {exact}");
        }
    }

    #[test]
    fn the_prefiltered_scan_scores_the_rows_nearest_in_sign_bits() {
        let dim = 70; // two words of sign bits, the second partial
        let n = 2 * ROWS_PER_PART + 5;
        let mut qv = QuantizedVectors::new(dim);
        let rows: Vec<Vec<f32>> = (0..n as u64).map(|i| unit(i, dim)).collect();
        for r in &rows {
            qv.push(r);
        }
        let qf = unit(4_242, dim);
        let q = qv.query(&qf);
        let allowed = |row: usize| row % 5 != 0;
        let full = qv.scan(&q, allowed);
        let keep = 1_000;
        let got = qv.scan_prefiltered(&q, allowed, keep);
        assert_eq!(got.len(), keep);
        // The kept rows are the `keep` smallest Hamming distances (by a naive count).
        let hamming = |r: &[f32]| -> u32 {
            r.iter()
                .zip(&qf)
                .map(|(a, b)| u32::from((*a > 0.0) != (*b > 0.0)))
                .sum()
        };
        let mut by_distance: Vec<(u32, u32)> = (0..n as u32)
            .filter(|&r| allowed(r as usize))
            .map(|r| (hamming(&rows[r as usize]), r))
            .collect();
        by_distance.sort_unstable();
        let cut = by_distance[keep - 1].0;
        let approx: std::collections::HashMap<u32, f32> =
            full.iter().map(|&(s, r)| (r, s)).collect();
        for &(sim, row) in &got {
            assert!(allowed(row as usize));
            assert!(
                hamming(&rows[row as usize]) <= cut,
                "row {row} beyond the cut"
            );
            assert_eq!(
                Some(&sim),
                approx.get(&row),
                "same int8 score as the full scan"
            );
        }
        let strictly_nearer = by_distance.iter().take_while(|d| d.0 < cut).count();
        let kept: std::collections::HashSet<u32> = got.iter().map(|g| g.1).collect();
        assert!(by_distance[..strictly_nearer]
            .iter()
            .all(|(_, r)| kept.contains(r)));
        // Fewer allowed rows than `keep`: all of them, as the full scan gives.
        let few = qv.scan_prefiltered(&q, |row| row < 300, keep);
        assert_eq!(few.len(), 300);
        assert!(qv.scan_prefiltered(&q, allowed, 0).is_empty());
        // The sign bits follow truncation.
        qv.truncate(10);
        assert_eq!(qv.scan_prefiltered(&q, |_| true, keep).len(), 10);
    }

    #[test]
    fn dot_i8_matches_naive() {
        for n in [0usize, 1, 15, 16, 17, 384] {
            let a: Vec<i8> = (0..n).map(|i| (i as i32 * 37 % 255 - 127) as i8).collect();
            let b: Vec<i8> = (0..n).map(|i| (i as i32 * 91 % 255 - 127) as i8).collect();
            let naive: i32 = a.iter().zip(&b).map(|(x, y)| *x as i32 * *y as i32).sum();
            assert_eq!(dot_i8(&a, &b), naive, "n={n}");
        }
    }
}
