//! Behaviour of the HNSW dense index: recall, filters, deletes, dumps and damaged dumps.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::collections::HashSet;
use std::path::Path;

use verity_core::{Error, InputError, StoreError};
use verity_store::hnsw::{DenseIndex, HnswParams};

/// Small deterministic PRNG (SplitMix64) so that failures are reproducible.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    }
    fn vector(&mut self, dim: usize) -> Vec<f32> {
        (0..dim).map(|_| self.unit()).collect()
    }
}

const DIM: usize = 32;

fn params() -> HnswParams {
    HnswParams {
        m: 16,
        ef_construction: 100,
        ef_search: 64,
        min_graph_points: 0,
    }
}

fn build(n: usize, seed: u64) -> (DenseIndex, Vec<(u64, Vec<f32>)>) {
    let mut rng = Rng(seed);
    // Ids are sparse and large to make sure they are not confused with internal slots.
    let items: Vec<(u64, Vec<f32>)> = (0..n as u64)
        .map(|i| (i * 7 + 1_000_000, rng.vector(DIM)))
        .collect();
    let mut index = DenseIndex::new(DIM, params(), n);
    index.insert_batch(&items).unwrap();
    (index, items)
}

fn ids(hits: &[(u64, f32)]) -> Vec<u64> {
    hits.iter().map(|h| h.0).collect()
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}

/// Brute force over the raw vectors, independent of the index.
fn brute_force(
    items: &[(u64, Vec<f32>)],
    q: &[f32],
    k: usize,
    allow: impl Fn(u64) -> bool,
) -> Vec<(u64, f32)> {
    let mut all: Vec<(u64, f32)> = items
        .iter()
        .filter(|(id, _)| allow(*id))
        .map(|(id, v)| (*id, cosine(v, q)))
        .collect();
    all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    all.truncate(k);
    all
}

#[test]
fn recall_against_brute_force() {
    let (index, items) = build(2000, 1);
    assert_eq!(index.len(), 2000);
    assert_eq!(index.dim(), DIM);
    let mut rng = Rng(99);
    let (mut found, mut total) = (0usize, 0usize);
    for _ in 0..100 {
        let q = rng.vector(DIM);
        // The graph itself (`search` scans small indexes exactly).
        let hits = index.search_graph(&q, 10, None).unwrap();
        assert_eq!(hits.len(), 10);
        assert!(
            hits.windows(2).all(|w| w[0].1 >= w[1].1),
            "hits must be best first"
        );
        let truth = brute_force(&items, &q, 10, |_| true);
        let truth_ids: HashSet<u64> = ids(&truth).into_iter().collect();
        found += hits.iter().filter(|h| truth_ids.contains(&h.0)).count();
        total += 10;
        // Similarities are cosine similarities of the stored vectors.
        for (id, sim) in &hits {
            let v = &items.iter().find(|(i, _)| i == id).unwrap().1;
            assert!(
                (cosine(v, &q) - sim).abs() < 1e-4,
                "similarity of {id}: {sim} vs {}",
                cosine(v, &q)
            );
        }
    }
    let recall = found as f64 / total as f64;
    assert!(recall >= 0.95, "recall@10 = {recall}");
}

#[test]
fn small_indexes_are_searched_exactly() {
    let (index, items) = build(1500, 21);
    assert!(index.len() <= verity_store::EXACT_SCAN_MAX_POINTS);
    let mut rng = Rng(22);
    for _ in 0..20 {
        let q = rng.vector(DIM);
        let as_set = |hits: &[(u64, f32)]| ids(hits).into_iter().collect::<HashSet<u64>>();
        let truth = brute_force(&items, &q, 10, |_| true);
        assert_eq!(as_set(&index.search(&q, 10, None).unwrap()), as_set(&truth));
        let even = |id: u64| id % 2 == 0;
        let truth = brute_force(&items, &q, 25, even);
        let hits = index.search(&q, 25, Some(&even)).unwrap();
        assert!(hits.windows(2).all(|w| w[0].1 >= w[1].1));
        assert_eq!(as_set(&hits), as_set(&truth));
    }
}

