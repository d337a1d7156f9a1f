//! The store contract suite on a real Redis, and parity with the embedded
//! store on the same fixtures. With `VERITY_REQUIRE_REDIS=1` a Redis that
//! cannot start fails these tests instead of skipping them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use std::sync::Arc;

use async_trait::async_trait;
use verity_redis::{ConnectOptions, RedisCache, RedisCatalog, RedisStore, RedisStoreOptions};
use verity_store::{SqliteStore, StoreOptions};
use verity_store_contract::{StoreFactory, Subject};

struct OnRedis {
    url: String,
}

#[async_trait]
impl StoreFactory for OnRedis {
    async fn open(&self, index: &str) -> Subject {
        let store = RedisStore::connect(&self.url, index, RedisStoreOptions::default())
            .await
            .unwrap();
        let cache = RedisCache::connect(&self.url, &ConnectOptions::default())
            .await
            .unwrap();
        let catalog = RedisCatalog::connect(&self.url, RedisStoreOptions::default())
            .await
            .unwrap();
        Subject {
            store: Arc::new(store),
            cache: Arc::new(cache),
            catalog: Some(Arc::new(catalog)),
        }
    }
}

struct Embedded;

#[async_trait]
impl StoreFactory for Embedded {
    async fn open(&self, index: &str) -> Subject {
        let store = SqliteStore::open_in_memory(StoreOptions::default().index(index)).unwrap();
        Subject {
            cache: Arc::new(store.cache()),
            store: Arc::new(store),
            catalog: None,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn contract_on_redis() {
    let Some(srv) = common::server("contract_on_redis") else {
        return;
    };
    verity_store_contract::run_all(&OnRedis { url: srv.url() }).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_agrees_with_the_embedded_store() {
    let Some(srv) = common::server("redis_agrees_with_the_embedded_store") else {
        return;
    };
    verity_store_contract::compare(&Embedded, &OnRedis { url: srv.url() }).await;
}
