//! The watch store contract (`verity_store_contract::watch`) on SQLite, in memory and on disk.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use verity_store::SqliteWatchStore;

#[tokio::test]
async fn watch_contract_in_memory() {
    verity_store_contract::watch::run(Arc::new(SqliteWatchStore::open_in_memory().unwrap())).await;
}

#[tokio::test]
async fn watch_contract_on_disk_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let s = Arc::new(SqliteWatchStore::open(dir.path()).unwrap());
    verity_store_contract::watch::run(s.clone()).await;
    drop(s);
    // Reopening migrates nothing and keeps everything.
    let s = SqliteWatchStore::open(dir.path()).unwrap();
    use verity_core::{ProjectStore, WatchStore};
    assert_eq!(s.article_count().await.unwrap(), 4);
    assert_eq!(s.projects().await.unwrap().len(), 2);
    // The same file also holds the document store.
    let docs = verity_store::SqliteStore::open(dir.path(), Default::default()).unwrap();
    assert_eq!(docs.index_name(), verity_store::DEFAULT_INDEX);
}

#[tokio::test]
async fn decision_log_is_append_only_in_sql() {
    use verity_core::WatchStore;
    let dir = tempfile::tempdir().unwrap();
    let s = SqliteWatchStore::open(dir.path()).unwrap();
    verity_store_contract::watch::decisions(&s).await;
    let conn = rusqlite::Connection::open(dir.path().join(verity_store::DB_FILE)).unwrap();
    let e = conn.execute("DELETE FROM watch_decisions", []).unwrap_err();
    assert!(e.to_string().contains("append-only"), "{e}");
    let e = conn
        .execute("UPDATE watch_decisions SET data = '{}'", [])
        .unwrap_err();
    assert!(e.to_string().contains("append-only"), "{e}");
    assert_eq!(
        s.decisions(&verity_core::DecisionFilter {
            limit: 10,
            ..Default::default()
        })
        .await
        .unwrap()
        .len(),
        3
    );
}

#[tokio::test]
async fn version_1_database_gets_the_simhash_block_index() {
    use verity_core::WatchStore;
    let dir = tempfile::tempdir().unwrap();
    let s = SqliteWatchStore::open(dir.path()).unwrap();
    verity_store_contract::watch::articles(&s).await;
    drop(s);
    // Back to the version-1 layout: 8-bit bands, no block index.
    let path = dir.path().join(verity_store::DB_FILE);
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "DROP TABLE watch_simhash_blocks;
         CREATE TABLE watch_simhash_bands (band INTEGER NOT NULL, value INTEGER NOT NULL,
             article_id TEXT NOT NULL, PRIMARY KEY (band, value, article_id)) WITHOUT ROWID;
         UPDATE watch_meta SET value = '1' WHERE key = 'schema_version';",
    )
    .unwrap();
    drop(conn);
    // Reopening indexes every logged SimHash (art_1 holds 0xffff_0000_ffff_0000).
    let s = SqliteWatchStore::open(dir.path()).unwrap();
    let found = s
        .near_duplicates(0xffff_0000_ffff_0000 ^ (1 << 40), 7)
        .await
        .unwrap();
    assert_eq!(
        found.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(),
        ["art_1"]
    );
    let conn = rusqlite::Connection::open(&path).unwrap();
    let bands: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'watch_simhash_bands'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(bands, 0);
}
