//! Which instruction set the local embedder runs on this CPU.
//!
//! f32 matrix products run in the `gemm` crate's kernels, picked at run
//! time: AVX-512F, else AVX2+FMA, else NEON (aarch64), else portable code.
//! Verity's element-wise kernels (`fastmath`: GELU, softmax) are
//! dispatched the same way through `pulp`, and the int8 option's integer
//! products (`intmm`) take their AVX2 kernel or the portable loop.
//! `VERITY_EMBED_SIMD=baseline` forces the element-wise kernels and the
//! integer products to the architecture's baseline (SSE2 on x86-64) to
//! check that vectors do not depend on the path taken; the f32 products
//! always follow the CPU. The integer products run on AMX tiles where the
//! CPU has them (`crate::amx`); `VERITY_EMBED_SIMD=avx2` keeps them on the
//! AVX2 kernels (to compare the two).

use std::sync::OnceLock;

/// The widest kernel family the CPU offers the embedder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimdPath {
    /// x86-64 with AVX-512F.
    Avx512,
    /// x86-64 with AVX2 and FMA.
    Avx2Fma,
    /// aarch64 with NEON.
    Neon,
    /// Anything else: the architecture's baseline.
    Baseline,
}

impl std::fmt::Display for SimdPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Avx512 => "avx512f",
            Self::Avx2Fma => "avx2+fma",
            Self::Neon => "neon",
            Self::Baseline => "baseline",
        })
    }
}

/// The kernel family the matrix products use on this CPU.
pub fn simd_path() -> SimdPath {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return SimdPath::Avx512;
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return SimdPath::Avx2Fma;
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        if std::arch::is_aarch64_feature_detected!("neon") {
            return SimdPath::Neon;
        }
    }
    SimdPath::Baseline
}

/// The kernel family Verity's element-wise kernels use: [`simd_path`], or
/// [`SimdPath::Baseline`] when `VERITY_EMBED_SIMD=baseline` (read once).
pub fn elementwise_path() -> SimdPath {
    static PATH: OnceLock<SimdPath> = OnceLock::new();
    *PATH.get_or_init(|| {
        if crate::local::config::kernel_switches().baseline() {
            SimdPath::Baseline
        } else {
            simd_path()
        }
    })
}

/// How many times faster the 8-bit products embed a word piece than f32 on
/// this CPU (whole ingest, same word pieces, interleaved runs):
/// 1.23 on the AVX2 machine (median of 8, docs/benchmarks.d/embed.md), 1.47
/// with AMX tiles (600 SciFact abstracts, pooled sentence vectors both
/// sides, 2 pairs: wall ratio 0.68, docs/benchmarks.d/ingest.md).
pub fn int8_speedup() -> f64 {
    if crate::amx::tiles().is_some() {
        1.47
    } else {
        1.23
    }
}

/// A one-line description for reports: `"avx2+fma kernels, pre-packed panels
/// for short passes; int8 option (…): avx2 kernels"`.
pub fn kernel_note() -> String {
    let (mm, ew) = (simd_path(), elementwise_path());
    let mut note = if mm == ew {
        format!("{mm} kernels")
    } else {
        format!("{mm} matrix kernels, {ew} element-wise kernels (VERITY_EMBED_SIMD)")
    };
    if crate::smallmm::in_use() {
        note.push_str(", pre-packed panels for short passes");
    }
    let tiles = if crate::amx::tiles().is_some() {
        "amx tiles, else "
    } else {
        ""
    };
    note.push_str(&format!(
        "; int8 option (VERITY_EMBED_PRECISION=int8): {tiles}{}",
        crate::intmm::int_path()
    ));
    note
}