#[test]
fn exact_search_matches_brute_force() {
    let (index, items) = build(500, 2);
    let q = Rng(5).vector(DIM);
    let exact = index.search_exact(&q, 10, None).unwrap();
    assert_eq!(ids(&exact), ids(&brute_force(&items, &q, 10, |_| true)));
}

#[test]
fn query_identical_to_a_stored_vector_comes_first() {
    let (index, items) = build(1000, 3);
    for (id, v) in items.iter().step_by(97) {
        let hits = index.search(v, 1, None).unwrap();
        assert_eq!(hits[0].0, *id);
        assert!((hits[0].1 - 1.0).abs() < 1e-4);
    }
}

#[test]
fn filtered_search_returns_only_allowed_ids_and_k_hits() {
    let (index, items) = build(2000, 4);
    let mut rng = Rng(7);
    // 10 %, 1 % and a handful of allowed ids.
    let filters: Vec<Box<dyn Fn(u64) -> bool + Sync>> = vec![
        Box::new(|id: u64| (id / 7) % 10 == 3),
        Box::new(|id: u64| (id / 7) % 100 == 42),
        Box::new(|id: u64| [1_000_007u64, 1_000_014, 1_000_700].contains(&id)),
    ];
    for f in &filters {
        let allowed = items.iter().filter(|(id, _)| f(*id)).count();
        for _ in 0..20 {
            let q = rng.vector(DIM);
            let hits = index.search(&q, 10, Some(f.as_ref())).unwrap();
            assert_eq!(hits.len(), 10.min(allowed), "allowed={allowed}");
            assert!(
                hits.iter().all(|(id, _)| f(*id)),
                "a filtered-out id came back"
            );
            let truth = brute_force(&items, &q, 10, f);
            let truth_ids: HashSet<u64> = ids(&truth).into_iter().collect();
            let overlap = hits.iter().filter(|h| truth_ids.contains(&h.0)).count();
            assert!(
                overlap >= 8.min(allowed),
                "overlap {overlap} of {} (allowed={allowed})",
                hits.len()
            );
        }
    }
    // The graph walk itself applies the filter (no post-filtering shortfall) at 10 %.
    let f = &filters[0];
    let q = rng.vector(DIM);
    let hits = index.search_graph(&q, 10, Some(f.as_ref())).unwrap();
    assert_eq!(hits.len(), 10);
    assert!(hits.iter().all(|(id, _)| f(*id)));
    // A filter that allows nothing gives nothing.
    assert!(index.search(&q, 10, Some(&|_| false)).unwrap().is_empty());
}

#[test]
fn deleted_ids_are_never_returned_and_replacements_win() {
    let (mut index, items) = build(1000, 5);
    let q = Rng(11).vector(DIM);
    let first = index.search(&q, 10, None).unwrap();
    let removed: Vec<u64> = ids(&first[..5]);
    for id in &removed {
        assert!(index.remove(*id));
        assert!(!index.remove(*id), "second removal reports nothing removed");
    }
    assert!(!index.remove(42), "unknown id");
    assert_eq!(index.len(), 995);
    let after = index.search(&q, 10, None).unwrap();
    assert_eq!(after.len(), 10);
    assert!(after.iter().all(|(id, _)| !removed.contains(id)));
    assert_eq!(ids(&after[..5]), ids(&first[5..]), "the next best move up");
    // Also with a filter and with the exact path.
    let f = |_: u64| true;
    assert!(index
        .search(&q, 50, Some(&f))
        .unwrap()
        .iter()
        .all(|(id, _)| !removed.contains(id)));
    assert!(index
        .search_exact(&q, 50, None)
        .unwrap()
        .iter()
        .all(|(id, _)| !removed.contains(id)));

    // Re-inserting a removed id and replacing a live id: the new vectors are what is found.
    let replaced = items[100].0;
    let new_vec = Rng(12).vector(DIM);
    let neg_q: Vec<f32> = q.iter().map(|x| -x).collect();
    index
        .insert_batch(&[(removed[0], q.clone()), (replaced, new_vec.clone())])
        .unwrap();
    assert_eq!(index.len(), 996);
    let hit = index.search(&q, 1, None).unwrap();
    assert_eq!(hit[0].0, removed[0]);
    assert!((hit[0].1 - 1.0).abs() < 1e-4);
    let hit = index.search(&new_vec, 1, None).unwrap();
    assert_eq!(hit[0].0, replaced);
    // The old vector of `replaced` is gone: searching for it does not give `replaced` at similarity 1.
    for (id, sim) in index.search(&items[100].1, 10, None).unwrap() {
        assert!(!(id == replaced && sim > 0.999));
    }
    assert!(
        index
            .search_exact(&neg_q, 2000, None)
            .unwrap()
            .iter()
            .filter(|(id, _)| *id == replaced)
            .count()
            <= 1
    );

    // Within a batch the last vector of a repeated id wins.
    index
        .insert_batch(&[(7, neg_q.clone()), (7, q.clone())])
        .unwrap();
    let hits = index.search(&q, 2, None).unwrap();
    assert_eq!(hits.iter().filter(|(id, _)| *id == 7).count(), 1);
}

