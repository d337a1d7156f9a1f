//! What the integer dense kernels share ([`crate::int8mm`], [`crate::int16mm`]):
//! the choice of path and the portable loop both check their AVX2 kernels against.

/// Outputs per panel of packed weights (two AVX2 registers of 8 `i32`).
pub(crate) const PANEL: usize = 16;

/// Whether the integer products run on AVX2 kernels here (else the portable
/// loop): x86-64 with AVX2, unless `VERITY_EMBED_SIMD=baseline`.
pub fn simd_in_use() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        avx2().is_some()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The AVX2 token when the integer kernels may run here.
#[cfg(target_arch = "x86_64")]
pub(crate) fn avx2() -> Option<pulp::x86::V3> {
    (crate::simd::elementwise_path() != crate::simd::SimdPath::Baseline)
        .then(pulp::x86::V3::try_new)
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

/// One AVX2 integer kernel's register tile, for [`each_tile`].
#[cfg(target_arch = "x86_64")]
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
#[cfg(target_arch = "x86_64")]
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
