//! The store never stalls its async runtime: many concurrent searches plus
//! an ingest on a two-worker runtime, while a ticking task measures the gaps
//! between its ticks. SQLite and HNSW work runs on blocking threads, so the
//! ticker keeps its pace; run inline, the searches would hold both workers
//! for the whole load and the ticker would not tick at all.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use verity_core::{
    Chunk, Document, EmbedderId, Filters, IndexedDocument, SearchMode, SearchQuery, VectorStore,
};
use verity_store::{SqliteStore, StoreOptions};

const DIM: usize = 32;
const WORDS: &[&str] = &[
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
    "kilo", "lima", "mike", "november", "oscar", "papa",
];

fn vector(seed: usize) -> Vec<f32> {
    let mut v: Vec<f32> = (0..DIM)
        .map(|i| (((seed * 31 + i * 17) % 97) as f32 / 97.0) - 0.4)
        .collect();
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= n);
    v
}

fn doc(n: usize) -> IndexedDocument {
    let uid = format!("d{n}");
    let text: Vec<&str> = (0..12)
        .map(|i| WORDS[(n * 7 + i * 3) % WORDS.len()])
        .collect();
    let text = text.join(" ");
    let mut document = Document::new(uid.clone(), text.clone());
    document.tags = vec![format!("t{}", n % 4)];
    let chunk = Chunk {
        id: Chunk::make_id(&uid, 0),
        doc_uid: uid,
        index: 0,
        text: text.clone(),
        start: 0,
        end: text.len(),
        heading_path: Vec::new(),
        token_count: 12,
    };
    IndexedDocument {
        content_hash: document.content_hash(),
        document,
        chunks: vec![chunk],
        embeddings: Some(vec![vector(n)]),
        sentence_embeddings: None,
        embedder: Some(EmbedderId::new("ticker-toy", "1", DIM)),
        chunking: None,
    }
}

#[test]
fn concurrent_searches_and_an_ingest_do_not_stall_the_runtime() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let home = tempfile::tempdir().unwrap();
        let store = Arc::new(SqliteStore::open(home.path(), StoreOptions::default()).unwrap());
        for batch in (0..3000).collect::<Vec<_>>().chunks(500) {
            store
                .upsert(batch.iter().map(|&n| doc(n)).collect())
                .await
                .unwrap();
        }
        let load = Duration::from_secs(3);
        let started = Instant::now();

        let ticker = tokio::spawn(async move {
            let mut max_gap = Duration::ZERO;
            let mut ticks = 0u32;
            let mut last = Instant::now();
            while started.elapsed() < load {
                tokio::time::sleep(Duration::from_millis(5)).await;
                let now = Instant::now();
                max_gap = max_gap.max(now - last);
                last = now;
                ticks += 1;
            }
            (max_gap, ticks)
        });
        let mut tasks = Vec::new();
        for t in 0..16usize {
            let store = store.clone();
            tasks.push(tokio::spawn(async move {
                let mut n = 0usize;
                while started.elapsed() < load {
                    let mode = [SearchMode::Hybrid, SearchMode::Dense, SearchMode::Lexical][n % 3];
                    let mut q = SearchQuery::new(format!("{} {}", WORDS[(t + n) % 16], WORDS[n % 16]))
                        .mode(mode)
                        .vector(vector(t * 1000 + n))
                        .k(10);
                    if n % 2 == 0 {
                        q = q.filters(Filters {
                            tags_any: vec![format!("t{}", n % 4)],
                            ..Default::default()
                        });
                    }
                    let hits = store.search(&q).await.unwrap();
                    assert!(!hits.is_empty());
                    n += 1;
                }
                n
            }));
        }
        let writer = {
            let store = store.clone();
            tokio::spawn(async move {
                let mut written = 0;
                let mut next = 3000;
                while started.elapsed() < load {
                    let r = store
                        .upsert((next..next + 50).map(doc).collect())
                        .await
                        .unwrap();
                    written += r.inserted;
                    next += 50;
                }
                written
            })
        };
        let mut searches = 0;
        for t in tasks {
            searches += t.await.unwrap();
        }
        let written = writer.await.unwrap();
        let (max_gap, ticks) = ticker.await.unwrap();
        eprintln!(
            "{searches} searches and {written} documents written in {:?}; ticker: {ticks} ticks, max gap {max_gap:?}",
            started.elapsed()
        );
        assert!(searches > 16 && written > 0, "the load ran");
        // 5 ms ticks; a loaded 2-core machine may delay a tick by tens of
        // milliseconds, a stalled runtime by the whole load (3 s).
        assert!(
            max_gap < Duration::from_millis(750),
            "the runtime stalled: a 5 ms ticker waited {max_gap:?}"
        );
    });
}
