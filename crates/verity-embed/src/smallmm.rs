//! Dense layers for a few tokens at a time: one query, a handful of short sentences.
//!
//! `gemm` packs the weight operand on every call. For a large batch that cost is
//! spread over thousands of tokens; for one 22-token query it was ~30 % of the
//! embedding time (`perf`, docs/benchmarks.d/embed.md, "Query embedding latency"),
//! and reading the weights unpacked in place is slower still (strided over every
//! column). [`PackedLinear`] packs each weight matrix **once**, at load, into
//! 16-output panels (for each input feature, the 16 weights of 16 consecutive
//! outputs, contiguous), so a pass streams the weights sequentially and a
//! 16 × 6 register tile (12 AVX2 accumulators) does all the multiply-adds.
//!
//! Used by the packed engine for passes of at most [`MAX_TOKENS`] tokens on
//! x86-64 CPUs with AVX2 + FMA (AVX-512 machines included); larger passes and
//! other CPUs keep `gemm`. The panels are a second copy of the encoder's dense
//! weights (~42 MB for all-MiniLM-L6-v2).

use rayon::prelude::*;

/// Outputs per panel.
const PANEL: usize = 16;
/// Tokens per register tile.
#[cfg(target_arch = "x86_64")]
const TILE: usize = 6;
/// How many 64-byte panel rows ahead the first tile prefetches.
#[cfg(target_arch = "x86_64")]
const PREFETCH_ROWS: usize = 16;
/// Passes with more tokens than this go to `gemm`, whose blocking suits large
/// inputs (a batch of texts). Measured one text per pass, 16 to 192 tokens:
/// the panels were faster at every length, by the ~8 ms gemm spends packing
/// (docs/benchmarks.d/embed.md); longer passes were not measured.
pub(crate) const MAX_TOKENS: usize = 192;

/// Whether the packed engine packs its weights for short passes: on unless
/// `VERITY_EMBED_PANELS=off` (read once; for comparisons and to rule the
/// panels out when investigating a difference).
fn enabled() -> bool {
    crate::local::config::kernel_switches().panels()
}

/// A dense weight `(out, in)` pre-packed in 16-output panels.
pub(crate) struct PackedLinear {
    inp: usize,
    out: usize,
    /// `panels × inp × PANEL`; missing outputs of the last panel are zeros.
    /// (Only x86-64 packs panels: elsewhere `pack` returns `None`.)
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    panels: Vec<f32>,
}

impl PackedLinear {
    /// Pack a row-major `(out, inp)` weight; `None` when the panels are not
    /// [`in_use`] here (the caller keeps `gemm`) or the shape is wrong.
    pub(crate) fn pack(w: &[f32], out: usize, inp: usize) -> Option<Self> {
        if !in_use() || out == 0 || inp == 0 || w.len() != out * inp {
            return None;
        }
        let n_panels = out.div_ceil(PANEL);
        let mut panels = vec![0.0f32; n_panels * inp * PANEL];
        for (j, row) in w.chunks_exact(inp).enumerate() {
            let (p, c) = (j / PANEL, j % PANEL);
            let base = p * inp * PANEL + c;
            for (k, &v) in row.iter().enumerate() {
                panels[base + k * PANEL] = v;
            }
        }
        Some(Self { inp, out, panels })
    }

    pub(crate) fn out_features(&self) -> usize {
        self.out
    }

    /// `x · Wᵀ` for a row-major `(tokens, in)` input: a row-major `(tokens, out)`
    /// result. The panels are split across the rayon pool's threads.
    pub(crate) fn forward(&self, x: &[f32], tokens: usize) -> Option<Vec<f32>> {
        if x.len() != tokens * self.inp {
            return None;
        }
        let n_panels = self.out.div_ceil(PANEL);
        let groups = rayon::current_num_threads().clamp(1, n_panels);
        let per = n_panels.div_ceil(groups);
        let blocks: Vec<(usize, Vec<f32>)> = (0..groups)
            .into_par_iter()
            .map(|g| {
                let (p0, p1) = (g * per, ((g + 1) * per).min(n_panels));
                let mut block = vec![0.0f32; tokens * (p1.saturating_sub(p0)) * PANEL];
                if p1 > p0 {
                    self.panels_into(x, tokens, p0, p1, &mut block);
                }
                (p0, block)
            })
            .collect();
        let mut y = vec![0.0f32; tokens * self.out];
        for (p0, block) in blocks {
            let width = block.len() / tokens.max(1);
            let c0 = p0 * PANEL;
            let keep = width.min(self.out.saturating_sub(c0));
            for (t, src) in block.chunks_exact(width.max(1)).enumerate() {
                y[t * self.out + c0..t * self.out + c0 + keep].copy_from_slice(&src[..keep]);
            }
        }
        Some(y)
    }

    /// Panels `p0..p1` into `block`, a row-major `(tokens, (p1 - p0) · PANEL)` matrix.
    fn panels_into(&self, x: &[f32], tokens: usize, p0: usize, p1: usize, block: &mut [f32]) {
        #[cfg(target_arch = "x86_64")]
        if let Some(simd) = pulp::x86::V3::try_new() {
            pulp::Simd::vectorize(
                simd,
                Panels {
                    simd,
                    lin: self,
                    x,
                    tokens,
                    p0,
                    p1,
                    block,
                },
            );
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (x, tokens, p0, p1, block);
    }
}

/// Whether short passes run on the panels here: the CPU has the fast path and
/// `VERITY_EMBED_PANELS` does not turn them off.
pub(crate) fn in_use() -> bool {
    enabled() && available()
}

/// Whether this CPU runs the panels (x86-64 with AVX2 + FMA).
fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        pulp::x86::V3::try_new().is_some()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(target_arch = "x86_64")]
struct Panels<'a> {
    simd: pulp::x86::V3,
    lin: &'a PackedLinear,
    x: &'a [f32],
    tokens: usize,
    p0: usize,
    p1: usize,
    block: &'a mut [f32],
}

