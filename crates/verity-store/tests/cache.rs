//! SqliteCache: TTL expiry, prefix and tag invalidation, counters, persistence.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use verity_core::cache::{retrieval_key, uid_tag, RETRIEVAL_PREFIX};
use verity_core::Cache;
use verity_store::{SqliteCache, SqliteStore, StoreOptions};

#[tokio::test]
async fn ttl_prefix_tags_and_counters() {
    let c = SqliteCache::open_in_memory().unwrap();
    let k1 = retrieval_key("what is bitcoin", "k8");
    let k2 = retrieval_key("fees", "k8");
    c.put(&k1, b"one", None, &[uid_tag("a"), uid_tag("b")])
        .await
        .unwrap();
    c.put(&k2, b"two", None, &[uid_tag("b")]).await.unwrap();
    c.put("rag:answer:x", b"ans", None, &[uid_tag("a")])
        .await
        .unwrap();
    c.put("short", b"gone", Some(Duration::from_millis(30)), &[])
        .await
        .unwrap();
    assert_eq!(c.get(&k1).await.unwrap().as_deref(), Some(&b"one"[..]));
    assert_eq!(c.get("short").await.unwrap().as_deref(), Some(&b"gone"[..]));
    std::thread::sleep(Duration::from_millis(60));
    assert_eq!(c.get("short").await.unwrap(), None, "expired");
    assert_eq!(c.get("nope").await.unwrap(), None);
    assert_eq!(c.stats().hits, 2);
    assert_eq!(c.stats().misses, 2);
    assert_eq!(c.len().unwrap(), 3);

    // Overwrite replaces value and tags.
    c.put(&k2, b"two'", None, &[]).await.unwrap();
    assert_eq!(
        c.invalidate_tag(&uid_tag("b")).await.unwrap(),
        1,
        "only k1 still carries uid:b"
    );
    assert_eq!(c.get(&k1).await.unwrap(), None);
    assert_eq!(c.get(&k2).await.unwrap().as_deref(), Some(&b"two'"[..]));
    assert_eq!(c.invalidate_prefix(RETRIEVAL_PREFIX).await.unwrap(), 1);
    assert_eq!(
        c.get("rag:answer:x").await.unwrap().as_deref(),
        Some(&b"ans"[..])
    );
    assert_eq!(c.invalidate_prefix("rag:").await.unwrap(), 1);
    assert!(c.is_empty().unwrap());
    // Prefix is literal: no LIKE wildcards.
    c.put("a%b", b"1", None, &[]).await.unwrap();
    c.put("axb", b"2", None, &[]).await.unwrap();
    assert_eq!(c.invalidate_prefix("a%").await.unwrap(), 1);
    assert_eq!(c.get("axb").await.unwrap().as_deref(), Some(&b"2"[..]));
    c.put("old", b"x", Some(Duration::from_millis(1)), &[])
        .await
        .unwrap();
    std::thread::sleep(Duration::from_millis(10));
    assert_eq!(c.purge_expired().unwrap(), 1);
}

#[tokio::test]
async fn cache_shares_the_store_database_and_persists() {
    let dir = tempfile::tempdir().unwrap();
    {
        let s = SqliteStore::open(dir.path(), StoreOptions::default()).unwrap();
        s.cache()
            .put("k", b"v", Some(Duration::from_secs(3600)), &["t".into()])
            .await
            .unwrap();
    }
    let c = SqliteCache::open(dir.path()).unwrap();
    assert_eq!(c.get("k").await.unwrap().as_deref(), Some(&b"v"[..]));
    assert_eq!(c.invalidate_tag("t").await.unwrap(), 1);
    assert_eq!(c.get("k").await.unwrap(), None);
}

/// Read-only traffic (every search a new key) cannot grow the store past the
/// class's limit: the oldest entries are evicted, the database file stops
/// growing, and other classes are untouched.
#[tokio::test]
async fn read_only_traffic_cannot_grow_the_store_past_the_limit() {
    use verity_core::cache::{embedding_key, CacheClass, CacheLimits};
    let dir = tempfile::tempdir().unwrap();
    let limit = 256 * 1024;
    let c = SqliteCache::open(dir.path())
        .unwrap()
        .with_limits(CacheLimits {
            retrieval: Some(limit),
            ..CacheLimits::default()
        });
    let id = verity_core::EmbedderId::new("m", "v", 4);
    c.put(&embedding_key("kept", &id), &[0u8; 16], None, &[])
        .await
        .unwrap();
    let value = vec![b'x'; 4 * 1024]; // one cached retrieval of ~4 KB
    let store = SqliteStore::open(dir.path(), StoreOptions::default()).unwrap();
    let mut sizes = Vec::new();
    for round in 0..4 {
        for i in 0..500 {
            let k = retrieval_key(&format!("query {round} {i}"), "scope");
            c.put(&k, &value, Some(Duration::from_secs(3600)), &[])
                .await
                .unwrap();
        }
        let u = c.usage(CacheClass::Retrieval).unwrap();
        assert!(u.bytes <= limit, "round {round}: {u:?} over {limit}");
        assert!(u.entries >= 40, "round {round}: evicted too much: {u:?}");
        let stats = verity_core::VectorStore::stats(&store).await.unwrap();
        sizes.push(stats.size_bytes.unwrap());
    }
    // The newest entries are there, the oldest gone, other classes kept.
    assert!(c
        .get(&retrieval_key("query 3 499", "scope"))
        .await
        .unwrap()
        .is_some());
    assert!(c
        .get(&retrieval_key("query 0 0", "scope"))
        .await
        .unwrap()
        .is_none());
    assert!(c.get(&embedding_key("kept", &id)).await.unwrap().is_some());
    // 2,000 distinct ~4 KB entries (8 MB written): the file stays within the
    // limit plus SQLite's page overhead, and stops growing after the first round.
    eprintln!("database bytes after each 500 puts: {sizes:?} (limit {limit})");
    assert!(sizes[3] <= sizes[0] + 64 * 1024, "{sizes:?}");
    assert!(sizes[3] < 4 * limit + 512 * 1024, "{sizes:?}");
    // An entry larger than its class's limit is not stored.
    let big = retrieval_key("big", "scope");
    c.put(&big, &vec![0u8; limit as usize + 1], None, &[])
        .await
        .unwrap();
    assert!(c.get(&big).await.unwrap().is_none());
}
