//! Diagnostic for the HNSW benchmark (docs/benchmarks.d/hnsw.md, "Is it our code?"): builds a
//! raw hnsw_rs graph exactly as `DenseIndex` does (same distance, parameters and batched
//! `parallel_insert`), prints its structure (layer-0 degree, in-degree-0 nodes, reachability,
//! layer sizes) and compares hnsw_rs's search with a textbook HNSW search (full greedy descent on
//! the upper layers, `ef` beam on layer 0) over a flat copy of the same graph.
//!
//! ```text
//! cargo run --release -p verity-store --example hnsw_graph_check -- random --n 100000 --nq 200 --ef 128,512
//! cargo run --release -p verity-store --example hnsw_graph_check -- clustered --n 100000
//! cargo run --release -p verity-store --example hnsw_graph_check -- path/base.npy   # queries: path/base.queries.npy
//! ```
//!
//! Options: `--m 24 --efc 200 --chunk 10000 --keep-pruned --extend --scale 1.0 --serial`.
//! Diagnostic code: it panics with a message on unreadable input.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::needless_range_loop
)]

use std::collections::{BinaryHeap, HashSet};
use std::time::Instant;

use hnsw_rs::anndists::dist::Distance;
use hnsw_rs::prelude::Hnsw;

struct Rng(u64);
impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }
    fn gauss(&mut self) -> f32 {
        let (u, v) = (self.uniform(), self.uniform());
        ((-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()) as f32
    }
    fn unit(&mut self, dim: usize) -> Vec<f32> {
        normalize((0..dim).map(|_| self.gauss()).collect())
    }
}
fn normalize(mut v: Vec<f32>) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= n);
    v
}
fn random_data(n: usize, dim: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut rng = Rng(seed);
    (0..n).map(|_| rng.unit(dim)).collect()
}
fn clustered_data(n: usize, dim: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut rng = Rng(seed);
    let centroids: Vec<Vec<f32>> = (0..200).map(|_| rng.unit(dim)).collect();
    (0..n)
        .map(|_| {
            let c = &centroids[(rng.next_u64() % centroids.len() as u64) as usize];
            let noise = rng.unit(dim);
            normalize(c.iter().zip(&noise).map(|(a, b)| a + 1.2 * b).collect())
        })
        .collect()
}
fn read_npy(path: &str) -> Vec<Vec<f32>> {
    let b = std::fs::read(path).expect("read npy");
    assert_eq!(&b[..6], b"\x93NUMPY");
    let (hlen, off) = if b[6] == 1 {
        (u16::from_le_bytes([b[8], b[9]]) as usize, 10)
    } else {
        (u32::from_le_bytes([b[8], b[9], b[10], b[11]]) as usize, 12)
    };
    let header = std::str::from_utf8(&b[off..off + hlen]).unwrap();
    assert!(
        header.contains("'<f4'") && header.contains("False"),
        "{header}"
    );
    let shape = &header[header.find("'shape': (").unwrap() + 10..];
    let shape: Vec<usize> = shape[..shape.find(')').unwrap()]
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let (n, d) = (shape[0], shape[1]);
    let body = &b[off + hlen..];
    (0..n)
        .map(|i| {
            normalize(
                (0..d)
                    .map(|j| {
                        let p = (i * d + j) * 4;
                        f32::from_le_bytes([body[p], body[p + 1], body[p + 2], body[p + 3]])
                    })
                    .collect(),
            )
        })
        .collect()
}

#[inline]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f32; 16];
    let ca = a.chunks_exact(16);
    let cb = b.chunks_exact(16);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..16 {
            acc[i] += x[i] * y[i];
        }
    }
    let mut s = 0.0f32;
    for v in acc {
        s += v;
    }
    for (x, y) in ra.iter().zip(rb) {
        s += x * y;
    }
    s
}
#[derive(Default, Clone, Copy)]
struct CosineDot;
impl Distance<f32> for CosineDot {
    fn eval(&self, va: &[f32], vb: &[f32]) -> f32 {
        (1.0 - dot(va, vb)).max(0.0)
    }
}

fn arg<T: std::str::FromStr>(args: &[String], key: &str, d: T) -> T {
    args.iter()
        .position(|a| a == key)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(d)
}
fn flag(args: &[String], key: &str) -> bool {
    args.iter().any(|a| a == key)
}

