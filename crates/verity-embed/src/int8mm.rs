//! Dense layers in 8-bit integers: three of the four dense layers of the
//! opt-in [`Precision::Int8`](crate::Precision) path (the fourth, the
//! feed-forward output, runs in 16-bit products: [`crate::int16mm`]).
//!
//! Weights are quantised once at load, per output feature (symmetric, ±127);
//! each pass quantises its input per token (asymmetric, 0–127 with a zero
//! point, so a row's range is used whole). Products accumulate exactly in
//! `i32` and are scaled back to `f32`; bias, activation and residual stay in
//! `f32` downstream.
//!
//! Smoothing ([`QuantLinear::quantize_smoothed`], after SmoothQuant, Xiao et
//! al. 2023): a few input features of a BERT layer (one of 384 in
//! all-MiniLM-L6-v2, up to 14× the median) set every token's range, so the
//! other features keep few of the 128 levels. Dividing input feature `j` by
//! `s_j = a_j^½ / w_j^½` (`a_j` its largest magnitude on calibration text,
//! `w_j` its largest weight) and multiplying the weights by `s_j` leaves the
//! product unchanged and shares the range between inputs and weights.
//! With every product in 8 bits, unsmoothed, the vectors' cosine to f32 was
//! 0.9970 mean / 0.9951 worst; smoothed, with QKV and the feed-forward
//! output in 16-bit products (`crate::bert`), 0.9997 / 0.9995
//! (docs/benchmarks.d/embed.md).
//!
//! Why 7-bit inputs: AVX2 has no 8-bit × 8-bit dot product without
//! saturation. `vpmaddubsw` multiplies unsigned by signed bytes and adds
//! pairs into `i16`; with inputs ≤ 127 a pair is at most 2 × 127 × 127 =
//! 32,258, which fits, so the sums are exact. The sign trick that allows
//! signed 8-bit inputs (255 levels) costs two more instructions per product:
//! 105–120 GFLOP/s against 143–166 for this form in a one-thread kernel
//! benchmark on the 2-core AVX2 EPYC, so inputs keep 128 levels. Whole
//! layer, 2,048 tokens, 2 threads (`examples/int8_kernel.rs`): 1.7–1.9× the
//! f32 `gemm` (docs/benchmarks.d/embed.md).
//!
//! Every CPU computes the same integers: the AVX2 kernel, the NEON kernel
//! (aarch64; checked under qemu by `scripts/test-aarch64.sh`, speed not
//! measured on aarch64 hardware) and the portable loop (`dot_rows_portable`,
//! any other CPU or `VERITY_EMBED_SIMD=baseline`) give bit-identical
//! accumulators, so vectors do not depend on the path.

use rayon::prelude::*;

use crate::intmm::{self, PANEL};

/// Input features per group (four bytes broadcast as one `i32`).
const GROUP: usize = 4;
/// Largest quantised input (7 bits: see the module doc).
const IN_MAX: f32 = 127.0;
/// Largest quantised weight magnitude.
const W_MAX: f32 = 127.0;
/// Tokens per parallel work item: their quantised rows (≤ 384 KB for
/// 1,536 inputs) stay in L2 while each 16-output panel is read from L1.
const ROW_BLOCK: usize = 256;

/// A dense weight `(out, in)` quantised to `i8` per output feature and
/// packed in 16-output panels of 4-input groups.
pub struct QuantLinear {
    out: usize,
    inp: usize,
    /// `inp` rounded up to a whole group.
    kpad: usize,
    /// `panels × groups × 64` bytes: per group, 16 outputs × 4 inputs.
    packed: Vec<i8>,
    /// Per output: the weight scale.
    scale: Vec<f32>,
    /// Per output: the sum of its quantised weights (zero-point correction).
    colsum: Vec<i32>,
    /// Per input: the factor each input feature is multiplied by before it
    /// is quantised (`1 / s_j`, see the module doc); empty when not smoothed.
    smooth: Vec<f32>,
}

impl QuantLinear {
    /// Quantise a row-major `(out, inp)` weight; `None` for a wrong shape or
    /// a non-finite weight.
    pub fn quantize(w: &[f32], out: usize, inp: usize) -> Option<Self> {
        if out == 0 || inp == 0 || w.len() != out * inp || w.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let kpad = inp.div_ceil(GROUP) * GROUP;
        let groups = kpad / GROUP;
        let panels = out.div_ceil(PANEL);
        let mut packed = vec![0i8; panels * groups * PANEL * GROUP];
        let mut scale = vec![1.0f32; out];
        let mut colsum = vec![0i32; out];
        for (j, row) in w.chunks_exact(inp).enumerate() {
            let max = row.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            let s = if max > 0.0 { max / W_MAX } else { 1.0 };
            scale[j] = s;
            let (p, c) = (j / PANEL, j % PANEL);
            for (k, v) in row.iter().enumerate() {
                let q = (v / s).round().clamp(-W_MAX, W_MAX) as i8;
                colsum[j] += i32::from(q);
                packed[(p * groups + k / GROUP) * PANEL * GROUP + c * GROUP + k % GROUP] = q;
            }
        }
        Some(Self {
            out,
            inp,
            kpad,
            packed,
            scale,
            colsum,
            smooth: Vec::new(),
        })
    }

