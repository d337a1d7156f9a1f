//! Branch-free `erf` and `exp` for `f32`, and the element-wise kernels of the
//! packed encoder built on them.
//!
//! libm's `erff`/`expf` are scalar and branchy: in a profile of the packed
//! MiniLM encoder they took ~30 % of the time (GELU and softmax), more than
//! half as much as every matrix product together. The approximations below
//! are straight-line arithmetic that the compiler vectorises; the kernels are
//! run through [`pulp::Arch::dispatch`], which compiles their loops for the
//! widest instruction set the CPU has (AVX-512, AVX2+FMA, …) and picks one at
//! run time.
//!
//! Accuracy (tests below, against `f64` references): `erf` ≤ 5e-7 absolute (a few ulp near ±1),
//! `exp` ≤ 3 ulp relative over the range softmax uses.
// Published coefficients are kept verbatim, digits beyond f32 precision included.
#![allow(clippy::excessive_precision)]

/// `erf(x)`: the rational approximation Eigen and XLA use for `f32`
/// (odd polynomial of degree 13 over an even one of degree 8, on `x`
/// clamped to ±4, where `erf` is 1 to `f32` precision).
#[inline(always)]
pub(crate) fn erf(x: f32) -> f32 {
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let mut p = x2 * -2.726_142_3e-10 + 2.770_681_4e-8;
    p = x2 * p + -2.101_024e-6;
    p = x2 * p + -5.692_506_4e-5;
    p = x2 * p + -7.349_906_3e-4;
    p = x2 * p + -2.954_600e-3;
    p = x2 * p + -1.609_603_3e-2;
    p *= x;
    let mut q = x2 * -1.456_607_2e-5 + -2.133_740_6e-4;
    q = x2 * q + -1.682_827e-3;
    q = x2 * q + -7.373_329e-3;
    q = x2 * q + -1.426_474e-2;
    p / q
}

/// `exp(x)` (Cephes `expf`): `x = n ln 2 + r`, a degree-6 polynomial for
/// `e^r`, then `2^n` put straight into the exponent bits. `x` is clamped to
/// `[-87.3, 88.3]`, so tiny results come out as ~1e-38 instead of 0 and huge
/// ones saturate; softmax never gets near either end after subtracting its max.
#[inline(always)]
pub(crate) fn exp(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    // ln 2 split in two so that `n * LN2_HI` is exact.
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    let x = x.clamp(-87.3, 88.3);
    // Round to nearest with the 1.5 × 2^23 trick (no call to `floor`/`round`, which
    // are library calls when the loop is not compiled for SSE4.1 or later).
    const ROUND: f32 = 12_582_912.0;
    let n = (x * LOG2E + ROUND) - ROUND;
    let r = x - n * LN2_HI - n * LN2_LO;
    let mut p = 1.987_569_1e-4 * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 0.166_666_65;
    p = p * r + 0.5;
    let e_r = p * r * r + r + 1.0;
    // n ∈ [-126, 127] after the clamp, so n + 127 is a normal exponent. Adding 2^23 leaves
    // that integer in the low mantissa bits; shifting it into the exponent field builds 2^n
    // without a float→int conversion (which would not vectorise as well).
    let scale = f32::from_bits((n + (127.0 + 8_388_608.0)).to_bits() << 23);
    e_r * scale
}

/// GELU with the exact (erf) form BERT uses: `0.5 x (1 + erf(x / √2))`.
#[inline(always)]
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// `row = gelu(row + bias)` in place.
pub(crate) fn bias_gelu_in_place(row: &mut [f32], bias: &[f32]) {
    dispatch(BiasGeluInPlace { row, bias })
}

/// Run `op` for the CPU's best instruction set, or at the baseline when
/// forced ([`crate::simd::elementwise_path`]).
#[inline(always)]
fn dispatch<Op: pulp::WithSimd>(op: Op) -> Op::Output {
    if crate::simd::elementwise_path() == crate::simd::SimdPath::Baseline {
        op.with_simd(pulp::Scalar::new())
    } else {
        pulp::Arch::new().dispatch(op)
    }
}

struct BiasGeluInPlace<'a> {
    row: &'a mut [f32],
    bias: &'a [f32],
}

impl pulp::WithSimd for BiasGeluInPlace<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) {
        for (o, &b) in self.row.iter_mut().zip(self.bias) {
            *o = gelu(*o + b);
        }
    }
}