#[derive(Clone, Copy)]
struct D(f32, u32);
impl PartialEq for D {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o).is_eq()
    }
}
impl Eq for D {}
impl PartialOrd for D {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for D {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0).then(self.1.cmp(&o.1))
    }
}

/// Flat copy of the graph (by origin id), for our own search.
struct Flat {
    layers: Vec<Vec<Vec<u32>>>, // layers[l][id] neighbours
    level: Vec<u8>,
    entry: u32,
    top: usize,
}

fn flatten(g: &Hnsw<'static, f32, CosineDot>, n: usize) -> Flat {
    let top = g.get_max_level_observed() as usize;
    let mut layers = vec![vec![Vec::new(); n]; top + 1];
    let mut level = vec![0u8; n];
    let mut entry = 0u32;
    for p in g.get_point_indexation() {
        let id = p.get_origin_id();
        let lv = p.get_point_id().0 as usize;
        level[id] = lv as u8;
        if lv == top {
            entry = id as u32;
        }
        for (l, ns) in p.get_neighborhood_id().into_iter().enumerate() {
            if l <= lv && l <= top {
                layers[l][id] = ns.iter().map(|x| x.d_id as u32).collect();
            }
        }
    }
    Flat {
        layers,
        level,
        entry,
        top,
    }
}

