//! HNSW dense index: recall@10 against brute force, query latency (p50/p95), build time,
//! dump/load time, filtered search at 10 % and 1 % selectivity.
//!
//! `cargo bench -p verity-benches --bench hnsw`
//!
//! Knobs (environment): `VERITY_HNSW_N` (points, default 100000), `VERITY_HNSW_DIM` (384),
//! `VERITY_HNSW_QUERIES` (300), `VERITY_HNSW_CONFIGS` (`m,efc,efs1/efs2;…`, default: the chosen
//! defaults plus alternatives), `VERITY_HNSW_CLUSTERED=0` to skip the clustered data set,
//! `VERITY_HNSW_RANDOM=0` to skip the random one.
//!
//! Real embeddings: `VERITY_HNSW_VECTORS=path.npy` (float32, shape `(n, dim)`, e.g. from
//! `scripts/eval/make_hnsw_vectors.py`) adds that set, truncated to `VERITY_HNSW_N` rows; its
//! query sets are `VERITY_HNSW_QUERY_VECTORS` (comma-separated `.npy` paths), by default the
//! sibling files `<stem>.queries.npy` and `<stem>.heldout.npy` that exist. Every query of a file
//! is used unless `VERITY_HNSW_QUERIES` is set.
//!
//! Each index is built once per run; the report (markdown) goes to stdout, then criterion measures
//! the default configuration's unfiltered and filtered queries (on the first data set reported).

use std::collections::HashSet;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use verity_store::hnsw::{DenseIndex, HnswParams};

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
    /// Standard normal (Box–Muller).
    fn gauss(&mut self) -> f32 {
        let (u, v) = (self.uniform(), self.uniform());
        ((-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()) as f32
    }
    /// Uniform on the unit sphere.
    fn unit(&mut self, dim: usize) -> Vec<f32> {
        normalize((0..dim).map(|_| self.gauss()).collect())
    }
}

/// One way of answering a k-NN query, for the filtered-search comparison.
type SearchFn<'a> = dyn Fn(&[f32]) -> Vec<(u64, f32)> + 'a;
fn normalize(mut v: Vec<f32>) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= n);
    v
}

fn env_usize(key: &str, default: usize) -> usize {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Random unit vectors (the pessimistic case: no structure for the graph to exploit).
fn random_data(n: usize, dim: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut rng = Rng(seed);
    (0..n).map(|_| rng.unit(dim)).collect()
}

/// Clustered data, closer to real embeddings: 200 topic centroids, each point a centroid plus
/// isotropic noise (cosine to its centroid ≈ 0.6–0.7).
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

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1e3)
}

type Filter<'a> = Option<&'a (dyn Fn(u64) -> bool + Sync)>;

/// Exact top-10 for every query (two threads).
fn ground_truth(index: &DenseIndex, queries: &[Vec<f32>], filter: Filter<'_>) -> Vec<HashSet<u64>> {
    let half = queries.len() / 2;
    let run = |qs: &[Vec<f32>]| -> Vec<HashSet<u64>> {
        qs.iter()
            .map(|q| {
                index
                    .search_exact(q, 10, filter)
                    .unwrap()
                    .into_iter()
                    .map(|h| h.0)
                    .collect()
            })
            .collect()
    };
    std::thread::scope(|s| {
        let a = s.spawn(|| run(&queries[..half]));
        let mut b = run(&queries[half..]);
        let mut all = a.join().unwrap();
        all.append(&mut b);
        all
    })
}

struct Measure {
    recall: f64,
    p50: Duration,
    p95: Duration,
}

fn measure(
    queries: &[Vec<f32>],
    truth: &[HashSet<u64>],
    search: impl Fn(&[f32]) -> Vec<(u64, f32)>,
) -> Measure {
    let mut times = Vec::with_capacity(queries.len());
    let (mut found, mut total) = (0usize, 0usize);
    for (q, t) in queries.iter().zip(truth) {
        let start = Instant::now();
        let hits = black_box(search(q));
        times.push(start.elapsed());
        found += hits.iter().filter(|h| t.contains(&h.0)).count();
        total += t.len();
    }
    times.sort();
    Measure {
        recall: found as f64 / total.max(1) as f64,
        p50: percentile(&times, 0.5),
        p95: percentile(&times, 0.95),
    }
}

struct Config {
    m: usize,
    efc: usize,
    efs: Vec<usize>,
}

