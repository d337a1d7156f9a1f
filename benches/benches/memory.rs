//! Event memory (seed 004) on the embedded store: a realistic 50,000-event set.
//!
//! Events are SciFact titles and abstract sentences
//! (`shared/data/scifact/corpus.jsonl`, split on sentence ends, ≥ 5 words) with `event_type` (5 values),
//! `session_id` (500 values) and timestamps spread over 2025. Vectors come
//! from the local all-MiniLM-L6-v2 (`~/.cache/verity/models`), computed once
//! and cached in `$TMPDIR/verity-memory-bench/` (delete it to re-embed).
//!
//! Reports write throughput without auto-embedding (vectors supplied, 50k
//! events in batches of 500, HNSW insertion included) and with it (the first
//! `MEMORY_BENCH_AUTO` events, default 2,000, embedded by `Memory::add_many`
//! in batches of 64), then search latency p50/p95 over SciFact claims for:
//! vector only, vector + metadata + 30-day window, metadata + 90-day window
//! only, hybrid. Query embedding is excluded (vectors precomputed) and
//! reported separately.
//!
//! `VERITY_DATA_DIR=…/shared/data cargo bench -p verity-benches --bench memory`
//! (`MEMORY_BENCH_EVENTS` to resize; `MEMORY_BENCH_CASES=vector + event_type`
//! runs only the search cases whose name contains one of the comma-separated
//! strings, `MEMORY_BENCH_ROUNDS=20` repeats their queries, for profiling).
//!
//! * `MEMORY_BENCH_BACKEND=redis` runs the same workload on the Redis event
//!   store at `REDIS_URL` (use a throw-away server: `scripts/redis.sh start`),
//!   in a key space of its own.
//! * `MEMORY_BENCH_HOME=DIR` keeps the embedded store in `DIR` (a Verity home)
//!   and writes the search cases' requests to `DIR/bench-queries.jsonl`, so that
//!   `scripts/bench/memory_rest.sh` measures the same searches through
//!   `verity serve`.
//!
//! Last, on the embedded store, the open time of the 50k-event home: with
//! index persistence off (the HNSW graph rebuilt from SQLite, as every open
//! did before the graph was kept on disk), a first open without a dump
//! (rebuild, then dump), and a second open (graph loaded from the dump).
//! `MEMORY_BENCH_OPEN_ONLY=1` with `MEMORY_BENCH_HOME` holding a store from
//! an earlier run measures only that.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use chrono::{Duration, TimeZone, Utc};
use serde_json::{json, Map, Value};
use verity_core::{Embedder, EventFilter, EventSearch, EventSearchMode, EventStore, NewEvent};
use verity_embed::LocalEmbedder;
use verity_memory::Memory;
use verity_redis::RedisEventStore;
use verity_store::{EventStoreOptions, SqliteEventStore};

const TYPES: &[&str] = &["observation", "decision", "prompt", "tool_call", "feedback"];

/// A named search case: the i-th query of the case.
type SearchCase<'a> = Box<dyn Fn(usize) -> EventSearch + 'a>;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

struct Ev {
    text: String,
    doc: String,
    ty: &'static str,
    session: String,
    ts: chrono::DateTime<Utc>,
}

fn sentences(n: usize) -> Option<Vec<Ev>> {
    let dir = verity_benches::data_dir()?.join("scifact");
    let corpus = std::fs::read_to_string(dir.join("corpus.jsonl")).ok()?;
    let start = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).single()?;
    let mut out = Vec::with_capacity(n);
    for (d, line) in corpus.lines().enumerate() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let id = v["_id"].as_str().unwrap_or("").to_string();
        let text = v["text"].as_str().unwrap_or("");
        // The title first, then the abstract's sentences: 5,183 titles and
        // 45,129 sentences make 50,312 events.
        let title = v["title"].as_str().unwrap_or("");
        for s in std::iter::once(title).chain(text.split_inclusive(". ")) {
            let s = s.trim();
            if s.split_whitespace().count() < 5 {
                continue;
            }
            let i = out.len();
            // Spread over the year, sessions and types in a scrambled way.
            let h = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            out.push(Ev {
                text: s.to_string(),
                doc: id.clone(),
                ty: TYPES[(h >> 7) as usize % TYPES.len()],
                session: format!("session-{}", (d * 7 + i / 13) % 500),
                ts: start
                    + Duration::seconds((i as i64 * 365 * 86_400) / n as i64 + (h % 3600) as i64),
            });
            if out.len() == n {
                return Some(out);
            }
        }
    }
    Some(out)
}

