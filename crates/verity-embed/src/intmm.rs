//! What the integer dense kernels share ([`crate::int8mm`], [`crate::int16mm`]).
//! Each of them implements [`Product`]: its quantised rows, packed weights,
//! scaling back, and the exact sums of a register tile on AVX2 and on NEON.
//! This module chooses the path ([`int_path`]), drives the tiles over a
//! block ([`dot_rows`]) and holds the portable loop every SIMD kernel is
//! checked against ([`dot_rows_portable`]).

/// Outputs per panel of packed weights (two AVX2 registers of 8 `i32`, four
/// NEON registers of 4).
pub(crate) const PANEL: usize = 16;

/// Which kernel the integer products take on this CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IntPath {
    /// x86-64 with AVX2.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Avx2,
    /// aarch64 (NEON is part of the architecture).
    #[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
    Neon,
    /// The portable loop: any other CPU, or `VERITY_EMBED_SIMD=baseline`.
    Portable,
}

impl std::fmt::Display for IntPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Avx2 => "avx2 kernels",
            Self::Neon => "neon kernels",
            Self::Portable => "portable loop",
        })
    }
}

/// The integer products' path here (every path computes the same integers).
pub(crate) fn int_path() -> IntPath {
    #[cfg(target_arch = "x86_64")]
    if avx2().is_some() {
        return IntPath::Avx2;
    }
    #[cfg(target_arch = "aarch64")]
    if neon().is_some() {
        return IntPath::Neon;
    }
    IntPath::Portable
}

/// The AVX2 token when the integer kernels may run here.
#[cfg(target_arch = "x86_64")]
pub(crate) fn avx2() -> Option<pulp::x86::V3> {
    (crate::simd::elementwise_path() != crate::simd::SimdPath::Baseline)
        .then(pulp::x86::V3::try_new)
        .flatten()
}

/// The NEON token when the integer kernels may run here: on every aarch64
/// CPU, unless `VERITY_EMBED_SIMD=baseline` asks for the portable loop.
#[cfg(target_arch = "aarch64")]
pub(crate) fn neon() -> Option<pulp::aarch64::Neon> {
    (crate::simd::elementwise_path() != crate::simd::SimdPath::Baseline)
        .then(pulp::aarch64::Neon::try_new)
        .flatten()
}

/// Register-tile heights, in rows of the block. AVX2: 4 rows × 16 outputs =
/// 8 accumulators; one thread, 2,048 tokens, the 16-bit kernel ran at the
/// same speed with 5 rows and at ~0.6× with 6 (accumulators spilled to the
/// stack). NEON: 2 rows × 16 outputs × 2 partial sums = 16 of its 32
/// registers; not measured on aarch64 hardware.
#[cfg(target_arch = "x86_64")]
const AVX2_TILE: usize = 4;
#[cfg(target_arch = "aarch64")]
const NEON_TILE: usize = 2;

/// One integer product over a block of quantised rows, as every path sees
/// it: the rows, the packed weights (panels of [`PANEL`] outputs ×
/// `GROUP`-input groups; per group, each output's `GROUP` weights in a row),
/// the scaling back to `f32`, and each architecture's exact sums for a tile
/// of rows against one panel. Implemented by [`crate::int8mm`] and
/// [`crate::int16mm`]; [`dot_rows`] drives it.
pub(crate) trait Product: Copy {
    /// A quantised input.
    type In: Copy + Into<i32>;
    /// A quantised weight.
    type W: Copy + Into<i32>;
    /// Inputs per group of the packed weights.
    const GROUP: usize;
    /// Rows in the block.
    fn rows(&self) -> usize;
    /// Output features.
    fn outputs(&self) -> usize;
    /// Row `r`'s quantised inputs (whole groups).
    fn row(&self, r: usize) -> &[Self::In];
    /// Panel `p` of the packed weights.
    fn panel(&self, p: usize) -> &[Self::W];
    /// Row `r`'s outputs from `col` on, from their exact sums.
    fn scale_back(&self, r: usize, col: usize, sums: &[i32], y: &mut [f32]);
    /// The exact sums of `R` rows against one panel, on AVX2.
    #[cfg(target_arch = "x86_64")]
    fn avx2_sums<const R: usize>(
        simd: pulp::x86::V3,
        rows: [&[Self::In]; R],
        panel: &[Self::W],
    ) -> [[i32; PANEL]; R];
    /// The exact sums of `R` rows against one panel, on NEON.
    #[cfg(target_arch = "aarch64")]
    fn neon_sums<const R: usize>(
        simd: pulp::aarch64::Neon,
        rows: [&[Self::In]; R],
        panel: &[Self::W],
    ) -> [[i32; PANEL]; R];
}

