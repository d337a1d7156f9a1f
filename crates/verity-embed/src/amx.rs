//! Intel AMX tile products for the integer dense layers ([`crate::int8mm`],
//! [`crate::int16mm`]), on x86-64 Linux CPUs with AMX-INT8 (Sapphire Rapids
//! and later).
//!
//! A tile multiply (`tdpbusd` and its three sign variants) takes 16 rows of
//! 64 bytes of input and 16 groups of 4 inputs × 16 outputs of weights — the
//! exact layout of one 64-input stretch of a packed weight panel — and adds
//! the 16 × 16 exact `i32` sums into a tile register: 16,384 multiply–adds
//! per instruction. Measured on the 2-core Xeon this was written on: ~4,100
//! GOP/s on one core in a register-resident loop, against ~130 GFLOP/s for
//! the AVX2 byte kernel (`crate::int8mm`'s module doc), so the dense layers
//! stop being where the embedder spends its time.
//!
//! The sums are exact, as in every other path, so the vectors are
//! bit-identical to the AVX2, NEON and portable paths (tests below and in
//! both product modules). The 16-bit products run as four byte products:
//! with `x = 256·xₕ + xₗ` (`xₗ` unsigned, `xₕ` signed) and the same for the
//! weight, `Σ x·w = 65,536·Σ xₕwₕ + 256·(Σ xₕwₗ + Σ xₗwₕ) + Σ xₗwₗ`, each sum
//! exact in `i32`, combined with wrapping arithmetic (the whole sum fits,
//! `crate::int16mm`'s overflow bound).
//!
//! Linux gives a process the AMX state only on request
//! (`arch_prctl(ARCH_REQ_XCOMP_PERM)`); [`tiles`] asks once and falls back to
//! the AVX2 kernels when the CPU, the kernel or `VERITY_EMBED_SIMD` (`avx2`,
//! `baseline`) says no. Each call configures the tile registers on its own
//! thread and releases them on return.
#![allow(unsafe_code)]

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
use std::arch::asm;
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
use std::sync::OnceLock;

/// Rows per tile.
pub(crate) const ROWS: usize = 16;
/// Bytes of input per tile row (64 inputs of one byte).
pub(crate) const K_STEP: usize = 64;
/// Outputs per weight panel (one tile's columns of `i32`).
const PANEL: usize = crate::intmm::PANEL;

/// Proof that AMX tiles may run in this process (see [`tiles`]); never
/// built on other targets.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Amx(());

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
impl Amx {
    pub(crate) fn rows_u8_i8(self, _: &[u8], _: usize, _: &[i8], _: usize, _: &mut [i32]) -> bool {
        false
    }

    pub(crate) fn rows_split16(self, _: &SplitRows<'_>, _: &SplitWeights, _: &mut [i32]) -> bool {
        false
    }
}

/// AMX, when this CPU and kernel offer it and `VERITY_EMBED_SIMD` does not
/// ask for `avx2` or `baseline` kernels (checked and requested once).
pub(crate) fn tiles() -> Option<Amx> {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    {
        static USABLE: OnceLock<bool> = OnceLock::new();
        USABLE.get_or_init(detect).then_some(Amx(()))
    }
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
    None
}

/// Whether the CPU has AMX-TILE and AMX-INT8 (CPUID leaf 7), whatever the
/// kernel or the environment allow.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
pub(crate) fn cpu_has_amx() -> bool {
    // Leaf 0 reports the largest leaf: leaf 7 only when it exists.
    if std::arch::x86_64::__cpuid(0).eax < 7 {
        return false;
    }
    let edx = std::arch::x86_64::__cpuid_count(7, 0).edx;
    edx & (1 << 24) != 0 && edx & (1 << 25) != 0
}

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn detect() -> bool {
    !crate::local::config::kernel_switches().tiles_refused()
        && cpu_has_amx()
        && request_permission()
}

/// `arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`, then check the
/// permission bits: without them the first tile instruction would fault.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn request_permission() -> bool {
    const ARCH_GET_XCOMP_PERM: libc::c_long = 0x1022;
    const ARCH_REQ_XCOMP_PERM: libc::c_long = 0x1023;
    const XFEATURE_XTILEDATA: libc::c_long = 18;
    // SAFETY: a plain system call with an integer argument; it changes only
    // which register state the kernel saves for this process.
    let asked = unsafe {
        libc::syscall(
            libc::SYS_arch_prctl,
            ARCH_REQ_XCOMP_PERM,
            XFEATURE_XTILEDATA,
        )
    };
    if asked != 0 {
        return false;
    }
    let mut granted: u64 = 0;
    // SAFETY: the kernel writes one u64 through the pointer, which is valid.
    let read = unsafe {
        libc::syscall(
            libc::SYS_arch_prctl,
            ARCH_GET_XCOMP_PERM,
            &mut granted as *mut u64,
        )
    };
    read == 0 && granted & (1 << XFEATURE_XTILEDATA) != 0
}

