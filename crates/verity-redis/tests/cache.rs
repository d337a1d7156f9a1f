//! RedisCache against a real server: TTLs (checked with PTTL), prefix and tag busting.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use std::time::Duration;

use verity_core::cache::{
    answer_key, retrieval_key, uid_tag, ANSWER_PREFIX, ANSWER_TTL, RETRIEVAL_PREFIX, RETRIEVAL_TTL,
};
use verity_core::Cache;
use verity_redis::{ConnectOptions, RedisCache};

#[tokio::test]
async fn ttls_prefixes_and_tags() {
    let Some(srv) = common::server("ttls_prefixes_and_tags") else {
        return;
    };
    let c = RedisCache::connect(&srv.url(), &ConnectOptions::default())
        .await
        .unwrap();
    let rk = retrieval_key("what are routing fees", "k8");
    let ak = answer_key("prompt");
    c.put(
        &rk,
        b"hits",
        Some(RETRIEVAL_TTL),
        &[uid_tag("a"), uid_tag("b")],
    )
    .await
    .unwrap();
    c.put(&ak, b"answer", Some(ANSWER_TTL), &[uid_tag("a")])
        .await
        .unwrap();
    c.put("rag:embed:hash:a", b"sha|v1", None, &[])
        .await
        .unwrap();
    assert_eq!(c.get(&rk).await.unwrap().as_deref(), Some(&b"hits"[..]));
    // TTLs as set by the callers (seed 001: 24 h retrieval, 6 h answer), none for embed hashes.
    let t = c.ttl(&rk).await.unwrap().unwrap();
    assert!(
        t <= RETRIEVAL_TTL && t > RETRIEVAL_TTL - Duration::from_secs(60),
        "{t:?}"
    );
    let t = c.ttl(&ak).await.unwrap().unwrap();
    assert!(
        t <= ANSWER_TTL && t > ANSWER_TTL - Duration::from_secs(60),
        "{t:?}"
    );
    assert_eq!(c.ttl("rag:embed:hash:a").await.unwrap(), None);
    // The tag set lives at least as long as its longest entry.
    let tag_ttl = c.ttl("rag:tag:uid:a").await.unwrap().unwrap();
    assert!(tag_ttl > ANSWER_TTL, "{tag_ttl:?}");

    // A short TTL really expires (one short wait, the only sleep here).
    c.put(
        "rag:answer:short",
        b"x",
        Some(Duration::from_millis(150)),
        &[],
    )
    .await
    .unwrap();
    let t = c.ttl("rag:answer:short").await.unwrap().unwrap();
    assert!(t <= Duration::from_millis(150));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(c.get("rag:answer:short").await.unwrap(), None);

    // Tag busting removes exactly the tagged entries.
    assert_eq!(c.invalidate_tag(&uid_tag("b")).await.unwrap(), 1);
    assert_eq!(c.get(&rk).await.unwrap(), None);
    assert!(c.get(&ak).await.unwrap().is_some());
    assert_eq!(c.invalidate_tag(&uid_tag("b")).await.unwrap(), 0);

    // Prefix busting by SCAN over many keys, other prefixes untouched.
    for i in 0..1200 {
        c.put(
            &format!("{RETRIEVAL_PREFIX}{i}"),
            b"v",
            Some(RETRIEVAL_TTL),
            &[],
        )
        .await
        .unwrap();
    }
    c.put("rag:retrievalX", b"v", None, &[]).await.unwrap();
    c.put("rag:retrieval:*glob", b"v", None, &[]).await.unwrap();
    assert_eq!(
        c.invalidate_prefix("rag:retrieval:*").await.unwrap(),
        1,
        "glob characters are literal"
    );
    assert_eq!(c.invalidate_prefix(RETRIEVAL_PREFIX).await.unwrap(), 1200);
    assert!(c.get("rag:retrievalX").await.unwrap().is_some());
    assert_eq!(c.invalidate_prefix(ANSWER_PREFIX).await.unwrap(), 1);
    assert!(c.get("rag:embed:hash:a").await.unwrap().is_some());
    assert!(c.invalidate_prefix("").await.is_err());
    assert!(c.put("k", b"v", Some(Duration::ZERO), &[]).await.is_err());
}

/// Read-only traffic cannot grow Redis past a class's limit: the write
/// script evicts the oldest entries of the class; other classes are kept.
#[tokio::test]
async fn read_only_traffic_cannot_grow_redis_past_the_limit() {
    use verity_core::cache::{embedding_key, CacheClass, CacheLimits};
    let Some(srv) = common::server("read_only_traffic_cannot_grow_redis_past_the_limit") else {
        return;
    };
    let limit = 256 * 1024;
    let c = RedisCache::connect(&srv.url(), &ConnectOptions::default())
        .await
        .unwrap()
        .with_limits(CacheLimits {
            retrieval: Some(limit),
            ..CacheLimits::default()
        });
    let id = verity_core::EmbedderId::new("m", "v", 4);
    c.put(&embedding_key("kept", &id), &[0u8; 16], None, &[])
        .await
        .unwrap();
    let value = vec![b'x'; 4 * 1024];
    let mut con = redis::Client::open(srv.url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let mut counts = Vec::new();
    for round in 0..4 {
        for i in 0..500 {
            let k = retrieval_key(&format!("query {round} {i}"), "scope");
            c.put(&k, &value, Some(RETRIEVAL_TTL), &[]).await.unwrap();
        }
        let bytes = c.usage_bytes(CacheClass::Retrieval).await.unwrap();
        assert!(bytes <= limit, "round {round}: {bytes} over {limit}");
        let keys: Vec<String> = redis::cmd("KEYS")
            .arg(format!("{RETRIEVAL_PREFIX}*"))
            .query_async(&mut con)
            .await
            .unwrap();
        assert!(
            keys.len() as u64 * 4096 <= limit,
            "round {round}: {} keys",
            keys.len()
        );
        assert!(
            keys.len() >= 40,
            "round {round}: evicted too much ({})",
            keys.len()
        );
        counts.push(keys.len());
    }
    eprintln!("retrieval keys after each 500 puts: {counts:?} (limit {limit} bytes)");
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
    let big = retrieval_key("big", "scope");
    c.put(&big, &vec![0u8; limit as usize + 1], None, &[])
        .await
        .unwrap();
    assert!(c.get(&big).await.unwrap().is_none());
}