    /// [`Self::quantize`] with smoothing: `act_max[j]` is the largest
    /// magnitude input feature `j` took on calibration text. `None` as for
    /// `quantize`, or when `act_max` has the wrong length or a non-finite value.
    pub fn quantize_smoothed(w: &[f32], out: usize, inp: usize, act_max: &[f32]) -> Option<Self> {
        if act_max.len() != inp || act_max.iter().any(|a| !a.is_finite()) || w.len() != out * inp {
            return None;
        }
        let mut w_max = vec![0.0f32; inp];
        for row in w.chunks_exact(inp) {
            for (m, v) in w_max.iter_mut().zip(row) {
                *m = m.max(v.abs());
            }
        }
        // s_j = sqrt(a_j / w_j): the migration strength ½ of SmoothQuant.
        let s: Vec<f32> = act_max
            .iter()
            .zip(&w_max)
            .map(|(&a, &m)| {
                let s = (a.abs() / m).sqrt();
                if s.is_finite() && s > 0.0 {
                    s
                } else {
                    1.0
                }
            })
            .collect();
        let scaled: Vec<f32> = w
            .chunks_exact(inp)
            .flat_map(|row| row.iter().zip(&s).map(|(v, s)| v * s))
            .collect();
        let mut lin = Self::quantize(&scaled, out, inp)?;
        lin.smooth = s.iter().map(|s| 1.0 / s).collect();
        Some(lin)
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
        // AMX reads whole tiles of 16 rows: the padding rows stay zero.
        let amx = crate::amx::tiles().filter(|_| self.kpad % crate::amx::K_STEP == 0);
        let padded = if amx.is_some() {
            rows.next_multiple_of(crate::amx::ROWS)
        } else {
            rows
        };
        let mut q = vec![0u8; padded * self.kpad];
        let mut scale = vec![0.0f32; rows];
        let mut zero = vec![0i32; rows];
        let mut smoothed = vec![0.0f32; if self.smooth.is_empty() { 0 } else { self.inp }];
        for (r, xr) in x.chunks_exact(self.inp).enumerate() {
            let xr = if smoothed.is_empty() {
                xr
            } else {
                for ((o, &v), &f) in smoothed.iter_mut().zip(xr).zip(&self.smooth) {
                    *o = v * f;
                }
                &smoothed
            };
            let (s, z) = quantize_row(xr, &mut q[r * self.kpad..r * self.kpad + self.inp]);
            scale[r] = s;
            zero[r] = z;
        }
        let block = Quantised {
            q: &q,
            rows,
            kpad: self.kpad,
            scale: &scale,
            zero: &zero,
        };
        if !amx.is_some_and(|amx| tile_rows(amx, &block, self, y)) {
            dot_rows(&block, self, y);
        }
    }

    /// Row `r`'s outputs from `col` on, from their exact integer sums.
    #[inline(always)]
    fn scale_back(&self, rows: &Quantised<'_>, r: usize, col: usize, sums: &[i32], y: &mut [f32]) {
        let (s, z) = (rows.scale[r], rows.zero[r]);
        let (at, n) = (r * self.out + col, sums.len());
        let outs = &mut y[at..at + n];
        let (w_scale, colsum) = (&self.scale[col..col + n], &self.colsum[col..col + n]);
        for k in 0..n {
            outs[k] = s * w_scale[k] * (sums[k] - z * colsum[k]) as f32;
        }
    }
}

/// A block of quantised input rows (`x ≈ scale · (q − zero)` per row).
struct Quantised<'a> {
    q: &'a [u8],
    rows: usize,
    /// Bytes per row.
    kpad: usize,
    scale: &'a [f32],
    zero: &'a [i32],
}

impl Quantised<'_> {
    fn row(&self, r: usize) -> &[u8] {
        &self.q[r * self.kpad..(r + 1) * self.kpad]
    }
}