/// The tile configuration: palette 1, all eight tiles 16 rows × 64 bytes.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[repr(C, align(64))]
struct Config([u8; 64]);

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
impl Config {
    fn full() -> Self {
        let mut c = [0u8; 64];
        c[0] = 1;
        for t in 0..8 {
            c[16 + 2 * t..18 + 2 * t].copy_from_slice(&(K_STEP as u16).to_le_bytes());
            c[48 + t] = ROWS as u8;
        }
        Config(c)
    }
}

/// The tile registers configured on this thread for the lifetime of the
/// value; released on drop.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
struct Configured;

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
impl Configured {
    fn new() -> Self {
        let config = Config::full();
        // SAFETY: `tiles` checked the CPU and got the kernel's permission;
        // the configuration is 64 valid, aligned bytes.
        unsafe { asm!("ldtilecfg [{0}]", in(reg) config.0.as_ptr(), options(nostack, readonly)) };
        Configured
    }
}

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
impl Drop for Configured {
    fn drop(&mut self) {
        // SAFETY: tiles are configured on this thread (`Configured::new`).
        unsafe { asm!("tilerelease", options(nostack, nomem)) };
    }
}

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
impl Amx {
    /// The sums of 16 rows of unsigned bytes (`a`, row `r` at `r · kpad`)
    /// against every panel of signed byte weights (`b`, packed as in
    /// [`crate::int8mm`]: panel `p` at `p · kpad · 16`, then per group of 4
    /// inputs, 16 outputs × 4 weights), into `sums` (16 rows × `panels · 16`,
    /// row-major). `false`, with nothing written, when a shape does not fit
    /// (`kpad` not a whole number of 64-byte steps, short slices).
    pub(crate) fn rows_u8_i8(
        self,
        a: &[u8],
        kpad: usize,
        b: &[i8],
        panels: usize,
        sums: &mut [i32],
    ) -> bool {
        if !fits(a.len(), kpad, b.len(), panels, sums.len()) {
            return false;
        }
        let _tiles = Configured::new();
        let out_stride = panels * PANEL * 4;
        let mut p = 0;
        while p < panels {
            let two = p + 2 <= panels;
            let b0 = b[p * kpad * PANEL..].as_ptr();
            let b1 = if two {
                b[(p + 1) * kpad * PANEL..].as_ptr()
            } else {
                b0
            };
            // SAFETY: `fits` checked that every tile load below reads inside
            // `a` and `b` (16 rows × 64 bytes at the offsets used) and that
            // the stores write inside `sums`; tiles are configured.
            unsafe {
                asm!("tilezero tmm0", "tilezero tmm1", options(nostack, nomem));
                for step in 0..kpad / K_STEP {
                    let (ka, kb) = (step * K_STEP, step * K_STEP * ROWS);
                    asm!(
                        "tileloadd tmm2, [{a} + {sa}*1]",
                        "tileloadd tmm3, [{b0} + {sb}*1]",
                        "tdpbusd tmm0, tmm2, tmm3",
                        "tileloadd tmm4, [{b1} + {sb}*1]",
                        "tdpbusd tmm1, tmm2, tmm4",
                        a = in(reg) a.as_ptr().add(ka),
                        sa = in(reg) kpad,
                        b0 = in(reg) b0.add(kb),
                        b1 = in(reg) b1.add(kb),
                        sb = in(reg) K_STEP,
                        options(nostack, readonly),
                    );
                }
                let c = sums.as_mut_ptr().add(p * PANEL);
                asm!("tilestored [{c} + {s}*1], tmm0", c = in(reg) c, s = in(reg) out_stride, options(nostack));
                if two {
                    let c = c.add(PANEL);
                    asm!("tilestored [{c} + {s}*1], tmm1", c = in(reg) c, s = in(reg) out_stride, options(nostack));
                }
            }
            p += if two { 2 } else { 1 };
        }
        true
    }