/// `rows · wᵀ` into `y` (`rows × outputs`, row-major) on the fastest path
/// here; every path computes the same integers.
pub(crate) fn dot_rows<P: Product>(job: P, y: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if let Some(simd) = avx2() {
        pulp::Simd::vectorize(simd, OnAvx2 { simd, job, y });
        return;
    }
    #[cfg(target_arch = "aarch64")]
    if let Some(simd) = neon() {
        each_tile::<P, _, NEON_TILE>(simd, job, y);
        return;
    }
    dot_rows_portable(job, y);
}

/// Hand the integer sums of one AMX tile (rows `r0..last`, each `panels`
/// panels of [`PANEL`] sums) to `scale_back(row, col, sums)` panel by panel,
/// the last panel cut at `outputs`.
pub(crate) fn scale_tile(
    sums: &[i32],
    (r0, last): (usize, usize),
    panels: usize,
    outputs: usize,
    mut scale_back: impl FnMut(usize, usize, &[i32]),
) {
    for r in r0..last {
        let row = &sums[(r - r0) * panels * PANEL..][..panels * PANEL];
        for (p, s) in row.chunks_exact(PANEL).enumerate() {
            let col = p * PANEL;
            scale_back(r, col, &s[..PANEL.min(outputs - col)]);
        }
    }
}

/// The portable loop: the integer sums the SIMD kernels are checked against,
/// scaled back the same way.
pub(crate) fn dot_rows_portable<P: Product>(job: P, y: &mut [f32]) {
    let group = P::GROUP;
    let mut sums = [0i32; PANEL];
    for r in 0..job.rows() {
        let qr = job.row(r);
        for p in 0..job.outputs().div_ceil(PANEL) {
            let panel = job.panel(p);
            let groups = panel.len() / (PANEL * group);
            for (c, sum) in sums.iter_mut().enumerate() {
                *sum = (0..groups)
                    .map(|g| {
                        (0..group)
                            .map(|t| {
                                qr[g * group + t].into() * panel[(g * PANEL + c) * group + t].into()
                            })
                            .sum::<i32>()
                    })
                    .sum();
            }
            let col = p * PANEL;
            job.scale_back(r, col, &sums[..PANEL.min(job.outputs() - col)], y);
        }
    }
}

/// An architecture's kernel for [`each_tile`]: its SIMD token.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
trait Kernel<P: Product>: Copy {
    fn sums<const R: usize>(self, rows: [&[P::In]; R], panel: &[P::W]) -> [[i32; PANEL]; R];
}

#[cfg(target_arch = "x86_64")]
impl<P: Product> Kernel<P> for pulp::x86::V3 {
    #[inline(always)]
    fn sums<const R: usize>(self, rows: [&[P::In]; R], panel: &[P::W]) -> [[i32; PANEL]; R] {
        P::avx2_sums(self, rows, panel)
    }
}

#[cfg(target_arch = "aarch64")]
impl<P: Product> Kernel<P> for pulp::aarch64::Neon {
    #[inline(always)]
    fn sums<const R: usize>(self, rows: [&[P::In]; R], panel: &[P::W]) -> [[i32; PANEL]; R] {
        P::neon_sums(self, rows, panel)
    }
}

