//! Dense layers in 16-bit integer products: the opt-in
//! [`Precision::Int16`](crate::Precision) path.
//!
//! Weights are quantised once at load, per output feature, to ±511 (10
//! bits); each pass quantises its input per token, symmetrically, to ±2,047
//! (12 bits) or fewer when the layer is wide (below). Both are stored as
//! `i16`; `vpmaddwd` multiplies pairs of them and adds each pair into an
//! exact `i32`, so the sums are exact and the products are scaled back to
//! `f32` once per output. Bias, activation, residual, attention and layer
//! norms stay in `f32`.
//!
//! Why 16-bit products for some layers: AVX2's byte product (`vpmaddubsw`)
//! saturates unless one operand has 7 bits, and 7-bit inputs × 8-bit weights
//! in every layer moved all-MiniLM-L6-v2's vectors to cosine 0.997 mean /
//! 0.995 worst against f32, under the 0.999 the f32 engine is held to. The
//! word product is exact with 12-bit inputs × 10-bit weights (simulated:
//! 0.99995 mean with every layer in 16 bits). It costs more: one
//! `vpmaddwd` per 16 multiply–adds, which this kernel issues at about one
//! per cycle — 101 GFLOP/s on one core of the 2-core AVX2 EPYC, against 128
//! for the 8-bit kernel and 75 for f32 `gemm` (`examples/int8_kernel.rs`,
//! 2,048 tokens). So only the layers the vectors are most sensitive to use
//! it (`crate::bert`'s `QuantLayer`).
//!
//! Overflow: a sum of `k` products is at most `k · IN_MAX · W_MAX`; the input
//! range is narrowed per layer so that it stays under `i32::MAX` (2,047 up
//! to 2,053 inputs, e.g. 1,368 for BERT-base's 3,072).
//!
//! Every CPU computes the same integers: the AVX2 kernel, the NEON kernel
//! (aarch64; checked under qemu by `scripts/test-aarch64.sh`, speed not
//! measured on aarch64 hardware) and the portable loop (`dot_rows_portable`,
//! any other CPU or `VERITY_EMBED_SIMD=baseline`) give bit-identical
//! outputs, so vectors do not depend on the path.

use rayon::prelude::*;

use crate::intmm::{self, PANEL};

/// Input features per group (two `i16` broadcast as one `i32`).
const GROUP: usize = 2;
/// Largest quantised input magnitude (12 bits signed), before the overflow
/// bound narrows it.
const IN_MAX: i32 = 2047;
/// Largest quantised weight magnitude (10 bits signed).
const W_MAX: i32 = 511;
/// Tokens per parallel work item: their quantised rows (≤ 192 KB for
/// 1,536 inputs) stay in L2 while each panel streams past them.
const ROW_BLOCK: usize = 64;

/// A dense weight `(out, in)` quantised per output feature and packed in
/// 16-output panels of 2-input groups.
pub struct QuantLinear {
    out: usize,
    inp: usize,
    /// `inp` rounded up to a whole group.
    kpad: usize,
    /// The input range for this layer (≤ [`IN_MAX`], see the module doc).
    in_max: i32,
    /// `panels × groups × 32` values: per group, 16 outputs × 2 inputs.
    packed: Vec<i16>,
    /// Per output: the weight scale.
    scale: Vec<f32>,
    /// The weights as byte planes for AMX tiles, when this CPU has them.
    tiles: Option<(crate::amx::Amx, crate::amx::SplitWeights)>,
}