fn own_search(
    f: &Flat,
    data: &[Vec<f32>],
    q: &[f32],
    ef: usize,
    visited: &mut [u32],
    epoch: u32,
) -> Vec<u32> {
    let mut cur = f.entry;
    let mut cd = 1.0 - dot(q, &data[cur as usize]);
    for l in (1..=f.top).rev() {
        loop {
            let mut changed = false;
            for &nb in &f.layers[l][cur as usize] {
                let d = 1.0 - dot(q, &data[nb as usize]);
                if d < cd {
                    cd = d;
                    cur = nb;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }
    let mut cand = BinaryHeap::new(); // min-heap via Reverse
    let mut res: BinaryHeap<D> = BinaryHeap::new();
    visited[cur as usize] = epoch;
    cand.push(std::cmp::Reverse(D(cd, cur)));
    res.push(D(cd, cur));
    while let Some(std::cmp::Reverse(D(d, c))) = cand.pop() {
        if res.len() >= ef && d > res.peek().map(|x| x.0).unwrap_or(f32::MAX) {
            break;
        }
        for &nb in &f.layers[0][c as usize] {
            if visited[nb as usize] == epoch {
                continue;
            }
            visited[nb as usize] = epoch;
            let dn = 1.0 - dot(q, &data[nb as usize]);
            if res.len() < ef || dn < res.peek().map(|x| x.0).unwrap_or(f32::MAX) {
                cand.push(std::cmp::Reverse(D(dn, nb)));
                res.push(D(dn, nb));
                if res.len() > ef {
                    res.pop();
                }
            }
        }
    }
    let mut v = res.into_sorted_vec();
    v.truncate(10);
    v.into_iter().map(|x| x.1).collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let data_kind = args.get(1).cloned().unwrap_or("random".into());
    let n: usize = arg(&args, "--n", 100_000);
    let nq: usize = arg(&args, "--nq", 300);
    let m: usize = arg(&args, "--m", 24);
    let efc: usize = arg(&args, "--efc", 200);
    let efs: Vec<usize> = arg::<String>(&args, "--ef", "128,256,512".into())
        .split(',')
        .filter_map(|x| x.parse().ok())
        .collect();
    let scale: f64 = arg(&args, "--scale", 1.0);
    let chunk: usize = arg(&args, "--chunk", 10_000);
    let (data, queries) = match data_kind.as_str() {
        "random" => (random_data(n, 384, 1), random_data(nq, 384, 2)),
        "clustered" => (clustered_data(n, 384, 3), clustered_data(nq, 384, 4)),
        p => {
            let mut d = read_npy(p);
            d.truncate(n);
            let qp: String = arg(
                &args,
                "--queries",
                p.trim_end_matches(".npy").to_string() + ".queries.npy",
            );
            let mut q = read_npy(&qp);
            q.truncate(nq);
            (d, q)
        }
    };
    if flag(&args, "--print") {
        println!("{:?}", &data[0][..4]);
        println!("{:?}", &data[n - 1][..4]);
        println!("{:?}", &queries[0][..4]);
        return;
    }
    let n = data.len();
    eprintln!(
        "{data_kind}: {n} x {}, {} queries",
        data[0].len(),
        queries.len()
    );
    // truth
    let t = Instant::now();
    let truth: Vec<HashSet<u32>> = {
        queries
            .iter()
            .map(|q| {
                let mut s: Vec<(f32, u32)> = data
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (-dot(q, v), i as u32))
                    .collect();
                s.select_nth_unstable_by(9, |a, b| a.0.total_cmp(&b.0));
                s[..10].iter().map(|x| x.1).collect()
            })
            .collect()
    };
    eprintln!("truth {:.1}s", t.elapsed().as_secs_f64());

    let mut g: Hnsw<'static, f32, CosineDot> = Hnsw::new(m, n, 16, efc, CosineDot);
    if flag(&args, "--keep-pruned") {
        g.set_keeping_pruned(true);
    }
    if flag(&args, "--extend") {
        g.set_extend_candidates(true);
    }
    if scale != 1.0 {
        g.modify_level_scale(scale);
    }
    let t = Instant::now();
    if flag(&args, "--serial") {
        for (i, v) in data.iter().enumerate() {
            g.insert((v.as_slice(), i));
        }
    } else {
        let items: Vec<(&Vec<f32>, usize)> = data.iter().enumerate().map(|(i, v)| (v, i)).collect();
        for c in items.chunks(chunk) {
            g.parallel_insert(c);
        }
    }
    let build = t.elapsed().as_secs_f64();
    let f = flatten(&g, n);
    // stats
    let deg: Vec<usize> = f.layers[0].iter().map(|v| v.len()).collect();
    let avg = deg.iter().sum::<usize>() as f64 / n as f64;
    let mut indeg = vec![0u32; n];
    for v in &f.layers[0] {
        for &x in v {
            indeg[x as usize] += 1;
        }
    }
    let zero_in = indeg.iter().filter(|&&x| x == 0).count();
    // reachability at layer 0 from entry
    let mut seen = vec![false; n];
    let mut stack = vec![f.entry];
    seen[f.entry as usize] = true;
    let mut reach = 0;
    while let Some(x) = stack.pop() {
        reach += 1;
        for &y in &f.layers[0][x as usize] {
            if !seen[y as usize] {
                seen[y as usize] = true;
                stack.push(y);
            }
        }
    }
    let levels = (0..=f.top)
        .map(|l| f.level.iter().filter(|&&x| x as usize >= l).count())
        .collect::<Vec<_>>();
    println!(
        "{data_kind} n={n} M={m} efc={efc} keep_pruned={} extend={} scale={scale} serial={} chunk={chunk}: build {build:.1}s, L0 avg deg {avg:.1}, in-degree-0 {zero_in}, reachable {reach}/{n}, layers {levels:?}",
        flag(&args, "--keep-pruned"),
        flag(&args, "--extend"),
        flag(&args, "--serial")
    );
    let mut visited = vec![0u32; n];
    let mut epoch = 0;
    for &ef in &efs {
        for which in ["hnsw_rs", "own"] {
            let mut times = Vec::new();
            let mut found = 0;
            for (q, tr) in queries.iter().zip(&truth) {
                let t = Instant::now();
                let ids: Vec<u32> = if which == "hnsw_rs" {
                    g.search(q, 10, ef).iter().map(|x| x.d_id as u32).collect()
                } else {
                    epoch += 1;
                    own_search(&f, &data, q, ef, &mut visited, epoch)
                };
                times.push(t.elapsed().as_secs_f64() * 1e3);
                found += ids.iter().filter(|i| tr.contains(i)).count();
            }
            times.sort_by(|a, b| a.total_cmp(b));
            let p = |x: f64| times[((times.len() - 1) as f64 * x).round() as usize];
            println!(
                "  {which:8} ef={ef:5} recall@10 {:.4} p50 {:.2} ms p95 {:.2} ms",
                found as f64 / (10 * queries.len()) as f64,
                p(0.5),
                p(0.95)
            );
        }
    }
}