/// Quantise one row to 0–127 over its range (widened to include 0), into
/// `q`; returns the scale and zero point (`x ≈ s · (q − z)`).
fn quantize_row(x: &[f32], q: &mut [u8]) -> (f32, i32) {
    let (lo, hi) = x
        .iter()
        .fold((0.0f32, 0.0f32), |(l, h), &v| (l.min(v), h.max(v)));
    let s = if hi > lo { (hi - lo) / IN_MAX } else { 1.0 };
    let z = (-lo / s).round().clamp(0.0, IN_MAX);
    // Rounding half up by truncating `+ 0.5` of a non-negative value:
    // `f32::round` is a libm call per element.
    let (inv, shift) = (1.0 / s, z + 0.5);
    for (o, &v) in q.iter_mut().zip(x) {
        *o = (v * inv + shift).clamp(0.0, IN_MAX) as u8;
    }
    (s, z as i32)
}

/// `rows · wᵀ` into `y` on AMX tiles, 16 rows at a time (`rows.q` holds
/// whole tiles of rows); `false`, with nothing written, when the shapes do
/// not fit the tiles.
fn tile_rows(amx: crate::amx::Amx, rows: &Quantised<'_>, w: &QuantLinear, y: &mut [f32]) -> bool {
    let (kpad, panels, tile) = (rows.kpad, w.out.div_ceil(PANEL), crate::amx::ROWS);
    let mut sums = vec![0i32; tile * panels * PANEL];
    for r0 in (0..rows.rows).step_by(tile) {
        let a = rows.q.get(r0 * kpad..).unwrap_or_default();
        if !amx.rows_u8_i8(a, kpad, &w.packed, panels, &mut sums) {
            return false;
        }
        let last = (r0 + tile).min(rows.rows);
        intmm::scale_tile(&sums, (r0, last), panels, w.out, |r, col, s| {
            w.scale_back(rows, r, col, s, y)
        });
    }
    true
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
    type In = u8;
    type W = i8;
    const GROUP: usize = GROUP;

    fn rows(&self) -> usize {
        self.rows.rows
    }

    fn outputs(&self) -> usize {
        self.w.out
    }

    #[inline(always)]
    fn row(&self, r: usize) -> &[u8] {
        self.rows.row(r)
    }

    #[inline(always)]
    fn panel(&self, p: usize) -> &[i8] {
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
        rows: [&[u8]; R],
        panel: &[i8],
    ) -> [[i32; PANEL]; R] {
        use pulp::bytemuck::cast;
        use pulp::{i16x16, i32x8, i8x32};
        let ones: i16x16 = simd.splat_i16x16(1);
        let zero: i32x8 = simd.splat_i32x8(0);
        let mut sums = [[zero; 2]; R];
        let rows: [&[[u8; GROUP]]; R] = rows.map(|r| pulp::as_arrays::<GROUP, u8>(r).0);
        let (weights, _) = pulp::as_arrays::<64, i8>(panel);
        for (g, w) in weights.iter().enumerate() {
            let (lo, hi) = pulp::as_arrays::<32, i8>(w).0.split_at(1);
            let w0: i8x32 = cast(lo[0]);
            let w1: i8x32 = cast(hi[0]);
            for (s, row) in sums.iter_mut().zip(rows.iter()) {
                let Some(&four) = row.get(g) else { continue };
                // Four unsigned inputs repeated across the register; the
                // instruction reads its first operand as unsigned bytes.
                let a: i8x32 = cast(simd.splat_i32x8(i32::from_le_bytes(four)));
                let p0 = simd.multiply_saturating_add_adjacent_i8x32(a, w0);
                let p1 = simd.multiply_saturating_add_adjacent_i8x32(a, w1);
                s[0] = simd
                    .wrapping_add_i32x8(s[0], simd.multiply_wrapping_add_adjacent_i16x16(p0, ones));
                s[1] = simd
                    .wrapping_add_i32x8(s[1], simd.multiply_wrapping_add_adjacent_i16x16(p1, ones));
            }
        }
        intmm::avx2_lanes(sums)
    }

    #[cfg(target_arch = "aarch64")]
    #[inline(always)]
    fn neon_sums<const R: usize>(
        simd: pulp::aarch64::Neon,
        rows: [&[u8]; R],
        panel: &[i8],
    ) -> [[i32; PANEL]; R] {
        use pulp::bytemuck::cast;
        use std::arch::aarch64::int8x16_t;
        let neon = simd.neon;
        // Per row, 8 registers: lanes hold (output, input pair) partial sums.
        let mut acc = [[neon.vdupq_n_s32(0); 8]; R];
        for (g, w) in panel.chunks_exact(PANEL * GROUP).enumerate() {
            // Register j: outputs 4j..4j + 4, four inputs each.
            let (w, _) = pulp::as_arrays::<16, i8>(w);
            let w: [int8x16_t; 4] = std::array::from_fn(|j| cast(w[j]));
            for (a, row) in acc.iter_mut().zip(&rows) {
                // Four inputs (0–127, so the same bits as `i8`) repeated
                // across the register.
                let four = [row[4 * g], row[4 * g + 1], row[4 * g + 2], row[4 * g + 3]];
                let x = neon.vreinterpretq_s8_u32(neon.vdupq_n_u32(u32::from_le_bytes(four)));
                let x_low = neon.vget_low_s8(x);
                for (j, &wj) in w.iter().enumerate() {
                    // Products (≤ 127 × 127) fit `i16`; pairs add into `i32`.
                    a[2 * j] =
                        neon.vpadalq_s16(a[2 * j], neon.vmull_s8(neon.vget_low_s8(wj), x_low));
                    a[2 * j + 1] = neon.vpadalq_s16(a[2 * j + 1], neon.vmull_high_s8(wj, x));
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

    /// `kernel`'s outputs against the portable loop's on random weights and
    /// inputs of the given shape (rows padded to whole AMX tiles).
    fn same_as_portable(
        mut seed: u64,
        (rows, inp, out): (usize, usize, usize),
        kernel: impl Fn(&Quantised<'_>, &QuantLinear, &mut [f32]),
    ) {
        let w: Vec<f32> = (0..out * inp).map(|_| lcg(&mut seed)).collect();
        let lin = QuantLinear::quantize(&w, out, inp).expect("shape");
        let mut q = vec![0u8; rows.next_multiple_of(crate::amx::ROWS) * lin.kpad];
        let (mut scale, mut zero) = (vec![0.0; rows], vec![0; rows]);
        for r in 0..rows {
            let x: Vec<f32> = (0..inp).map(|_| lcg(&mut seed) * 3.0).collect();
            (scale[r], zero[r]) = quantize_row(&x, &mut q[r * lin.kpad..r * lin.kpad + inp]);
        }
        let block = Quantised {
            q: &q,
            rows,
            kpad: lin.kpad,
            scale: &scale,
            zero: &zero,
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
    /// an odd number of panels, a partial panel.
    #[test]
    fn tiles_and_portable_give_the_same_outputs() {
        let Some(amx) = crate::amx::tiles() else {
            return;
        };
        same_as_portable(13, (37, 128, 40), |block, lin, y| {
            assert!(tile_rows(amx, block, lin, y));
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
        assert!(worst < 0.03 * norm, "worst error {worst} of {norm}");
        assert!(lin.forward(&x[1..], rows).is_none());
    }

    #[test]
    fn smoothing_keeps_the_product_and_tames_an_outlier_feature() {
        let mut seed = 5;
        let (rows, inp, out) = (32, 64, 24);
        let w: Vec<f32> = (0..out * inp).map(|_| lcg(&mut seed) * 0.1).collect();
        // Feature 3 is 40× the others, as a few features of a BERT layer are.
        let x: Vec<f32> = (0..rows * inp)
            .map(|i| lcg(&mut seed) * if i % inp == 3 { 40.0 } else { 1.0 })
            .collect();
        let mut act_max = vec![0.0f32; inp];
        for row in x.chunks_exact(inp) {
            for (m, v) in act_max.iter_mut().zip(row) {
                *m = m.max(v.abs());
            }
        }
        let error = |lin: &QuantLinear| -> f32 {
            let y = lin.forward(&x, rows).expect("length");
            let mut sq = 0.0f32;
            for r in 0..rows {
                for j in 0..out {
                    let exact: f32 = (0..inp).map(|k| x[r * inp + k] * w[j * inp + k]).sum();
                    sq += (exact - y[r * out + j]).powi(2);
                }
            }
            sq.sqrt()
        };
        let plain = QuantLinear::quantize(&w, out, inp).expect("shape");
        let smooth = QuantLinear::quantize_smoothed(&w, out, inp, &act_max).expect("shape");
        let (e_plain, e_smooth) = (error(&plain), error(&smooth));
        assert!(
            e_smooth < 0.5 * e_plain,
            "smoothed {e_smooth} vs plain {e_plain}"
        );
        // Bad calibration is refused; zero ranges leave a feature as it is.
        assert!(QuantLinear::quantize_smoothed(&w, out, inp, &act_max[1..]).is_none());
        let mut nan = act_max.clone();
        nan[0] = f32::NAN;
        assert!(QuantLinear::quantize_smoothed(&w, out, inp, &nan).is_none());
        let zeros = QuantLinear::quantize_smoothed(&w, out, inp, &vec![0.0; inp]).expect("shape");
        assert!(zeros.smooth.iter().all(|&f| f == 1.0));
    }

    #[test]
    fn bad_weights_are_refused() {
        assert!(QuantLinear::quantize(&[1.0, 2.0], 2, 2).is_none());
        assert!(QuantLinear::quantize(&[1.0, f32::NAN], 1, 2).is_none());
        let zero = QuantLinear::quantize(&[0.0; 8], 2, 4).expect("shape");
        assert_eq!(zero.forward(&[1.0; 8], 2), Some(vec![0.0; 4]));
    }
}
