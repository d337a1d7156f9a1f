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