impl QuantLinear {
    /// Quantise a row-major `(out, inp)` weight; `None` for a wrong shape, a
    /// non-finite weight or a layer too wide for exact `i32` sums.
    pub fn quantize(w: &[f32], out: usize, inp: usize) -> Option<Self> {
        if out == 0 || inp == 0 || w.len() != out * inp || w.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let kpad = inp.div_ceil(GROUP) * GROUP;
        let bound = i64::from(i32::MAX) / (kpad as i64 * i64::from(W_MAX));
        let in_max = i32::try_from(bound.min(i64::from(IN_MAX))).ok()?;
        if in_max < 127 {
            return None;
        }
        let groups = kpad / GROUP;
        let panels = out.div_ceil(PANEL);
        let mut packed = vec![0i16; panels * groups * PANEL * GROUP];
        let mut scale = vec![1.0f32; out];
        for (j, row) in w.chunks_exact(inp).enumerate() {
            let max = row.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            let s = if max > 0.0 { max / W_MAX as f32 } else { 1.0 };
            scale[j] = s;
            let (p, c) = (j / PANEL, j % PANEL);
            for (k, v) in row.iter().enumerate() {
                let q = (v / s).round().clamp(-W_MAX as f32, W_MAX as f32) as i16;
                packed[(p * groups + k / GROUP) * PANEL * GROUP + c * GROUP + k % GROUP] = q;
            }
        }
        let tiles = crate::amx::tiles().map(|amx| {
            let at = |j: usize, k: usize| {
                packed[((j / PANEL) * groups + k / GROUP) * PANEL * GROUP
                    + (j % PANEL) * GROUP
                    + k % GROUP]
            };
            (amx, crate::amx::SplitWeights::new(out, inp, at))
        });
        Some(Self {
            out,
            inp,
            kpad,
            in_max,
            packed,
            scale,
            tiles,
        })
    }

    /// Output features.
    pub fn out_features(&self) -> usize {
        self.out
    }

    /// `x · wᵀ` for `tokens` rows of `inp` features, in `f32`; `None` when
    /// `x` has the wrong length.
    pub fn forward(&self, x: &[f32], tokens: usize) -> Option<Vec<f32>> {
        if x.len() != tokens * self.inp {
            return None;
        }
        let mut y = vec![0.0f32; tokens * self.out];
        // Short passes (a query) still use every thread.
        let block = tokens
            .div_ceil(rayon::current_num_threads().max(1))
            .clamp(4, ROW_BLOCK);
        y.par_chunks_mut(block * self.out)
            .zip(x.par_chunks(block * self.inp))
            .for_each(|(yb, xb)| self.block(xb, yb));
        Some(y)
    }

    /// One block of rows: quantise, multiply, scale back.
    fn block(&self, x: &[f32], y: &mut [f32]) {
        let rows = x.len() / self.inp;
        let mut q = vec![0i16; rows * self.kpad];
        let mut scale = vec![0.0f32; rows];
        for (r, xr) in x.chunks_exact(self.inp).enumerate() {
            scale[r] = quantize_row(
                xr,
                &mut q[r * self.kpad..r * self.kpad + self.inp],
                self.in_max,
            );
        }
        let block = Quantised {
            q: &q,
            rows,
            kpad: self.kpad,
            scale: &scale,
        };
        if !self.tile_rows(&block, y) {
            dot_rows(&block, self, y);
        }
    }

    /// `rows · wᵀ` into `y` on AMX tiles, 16 rows at a time, each input
    /// split into its byte planes (`crate::amx`); `false`, with nothing
    /// written, without tiles or when the shapes do not fit them.
    fn tile_rows(&self, rows: &Quantised<'_>, y: &mut [f32]) -> bool {
        let Some((amx, weights)) = &self.tiles else {
            return false;
        };
        let (tile, kpad, panels) = (crate::amx::ROWS, weights.kpad(), weights.panels());
        let (mut hi, mut lo) = (vec![0i8; tile * kpad], vec![0u8; tile * kpad]);
        let mut sums = vec![0i32; tile * panels * PANEL];
        for r0 in (0..rows.rows).step_by(tile) {
            // Rows past `last` (the last tile's padding) may hold the previous
            // tile's values: their sums are computed and never read.
            let last = (r0 + tile).min(rows.rows);
            for r in r0..last {
                let at = (r - r0) * kpad;
                let planes = hi[at..at + self.inp]
                    .iter_mut()
                    .zip(&mut lo[at..at + self.inp]);
                for ((h, l), &v) in planes.zip(rows.row(r)) {
                    (*h, *l) = crate::amx::split(v);
                }
            }
            let split = crate::amx::SplitRows {
                hi: &hi,
                lo: &lo,
                kpad,
            };
            if !amx.rows_split16(&split, weights, &mut sums) {
                return false;
            }
            intmm::scale_tile(&sums, (r0, last), panels, self.out, |r, col, s| {
                self.scale_back(rows, r, col, s, y)
            });
        }
        true
    }