/// [`each_tile`] as pulp's unit of work, so that the whole loop compiles
/// with AVX2 enabled.
#[cfg(target_arch = "x86_64")]
struct OnAvx2<'y, P> {
    simd: pulp::x86::V3,
    job: P,
    y: &'y mut [f32],
}

#[cfg(target_arch = "x86_64")]
impl<P: Product> pulp::WithSimd for OnAvx2<'_, P> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) {
        each_tile::<P, _, AVX2_TILE>(self.simd, self.job, self.y);
    }
}

/// Every panel against every row of the block: `TILE` rows at a time, then
/// one at a time.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
fn each_tile<P: Product, K: Kernel<P>, const TILE: usize>(kernel: K, job: P, y: &mut [f32]) {
    let rows = job.rows();
    for p in 0..job.outputs().div_ceil(PANEL) {
        let mut r = 0;
        while r < rows {
            if r + TILE <= rows {
                tile::<P, K, TILE>(kernel, job, r, p, y);
                r += TILE;
            } else {
                tile::<P, K, 1>(kernel, job, r, p, y);
                r += 1;
            }
        }
    }
}

/// Rows `r0..r0 + R` against panel `p`, scaled back into `y`.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
fn tile<P: Product, K: Kernel<P>, const R: usize>(
    kernel: K,
    job: P,
    r0: usize,
    p: usize,
    y: &mut [f32],
) {
    let rows: [&[P::In]; R] = std::array::from_fn(|i| job.row(r0 + i));
    let sums = kernel.sums(rows, job.panel(p));
    let col = p * PANEL;
    let n = PANEL.min(job.outputs() - col);
    for (i, s) in sums.iter().enumerate() {
        job.scale_back(r0 + i, col, &s[..n], y);
    }
}

/// Per row, the two AVX2 accumulators (outputs 0–7, 8–15) → the 16
/// outputs' sums.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn avx2_lanes<const R: usize>(sums: [[pulp::i32x8; 2]; R]) -> [[i32; PANEL]; R] {
    sums.map(|[lo, hi]| {
        let (lo, hi): ([i32; 8], [i32; 8]) = (pulp::cast(lo), pulp::cast(hi));
        std::array::from_fn(|k| if k < 8 { lo[k] } else { hi[k - 8] })
    })
}

/// Per row, 8 NEON registers of partial sums (registers `2j` and `2j + 1`
/// cover outputs `4j..4j + 4`, two partial sums per output) → the 16
/// outputs' sums.
#[cfg(target_arch = "aarch64")]
#[inline(always)]
pub(crate) fn neon_reduce<const R: usize>(
    simd: pulp::aarch64::Neon,
    acc: [[std::arch::aarch64::int32x4_t; 8]; R],
) -> [[i32; PANEL]; R] {
    let mut out = [[0i32; PANEL]; R];
    for (o, a) in out.iter_mut().zip(&acc) {
        for (j, four) in o.chunks_exact_mut(4).enumerate() {
            let sums: [i32; 4] = pulp::bytemuck::cast(simd.neon.vpaddq_s32(a[2 * j], a[2 * j + 1]));
            four.copy_from_slice(&sums);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernels' equality tests (`int8mm`, `int16mm`) compare the SIMD
    /// kernel with the portable loop: check that the SIMD kernel is the one
    /// running, so those tests cannot pass by comparing the loop with itself.
    #[test]
    fn the_simd_kernel_runs_where_the_cpu_has_one() {
        if crate::local::config::kernel_switches().simd_forced() {
            return;
        }
        #[cfg(target_arch = "aarch64")]
        assert_eq!(int_path(), IntPath::Neon);
        #[cfg(target_arch = "x86_64")]
        assert_eq!(
            int_path() == IntPath::Avx2,
            std::arch::is_x86_feature_detected!("avx2")
        );
        assert!(!int_path().to_string().is_empty());
    }
}