#[test]
fn rebuild_drops_tombstones_and_keeps_results() {
    let (mut index, _) = build(1000, 6);
    assert!(!index.needs_rebuild());
    for id in (0..300u64).map(|i| i * 7 + 1_000_000) {
        assert!(index.remove(id));
    }
    assert!(index.needs_rebuild(), "30 % tombstones");
    let q = Rng(13).vector(DIM);
    let before = index.search_exact(&q, 10, None).unwrap();
    index.rebuild().unwrap();
    assert!(!index.needs_rebuild());
    assert_eq!(index.tombstones(), 0);
    assert_eq!(index.points(), 700);
    assert_eq!(index.len(), 700);
    assert_eq!(
        ids(&index.search_exact(&q, 10, None).unwrap()),
        ids(&before)
    );
    let approx = index.search(&q, 10, None).unwrap();
    assert!(
        approx
            .iter()
            .filter(|h| before.iter().any(|b| b.0 == h.0))
            .count()
            >= 8
    );
}

#[test]
fn bad_vectors_are_rejected_with_typed_errors() {
    let (mut index, _) = build(100, 7);
    let bad_dim = index.insert_batch(&[(1, vec![0.5; DIM]), (2, vec![0.5; DIM + 1])]);
    assert!(
        matches!(bad_dim, Err(Error::Input(InputError::Invalid(_)))),
        "{bad_dim:?}"
    );
    let mut nan = vec![0.5; DIM];
    nan[3] = f32::NAN;
    assert!(matches!(
        index.insert_batch(&[(3, nan.clone())]),
        Err(Error::Input(_))
    ));
    assert!(matches!(
        index.insert_batch(&[(4, vec![0.0; DIM])]),
        Err(Error::Input(_))
    ));
    assert_eq!(index.len(), 100, "a rejected batch inserts nothing");
    assert!(!index.contains(1));
    assert!(matches!(
        index.search(&[0.5; 3], 5, None),
        Err(Error::Input(_))
    ));
    assert!(matches!(index.search(&nan, 5, None), Err(Error::Input(_))));
    assert!(index.search(&[0.5; DIM], 0, None).unwrap().is_empty());
    // Vectors need not be normalised by the caller.
    let mut big = Rng(8).vector(DIM);
    big.iter_mut().for_each(|x| *x *= 1000.0);
    index.insert_batch(&[(5, big.clone())]).unwrap();
    let hit = index.search(&big, 1, None).unwrap();
    assert_eq!(hit[0].0, 5);
    assert!((hit[0].1 - 1.0).abs() < 1e-4);
}

#[test]
fn empty_index_searches_and_dumps() {
    let index = DenseIndex::new(DIM, params(), 0);
    assert!(index.is_empty());
    assert!(index.search(&[0.1; DIM], 5, None).unwrap().is_empty());
    let dir = tempfile::tempdir().unwrap();
    index.dump(dir.path(), "empty", 1).unwrap();
    let mut loaded = DenseIndex::load(dir.path(), "empty", DIM, 1).unwrap();
    assert!(loaded.is_empty());
    loaded.insert_batch(&[(1, vec![0.1; DIM])]).unwrap();
    assert_eq!(loaded.search(&[0.1; DIM], 5, None).unwrap()[0].0, 1);
}