    /// Row `r`'s outputs from `col` on, from their exact integer sums.
    #[inline(always)]
    fn scale_back(&self, rows: &Quantised<'_>, r: usize, col: usize, sums: &[i32], y: &mut [f32]) {
        let s = rows.scale[r];
        let (at, n) = (r * self.out + col, sums.len());
        let outs = &mut y[at..at + n];
        let w_scale = &self.scale[col..col + n];
        for k in 0..n {
            outs[k] = s * w_scale[k] * sums[k] as f32;
        }
    }
}

/// A block of quantised input rows (`x ≈ scale · q` per row).
struct Quantised<'a> {
    q: &'a [i16],
    rows: usize,
    /// Values per row.
    kpad: usize,
    scale: &'a [f32],
}

impl Quantised<'_> {
    fn row(&self, r: usize) -> &[i16] {
        &self.q[r * self.kpad..(r + 1) * self.kpad]
    }
}

/// Quantise one row symmetrically to `±in_max` into `q`; returns the scale
/// (`x ≈ s · q`).
fn quantize_row(x: &[f32], q: &mut [i16], in_max: i32) -> f32 {
    let max = x.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    let s = if max > 0.0 { max / in_max as f32 } else { 1.0 };
    let inv = 1.0 / s;
    for (o, &v) in q.iter_mut().zip(x) {
        *o = round_half_even(v * inv) as i16;
    }
    s
}

/// Round to the nearest integer, ties to even, for `|v| < 2²²`: adding and
/// subtracting 1.5 · 2²³ leaves no fraction bits. Plain IEEE arithmetic, so
/// it vectorises on any CPU and gives the same result on each (`f32::round`
/// is a libm call per element).
#[inline(always)]
fn round_half_even(v: f32) -> f32 {
    const MAGIC: f32 = 12_582_912.0;
    (v + MAGIC) - MAGIC
}

/// `rows · wᵀ` into `y` (`rows × out`, row-major) on the fastest path here.
fn dot_rows(rows: &Quantised<'_>, w: &QuantLinear, y: &mut [f32]) {
    intmm::dot_rows(Job { rows, w }, y);
}

/// The portable loop: the same integer sums as the SIMD kernels, scaled back
/// the same way.
#[cfg(test)]
fn dot_rows_portable(rows: &Quantised<'_>, w: &QuantLinear, y: &mut [f32]) {
    intmm::dot_rows_portable(Job { rows, w }, y);
}

/// A block of rows against one layer's weights ([`intmm::Product`]).
#[derive(Clone, Copy)]
struct Job<'a> {
    rows: &'a Quantised<'a>,
    w: &'a QuantLinear,
}