    /// The sums of 16 rows of 16-bit inputs against 16-bit weights, each
    /// given as its high (signed) and low (unsigned) bytes in the layout of
    /// [`Self::rows_u8_i8`]; see the module doc for the recombination.
    /// `false`, with nothing written, when a shape does not fit.
    pub(crate) fn rows_split16(
        self,
        a: &SplitRows<'_>,
        b: &SplitWeights,
        sums: &mut [i32],
    ) -> bool {
        let (kpad, panels) = (b.kpad, b.panels);
        if a.kpad != kpad
            || a.hi.len() != a.lo.len()
            || b.hi.len() != b.lo.len()
            || !fits(a.hi.len(), kpad, b.hi.len(), panels, sums.len())
        {
            return false;
        }
        let _tiles = Configured::new();
        let mut parts = [[0i32; ROWS * PANEL]; 3];
        for p in 0..panels {
            let (bh, bl) = (
                b.hi[p * kpad * PANEL..].as_ptr(),
                b.lo[p * kpad * PANEL..].as_ptr(),
            );
            // SAFETY: as in `rows_u8_i8` (`fits` over the planes, which have
            // equal lengths); `parts` holds three 16 × 16 tiles.
            unsafe {
                asm!(
                    "tilezero tmm0",
                    "tilezero tmm1",
                    "tilezero tmm2",
                    options(nostack, nomem)
                );
                for step in 0..kpad / K_STEP {
                    let (ka, kb) = (step * K_STEP, step * K_STEP * ROWS);
                    asm!(
                        "tileloadd tmm3, [{ah} + {sa}*1]",
                        "tileloadd tmm4, [{al} + {sa}*1]",
                        "tileloadd tmm5, [{bh} + {sb}*1]",
                        "tileloadd tmm6, [{bl} + {sb}*1]",
                        "tdpbssd tmm0, tmm3, tmm5",
                        "tdpbsud tmm1, tmm3, tmm6",
                        "tdpbusd tmm1, tmm4, tmm5",
                        "tdpbuud tmm2, tmm4, tmm6",
                        ah = in(reg) a.hi.as_ptr().add(ka),
                        al = in(reg) a.lo.as_ptr().add(ka),
                        sa = in(reg) kpad,
                        bh = in(reg) bh.add(kb),
                        bl = in(reg) bl.add(kb),
                        sb = in(reg) K_STEP,
                        options(nostack, readonly),
                    );
                }
                let s = PANEL * 4;
                asm!(
                    "tilestored [{c0} + {s}*1], tmm0",
                    "tilestored [{c1} + {s}*1], tmm1",
                    "tilestored [{c2} + {s}*1], tmm2",
                    c0 = in(reg) parts[0].as_mut_ptr(),
                    c1 = in(reg) parts[1].as_mut_ptr(),
                    c2 = in(reg) parts[2].as_mut_ptr(),
                    s = in(reg) s,
                    options(nostack),
                );
            }
            for r in 0..ROWS {
                let out = &mut sums[r * panels * PANEL + p * PANEL..][..PANEL];
                for (c, o) in out.iter_mut().enumerate() {
                    let i = r * PANEL + c;
                    *o = (parts[0][i] << 16)
                        .wrapping_add(parts[1][i] << 8)
                        .wrapping_add(parts[2][i]);
                }
            }
        }
        true
    }
}

/// Whether 16 rows of `kpad` bytes, `panels` weight panels and the sums fit
/// the slices (the bounds every tile load and store relies on).
fn fits(a_len: usize, kpad: usize, b_len: usize, panels: usize, sums_len: usize) -> bool {
    kpad > 0
        && kpad % K_STEP == 0
        && panels > 0
        && a_len >= ROWS * kpad
        && b_len == panels * kpad * PANEL
        && sums_len >= ROWS * panels * PANEL
}

/// 16 rows of 16-bit inputs as their high and low byte planes (row `r` at
/// `r · kpad` in each).
pub(crate) struct SplitRows<'a> {
    pub hi: &'a [i8],
    pub lo: &'a [u8],
    pub kpad: usize,
}

/// A 16-bit weight as its high and low byte planes, packed in 16-output
/// panels of 4-input groups over `kpad` (a multiple of 64) inputs.
pub(crate) struct SplitWeights {
    hi: Vec<i8>,
    lo: Vec<u8>,
    kpad: usize,
    panels: usize,
}

impl SplitWeights {
    /// The planes of `out` outputs × `inp` inputs, weight `(j, k)` given by
    /// `w(j, k)`; inputs past `inp` are zero.
    pub(crate) fn new(out: usize, inp: usize, w: impl Fn(usize, usize) -> i16) -> Self {
        let kpad = inp.div_ceil(K_STEP) * K_STEP;
        let panels = out.div_ceil(PANEL);
        let (mut hi, mut lo) = (
            vec![0i8; panels * kpad * PANEL],
            vec![0u8; panels * kpad * PANEL],
        );
        for j in 0..out {
            let (p, c) = (j / PANEL, j % PANEL);
            for k in 0..inp {
                let at = p * kpad * PANEL + (k / 4) * PANEL * 4 + c * 4 + k % 4;
                (hi[at], lo[at]) = split(w(j, k));
            }
        }
        Self {
            hi,
            lo,
            kpad,
            panels,
        }
    }