/// Reduce `xs` with `f` over 16 independent lanes, then across the lanes: the
/// same result as a sequential fold for `max`, and a tree-ordered sum for `+`,
/// which (unlike a strictly sequential fold) the compiler can vectorise.
#[inline(always)]
fn lanes_fold(xs: &[f32], init: f32, f: impl Fn(f32, f32) -> f32) -> f32 {
    const LANES: usize = 16;
    let mut acc = [init; LANES];
    let chunks = xs.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for (a, &x) in acc.iter_mut().zip(c) {
            *a = f(*a, x);
        }
    }
    let mut out = rest.iter().fold(init, |a, &x| f(a, x));
    for a in acc {
        out = f(out, a);
    }
    out
}

/// In-place softmax of each `row_len`-long row of `data` (max-subtracted).
pub(crate) fn softmax_rows(data: &mut [f32], row_len: usize) {
    if row_len > 0 {
        dispatch(SoftmaxRows { data, row_len })
    }
}

struct SoftmaxRows<'a> {
    data: &'a mut [f32],
    row_len: usize,
}

impl pulp::WithSimd for SoftmaxRows<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) {
        for row in self.data.chunks_exact_mut(self.row_len) {
            let max = lanes_fold(row, f32::NEG_INFINITY, f32::max);
            for v in row.iter_mut() {
                *v = exp(*v - max);
            }
            let inv = 1.0 / lanes_fold(row, 0.0, |a, b| a + b);
            for v in row.iter_mut() {
                *v *= inv;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn erf64(x: f64) -> f64 {
        // Abramowitz–Stegun 7.1.26 is too coarse for a reference; integrate instead:
        // erf(x) = 2/√π ∫0^x e^{-t²} dt, Simpson's rule with 4,000 steps (error < 1e-12).
        let n = 4000;
        let h = x / n as f64;
        let f = |t: f64| (-t * t).exp();
        let mut s = f(0.0) + f(x);
        for i in 1..n {
            let w = if i % 2 == 1 { 4.0 } else { 2.0 };
            s += w * f(i as f64 * h);
        }
        s * h / 3.0 * 2.0 / std::f64::consts::PI.sqrt()
    }

    #[test]
    fn erf_is_accurate_to_half_a_millionth() {
        let mut worst = 0.0f64;
        for i in -6000..=6000 {
            let x = i as f32 / 1000.0;
            let err = (erf(x) as f64 - erf64(x as f64)).abs();
            worst = worst.max(err);
        }
        assert!(worst < 5e-7, "worst absolute error {worst:e}");
        assert_eq!(erf(0.0), 0.0);
        assert_eq!(erf(-2.0), -erf(2.0));
    }

    #[test]
    fn exp_is_accurate_to_a_few_ulp() {
        let mut worst = 0.0f64;
        for i in -87_000..=88_000 {
            let x = i as f32 / 1000.0;
            let want = (x as f64).exp();
            let rel = ((exp(x) as f64 - want) / want).abs();
            worst = worst.max(rel);
        }
        assert!(
            worst < 3.0 * f32::EPSILON as f64,
            "worst relative error {worst:e}"
        );
        assert_eq!(exp(0.0), 1.0);
    }

    #[test]
    fn softmax_rows_sum_to_one_and_match_the_direct_formula() {
        let mut rows: Vec<f32> = (0..3 * 7)
            .map(|i| ((i * 37 % 11) as f32 - 5.0) * 1.7)
            .collect();
        let orig = rows.clone();
        softmax_rows(&mut rows, 7);
        for (row, x) in rows.chunks(7).zip(orig.chunks(7)) {
            let m = x.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b as f64));
            let z: f64 = x.iter().map(|&v| (v as f64 - m).exp()).sum();
            for (&p, &v) in row.iter().zip(x) {
                let want = (v as f64 - m).exp() / z;
                assert!((p as f64 - want).abs() < 1e-6, "{p} vs {want}");
            }
            let s: f32 = row.iter().sum();
            assert!((s - 1.0).abs() < 1e-5);
        }
    }

    #[test]
    fn bias_gelu_matches_the_erf_definition() {
        let x: Vec<f32> = (0..100).map(|i| i as f32 / 10.0 - 5.0).collect();
        let b = vec![0.25f32; 100];
        let mut out = x.clone();
        bias_gelu_in_place(&mut out, &b);
        for (&o, &x) in out.iter().zip(&x) {
            let v = (x + 0.25) as f64;
            let want = 0.5 * v * (1.0 + erf64(v / std::f64::consts::SQRT_2));
            assert!((o as f64 - want).abs() < 1e-6, "{o} vs {want}");
        }
    }
}