#[cfg(target_arch = "x86_64")]
impl pulp::WithSimd for Panels<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) {
        let Self {
            simd,
            lin,
            x,
            tokens,
            p0,
            p1,
            block,
        } = self;
        let (inp, width) = (lin.inp, (p1 - p0) * PANEL);
        for p in p0..p1 {
            let panel = &lin.panels[p * inp * PANEL..(p + 1) * inp * PANEL];
            let col = (p - p0) * PANEL;
            let mut t = 0;
            while t < tokens {
                let n = (tokens - t).min(TILE);
                let tile = Tile {
                    simd,
                    panel,
                    x,
                    inp,
                    t0: t,
                    col,
                    width,
                };
                match n {
                    6 => tile.run::<6>(block),
                    5 => tile.run::<5>(block),
                    4 => tile.run::<4>(block),
                    3 => tile.run::<3>(block),
                    2 => tile.run::<2>(block),
                    _ => tile.run::<1>(block),
                }
                t += n;
            }
        }
    }
}

/// One 16-output × `T`-token tile of a pass.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Tile<'a> {
    simd: pulp::x86::V3,
    panel: &'a [f32],
    x: &'a [f32],
    inp: usize,
    t0: usize,
    col: usize,
    width: usize,
}

#[cfg(target_arch = "x86_64")]
impl Tile<'_> {
    #[inline(always)]
    fn run<const T: usize>(self, block: &mut [f32]) {
        use pulp::f32x8;
        let simd = self.simd;
        let zero = simd.splat_f32x8(0.0);
        let mut acc = [[zero; 2]; T];
        let rows: [&[f32]; T] = std::array::from_fn(|i| {
            &self.x[(self.t0 + i) * self.inp..(self.t0 + i + 1) * self.inp]
        });
        let (weights, _) = pulp::as_arrays::<PANEL, f32>(self.panel);
        // The first tile of a panel streams it from memory: ask for the
        // weights a kilobyte ahead (the panels are contiguous, so past the
        // end of this one is the next one's start; a prefetch never faults).
        let ahead = self.panel.as_ptr().wrapping_add(PREFETCH_ROWS * PANEL);
        for (k, w) in weights.iter().enumerate() {
            if self.t0 == 0 {
                simd.sse
                    ._mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
                        ahead.wrapping_add(k * PANEL).cast(),
                    );
            }
            let (lo, hi) = pulp::as_arrays::<8, f32>(w).0.split_at(1);
            let w0: f32x8 = pulp::bytemuck::cast(lo[0]);
            let w1: f32x8 = pulp::bytemuck::cast(hi[0]);
            for (a, row) in acc.iter_mut().zip(rows.iter()) {
                let b = simd.splat_f32x8(row[k]);
                a[0] = simd.mul_add_f32x8(w0, b, a[0]);
                a[1] = simd.mul_add_f32x8(w1, b, a[1]);
            }
        }
        for (i, a) in acc.iter().enumerate() {
            let at = (self.t0 + i) * self.width + self.col;
            let lo: [f32; 8] = pulp::bytemuck::cast(a[0]);
            let hi: [f32; 8] = pulp::bytemuck::cast(a[1]);
            block[at..at + 8].copy_from_slice(&lo);
            block[at + 8..at + PANEL].copy_from_slice(&hi);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `x · Wᵀ` the obvious way, in f64.
    fn reference(w: &[f32], out: usize, inp: usize, x: &[f32], tokens: usize) -> Vec<f32> {
        let mut y = vec![0.0f32; tokens * out];
        for t in 0..tokens {
            for j in 0..out {
                let s: f64 = (0..inp)
                    .map(|k| f64::from(x[t * inp + k]) * f64::from(w[j * inp + k]))
                    .sum();
                y[t * out + j] = s as f32;
            }
        }
        y
    }

    /// Deterministic values in [-1, 1) from a small LCG.
    fn values(n: usize, seed: u64) -> Vec<f32> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
            })
            .collect()
    }

    #[test]
    fn panels_equal_the_plain_product_for_ragged_shapes() {
        if !in_use() {
            eprintln!("skipped: no AVX2 + FMA on this CPU, or VERITY_EMBED_PANELS=off");
            return;
        }
        // Outputs not a multiple of 16, tokens not a multiple of 6, one token, many.
        for &(out, inp, tokens) in &[(37, 29, 1), (16, 8, 6), (50, 384, 13), (1536, 384, 22)] {
            let w = values(out * inp, out as u64);
            let x = values(tokens * inp, inp as u64 + 7);
            let lin = PackedLinear::pack(&w, out, inp).expect("packs");
            assert_eq!(lin.out_features(), out);
            let y = lin.forward(&x, tokens).expect("shapes agree");
            let want = reference(&w, out, inp, &x, tokens);
            assert_eq!(y.len(), want.len());
            for (i, (a, b)) in y.iter().zip(&want).enumerate() {
                assert!(
                    (a - b).abs() <= 1e-4 * (1.0 + b.abs()),
                    "{out}x{inp}, {tokens} tokens, at {i}: {a} vs {b}"
                );
            }
        }
    }

    #[test]
    fn wrong_shapes_are_refused_not_read_out_of_bounds() {
        assert!(PackedLinear::pack(&[1.0; 6], 4, 2).is_none());
        if let Some(lin) = PackedLinear::pack(&[1.0; 8], 4, 2) {
            assert!(lin.forward(&[1.0; 5], 3).is_none());
            assert_eq!(lin.forward(&[1.0, 2.0], 1), Some(vec![3.0; 4]));
        }
    }
}