fn claims(limit: usize) -> Vec<String> {
    let Some(dir) = verity_benches::data_dir() else {
        return Vec::new();
    };
    let text = std::fs::read_to_string(dir.join("scifact/queries_train.jsonl")).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["text"].as_str().map(str::to_string))
        .take(limit)
        .collect()
}

fn cached_vectors(embedder: &LocalEmbedder, texts: &[String], dim: usize) -> Vec<Vec<f32>> {
    let dir = std::env::temp_dir().join("verity-memory-bench");
    let _ = std::fs::create_dir_all(&dir);
    let path: PathBuf = dir.join(format!("minilm-{}.f32", texts.len()));
    if let Ok(mut f) = std::fs::File::open(&path) {
        let mut buf = Vec::new();
        if f.read_to_end(&mut buf).is_ok() && buf.len() == texts.len() * dim * 4 {
            eprintln!("memory bench: vectors from cache {}", path.display());
            return buf
                .chunks_exact(dim * 4)
                .map(|c| {
                    c.chunks_exact(4)
                        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                        .collect()
                })
                .collect();
        }
    }
    eprintln!(
        "memory bench: embedding {} sentences once (cached afterwards)…",
        texts.len()
    );
    let t = Instant::now();
    let mut out = Vec::with_capacity(texts.len());
    for (i, batch) in texts.chunks(256).enumerate() {
        out.extend(embedder.embed_blocking(batch).unwrap());
        if i % 20 == 0 {
            eprintln!(
                "  {} / {} ({:.0}/s)",
                out.len(),
                texts.len(),
                out.len() as f64 / t.elapsed().as_secs_f64()
            );
        }
    }
    if let Ok(mut f) = std::fs::File::create(&path) {
        let bytes: Vec<u8> = out.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
        let _ = f.write_all(&bytes);
    }
    out
}

