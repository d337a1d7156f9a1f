//! The event-store contract on both backends: the embedded SQLite store (in
//! memory and on disk) and a real Redis 8 (RediSearch) started for the test.
//! Both must pass every step and observe the same results.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use verity_core::EventStore;
use verity_memory::contract::{self, Observation};
use verity_redis::server::RedisServer;
use verity_redis::{RedisEventOptions, RedisEventStore};
use verity_store::{EventStoreOptions, SqliteEventStore};

async fn run(store: Arc<dyn EventStore>) -> Vec<Observation> {
    match contract::run(store).await {
        Ok(o) => o,
        Err(e) => panic!("contract broken: {e}"),
    }
}

#[tokio::test]
async fn sqlite_in_memory_passes_the_contract() {
    let s = SqliteEventStore::open_in_memory(EventStoreOptions::default()).unwrap();
    run(Arc::new(s)).await;
}

#[tokio::test]
async fn sqlite_and_redis_pass_the_contract_and_agree() {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = SqliteEventStore::open(dir.path(), EventStoreOptions::default()).unwrap();
    let a = run(Arc::new(sqlite)).await;
    let Some(srv) = RedisServer::start_or_skip("sqlite_and_redis_pass_the_contract_and_agree", &[])
    else {
        return;
    };
    let redis = RedisEventStore::connect(&srv.url(), "contract", RedisEventOptions::default())
        .await
        .unwrap();
    let b = run(Arc::new(redis)).await;
    assert!(a.len() > 100, "{} observations", a.len());
    if let Err(e) = contract::compare(&a, &b, 1e-3) {
        panic!("backends disagree: {e}");
    }
}
