//! The embedded event store keeps its HNSW graph on disk: a reopen takes it
//! from the dump (no rebuild) when the dump matches the database, and
//! rebuilds from SQLite — with the same results — when the dump is stale,
//! damaged, of another dimension or the database was edited behind it.
//! Deleted, purged and expired events stay gone across a dump/load cycle.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, TimeZone, Utc};
use serde_json::{json, Map, Value};
use uuid::Uuid;
use verity_core::{Event, EventFilter, EventRecord, EventSearch, EventSearchMode, EventStore};
use verity_store::{DenseIndex, EventStoreOptions, HnswParams, SqliteEventStore};

const DIM: usize = 16;
/// Above the catalog's exact-scan limit (10,000): unfiltered searches walk the graph.
const LARGE: usize = 10_400;

fn base() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 6, 1, 0, 0, 0).single().unwrap()
}

/// Deterministic pseudo-random vector `i` (splitmix64).
fn vector(i: u64) -> Vec<f32> {
    let mut x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(1);
    (0..DIM)
        .map(|_| {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            (z >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        })
        .collect()
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

fn id(i: usize) -> Uuid {
    Uuid::from_u128(0x5eed_0000_0000_0000_0000_0000_0000_0000 + i as u128)
}

fn record(i: usize, expires_at: Option<DateTime<Utc>>) -> EventRecord {
    let text = format!("event number {i} kind{}", i % 7);
    EventRecord {
        event: Event {
            id: id(i),
            timestamp: base() + Duration::minutes(i as i64),
            content: obj(json!({ "text": text })),
            metadata: obj(json!({ "kind": format!("k{}", i % 7), "n": i })),
            embedding: Some(vector(i as u64)),
            similarity_score: None,
            rank_score: None,
            expires_at,
        },
        text: Some(text),
    }
}

/// A light graph keeps the large stores quick to build in debug tests.
fn options() -> EventStoreOptions {
    EventStoreOptions {
        hnsw: HnswParams {
            m: 8,
            ef_construction: 32,
            ef_search: 64,
            min_graph_points: 0,
        },
        ..EventStoreOptions::default()
    }
}

fn open(home: &Path) -> SqliteEventStore {
    SqliteEventStore::open(home, options()).unwrap()
}

async fn write_range(s: &SqliteEventStore, n: usize) {
    for start in (0..n).step_by(2_000) {
        let batch = (start..(start + 2_000).min(n))
            .map(|i| record(i, None))
            .collect();
        s.write(batch).await.unwrap();
    }
}

fn search(q: Vec<f32>, filter: EventFilter, now: DateTime<Utc>) -> EventSearch {
    EventSearch {
        mode: EventSearchMode::Vector,
        vector: Some(q),
        text: None,
        filter,
        max_distance: None,
        limit: 10,
        offset: 0,
        now,
    }
}

/// Queries: vectors near stored events, unfiltered (graph walk on large
/// stores) and filtered on a metadata value.
fn queries() -> Vec<EventSearch> {
    let mut out = Vec::new();
    for q in 0..12u64 {
        let v: Vec<f32> = vector(1_000_000 + q)
            .iter()
            .zip(vector(q * 37))
            .map(|(a, b)| a * 0.3 + b)
            .collect();
        out.push(search(v.clone(), EventFilter::default(), base()));
        let f = EventFilter {
            metadata: Some(obj(json!({ "kind": format!("k{}", q % 7) }))),
            ..EventFilter::default()
        };
        out.push(search(v, f, base()));
    }
    out
}

type Answers = Vec<Vec<(Uuid, Option<f32>)>>;

async fn answers(s: &SqliteEventStore, qs: &[EventSearch]) -> Answers {
    let mut out = Vec::new();
    for q in qs {
        let page = s.search(q).await.unwrap();
        out.push(
            page.data
                .iter()
                .map(|e| (e.id, e.similarity_score))
                .collect(),
        );
    }
    out
}

fn dump_dir(home: &Path) -> PathBuf {
    SqliteEventStore::index_dir(home)
}

fn dump_file(home: &Path, suffix: &str) -> PathBuf {
    std::fs::read_dir(dump_dir(home))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(suffix))
        .unwrap_or_else(|| panic!("no dump file ending in {suffix}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reopen_takes_the_graph_from_its_dump_and_answers_alike() {
    let home = tempfile::tempdir().unwrap();
    let s = open(home.path());
    let first = s.index_load();
    assert!(!first.loaded_from_dump);
    assert_eq!(first.rebuild_reason, None, "nothing to index yet");
    write_range(&s, LARGE).await;
    let qs = queries();
    let before = answers(&s, &qs).await;
    assert!(before.iter().all(|a| a.len() == 10));
    drop(s);
    assert_eq!(
        dump_dir(home.path()),
        home.path().join("index").join("memory")
    );
    assert!(dump_dir(home.path()).join("events.hnsw.meta").is_file());

    let s = open(home.path());
    let load = s.index_load();
    assert!(load.loaded_from_dump, "{load:?}");
    assert_eq!(load.rebuild_reason, None);
    assert_eq!(load.vectors, LARGE);
    assert_eq!(s.len(), LARGE);
    assert_eq!(answers(&s, &qs).await, before);

    // Untouched, the store does not dump again; reopening still loads.
    let meta = std::fs::read(dump_dir(home.path()).join("events.hnsw.meta")).unwrap();
    drop(s);
    assert_eq!(
        std::fs::read(dump_dir(home.path()).join("events.hnsw.meta")).unwrap(),
        meta
    );
    let s = open(home.path());
    assert!(s.index_load().loaded_from_dump);

    // Without persistence the graph is rebuilt (another approximate graph:
    // the nearest events agree).
    let opts = EventStoreOptions {
        persist_index: false,
        ..options()
    };
    let cold = SqliteEventStore::open(home.path(), opts).unwrap();
    assert!(!cold.index_load().loaded_from_dump);
    let firsts = |a: Answers| a.iter().map(|hits| hits[0].0).collect::<Vec<_>>();
    assert_eq!(firsts(answers(&cold, &qs).await), firsts(before));
}

#[tokio::test]
async fn a_write_after_the_dump_by_another_handle_makes_it_stale() {
    let home = tempfile::tempdir().unwrap();
    let a = open(home.path());
    write_range(&a, 300).await;
    let qs = queries();
    drop(a);

    let b = open(home.path());
    assert!(b.index_load().loaded_from_dump);
    b.write(vec![record(300, None)]).await.unwrap();
    b.delete(&[id(5)]).await.unwrap();
    // `b` stays open: its changes are in SQLite, not in the dump.
    let c = open(home.path());
    let load = c.index_load();
    assert!(!load.loaded_from_dump);
    let reason = load.rebuild_reason.unwrap();
    assert!(reason.contains("stale"), "{reason}");
    assert_eq!(load.vectors, 300);
    assert_eq!(answers(&c, &qs).await, answers(&b, &qs).await);
    let own = c
        .search(&search(vector(300), EventFilter::default(), base()))
        .await
        .unwrap();
    assert_eq!(own.data[0].id, id(300));
    let gone = c
        .search(&search(vector(5), EventFilter::default(), base()))
        .await
        .unwrap();
    assert!(gone.data.iter().all(|e| e.id != id(5)));
    // `c` dumped what it rebuilt: the next open loads it.
    drop(c);
    let d = open(home.path());
    assert!(d.index_load().loaded_from_dump);
    assert_eq!(answers(&d, &qs).await, answers(&b, &qs).await);
}

#[tokio::test]
async fn a_database_edited_behind_the_generation_is_rebuilt() {
    let home = tempfile::tempdir().unwrap();
    let a = open(home.path());
    write_range(&a, 200).await;
    drop(a);
    let db = home.path().join(verity_store::DB_FILE);

    // One vector replaced (the generation left alone).
    let far: Vec<u8> = vector(999_999)
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute(
        "UPDATE events SET embedding = ?1 WHERE id = ?2",
        rusqlite::params![far, id(7).to_string()],
    )
    .unwrap();
    drop(conn);
    let s = open(home.path());
    let reason = s.index_load().rebuild_reason.unwrap();
    assert!(reason.contains("differs"), "{reason}");
    let hit = s
        .search(&search(vector(999_999), EventFilter::default(), base()))
        .await
        .unwrap();
    assert_eq!(hit.data[0].id, id(7));
    assert!(hit.data[0].similarity_score.unwrap() < 1e-3);
    drop(s);

    // One event removed (the generation left alone).
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("DELETE FROM events WHERE id = ?1", [id(9).to_string()])
        .unwrap();
    drop(conn);
    let s = open(home.path());
    let reason = s.index_load().rebuild_reason.unwrap();
    assert!(reason.contains("199"), "{reason}");
    assert_eq!(s.index_load().vectors, 199);
}

#[tokio::test]
async fn damaged_or_foreign_dumps_are_rebuilt_without_panic() {
    let home = tempfile::tempdir().unwrap();
    let a = open(home.path());
    write_range(&a, 400).await;
    let qs = queries();
    let reference = answers(&a, &qs).await;
    drop(a);
    let generation = {
        let conn = rusqlite::Connection::open(home.path().join(verity_store::DB_FILE)).unwrap();
        let g: String = conn
            .query_row(
                "SELECT value FROM events_meta WHERE key = 'generation'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        g.parse::<u64>().unwrap()
    };

    type Damage = Box<dyn Fn(&Path)>;
    let cases: Vec<(&str, Damage)> = vec![
        (
            "truncated graph",
            Box::new(|h: &Path| {
                let p = dump_file(h, ".hnsw.graph");
                let len = std::fs::metadata(&p).unwrap().len();
                let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
                f.set_len(len / 2).unwrap();
            }),
        ),
        (
            "flipped bytes in the vectors",
            Box::new(|h: &Path| {
                let p = dump_file(h, ".hnsw.data");
                let mut b = std::fs::read(&p).unwrap();
                let mid = b.len() / 2;
                for x in &mut b[mid..mid + 64] {
                    *x ^= 0xA5;
                }
                std::fs::write(&p, b).unwrap();
            }),
        ),
        (
            "garbage sidecar",
            Box::new(|h: &Path| {
                std::fs::write(
                    dump_dir(h).join("events.hnsw.meta"),
                    b"\x00\xffnot a sidecar",
                )
                .unwrap();
            }),
        ),
        (
            "missing slot table",
            Box::new(|h: &Path| std::fs::remove_file(dump_file(h, ".ids")).unwrap()),
        ),
        (
            "missing dump",
            Box::new(|h: &Path| std::fs::remove_dir_all(dump_dir(h)).unwrap()),
        ),
        (
            "another dimension",
            Box::new(move |h: &Path| {
                let mut other = DenseIndex::new(8, HnswParams::default(), 16);
                let items: Vec<(u64, Vec<f32>)> =
                    (1..=400u64).map(|i| (i, vector(i)[..8].to_vec())).collect();
                other.insert_batch(&items).unwrap();
                other.dump(&dump_dir(h), "events", generation).unwrap();
            }),
        ),
    ];
    for (name, damage) in cases {
        damage(home.path());
        let s = open(home.path());
        let load = s.index_load();
        assert!(!load.loaded_from_dump, "{name}: {load:?}");
        assert!(load.rebuild_reason.is_some(), "{name}");
        assert_eq!(answers(&s, &qs).await, reference, "{name}");
        drop(s);
        // The rebuilt graph was dumped again.
        let s = open(home.path());
        assert!(s.index_load().loaded_from_dump, "{name}: not re-dumped");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleted_purged_and_expired_events_stay_gone_after_reopen() {
    let home = tempfile::tempdir().unwrap();
    let s = open(home.path());
    write_range(&s, LARGE).await;
    let t1 = base() + Duration::days(400);
    let t2 = base() + Duration::days(500);
    // 0..20 expire at t1 (purged below), 20..40 at t2 (expired, not purged).
    let expiring = (0..40)
        .map(|i| record(i, Some(if i < 20 { t1 } else { t2 })))
        .collect();
    s.write(expiring).await.unwrap();
    let deleted: Vec<Uuid> = (40..60).map(id).collect();
    assert_eq!(s.delete(&deleted).await.unwrap(), 20);
    let purged = s.purge_expired(t1 + Duration::hours(1)).await.unwrap();
    assert_eq!(purged, 20);
    let between = t1 + Duration::days(1);
    let after = t2 + Duration::days(1);
    let probe =
        |i: usize, now: DateTime<Utc>| search(vector(i as u64), EventFilter::default(), now);
    let qs: Vec<EventSearch> = (0..60)
        .flat_map(|i| [probe(i, between), probe(i, after)])
        .collect();
    let before = answers(&s, &qs).await;
    drop(s);

    let s = open(home.path());
    assert!(s.index_load().loaded_from_dump, "{:?}", s.index_load());
    assert_eq!(s.len(), LARGE - 40);
    assert_eq!(answers(&s, &qs).await, before);
    for i in 0..60 {
        for now in [between, after] {
            let page = s.search(&probe(i, now)).await.unwrap();
            let visible = (20..40).contains(&i) && now == between;
            assert_eq!(
                page.data.first().map(|e| e.id) == Some(id(i)),
                visible,
                "event {i} at {now}"
            );
            assert!(page.data.iter().all(|e| {
                let n = e.id.as_u128() as usize & 0xffff;
                !(n < 20 || (40..60).contains(&n) || (n < 40 && now == after))
            }));
        }
    }
}

#[tokio::test]
async fn metadata_merges_and_empty_purges_keep_a_current_dump() {
    let home = tempfile::tempdir().unwrap();
    let a = open(home.path());
    write_range(&a, 100).await;
    drop(a);
    let b = open(home.path());
    assert!(b.index_load().loaded_from_dump);
    // Nothing expired, nothing unknown deleted: no generation bump, no dump.
    assert_eq!(b.purge_expired(base()).await.unwrap(), 0);
    assert_eq!(b.delete(&[Uuid::from_u128(1)]).await.unwrap(), 0);
    let patch = obj(json!({ "kind": "merged" }));
    b.merge_metadata(id(3), &patch, base())
        .await
        .unwrap()
        .unwrap();
    drop(b);
    // The merge bumped the generation: `b` dumped again on drop.
    let c = open(home.path());
    assert!(c.index_load().loaded_from_dump, "{:?}", c.index_load());
    let f = EventFilter {
        metadata: Some(patch),
        ..EventFilter::default()
    };
    let hits = c.search(&search(vector(3), f, base())).await.unwrap();
    assert_eq!(
        hits.data.iter().map(|e| e.id).collect::<Vec<_>>(),
        vec![id(3)]
    );
}
