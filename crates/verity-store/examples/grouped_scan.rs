//! Time `DenseIndex::search_grouped` against the graph walk on a saved index.
//!
//! ```text
//! cargo run --release -p verity-store --example grouped_scan -- <index dir> <generation> [groups]
//! ```
//! Queries are the index's own vectors (every 97th), grouped by chunk
//! (`key >> 12`, the store's layout).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use verity_store::hnsw::DenseIndex;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().expect("index dir"));
    let generation: u64 = args.next().expect("generation").parse().unwrap();
    let groups: usize = args.next().map(|g| g.parse().unwrap()).unwrap_or(100);
    let t = Instant::now();
    let idx = DenseIndex::load(&dir, "default", 384, generation).unwrap();
    println!("loaded {} vectors in {:.2?}", idx.len(), t.elapsed());
    let queries: Vec<Vec<f32>> = (0..300u64)
        .filter_map(|i| {
            let hits = idx.search(&unit(i), 1, None).ok()?;
            let _ = hits;
            Some(unit(i))
        })
        .collect();
    let group_of = |k: u64| k >> 12;
    for name in ["grouped", "walk ×4"] {
        let mut ms = Vec::new();
        for q in &queries {
            let t = Instant::now();
            let n = if name == "grouped" {
                idx.search_grouped(q, groups, &group_of, None)
                    .unwrap()
                    .len()
            } else {
                idx.search(q, groups * 4, None).unwrap().len()
            };
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            assert!(n > 0);
        }
        ms.sort_by(|a, b| a.total_cmp(b));
        println!(
            "{name}: p50 {:.2} ms, p95 {:.2} ms ({} queries, {groups} groups)",
            ms[ms.len() / 2],
            ms[ms.len() * 95 / 100],
            ms.len()
        );
    }
}

fn unit(seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..384)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % 2001) as f32 / 1000.0 - 1.0
        })
        .collect()
}