/// The search cases as `GET /v1/search/` query parameters, one JSON line per
/// query: `{"case", "text", "params": {…}}` (`text` is the claim, for the
/// variant where the server embeds the query itself).
fn write_rest_queries(path: &std::path::Path, cases: &[(&str, SearchCase<'_>)], qs: &[String]) {
    let mut out = String::new();
    for (name, make) in cases {
        for (i, text) in qs.iter().enumerate() {
            let s = make(i);
            let mut params = Map::new();
            let mode = match s.mode {
                EventSearchMode::Vector => "vector",
                EventSearchMode::Lexical => "lexical",
                EventSearchMode::Hybrid => "hybrid",
                EventSearchMode::MetadataOnly => "metadata-only",
            };
            params.insert("mode".into(), json!(mode));
            if let Some(v) = &s.vector {
                params.insert(
                    "vector_query".into(),
                    json!(serde_json::to_string(v).unwrap()),
                );
            }
            if let Some(m) = &s.filter.metadata {
                params.insert(
                    "filter_metadata".into(),
                    json!(serde_json::to_string(m).unwrap()),
                );
            }
            if let Some(t) = s.filter.ts_start {
                params.insert("ts_start".into(), json!(t.to_rfc3339()));
            }
            if let Some(t) = s.filter.ts_end {
                params.insert("ts_end".into(), json!(t.to_rfc3339()));
            }
            if let Some(d) = s.max_distance {
                params.insert("distance_threshold".into(), json!(d));
            }
            params.insert("limit".into(), json!(s.limit));
            let line = json!({"case": name, "text": text, "params": params});
            out.push_str(&line.to_string());
            out.push('\n');
        }
    }
    std::fs::write(path, out).unwrap();
    eprintln!("memory bench: REST queries written to {}", path.display());
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v.get(i).copied().unwrap_or(f64::NAN)
}

/// Open time of the embedded event store kept in `home` (see the module doc).
fn open_times(home: &Path) {
    let timed = |opts: EventStoreOptions| {
        let t = Instant::now();
        let s = SqliteEventStore::open(home, opts).unwrap();
        let secs = t.elapsed().as_secs_f64();
        let load = s.index_load();
        let n = s.len();
        // Drop outside the timing (a clean store does not dump on drop).
        drop(s);
        (secs, load, n)
    };
    let cold = EventStoreOptions {
        persist_index: false,
        ..EventStoreOptions::default()
    };
    let (rebuild_s, _, n) = timed(cold);
    let _ = std::fs::remove_dir_all(SqliteEventStore::index_dir(home));
    let (first_s, first, _) = timed(EventStoreOptions::default());
    let (second_s, second, _) = timed(EventStoreOptions::default());
    assert!(
        !first.loaded_from_dump && second.loaded_from_dump,
        "{first:?} {second:?}"
    );
    println!(
        "\n| open of the embedded store ({n} events, {} vectors) | s |",
        second.vectors
    );
    println!("|---|---|");
    println!(
        "| index persistence off: HNSW rebuilt from SQLite (every open before) | {rebuild_s:.2} |"
    );
    println!("| first open, no dump: rebuilt, then dumped | {first_s:.2} |");
    println!("| second open: HNSW loaded from its dump | {second_s:.2} |");
}

fn main() {
    if std::env::var("MEMORY_BENCH_OPEN_ONLY").is_ok_and(|v| v == "1") {
        let home = std::env::var_os("MEMORY_BENCH_HOME")
            .map(PathBuf::from)
            .expect("MEMORY_BENCH_OPEN_ONLY=1 needs MEMORY_BENCH_HOME");
        open_times(&home);
        return;
    }
    let n = env_usize("MEMORY_BENCH_EVENTS", 50_000);
    let auto_n = env_usize("MEMORY_BENCH_AUTO", 2_000);
    let Some(evs) = sentences(n) else {
        eprintln!("\n*** memory bench SKIPPED: SciFact not found (shared/data/scifact) ***\n");
        return;
    };
    let model = LocalEmbedder::default_model_dir();
    let embedder = match LocalEmbedder::builder(&model).build() {
        Ok(e) => Arc::new(e),
        Err(e) => {
            eprintln!("\n*** memory bench SKIPPED: cannot load all-MiniLM-L6-v2: {e} ***\n");
            return;
        }
    };
    let dim = embedder.id().dim;
    let texts: Vec<String> = evs.iter().map(|e| e.text.clone()).collect();
    let vectors = cached_vectors(&embedder, &texts, dim);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let new_event = |i: usize, with_vec: bool| {
        let e = &evs[i];
        NewEvent {
            content: obj(json!({"text": e.text, "doc_id": e.doc, "role": "agent"})),
            metadata: obj(
                json!({"event_type": e.ty, "session_id": e.session, "source": "scifact"}),
            ),
            embedding: with_vec.then(|| vectors[i].clone()),
            timestamp: Some(e.ts),
            expires_at: None,
        }
    };

    // Write throughput, vectors supplied.
    let redis = std::env::var("MEMORY_BENCH_BACKEND").is_ok_and(|b| b == "redis");
    let kept_home = std::env::var_os("MEMORY_BENCH_HOME").map(PathBuf::from);
    let temp_home = tempfile::tempdir().unwrap();
    let home_path = kept_home
        .clone()
        .unwrap_or_else(|| temp_home.path().to_path_buf());
    let open_store = |tag: &str, home: &std::path::Path| -> Arc<dyn EventStore> {
        if redis {
            let url =
                std::env::var("REDIS_URL").expect("MEMORY_BENCH_BACKEND=redis needs REDIS_URL");
            let space = format!("bench{tag}{}", std::process::id());
            let s = rt.block_on(RedisEventStore::connect(&url, &space, Default::default()));
            Arc::new(s.unwrap())
        } else {
            std::fs::create_dir_all(home).unwrap();
            Arc::new(SqliteEventStore::open(home, EventStoreOptions::default()).unwrap())
        }
    };
    let store = open_store("a", &home_path);
    println!(
        "backend: {}",
        if redis {
            "redis (REDIS_URL)"
        } else {
            "embedded SQLite"
        }
    );
    let memory = Memory::builder(store.clone()).build().unwrap();
    let t = Instant::now();
    for start in (0..evs.len()).step_by(500) {
        let batch: Vec<NewEvent> = (start..(start + 500).min(evs.len()))
            .map(|i| new_event(i, true))
            .collect();
        rt.block_on(memory.add_many(batch)).unwrap();
    }
    let write_s = t.elapsed().as_secs_f64();
    println!("events: {}  dim: {dim}", evs.len());
    println!(
        "write, vectors supplied: {:.1} s → {:.0} events/s (batches of 500, HNSW included)",
        write_s,
        evs.len() as f64 / write_s
    );

    // Write throughput, auto-embedding.
    let home2 = tempfile::tempdir().unwrap();
    let store2 = open_store("b", home2.path());
    let memory2 = Memory::builder(store2)
        .embedder(embedder.clone())
        .build()
        .unwrap();
    let auto_n = auto_n.min(evs.len());
    let t = Instant::now();
    for start in (0..auto_n).step_by(64) {
        let batch: Vec<NewEvent> = (start..(start + 64).min(auto_n))
            .map(|i| new_event(i, false))
            .collect();
        rt.block_on(memory2.add_many(batch)).unwrap();
    }
    let auto_s = t.elapsed().as_secs_f64();
    println!(
        "write, auto-embedding: {auto_n} events in {:.1} s → {:.0} events/s (batches of 64)",
        auto_s,
        auto_n as f64 / auto_s
    );

    // Queries.
    let qs = claims(300);
    let mut embed_ms = Vec::new();
    let mut qv = Vec::new();
    for q in &qs {
        let t = Instant::now();
        qv.push(rt.block_on(embedder.embed_query(q)).unwrap());
        embed_ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let year = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).single().unwrap();
    let window = |i: usize, days: i64| {
        let s = year + Duration::days((i as i64 * 37) % (365 - days));
        (Some(s), Some(s + Duration::days(days)))
    };
    let now = Utc::now();
    let cases: Vec<(&str, SearchCase<'_>)> = vec![
        (
            "vector only (threshold 1.0)",
            Box::new(|i| EventSearch {
                mode: EventSearchMode::Vector,
                vector: Some(qv[i].clone()),
                text: None,
                filter: EventFilter::default(),
                max_distance: Some(1.0),
                limit: 10,
                offset: 0,
                now,
            }),
        ),
        (
            "vector + event_type + 30-day window",
            Box::new(|i| {
                let (s, e) = window(i, 30);
                EventSearch {
                    mode: EventSearchMode::Vector,
                    vector: Some(qv[i].clone()),
                    text: None,
                    filter: EventFilter {
                        metadata: Some(obj(json!({"event_type": TYPES[i % 5]}))),
                        ts_start: s,
                        ts_end: e,
                    },
                    max_distance: Some(1.0),
                    limit: 10,
                    offset: 0,
                    now,
                }
            }),
        ),
        (
            "metadata (session_id) + 90-day window",
            Box::new(|i| {
                let (s, e) = window(i, 90);
                EventSearch {
                    mode: EventSearchMode::MetadataOnly,
                    vector: None,
                    text: None,
                    filter: EventFilter {
                        metadata: Some(obj(
                            json!({"session_id": format!("session-{}", (i * 31) % 500)}),
                        )),
                        ts_start: s,
                        ts_end: e,
                    },
                    max_distance: None,
                    limit: 10,
                    offset: 0,
                    now,
                }
            }),
        ),
        (
            "hybrid (vector + BM25, no filter)",
            Box::new(|i| EventSearch {
                mode: EventSearchMode::Hybrid,
                vector: Some(qv[i].clone()),
                text: Some(qs[i].clone()),
                filter: EventFilter::default(),
                max_distance: None,
                limit: 10,
                offset: 0,
                now,
            }),
        ),
    ];
    if let (Some(home), false) = (&kept_home, redis) {
        write_rest_queries(&home.join("bench-queries.jsonl"), &cases, &qs);
    }
    println!(
        "\n| search (k = 10, {} queries, query embedding excluded) | p50 ms | p95 ms | mean hits |",
        qs.len()
    );
    println!("|---|---|---|---|");
    let only: Vec<String> = std::env::var("MEMORY_BENCH_CASES")
        .map(|v| v.split(',').map(|s| s.trim().to_string()).collect())
        .unwrap_or_default();
    let rounds = env_usize("MEMORY_BENCH_ROUNDS", 1).max(1);
    for (name, make) in &cases {
        if !only.is_empty() && !only.iter().any(|o| name.contains(o.as_str())) {
            continue;
        }
        for i in 0..qs.len().min(30) {
            let _ = rt.block_on(store.search(&make(i)));
        }
        let mut ms = Vec::with_capacity(qs.len() * rounds);
        let mut hits = 0usize;
        for i in (0..qs.len()).cycle().take(qs.len() * rounds) {
            let s = make(i);
            let t = Instant::now();
            let page = rt.block_on(store.search(&s)).unwrap();
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            hits += page.data.len();
        }
        println!(
            "| {name} | {:.3} | {:.3} | {:.1} |",
            pct(&mut ms, 0.5),
            pct(&mut ms, 0.95),
            hits as f64 / (qs.len() * rounds) as f64
        );
    }
    println!(
        "| query embedding (MiniLM, one claim) | {:.3} | {:.3} | |",
        pct(&mut embed_ms, 0.5),
        pct(&mut embed_ms, 0.95)
    );
    drop(cases);
    drop((memory, store));
    if !redis {
        open_times(&home_path);
    }
}