impl intmm::Product for Job<'_> {
    type In = i16;
    type W = i16;
    const GROUP: usize = GROUP;

    fn rows(&self) -> usize {
        self.rows.rows
    }

    fn outputs(&self) -> usize {
        self.w.out
    }

    #[inline(always)]
    fn row(&self, r: usize) -> &[i16] {
        self.rows.row(r)
    }

    #[inline(always)]
    fn panel(&self, p: usize) -> &[i16] {
        let len = self.rows.kpad / GROUP * PANEL * GROUP;
        &self.w.packed[p * len..(p + 1) * len]
    }

    #[inline(always)]
    fn scale_back(&self, r: usize, col: usize, sums: &[i32], y: &mut [f32]) {
        self.w.scale_back(self.rows, r, col, sums, y);
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn avx2_sums<const R: usize>(
        simd: pulp::x86::V3,
        rows: [&[i16]; R],
        panel: &[i16],
    ) -> [[i32; PANEL]; R] {
        use pulp::bytemuck::cast;
        use pulp::{i16x16, i32x8};
        let zero: i32x8 = simd.splat_i32x8(0);
        let mut sums = [[zero; 2]; R];
        let rows: [&[[i16; GROUP]]; R] = rows.map(|r| pulp::as_arrays::<GROUP, i16>(r).0);
        let (weights, _) = pulp::as_arrays::<32, i16>(panel);
        for (g, w) in weights.iter().enumerate() {
            let (lo, hi) = pulp::as_arrays::<16, i16>(w).0.split_at(1);
            let w0: i16x16 = cast(lo[0]);
            let w1: i16x16 = cast(hi[0]);
            for (s, row) in sums.iter_mut().zip(rows.iter()) {
                let Some(&pair) = row.get(g) else { continue };
                // Two inputs repeated across the register.
                let bits = (u32::from(pair[1] as u16) << 16) | u32::from(pair[0] as u16);
                let a: i16x16 = cast(simd.splat_i32x8(bits as i32));
                s[0] = simd
                    .wrapping_add_i32x8(s[0], simd.multiply_wrapping_add_adjacent_i16x16(a, w0));
                s[1] = simd
                    .wrapping_add_i32x8(s[1], simd.multiply_wrapping_add_adjacent_i16x16(a, w1));
            }
        }
        intmm::avx2_lanes(sums)
    }

    #[cfg(target_arch = "aarch64")]
    #[inline(always)]
    fn neon_sums<const R: usize>(
        simd: pulp::aarch64::Neon,
        rows: [&[i16]; R],
        panel: &[i16],
    ) -> [[i32; PANEL]; R] {
        use pulp::bytemuck::cast;
        use std::arch::aarch64::int16x8_t;
        let neon = simd.neon;
        // Per row, 8 registers: lanes hold (output, input parity) partial
        // sums, each under the whole sum's bound, so adding the pairs is exact.
        let mut acc = [[neon.vdupq_n_s32(0); 8]; R];
        for (g, w) in panel.chunks_exact(PANEL * GROUP).enumerate() {
            // Register j: outputs 4j..4j + 4, two inputs each.
            let (w, _) = pulp::as_arrays::<8, i16>(w);
            let w: [int16x8_t; 4] = std::array::from_fn(|j| cast(w[j]));
            for (a, row) in acc.iter_mut().zip(&rows) {
                // Two inputs repeated across the register.
                let bits = (u32::from(row[2 * g + 1] as u16) << 16) | u32::from(row[2 * g] as u16);
                let x = neon.vreinterpretq_s16_u32(neon.vdupq_n_u32(bits));
                let x_low = neon.vget_low_s16(x);
                for (j, &wj) in w.iter().enumerate() {
                    a[2 * j] = neon.vmlal_s16(a[2 * j], neon.vget_low_s16(wj), x_low);
                    a[2 * j + 1] = neon.vmlal_high_s16(a[2 * j + 1], wj, x);
                }
            }
        }
        intmm::neon_reduce(simd, acc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(seed: &mut u64) -> f32 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((*seed >> 33) as f32 / (1u64 << 31) as f32) * 2.0 - 1.0
    }

    fn quantised(lin: &QuantLinear, x: &[f32], rows: usize) -> (Vec<i16>, Vec<f32>) {
        let mut q = vec![0i16; rows * lin.kpad];
        let mut scale = vec![0.0; rows];
        for (r, xr) in x.chunks_exact(lin.inp).enumerate() {
            scale[r] = quantize_row(xr, &mut q[r * lin.kpad..r * lin.kpad + lin.inp], lin.in_max);
        }
        (q, scale)
    }

    /// `kernel`'s outputs against the portable loop's on random weights and
    /// inputs of the given shape.
    fn same_as_portable(
        mut seed: u64,
        (rows, inp, out): (usize, usize, usize),
        kernel: impl Fn(&Quantised<'_>, &QuantLinear, &mut [f32]),
    ) {
        let w: Vec<f32> = (0..out * inp).map(|_| lcg(&mut seed)).collect();
        let lin = QuantLinear::quantize(&w, out, inp).expect("shape");
        let x: Vec<f32> = (0..rows * inp).map(|_| lcg(&mut seed) * 3.0).collect();
        let (q, scale) = quantised(&lin, &x, rows);
        let block = Quantised {
            q: &q,
            rows,
            kpad: lin.kpad,
            scale: &scale,
        };
        let (mut a, mut b) = (vec![0.0; rows * out], vec![0.0; rows * out]);
        kernel(&block, &lin, &mut a);
        dot_rows_portable(&block, &lin, &mut b);
        assert_eq!(a, b);
        assert!(a.iter().any(|&v| v != 0.0));
    }

    /// Odd sizes: a partial panel, a partial group, a partial row tile.
    #[test]
    fn simd_and_portable_give_the_same_outputs() {
        same_as_portable(7, (7, 37, 21), dot_rows);
    }

    /// AMX tiles against the portable loop (where the CPU has them: the
    /// `amx` module's tests check that they are found): a partial row tile,
    /// inputs padded to the tiles' 64, a partial panel.
    #[test]
    fn tiles_and_portable_give_the_same_outputs() {
        if crate::amx::tiles().is_none() {
            return;
        }
        same_as_portable(17, (37, 37, 40), |block, lin, y| {
            assert!(lin.tile_rows(block, y));
        });
    }

    #[test]
    fn products_are_close_to_f32() {
        let mut seed = 11;
        let (rows, inp, out) = (37, 96, 40);
        let w: Vec<f32> = (0..out * inp).map(|_| lcg(&mut seed) * 0.1).collect();
        let x: Vec<f32> = (0..rows * inp)
            .map(|_| lcg(&mut seed) * 2.0 + 0.3)
            .collect();
        let lin = QuantLinear::quantize(&w, out, inp).expect("shape");
        let y = lin.forward(&x, rows).expect("length");
        let mut worst = 0.0f32;
        let mut norm = 0.0f32;
        for r in 0..rows {
            for j in 0..out {
                let exact: f32 = (0..inp).map(|k| x[r * inp + k] * w[j * inp + k]).sum();
                worst = worst.max((exact - y[r * out + j]).abs());
                norm = norm.max(exact.abs());
            }
        }
        // 12-bit inputs × 10-bit weights: ~16× closer than the 8-bit path's 3 %.
        assert!(worst < 0.002 * norm, "worst error {worst} of {norm}");
        assert!(lin.forward(&x[1..], rows).is_none());
    }

    #[test]
    fn wide_layers_narrow_the_input_range_and_never_overflow() {
        // 3,072 inputs (BERT-base's feed-forward output): 2,047 × 511 × 3,072
        // would overflow i32, so the range is narrowed.
        let (inp, out) = (3072, 16);
        let w = vec![1.0f32; out * inp];
        let lin = QuantLinear::quantize(&w, out, inp).expect("shape");
        assert!(lin.in_max < IN_MAX);
        assert!(i64::from(lin.in_max) * i64::from(W_MAX) * inp as i64 <= i64::from(i32::MAX));
        // Every input and weight at its largest: the exact sum, no wrap.
        let x = vec![1.0f32; inp];
        let y = lin.forward(&x, 1).expect("length");
        assert!(
            y.iter()
                .all(|&v| (v - inp as f32).abs() < 1e-3 * inp as f32),
            "{y:?}"
        );
        // Absurdly wide layers are refused rather than computed wrongly.
        assert!(QuantLinear::quantize(&vec![0.5; 40_000], 1, 40_000).is_none());
    }

    #[test]
    fn bad_weights_are_refused() {
        assert!(QuantLinear::quantize(&[1.0, 2.0], 2, 2).is_none());
        assert!(QuantLinear::quantize(&[1.0, f32::NAN], 1, 2).is_none());
        let zero = QuantLinear::quantize(&[0.0; 8], 2, 4).expect("shape");
        assert_eq!(zero.forward(&[1.0; 8], 2), Some(vec![0.0; 4]));
    }

    #[test]
    fn rounding_is_to_nearest_even() {
        let got: Vec<f32> = [0.5, 1.5, 2.5, -0.5, -1.5, 2.4, -2.6, 1023.5]
            .iter()
            .map(|&v| round_half_even(v))
            .collect();
        assert_eq!(got, [0.0, 2.0, 2.0, -0.0, -2.0, 2.0, -3.0, 1024.0]);
    }
}