#[test]
fn dump_load_round_trip_gives_the_same_results() {
    let (mut index, _) = build(1500, 8);
    index.remove(1_000_000);
    index
        .insert_batch(&[(1_000_007, Rng(77).vector(DIM))])
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    index.dump(dir.path(), "default", 3).unwrap();
    let mut loaded = DenseIndex::load(dir.path(), "default", DIM, 3).unwrap();
    assert_eq!(loaded.len(), index.len());
    assert_eq!(loaded.points(), index.points());
    assert_eq!(loaded.tombstones(), index.tombstones());
    assert_eq!(loaded.dim(), DIM);
    assert_eq!(loaded.params(), index.params());
    let mut rng = Rng(21);
    for _ in 0..30 {
        let q = rng.vector(DIM);
        let a = index.search(&q, 10, None).unwrap();
        let b = loaded.search(&q, 10, None).unwrap();
        assert_eq!(ids(&a), ids(&b));
        for (x, y) in a.iter().zip(&b) {
            assert!((x.1 - y.1).abs() < 1e-6);
        }
        let f = |id: u64| id % 3 == 0;
        assert_eq!(
            ids(&index.search(&q, 10, Some(&f)).unwrap()),
            ids(&loaded.search(&q, 10, Some(&f)).unwrap())
        );
    }
    assert!(loaded
        .search(&rng.vector(DIM), 2000, None)
        .unwrap()
        .iter()
        .all(|(id, _)| *id != 1_000_000));
    // The loaded index accepts new vectors and can be dumped again (next generation).
    let v = rng.vector(DIM);
    loaded.insert_batch(&[(5, v.clone())]).unwrap();
    assert_eq!(loaded.search(&v, 1, None).unwrap()[0].0, 5);
    loaded.dump(dir.path(), "default", 4).unwrap();
    let again = DenseIndex::load(dir.path(), "default", DIM, 4).unwrap();
    assert_eq!(again.len(), loaded.len());
    assert_eq!(again.search(&v, 1, None).unwrap()[0].0, 5);
    // Files of generation 3 are gone; nothing but generation 4 and the sidecar remains.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| n == "default.hnsw.meta" || n.starts_with("default.hnsw.g4.")),
        "{names:?}"
    );
}

/// Settings with a graph only from `min` live vectors on.
fn graph_from(min: usize) -> HnswParams {
    HnswParams {
        min_graph_points: min,
        ..params()
    }
}

fn random_items(n: usize, seed: u64) -> Vec<(u64, Vec<f32>)> {
    let mut rng = Rng(seed);
    (0..n as u64)
        .map(|i| (i * 7 + 1_000_000, rng.vector(DIM)))
        .collect()
}

#[test]
fn an_index_below_min_graph_points_has_no_graph_and_finds_the_exact_top_k() {
    // Past EXACT_SCAN_MAX_POINTS, so `search` takes the int8 scan, not the small-index path.
    let n = verity_store::EXACT_SCAN_MAX_POINTS + 2_000;
    let items = random_items(n, 41);
    let mut index = DenseIndex::new(DIM, graph_from(n + 1), 16);
    for part in items.chunks(1_000) {
        index.insert_batch(part).unwrap();
    }
    assert!(!index.has_graph());
    assert_eq!(index.len(), n);
    assert!(index.prefers_scan(10));
    let mut rng = Rng(42);
    let third = |id: u64| id % 3 == 0;
    for _ in 0..20 {
        let q = rng.vector(DIM);
        let hits = index.search(&q, 10, None).unwrap();
        assert_eq!(ids(&hits), ids(&brute_force(&items, &q, 10, |_| true)));
        for ((_, a), (_, b)) in hits.iter().zip(&brute_force(&items, &q, 10, |_| true)) {
            assert!((a - b).abs() < 1e-4);
        }
        let filtered = index.search(&q, 10, Some(&third)).unwrap();
        assert_eq!(ids(&filtered), ids(&brute_force(&items, &q, 10, third)));
        // The diagnostic walk has no graph to walk: it scans.
        assert_eq!(ids(&index.search_graph(&q, 10, None).unwrap()), ids(&hits));
    }
}

