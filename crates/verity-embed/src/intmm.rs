//! What the integer dense kernels share ([`crate::int8mm`], [`crate::int16mm`]):
//! the choice of path, the portable loop both check their SIMD kernels
//! against, and the loop that drives each kernel's register tile.

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

/// The portable integer product. `q` holds `rows` quantised input rows of
/// `kpad` values; `packed` the weights in panels of [`PANEL`] outputs ×
/// `GROUP`-input groups (per group, each output's `GROUP` weights in a row).
/// For each row and panel, `emit(row, first output, sums)` gets the exact
/// sums of the panel's `min(PANEL, out − first output)` outputs.
pub(crate) fn portable_sums<A, W, const GROUP: usize>(
    q: &[A],
    kpad: usize,
    packed: &[W],
    out: usize,
    mut emit: impl FnMut(usize, usize, &[i32]),
) where
    A: Copy + Into<i32>,
    W: Copy + Into<i32>,
{
    let groups = kpad / GROUP;
    let mut sums = [0i32; PANEL];
    for (r, qr) in q.chunks_exact(kpad.max(1)).enumerate() {
        for (p, panel) in packed.chunks_exact(groups * PANEL * GROUP).enumerate() {
            for (c, sum) in sums.iter_mut().enumerate() {
                *sum = (0..groups)
                    .map(|g| {
                        (0..GROUP)
                            .map(|t| {
                                qr[g * GROUP + t].into() * panel[(g * PANEL + c) * GROUP + t].into()
                            })
                            .sum::<i32>()
                    })
                    .sum();
            }
            let col = p * PANEL;
            emit(r, col, &sums[..PANEL.min(out - col)]);
        }
    }
}

/// One SIMD integer kernel's register tile (AVX2 or NEON), for [`each_tile`].
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) trait Tile: Copy {
    /// Rows in the block.
    fn rows(self) -> usize;
    /// Panels of [`PANEL`] outputs in the weights.
    fn panels(self) -> usize;
    /// Rows `r0..r0 + R` against panel `p`, scaled back into `y`.
    fn run<const R: usize>(self, r0: usize, p: usize, y: &mut [f32]);
}

/// [`each_tile`] as pulp's unit of work: `pulp::Simd::vectorize(simd,
/// OnAvx2 { tile, y })` compiles the whole loop with AVX2 enabled.
#[cfg(target_arch = "x86_64")]
pub(crate) struct OnAvx2<'y, T, const TILE: usize> {
    pub tile: T,
    pub y: &'y mut [f32],
}

#[cfg(target_arch = "x86_64")]
impl<T: Tile, const TILE: usize> pulp::WithSimd for OnAvx2<'_, T, TILE> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) {
        each_tile::<T, TILE>(self.tile, self.y);
    }
}

/// Every panel against every row of the block: `TILE` rows at a time, then
/// one at a time.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
pub(crate) fn each_tile<T: Tile, const TILE: usize>(tile: T, y: &mut [f32]) {
    let rows = tile.rows();
    for p in 0..tile.panels() {
        let mut r = 0;
        while r < rows {
            if r + TILE <= rows {
                tile.run::<TILE>(r, p, y);
                r += TILE;
            } else {
                tile.run::<1>(r, p, y);
                r += 1;
            }
        }
    }
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
        if std::env::var_os("VERITY_EMBED_SIMD").is_some() {
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
