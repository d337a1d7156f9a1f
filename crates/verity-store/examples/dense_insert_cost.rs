//! Diagnostic: what `DenseIndex::insert_batch` costs as the index grows, on vectors read from a
//! raw little-endian f32 file (`dim` floats a row), inserted in batches as an ingest writes them
//! (~600 vectors per 64 SciFact abstracts). Prints wall and CPU time per block of rows
//! (docs/benchmarks.d/ingest.md, "What grows with the index").
//!
//! ```text
//! cargo run --release --example dense_insert_cost -- VECTORS.f32 [--dim 384] [--batch 600] \
//!     [--block 5000] [--n ROWS] [--m 24] [--efc 200]
//! ```
//!
//! The vectors of an ingested store, in ingest order:
//! `sqlite3 HOME/verity.db "SELECT hex(vector) FROM chunks WHERE vector IS NOT NULL ORDER BY id"
//! | xxd -r -p > VECTORS.f32`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Instant;

use verity_store::hnsw::{DenseIndex, HnswParams};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .expect("usage: dense_insert_cost FILE [--dim D] [--batch B]");
    let opt = |name: &str, default: usize| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .map_or(default, |v| v.parse().expect("a number"))
    };
    let (dim, batch, block) = (opt("--dim", 384), opt("--batch", 600), opt("--block", 5000));
    let m = opt("--m", 24);
    let efc = opt("--efc", 200);
    let bytes = std::fs::read(path).expect("readable file");
    let rows: Vec<Vec<f32>> = bytes
        .chunks_exact(4 * dim)
        .map(|r| {
            r.chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect()
        })
        .collect();
    let limit = opt("--n", rows.len()).min(rows.len());
    let params = HnswParams {
        m,
        ef_construction: efc,
        min_graph_points: 0,
        ..HnswParams::default()
    };
    let mut idx = DenseIndex::new(dim, params, 1024);
    let (start, mut last) = (Instant::now(), Instant::now());
    let mut done = 0;
    let (mut last_cpu, mut last_done) = (cpu_seconds(), 0);
    let mut next_report = block;
    for (i, part) in rows[..limit].chunks(batch).enumerate() {
        let items: Vec<(u64, Vec<f32>)> = part
            .iter()
            .enumerate()
            .map(|(j, v)| ((i * batch + j) as u64, v.clone()))
            .collect();
        idx.insert_batch(&items).unwrap();
        done += part.len();
        if done >= next_report || done == limit {
            let t = last.elapsed().as_secs_f64();
            let cpu = cpu_seconds();
            println!(
                "{done:>7} vectors: block {:.2} s wall, {:.2} s CPU, {:.3} CPU ms/vector; total {:.2} s wall, {:.2} s CPU",
                t,
                cpu - last_cpu,
                (cpu - last_cpu) * 1e3 / (done - last_done) as f64,
                start.elapsed().as_secs_f64(),
                cpu
            );
            last_cpu = cpu;
            last_done = done;
            last = Instant::now();
            next_report += block;
        }
    }
}

/// User + system CPU time of this process so far (Linux `/proc/self/stat`, 100 ticks a second).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or_default();
    let f: Vec<&str> = after.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (tick(11) + tick(12)) / 100.0
}