    /// Inputs per row the planes expect (a multiple of 64).
    pub(crate) fn kpad(&self) -> usize {
        self.kpad
    }

    /// Weight panels (16 outputs each).
    pub(crate) fn panels(&self) -> usize {
        self.panels
    }
}

/// `v = 256 · hi + lo`, `lo` unsigned, for `|v| < 2¹⁵`.
#[inline(always)]
pub(crate) fn split(v: i16) -> (i8, u8) {
    ((v >> 8) as i8, (v & 0xFF) as u8)
}

#[cfg(all(test, target_arch = "x86_64", target_os = "linux"))]
mod tests {
    use super::*;

    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    /// On a CPU with AMX the tiles must be in use (so the equality tests
    /// below and in the product modules compare two different paths).
    #[test]
    fn tiles_run_where_the_cpu_has_them() {
        if crate::local::config::kernel_switches().simd_forced() {
            return;
        }
        assert_eq!(tiles().is_some(), cpu_has_amx());
    }

    #[test]
    fn byte_tiles_give_the_exact_sums() {
        let Some(amx) = tiles() else { return };
        let (kpad, panels) = (192, 3);
        let mut seed = 3;
        let a: Vec<u8> = (0..ROWS * kpad)
            .map(|_| (lcg(&mut seed) % 128) as u8)
            .collect();
        let b: Vec<i8> = (0..panels * kpad * PANEL)
            .map(|_| (lcg(&mut seed) % 255) as i8)
            .collect();
        let mut sums = vec![0i32; ROWS * panels * PANEL];
        assert!(amx.rows_u8_i8(&a, kpad, &b, panels, &mut sums));
        for r in 0..ROWS {
            for j in 0..panels * PANEL {
                let (p, c) = (j / PANEL, j % PANEL);
                let want: i32 = (0..kpad)
                    .map(|k| {
                        let w = b[p * kpad * PANEL + (k / 4) * PANEL * 4 + c * 4 + k % 4];
                        i32::from(a[r * kpad + k]) * i32::from(w)
                    })
                    .sum();
                assert_eq!(sums[r * panels * PANEL + j], want, "row {r} output {j}");
            }
        }
        assert!(
            !amx.rows_u8_i8(&a, 100, &b, panels, &mut sums),
            "kpad not a multiple of 64"
        );
    }

    #[test]
    fn split_tiles_give_the_exact_16_bit_sums() {
        let Some(amx) = tiles() else { return };
        let (out, inp) = (40, 150);
        let mut seed = 5;
        let w: Vec<i16> = (0..out * inp)
            .map(|_| (lcg(&mut seed) % 1023) as i16 - 511)
            .collect();
        let weights = SplitWeights::new(out, inp, |j, k| w[j * inp + k]);
        let kpad = weights.kpad();
        let x: Vec<i16> = (0..ROWS * inp)
            .map(|_| (lcg(&mut seed) % 4095) as i16 - 2047)
            .collect();
        let (mut hi, mut lo) = (vec![0i8; ROWS * kpad], vec![0u8; ROWS * kpad]);
        for r in 0..ROWS {
            for k in 0..inp {
                (hi[r * kpad + k], lo[r * kpad + k]) = split(x[r * inp + k]);
            }
        }
        let rows = SplitRows {
            hi: &hi,
            lo: &lo,
            kpad,
        };
        let mut sums = vec![0i32; ROWS * weights.panels() * PANEL];
        assert!(amx.rows_split16(&rows, &weights, &mut sums));
        for r in 0..ROWS {
            for j in 0..out {
                let want: i32 = (0..inp)
                    .map(|k| i32::from(x[r * inp + k]) * i32::from(w[j * inp + k]))
                    .sum();
                assert_eq!(
                    sums[r * weights.panels() * PANEL + j],
                    want,
                    "row {r} output {j}"
                );
            }
        }
    }

    #[test]
    fn split_recombines() {
        for v in [-2047i16, -257, -256, -1, 0, 1, 255, 256, 2047] {
            let (h, l) = split(v);
            assert_eq!(i32::from(h) * 256 + i32::from(l), i32::from(v));
        }
    }
}