fn configs() -> Vec<Config> {
    if let Ok(spec) = std::env::var("VERITY_HNSW_CONFIGS") {
        return spec
            .split(';')
            .filter_map(|c| {
                let p: Vec<&str> = c.split(',').collect();
                Some(Config {
                    m: p.first()?.trim().parse().ok()?,
                    efc: p.get(1)?.trim().parse().ok()?,
                    efs: p
                        .get(2)?
                        .split('/')
                        .filter_map(|e| e.trim().parse().ok())
                        .collect(),
                })
            })
            .collect();
    }
    let d = HnswParams::default();
    let mut efs = vec![32, 64, 128, 256, 512, d.ef_search];
    efs.sort_unstable();
    efs.dedup();
    vec![
        Config {
            m: d.m,
            efc: d.ef_construction,
            efs,
        },
        Config {
            m: 16,
            efc: 100,
            efs: vec![256, 512],
        },
        Config {
            m: 32,
            efc: 300,
            efs: vec![256, 512],
        },
    ]
}

fn build(data: &[Vec<f32>], params: HnswParams) -> (DenseIndex, Duration) {
    let items: Vec<(u64, Vec<f32>)> = data
        .iter()
        .enumerate()
        .map(|(i, v)| (i as u64, v.clone()))
        .collect();
    let start = Instant::now();
    let mut index = DenseIndex::new(data[0].len(), params, items.len());
    for chunk in items.chunks(10_000) {
        index.insert_batch(chunk).unwrap();
    }
    (index, start.elapsed())
}

/// A named set of queries.
type QuerySet = (String, Vec<Vec<f32>>);

