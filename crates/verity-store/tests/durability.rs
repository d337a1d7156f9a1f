//! Durability: a writer killed with SIGKILL mid-ingest leaves whole documents
//! only; concurrent readers never see half a document.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use verity_core::{
    Chunk, Document, EmbedderId, IndexedDocument, SearchMode, SearchQuery, VectorStore,
};
use verity_store::{SqliteStore, StoreOptions};

const JOB: usize = 3000;
const CHILD_ENV: &str = "VERITY_STORE_CRASH_CHILD";

fn emb() -> EmbedderId {
    EmbedderId::new("toy", "v1", 8)
}

/// Document `i` of the job, version `v`: `2 + (i + v) % 3` chunks, each tagged with its version.
fn doc(i: usize, v: usize) -> IndexedDocument {
    let uid = format!("doc{i}");
    let n = 2 + (i + v) % 3;
    let parts: Vec<String> = (0..n)
        .map(|j| format!("common ver{v} part{j} payload{i}"))
        .collect();
    let content = parts.join("\n");
    let mut chunks = Vec::new();
    let mut start = 0;
    for (j, p) in parts.iter().enumerate() {
        chunks.push(Chunk {
            id: Chunk::make_id(&uid, j as u32),
            doc_uid: uid.clone(),
            index: j as u32,
            text: p.clone(),
            start,
            end: start + p.len(),
            heading_path: vec![],
            token_count: 4,
        });
        start += p.len() + 1;
    }
    let vectors = (0..n)
        .map(|j| {
            (0..8)
                .map(|k| ((i * 7 + j * 3 + k + v) % 11) as f32 + 0.5)
                .collect()
        })
        .collect();
    let mut document = Document::new(uid, content);
    document.title = Some(format!("Document {i}"));
    let content_hash = document.content_hash();
    IndexedDocument {
        document,
        chunks,
        embeddings: Some(vectors),
        sentence_embeddings: None,
        chunking: None,
        embedder: Some(emb()),
        content_hash,
    }
}

fn expected_chunks(i: usize, v: usize) -> usize {
    2 + (i + v) % 3
}

async fn ingest(
    store: &SqliteStore,
    pause: Duration,
    progress: Option<&Path>,
) -> verity_core::UpsertReport {
    let mut total = verity_core::UpsertReport::default();
    for batch in (0..JOB).collect::<Vec<_>>().chunks(10) {
        let r = store
            .upsert(batch.iter().map(|&i| doc(i, 0)).collect())
            .await
            .unwrap();
        total.merge(&r);
        if let Some(p) = progress {
            std::fs::write(p, (total.inserted + total.unchanged).to_string()).unwrap();
        }
        std::thread::sleep(pause);
    }
    total
}

/// Child half of `kill_9_mid_ingest`: does nothing unless spawned by it.
#[tokio::test]
async fn crash_child() {
    let Some(dir) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let store = SqliteStore::open(Path::new(&dir), StoreOptions::default()).unwrap();
    ingest(
        &store,
        Duration::from_millis(3),
        Some(&Path::new(&dir).join("progress")),
    )
    .await;
    // Reaching here means the parent did not kill us in time; it will notice.
}

