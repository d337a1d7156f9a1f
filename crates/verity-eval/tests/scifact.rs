//! End-to-end BM25 evaluation on SciFact (train split) with the SQLite store.
//! Skips loudly when the data folder is absent.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use verity_core::{SearchMode, VectorStore};
use verity_eval::{evaluate, load_corpus, load_split, EvalOptions};
use verity_store::{SqliteStore, StoreOptions};

fn scifact_dir() -> Option<PathBuf> {
    let base = std::env::var_os("VERITY_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    let dir = base.join("scifact");
    dir.join("corpus.jsonl").is_file().then_some(dir)
}

#[tokio::test]
async fn scifact_bm25_quality() {
    let Some(dir) = scifact_dir() else {
        verity_testkit::skip("scifact_bm25_quality: SciFact not found (set VERITY_DATA_DIR or put shared/data beside the repo)");
        return;
    };
    let corpus = load_corpus(&dir).unwrap();
    assert_eq!(corpus.len(), 5183);
    let store = SqliteStore::open_in_memory(StoreOptions::default()).unwrap();
    for batch in corpus.chunks(500) {
        store
            .upsert(batch.iter().map(|d| d.to_indexed()).collect())
            .await
            .unwrap();
    }
    assert_eq!(store.stats().await.unwrap().documents, 5183);
    let split = load_split(&dir, "train").unwrap();
    assert!(
        split.queries.len() > 700,
        "{} train queries",
        split.queries.len()
    );
    let opts = EvalOptions {
        mode: SearchMode::Lexical,
        ..Default::default()
    };
    let report = evaluate(&store, None, &split, &opts).await.unwrap();
    eprintln!(
        "SciFact train BM25: nDCG@10 {:.4}  R@5 {:.4}  R@100 {:.4}  MRR@10 {:.4}  ({} queries)",
        report.ndcg_at_10,
        report.recall_at_5,
        report.recall_at_100,
        report.mrr_at_10,
        report.queries
    );
    assert_eq!(report.queries, split.queries.len());
    // Published BM25 on the (different) test split is 0.665–0.686; a broken
    // tokenizer, ranking or sanitizer lands far below this floor.
    assert!(report.ndcg_at_10 > 0.6, "nDCG@10 {}", report.ndcg_at_10);
    assert!(report.recall_at_100 >= report.recall_at_5);
    assert!(
        report.recall_at_100 > 0.85,
        "recall@100 {}",
        report.recall_at_100
    );
}