#[test]
fn the_insert_that_reaches_min_graph_points_builds_the_graph_of_the_live_vectors() {
    let items = random_items(3_000, 43);
    let mut index = DenseIndex::new(DIM, graph_from(2_500), 16);
    index.insert_batch(&items[..2_000]).unwrap();
    assert!(!index.has_graph());
    // Deletes and replacements while graphless.
    let mut live: Vec<(u64, Vec<f32>)> = items.clone();
    for (id, _) in items.iter().take(100) {
        assert!(index.remove(*id));
    }
    live.retain(|(id, _)| !items[..100].iter().any(|(d, _)| d == id));
    let replaced = (items[150].0, Rng(44).vector(DIM));
    index.insert_batch(std::slice::from_ref(&replaced)).unwrap();
    for item in live.iter_mut().filter(|(id, _)| *id == replaced.0) {
        item.1 = replaced.1.clone();
    }
    assert!(!index.has_graph());
    index.insert_batch(&items[2_000..]).unwrap();
    assert!(index.has_graph());
    assert_eq!(index.len(), live.len());
    assert_eq!(
        index.tombstones(),
        0,
        "the graph holds the live vectors only"
    );
    let mut rng = Rng(45);
    let (mut found, mut total) = (0usize, 0usize);
    for _ in 0..50 {
        let q = rng.vector(DIM);
        let hits = index.search_graph(&q, 10, None).unwrap();
        assert!(hits
            .iter()
            .all(|(id, _)| !items[..100].iter().any(|(d, _)| d == id)));
        let truth: HashSet<u64> = ids(&brute_force(&live, &q, 10, |_| true))
            .into_iter()
            .collect();
        found += hits.iter().filter(|h| truth.contains(&h.0)).count();
        total += 10;
    }
    assert!(
        found as f64 / total as f64 >= 0.95,
        "recall {found}/{total}"
    );
    // The replacement's new vector is the one stored.
    assert_eq!(index.search(&replaced.1, 1, None).unwrap()[0].0, replaced.0);
}

#[test]
fn a_graphless_dump_round_trips_and_a_damaged_one_is_corrupt() {
    let items = random_items(800, 46);
    let mut index = DenseIndex::new(DIM, graph_from(5_000), 16);
    index.insert_batch(&items).unwrap();
    index.remove(items[3].0);
    let dir = tempfile::tempdir().unwrap();
    index.dump(dir.path(), "idx", 1).unwrap();
    let loaded = DenseIndex::load(dir.path(), "idx", DIM, 1).unwrap();
    assert!(!loaded.has_graph());
    assert_eq!(loaded.params(), index.params());
    assert_eq!(
        (loaded.len(), loaded.points(), loaded.tombstones()),
        (799, 800, 1)
    );
    let mut rng = Rng(47);
    for _ in 0..10 {
        let q = rng.vector(DIM);
        assert_eq!(
            ids(&loaded.search(&q, 10, None).unwrap()),
            ids(&index.search(&q, 10, None).unwrap())
        );
    }
    let vectors = file(dir.path(), "vectors");
    let bytes = std::fs::read(&vectors).unwrap();
    std::fs::write(&vectors, &bytes[..bytes.len() - 4]).unwrap();
    expect_corrupt(dir.path());
}

fn dumped(dir: &Path) -> DenseIndex {
    let (index, _) = build(500, 9);
    index.dump(dir, "idx", 1).unwrap();
    index
}

fn expect_corrupt(dir: &Path) {
    match DenseIndex::load(dir, "idx", DIM, 1) {
        Err(Error::Store(StoreError::Corrupt(_))) => {}
        other => panic!("expected a Corrupt error, got {other:?}"),
    }
}