fn report_dataset(
    name: &str,
    data: &[Vec<f32>],
    query_sets: &[QuerySet],
    configs: &[Config],
    full: bool,
) -> Option<DenseIndex> {
    let sets: Vec<String> = query_sets
        .iter()
        .map(|(n, q)| format!("{n} ({})", q.len()))
        .collect();
    println!(
        "\n### {name}: {} vectors × {} dims, queries: {}, k = 10\n",
        data.len(),
        data[0].len(),
        sets.join(", ")
    );
    println!(
        "| queries | M | ef_construction | build (s) | ef_search | recall@10 | p50 (ms) | p95 (ms) |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let mut truths: Option<Vec<Vec<HashSet<u64>>>> = None;
    let mut default_index = None;
    let d = HnswParams::default();
    for (ci, c) in configs.iter().enumerate() {
        let (mut index, build_time) = build(
            data,
            HnswParams {
                m: c.m,
                ef_construction: c.efc,
                ef_search: c.efs[0],
                min_graph_points: 0,
            },
        );
        let truths = truths.get_or_insert_with(|| {
            query_sets
                .iter()
                .map(|(_, q)| ground_truth(&index, q, None))
                .collect()
        });
        for ((set, queries), truth) in query_sets.iter().zip(truths.iter()) {
            for &efs in &c.efs {
                index.set_ef_search(efs);
                let m = measure(queries, truth, |q| index.search_graph(q, 10, None).unwrap());
                println!(
                    "| {set} | {} | {} | {:.1} | {} | {:.4} | {} | {} |",
                    c.m,
                    c.efc,
                    build_time.as_secs_f64(),
                    efs,
                    m.recall,
                    ms(m.p50),
                    ms(m.p95)
                );
            }
            if ci > 0 {
                continue;
            }
            let m = measure(queries, truth, |q| index.search_exact(q, 10, None).unwrap());
            println!(
                "| {set} | exact scan | | | | {:.4} | {} | {} |",
                m.recall,
                ms(m.p50),
                ms(m.p95)
            );
        }
        if c.m == d.m && c.efc == d.ef_construction && default_index.is_none() {
            index.set_ef_search(d.ef_search);
            default_index = Some(index);
        }
    }
    let (_, queries) = query_sets.first()?;
    let truth = truths
        .and_then(|t| t.into_iter().next())
        .unwrap_or_default();
    let index = default_index?;
    if !full {
        return Some(index);
    }
    // Dump / load of the default configuration.
    let dir = std::env::temp_dir().join(format!("verity-hnsw-bench-{}", std::process::id()));
    let start = Instant::now();
    index.dump(&dir, "bench", 1).unwrap();
    let dump_time = start.elapsed();
    let size: u64 = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.metadata().map(|m| m.len()).unwrap_or(0))
        .sum();
    let start = Instant::now();
    let loaded = DenseIndex::load(&dir, "bench", data[0].len(), 1).unwrap();
    let load_time = start.elapsed();
    let _ = std::fs::remove_dir_all(&dir);
    let m = measure(queries, &truth, |q| loaded.search(q, 10, None).unwrap());
    println!(
        "\nDefault (M={}, ef_construction={}, ef_search={}): dump {:.2} s, load {:.2} s ({:.0} MiB on disk, checksums verified); recall after reload {:.4}.",
        d.m,
        d.ef_construction,
        d.ef_search,
        dump_time.as_secs_f64(),
        load_time.as_secs_f64(),
        size as f64 / (1024.0 * 1024.0),
        m.recall
    );
    drop(loaded);

    // Filtered search (at most 200 queries: the filtered graph walk is slow by design).
    let queries = &queries[..queries.len().min(200)];
    println!("\n| selectivity | path | recall@10 vs filtered exact | p50 (ms) | p95 (ms) |");
    println!("|---|---|---|---|---|");
    for (label, modulo) in [("10 %", 10u64), ("1 %", 100)] {
        let allowed: HashSet<u64> = (0..data.len() as u64)
            .filter(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % modulo == 0)
            .collect();
        let f = |id: u64| allowed.contains(&id);
        let filter: Filter<'_> = Some(&f);
        let truth = ground_truth(&index, queries, filter);
        let paths: [(&str, &SearchFn<'_>); 3] = [
            ("graph walk (FilterT)", &|q| {
                index.search_graph(q, 10, filter).unwrap()
            }),
            ("exact scan of allowed", &|q| {
                index.search_exact(q, 10, filter).unwrap()
            }),
            ("`search` (auto)", &|q| index.search(q, 10, filter).unwrap()),
        ];
        for (path, search) in paths {
            let m = measure(queries, &truth, search);
            println!(
                "| {label} | {path} | {:.4} | {} | {} |",
                m.recall,
                ms(m.p50),
                ms(m.p95)
            );
        }
    }
    Some(index)
}

fn env_on(key: &str) -> bool {
    std::env::var(key).map(|v| v != "0").unwrap_or(true)
}

/// Read a little-endian float32, C-order, 2-d `.npy` file (NumPy format 1.0–3.0).
fn read_npy(path: &str) -> Result<Vec<Vec<f32>>, String> {
    let b = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    if b.len() < 12 || &b[..6] != b"\x93NUMPY" {
        return Err(format!("{path}: not a .npy file"));
    }
    let (hlen, off) = if b[6] == 1 {
        (usize::from(u16::from_le_bytes([b[8], b[9]])), 10)
    } else {
        (u32::from_le_bytes([b[8], b[9], b[10], b[11]]) as usize, 12)
    };
    let header = b
        .get(off..off + hlen)
        .and_then(|h| std::str::from_utf8(h).ok())
        .ok_or_else(|| format!("{path}: bad header"))?;
    if !header.contains("'<f4'") || !header.contains("'fortran_order': False") {
        return Err(format!(
            "{path}: expected little-endian float32 in C order, header {header}"
        ));
    }
    let shape = header
        .split("'shape': (")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .ok_or_else(|| format!("{path}: no shape in header"))?;
    let dims: Vec<usize> = shape
        .split(',')
        .filter_map(|x| x.trim().parse().ok())
        .collect();
    let [n, dim] = dims[..] else {
        return Err(format!("{path}: expected a 2-d array, shape ({shape})"));
    };
    let body = &b[off + hlen..];
    if dim == 0 || body.len() != n * dim * 4 {
        return Err(format!(
            "{path}: {} data bytes for shape ({n}, {dim})",
            body.len()
        ));
    }
    Ok(body
        .chunks_exact(dim * 4)
        .map(|row| {
            row.chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        })
        .collect())
}

/// The real-embedding set of `VERITY_HNSW_VECTORS`, with its query sets.
fn vector_file_sets(path: &str, n: usize) -> Result<(Vec<Vec<f32>>, Vec<QuerySet>), String> {
    let mut data = read_npy(path)?;
    data.truncate(n);
    let stem = path.strip_suffix(".npy").unwrap_or(path);
    let paths: Vec<String> = match std::env::var("VERITY_HNSW_QUERY_VECTORS") {
        Ok(list) => list.split(',').map(|p| p.trim().to_string()).collect(),
        Err(_) => ["queries", "heldout"]
            .iter()
            .map(|k| format!("{stem}.{k}.npy"))
            .filter(|p| std::path::Path::new(p).exists())
            .collect(),
    };
    let limit = std::env::var("VERITY_HNSW_QUERIES")
        .ok()
        .and_then(|v| v.parse::<usize>().ok());
    let mut sets = Vec::new();
    for p in paths {
        let mut q = read_npy(&p)?;
        if let Some(l) = limit {
            q.truncate(l);
        }
        let name = p
            .strip_suffix(".npy")
            .and_then(|s| s.rsplit('.').next())
            .unwrap_or("queries")
            .to_string();
        sets.push((name, q));
    }
    if sets.is_empty() {
        return Err(format!("{path}: no query file ({stem}.queries.npy / {stem}.heldout.npy); set VERITY_HNSW_QUERY_VECTORS"));
    }
    if let Some((name, _)) = sets
        .iter()
        .find(|(_, q)| q.iter().any(|v| v.len() != data[0].len()))
    {
        return Err(format!("{name}: dimension differs from {path}"));
    }
    Ok((data, sets))
}

fn main() {
    let n = env_usize("VERITY_HNSW_N", 100_000);
    let dim = env_usize("VERITY_HNSW_DIM", 384);
    let nq = env_usize("VERITY_HNSW_QUERIES", 300);
    let configs = configs();
    println!(
        "## HNSW dense index (verity-store::hnsw), {} threads",
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );
    let d = HnswParams::default();
    let mut first: Option<(DenseIndex, Vec<Vec<f32>>)> = None;

    if let Ok(path) = std::env::var("VERITY_HNSW_VECTORS") {
        match vector_file_sets(&path, n) {
            Ok((data, sets)) if !data.is_empty() => {
                let name = format!("Real embeddings ({path})");
                let index = report_dataset(&name, &data, &sets, &configs, true);
                if let (Some(index), Some((_, q))) = (index, sets.into_iter().next()) {
                    first = Some((index, q));
                }
            }
            Ok(_) => eprintln!("{path}: no vectors"),
            Err(e) => {
                eprintln!("VERITY_HNSW_VECTORS: {e}");
                std::process::exit(2);
            }
        }
    }

    if env_on("VERITY_HNSW_RANDOM") {
        let data = random_data(n, dim, 1);
        let queries = random_data(nq, dim, 2);
        let sets = vec![("random".to_string(), queries)];
        let index = report_dataset("Random unit vectors", &data, &sets, &configs, true);
        if first.is_none() {
            if let (Some(index), Some((_, q))) = (index, sets.into_iter().next()) {
                first = Some((index, q));
            }
        }
    }

    if env_on("VERITY_HNSW_CLUSTERED") {
        let data = clustered_data(n, dim, 3);
        let queries = clustered_data(nq, dim, 4);
        let cfg = [Config {
            m: d.m,
            efc: d.ef_construction,
            efs: vec![64, 128, d.ef_search],
        }];
        report_dataset(
            "Clustered vectors (200 centroids)",
            &data,
            &[("clustered".to_string(), queries)],
            &cfg,
            false,
        );
    }

    let Some((index, queries)) = first else {
        println!("(default configuration not in VERITY_HNSW_CONFIGS: criterion part skipped)");
        return;
    };
    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    let n = index.len();
    let allowed10: HashSet<u64> = (0..n as u64).filter(|i| i % 10 == 0).collect();
    let allowed1: HashSet<u64> = (0..n as u64).filter(|i| i % 100 == 0).collect();
    let f10 = |id: u64| allowed10.contains(&id);
    let f1 = |id: u64| allowed1.contains(&id);
    let mut qi = 0usize;
    let mut next_q = || {
        qi = (qi + 1) % queries.len();
        &queries[qi]
    };
    c.bench_function("hnsw/search_k10", |b| {
        b.iter(|| index.search(next_q(), 10, None).unwrap())
    });
    c.bench_function("hnsw/search_k10_filter_10pct", |b| {
        b.iter(|| index.search(next_q(), 10, Some(&f10)).unwrap())
    });
    c.bench_function("hnsw/search_k10_filter_1pct", |b| {
        b.iter(|| index.search(next_q(), 10, Some(&f1)).unwrap())
    });
    c.final_summary();
}