fn check_whole(store: &SqliteStore, rt: &tokio::runtime::Runtime) -> usize {
    store.integrity_check().unwrap();
    let stats = rt.block_on(store.stats()).unwrap();
    let uids: Vec<String> = (0..JOB).map(|i| format!("doc{i}")).collect();
    let present = rt.block_on(store.fingerprints(&uids)).unwrap();
    assert_eq!(present.len(), stats.documents);
    let want_chunks: usize = (0..JOB)
        .filter(|i| present.contains_key(&format!("doc{i}")))
        .map(|i| expected_chunks(i, 0))
        .sum();
    assert_eq!(
        stats.chunks, want_chunks,
        "every document has all its chunks"
    );
    assert_eq!(stats.vectors, want_chunks);
    // FTS rows match chunks: the word every chunk has finds every chunk, each document whole.
    let hits = rt
        .block_on(
            store.search(
                &SearchQuery::new("common")
                    .mode(SearchMode::Lexical)
                    .k(100_000),
            ),
        )
        .unwrap();
    assert_eq!(hits.len(), want_chunks);
    let mut per_doc: HashMap<String, usize> = HashMap::new();
    for h in &hits {
        *per_doc.entry(h.doc.uid.clone()).or_default() += 1;
    }
    for (uid, n) in per_doc {
        let i: usize = uid.trim_start_matches("doc").parse().unwrap();
        assert_eq!(n, expected_chunks(i, 0), "{uid}");
    }
    let dense = rt
        .block_on(
            store.search(
                &SearchQuery::new("")
                    .mode(SearchMode::Dense)
                    .vector(vec![1.0; 8])
                    .k(100_000),
            ),
        )
        .unwrap();
    assert_eq!(
        dense.len(),
        want_chunks,
        "dense index rebuilt with every vector"
    );
    stats.documents
}

#[test]
fn kill_9_mid_ingest() {
    if std::env::var_os(CHILD_ENV).is_some() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut child = std::process::Command::new(exe)
        // The test's full name inside the crate's one test binary.
        .args([
            "--exact",
            "durability::crash_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, dir.path())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    // Wait until the child has written a few hundred documents, then SIGKILL it.
    let started = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(10));
        let done: usize = std::fs::read_to_string(dir.path().join("progress"))
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        if done >= 300 {
            break;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("child exited ({status}) before writing 300 documents");
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "child made no progress"
        );
    }
    child.kill().unwrap(); // SIGKILL on Unix
    let status = child.wait().unwrap();
    assert!(
        !status.success(),
        "child must have been killed, not finished"
    );

    let store = SqliteStore::open(dir.path(), StoreOptions::default()).unwrap();
    let present = check_whole(&store, &rt);
    assert!(
        (300..JOB).contains(&present),
        "killed mid-ingest: {present} documents"
    );

    // Re-running the ingest completes the job, skipping what is already there.
    let r = rt.block_on(ingest(&store, Duration::ZERO, None));
    assert_eq!(r.unchanged, present);
    assert_eq!(r.inserted, JOB - present);
    assert_eq!(check_whole(&store, &rt), JOB);
}

#[test]
fn concurrent_readers_see_whole_documents() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(dir.path(), StoreOptions::default()).unwrap());
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(store.upsert((0..50).map(|i| doc(i, 0)).collect()))
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (store, stop) = (store.clone(), stop.clone());
            std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .build()
                    .unwrap();
                let mut checks = 0;
                while !stop.load(Ordering::Relaxed) || checks == 0 {
                    let hits = rt
                        .block_on(
                            store.search(
                                &SearchQuery::new("common")
                                    .mode(SearchMode::Lexical)
                                    .k(100_000),
                            ),
                        )
                        .unwrap();
                    let mut per_doc: HashMap<String, Vec<String>> = HashMap::new();
                    for h in hits {
                        let ver = h.chunk.text.split_whitespace().nth(1).unwrap().to_string();
                        per_doc.entry(h.doc.uid.clone()).or_default().push(ver);
                    }
                    assert_eq!(per_doc.len(), 50);
                    for (uid, vers) in per_doc {
                        let v: usize = vers[0].trim_start_matches("ver").parse().unwrap();
                        assert!(
                            vers.iter().all(|x| *x == vers[0]),
                            "{uid}: mixed versions {vers:?}"
                        );
                        let i: usize = uid.trim_start_matches("doc").parse().unwrap();
                        assert_eq!(
                            vers.len(),
                            expected_chunks(i, v),
                            "{uid} v{v}: half a document"
                        );
                    }
                    checks += 1;
                }
                checks
            })
        })
        .collect();
    for v in 1..=12 {
        rt.block_on(store.upsert((0..50).map(|i| doc(i, v)).collect()))
            .unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        assert!(r.join().unwrap() > 0);
    }
}
