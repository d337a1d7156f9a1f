//! The 8-bit and 16-bit dense layers against the f32 matrix product the packed engine
//! uses (candle → `gemm`), on all-MiniLM-L6-v2's three shapes, for a batch of
//! tokens (default 2,048: 32 texts of 64 word pieces).
//!
//! `RAYON_NUM_THREADS=2 cargo run --release -p verity-embed --example int8_kernel [TOKENS]`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use candle_core::{Device, Tensor};
use verity_embed::int8mm::QuantLinear;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tokens: usize = std::env::args()
        .nth(1)
        .and_then(|t| t.parse().ok())
        .unwrap_or(2048);
    let reps = 20;
    let mut seed = 1u64;
    let mut value = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    };
    println!(
        "{tokens} tokens, RAYON_NUM_THREADS={:?}, {}",
        std::env::var("RAYON_NUM_THREADS").ok(),
        verity_embed::simd::kernel_note()
    );
    for (name, inp, out) in [
        ("QKV", 384, 1152),
        ("intermediate", 384, 1536),
        ("output", 1536, 384),
    ] {
        let w: Vec<f32> = (0..out * inp).map(|_| value() * 0.05).collect();
        let x: Vec<f32> = (0..tokens * inp).map(|_| value()).collect();
        let wt = Tensor::from_vec(w.clone(), (out, inp), &Device::Cpu)?;
        let xt = Tensor::from_vec(x.clone(), (tokens, inp), &Device::Cpu)?;
        let q = QuantLinear::quantize(&w, out, inp).expect("shape");
        let q16 = verity_embed::int16mm::QuantLinear::quantize(&w, out, inp).expect("shape");
        let time = |f: &dyn Fn()| {
            f();
            let t = Instant::now();
            for _ in 0..reps {
                f();
            }
            t.elapsed().as_secs_f64() / reps as f64
        };
        let f32_s = time(&|| {
            xt.matmul(&wt.t().unwrap()).unwrap();
        });
        let i8_s = time(&|| {
            q.forward(&x, tokens).unwrap();
        });
        let i16_s = time(&|| {
            q16.forward(&x, tokens).unwrap();
        });
        let gflops = |s: f64| 2.0 * (tokens * inp * out) as f64 / s / 1e9;
        println!(
            "{name:>12} {inp}→{out}: f32 {:.2} ms ({:.0} GFLOP/s), int8 {:.2} ms ({:.0} GFLOP/s): {:.2}×, int16 {:.2} ms ({:.0} GFLOP/s): {:.2}×",
            f32_s * 1e3,
            gflops(f32_s),
            i8_s * 1e3,
            gflops(i8_s),
            f32_s / i8_s,
            i16_s * 1e3,
            gflops(i16_s),
            f32_s / i16_s
        );
    }
    Ok(())
}
