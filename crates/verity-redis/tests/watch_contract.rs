//! The watch store contract (`verity_store_contract::watch`) on a real Redis server.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use std::sync::Arc;

use verity_core::{ProjectStore, RuleStore, WatchStore};
use verity_redis::{ConnectOptions, RedisWatchStore};

#[tokio::test]
async fn watch_contract_on_redis() {
    let Some(srv) = common::server("watch_contract_on_redis") else {
        return;
    };
    let s = RedisWatchStore::connect(&srv.url(), &ConnectOptions::default())
        .await
        .unwrap();
    verity_store_contract::watch::run(Arc::new(s.clone())).await;
    // Another prefix is another, empty, watch in the same database.
    let other = s.clone().with_prefix("watch2").unwrap();
    assert_eq!(other.article_count().await.unwrap(), 0);
    assert!(other.rules(None, None).await.unwrap().is_empty());
    assert!(other.projects().await.unwrap().is_empty());
    assert_eq!(s.article_count().await.unwrap(), 4);
    assert!(s.clone().with_prefix("bad prefix").is_err());
}

#[tokio::test]
async fn redis_down_is_transient() {
    let Some(mut srv) = common::server("redis_down_is_transient") else {
        return;
    };
    let opts = ConnectOptions {
        reconnect_retries: 0,
        response_timeout: std::time::Duration::from_millis(500),
        ..Default::default()
    };
    let s = RedisWatchStore::connect(&srv.url(), &opts).await.unwrap();
    srv.kill();
    let e = s.article("art_x").await.unwrap_err();
    assert!(e.is_transient(), "{e}");
}