fn file(dir: &Path, suffix: &str) -> std::path::PathBuf {
    dir.join(format!("idx.hnsw.g1.{suffix}"))
}

#[test]
fn missing_dump_is_not_found() {
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(
        DenseIndex::load(dir.path(), "idx", DIM, 1),
        Err(Error::Store(StoreError::NotFound { .. }))
    ));
    assert!(matches!(
        DenseIndex::load(&dir.path().join("nope"), "idx", DIM, 1),
        Err(Error::Store(StoreError::NotFound { .. }))
    ));
}

#[test]
fn stale_generation_and_wrong_dim_require_reindex() {
    let dir = tempfile::tempdir().unwrap();
    dumped(dir.path());
    assert!(matches!(
        DenseIndex::load(dir.path(), "idx", DIM, 2),
        Err(Error::Store(StoreError::ReindexRequired { .. }))
    ));
    assert!(matches!(
        DenseIndex::load(dir.path(), "idx", DIM + 1, 1),
        Err(Error::Store(StoreError::ReindexRequired { .. }))
    ));
    assert!(DenseIndex::load(dir.path(), "idx", DIM, 1).is_ok());
    assert!(matches!(
        DenseIndex::load(dir.path(), "../idx", DIM, 1),
        Err(Error::Input(_))
    ));
}

#[test]
fn truncated_files_are_corrupt() {
    for suffix in ["hnsw.data", "hnsw.graph", "ids"] {
        let dir = tempfile::tempdir().unwrap();
        dumped(dir.path());
        let path = file(dir.path(), suffix);
        let len = std::fs::metadata(&path).unwrap().len();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(len / 2)
            .unwrap();
        expect_corrupt(dir.path());
    }
}

#[test]
fn garbage_files_are_corrupt() {
    for suffix in ["hnsw.data", "hnsw.graph", "ids"] {
        let dir = tempfile::tempdir().unwrap();
        dumped(dir.path());
        let path = file(dir.path(), suffix);
        // Same size, damaged content in the middle: only the checksum can tell.
        let mut bytes = std::fs::read(&path).unwrap();
        let (mid, len) = (bytes.len() / 2, bytes.len());
        for b in &mut bytes[mid..(mid + 16).min(len)] {
            *b ^= 0xA5;
        }
        std::fs::write(&path, &bytes).unwrap();
        expect_corrupt(dir.path());
        // Entirely replaced by garbage.
        std::fs::write(&path, b"not an hnsw dump at all").unwrap();
        expect_corrupt(dir.path());
    }
}

#[test]
fn missing_data_file_or_damaged_sidecar_is_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    dumped(dir.path());
    std::fs::remove_file(file(dir.path(), "hnsw.data")).unwrap();
    expect_corrupt(dir.path());

    let dir = tempfile::tempdir().unwrap();
    dumped(dir.path());
    let meta = dir.path().join("idx.hnsw.meta");
    let text = std::fs::read_to_string(&meta).unwrap();
    std::fs::write(&meta, text.replace("count 500", "count 501")).unwrap();
    expect_corrupt(dir.path());
    std::fs::write(&meta, &text[..text.len() / 2]).unwrap();
    expect_corrupt(dir.path());
    std::fs::write(&meta, [0xffu8, 0x00, 0x13, 0x37]).unwrap();
    expect_corrupt(dir.path());
    std::fs::write(&meta, "").unwrap();
    expect_corrupt(dir.path());
}

#[test]
fn a_failed_dump_keeps_the_previous_one_loadable() {
    let dir = tempfile::tempdir().unwrap();
    let index = dumped(dir.path());
    // A dump into a path that is a file fails with an error and leaves the old dump intact.
    let blocker = dir.path().join("blocker");
    std::fs::write(&blocker, b"x").unwrap();
    assert!(index.dump(&blocker, "idx", 2).is_err());
    assert!(DenseIndex::load(dir.path(), "idx", DIM, 1).is_ok());
    assert!(matches!(
        index.dump(dir.path(), "bad/name", 2),
        Err(Error::Input(_))
    ));
}
